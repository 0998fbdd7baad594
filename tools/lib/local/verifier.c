#include "local/verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local/layout.h"
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

/* Reads the verifier's reward files the way BenchFlow does. */
static void read_reward(struct local_trial *t, int rc)
{
	char *dir = path_join(t->dir, "verifier");
	char *txt = path_join(dir, "reward.txt"), *js = path_join(dir, "reward.json");
	struct err e;
	cJSON *rewards = NULL;
	bool have_txt = fs_exists(txt), have_json = fs_exists(js);
	if (have_json) {
		cJSON *v = json_read_file(js, &e);
		cJSON *r = json_get(v, "reward");
		if (!r && cJSON_IsObject(v) && v->child && !v->child->next && cJSON_IsNumber(v->child))
			r = v->child;
		if (!cJSON_IsNumber(r)) {
			t->verifier_error = xstrdup("verifier wrote reward.json without a numeric \"reward\"");
			t->verifier_category = xstrdup("verifier_failure");
		} else {
			rewards = cJSON_CreateObject();
			pyjson_add_float(rewards, "reward", r->valuedouble);
			for (cJSON *c = v->child; c; c = c->next)
				if (c != r && cJSON_IsNumber(c))
					pyjson_add_float(rewards, c->string, c->valuedouble);
		}
		cJSON_Delete(v);
	}
	if (have_txt && !t->verifier_error) {
		struct buf b = BUF_INIT;
		int fd = open(txt, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		char chunk[256];
		ssize_t n = fd >= 0 ? read(fd, chunk, sizeof chunk - 1) : -1;
		if (fd >= 0)
			close(fd);
		buf_add(&b, chunk, n > 0 ? (size_t)n : 0);
		char *end = NULL;
		const char *s = b.data ? b.data : "";
		double val = strtod(s, &end);
		while (end && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
			end++;
		if (end == s || (end && *end)) {
			t->verifier_error = xasprintf("verifier wrote reward.txt that is not a number: '%.40s'", s);
			t->verifier_category = xstrdup("verifier_failure");
		} else if (rewards && pyjson_number(json_get(rewards, "reward")) != val) {
			t->verifier_error = xstrdup("reward.txt and reward.json disagree");
			t->verifier_category = xstrdup("verifier_failure");
		} else if (!rewards) {
			rewards = cJSON_CreateObject();
			pyjson_add_float(rewards, "reward", val);
		}
		buf_free(&b);
	}
	if (!have_txt && !have_json) {
		/* say what the host lacks when test.sh says so */
		char *out = path_join(dir, "test-stdout.txt");
		struct buf b = BUF_INIT;
		char *hint = NULL;
		if (fs_read(out, 8 << 20, &b, &e) == 0 && b.data) {
			char *save = NULL;
			for (char *l = strtok_r(b.data, "\n", &save); l && !hint; l = strtok_r(NULL, "\n", &save))
				if (strstr(l, "command not found") || strstr(l, "No module named") || strstr(l, "not found"))
					hint = xstrdup(l);
		}
		buf_free(&b);
		free(out);
		t->verifier_error = xasprintf("verifier exited with rc=%d; no reward file at /logs/verifier/reward.txt or reward.json%s%s%s",
					      rc, hint ? " (test output: " : "", hint ? hint : "",
					      hint ? "; the host may lack what the task needs)" : "");
		t->verifier_category = xstrdup("verifier_failure");
		free(hint);
	}
	if (t->verifier_error) {
		cJSON_Delete(rewards);
		rewards = NULL;
	}
	t->rewards = rewards;
	free(dir);
	free(txt);
	free(js);
}

int verifier_run(struct local_trial *t, struct err *e)
{
	char *vdir = path_join(t->dir, "verifier");
	/* whatever the agent put in /logs/verifier is not the verifier's word */
	if (fs_remove_tree(vdir, e) < 0 || fs_mkdirs(vdir, e) < 0) {
		free(vdir);
		return -1;
	}
	char *agent_dir = path_join(t->dir, "agent"), *art = path_join(t->dir, "artifacts");
	int dropped = drop_links(agent_dir, e) == 0 && drop_links(art, e) == 0 ? 0 : -1;
	free(agent_dir);
	free(art);
	if (dropped < 0) {
		free(vdir);
		return -1;
	}
	char *test = path_join(t->task.tests_dir, "test.sh");
	if (!fs_exists(test)) {
		t->verifier_error = xasprintf("task has no tests/test.sh (%s)", test);
		t->verifier_category = xstrdup("verifier_failure");
		free(test);
		free(vdir);
		return 0;
	}
	free(test);
	char *tests = path_join(t->scratch, "tests");
	int r = 0;
	struct err ce = { 0 };
	if (t->mode == SANDBOX_BWRAP) {
		r = fs_mkdirs(tests, e);
		struct fs_tree tree = { 0 };
		if (r == 0)
			r = fs_list_tree(t->task.tests_dir, &tree, e);
		for (size_t i = 0; r == 0 && i < tree.n; i++) {
			char *s = path_join(t->task.tests_dir, tree.v[i].path), *d = path_join(tests, tree.v[i].path);
			if (S_ISDIR(tree.v[i].mode))
				r = fs_mkdirs(d, e);
			else if (S_ISREG(tree.v[i].mode))
				r = fs_copy_file(s, d, tree.v[i].mode & 0777, e);
			free(s);
			free(d);
		}
		fs_tree_free(&tree);
	} else {
		r = sandbox_bind(&t->sb, t->task.tests_dir, "/tests", true, &ce);
		if (r < 0)
			*e = ce;
	}
	if (r < 0) {
		free(tests);
		free(vdir);
		return -1;
	}
	struct strlist env = STRLIST_INIT;
	envlist_set(&env, "HOME", "/root");
	envlist_set(&env, "USER", "root");
	envlist_set(&env, "PATH", local_sandbox_path);
	envlist_set(&env, "LANG", "C.UTF-8");
	envlist_set(&env, "TMPDIR", "/tmp");
	envlist_set(&env, "BENCHFLOW_VERIFIER_DIR", "/logs/verifier");
	envlist_set(&env, "BENCHFLOW_REWARD_TEXT", "/logs/verifier/reward.txt");
	envlist_set(&env, "BENCHFLOW_REWARD_JSON", "/logs/verifier/reward.json");
	if (t->task.verifier_network)
		envlist_add_proxies(&env);
	envlist_add_table(&env, t->task.env);
	envlist_add_table(&env, t->task.verifier_env);
	struct sandbox_bind extra = { tests, (char *)"/tests", true };
	struct sandbox_run run = { .share_net = t->task.verifier_network, .cwd = t->task.workdir,
				   .extra = &extra, .nextra = t->mode == SANDBOX_BWRAP };
	char *inner[] = { (char *)"bash", (char *)"/tests/test.sh", NULL };
	struct strlist cmd = STRLIST_INIT;
	sandbox_command(&t->sb, &run, inner, &cmd);
	char *out = path_join(vdir, "test-stdout.txt");
	int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct proc_spec ps = { .argv = cmd.v, .envp = env.v, .cwd = t->mode == SANDBOX_NONE ? t->task.workdir : NULL,
				.timeout = t->task.verifier_timeout, .grace = 2, .stdin_fd = -1, .tee = { ofd, -1 } };
	struct proc_result pr;
	double t0 = now_mono();
	r = proc_run(&ps, &pr, e);
	t->t_verifier = now_mono() - t0;
	if (ofd >= 0)
		close(ofd);
	if (r == 0 && pr.interrupted) {
		r = err_set(e, ERR_WORK, "interrupted by signal %d during the verifier", pr.interrupted);
	} else if (r == 0 && pr.timed_out) {
		t->verifier_error = xasprintf("verifier timed out after %gs", t->task.verifier_timeout);
		t->verifier_category = xstrdup("verifier_timeout");
		t->verifier_timeout_info = cJSON_CreateObject();
		cJSON_AddNumberToObject(t->verifier_timeout_info, "timeout_budget_sec", t->task.verifier_timeout);
		pyjson_add_float(t->verifier_timeout_info, "elapsed_sec", benchflow_round(pr.seconds));
		cJSON_AddStringToObject(t->verifier_timeout_info, "task_name", t->task.name);
	} else if (r == 0) {
		read_reward(t, pr.exit_code);
	}
	free(out);
	strlist_free(&cmd);
	strlist_free(&env);
	free(tests);
	free(vdir);
	return r;
}

