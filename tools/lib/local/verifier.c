#include "local/verifier.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local/record.h"
#include "base/envlist.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/proc.h"
#include "base/pyjson.h"

/* Removes every symlink under dir: trial files must never lead the host's
 * readers out of the trial folder. */
static int drop_links(const char *dir, struct err *e)
{
	struct fs_tree t = { 0 };
	int r = 0;
	if (fs_is_dir(dir))
		r = fs_list_tree(dir, &t, e);
	for (size_t i = 0; r == 0 && i < t.n; i++)
		if (S_ISLNK(t.v[i].mode)) {
			char *p = path_join(dir, t.v[i].path);
			if (unlink(p) < 0 && errno != ENOENT)
				r = err_set(e, ERR_WORK, "cannot remove the agent's link '%s':", p);
			free(p);
		}
	fs_tree_free(&t);
	return r;
}

static void verdict_fail(struct verdict *v, const char *category, char *msg)
{
	v->error = msg;
	v->category = xstrdup(category);
}

/* reward.json: its "reward" (or only) number, with the other numeric keys. */
static cJSON *read_reward_json(const char *path, struct verdict *v)
{
	struct err e;
	cJSON *doc = json_read_file(path, &e);
	cJSON *r = json_get(doc, "reward");
	if (!r && cJSON_IsObject(doc) && doc->child && !doc->child->next && cJSON_IsNumber(doc->child))
		r = doc->child;
	cJSON *rewards = NULL;
	if (!cJSON_IsNumber(r)) {
		verdict_fail(v, "verifier_failure", xstrdup("verifier wrote reward.json without a numeric \"reward\""));
	} else {
		rewards = cJSON_CreateObject();
		pyjson_add_float(rewards, "reward", r->valuedouble);
		for (cJSON *c = doc->child; c; c = c->next)
			if (c != r && cJSON_IsNumber(c))
				pyjson_add_float(rewards, c->string, c->valuedouble);
	}
	cJSON_Delete(doc);
	return rewards;
}

/* reward.txt: one number; it must agree with reward.json when both exist. */
static void read_reward_txt(const char *path, struct verdict *v, cJSON **rewards)
{
	char chunk[256];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, chunk, sizeof chunk - 1) : -1;
	if (fd >= 0)
		close(fd);
	chunk[n > 0 ? n : 0] = '\0';
	char *end = NULL;
	double val = strtod(chunk, &end);
	while (end && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
		end++;
	if (end == chunk || (end && *end))
		verdict_fail(v, "verifier_failure", xasprintf("verifier wrote reward.txt that is not a number: '%.40s'", chunk));
	else if (*rewards && pyjson_number(json_get(*rewards, "reward")) != val)
		verdict_fail(v, "verifier_failure", xstrdup("reward.txt and reward.json disagree"));
	else if (!*rewards) {
		*rewards = cJSON_CreateObject();
		pyjson_add_float(*rewards, "reward", val);
	}
}

/* Marks of a line of the test output saying what the environment lacks. */
static const char *const hint_marks[] = { "command not found", "No module named", "not found" };

/* Reads the verifier's reward files the way BenchFlow does. After an agent
 * timeout, no reward file counts as reward 0.0 (BenchFlow's rule). */
static void read_reward(struct verdict *v, const char *rollout_dir, int rc, bool agent_timed_out)
{
	char *dir = path_join(rollout_dir, "verifier");
	char *txt = path_join(dir, "reward.txt"), *js = path_join(dir, "reward.json");
	cJSON *rewards = fs_exists(js) ? read_reward_json(js, v) : NULL;
	bool have_txt = fs_exists(txt);
	if (have_txt && !v->error)
		read_reward_txt(txt, v, &rewards);
	if (!have_txt && !fs_exists(js) && agent_timed_out) {
		rewards = cJSON_CreateObject();
		pyjson_add_float(rewards, "reward", 0.0);
	} else if (!have_txt && !fs_exists(js)) {
		char *hint = verifier_line(rollout_dir, hint_marks, ARRAY_LEN(hint_marks));
		verdict_fail(v, "verifier_failure",
			     xasprintf("verifier exited with rc=%d; no reward file at /logs/verifier/reward.txt or reward.json%s%s%s",
				       rc, hint ? " (test output: " : "", hint ? hint : "",
				       hint ? "; the host may lack what the task needs)" : ""));
		free(hint);
	}
	if (v->error) {
		cJSON_Delete(rewards);
		rewards = NULL;
	}
	v->rewards = rewards;
	free(dir);
	free(txt);
	free(js);
}


/* A fresh verifier/ and no links in agent/ or artifacts/: whatever the
 * agent put in /logs/verifier is not the verifier's word. */
