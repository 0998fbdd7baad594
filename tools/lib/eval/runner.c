#include "eval/runner.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dotenv.h"
#include "base/datadir.h"
#include "base/fs.h"
#include "eval/harness.h"
#include "base/json.h"

extern char **environ;

const char *runner_program(const char *runner)
{
	return !strcmp(runner, "benchflow") ? "bench" : !strcmp(runner, "harbor") ? "harbor" : "skillc-local";
}

/* The runner to execute: found in PATH, else (skillc-local) beside this
 * tool, so a build tree or an install works without bin/ in PATH. */
static char *runner_path(const char *runner)
{
	char *found = fs_find_in_path(runner_program(runner));
	if (!found && !strcmp(runner, "local")) {
		char *bin = tool_dir();
		found = path_join(bin, "skillc-local");
		free(bin);
		if (access(found, X_OK) < 0) {
			free(found);
			found = NULL;
		}
	}
	return found;
}

int runner_check_installed(const char *runner, struct err *e)
{
	char *found = runner_path(runner);
	if (found) {
		free(found);
		return 0;
	}
	if (!strcmp(runner, "benchflow"))
		return err_set(e, ERR_INPUT, "RUNNER=benchflow needs the `bench` command, which is not on PATH: install "
			       "it with `uv tool install --python 3.12 benchflow`, or pick RUNNER=local");
	if (!strcmp(runner, "harbor"))
		return err_set(e, ERR_INPUT, "RUNNER=harbor needs the `harbor` command, which is not on PATH: install it "
			       "with `uv tool install harbor`, or pick RUNNER=benchflow or RUNNER=local");
	return err_set(e, ERR_INPUT, "RUNNER=local needs `skillc-local`, which is neither on PATH nor beside skillc-eval: build it with `make` "
		       "(or install skillc), or pick RUNNER=benchflow");
}

/* bench / skillc-local: `eval run` with bench's flags (skillc-local takes
 * the ones it needs, --out for --jobs-dir: it writes our own record). */
static void benchflow_argv(const struct eval_job *j, const char *tmp, const char *skills_root, struct strlist *a)
{
	char *prog = runner_path(j->o->runner);
	strlist_push_owned(a, prog ? prog : xstrdup(runner_program(j->o->runner)));
	strlist_push(a, "eval");
	strlist_push(a, "run");
	strlist_push(a, "--tasks-dir");
	strlist_push(a, j->task_dir);
	strlist_push(a, "--agent");
	strlist_push(a, harness_agent(&j->h, j->o->runner));
	strlist_push(a, "--model");
	strlist_push(a, j->o->model);
	strlist_push(a, "--sandbox");
	strlist_push(a, j->o->sandbox);
	if (j->o->image) {
		strlist_push(a, "--image");
		strlist_push(a, j->o->image);
	}
	strlist_push(a, "--skill-mode");
	if (skills_root) {
		strlist_push(a, "with-skill");
		strlist_push(a, "--skills-dir");
		strlist_push(a, skills_root);
	} else {
		strlist_push(a, "no-skill");
	}
	/* bench: a jobs dir; skillc-local: the folder of its trial record */
	strlist_push(a, strcmp(j->o->runner, "local") ? "--jobs-dir" : "--out");
	strlist_push_owned(a, path_join(tmp, "raw"));
	strlist_push(a, "--quiet");
	/* the trial's number, for a harness that seeds its sampling with it
	 * (docs/local.md); our own runner only: bench's agents ignore it */
	long trial = j->test ? trial_index(j->test) : 0;
	if (!strcmp(j->o->runner, "local") && trial) {
		strlist_push(a, "--agent-env");
		strlist_push_owned(a, xasprintf("SKILLC_TRIAL=%ld", trial));
	}
	if (!strcmp(j->o->runner, "local") && j->o->handshake_timeout > 0) {
		strlist_push(a, "--agent-handshake-timeout");
		strlist_push_owned(a, xasprintf("%.0f", j->o->handshake_timeout));
	}
	if (j->o->agent_timeout > 0) {
		strlist_push(a, "--config-override");
		strlist_push_owned(a, xasprintf("{\"agent\":{\"timeout_sec\":%.0f}}", j->o->agent_timeout));
	}
}

