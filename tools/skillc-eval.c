/* skillc-eval — one evaluation trial of (task, skill or no skill, harness,
 * model, runner) into one trial folder, e.g. traces/<task>/<stage>/test-003/.
 *
 * The trial is built beside its target (a temp folder), checked, and
 * published whole; a trial that is cut short, incomplete or fails the
 * checks moves to <incomplete>/<stage>/test-NNN.<time>/ with reason.txt and
 * the tool exits 1 with the reason in one line. A trial whose content key
 * is in the trial store is linked from there without running anything. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dotenv.h"
#include "fs.h"
#include "hash.h"
#include "harness.h"
#include "json.h"
#include "log.h"
#include "proc.h"
#include "trial.h"
#include "versions.h"
#include "trialstore.h"

#define VERSION V_EVAL

extern char **environ;

static const char usage[] =
	"usage: skillc-eval --task DIR (--skill DIR | --no-skill) --harness H --model M\n"
	"                   --runner benchflow|harbor|local --out TRIAL_DIR [options]\n"
	"\n"
	"Runs one trial and writes TRIAL_DIR (e.g. traces/<task>/<stage>/test-003):\n"
	"trial.json (normalized facts), raw/ (the runner's own files), trajectory/\n"
	"(BenchFlow-shaped ACP and LLM trajectories), runner.log.\n"
	"\n"
	"  --task DIR          the task folder (task.toml, instruction.md, tests/test.sh)\n"
	"  --skill DIR         the skill folder to inject (repeatable); --no-skill: none\n"
	"  --skills-root DIR   inject every folder of DIR that holds a SKILL.md\n"
	"  --harness H         agent harness; rules/harness/H.json must exist\n"
	"  --model M           provider/model-id\n"
	"  --runner R          benchflow (bench eval run), harbor (harbor run), local\n"
	"                      (skillc-local eval run, same flags as bench)\n"
	"  --out DIR           the trial folder to publish\n"
	"  --stage S           stage name (default: the name of DIR's parent)\n"
	"  --index I --of N    trial I of N, for the [I/N] progress lines (I defaults\n"
	"                      to the NNN of test-NNN; part of the trial's key)\n"
	"  --incomplete DIR    where failed trials go (default: the run's .incomplete/)\n"
	"  --cache DIR         trial store root (default $CACHE_DIR, else results/.cache)\n"
	"  --no-cache          neither reuse nor file trials\n"
	"  --agent-timeout S   the agent's wall-clock limit inside the runner\n"
	"  --deadline S        hard limit for the whole trial (default 2*agent-timeout+900,\n"
	"                      or 14400): the runner's process group is killed\n"
	"  --sandbox NAME      runner sandbox (default: local for --runner local, else docker)\n"
	"  --require-skill     a trial where our skill was never invoked fails\n"
	"  --attempts N        failed attempts allowed per trial (default 3); after the\n"
	"                      last, an infra error is kept as an infra_error trial\n"
	"  --env-file FILE     KEY=VALUE lines added to the runner's environment\n"
	"  --rules DIR         rules folder (default: $SKILLC_RULES, else next to the tools)\n"
	"\n"
	"Exit: 0 trial published (or reused, or already up to date), 1 the trial\n"
	"failed (moved to .incomplete/, reason on stderr), 2 bad usage or input\n"
	"(unknown harness, runner not installed, task without tests/test.sh).\n";

struct opts {
	const char *task, *harness, *model, *runner, *out, *stage, *incomplete, *cache, *env_file, *rules;
	const char *sandbox;
	struct strlist skills; /* skill folders */
	bool no_skill, no_cache, require_skill;
	long index, of, attempts;
	double agent_timeout, deadline;
};

/* Everything one trial needs once the options are checked. */
struct job {
	struct opts *o;
	char *task_dir, *task, *out, *stage, *test, *incomplete, *rules_dir;
	struct strlist skill_names;
	struct harness h;
	char task_hash[33], skill_hash[33], key[33];
	cJSON *identity;
	double start;
	char prefix[256];  /* "[i/N] task stage test-NNN" */
};

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		die(2, "%s needs a value (see --help)", argv[*i]);
	return argv[++*i];
}

static long parse_long(const char *flag, const char *s, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		die(2, "%s wants an integer in [%ld, %ld], not '%s'", flag, min, max, s);
	return v;
}