static int clear_logs(const char *dir, struct err *e)
{
	char *vdir = path_join(dir, "verifier");
	/* its contents, not the folder: a container's bind holds the folder itself */
	int r = fs_mkdirs(vdir, e);
	DIR *d = r == 0 ? opendir(vdir) : NULL;
	if (r == 0 && !d)
		r = err_set(e, ERR_WORK, "cannot read '%s':", vdir);
	for (struct dirent *de; d && r == 0 && (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = path_join(vdir, de->d_name);
		r = fs_remove_tree(p, e);
		free(p);
	}
	if (d)
		closedir(d);
	free(vdir);
	char *agent_dir = path_join(dir, "agent"), *art = path_join(dir, "artifacts");
	if (r == 0)
		r = drop_links(agent_dir, e) == 0 && drop_links(art, e) == 0 ? 0 : -1;
	free(agent_dir);
	free(art);
	return r;
}

/* The task's tests/ where the verifier sees them at /tests: a private copy
 * (bwrap; *copy gets its folder), a copy in the container, or a link (no
 * sandbox). */
static int provide_tests(struct local_trial *t, char **copy, struct err *e)
{
	if (t->box.mode == SANDBOX_CONTAINER)
		return container_copy_in(t->box.engine, t->box.container, t->task.tests_dir, "/tests", e);
	if (t->box.mode != SANDBOX_BWRAP)
		return sandbox_bind(&t->box.sb, t->task.tests_dir, "/tests", true, e);
	*copy = path_join(t->paths.scratch, "tests");
	if (fs_mkdirs(*copy, e) < 0)
		return -1;
	struct fs_tree tree = { 0 };
	int r = fs_list_tree(t->task.tests_dir, &tree, e);
	for (size_t i = 0; r == 0 && i < tree.n; i++) {
		char *s = path_join(t->task.tests_dir, tree.v[i].path), *d = path_join(*copy, tree.v[i].path);
		if (S_ISDIR(tree.v[i].mode))
			r = fs_mkdirs(d, e);
		else if (S_ISREG(tree.v[i].mode))
			r = fs_copy_file(s, d, tree.v[i].mode & 0777, e);
		free(s);
		free(d);
	}
	fs_tree_free(&tree);
	return r;
}

/* The verifier's environment, as BenchFlow sets it (in a container, over
 * the image's own ENV). */
static void verifier_env(const struct task *task, bool container, struct strlist *env)
{
	if (!container)
		local_sandbox_env(env);
	envlist_set(env, "BENCHFLOW_VERIFIER_DIR", "/logs/verifier");
	envlist_set(env, "BENCHFLOW_REWARD_TEXT", "/logs/verifier/reward.txt");
	envlist_set(env, "BENCHFLOW_REWARD_JSON", "/logs/verifier/reward.json");
	if (task->verifier_network || container)
		envlist_add_proxies(env);
	envlist_add_table(env, task->env);
	envlist_add_table(env, task->verifier_env);
}

static void verdict_timeout(struct verdict *v, const struct task *task, double elapsed)
{
	verdict_fail(v, "verifier_timeout", xasprintf("verifier timed out after %gs", task->verifier_timeout));
	v->timeout_info = cJSON_CreateObject();
	cJSON_AddNumberToObject(v->timeout_info, "timeout_budget_sec", task->verifier_timeout);
	pyjson_add_float(v->timeout_info, "elapsed_sec", record_round(elapsed));
	cJSON_AddStringToObject(v->timeout_info, "task_name", task->name);
}

/* bash /tests/test.sh in the sandbox, its output in verifier/test-stdout.txt. */
static int run_tests(struct local_trial *t, char *tests_copy, struct proc_result *pr, struct err *e)
{
	struct strlist env = STRLIST_INIT, cmd = STRLIST_INIT, cmd_env = STRLIST_INIT;
	verifier_env(&t->task, t->box.mode == SANDBOX_CONTAINER, &env);
	struct sandbox_bind extra = { tests_copy, (char *)"/tests", true };
	struct box_run run = { .share_net = t->task.verifier_network, .cwd = t->task.workdir,
			       .extra = &extra, .nextra = tests_copy != NULL };
	char *inner[] = { (char *)"bash", (char *)"/tests/test.sh", NULL };
	box_command(&t->box, &run, inner, &env, &cmd, &cmd_env);
	char *out = path_join(t->paths.dir, "verifier/test-stdout.txt");
	int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct proc_spec ps = { .argv = cmd.v, .envp = cmd_env.v, .cwd = t->box.mode == SANDBOX_NONE ? t->task.workdir : NULL,
				.timeout = t->task.verifier_timeout, .grace = 2, .stdin_fd = -1, .tee = { ofd, -1 } };
	int r = proc_run(&ps, pr, e);
	if (ofd >= 0)
		close(ofd);
	free(out);
	strlist_free(&cmd);
	strlist_free(&cmd_env);
	strlist_free(&env);
	return r;
}

int verifier_run(struct local_trial *t, struct err *e)
{
	struct verdict *v = &t->verdict;
	if (box_stop_processes(&t->box, e) < 0 || clear_logs(t->paths.dir, e) < 0)
		return -1;
	char *test = path_join(t->task.tests_dir, "test.sh");
	bool have = fs_exists(test);
	if (!have)
		verdict_fail(v, "verifier_failure", xasprintf("task has no tests/test.sh (%s)", test));
	free(test);
	if (!have)
		return 0;
	char *copy = NULL;
	struct proc_result pr;
	int r = provide_tests(t, &copy, e);
	if (r == 0) {
		v->ran = true;
		r = run_tests(t, copy, &pr, e);
		if (r == 0)
			v->seconds = pr.seconds;
	}
	free(copy);
	if (r < 0)
		return -1;
	if (pr.interrupted)
		return err_set(e, ERR_WORK, "interrupted by signal %d during the verifier", pr.interrupted);
	if (pr.timed_out)
		verdict_timeout(v, &t->task, pr.seconds);
	else
		read_reward(v, t->paths.dir, pr.exit_code, agent_outcome_timed_out(&t->agent));
	return 0;
}
