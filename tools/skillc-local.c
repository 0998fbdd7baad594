/* skillc-local — the local runner: one trial of a Harbor task on this
 * machine, in a bubblewrap sandbox, with the agent harness driven over ACP
 * and the task's own verifier, written in BenchFlow's production layout so
 * the same parser reads it. Takes the `bench eval run` flags skillc-eval
 * passes; see docs/local.md. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acp.h"
#include "dotenv.h"
#include "fs.h"
#include "launch.h"
#include "json.h"
#include "log.h"
#include "proc.h"
#include "pyjson.h"
#include "relay.h"
#include "routes.h"
#include "sandbox.h"
#include "supervisor.h"
#include "task.h"
#include "util.h"

#define VERSION "1"

static const char usage[] =
	"usage: skillc-local eval run --tasks-dir TASK --agent HARNESS --model PROVIDER/MODEL --jobs-dir DIR\n"
	"                             [--sandbox local] [--skill-mode no-skill|with-skill] [--skills-dir ROOT]\n"
	"                             [--config-override JSON|@FILE|key.path=VALUE]... [--agent-env KEY=VALUE]...\n"
	"                             [--agent-idle-timeout SEC|none] [--quiet]\n"
	"\n"
	"Runs one trial of TASK in a bubblewrap sandbox, drives HARNESS (rules/harness/HARNESS.json,\n"
	"or HARNESS_PATH) over ACP, runs the task's tests/test.sh, and writes BenchFlow's layout:\n"
	"DIR/<job>/<task>__<8 hex>/{result,config,timing,prompts}.json, trajectory/acp_trajectory.jsonl,\n"
	"verifier/reward.txt, DIR/<job>/summary.json and DIR/summary.json.\n"
	"Exit: 0 the trial was scored (pass or fail), 1 it errored (no reward), 2 bad usage or input.\n"
	"Environment: ROUTES (provider_routes.json), ENV_FILE (.env), SANDBOX=bwrap|none,\n"
	"HARNESS_PATH, SKILLC_RULES, KEEP_SANDBOX=1 (keep the sandbox folder for forensics).\n";

/* The directories the sandbox's PATH holds (the host's, read-only). */
static const char sandbox_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
static const char *const system_prefixes[] = { "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/" };

struct opts {
	const char *tasks_dir, *agent, *model, *jobs_dir, *skills_dir;
	const char *skill_mode;
	cJSON *override;          /* merged --config-override values */
	struct strlist override_specs;
	struct strlist agent_env; /* KEY=VALUE */
	double idle_timeout;      /* 0: none */
	bool quiet;
};

/* ---- the model route (routes.h, dotenv.h) ---- */

struct model_route {
	char *provider, *model, *base_url, *key_env, *key; /* key: the secret, env only */
	char *host, *port;                                 /* from base_url */
	bool loopback;
};

static void route_free(struct model_route *r)
{
	free(r->provider);
	free(r->model);
	free(r->base_url);
	free(r->key_env);
	if (r->key) {
		memset(r->key, 0, strlen(r->key));
		free(r->key);
	}
	free(r->host);
	free(r->port);
}

static int url_split(struct model_route *r, struct err *e)
{
	const char *u = r->base_url;
	bool https = !strncmp(u, "https://", 8);
	if (!https && strncmp(u, "http://", 7))
		return err_set(e, ERR_INPUT, "route '%s': base URL '%s' is not http:// or https://", r->provider, u);
	const char *h = u + (https ? 8 : 7);
	const char *end = h + strcspn(h, "/?#");
	const char *colon = NULL;
	if (*h == '[') {
		const char *close = memchr(h, ']', (size_t)(end - h));
		if (!close)
			return err_set(e, ERR_INPUT, "route '%s': bad host in '%s'", r->provider, u);
		r->host = xstrndup(h + 1, (size_t)(close - h - 1));
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
		r->host = xstrndup(h, (size_t)((colon ? colon : end) - h));
	}
	r->port = colon ? xstrndup(colon + 1, (size_t)(end - colon - 1)) : xstrdup(https ? "443" : "80");
	r->loopback = !strcmp(r->host, "127.0.0.1") || !strcmp(r->host, "localhost") || !strcmp(r->host, "::1");
	return 0;
}

/* MODEL "provider/model-id" through ROUTES; the key from the environment or ENV_FILE. */
static int route_resolve(const char *model, struct model_route *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	char *path = routes_locate(NULL);
	struct routes rs = ROUTES_INIT;
	struct dotenv env = DOTENV_INIT;
	char *mid = NULL;
	int rc = routes_load(&rs, path, e);
	const struct route *rt = rc == 0 ? routes_resolve(&rs, model, &mid, e) : NULL;
	if (!rt) {
		rc = -1;
		goto out;
	}
	r->provider = xstrdup(rt->provider);
	r->model = mid;
	mid = NULL;
	r->base_url = xstrdup(rt->base_url);
	if (rt->key_env) {
		const char *envf = getenv("ENV_FILE");
		if (dotenv_load(&env, envf && *envf ? envf : ".env", e) < 0) {
			rc = -1;
			goto out;
		}
		enum dotenv_source src;
		const char *v = dotenv_get(&env, rt->key_env, &src);
		r->key_env = xstrdup(rt->key_env);
		if (v && *v)
			r->key = xstrdup(v);
		else if (rt->key_required) {
			rc = err_set(e, ERR_INPUT, "%s required for model '%s' but not set (export it or put it in ENV_FILE)",
				     rt->key_env, model);
			goto out;
		}
	}
	rc = url_split(r, e);
out:
	free(mid);
	dotenv_free(&env);
	routes_free(&rs);
	free(path);
	return rc;
}

/* ---- small helpers ---- */

static void py_time(double t, char out[32])
{
	time_t s = (time_t)t;
	struct tm tm;
	localtime_r(&s, &tm);
	char head[24];
	strftime(head, sizeof head, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(out, 32, "%s.%06d", head, (int)((t - (double)s) * 1e6));
}

/* A number node, including the float nodes pyjson_float makes. */
static double num_of(const cJSON *v)
{
	if (cJSON_IsRaw(v))
		return strtod(v->valuestring, NULL);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static double round1(double x)
{
	return (double)(long long)(x * 10 + 0.5) / 10;
}

static char *find_in_path(const char *prog, const char *path)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
	char *copy = xstrdup(path ? path : ""), *save = NULL, *found = NULL;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = path_join(*d ? d : ".", prog);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

static bool is_secret_name(const char *name)
{
	static const char *const marks[] = { "KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS", "COOKIE",
					     "AUTHORIZATION", "AUTH", "BEARER", "SESSION" };
	char up[256];
	size_t i = 0;
	for (; name[i] && i < sizeof up - 1; i++)
		up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	up[i] = '\0';
	for (size_t k = 0; k < ARRAY_LEN(marks); k++)
		if (strstr(up, marks[k]))
			return true;
	return false;
}

static void env_set(struct strlist *env, const char *name, const char *value)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = xasprintf("%s=%s", name, value);
			return;
		}
	}
	strlist_push_owned(env, xasprintf("%s=%s", name, value));
}

/* [environment.env]-style tables: ${VAR} and ${VAR:-default} come from our environment. */
static void env_table(struct strlist *env, const cJSON *table)
{
	for (const cJSON *c = table ? table->child : NULL; c; c = c->next) {
		char num[64];
		const char *v = c->valuestring;
		if (cJSON_IsNumber(c)) {
			snprintf(num, sizeof num, "%g", c->valuedouble);
			v = num;
		} else if (cJSON_IsBool(c)) {
			v = cJSON_IsTrue(c) ? "true" : "false";
		}
		struct buf b = BUF_INIT;
		buf_add(&b, "", 0);
		for (const char *s = v; *s;) {
			const char *open = strstr(s, "${");
			const char *close = open ? strchr(open, '}') : NULL;
			if (!close) {
				buf_adds(&b, s);
				break;
			}
			buf_add(&b, s, (size_t)(open - s));
			char *inner = xstrndup(open + 2, (size_t)(close - open - 2));
			char *dflt = strstr(inner, ":-");
			if (dflt) {
				*dflt = '\0';
				dflt += 2;
			}
			const char *got = getenv(inner);
			buf_adds(&b, got && *got ? got : dflt ? dflt : "");
			free(inner);
			s = close + 1;
		}
		env_set(env, c->string, b.data);
		buf_free(&b);
	}
}

static char **env_array(const struct strlist *l)
{
	char **v = xcalloc(l->n + 1, sizeof *v);
	for (size_t i = 0; i < l->n; i++)
		v[i] = l->v[i];
	return v;
}

static int write_text(const char *path, const char *text, struct err *e)
{
	return fs_write_atomic(path, text, strlen(text), 0644, e);
}