static bool model_is_safe(const char *m)
{
	if (!m || !*m || strlen(m) > 200 || !isalnum((unsigned char)m[0]))
		return false;
	for (const char *p = m; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-/:@", *p))
			return false;
	return !strstr(m, "..");
}

static char *abs_path(const char *p)
{
	char buf[PATH_MAX];
	if (realpath(p, buf))
		return xstrdup(buf);
	if (p[0] == '/')
		return xstrdup(p);
	if (!getcwd(buf, sizeof buf))
		return xstrdup(p);
	return path_join(buf, p);
}

static char *parent_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? (s == p ? xstrdup("/") : xstrndup(p, (size_t)(s - p))) : xstrdup(".");
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static bool on_path(const char *cmd)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char *copy = xstrdup(path);
	bool found = false;
	for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = path_join(*d ? d : ".", cmd);
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

/* The name: field of SKILL.md's frontmatter, else the folder's name. */
static char *skill_name(const char *dir, struct err *e)
{
	char *md = path_join(dir, "SKILL.md");
	struct buf b = BUF_INIT;
	if (fs_read(md, 1 << 20, &b, e) < 0) {
		err_set(e, ERR_INPUT, "skill folder '%s' has no SKILL.md: pass the folder holding SKILL.md", dir);
		free(md);
		buf_free(&b);
		return NULL;
	}
	free(md);
	char *name = NULL;
	if (!strncmp(b.data, "---\n", 4) || !strncmp(b.data, "---\r\n", 5)) {
		for (char *line = strchr(b.data, '\n') + 1; line && *line;) {
			char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			if (len >= 3 && !strncmp(line, "---", 3))
				break;
			if (!strncmp(line, "name:", 5)) {
				char *v = line + 5;
				while (*v == ' ' || *v == '\t')
					v++;
				size_t n = (size_t)(line + len - v);
				while (n && (v[n - 1] == '\r' || v[n - 1] == ' '))
					n--;
				if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
					v++;
					n -= 2;
				}
				name = xstrndup(v, n);
				break;
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	buf_free(&b);
	if (!name) {
		char *a = abs_path(dir);
		name = xstrdup(base_name(a));
		free(a);
	}
	if (!name_is_safe(name)) {
		err_set(e, ERR_INPUT, "skill in '%s' has a bad name '%s': use letters, digits, '.', '_' and '-'", dir, name);
		free(name);
		return NULL;
	}
	return name;
}

/* "NAME=value" for every variable of the env file that the environment
 * does not already hold (dotenv's rule: the real environment wins). */
static void env_extra_from(const struct dotenv *d, struct strlist *extra)
{
	for (size_t i = 0; i < d->names.n; i++) {
		enum dotenv_source src;
		const char *v = dotenv_get(d, d->names.v[i], &src);
		if (v && src == DOTENV_FILE)
			strlist_push_owned(extra, xasprintf("%s=%s", d->names.v[i], v));
	}
}

/* Zeroes secrets before freeing them. */
static void wipe_list(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		explicit_bzero(l->v[i], strlen(l->v[i]));
	strlist_free(l);
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

static void progress(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct job *j, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s ", j->prefix);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, stdout); /* one write: parallel trials' lines stay whole */
	fflush(stdout);
	buf_free(&b);
}

/* Where failed attempts of this trial go: <incomplete>/<stage>/. */
static char *incomplete_dir(const struct job *j)
{
	return xasprintf("%s/%s", j->incomplete, j->stage);
}

/* Moves dir to <incomplete>/<stage>/test-NNN.<time>/ with reason.txt;
 * returns where it went (caller frees). */
static char *move_incomplete(const struct job *j, const char *dir, const char *reason)
{
	struct err e;
	char *rp = path_join(dir, "reason.txt");
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s\n", reason);
	fs_write_atomic(rp, b.data, b.len, 0644, &e);
	buf_free(&b);
	free(rp);
	char *idir = incomplete_dir(j);
	if (fs_mkdirs(idir, &e) < 0) {
		warnf("%s", e.msg);
		free(idir);
		return xstrdup(dir);
	}
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	char *dst = xasprintf("%s/%s.%s", idir, j->test, stamp);
	for (int i = 1; fs_exists(dst); i++) {
		free(dst);
		dst = xasprintf("%s/%s.%s.%d", idir, j->test, stamp, i);
	}
	if (rename(dir, dst) < 0) {
		warnf("cannot move '%s' to '%s': %s", dir, dst, strerror(errno));
		free(dst);
		dst = xstrdup(dir);
	}
	free(idir);
	return dst;
}

/* Earlier failed attempts of this trial (interrupted ones do not count),
 * and the reason of the latest. */
static long failed_attempts(const struct job *j, char **last_reason)
{
	*last_reason = NULL;
	char *idir = incomplete_dir(j);
	DIR *d = opendir(idir);
	long n = 0;
	char best[256] = "";
	if (d) {
		struct dirent *de;
		size_t tl = strlen(j->test);
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, j->test, tl) || de->d_name[tl] != '.')
				continue;
			char *rp = xasprintf("%s/%s/reason.txt", idir, de->d_name);
			struct buf b = BUF_INIT;
			struct err e;
			if (fs_read(rp, 4096, &b, &e) == 0 && strncmp(b.data, "interrupted", 11)) {
				n++;
				if (strcmp(de->d_name, best) > 0) {
					snprintf(best, sizeof best, "%s", de->d_name);
					free(*last_reason);
					b.data[strcspn(b.data, "\n")] = '\0';
					*last_reason = xstrdup(b.data);
				}
			}
			buf_free(&b);
			free(rp);
		}
		closedir(d);
	}
	free(idir);
	return n;
}

/* Temp folders of this trial left by a skillc-eval that was killed. */
static void sweep_leftovers(const struct job *j)
{
	char *parent = parent_of(j->out);
	DIR *d = opendir(parent);
	if (!d) {
		free(parent);
		return;
	}
	char *prefix = xasprintf(".%s.tmp.", j->test);
	struct strlist stale = STRLIST_INIT;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		long pid = strtol(de->d_name + strlen(prefix), NULL, 10);
		if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) == 0)
			continue; /* its writer is still at work */
		strlist_push_owned(&stale, path_join(parent, de->d_name));
	}
	closedir(d);
	for (size_t i = 0; i < stale.n; i++)
		free(move_incomplete(j, stale.v[i], "interrupted: left behind by a skillc-eval that was killed"));
	strlist_free(&stale);
	free(prefix);
	free(parent);
}