/* harbor: one job config file (keys as Harbor's JobConfig), `harbor run -c`. */
static int harbor_argv(const struct eval_job *j, const char *tmp, const char *skills_root, struct strlist *a,
		       struct err *e)
{
	cJSON *cfg = cJSON_CreateObject();
	json_set_str(cfg, "job_name", "trial");
	char *raw = path_join(tmp, "raw");
	json_set_str(cfg, "jobs_dir", raw);
	free(raw);
	json_set_num(cfg, "n_attempts", 1);
	json_set_num(cfg, "n_concurrent_trials", 1);
	json_set_bool(cfg, "quiet", true);
	cJSON *agent = cJSON_CreateObject();
	json_set_str(agent, "name", harness_agent(&j->h, "harbor"));
	json_set_str(agent, "model_name", j->o->model);
	if (j->o->agent_timeout > 0)
		json_set_num(agent, "override_timeout_sec", j->o->agent_timeout);
	cJSON *skills = cJSON_CreateArray();
	for (size_t i = 0; skills_root && i < j->skill_names.n; i++) {
		char *p = path_join(skills_root, j->skill_names.v[i]);
		cJSON_AddItemToArray(skills, cJSON_CreateString(p));
		free(p);
	}
	json_set(agent, "skills", skills);
	cJSON *agents = cJSON_CreateArray();
	cJSON_AddItemToArray(agents, agent);
	json_set(cfg, "agents", agents);
	cJSON *task = cJSON_CreateObject();
	json_set_str(task, "path", j->task_dir);
	cJSON *tasks = cJSON_CreateArray();
	cJSON_AddItemToArray(tasks, task);
	json_set(cfg, "tasks", tasks);
	cJSON *env = cJSON_CreateObject();
	json_set_str(env, "type", j->o->sandbox);
	json_set_bool(env, "delete", true);
	json_set(cfg, "environment", env);
	char *path = path_join(tmp, "harbor-job.json");
	int r = json_write_file(path, cfg, e);
	cJSON_Delete(cfg);
	strlist_push(a, "harbor");
	strlist_push(a, "run");
	strlist_push(a, "-c");
	strlist_push_owned(a, path);
	return r;
}

int runner_argv(const struct eval_job *j, const char *tmp, const char *skills_root, struct strlist *argv,
		struct err *e)
{
	if (!strcmp(j->o->runner, "harbor"))
		return harbor_argv(j, tmp, skills_root, argv, e);
	benchflow_argv(j, tmp, skills_root, argv);
	return 0;
}

int runner_env_load(const char *env_file, struct strlist *extra, struct err *e)
{
	struct dotenv d = DOTENV_INIT;
	if (dotenv_load(&d, env_file, e) < 0) {
		dotenv_free(&d);
		return -1;
	}
	for (size_t i = 0; i < d.names.n; i++) {
		enum dotenv_source src;
		const char *v = dotenv_get(&d, d.names.v[i], &src);
		if (v && src == DOTENV_FILE)
			strlist_push_owned(extra, xasprintf("%s=%s", d.names.v[i], v));
	}
	dotenv_free(&d);
	return 0;
}

/* environ, minus names the env file sets, plus the env file. */
static char **child_env(const struct strlist *extra)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **v = xcalloc(n + extra->n + 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool shadowed = false;
		for (size_t j = 0; j < extra->n && !shadowed; j++) {
			size_t kl = strcspn(extra->v[j], "=");
			shadowed = !strncmp(environ[i], extra->v[j], kl + 1);
		}
		if (!shadowed)
			v[k++] = environ[i];
	}
	for (size_t j = 0; j < extra->n; j++)
		v[k++] = extra->v[j];
	return v;
}

/* The runner's progress tick: what a trial that runs long has done so far. */
struct runner_watch {
	const struct eval_job *j;
	const char *log_path;
	double deadline, gap;
};

/* "12 s" or "4 min": a duration as a progress line says it. */
static void say_seconds(double s, char *out, size_t size)
{
	if (s < 120)
		snprintf(out, size, "%.0f s", s);
	else
		snprintf(out, size, "%.0f min", s / 60);
}

static double say_running(double seconds, void *arg)
{
	struct runner_watch *w = arg;
	struct stat st;
	long kb = stat(w->log_path, &st) == 0 ? (long)(st.st_size + 1023) / 1024 : 0;
	char so_far[32], left[32];
	say_seconds(seconds, so_far, sizeof so_far);
	say_seconds(w->deadline - seconds, left, sizeof left);
	eval_progress(w->j, "still running: %s so far, runner.log %ld KB, the hard deadline in %s", so_far, kb, left);
	w->gap = w->gap * 2 < RUNNER_SAY_MAX ? w->gap * 2 : RUNNER_SAY_MAX;
	return w->gap;
}