static int write_py(const char *path, const cJSON *v, int indent, struct err *e)
{
	struct buf b = BUF_INIT;
	pyjson_print(v, indent, &b);
	int r = fs_write_atomic(path, b.data, b.len, 0644, e);
	buf_free(&b);
	return r;
}

/* Removes every symlink under dir: trial files must never lead the host's
 * readers out of the trial folder. */
static void drop_links(const char *dir)
{
	struct fs_tree t = { 0 };
	struct err e;
	if (fs_list_tree(dir, &t, &e) == 0)
		for (size_t i = 0; i < t.n; i++)
			if (S_ISLNK(t.v[i].mode)) {
				char *p = path_join(dir, t.v[i].path);
				unlink(p);
				free(p);
			}
	fs_tree_free(&t);
}

/* Replaces every occurrence of secret in the files under dir (an agent can
 * print its environment into its output, its log or its artifacts). */
static int redact_tree(const char *dir, const char *secret, struct err *e)
{
	size_t n = strlen(secret);
	if (n < 4)
		return 0; /* too short to tell from ordinary text */
	struct fs_tree t = { 0 };
	if (fs_list_tree(dir, &t, e) < 0)
		return -1;
	int r = 0;
	for (size_t i = 0; i < t.n && r == 0; i++) {
		if (!S_ISREG(t.v[i].mode) || t.v[i].size > (256 << 20))
			continue;
		char *p = path_join(dir, t.v[i].path);
		struct buf b = BUF_INIT, out = BUF_INIT;
		if (fs_read(p, 0, &b, e) == 0 && b.data && memmem(b.data, b.len, secret, n)) {
			const char *s = b.data, *end = b.data + b.len;
			for (const char *hit; (hit = memmem(s, (size_t)(end - s), secret, n)); s = hit + n) {
				buf_add(&out, s, (size_t)(hit - s));
				buf_adds(&out, "***REDACTED***");
			}
			buf_add(&out, s, (size_t)(end - s));
			r = fs_write_atomic(p, out.data, out.len, t.v[i].mode & 0777, e);
		}
		if (b.data)
			memset(b.data, 0, b.len);
		buf_free(&b);
		buf_free(&out);
		free(p);
	}
	fs_tree_free(&t);
	return r;
}

/* ---- the trial ---- */

struct trial {
	const struct opts *o;
	struct task task;
	struct launch h;
	struct model_route route;
	enum sandbox_mode mode;
	char *bwrap;
	struct sandbox sb;
	char *jobs, *job_dir, *job_name, *rollout, *dir; /* dir = job_dir/rollout; jobs: --jobs-dir, absolute */
	char *scratch;
	char *agent_log;
	char *skill_source, *effective_skills;
	bool share_net;
	char *program;          /* the harness program, resolved */
	struct strlist agent_argv;
	struct strlist agent_env;
	struct relay *relay;
	double t_start, t_env, t_agent_setup, t_agent, t_verifier;
	char started_at[32];
	/* outcome */
	struct acp_result acp;
	bool ran_agent;
	char *error, *error_category;
	cJSON *sandbox_info, *transport_info;
	cJSON *rewards;
	char *verifier_error, *verifier_category;
	cJSON *verifier_timeout_info;
};

static void set_error(struct trial *t, const char *category, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_error(struct trial *t, const char *category, const char *fmt, ...)
{
	if (t->error)
		return;
	va_list ap;
	va_start(ap, fmt);
	struct buf b = BUF_INIT;
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	t->error = buf_detach(&b);
	t->error_category = xstrdup(category);
}

static void sandbox_failure(struct trial *t, const char *msg)
{
	set_error(t, "sandbox_setup", "Sandbox startup failed: %s", msg);
	t->sandbox_info = cJSON_CreateObject();
	cJSON_AddStringToObject(t->sandbox_info, "reason", "sandbox_startup_failed");
	cJSON_AddNullToObject(t->sandbox_info, "sandbox_id");
	cJSON_AddNullToObject(t->sandbox_info, "sandbox_state");
	cJSON_AddNumberToObject(t->sandbox_info, "attempts", 1);
	cJSON_AddNullToObject(t->sandbox_info, "build_timeout_sec");
	cJSON_AddStringToObject(t->sandbox_info, "raw_message", msg);
}

static int pick_job(struct trial *t, struct err *e)
{
	if (fs_mkdirs(t->o->jobs_dir, e) < 0)
		return -1;
	char real[PATH_MAX];
	if (!realpath(t->o->jobs_dir, real))
		return err_set(e, ERR_WORK, "cannot resolve '%s':", t->o->jobs_dir);
	t->jobs = xstrdup(real); /* binds need absolute paths */
	const char *jobs = t->jobs;
	/* like bench: an existing job folder is resumed (the alphabetically last) */
	struct fs_tree tree = { 0 };
	if (fs_list_tree(jobs, &tree, e) < 0)
		return -1;
	char *last = NULL;
	for (size_t i = 0; i < tree.n; i++) {
		const char *p = tree.v[i].path;
		if (S_ISDIR(tree.v[i].mode) && !strchr(p, '/') && p[0] != '.' && strlen(p) == 20 && p[10] == '_') {
			free(last);
			last = xstrdup(p);
		}
	}
	fs_tree_free(&tree);
	if (!last) {
		char name[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(name, sizeof name, "%Y-%m-%d__%H-%M-%S", &tm);
		last = xstrdup(name);
	}
	t->job_name = last;
	t->job_dir = path_join(jobs, last);
	return fs_mkdirs(t->job_dir, e);
}

/* A scored or verifier-errored rollout of this task already in the job: bench skips it. */
static char *completed_rollout(const struct trial *t)
{
	struct fs_tree tree = { 0 };
	struct err e;
	char *found = NULL;
	if (fs_list_tree(t->job_dir, &tree, &e) < 0)
		return NULL;
	size_t n = strlen(t->task.name);
	for (size_t i = 0; i < tree.n && !found; i++) {
		const char *p = tree.v[i].path;
		if (strncmp(p, t->task.name, n) || strncmp(p + n, "__", 2) || strcmp(p + n + 10, "/result.json"))
			continue;
		char *f = path_join(t->job_dir, p);
		cJSON *res = json_read_file(f, &e);
		cJSON *rw = json_get(res, "rewards");
		if ((rw && !cJSON_IsNull(rw)) || json_str(res, "verifier_error"))
			found = xstrndup(p, n + 10);
		cJSON_Delete(res);
		free(f);
	}
	fs_tree_free(&tree);
	return found;
}

static int make_rollout(struct trial *t, struct err *e)
{
	uint32_t rnd = 0;
	if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		rnd = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	t->rollout = xasprintf("%s__%08x", t->task.name, rnd);
	t->dir = path_join(t->job_dir, t->rollout);
	const char *subs[] = { "agent", "verifier", "artifacts", "trajectory" };
	for (size_t i = 0; i < ARRAY_LEN(subs); i++) {
		char *p = path_join(t->dir, subs[i]);
		int r = fs_mkdirs(p, e);
		free(p);
		if (r < 0)
			return -1;
	}
	char *agent_name = xstrdup(t->h.name);
	for (char *s = agent_name; *s; s++)
		if (*s == '-')
			*s = '_';
	char *log = xasprintf("agent/%s.txt", agent_name);
	t->agent_log = path_join(t->dir, log);
	free(log);
	free(agent_name);
	return 0;
}

static cJSON *scenes(const struct trial *t)
{
	cJSON *list = cJSON_CreateArray();
	cJSON *sc = cJSON_CreateObject();
	cJSON_AddItemToArray(list, sc);
	cJSON_AddStringToObject(sc, "name", "default");
	cJSON_AddNullToObject(sc, "skills_dir");
	cJSON *roles = cJSON_AddArrayToObject(sc, "roles");
	cJSON *role = cJSON_CreateObject();
	cJSON_AddItemToArray(roles, role);
	cJSON_AddStringToObject(role, "name", "agent");
	cJSON_AddStringToObject(role, "agent", t->h.name);
	cJSON_AddStringToObject(role, "model", t->o->model);
	cJSON_AddNullToObject(role, "reasoning_effort");
	cJSON_AddNullToObject(role, "timeout_sec");
	cJSON_AddNullToObject(role, "idle_timeout_sec");
	cJSON_AddNullToObject(role, "skills_dir");
	cJSON_AddNullToObject(role, "capabilities");
	cJSON_AddArrayToObject(role, "env_keys");
	cJSON *turns = cJSON_AddArrayToObject(sc, "turns");
	cJSON *turn = cJSON_CreateObject();
	cJSON_AddItemToArray(turns, turn);
	cJSON_AddStringToObject(turn, "role", "agent");
	cJSON_AddBoolToObject(turn, "has_prompt", false);
	return list;
}

static void add_skill_keys(const struct trial *t, cJSON *o)
{
	bool with = !strcmp(t->o->skill_mode, "with-skill");
	cJSON_AddStringToObject(o, "skill_mode", t->o->skill_mode);
	cJSON_AddStringToObject(o, "skill_source", t->skill_source);
	json_set_str(o, "requested_skills_dir", t->o->skills_dir);
	json_set_str(o, "effective_skills_dir", t->effective_skills);
	json_set_str(o, "skills_sandbox_dir", with ? "/skills" : NULL);
	cJSON_AddBoolToObject(o, "include_task_skills", !strcmp(t->skill_source, "task_bundled"));
}

static int write_config(struct trial *t, struct err *e)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "task_path", t->task.name);
	cJSON_AddStringToObject(c, "agent", t->h.name);
	cJSON_AddStringToObject(c, "model", t->o->model);
	cJSON_AddNullToObject(c, "reasoning_effort");
	cJSON_AddStringToObject(c, "environment", "local");
	cJSON_AddStringToObject(c, "acp_transport", "stdio");
	cJSON_AddNullToObject(c, "environment_manifest");
	add_skill_keys(t, c);
	cJSON_AddStringToObject(c, "sandbox_user", "root");
	cJSON_AddNullToObject(c, "sandbox_locked_paths");
	cJSON_AddNullToObject(c, "sandbox_setup_timeout");
	cJSON_AddBoolToObject(c, "skip_install", true);
	cJSON_AddNullToObject(c, "agent_install_timeout");
	cJSON_AddNullToObject(c, "context_root");
	cJSON_AddNullToObject(c, "base_image_override");
	cJSON_AddNumberToObject(c, "timeout_sec", t->task.agent_timeout);
	cJSON_AddNumberToObject(c, "concurrency", 1);
	if (t->o->idle_timeout > 0)
		cJSON_AddNumberToObject(c, "agent_idle_timeout_sec", t->o->idle_timeout);
	else
		cJSON_AddNullToObject(c, "agent_idle_timeout_sec");
	cJSON_AddStringToObject(c, "started_at", t->started_at);
	cJSON *env = cJSON_AddObjectToObject(c, "agent_env");
	for (size_t i = 0; i < t->o->agent_env.n; i++) {
		const char *kv = t->o->agent_env.v[i];
		char *name = xstrndup(kv, (size_t)(strchr(kv, '=') - kv));
		if (!is_secret_name(name))
			cJSON_AddStringToObject(env, name, strchr(kv, '=') + 1);
		free(name);
	}
	cJSON_AddItemToObject(c, "scenes", scenes(t));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "loop"), "strategy", "single-shot");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "usage_tracking"), "requested", "auto");
	if (t->o->override) {
		cJSON *co = cJSON_AddObjectToObject(c, "config_override");
		cJSON *keys = cJSON_AddArrayToObject(co, "keys");
		for (const cJSON *k = t->o->override->child; k; k = k->next)
			cJSON_AddItemToArray(keys, cJSON_CreateString(k->string));
		cJSON_AddItemToObject(co, "patch", cJSON_Duplicate(t->o->override, true));
	}
	/* what only this runner knows (extra keys; BenchFlow readers ignore them) */
	cJSON *l = cJSON_AddObjectToObject(c, "local");
	cJSON_AddStringToObject(l, "sandbox", t->mode == SANDBOX_BWRAP ? "bubblewrap" : "none");
	cJSON_AddStringToObject(l, "agent_network", t->share_net ? "host" : "none+model-relay");
	cJSON_AddStringToObject(l, "verifier_network", t->task.verifier_network ? "host" : "none");
	cJSON_AddStringToObject(l, "workdir", t->task.workdir);
	cJSON_AddStringToObject(l, "harness_file", t->h.file);
	cJSON *cmd = cJSON_AddArrayToObject(l, "acp_command");
	for (size_t i = 0; i < t->h.argv.n; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(t->h.argv.v[i]));
	json_set_str(l, "harness_program", t->program);
	cJSON_AddNumberToObject(l, "verifier_timeout_sec", t->task.verifier_timeout);
	cJSON_AddNumberToObject(l, "dockerfile_copies", (double)t->task.ncopies);
	cJSON_AddNumberToObject(l, "dockerfile_skill_copies_dropped", t->task.skill_copies_dropped);
	cJSON *ign = cJSON_AddArrayToObject(l, "dockerfile_ignored");
	for (size_t i = 0; i < t->task.ignored.n; i++)
		cJSON_AddItemToArray(ign, cJSON_CreateString(t->task.ignored.v[i]));
	char *p = path_join(t->dir, "config.json");
	int r = write_py(p, c, 2, e);
	free(p);
	cJSON_Delete(c);
	return r;
}

