/* pin.c — task tree identities (pin.h). */
#include "pipeline/pin.h"

#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/proc.h"

/* What git prints for argv, without its trailing newline, or NULL when
 * it failed. Caller frees. */
static char *git_says(char *const *argv)
{
	struct buf out = BUF_INIT;
	struct proc_result res = { 0 };
	struct err e;
	if (proc_capture(argv, 30, &out, &res, &e) < 0 || res.exit_code) {
		buf_free(&out);
		return NULL;
	}
	char *s = buf_detach(&out);
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

cJSON *pin_git(const char *dir)
{
	char *where = fs_find_in_path("git");
	if (!where)
		return NULL;
	free(where);
	char *head[] = { "git", "-C", (char *)dir, "rev-parse", "--verify", "HEAD", NULL };
	char *commit = git_says(head);
	if (!commit || strlen(commit) < 40) {
		free(commit);
		return NULL;
	}
	/* only what lies under dir, untracked files included */
	char *st[] = { "git", "-C", (char *)dir, "status", "--porcelain", "--", ".", NULL };
	char *status = git_says(st);
	cJSON *g = cJSON_CreateObject();
	json_set_str(g, "commit", commit);
	if (status)
		json_set_bool(g, "dirty", *status != '\0');
	else
		json_set(g, "dirty", cJSON_CreateNull());
	free(commit);
	free(status);
	return g;
}

int pin_task_digest(const char *task_dir, const char *cache, char out[33], struct err *e)
{
	/* "": a cache no one can read, so every file is hashed (and none written) */
	return hash_tree_cached(task_dir, cache ? cache : "", false, out, e);
}

cJSON *pin_make(const char *tasks_dir, struct err *e)
{
	struct strlist kids = STRLIST_INIT;
	if (fs_list_names(tasks_dir, &kids, e) < 0)
		return NULL;
	cJSON *tasks = cJSON_CreateObject();
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < kids.n; i++) {
		char *dir = path_join(tasks_dir, kids.v[i]), *toml = path_join(dir, "task.toml");
		char digest[33];
		if (fs_exists(toml) && (rc = pin_task_digest(dir, NULL, digest, e)) == 0)
			json_set_str(tasks, kids.v[i], digest);
		free(toml);
		free(dir);
	}
	strlist_free(&kids);
	if (rc == 0 && !tasks->child)
		rc = err_set(e, ERR_INPUT, "'%s' holds no task (a folder with task.toml): point TASKS_DIR at the tasks",
			     tasks_dir);
	if (rc < 0) {
		cJSON_Delete(tasks);
		return NULL;
	}
	cJSON *p = cJSON_CreateObject();
	json_set_num(p, "format", PIN_FORMAT);
	json_set_str(p, "tasks_dir", tasks_dir);
	cJSON *g = pin_git(tasks_dir);
	json_set(p, "git", g ? g : cJSON_CreateNull());
	json_set(p, "tasks", tasks);
	return p;
}

cJSON *pin_read(const char *path, struct err *e)
{
	cJSON *p = json_read_file(path, e);
	if (p && !cJSON_IsObject(json_get(p, "tasks"))) {
		cJSON_Delete(p);
		err_set(e, ERR_INPUT, "'%s' is not a dataset pin (no \"tasks\"): write one with make pin DATASET_PIN=%s",
			path, path);
		return NULL;
	}
	return p;
}

int pin_check(const cJSON *pin, const char *pin_path, const char *task, const char *digest, struct err *e)
{
	const char *want = json_str(json_get(pin, "tasks"), task);
	if (!want)
		return err_set(e, ERR_INPUT, "task '%s' is not in the dataset pin '%s': run a pinned task, or pin "
			       "this tree again (make pin DATASET_PIN=%s)", task, pin_path, pin_path);
	if (strcmp(want, digest))
		return err_set(e, ERR_INPUT, "task '%s' differs from the dataset pin '%s' (digest %.12s, pinned %.12s): "
			       "restore the pinned task tree, or pin it again (make pin DATASET_PIN=%s); nothing was run",
			       task, pin_path, digest, want, pin_path);
	return 0;
}