int runner_run(const struct eval_job *j, char *const *argv, const struct strlist *extra, const char *log_path,
	       double deadline, struct proc_result *pr, struct err *e)
{
	int logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd >= 0) {
		/* the command line holds no secrets: keys travel in the environment */
		dprintf(logfd, "$");
		for (size_t i = 0; argv[i]; i++)
			dprintf(logfd, " %s", argv[i]);
		dprintf(logfd, "\n");
	}
	char **envp = child_env(extra);
	struct runner_watch w = { j, log_path, deadline, deadline / 10 < RUNNER_SAY_FIRST ? deadline / 10 : RUNNER_SAY_FIRST };
	struct proc_spec sp = { .argv = argv, .envp = envp, .timeout = deadline, .grace = 10, .stdin_fd = -1,
				.tee = { logfd, -1 }, .tick = say_running, .tick_arg = &w, .tick_first = w.gap };
	/* A second Ctrl-C (make and skillc-stage forward theirs to our process
	 * group too) must not cut short the move to .incomplete/ after the run:
	 * stops stay blocked from here (proc_run still forwards them). */
	proc_defer_stops();
	int rc = proc_run(&sp, pr, e);
	if (logfd >= 0)
		close(logfd);
	free(envp);
	return rc;
}

/* Runs a command quietly, capturing its output into out; 0 when it exited 0. */
static int run_capture(char *const *argv, double timeout, struct buf *out)
{
	struct buf got = BUF_INIT;
	struct proc_result pr;
	struct err e;
	int r = proc_capture(argv, timeout, &got, &pr, &e) == 0 && pr.exit_code == 0 ? 0 : -1;
	if (out && got.len)
		buf_add(out, got.data, got.len);
	buf_free(&got);
	return r;
}

/* The ids on lines "<id> <mount source>..." with a source inside dir. */
static void containers_inside(char *info, const char *dir, struct strlist *ids)
{
	size_t tl = strlen(dir);
	for (char *save = NULL, *line = info ? strtok_r(info, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		for (char *src = sp + 1; src && *src;) {
			char *next = strchr(src, ' ');
			if (next)
				*next = '\0';
			if (!strncmp(src, dir, tl) && (src[tl] == '/' || src[tl] == '\0')) {
				strlist_push(ids, line);
				break;
			}
			src = next ? next + 1 : NULL;
		}
	}
}

/* The containers of one engine (docker, podman) whose binds are inside trial_dir. */
static void engine_cleanup(const char *engine, const char *trial_dir)
{
	char *cli = fs_find_in_path(engine);
	if (!cli)
		return;
	free(cli);
	struct buf ids = BUF_INIT;
	char *ps[] = { (char *)engine, "ps", "-aq", "--no-trunc", NULL };
	if (run_capture(ps, 60, &ids) < 0 || !ids.len) {
		buf_free(&ids);
		return;
	}
	struct strlist argv = STRLIST_INIT;
	strlist_push(&argv, engine);
	strlist_push(&argv, "inspect");
	strlist_push(&argv, "--format");
	strlist_push(&argv, "{{.Id}}{{range .Mounts}} {{.Source}}{{end}}");
	for (char *save = NULL, *id = strtok_r(ids.data, " \n", &save); id; id = strtok_r(NULL, " \n", &save))
		strlist_push(&argv, id);
	struct buf info = BUF_INIT;
	run_capture(argv.v, 60, &info);
	struct strlist rm = STRLIST_INIT;
	strlist_push(&rm, engine);
	strlist_push(&rm, "rm");
	strlist_push(&rm, "-f");
	if (!strcmp(engine, "podman")) /* else it asks them to stop and waits 10 s */
		strlist_push(&rm, "--time=0");
	size_t head = rm.n;
	containers_inside(info.data, trial_dir, &rm);
	if (rm.n > head)
		run_capture(rm.v, 120, NULL);
	strlist_free(&rm);
	strlist_free(&argv);
	buf_free(&info);
	buf_free(&ids);
}

void runner_docker_cleanup(const char *trial_dir)
{
	engine_cleanup("docker", trial_dir);
	if (!strcmp(getenv("SANDBOX") ? getenv("SANDBOX") : "", "podman")) /* podman has no daemon to ask cheaply */
		engine_cleanup("podman", trial_dir);
}