static void preflight(struct trial *t)
{
	struct buf missing = BUF_INIT;
	for (size_t i = 0; i < t->task.requires.n; i++) {
		char *p = find_in_path(t->task.requires.v[i], sandbox_path);
		if (!p)
			buf_printf(&missing, "%s%s", missing.len ? ", " : "", t->task.requires.v[i]);
		free(p);
	}
	if (missing.len) {
		char *msg = xasprintf("task needs programs this host lacks: %s (install them, "
				      "e.g. apt-get install -y <package>; the task lists them in [metadata] required_programs)",
				      missing.data);
		sandbox_failure(t, msg);
		free(msg);
	}
	buf_free(&missing);
}

static bool under_system(const char *path)
{
	for (size_t i = 0; i < ARRAY_LEN(system_prefixes); i++)
		if (!strncmp(path, system_prefixes[i], strlen(system_prefixes[i])))
			return true;
	return false;
}

/* Finds the harness program on our PATH; binds its folder when it lives
 * outside the host's system folders. */
static int resolve_program(struct trial *t, struct err *e)
{
	char *found = find_in_path(t->h.argv.v[0], getenv("PATH"));
	char real[PATH_MAX];
	if (!found || !realpath(found, real)) {
		const char *hint = json_str(t->h.doc, "install");
		char *msg = xasprintf("harness command '%s' not found in PATH%s%s%s", t->h.argv.v[0],
				      hint ? " (install it: " : "", hint ? hint : "", hint ? ")" : "");
		set_error(t, "install_failure", "%s", msg);
		free(msg);
		free(found);
		return 0;
	}
	free(found);
	t->program = xstrdup(real);
	if (t->mode == SANDBOX_BWRAP && !under_system(real)) {
		char *dir = xstrdup(real);
		*strrchr(dir, '/') = '\0';
		int r = sandbox_bind(&t->sb, dir, dir, false, e);
		free(dir);
		return r;
	}
	return 0;
}

static int setup_skills(struct trial *t, struct err *e)
{
	if (strcmp(t->o->skill_mode, "with-skill"))
		return 0;
	const char *src = t->o->skills_dir;
	if (!src)
		src = t->task.skills_dir;
	if (!src || !fs_is_dir(src))
		return err_set(e, ERR_INPUT, "%s: --skill-mode with-skill but %s", t->task.dir,
			       t->o->skills_dir ? "--skills-dir is not a folder" : "the task has no environment/skills");
	char real[PATH_MAX];
	t->effective_skills = xstrdup(realpath(src, real) ? real : src);
	/* a private copy: the agent must not change the source, even through /skills */
	char *copy = path_join(t->scratch, "skills");
	if (fs_mkdirs(copy, e) < 0) {
		free(copy);
		return -1;
	}
	struct fs_tree tree = { 0 };
	int r = fs_list_tree(src, &tree, e);
	for (size_t i = 0; r == 0 && i < tree.n; i++) {
		char *s = path_join(src, tree.v[i].path), *d = path_join(copy, tree.v[i].path);
		if (S_ISDIR(tree.v[i].mode))
			r = fs_mkdirs(d, e);
		else if (S_ISREG(tree.v[i].mode))
			r = fs_copy_file(s, d, tree.v[i].mode & 0777, e);
		else if (S_ISLNK(tree.v[i].mode) && symlink(tree.v[i].link, d) < 0)
			r = err_set(e, ERR_WORK, "cannot create link '%s':", d);
		free(s);
		free(d);
	}
	fs_tree_free(&tree);
	if (r == 0)
		r = sandbox_bind(&t->sb, copy, "/skills", false, e);
	for (size_t i = 0; r == 0 && i < t->h.skill_paths.n; i++) {
		const char *d = t->h.skill_paths.v[i];
		char *at = d[0] == '~' ? xasprintf("/root%s", d + 1) : xstrdup(d);
		r = sandbox_provide(&t->sb, at, e);
		if (r == 0)
			r = sandbox_symlink(&t->sb, "/skills", at, e);
		free(at);
	}
	free(copy);
	return r;
}

