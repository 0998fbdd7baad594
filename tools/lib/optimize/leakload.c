#include "optimize/leakload.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"

static bool is_text(const struct buf *b)
{
	return !memchr(b->data, 0, b->len);
}

/* Adds file rel of root (held under its name, label: first when a label
 * is given, when held; else known); binary files are skipped. */
static int add_file(struct leak_index *lk, const char *root, const char *rel, const char *held,
		    struct err *e)
{
	char *p = path_join(root, rel);
	struct buf b = BUF_INIT;
	int rc = fs_read_limited(p, &b, e);
	if (rc == 0 && is_text(&b)) {
		char *source = held && *held ? xasprintf("%s: %s", held, rel) : xstrdup(rel);
		if (held)
			leak_add_held(lk, source, b.data, b.len);
		else
			leak_add_known(lk, b.data, b.len);
		free(source);
	}
	buf_free(&b);
	free(p);
	return rc;
}

static bool held_path(const char *rel)
{
	if (!strncmp(rel, "tests/", 6) || !strncmp(rel, "solution/", 9))
		return true;
	if (!strncmp(rel, "environment/skills/", 19))
		return false;
	return strstr(path_base(rel), "expected") != NULL;
}

/* label: the task's name in the sources it adds ("" for none). */
static int add_task(struct leak_index *lk, const char *task_dir, const char *label, struct err *e)
{
	struct fs_tree t = { 0 };
	int rc = fs_list_tree(task_dir, &t, e);
	for (size_t i = 0; rc == 0 && i < t.n; i++) {
		const char *rel = t.v[i].path;
		if (!S_ISREG(t.v[i].mode))
			continue;
		if (!strcmp(rel, "instruction.md"))
			rc = add_file(lk, task_dir, rel, NULL, e);
		else if (held_path(rel))
			rc = add_file(lk, task_dir, rel, label, e);
	}
	fs_tree_free(&t);
	return rc;
}

static void add_verifier(struct leak_index *lk, const struct trace_set *ts)
{
	for (size_t i = 0; ts && i < ts->n; i++) {
		struct trace_facts f;
		trace_facts_read(&ts->v[i], NULL, &f);
		struct buf b = BUF_INIT;
		trace_verifier_text(f.verifier, &b);
		char *name = xasprintf("the verifier output of %s", ts->v[i].name);
		leak_add_held(lk, name, b.data, b.len);
		free(name);
		buf_free(&b);
		trace_facts_free(&f);
	}
}

struct leak_index *leak_load(const char *task_dir, const struct trace_set *ts, const struct pkgset *set,
			     struct err *e)
{
	return leak_load_tasks(&task_dir, 1, ts, set, e);
}

struct leak_index *leak_load_more(const char *task, const struct strlist *more,
				  const struct trace_set *ts, const struct pkgset *set,
				  struct err *e)
{
	size_t n = 1 + (more ? more->n : 0);
	const char **dirs = xcalloc(n, sizeof *dirs);
	dirs[0] = task;
	for (size_t i = 1; i < n; i++)
		dirs[i] = more->v[i - 1];
	struct leak_index *lk = leak_load_tasks(dirs, n, ts, set, e);
	free(dirs);
	return lk;
}

struct leak_index *leak_load_tasks(const char *const *task_dirs, size_t n,
				   const struct trace_set *ts, const struct pkgset *set,
				   struct err *e)
{
	for (size_t i = 0; i < n; i++)
		if (!fs_is_dir(task_dirs[i])) {
			err_set(e, ERR_INPUT,
				"the task folder '%s' is missing: the leakage guard reads its "
				"tests/ and solution/ (give --task the task's folder)",
				task_dirs[i]);
			return NULL;
		}
	struct leak_index *lk = leak_new();
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add_task(lk, task_dirs[i], n > 1 ? path_base(task_dirs[i]) : "", e);
	for (size_t k = 0; rc == 0 && set && k < set->n; k++) {
		const struct skill_src *skill = &set->v[k];
		for (size_t i = 0; rc == 0 && i < skill->tree.n; i++)
			if (S_ISREG(skill->tree.v[i].mode))
				rc = add_file(lk, skill->dir, skill->tree.v[i].path, NULL, e);
	}
	if (rc < 0) {
		leak_free(lk);
		return NULL;
	}
	add_verifier(lk, ts);
	return lk;
}