/* Runs a command quietly, capturing its output into out. */
static int run_capture(char *const *argv, double timeout, struct buf *out)
{
	char tmpl[] = "/tmp/skillc-eval.XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return -1;
	unlink(tmpl);
	struct proc_spec sp = { argv, NULL, NULL, timeout, 2, -1, { fd, -1 } };
	struct proc_result pr;
	struct err e;
	int r = proc_run(&sp, &pr, &e);
	if (r == 0 && out) {
		lseek(fd, 0, SEEK_SET);
		char chunk[4096];
		ssize_t n;
		while ((n = read(fd, chunk, sizeof chunk)) > 0)
			buf_add(out, chunk, (size_t)n);
	}
	close(fd);
	return r == 0 && pr.exit_code == 0 ? 0 : -1;
}

/* Best effort after a kill: remove docker containers that bind-mount
 * anything inside this trial's folder (BenchFlow mounts the rollout's
 * agent/, verifier/ and artifacts/ folders from there). */
static void docker_cleanup(const char *trial_dir)
{
	if (!on_path("docker"))
		return;
	struct buf ids = BUF_INIT;
	char *ps[] = { "docker", "ps", "-aq", "--no-trunc", NULL };
	if (run_capture(ps, 60, &ids) < 0 || !ids.len) {
		buf_free(&ids);
		return;
	}
	struct strlist argv = STRLIST_INIT;
	strlist_push(&argv, "docker");
	strlist_push(&argv, "inspect");
	strlist_push(&argv, "--format");
	strlist_push(&argv, "{{.Id}}{{range .Mounts}} {{.Source}}{{end}}");
	for (char *save = NULL, *id = strtok_r(ids.data, " \n", &save); id; id = strtok_r(NULL, " \n", &save))
		strlist_push(&argv, id);
	struct buf info = BUF_INIT;
	run_capture(argv.v, 60, &info);
	struct strlist rm = STRLIST_INIT;
	strlist_push(&rm, "docker");
	strlist_push(&rm, "rm");
	strlist_push(&rm, "-f");
	size_t tl = strlen(trial_dir);
	for (char *save = NULL, *line = info.data ? strtok_r(info.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		for (char *src = sp + 1; src && *src;) {
			char *next = strchr(src, ' ');
			if (next)
				*next = '\0';
			if (!strncmp(src, trial_dir, tl) && (src[tl] == '/' || src[tl] == '\0')) {
				strlist_push(&rm, line);
				break;
			}
			src = next ? next + 1 : NULL;
		}
	}
	if (rm.n > 3)
		run_capture(rm.v, 120, NULL);
	strlist_free(&rm);
	strlist_free(&argv);
	buf_free(&info);
	buf_free(&ids);
}

static const char *runner_command(const char *runner)
{
	return !strcmp(runner, "benchflow") ? "bench" : !strcmp(runner, "harbor") ? "harbor" : "skillc-local";
}

static void runner_missing(const char *runner)
{
	if (!strcmp(runner, "benchflow"))
		die(2, "RUNNER=benchflow needs the `bench` command, which is not on PATH: install it with "
		       "`uv tool install --python 3.12 benchflow`, or pick RUNNER=local");
	if (!strcmp(runner, "harbor"))
		die(2, "RUNNER=harbor needs the `harbor` command, which is not on PATH: install it with "
		       "`uv tool install harbor`, or pick RUNNER=benchflow or RUNNER=local");
	die(2, "RUNNER=local needs `skillc-local`, which is not on PATH: build it with `make` (or install "
	       "skillc), or pick RUNNER=benchflow");
}

/* bench / skillc-local: `eval run` with the flags of the issue. */
static void benchflow_argv(const struct job *j, const char *tmp, const char *skills_root, struct strlist *a)
{
	strlist_push(a, runner_command(j->o->runner));
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
	strlist_push(a, "--skill-mode");
	if (skills_root) {
		strlist_push(a, "with-skill");
		strlist_push(a, "--skills-dir");
		strlist_push(a, skills_root);
	} else {
		strlist_push(a, "no-skill");
	}
	strlist_push(a, "--jobs-dir");
	strlist_push_owned(a, path_join(tmp, "raw"));
	strlist_push(a, "--quiet");
	if (j->o->agent_timeout > 0) {
		strlist_push(a, "--config-override");
		strlist_push_owned(a, xasprintf("{\"agent\":{\"timeout_sec\":%.0f}}", j->o->agent_timeout));
	}
}

/* harbor: one job config file (keys as Harbor's JobConfig), `harbor run -c`. */
static int harbor_argv(const struct job *j, const char *tmp, const char *skills_root, struct strlist *a,
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

static cJSON *make_identity(struct job *j)
{
	cJSON *id = cJSON_CreateObject();
	json_set_num(id, "format", TRIAL_FORMAT);
	json_set_str(id, "task", j->task);
	json_set_str(id, "task_hash", j->task_hash);
	json_set_str(id, "skill_hash", j->skill_hash);
	json_set_str(id, "harness", j->o->harness);
	json_set_str(id, "model", j->o->model);
	json_set_str(id, "runner", j->o->runner);
	cJSON *set = cJSON_CreateObject();
	json_set_str(set, "sandbox", j->o->sandbox);
	if (j->o->agent_timeout > 0)
		json_set_num(set, "agent_timeout", j->o->agent_timeout);
	else
		json_set(set, "agent_timeout", cJSON_CreateNull());
	json_set(id, "settings", set);
	json_set_num(id, "index", (double)j->o->index);
	return id;
}

/* The keys trial.json carries besides what the runner's files say. */
static void stamp_trial(struct job *j, cJSON *t, bool reused)
{
	json_set_num(t, "format", TRIAL_FORMAT);
	json_set_str(t, "key", j->key);
	json_set(t, "identity", cJSON_Duplicate(j->identity, true));
	json_set_str(t, "task", j->task);
	json_set_str(t, "task_hash", j->task_hash);
	json_set_str(t, "skill_hash", j->skill_hash);
	json_set_str(t, "harness", j->o->harness);
	json_set_str(t, "model", j->o->model);
	json_set_str(t, "runner", j->o->runner);
	json_set_str(t, "stage", j->stage);
	json_set_num(t, "index", (double)j->o->index);
	json_set_str(t, "test", j->test);
	json_set_bool(t, "require_skill", j->o->require_skill);
	json_set_bool(t, "reused", reused);
}

static bool up_to_date(struct job *j)
{
	char *p = path_join(j->out, "trial.json");
	struct err e;
	cJSON *t = fs_exists(p) ? json_read_file(p, &e) : NULL;
	bool ok = false;
	if (t) {
		const char *k = json_str(t, "key");
		trial_check(t, j->o->require_skill);
		ok = k && !strcmp(k, j->key) && json_bool(t, "complete", false);
	}
	if (ok)
		utimensat(AT_FDCWD, p, NULL, 0); /* make compares mtimes */
	cJSON_Delete(t);
	free(p);
	return ok;
}

static int write_trial(const char *dir, const cJSON *t, struct err *e)
{
	char *p = path_join(dir, "trial.json");
	int r = json_write_file(p, t, e);
	free(p);
	return r;
}

/* Drops "<dir>/" from a message: the temp folder is gone once moved. */
static void strip_prefix(char *msg, const char *dir)
{
	size_t n = strlen(dir);
	char *p;
	while ((p = strstr(msg, dir)) && p[n] == '/')
		memmove(p, p + n + 1, strlen(p + n + 1) + 1);
}

static void end_line(struct job *j, const cJSON *t, const char *how)
{
	const cJSON *rw = json_get(t, "reward");
	char rbuf[32] = "-";
	if (cJSON_IsNumber(rw))
		snprintf(rbuf, sizeof rbuf, "%g", rw->valuedouble);
	const cJSON *sk = json_get(t, "skill");
	const char *use = !cJSON_GetArraySize(json_get(sk, "injected")) ? "no skill"
			  : json_bool(sk, "invoked", false) ? "skill invoked"
			  : json_bool(sk, "read", false) ? "skill read" : "skill unused";
	progress(j, "%s reward=%s %s%s in %.1fs", json_str(t, "outcome"), rbuf, use, how, now_mono() - j->start);
}

/* Reuse from the store: link the entry into a temp folder, restamp, publish. */
static int try_reuse(struct job *j)
{
	if (j->o->no_cache || !trialstore_has(j->o->cache, j->key))
		return 0;
	char *tmp = fs_temp_beside(j->out);
	struct err e;
	if (trialstore_get(j->o->cache, j->key, tmp, &e) < 0) {
		warnf("cannot reuse the stored trial %s (%s); running it", j->key, e.msg);
		fs_remove_tree(tmp, &e);
		free(tmp);
		return 0;
	}
	char *tp = path_join(tmp, "trial.json");
	cJSON *t = json_read_file(tp, &e);
	free(tp);
	int r = 0;
	if (t) {
		stamp_trial(j, t, true);
		trial_check(t, j->o->require_skill);
		/* the stored file is a link: write a new one, never through it */
		char *p = path_join(tmp, "trial.json");
		unlink(p);
		free(p);
		if (json_bool(t, "complete", false) && write_trial(tmp, t, &e) == 0 &&
		    fs_publish_dir(tmp, j->out, &e) == 0) {
			end_line(j, t, ", reused from the trial store");
			r = 1;
		}
	}
	if (!r && fs_exists(tmp))
		fs_remove_tree(tmp, &e);
	cJSON_Delete(t);
	free(tmp);
	return r;
}

/* Links (or copies) the chosen rollout's trajectories to trajectory/. */
static void lift_trajectories(const char *tmp, cJSON *t, const struct buf *acp_from_atif)
{
	char *dir = path_join(tmp, "trajectory");
	struct err e;
	fs_mkdirs(dir, &e);
	cJSON *files = json_get(t, "files");
	static const char *const keys[] = { "acp_trajectory", "llm_trajectory" };
	for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
		char *dst = xasprintf("%s/%s.jsonl", dir, keys[i]);
		char *rel = xasprintf("trajectory/%s.jsonl", keys[i]);
		const char *src_rel = json_str(files, keys[i]);
		if (i == 0 && acp_from_atif && acp_from_atif->data) {
			if (fs_write_atomic(dst, acp_from_atif->data, acp_from_atif->len, 0644, &e) == 0)
				json_set_str(files, keys[i], rel);
		} else if (src_rel) {
			char *src = path_join(tmp, src_rel);
			if (link(src, dst) == 0 || fs_copy_file(src, dst, 0644, &e) == 0) {
				json_set_str(files, i == 0 ? "raw_acp_trajectory" : "raw_llm_trajectory", src_rel);
				json_set_str(files, keys[i], rel);
			}
			free(src);
		}
		free(rel);
		free(dst);
	}
	free(dir);
}

static int run_trial(struct job *j, struct strlist *env_extra)
{
	long prior;
	char *last = NULL;
	prior = failed_attempts(j, &last);
	if (prior >= j->o->attempts) {
		progress(j, "not run: %ld failed attempts already", prior);
		warnf("%s: %ld failed attempts already (last: %s); see %s/%s/%s.*; remove them or raise --attempts "
		      "to try again", j->test, prior, last ? last : "?", j->incomplete, j->stage, j->test);
		free(last);
		return 1;
	}
	free(last);
	if (!on_path(runner_command(j->o->runner)))
		runner_missing(j->o->runner);

	char *tmp = fs_temp_beside(j->out);
	struct err e = { 0, "" };
	if (mkdir(tmp, 0755) < 0)
		die(1, "cannot create '%s': %s", tmp, strerror(errno));
	char *tmp_abs = abs_path(tmp);
	char *skills_root = NULL;
	if (!j->o->no_skill) {
		skills_root = path_join(tmp_abs, ".skills");
		if (mkdir(skills_root, 0755) < 0)
			die(1, "cannot create '%s': %s", skills_root, strerror(errno));
		for (size_t i = 0; i < j->o->skills.n; i++) {
			char *dst = path_join(skills_root, j->skill_names.v[i]);
			if (tree_copy(j->o->skills.v[i], dst, false, &e) < 0)
				die_err(&e);
			free(dst);
		}
	}
	struct strlist argv = STRLIST_INIT;
	if (!strcmp(j->o->runner, "harbor")) {
		if (harbor_argv(j, tmp_abs, skills_root, &argv, &e) < 0)
			die_err(&e);
	} else {
		benchflow_argv(j, tmp_abs, skills_root, &argv);
	}
	char *logp = path_join(tmp, "runner.log");
	int logfd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(logp);
	if (logfd >= 0) {
		/* the command line holds no secrets: keys travel in the environment */
		dprintf(logfd, "$");
		for (size_t i = 0; i < argv.n; i++)
			dprintf(logfd, " %s", argv.v[i]);
		dprintf(logfd, "\n");
	}
	char **envp = child_env(env_extra);
	double deadline = j->o->deadline > 0 ? j->o->deadline
			  : j->o->agent_timeout > 0 ? 2 * j->o->agent_timeout + 900 : 14400;
	struct proc_spec sp = { argv.v, NULL, envp, deadline, 10, -1, { logfd, -1 } };
	struct proc_result pr;
	/* A second Ctrl-C (make and skillc-stage forward theirs to our process
	 * group too) must not cut short the move to .incomplete/ after the run:
	 * stops stay blocked from here (proc_run still forwards them). */
	proc_defer_stops();
	int rc = proc_run(&sp, &pr, &e);
	if (logfd >= 0)
		close(logfd);
	free(envp);
	strlist_free(&argv);

	char reason[1200] = "";
	cJSON *t = NULL;
	struct buf acp = BUF_INIT;
	if (rc < 0) {
		snprintf(reason, sizeof reason, "cannot start the runner: %s", e.msg);
	} else if (pr.interrupted) {
		docker_cleanup(tmp_abs);
		snprintf(reason, sizeof reason, "interrupted by signal %d after %.0fs", pr.interrupted, pr.seconds);
	} else if (pr.timed_out) {
		docker_cleanup(tmp_abs);
		snprintf(reason, sizeof reason, "hard deadline of %.0fs passed: the runner was killed", deadline);
	} else if (pr.exit_code == 127) {
		snprintf(reason, sizeof reason, "the runner could not be started (exit 127; see runner.log)");
	} else {
		char *raw = path_join(tmp, "raw");
		struct trial_opts to = { &j->h, j->rules_dir, j->o->runner, &j->skill_names, j->o->require_skill,
					 !strcmp(j->o->runner, "harbor") ? &acp : NULL };
		t = fs_is_dir(raw) ? trial_parse(raw, tmp, &to, &e) : NULL;
		if (!t && !fs_is_dir(raw))
			snprintf(reason, sizeof reason, "the runner exited %d and wrote no raw/ output (see runner.log)",
				 pr.exit_code);
		else if (!t)
			snprintf(reason, sizeof reason, "%s", e.msg);
		free(raw);
	}
	if (skills_root) {
		fs_remove_tree(skills_root, &e); /* a copy of what skill_hash names */
		free(skills_root);
	}
	if (t) {
		lift_trajectories(tmp, t, acp.len ? &acp : NULL);
		stamp_trial(j, t, false);
		json_set_num(t, "runner_exit", pr.exit_code);
		json_set_num(t, "wall_seconds", pr.seconds);
		trial_check(t, j->o->require_skill);
		const char *outcome = json_str(t, "outcome");
		if (!json_bool(t, "complete", false)) {
			snprintf(reason, sizeof reason, "incomplete: %s", trial_first_problem(t));
		} else if (outcome && !strcmp(outcome, "infra_error") && prior + 1 < j->o->attempts) {
			const char *cat = json_str(t, "error_category"), *err = json_str(t, "error");
			snprintf(reason, sizeof reason, "infra error (%s): %.600s; attempt %ld of %ld, the next make "
				 "tries again", cat ? cat : "unknown", err ? err : "no error text", prior + 1,
				 j->o->attempts);
		}
		if (write_trial(tmp, t, &e) < 0 && !*reason)
			snprintf(reason, sizeof reason, "%s", e.msg);
	}
	buf_free(&acp);
	int status = 0;
	if (!*reason && fs_publish_dir(tmp, j->out, &e) < 0)
		snprintf(reason, sizeof reason, "%s", e.msg);
	if (*reason) {
		strip_prefix(reason, tmp_abs);
		strip_prefix(reason, tmp);
		char *kept = move_incomplete(j, tmp, reason);
		progress(j, "FAILED in %.1fs", now_mono() - j->start);
		warnf("%s: %s; kept in %s", j->prefix, reason, kept);
		free(kept);
		status = 1;
	} else {
		end_line(j, t, "");
		if (!j->o->no_cache) {
			/* infra errors are facts about the machine, not the trial: never reused */
			const char *outcome = json_str(t, "outcome");
			if (outcome && strcmp(outcome, "infra_error") && trialstore_put(j->o->cache, j->key, j->out, &e) < 0)
				warnf("could not file the trial in the store: %s", e.msg);
		}
	}
	cJSON_Delete(t);
	free(tmp_abs);
	free(tmp);
	return status;
}

/* Every child folder of root holding a SKILL.md, in name order. */
static void add_skills_root(struct opts *o, const char *root)
{
	DIR *d = opendir(root);
	if (!d)
		die(2, "skills root '%s' cannot be read: %s", root, strerror(errno));
	struct strlist names = STRLIST_INIT;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *md = xasprintf("%s/%s/SKILL.md", root, de->d_name);
		if (fs_exists(md))
			strlist_push(&names, de->d_name);
		free(md);
	}
	closedir(d);
	strlist_sort(&names);
	if (!names.n)
		die(2, "skills root '%s' holds no skill folder (a folder with SKILL.md)", root);
	for (size_t i = 0; i < names.n; i++)
		strlist_push_owned(&o->skills, path_join(root, names.v[i]));
	strlist_free(&names);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--task"))
			o->task = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--skill"))
			strlist_push(&o->skills, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--skills-root"))
			add_skills_root(o, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--no-skill"))
			o->no_skill = true;
		else if (!strcmp(a, "--harness"))
			o->harness = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--model"))
			o->model = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--runner"))
			o->runner = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--out"))
			o->out = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--stage"))
			o->stage = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--index"))
			o->index = parse_long(a, need_arg(argc, argv, &i), 1, 100000);
		else if (!strcmp(a, "--of"))
			o->of = parse_long(a, need_arg(argc, argv, &i), 1, 100000);
		else if (!strcmp(a, "--incomplete"))
			o->incomplete = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--cache"))
			o->cache = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--no-cache"))
			o->no_cache = true;
		else if (!strcmp(a, "--agent-timeout"))
			o->agent_timeout = (double)parse_long(a, need_arg(argc, argv, &i), 1, 604800);
		else if (!strcmp(a, "--deadline"))
			o->deadline = (double)parse_long(a, need_arg(argc, argv, &i), 1, 604800);
		else if (!strcmp(a, "--sandbox"))
			o->sandbox = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--require-skill"))
			o->require_skill = true;
		else if (!strcmp(a, "--attempts"))
			o->attempts = parse_long(a, need_arg(argc, argv, &i), 1, 100);
		else if (!strcmp(a, "--env-file"))
			o->env_file = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--rules"))
			o->rules = need_arg(argc, argv, &i);
		else
			die(2, "unknown argument '%s' (see --help)", a);
	}
	if (!o->task || !o->harness || !o->model || !o->runner || !o->out)
		die(2, "--task, --harness, --model, --runner and --out are required (see --help)");
	if (o->no_skill == (o->skills.n > 0))
		die(2, "give --skill DIR or --skills-root DIR, or --no-skill, not both or neither");
	if (strcmp(o->runner, "benchflow") && strcmp(o->runner, "harbor") && strcmp(o->runner, "local"))
		die(2, "unknown runner '%s': pick RUNNER=benchflow, harbor or local", o->runner);
	if (!*o->model)
		die(2, "no model given: set MODEL=provider/model-id (the target model)");
	if (!model_is_safe(o->model))
		die(2, "bad model '%s': use provider/model-id (letters, digits, '.', '_', '-', '/', ':', '@')", o->model);
	if (!o->sandbox) /* the local runner is its own sandbox; the others default to docker */
		o->sandbox = strcmp(o->runner, "local") ? "docker" : "local";
	if (!name_is_safe(o->sandbox))
		die(2, "bad sandbox name '%s'", o->sandbox);
	if (!o->cache)
		o->cache = trialstore_default_dir();
}

/* traces/<task>/<stage>/test-NNN -> <run>/.incomplete; else <parent>/.incomplete */
static char *default_incomplete(const char *out_abs)
{
	char *stage = parent_of(out_abs), *task = parent_of(stage), *traces = parent_of(task);
	char *run = parent_of(traces);
	char *r = path_join(!strcmp(base_name(traces), "traces") ? run : stage, ".incomplete");
	free(stage);
	free(task);
	free(traces);
	free(run);
	return r;
}

static void setup(struct job *j, struct opts *o)
{
	struct err e = { 0, "" };
	j->o = o;
	j->start = now_mono();
	if (!fs_is_dir(o->task))
		die(2, "task folder '%s' does not exist", o->task);
	char *test_sh = path_join(o->task, "tests/test.sh");
	if (!fs_exists(test_sh))
		die(2, "task folder '%s' has no tests/test.sh: not a Harbor/SkillsBench task (needs task.toml, "
		       "instruction.md, environment/, tests/test.sh)", o->task);
	free(test_sh);
	j->task_dir = abs_path(o->task);
	j->task = xstrdup(base_name(j->task_dir));
	if (!name_is_safe(j->task))
		die(2, "bad task name '%s': use letters, digits, '.', '_' and '-'", j->task);

	j->out = abs_path(o->out);
	j->test = xstrdup(base_name(j->out));
	if (!name_is_safe(j->test))
		die(2, "bad trial folder name '%s'", j->test);
	if (!o->index) {
		if (strncmp(j->test, "test-", 5))
			die(2, "--out '%s' is not named test-NNN: pass --index", o->out);
		o->index = parse_long("--out test-NNN", j->test + 5, 1, 100000);
	}
	char *parent = parent_of(j->out);
	j->stage = xstrdup(o->stage ? o->stage : base_name(parent));
	if (!name_is_safe(j->stage))
		die(2, "bad stage name '%s'", j->stage);
	if (fs_mkdirs(parent, &e) < 0)
		die_err(&e);
	free(parent);
	j->incomplete = o->incomplete ? abs_path(o->incomplete) : default_incomplete(j->out);
	if (o->of)
		snprintf(j->prefix, sizeof j->prefix, "[%ld/%ld] %s %s %s", o->index, o->of, j->task, j->stage, j->test);
	else
		snprintf(j->prefix, sizeof j->prefix, "[%ld] %s %s %s", o->index, j->task, j->stage, j->test);

	for (size_t i = 0; i < o->skills.n; i++) {
		char *n = skill_name(o->skills.v[i], &e);
		if (!n)
			die_err(&e);
		strlist_push_owned(&j->skill_names, n);
	}
	j->rules_dir = harness_rules_dir(o->rules, &e);
	if (!j->rules_dir)
		die_err(&e);
	if (harness_load(&j->h, j->rules_dir, o->harness, &j->skill_names, &e) < 0)
		die_err(&e);

	if (hash_tree(j->task_dir, j->task_hash, &e) < 0)
		die_err(&e);
	if (o->no_skill) {
		snprintf(j->skill_hash, sizeof j->skill_hash, "no-skill");
	} else if (o->skills.n == 1) {
		if (hash_tree(o->skills.v[0], j->skill_hash, &e) < 0)
			die_err(&e);
	} else {
		cJSON *m = cJSON_CreateObject();
		for (size_t i = 0; i < o->skills.n; i++) {
			hash_hex h;
			if (hash_tree(o->skills.v[i], h, &e) < 0)
				die_err(&e);
			json_set_str(m, j->skill_names.v[i], h);
		}
		json_hash(m, j->skill_hash);
		cJSON_Delete(m);
	}
	j->identity = make_identity(j);
	trialstore_key(j->identity, j->key);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, VERSION);
	struct opts o = { 0 };
	o.attempts = 3;
	parse_args(argc, argv, &o);
	struct strlist env_extra = STRLIST_INIT;
	struct err e = { 0, "" };
	if (o.env_file) {
		struct dotenv d = DOTENV_INIT;
		if (dotenv_load(&d, o.env_file, &e) < 0)
			die_err(&e);
		env_extra_from(&d, &env_extra);
		dotenv_free(&d);
	}
	struct job j;
	memset(&j, 0, sizeof j);
	setup(&j, &o);

	int status = 0;
	if (up_to_date(&j)) {
		progress(&j, "up to date");
	} else {
		sweep_leftovers(&j);
		progress(&j, "start: %s %s %s %s", o.runner, o.harness, o.model,
			 o.no_skill ? "no-skill" : j.skill_names.v[0]);
		if (!try_reuse(&j))
			status = run_trial(&j, &env_extra);
	}
	cJSON_Delete(j.identity);
	harness_free(&j.h);
	strlist_free(&j.skill_names);
	strlist_free(&o.skills);
	wipe_list(&env_extra);
	free(j.task_dir);
	free(j.task);
	free(j.out);
	free(j.stage);
	free(j.test);
	free(j.incomplete);
	free(j.rules_dir);
	return status;
}