static const char **template_vars(const struct trial *t, const char *out[16])
{
	size_t n = 0;
	out[n++] = "model";
	out[n++] = t->route.model;
	out[n++] = "provider";
	out[n++] = t->route.provider;
	out[n++] = "model_full";
	out[n++] = t->o->model;
	out[n++] = "base_url";
	out[n++] = t->route.base_url;
	out[n++] = "key_env";
	out[n++] = t->h.key_env;
	out[n++] = "home";
	out[n++] = "/root";
	out[n++] = "workdir";
	out[n++] = t->task.workdir;
	out[n] = NULL;
	return out;
}

static int setup_config_files(struct trial *t, struct err *e)
{
	const char *vars[16];
	template_vars(t, vars);
	for (const cJSON *c = t->h.config_files ? t->h.config_files->child : NULL; c; c = c->next) {
		const char *path = json_str(c, "path");
		char *at = path[0] == '~' ? xasprintf("/root%s", path + 1) : xstrdup(path);
		struct buf text = BUF_INIT;
		int r = 0;
		if (json_get(c, "json")) {
			cJSON *v = launch_render(json_get(c, "json"), vars, e);
			if (!v) {
				r = -1;
			} else {
				pyjson_print(v, 2, &text);
				buf_addc(&text, '\n');
				cJSON_Delete(v);
			}
		} else {
			char *s = launch_subst(json_str(c, "text"), vars, e);
			if (!s)
				r = -1;
			else
				buf_adds(&text, s);
			free(s);
		}
		if (r < 0)
			err_set(e, ERR_INPUT, "%s: config file %s: %s", t->h.file, path, e->msg);
		if (r == 0)
			r = sandbox_provide(&t->sb, at, e);
		if (r == 0)
			r = sandbox_write(&t->sb, at, text.data ? text.data : "", text.len, 0600, e);
		buf_free(&text);
		free(at);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int setup_env(struct trial *t, struct err *e)
{
	struct strlist *env = &t->agent_env;
	env_set(env, "HOME", "/root");
	env_set(env, "USER", "root");
	env_set(env, "LOGNAME", "root");
	env_set(env, "PATH", sandbox_path);
	env_set(env, "LANG", "C.UTF-8");
	env_set(env, "TMPDIR", "/tmp");
	env_set(env, "TERM", "dumb");
	if (t->share_net) {
		static const char *const pass[] = { "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY" };
		for (size_t i = 0; i < ARRAY_LEN(pass); i++)
			if (getenv(pass[i]))
				env_set(env, pass[i], getenv(pass[i]));
	}
	env_table(env, t->task.env);
	const char *vars[16];
	template_vars(t, vars);
	for (const cJSON *c = t->h.env ? t->h.env->child : NULL; c; c = c->next) {
		char *v = launch_subst(c->valuestring, vars, e);
		if (!v)
			return -1;
		env_set(env, c->string, v);
		free(v);
	}
	for (size_t i = 0; i < t->o->agent_env.n; i++) {
		const char *kv = t->o->agent_env.v[i];
		char *name = xstrndup(kv, (size_t)(strchr(kv, '=') - kv));
		env_set(env, name, strchr(kv, '=') + 1);
		free(name);
	}
	if (t->route.key)
		env_set(env, t->h.key_env, t->route.key); /* the key travels in the environment only */
	return 0;
}

/* Inside the sandbox the agent runs under our own supervisor
 * (skillc-local sandbox-init): it copies the agent's stdio, so an agent
 * that closes its stdout is seen at once even though bwrap holds the
 * pipe, and it carries the model route when the task has no network. */
static int setup_init(struct trial *t, struct err *e)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return err_set(e, ERR_WORK, "cannot find our own executable:");
	exe[n] = '\0';
	if (sandbox_bind(&t->sb, exe, "/run/skillc/init", false, e) < 0)
		return -1;
	strlist_push(&t->agent_argv, "/run/skillc/init");
	strlist_push(&t->agent_argv, "sandbox-init");
	return 0;
}

/* No network: the route crosses on a Unix socket, relayed on both sides. */
static int setup_relay(struct trial *t, struct err *e)
{
	char *run = path_join(t->scratch, "run");
	char *sock = path_join(run, "model.sock");
	int r = fs_mkdirs(run, e);
	int lfd = r == 0 ? relay_listen_unix(sock, e) : -1;
	if (lfd < 0) {
		free(run);
		free(sock);
		return -1;
	}
	t->relay = relay_new(lfd, NULL, t->route.host, t->route.port);
	r = sandbox_bind(&t->sb, run, "/run/skillc/sock", false, e);
	/* a remote route's name must lead to the relay too */
	char *hosts = path_join(t->scratch, "hosts");
	struct buf text = BUF_INIT;
	buf_adds(&text, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n");
	if (!t->route.loopback)
		buf_printf(&text, "127.0.0.1\t%s\n", t->route.host);
	if (r == 0)
		r = fs_write_atomic(hosts, text.data, text.len, 0644, e);
	buf_free(&text);
	t->sb.hosts = hosts;
	strlist_push(&t->agent_argv, "--listen");
	if (!strcmp(t->route.host, "::1"))
		strlist_push_owned(&t->agent_argv, xasprintf("[::1]:%s", t->route.port));
	else if (t->route.loopback && strcmp(t->route.host, "localhost"))
		strlist_push_owned(&t->agent_argv, xasprintf("127.0.0.1:%s", t->route.port));
	else
		strlist_push_owned(&t->agent_argv, xasprintf("127.0.0.1:%s,[::1]:%s", t->route.port, t->route.port));
	strlist_push(&t->agent_argv, "--to");
	strlist_push(&t->agent_argv, "/run/skillc/sock/model.sock");
	free(run);
	free(sock);
	return r;
}

static int setup_sandbox(struct trial *t, struct err *e)
{
	struct sandbox *sb = &t->sb;
	if (sandbox_init(sb, t->mode, t->bwrap, t->scratch, e) < 0)
		return -1;
	if (sandbox_provide(sb, "/root", e) < 0 || sandbox_provide(sb, "/tmp", e) < 0 ||
	    sandbox_provide(sb, t->task.workdir, e) < 0 || sandbox_mkdir(sb, t->task.workdir, e) < 0)
		return -1;
	for (size_t i = 0; i < t->task.ncopies; i++) {
		const struct task_copy *c = &t->task.copies[i];
		if (sandbox_provide(sb, c->dest, e) < 0 || sandbox_copy_in(sb, c->src, c->dest, c->as_child, e) < 0)
			return -1;
	}
	char *ins = path_join(t->scratch, "instruction.md");
	int r = write_text(ins, t->task.instruction, e);
	if (r == 0)
		r = sandbox_bind(sb, ins, "/instruction.md", false, e);
	free(ins);
	const char *logs[] = { "agent", "verifier", "artifacts" };
	for (size_t i = 0; r == 0 && i < ARRAY_LEN(logs); i++) {
		char *src = path_join(t->dir, logs[i]);
		char *dest = xasprintf("/logs/%s", logs[i]);
		r = sandbox_bind(sb, src, dest, true, e);
		free(src);
		free(dest);
	}
	if (r == 0)
		r = setup_skills(t, e);
	if (r == 0)
		r = setup_config_files(t, e);
	return r;
}

static int sandbox_fs_open(void *ctx, const char *path, int flags, mode_t mode, struct err *e)
{
	return sandbox_open(ctx, path, flags, mode, e);
}

/* What the agent's stderr says when bwrap or our supervisor could not start. */
static char *startup_failure(const char *log)
{
	struct buf b = BUF_INIT;
	struct err e;
	char *found = NULL;
	if (fs_read(log, 1 << 20, &b, &e) == 0 && b.data) {
		char *save = NULL;
		for (char *l = strtok_r(b.data, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save))
			if (!strncmp(l, "bwrap:", 6) || !strncmp(l, SUPERVISOR_FAILURE, strlen(SUPERVISOR_FAILURE)))
				found = xstrdup(l);
	}
	buf_free(&b);
	return found;
}

static void run_agent(struct trial *t)
{
	struct err e = { 0 };
	int logfd = open(t->agent_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct strlist inner = STRLIST_INIT;
	for (size_t i = 0; i < t->agent_argv.n; i++)
		strlist_push(&inner, t->agent_argv.v[i]);
	strlist_push(&inner, t->program);
	for (size_t i = 1; i < t->h.argv.n; i++)
		strlist_push(&inner, t->h.argv.v[i]);
	struct strlist cmd = STRLIST_INIT;
	struct sandbox_run run = { .share_net = t->share_net, .cwd = t->task.workdir };
	char **inner_v = env_array(&inner);
	sandbox_command(&t->sb, &run, inner_v, &cmd);
	free(inner_v);
	char **argv = env_array(&cmd);
	char **envp = env_array(&t->agent_env);
	struct acp_fs fs = { &t->sb, sandbox_fs_open };
	struct acp_spec spec = {
		.argv = argv,
		.envp = envp,
		.session_cwd = t->task.workdir,
		.prompt = t->task.instruction,
		.timeout = t->task.agent_timeout,
		/* BenchFlow allows 60 s for the handshake; never more than the agent's own budget */
		.handshake_timeout = t->task.agent_timeout < 60 ? t->task.agent_timeout : 60,
		.idle_timeout = t->o->idle_timeout,
		.stderr_fd = logfd,
		.fs = &fs,
		.relay = t->relay,
	};
	t->ran_agent = true;
	if (acp_run(&spec, &t->acp, &e) < 0)
		set_error(t, "infra_failure", "%s", e.msg);
	if (logfd >= 0)
		close(logfd);
	free(argv);
	free(envp);
	strlist_free(&cmd);
	strlist_free(&inner);
	struct acp_result *a = &t->acp;
	char *why = NULL;
	switch (a->status) {
	case ACP_DONE:
		break;
	case ACP_TIMEOUT:
		set_error(t, "timeout", "%s", a->message);
		break;
	case ACP_IDLE:
		set_error(t, "idle_timeout", "%s", a->message);
		break;
	case ACP_CLOSED:
	case ACP_NOT_STARTED:
		why = a->handshake_done ? NULL : startup_failure(t->agent_log);
		if (why || a->status == ACP_NOT_STARTED) {
			sandbox_failure(t, why ? why : a->message);
		} else {
			set_error(t, "pipe_closed", "%s", a->message);
			t->transport_info = cJSON_CreateObject();
			cJSON_AddStringToObject(t->transport_info, "reason", "transport_closed");
			cJSON_AddNumberToObject(t->transport_info, "process_exit_code", a->exit_code);
			cJSON_AddStringToObject(t->transport_info, "transport_diagnosis",
						a->term_signal ? "agent process killed by a signal" : "agent process exited");
		}
		free(why);
		break;
	case ACP_PROTOCOL:
		set_error(t, "acp_error", "%s", a->message);
		break;
	case ACP_INTERRUPTED:
		break;
	}
	if (a->status == ACP_TIMEOUT || a->status == ACP_IDLE) {
		cJSON *l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "type", "agent_timeout");
		cJSON_AddStringToObject(l, "reason", a->status == ACP_TIMEOUT ? "wall_clock_timeout" : "idle_timeout");
		cJSON_AddNumberToObject(l, "timeout_sec", a->status == ACP_TIMEOUT ? t->task.agent_timeout : t->o->idle_timeout);
		cJSON_AddItemToObject(l, "pending_tool_call_ids", acp_traj_pending(&a->traj));
		cJSON_AddBoolToObject(l, "terminal_trajectory_complete", a->prompt_answered);
		cJSON_AddItemToArray(a->traj.lines, l);
	}
}

/* Reads the verifier's reward files the way BenchFlow does. */
static void read_reward(struct trial *t, int rc)
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
		} else if (rewards && num_of(json_get(rewards, "reward")) != val) {
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

static int run_verifier(struct trial *t, struct err *e)
{
	char *vdir = path_join(t->dir, "verifier");
	/* whatever the agent put in /logs/verifier is not the verifier's word */
	if (fs_remove_tree(vdir, e) < 0 || fs_mkdirs(vdir, e) < 0) {
		free(vdir);
		return -1;
	}
	char *agent_dir = path_join(t->dir, "agent"), *art = path_join(t->dir, "artifacts");
	drop_links(agent_dir);
	drop_links(art);
	free(agent_dir);
	free(art);
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
	env_set(&env, "HOME", "/root");
	env_set(&env, "USER", "root");
	env_set(&env, "PATH", sandbox_path);
	env_set(&env, "LANG", "C.UTF-8");
	env_set(&env, "TMPDIR", "/tmp");
	env_set(&env, "BENCHFLOW_VERIFIER_DIR", "/logs/verifier");
	env_set(&env, "BENCHFLOW_REWARD_TEXT", "/logs/verifier/reward.txt");
	env_set(&env, "BENCHFLOW_REWARD_JSON", "/logs/verifier/reward.json");
	if (t->task.verifier_network) {
		static const char *const pass[] = { "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY" };
		for (size_t i = 0; i < ARRAY_LEN(pass); i++)
			if (getenv(pass[i]))
				env_set(&env, pass[i], getenv(pass[i]));
	}
	env_table(&env, t->task.env);
	env_table(&env, t->task.verifier_env);
	struct sandbox_bind extra = { tests, (char *)"/tests", true };
	struct sandbox_run run = { .share_net = t->task.verifier_network, .cwd = t->task.workdir,
				   .extra = &extra, .nextra = t->mode == SANDBOX_BWRAP };
	char *inner[] = { (char *)"bash", (char *)"/tests/test.sh", NULL };
	struct strlist cmd = STRLIST_INIT;
	sandbox_command(&t->sb, &run, inner, &cmd);
	char **argv = env_array(&cmd);
	char **envp = env_array(&env);
	char *out = path_join(vdir, "test-stdout.txt");
	int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct proc_spec ps = { .argv = argv, .envp = envp, .cwd = t->mode == SANDBOX_NONE ? t->task.workdir : NULL,
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
		pyjson_add_float(t->verifier_timeout_info, "elapsed_sec", round1(pr.seconds));
		cJSON_AddStringToObject(t->verifier_timeout_info, "task_name", t->task.name);
	} else if (r == 0) {
		read_reward(t, pr.exit_code);
	}
	free(out);
	free(argv);
	free(envp);
	strlist_free(&cmd);
	strlist_free(&env);
	free(tests);
	free(vdir);
	return r;
}

static cJSON *trajectory_summary(const struct trial *t, bool partial, const char *source)
{
	cJSON *s = cJSON_CreateObject();
	int steps = 0, tools = 0, users = 0, msgs = 0, thoughts = 0, other = 0;
	cJSON *types = cJSON_CreateObject(), *statuses = cJSON_CreateObject();
	for (cJSON *l = t->acp.traj.lines ? t->acp.traj.lines->child : NULL; l; l = l->next) {
		const char *ty = json_str(l, "type");
		steps++;
		if (!strcmp(ty, "tool_call")) {
			tools++;
			const char *st = json_str(l, "status");
			json_set_num(statuses, st, json_num(statuses, st, 0) + 1);
		} else if (!strcmp(ty, "user_message")) {
			users++;
		} else if (!strcmp(ty, "agent_message")) {
			msgs++;
		} else if (!strcmp(ty, "agent_thought")) {
			thoughts++;
		} else {
			other++;
		}
		json_set_num(types, ty, json_num(types, ty, 0) + 1);
	}
	cJSON_AddNumberToObject(s, "steps", steps);
	cJSON_AddNumberToObject(s, "tool_call_steps", tools);
	cJSON_AddNumberToObject(s, "user_message_steps", users);
	cJSON_AddNumberToObject(s, "agent_message_steps", msgs);
	cJSON_AddNumberToObject(s, "agent_thought_steps", thoughts);
	cJSON_AddNumberToObject(s, "other_steps", other);
	cJSON_AddItemToObject(s, "event_type_counts", types);
	cJSON_AddItemToObject(s, "tool_call_status_counts", statuses);
	cJSON_AddBoolToObject(s, "partial_trajectory", partial);
	json_set_str(s, "trajectory_source", source);
	return s;
}

static cJSON *timing(const struct trial *t)
{
	cJSON *o = cJSON_CreateObject();
	pyjson_add_float(o, "environment_setup", round1(t->t_env));
	if (t->ran_agent) {
		pyjson_add_float(o, "agent_setup", round1(t->acp.setup_sec));
		pyjson_add_float(o, "agent_execution", round1(t->acp.exec_sec));
	}
	if (t->t_verifier > 0)
		pyjson_add_float(o, "verifier", round1(t->t_verifier));
	pyjson_add_float(o, "total", round1(now_mono() - t->t_start));
	return o;
}

static int write_result(struct trial *t, struct err *e)
{
	const struct acp_result *a = &t->acp;
	int ntools = acp_traj_tool_calls(&a->traj), nskills = acp_traj_skill_calls(&a->traj);
	bool has_lines = a->traj.lines && a->traj.lines->child;
	bool partial = t->ran_agent && has_lines && !a->prompt_answered;
	const char *source = has_lines ? (partial ? "partial_acp" : "acp") : NULL;
	/* an agent timeout still gets the verifier's word; no reward then counts as 0 */
	if (!t->rewards && !t->verifier_error && t->error_category &&
	    (!strcmp(t->error_category, "timeout") || !strcmp(t->error_category, "idle_timeout")) && t->t_verifier > 0) {
		t->rewards = cJSON_CreateObject();
		pyjson_add_float(t->rewards, "reward", 0.0);
	}
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "task_name", t->task.name);
	cJSON_AddStringToObject(r, "rollout_name", t->rollout);
	cJSON_AddItemToObject(r, "rewards", t->rewards ? cJSON_Duplicate(t->rewards, true) : cJSON_CreateNull());
	cJSON_AddStringToObject(r, "agent", t->h.name);
	cJSON_AddStringToObject(r, "agent_name", a->agent_name ? a->agent_name : "");
	cJSON_AddStringToObject(r, "model", t->o->model);
	add_skill_keys(t, r);
	cJSON_AddNumberToObject(r, "n_tool_calls", ntools);
	cJSON_AddNumberToObject(r, "n_skill_invocations", nskills);
	cJSON_AddNumberToObject(r, "n_prompts", a->handshake_done ? 1 : 0);
	const char *usrc = a->usage_known ? "agent_native_acp" : "unavailable";
	cJSON *ar = cJSON_AddObjectToObject(r, "agent_result");
	cJSON_AddNumberToObject(ar, "n_tool_calls", ntools);
	cJSON_AddNumberToObject(ar, "n_skill_invocations", nskills);
	cJSON_AddNumberToObject(ar, "n_prompts", a->handshake_done ? 1 : 0);
	cJSON_AddNumberToObject(ar, "n_input_tokens", a->in_tokens);
	cJSON_AddNumberToObject(ar, "n_output_tokens", a->out_tokens);
	cJSON_AddNumberToObject(ar, "n_cache_read_tokens", a->cache_read_tokens);
	cJSON_AddNumberToObject(ar, "n_cache_creation_tokens", a->cache_write_tokens);
	cJSON_AddNumberToObject(ar, "total_tokens", a->total_tokens);
	cJSON_AddNullToObject(ar, "cost_usd");
	cJSON_AddStringToObject(ar, "usage_source", usrc);
	cJSON_AddNullToObject(ar, "price_source");
	cJSON *fm = cJSON_AddObjectToObject(r, "final_metrics");
	cJSON_AddNumberToObject(fm, "total_prompt_tokens", a->in_tokens);
	cJSON_AddNumberToObject(fm, "total_completion_tokens", a->out_tokens);
	cJSON_AddNumberToObject(fm, "total_cached_tokens", a->cache_read_tokens);
	cJSON_AddNullToObject(fm, "total_cost_usd");
	cJSON_AddItemToObject(r, "trajectory_summary", trajectory_summary(t, partial, source));
	cJSON *ut = cJSON_AddObjectToObject(r, "usage_tracking");
	cJSON_AddStringToObject(ut, "requested", "auto");
	cJSON_AddStringToObject(ut, "status", a->usage_known ? "enabled" : "unavailable");
	cJSON_AddStringToObject(ut, "environment", "local");
	cJSON_AddStringToObject(ut, "endpoint_kind", a->usage_known ? "agent_native" : "none");
	cJSON_AddStringToObject(ut, "usage_source", usrc);
	json_set_str(r, "error", t->error);
	json_set_str(r, "error_category", t->error_category);
	json_set_str(r, "verifier_error", t->verifier_error);
	json_set_str(r, "verifier_error_category", t->verifier_category);
	cJSON_AddNullToObject(r, "export_error");
	cJSON *idle = cJSON_CreateNull(), *timeout = cJSON_CreateNull();
	if (t->ran_agent && a->status == ACP_IDLE) {
		cJSON_Delete(idle);
		idle = cJSON_CreateObject();
		cJSON_AddStringToObject(idle, "reason", "idle_timeout");
		pyjson_add_float(idle, "idle_timeout_sec", t->o->idle_timeout);
		pyjson_add_float(idle, "idle_duration_sec", round1(a->idle_sec));
		pyjson_add_float(idle, "wall_clock_elapsed_sec", round1(a->exec_sec));
		cJSON_AddNumberToObject(idle, "n_tool_calls", ntools);
	}
	if (t->ran_agent && a->status == ACP_TIMEOUT) {
		cJSON_Delete(timeout);
		timeout = cJSON_CreateObject();
		cJSON_AddStringToObject(timeout, "reason", "wall_clock_timeout");
		pyjson_add_float(timeout, "timeout_sec", t->task.agent_timeout);
		cJSON_AddNumberToObject(timeout, "n_tool_calls", ntools);
		cJSON_AddItemToObject(timeout, "pending_tool_call_ids", acp_traj_pending(&a->traj));
		cJSON_AddStringToObject(timeout, "endpoint_kind", a->usage_known ? "agent_native" : "none");
		cJSON_AddStringToObject(timeout, "usage_source", usrc);
	}
	cJSON_AddItemToObject(r, "idle_timeout_info", idle);
	cJSON_AddItemToObject(r, "agent_timeout_info", timeout);
	cJSON_AddItemToObject(r, "sandbox_startup_info", t->sandbox_info ? cJSON_Duplicate(t->sandbox_info, true) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "transport_error_info", t->transport_info ? cJSON_Duplicate(t->transport_info, true) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "verifier_timeout_info",
			      t->verifier_timeout_info ? cJSON_Duplicate(t->verifier_timeout_info, true) : cJSON_CreateNull());
	cJSON_AddNullToObject(r, "api_error_info");
	cJSON_AddNullToObject(r, "suspected_api_error_info");
	cJSON_AddBoolToObject(r, "partial_trajectory", partial);
	json_set_str(r, "trajectory_source", source);
	cJSON_AddStringToObject(r, "started_at", t->started_at);
	char fin[32];
	py_time(now_wall(), fin);
	cJSON_AddStringToObject(r, "finished_at", fin);
	cJSON *tm = timing(t);
	cJSON_AddItemToObject(r, "timing", cJSON_Duplicate(tm, true));
	cJSON_AddItemToObject(r, "scenes", scenes(t));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "loop"), "strategy", "single-shot");
	cJSON_AddNullToObject(r, "sandbox_id");

	int rc = 0;
	struct buf b = BUF_INIT;
	acp_traj_text(&a->traj, &b);
	char *p = path_join(t->dir, "trajectory/acp_trajectory.jsonl");
	rc = fs_write_atomic(p, b.data, b.len, 0644, e);
	free(p);
	if (rc == 0 && b.len) {
		buf_addc(&b, '\n');
		p = path_join(t->dir, "agent/acp_trajectory.jsonl");
		rc = fs_write_atomic(p, b.data, b.len, 0644, e);
		free(p);
	}
	buf_free(&b);
	if (rc == 0) {
		cJSON *prompts = cJSON_CreateArray();
		if (a->handshake_done)
			cJSON_AddItemToArray(prompts, cJSON_CreateString(t->task.instruction));
		p = path_join(t->dir, "prompts.json");
		rc = write_py(p, prompts, -1, e);
		free(p);
		cJSON_Delete(prompts);
	}
	if (rc == 0 && t->rewards) {
		char ts[32];
		iso_time(now_wall(), ts);
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "ts", ts);
		cJSON_AddStringToObject(ev, "type", "terminal");
		cJSON_AddStringToObject(ev, "source", "verifier");
		cJSON_AddItemToObject(ev, "value", cJSON_Duplicate(json_get(t->rewards, "reward"), true));
		cJSON_AddStringToObject(ev, "tag", "reward");
		cJSON_AddNullToObject(ev, "step_index");
		cJSON_AddStringToObject(ev, "space", "output");
		cJSON_AddStringToObject(ev, "granularity", "terminal");
		cJSON_AddObjectToObject(ev, "meta");
		struct buf lb = BUF_INIT;
		pyjson_print(ev, -1, &lb);
		buf_addc(&lb, '\n');
		p = path_join(t->dir, "rewards.jsonl");
		rc = fs_write_atomic(p, lb.data, lb.len, 0644, e);
		free(p);
		buf_free(&lb);
		cJSON_Delete(ev);
	}
	if (rc == 0) {
		p = path_join(t->dir, "timing.json");
		rc = write_py(p, tm, 2, e);
		free(p);
	}
	if (rc == 0) {
		p = path_join(t->dir, "result.json");
		rc = write_py(p, r, 2, e);
		free(p);
	}
	cJSON_Delete(tm);
	cJSON_Delete(r);
	return rc;
}

static const char *bucket(const cJSON *res)
{
	cJSON *rw = json_get(json_get(res, "rewards"), "reward");
	if (json_str(res, "verifier_error"))
		return "verifier_errored";
	if (cJSON_IsNumber(rw))
		return rw->valuedouble == 1.0 ? "passed" : "failed";
	return "errored";
}

static int write_summary(struct trial *t, struct err *e)
{
	struct fs_tree tree = { 0 };
	if (fs_list_tree(t->job_dir, &tree, e) < 0)
		return -1;
	/* the newest result per task, as bench counts */
	cJSON *best = cJSON_CreateObject(), *mtimes = cJSON_CreateObject();
	for (size_t i = 0; i < tree.n; i++) {
		const char *p = tree.v[i].path;
		const char *slash = strchr(p, '/');
		if (!slash || strcmp(slash, "/result.json"))
			continue;
		char *f = path_join(t->job_dir, p);
		struct stat st;
		cJSON *res = stat(f, &st) == 0 ? json_read_file(f, e) : NULL;
		const char *task = json_str(res, "task_name");
		double mt = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
		if (task && (!json_get(mtimes, task) || json_num(mtimes, task, 0) <= mt)) {
			json_set(best, task, res);
			json_set_num(mtimes, task, mt);
			res = NULL;
		}
		cJSON_Delete(res);
		free(f);
	}
	fs_tree_free(&tree);
	int total = 0, passed = 0, failed = 0, errored = 0, verrored = 0, idle = 0, skills = 0, tools = 0, maxtools = 0;
	double rsum = 0, rn = 0, tokens_in = 0, tokens_out = 0, tokens = 0, secs = 0;
	cJSON *cats = cJSON_CreateObject(), *vcats = cJSON_CreateObject();
	for (cJSON *res = best->child; res; res = res->next) {
		total++;
		const char *b = bucket(res);
		passed += !strcmp(b, "passed");
		failed += !strcmp(b, "failed");
		errored += !strcmp(b, "errored");
		verrored += !strcmp(b, "verifier_errored");
		cJSON *rw = json_get(json_get(res, "rewards"), "reward");
		if (cJSON_IsNumber(rw)) {
			rsum += rw->valuedouble;
			rn++;
		}
		const char *cat = json_str(res, "error_category"), *vcat = json_str(res, "verifier_error_category");
		if (cat)
			json_set_num(cats, cat, json_num(cats, cat, 0) + 1);
		if (vcat)
			json_set_num(vcats, vcat, json_num(vcats, vcat, 0) + 1);
		idle += cat && !strcmp(cat, "idle_timeout");
		int nt = (int)json_num(res, "n_tool_calls", 0);
		tools += nt;
		maxtools = nt > maxtools ? nt : maxtools;
		skills += (int)json_num(res, "n_skill_invocations", 0);
		if (cJSON_IsNumber(rw) && !json_str(res, "error") && !json_str(res, "verifier_error")) {
			cJSON *ar = json_get(res, "agent_result");
			tokens_in += json_num(ar, "n_input_tokens", 0);
			tokens_out += json_num(ar, "n_output_tokens", 0);
			tokens += json_num(ar, "total_tokens", 0);
		}
		secs += json_num(json_get(res, "timing"), "total", 0);
	}
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "job_name", t->job_name);
	cJSON_AddStringToObject(s, "agent", t->h.name);
	cJSON_AddStringToObject(s, "model", t->o->model);
	cJSON_AddStringToObject(s, "environment", "local");
	cJSON_AddNumberToObject(s, "concurrency", 1);
	if (t->o->idle_timeout > 0)
		cJSON_AddNumberToObject(s, "agent_idle_timeout_sec", t->o->idle_timeout);
	else
		cJSON_AddNullToObject(s, "agent_idle_timeout_sec");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "usage_tracking"), "requested", "auto");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "loop"), "strategy", "single-shot");
	cJSON_AddNumberToObject(s, "total", total);
	cJSON_AddNumberToObject(s, "passed", passed);
	cJSON_AddNumberToObject(s, "failed", failed);
	cJSON_AddNumberToObject(s, "errored", errored);
	cJSON_AddNumberToObject(s, "pass", passed);
	cJSON_AddNumberToObject(s, "fail", failed);
	cJSON_AddNumberToObject(s, "error", errored);
	cJSON_AddNumberToObject(s, "verifier_errored", verrored);
	cJSON_AddNumberToObject(s, "idle_timeout", idle);
	if (cats->child)
		cJSON_AddItemToObject(s, "error_categories", cats);
	else {
		cJSON_Delete(cats);
		cJSON_AddNullToObject(s, "error_categories");
	}
	if (vcats->child)
		cJSON_AddItemToObject(s, "verifier_error_categories", vcats);
	else {
		cJSON_Delete(vcats);
		cJSON_AddNullToObject(s, "verifier_error_categories");
	}
	char pct[32];
	double ratio = total ? (double)passed / total : 0;
	snprintf(pct, sizeof pct, "%.1f%%", ratio * 100);
	cJSON_AddStringToObject(s, "score", pct);
	pyjson_add_float(s, "score_ratio", ratio);
	int scored = total - errored - verrored;
	double ratio_ex = scored > 0 ? (double)passed / scored : 0;
	snprintf(pct, sizeof pct, "%.1f%%", ratio_ex * 100);
	cJSON_AddStringToObject(s, "score_excl_errors", pct);
	pyjson_add_float(s, "score_excl_errors_ratio", ratio_ex);
	if (rn > 0)
		pyjson_add_float(s, "mean_reward", rsum / rn);
	else
		cJSON_AddNullToObject(s, "mean_reward");
	pyjson_add_float(s, "elapsed_sec", round1(secs));
	cJSON_AddNumberToObject(s, "total_skill_invocations", skills);
	pyjson_add_float(s, "avg_skill_invocations", total ? (double)skills / total : 0);
	cJSON_AddNumberToObject(s, "total_input_tokens", tokens_in);
	cJSON_AddNumberToObject(s, "total_output_tokens", tokens_out);
	cJSON_AddNumberToObject(s, "total_tokens", tokens);
	cJSON_AddNullToObject(s, "total_cost_usd");
	cJSON_AddNumberToObject(s, "total_tool_calls", tools);
	pyjson_add_float(s, "avg_tool_calls_per_task", total ? (double)tools / total : 0);
	cJSON_AddNumberToObject(s, "max_tool_calls_per_task", maxtools);
	pyjson_add_float(s, "total_time_sec", round1(secs));
	cJSON_Delete(best);
	cJSON_Delete(mtimes);
	char *p = path_join(t->job_dir, "summary.json");
	int rc = write_py(p, s, 2, e);
	free(p);
	if (rc == 0) {
		p = path_join(t->jobs, "summary.json");
		rc = write_py(p, s, 2, e);
		free(p);
	}
	cJSON_Delete(s);
	return rc;
}

static void trial_free(struct trial *t)
{
	task_free(&t->task);
	launch_free(&t->h);
	route_free(&t->route);
	free(t->bwrap);
	sandbox_free(&t->sb);
	free(t->jobs);
	free(t->job_dir);
	free(t->job_name);
	free(t->rollout);
	free(t->dir);
	free(t->scratch);
	free(t->agent_log);
	free(t->skill_source);
	free(t->effective_skills);
	free(t->program);
	strlist_free(&t->agent_argv);
	for (size_t i = 0; i < t->agent_env.n; i++)
		memset(t->agent_env.v[i], 0, strlen(t->agent_env.v[i])); /* it holds the key */
	strlist_free(&t->agent_env);
	relay_free(t->relay);
	acp_result_free(&t->acp);
	free(t->error);
	free(t->error_category);
	cJSON_Delete(t->sandbox_info);
	cJSON_Delete(t->transport_info);
	cJSON_Delete(t->rewards);
	free(t->verifier_error);
	free(t->verifier_category);
	cJSON_Delete(t->verifier_timeout_info);
}

static const char none_warning[] =
	"SANDBOX=none: running the agent and the verifier UNSANDBOXED on this machine: they can read your "
	"files and environment, write anywhere you can, and the task's files go to their real paths "
	"(/root, /logs, /tests, /skills); use only in a disposable container or VM";

static int choose_sandbox(struct trial *t, struct err *e)
{
	const char *mode = getenv("SANDBOX");
	if (mode && !strcmp(mode, "none")) {
		if (geteuid() != 0)
			return err_set(e, ERR_WORK, "SANDBOX=none needs root: the task's paths (/root, /logs, /tests) "
				       "are created on this host; use bubblewrap instead (apt-get install -y bubblewrap)");
		t->mode = SANDBOX_NONE;
		warnf("%s", none_warning);
		return 0;
	}
	if (mode && *mode && strcmp(mode, "bwrap"))
		return err_set(e, ERR_INPUT, "SANDBOX='%s': use bwrap (the default) or none", mode);
	t->mode = SANDBOX_BWRAP;
	t->bwrap = sandbox_find_bwrap();
	if (!t->bwrap)
		return err_set(e, ERR_WORK, "bubblewrap (bwrap) is not installed: install it with "
			       "apt-get install -y bubblewrap, or set SANDBOX=none to run agents unsandboxed "
			       "(they could then read your files and keys and write anywhere you can)");
	return 0;
}

/* Returns the exit status. */
static int run_trial(const struct opts *o, struct err *e)
{
	struct trial t = { .o = o };
	int status = 2;
	int lockfd = -1;
	t.t_start = now_mono();
	py_time(now_wall(), t.started_at);
	if (task_load(o->tasks_dir, o->override, &t.task, e) < 0 || launch_load(o->agent, &t.h, e) < 0 ||
	    route_resolve(o->model, &t.route, e) < 0)
		goto out;
	if (choose_sandbox(&t, e) < 0) {
		status = e->code;
		goto out;
	}
	if (o->skills_dir && strcmp(o->skill_mode, "with-skill")) {
		err_set(e, ERR_INPUT, "--skills-dir is only valid with --skill-mode with-skill");
		goto out;
	}
	status = 1;
	if (t.mode == SANDBOX_NONE) {
		/* one unsandboxed trial at a time: they share the host's paths */
		lockfd = open("/tmp/skillc-local-unsandboxed.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0) {
			err_set(e, ERR_WORK, "cannot lock /tmp/skillc-local-unsandboxed.lock:");
			goto out;
		}
	}
	if (pick_job(&t, e) < 0)
		goto out;
	char *done = completed_rollout(&t);
	if (done) {
		if (!o->quiet)
			fprintf(stderr, "%s: %s already has a result in %s (bench resumes, skipping it)\n",
				log_prog(), t.task.name, t.job_dir);
		free(done);
		status = 0;
		goto out;
	}
	if (make_rollout(&t, e) < 0)
		goto out;
	char *hidden = path_join(t.jobs, ".skillc-local");
	if (fs_mkdirs(hidden, e) < 0) {
		free(hidden);
		goto out;
	}
	t.scratch = path_join(hidden, t.rollout);
	free(hidden);
	t.share_net = t.task.agent_network || t.mode == SANDBOX_NONE;
	t.skill_source = xstrdup(strcmp(o->skill_mode, "with-skill") ? "none" : o->skills_dir ? "custom_runtime" : "task_bundled");
	preflight(&t);
	double t0 = now_mono();
	if (!t.error && setup_sandbox(&t, e) < 0) {
		if (e->code == ERR_INPUT) {
			/* the task (or --skills-dir) is at fault: no trial, nothing left */
			struct err ce;
			fs_remove_tree(t.dir, &ce);
			status = 2;
			goto out_clean;
		}
		sandbox_failure(&t, e->msg);
	}
	if (!t.error && resolve_program(&t, e) < 0)
		sandbox_failure(&t, e->msg);
	if (!t.error && t.mode == SANDBOX_BWRAP && setup_init(&t, e) < 0)
		sandbox_failure(&t, e->msg);
	if (!t.error && !t.share_net && setup_relay(&t, e) < 0)
		sandbox_failure(&t, e->msg);
	if (t.mode == SANDBOX_BWRAP)
		strlist_push(&t.agent_argv, "--");
	if (!t.error && setup_env(&t, e) < 0)
		goto out_clean;
	t.t_env = now_mono() - t0;
	if (write_config(&t, e) < 0)
		goto out_clean;
	if (!t.error)
		run_agent(&t);
	if (t.ran_agent && t.acp.status == ACP_INTERRUPTED) {
		err_set(e, ERR_WORK, "interrupted by signal %d; the trial in %s is incomplete", t.acp.interrupted, t.dir);
		status = 128 + t.acp.interrupted;
		goto out_clean;
	}
	bool verify = !t.error || !strcmp(t.error_category, "timeout") || !strcmp(t.error_category, "idle_timeout");
	if (verify && run_verifier(&t, e) < 0) {
		status = 1;
		goto out_clean;
	}
	if (write_result(&t, e) < 0 || (t.route.key && redact_tree(t.dir, t.route.key, e) < 0) ||
	    write_summary(&t, e) < 0)
		goto out_clean;
	bool scored = t.rewards && !t.verifier_error;
	status = scored ? 0 : 1;
	if (!o->quiet) {
		double rw = scored ? num_of(json_get(t.rewards, "reward")) : 0;
		if (scored)
			fprintf(stderr, "%s: %s %s, reward %g%s%s: %s\n", log_prog(), t.task.name,
				rw == 1.0 ? "passed" : "failed", rw, t.error ? ", " : "", t.error ? t.error_category : "", t.dir);
		else
			fprintf(stderr, "%s: %s errored (%s: %s): %s\n", log_prog(), t.task.name,
				t.error ? t.error_category : t.verifier_category, t.error ? t.error : t.verifier_error, t.dir);
	}
	e->msg[0] = '\0';
out_clean:
	if (t.scratch && !getenv("KEEP_SANDBOX")) {
		struct err ce;
		if (sandbox_cleanup(&t.sb, &ce) < 0)
			warnf("%s", ce.msg);
		char *parent = path_join(t.jobs ? t.jobs : o->jobs_dir, ".skillc-local");
		rmdir(parent); /* only when no other trial uses it */
		free(parent);
	}
out:
	if (lockfd >= 0)
		close(lockfd);
	trial_free(&t);
	return status;
}

/* ---- options ---- */

static double parse_seconds(const char *s, const char *flag)
{
	if (!strcmp(s, "none") || !strcmp(s, "0"))
		return 0;
	char *end;
	double d = strtod(s, &end);
	if (*end || d < 0)
		die(2, "%s '%s': give seconds or none", flag, s);
	return d;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	struct err e = { 0 };
	o->skill_mode = "no-skill";
	o->idle_timeout = 600;
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		char *eq = NULL;
		if (!strncmp(a, "--", 2) && (eq = strchr(a, '='))) {
			/* --flag=value */
			static char name[64];
			snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
			a = name;
			v = eq + 1;
		}
		bool takes = strcmp(a, "--quiet") != 0;
		if (takes && !v) {
			if (i + 1 >= argc)
				die(2, "%s needs a value (see --help)", a);
			v = argv[++i];
		}
		if (!strcmp(a, "--tasks-dir"))
			o->tasks_dir = v;
		else if (!strcmp(a, "--agent"))
			o->agent = v;
		else if (!strcmp(a, "--model"))
			o->model = v;
		else if (!strcmp(a, "--jobs-dir"))
			o->jobs_dir = v;
		else if (!strcmp(a, "--skills-dir"))
			o->skills_dir = v;
		else if (!strcmp(a, "--skill-mode")) {
			if (strcmp(v, "no-skill") && strcmp(v, "with-skill"))
				die(2, "--skill-mode '%s': use no-skill or with-skill", v);
			o->skill_mode = v;
		} else if (!strcmp(a, "--sandbox")) {
			if (strcmp(v, "local"))
				die(2, "--sandbox '%s': skillc-local runs only --sandbox local (use bench for %s)", v, v);
		} else if (!strcmp(a, "--config-override")) {
			if (task_parse_override(v, &o->override, &e) < 0)
				die_err(&e);
		} else if (!strcmp(a, "--agent-env")) {
			const char *q = strchr(v, '=');
			if (!q || q == v)
				die(2, "--agent-env '%s': give KEY=VALUE", v);
			strlist_push(&o->agent_env, v);
		} else if (!strcmp(a, "--agent-idle-timeout")) {
			o->idle_timeout = parse_seconds(v, a);
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = true;
		} else if (!strcmp(a, "--concurrency")) {
			/* one trial per call: accepted for bench compatibility */
		} else {
			die(2, "unknown option '%s' (see --help)", a);
		}
	}
	if (!o->tasks_dir || !o->agent || !o->model || !o->jobs_dir)
		die(2, "--tasks-dir, --agent, --model and --jobs-dir are required (see --help)");
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	if (argc >= 2 && !strcmp(argv[1], "sandbox-init"))
		return supervisor_main(argc, argv);
	std_options(argc, argv, usage, VERSION);
	if (argc < 3 || strcmp(argv[1], "eval") || strcmp(argv[2], "run")) {
		fputs(usage, stderr);
		return 2;
	}
	struct opts o = { 0 };
	parse_opts(argc, argv, &o);
	struct err e = { 0 };
	int status = run_trial(&o, &e);
	if (e.msg[0])
		warnf("%s", e.msg);
	cJSON_Delete(o.override);
	strlist_free(&o.agent_env);
	strlist_free(&o.override_specs);
	return status;
}
