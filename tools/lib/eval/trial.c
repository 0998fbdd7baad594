#include "eval/trial.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "base/fs.h"
#include "base/json.h"

static const char *const outcome_names[TRIAL_OUTCOMES] = {
	"passed", "failed", "timeout", "infra_error", "verifier_error",
};

const char *trial_outcome_name(enum trial_outcome o)
{
	return (unsigned)o < TRIAL_OUTCOMES ? outcome_names[o] : "unknown";
}

int trial_outcome_from(const char *name)
{
	for (int i = 0; name && i < TRIAL_OUTCOMES; i++)
		if (!strcmp(outcome_names[i], name))
			return i;
	return -1;
}

/* ---- small helpers ---- */

long trial_jsonl_each(const char *path, void (*fn)(const cJSON *v, long line, void *arg), void *arg,
		      long *bad_line)
{
	*bad_line = 0;
	struct buf b = BUF_INIT;
	struct err e;
	if (fs_read(path, 0, &b, &e) < 0) {
		buf_free(&b);
		return -1;
	}
	long n = 0, lineno = 0;
	char *p = b.data, *end = b.data + b.len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		size_t i = 0;
		while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
			i++;
		if (i < len) {
			cJSON *v = cJSON_ParseWithLength(p, len);
			if (!v) {
				if (!*bad_line)
					*bad_line = lineno;
			} else {
				if (fn)
					fn(v, lineno, arg);
				cJSON_Delete(v);
				n++;
			}
		}
		p += len + (nl ? 1 : 0);
	}
	buf_free(&b);
	return n;
}

/* Parses "YYYY-MM-DD[ T]HH:MM:SS[.frac]" (any zone suffix ignored). */
static double parse_time(const char *s)
{
	if (!s)
		return NAN;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int y, mo, d, h, mi;
	double sec;
	char sep;
	if (sscanf(s, "%d-%d-%d%c%d:%d:%lf", &y, &mo, &d, &sep, &h, &mi, &sec) != 7 || (sep != ' ' && sep != 'T'))
		return NAN;
	/* out of range is no time (and 6e34 seconds would overflow the int) */
	if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 24 || mi < 0 || mi > 59 ||
	    !(sec >= 0 && sec < 61))
		return NAN;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	double whole = floor(sec);
	tm.tm_sec = (int)whole;
	return (double)timegm(&tm) + (sec - whole);
}

double trial_seconds_between(const char *from, const char *to)
{
	return parse_time(to) - parse_time(from);
}

static const cJSON *num_or_null(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v : NULL;
}

static void set_num_or_null(cJSON *obj, const char *key, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		json_set_num(obj, key, v->valuedouble);
	else
		json_set(obj, key, cJSON_CreateNull());
}

static void set_str_or_null(cJSON *obj, const char *key, const char *s)
{
	json_set_str(obj, key, s);
}

static char *rel_to(const char *base, const char *path)
{
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		n--;
	if (!strncmp(path, base, n) && path[n] == '/')
		return xstrdup(path + n + 1);
	if (!strncmp(path, base, n) && path[n] == '\0')
		return xstrdup(".");
	return xstrdup(path);
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? xstrndup(path, (size_t)(s - path)) : xstrdup(".");
}

/* ---- finding the runner's result.json files ---- */

enum cand_kind { C_BENCHFLOW, C_HARBOR, C_FLAT, C_HARBOR_JOB, C_UNKNOWN };

struct cand {
	char *dir;       /* the folder holding result.json */
	cJSON *res;
	enum cand_kind kind;
	struct timespec mtime;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static void cands_free(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].dir);
		cJSON_Delete(c->v[i].res);
	}
	free(c->v);
}

static enum cand_kind classify(const char *dir, const cJSON *res)
{
	bool rewards = json_get(res, "rewards") != NULL, verifier = json_get(res, "verifier_result") != NULL;
	if (!cJSON_IsObject(res))
		return C_UNKNOWN;
	if (json_get(res, "n_total_trials") || json_get(res, "stats"))
		return C_HARBOR_JOB;
	char *rc = path_join(dir, "run_config.json");
	bool run_config = fs_exists(rc);
	free(rc);
	if (!rewards && !verifier && (json_get(res, "status") || run_config))
		return C_FLAT;
	if (verifier || json_get(res, "trial_name") || json_get(res, "agent_info"))
		return C_HARBOR;
	if (rewards || json_get(res, "rollout_name"))
		return C_BENCHFLOW;
	return C_UNKNOWN;
}

static int add_cand(struct cands *c, const char *dir, struct err *e)
{
	char *p = path_join(dir, "result.json");
	struct stat st;
	if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(p);
		return 0;
	}
	struct err pe;
	cJSON *res = json_read_file(p, &pe);
	if (!res || !cJSON_IsObject(res)) {
		if (res)
			err_set(&pe, ERR_INPUT, "'%s' holds a JSON %s, not the object a runner writes", p,
				cJSON_IsArray(res) ? "array" : "value");
		err_set(e, ERR_INPUT, "%s: the trial is incomplete; see the runner's log and run it again", pe.msg);
		cJSON_Delete(res);
		free(p);
		return -1;
	}
	free(p);
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	c->v[c->n++] = (struct cand){ xstrdup(dir), res, classify(dir, res), st.st_mtim };
	return 0;
}

static int scan_depth(struct cands *c, const char *dir, int depth, struct err *e)
{
	if (add_cand(c, dir, e) < 0)
		return -1;
	if (depth == 0)
		return 0;
	struct strlist names = STRLIST_INIT;
	if (fs_list_names(dir, &names, NULL) < 0)
		return 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		char *sub = path_join(dir, names.v[i]);
		if (fs_is_dir(sub))
			r = scan_depth(c, sub, depth - 1, e);
		free(sub);
	}
	strlist_free(&names);
	return r;
}

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

/* ---- the parse ---- */

struct ctx {
	const struct trial_opts *o;
	const char *base;
	cJSON *t;
	cJSON *problems;
	const struct harness *h;
	struct harness own;
	bool own_loaded;
	struct skill_use use;
	long events, tool_events;
	/* LLM usage summed over exchanges, for results that lack agent_result */
	double llm_in, llm_out, llm_total;
	long llm_usage_lines;
};

static void problem(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct ctx *c, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(c->problems, cJSON_CreateString(b.data));
	buf_free(&b);
}

static void set_file(struct ctx *c, const char *key, const char *path)
{
	cJSON *files = json_get(c->t, "files");
	if (!path) {
		json_set(files, key, cJSON_CreateNull());
		return;
	}
	char *rel = rel_to(c->base, path);
	json_set_str(files, key, rel);
	free(rel);
}

/* Picks the harness whose patterns apply; a missing one is a problem. */
static void find_harness(struct ctx *c, const char *agent)
{
	if (c->o->harness) {
		c->h = c->o->harness;
		return;
	}
	const char *runner = c->o->runner ? c->o->runner : "benchflow";
	char *name = c->o->rules_dir && agent ? harness_for_agent(c->o->rules_dir, runner, agent) : NULL;
	if (!name) {
		problem(c, "no rules/harness/*.json for agent '%s': skill use cannot be checked", agent ? agent : "?");
		return;
	}
	struct err e;
	if (harness_load(&c->own, c->o->rules_dir, name, c->o->skills, &e) < 0)
		problem(c, "%s", e.msg);
	else
		c->h = &c->own;
	c->own_loaded = true;
	free(name);
}

static void on_acp(const cJSON *v, long line, void *arg)
{
	struct ctx *c = arg;
	c->events++;
	const char *type = json_str(v, "type");
	if (type && !strcmp(type, "tool_call"))
		c->tool_events++;
	if (c->h)
		harness_scan_acp(c->h, v, &c->use);
}

static void on_llm(const cJSON *v, long line, void *arg)
{
	struct ctx *c = arg;
	if (c->h)
		harness_scan_llm(c->h, v, &c->use);
	const cJSON *usage = json_get(json_get(json_get(v, "response"), "body"), "usage");
	if (!usage)
		return;
	double in = json_num(usage, "prompt_tokens", json_num(usage, "input_tokens", 0));
	double out = json_num(usage, "completion_tokens", json_num(usage, "output_tokens", 0));
	double tot = json_num(usage, "total_tokens", in + out);
	c->llm_in += in;
	c->llm_out += out;
	c->llm_total += tot;
	c->llm_usage_lines++;
}

/* Reads the ACP trajectory at path; empty is fine only when the agent never ran. */
/* Reads a JSONL trajectory through `each`; says so when it cannot be read
 * or a line is not JSON. Returns the number of lines, -1 on a problem. */
static long read_jsonl(struct ctx *c, const char *path, void (*each)(const cJSON *, long, void *))
{
	long bad;
	long n = trial_jsonl_each(path, each, c, &bad);
	char *rel = rel_to(c->base, path);
	if (n < 0)
		problem(c, "cannot read %s", rel);
	else if (bad)
		problem(c, "%s line %ld is not JSON (truncated trajectory)", rel, bad);
	free(rel);
	return n < 0 || bad ? -1 : n;
}

static void read_acp(struct ctx *c, const char *path, bool agent_ran)
{
	struct stat st;
	char *rel = rel_to(c->base, path);
	if (stat(path, &st) < 0) {
		problem(c, "no ACP trajectory: %s is missing", rel);
		set_file(c, "acp_trajectory", NULL);
	} else {
		set_file(c, "acp_trajectory", path);
		if (read_jsonl(c, path, on_acp) == 0 && agent_ran)
			problem(c, "%s is empty although the agent ran", rel);
	}
	free(rel);
}

static void read_llm(struct ctx *c, const char *path)
{
	if (!fs_exists(path)) {
		set_file(c, "llm_trajectory", NULL);
		return;
	}
	set_file(c, "llm_trajectory", path);
	read_jsonl(c, path, on_llm);
}

static void names_array(cJSON *obj, const char *key, const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; l && i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
	json_set(obj, key, a);
}

static void set_skill(struct ctx *c, const cJSON *runner_count)
{
	cJSON *s = cJSON_CreateObject();
	names_array(s, "injected", c->o->skills);
	json_set_bool(s, "invoked", c->use.invoked);
	json_set_bool(s, "read", c->use.read);
	if (c->use.catalog_seen)
		json_set_bool(s, "catalog", c->use.catalog);
	else
		json_set(s, "catalog", cJSON_CreateNull());
	json_set_num(s, "invocations", (double)(c->use.acp_invocations ? c->use.acp_invocations : c->use.llm_invocations));
	set_num_or_null(s, "runner_invocations", runner_count);
	names_array(s, "invoked_names", &c->use.invoked_names);
	names_array(s, "read_names", &c->use.read_names);
	names_array(s, "catalog_names", &c->use.catalog_names);
	json_set_bool(s, "checked", c->h != NULL);
	json_set(c->t, "skill", s);
}

static bool is_timeout_category(const char *cat, const char *error)
{
	if (cat)
		return !strcmp(cat, "timeout") || !strcmp(cat, "idle_timeout");
	/* older results have no category: go by BenchFlow's messages */
	return error && (strcasestr(error, "timed out") || strcasestr(error, "wall-clock") ||
			 strcasestr(error, "idle for"));
}

static enum trial_outcome outcome_of(const cJSON *reward, const char *cat, const char *error, bool verifier_error)
{
	if (reward)
		return is_timeout_category(cat, error) ? TRIAL_TIMEOUT
		       : fabs(reward->valuedouble - 1.0) < 1e-9 ? TRIAL_PASSED : TRIAL_FAILED;
	return verifier_error ? TRIAL_VERIFIER_ERROR : TRIAL_INFRA_ERROR;
}

static void set_outcome(struct ctx *c, const cJSON *reward, enum trial_outcome o)
{
	json_set_str(c->t, "outcome", trial_outcome_name(o));
	/* BenchFlow's score rule: a trial passes when its reward is exactly 1.0 */
	json_set_bool(c->t, "passed", reward && fabs(reward->valuedouble - 1.0) < 1e-9);
	set_num_or_null(c->t, "reward", reward);
}

/* verifier/reward.json (its "reward" key) or verifier/reward.txt. */
static void read_verifier_reward(struct ctx *c, const char *rollout, const cJSON *reward)
{
	char *pj = xasprintf("%s/verifier/reward.json", rollout), *pt = xasprintf("%s/verifier/reward.txt", rollout);
	double v = NAN;
	struct err e;
	if (fs_exists(pj)) {
		cJSON *j = json_read_file(pj, &e);
		if (j)
			v = json_num(j, "reward", NAN);
		cJSON_Delete(j);
	} else if (fs_exists(pt)) {
		struct buf b = BUF_INIT;
		if (fs_read(pt, 4096, &b, &e) == 0) {
			char *endp;
			double x = strtod(b.data, &endp);
			if (endp != b.data)
				v = x;
		}
		buf_free(&b);
	}
	if (isnan(v)) {
		json_set(c->t, "verifier_reward", cJSON_CreateNull());
	} else {
		json_set_num(c->t, "verifier_reward", v);
		if (reward && fabs(reward->valuedouble - v) > 1e-9)
			problem(c, "verifier reward %g disagrees with result.json reward %g", v, reward->valuedouble);
	}
	free(pj);
	free(pt);
}

static void set_tokens_from_llm(struct ctx *c)
{
	if (!c->llm_usage_lines) {
		json_set(c->t, "tokens", cJSON_CreateNull());
		return;
	}
	cJSON *tk = cJSON_CreateObject();
	json_set_num(tk, "input", c->llm_in);
	json_set_num(tk, "output", c->llm_out);
	json_set(tk, "cache_read", cJSON_CreateNull());
	json_set_num(tk, "total", c->llm_total);
	json_set_str(tk, "source", "llm_trajectory");
	json_set(c->t, "tokens", tk);
}

/* Whether the trial ran in the task's own environment: the local
 * runner's config.json says so ("reproduced" / "not_reproduced" and the
 * sandbox); null for other runners. */
static void set_environment(struct ctx *c, const char *rollout)
{
	char *p = path_join(rollout, "config.json");
	struct err e;
	cJSON *cfg = fs_exists(p) ? json_read_file(p, &e) : NULL;
	const cJSON *local = json_get(cfg, "local");
	const char *env = json_str(local, "environment"), *sandbox = json_str(local, "sandbox");
	if (env && sandbox) {
		cJSON *o = cJSON_CreateObject();
		json_set_str(o, "sandbox", sandbox);
		json_set_bool(o, "reproduced", !strcmp(env, "reproduced"));
		json_set(o, "not_reproduced", cJSON_Duplicate(json_get(local, "dockerfile_not_reproduced"), true));
		json_set_str(o, "image", json_str(local, "image"));
		json_set(c->t, "environment", o);
	} else {
		json_set(c->t, "environment", cJSON_CreateNull());
	}
	cJSON_Delete(cfg);
	free(p);
}

/* A key of result.json and the JSON type it must have when present
 * (null is always allowed: "not known"). */
struct typed_key {
	const char *path; /* "rewards.reward": one level of nesting */
	int type;         /* cJSON_String, cJSON_Number, cJSON_Object */
};

static const char *type_name(int t)
{
	return t == cJSON_String ? "a string" : t == cJSON_Number ? "a number" : t == cJSON_Object ? "an object"
	       : t == cJSON_Array ? "an array" : t == cJSON_True || t == cJSON_False ? "a boolean" : "a value";
}

/* A key of the wrong type is a problem that names the file and the key:
 * guessing from it would misreport the trial. */
static void check_types(struct ctx *c, const char *dir, const cJSON *res, const struct typed_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *dot = strchr(keys[i].path, '.');
		char *outer = dot ? xstrndup(keys[i].path, (size_t)(dot - keys[i].path)) : NULL;
		const cJSON *v = dot ? json_get(json_get(res, outer), dot + 1) : json_get(res, keys[i].path);
		free(outer);
		int t = v ? (v->type & 0xFF) : cJSON_NULL;
		if (t == cJSON_NULL || t == keys[i].type)
			continue;
		char *p = path_join(dir, "result.json"), *rel = rel_to(c->base, p);
		problem(c, "%s: '%s' is %s, not %s: the runner wrote a result this reader does not know; see its log",
			rel, keys[i].path, type_name(t), type_name(keys[i].type));
		free(rel);
		free(p);
	}
}

static const struct typed_key benchflow_keys[] = {
	{ "task_name", cJSON_String }, { "rollout_name", cJSON_String }, { "agent", cJSON_String },
	{ "model", cJSON_String }, { "rewards", cJSON_Object }, { "rewards.reward", cJSON_Number },
	{ "error", cJSON_String }, { "error_category", cJSON_String }, { "verifier_error", cJSON_String },
	{ "agent_result", cJSON_Object }, { "timing", cJSON_Object }, { "started_at", cJSON_String },
	{ "finished_at", cJSON_String }, { "n_tool_calls", cJSON_Number },
};

static const struct typed_key harbor_keys[] = {
	{ "task_name", cJSON_String }, { "trial_name", cJSON_String }, { "agent_info", cJSON_Object },
	{ "verifier_result", cJSON_Object }, { "verifier_result.rewards", cJSON_Object },
	{ "exception_info", cJSON_Object }, { "exception_info.exception_type", cJSON_String },
	{ "exception_info.exception_message", cJSON_String }, { "agent_result", cJSON_Object },
	{ "started_at", cJSON_String }, { "finished_at", cJSON_String },
};

static void parse_benchflow(struct ctx *c, const struct cand *best, long retries, const struct strlist *attempts)
{
	const cJSON *res = best->res;
	const char *rollout = best->dir;
	check_types(c, rollout, res, benchflow_keys, ARRAY_LEN(benchflow_keys));
	bool production = json_get(res, "agent_result") != NULL;
	json_set_str(c->t, "schema", production ? "benchflow" : "benchflow-legacy");
	set_str_or_null(c->t, "task", json_str(res, "task_name"));
	set_str_or_null(c->t, "rollout", json_str(res, "rollout_name") ? json_str(res, "rollout_name") : path_base(rollout));
	const char *agent = json_str(res, "agent");
	set_str_or_null(c->t, "agent", agent);
	set_str_or_null(c->t, "agent_name", json_str(res, "agent_name"));
	set_str_or_null(c->t, "model", json_str(res, "model"));
	set_str_or_null(c->t, "skill_mode", json_str(res, "skill_mode"));

	const cJSON *rewards = json_get(res, "rewards");
	const cJSON *reward = num_or_null(json_get(rewards, "reward"));
	const char *error = json_str(res, "error"), *cat = json_str(res, "error_category");
	const char *verr = json_str(res, "verifier_error");
	enum trial_outcome o = outcome_of(reward, cat, error, verr != NULL);
	set_outcome(c, reward, o);
	set_str_or_null(c->t, "error", error);
	set_str_or_null(c->t, "error_category", cat);
	set_str_or_null(c->t, "verifier_error", verr);
	set_str_or_null(c->t, "verifier_error_category", json_str(res, "verifier_error_category"));
	read_verifier_reward(c, rollout, reward);

	const cJSON *ar = json_get(res, "agent_result");
	set_num_or_null(c->t, "tool_calls", json_get(res, "n_tool_calls") ? json_get(res, "n_tool_calls")
								      : json_get(ar, "n_tool_calls"));
	const cJSON *skill_count = json_get(res, "n_skill_invocations") ? json_get(res, "n_skill_invocations")
								       : json_get(ar, "n_skill_invocations");

	json_set_str(c->t, "started_at", json_str(res, "started_at"));
	json_set_str(c->t, "finished_at", json_str(res, "finished_at"));
	const cJSON *timing = json_get(res, "timing");
	cJSON *timing_file = NULL;
	if (!timing) {
		/* timing.json holds the same dict */
		char *tp = path_join(rollout, "timing.json");
		struct err e;
		timing_file = fs_exists(tp) ? json_read_file(tp, &e) : NULL;
		free(tp);
		timing = timing_file;
	}
	cJSON *du = cJSON_CreateObject();
	static const char *const phases[] = { "environment_setup", "agent_setup", "agent_execution", "verifier", "total" };
	for (size_t i = 0; i < ARRAY_LEN(phases); i++)
		set_num_or_null(du, phases[i], json_get(timing, phases[i]));
	if (!cJSON_IsNumber(json_get(timing, "total"))) {
		double s = trial_seconds_between(json_str(res, "started_at"), json_str(res, "finished_at"));
		if (!isnan(s))
			json_set_num(du, "total", s);
	}
	json_set(c->t, "durations", du);
	cJSON_Delete(timing_file);

	json_set_num(c->t, "retries", (double)retries);
	names_array(c->t, "attempts", attempts);
	set_file(c, "rollout", rollout);
	char *rp = path_join(rollout, "result.json");
	set_file(c, "result", rp);
	free(rp);

	/* the job's summary.json: BenchFlow writes it when the job finished */
	char *job = dir_of(rollout);
	char *sp = path_join(job, "summary.json");
	struct err e;
	cJSON *sum = fs_exists(sp) ? json_read_file(sp, &e) : NULL;
	if (!fs_exists(sp)) {
		char *rel = rel_to(c->base, sp);
		problem(c, "no job summary: %s is missing (the run did not finish)", rel);
		free(rel);
		set_file(c, "summary", NULL);
	} else if (!sum) {
		char *rel = rel_to(c->base, sp);
		problem(c, "%s is not valid JSON (truncated)", rel);
		free(rel);
		set_file(c, "summary", sp);
	} else {
		set_file(c, "summary", sp);
	}
	cJSON_Delete(sum);
	free(sp);
	free(job);

	set_environment(c, rollout);
	find_harness(c, agent);
	bool agent_ran = o != TRIAL_INFRA_ERROR;
	char *acp = xasprintf("%s/trajectory/acp_trajectory.jsonl", rollout);
	char *llm = xasprintf("%s/trajectory/llm_trajectory.jsonl", rollout);
	read_acp(c, acp, agent_ran);
	read_llm(c, llm);
	free(acp);
	free(llm);
	set_skill(c, skill_count);

	const char *usage_src = json_str(ar, "usage_source");
	if (ar && !(usage_src && !strcmp(usage_src, "unavailable"))) {
		cJSON *tk = cJSON_CreateObject();
		double in = json_num(ar, "n_input_tokens", 0), out = json_num(ar, "n_output_tokens", 0);
		/* some providers report only the total (in/out stay 0): prefer it */
		double total = json_num(ar, "total_tokens", 0);
		json_set_num(tk, "input", in);
		json_set_num(tk, "output", out);
		set_num_or_null(tk, "cache_read", json_get(ar, "n_cache_read_tokens"));
		json_set_num(tk, "total", total > 0 ? total : in + out);
		json_set_str(tk, "source", "agent_result");
		json_set(c->t, "tokens", tk);
	} else if (!ar) {
		set_tokens_from_llm(c);
	} else {
		json_set(c->t, "tokens", cJSON_CreateNull());
	}
	set_num_or_null(c->t, "cost_usd", json_get(ar, "cost_usd"));
	cJSON *tr = cJSON_CreateObject();
	json_set_num(tr, "events", (double)c->events);
	json_set_num(tr, "tool_calls", (double)c->tool_events);
	json_set(c->t, "trajectory", tr);
}

/* ---- Harbor ---- */

static const char *const verifier_exceptions[] = {
	"VerifierTimeoutError", "RewardFileNotFoundError", "RewardFileEmptyError", "VerifierOutputParseError",
};

static void acp_line(struct ctx *c, cJSON *ev)
{
	on_acp(ev, 0, c);
	if (c->o->acp_out) {
		if (c->o->acp_out->len)
			buf_addc(c->o->acp_out, '\n'); /* BenchFlow's shape: no final newline */
		char *s = cJSON_PrintUnformatted(ev);
		buf_adds(c->o->acp_out, s);
		free(s);
	}
	cJSON_Delete(ev);
}

static const char *observation_for(const cJSON *step, const char *id)
{
	const cJSON *res = json_get(json_get(step, "observation"), "results");
	for (const cJSON *r = res ? res->child : NULL; r; r = r->next) {
		const char *src = json_str(r, "source_call_id");
		if (!id || !src || !strcmp(src, id))
			return json_str(r, "content");
	}
	return NULL;
}

/* ATIF steps -> BenchFlow-shaped ACP events (user_message, agent_thought,
 * agent_message, tool_call with a "<tool> <arguments>" title). */
static void atif_to_acp(struct ctx *c, const cJSON *atif)
{
	const cJSON *steps = json_get(atif, "steps");
	for (const cJSON *st = cJSON_IsArray(steps) ? steps->child : NULL; st; st = st->next) {
		const char *src = json_str(st, "source");
		const char *msg = json_str(st, "message");
		if (src && !strcmp(src, "user") && msg) {
			cJSON *ev = cJSON_CreateObject();
			json_set_str(ev, "type", "user_message");
			json_set_str(ev, "text", msg);
			acp_line(c, ev);
			continue;
		}
		if (!src || strcmp(src, "agent"))
			continue;
		const char *thought = json_str(st, "reasoning_content");
		if (thought && *thought) {
			cJSON *ev = cJSON_CreateObject();
			json_set_str(ev, "type", "agent_thought");
			json_set_str(ev, "text", thought);
			acp_line(c, ev);
		}
		const cJSON *tcs = json_get(st, "tool_calls");
		for (const cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc; tc = tc->next) {
			const char *fn = json_str(tc, "function_name");
			const char *id = json_str(tc, "tool_call_id");
			struct buf args = BUF_INIT;
			const cJSON *a = json_get(tc, "arguments");
			if (cJSON_IsString(a))
				buf_adds(&args, a->valuestring);
			else if (a)
				json_canon(a, false, &args);
			if (c->h)
				harness_scan_tool_call(c->h, fn, args.data ? args.data : "", &c->use);
			cJSON *ev = cJSON_CreateObject();
			json_set_str(ev, "type", "tool_call");
			json_set_str(ev, "tool_call_id", id);
			json_set_str(ev, "kind", "other");
			char *title = xasprintf("%s%s%s", fn ? fn : "tool", args.len ? " " : "", args.data ? args.data : "");
			json_set_str(ev, "title", title);
			free(title);
			json_set_str(ev, "status", "completed");
			cJSON *content = cJSON_CreateArray();
			const char *obs = observation_for(st, id);
			if (obs) {
				cJSON *blk = cJSON_CreateObject(), *inner = cJSON_CreateObject();
				json_set_str(inner, "type", "text");
				json_set_str(inner, "text", obs);
				json_set_str(blk, "type", "content");
				json_set(blk, "content", inner);
				cJSON_AddItemToArray(content, blk);
			}
			json_set(ev, "content", content);
			acp_line(c, ev);
			buf_free(&args);
		}
		if (msg && *msg) {
			cJSON *ev = cJSON_CreateObject();
			json_set_str(ev, "type", "agent_message");
			json_set_str(ev, "text", msg);
			acp_line(c, ev);
		}
	}
}

static double phase_seconds(const cJSON *res, const char *phase)
{
	const cJSON *p = json_get(res, phase);
	return trial_seconds_between(json_str(p, "started_at"), json_str(p, "finished_at"));
}

static void parse_harbor(struct ctx *c, const struct cand *best)
{
	const cJSON *res = best->res;
	check_types(c, best->dir, res, harbor_keys, ARRAY_LEN(harbor_keys));
	json_set_str(c->t, "schema", "harbor");
	set_str_or_null(c->t, "task", json_str(res, "task_name"));
	set_str_or_null(c->t, "rollout", json_str(res, "trial_name") ? json_str(res, "trial_name") : path_base(best->dir));
	const cJSON *info = json_get(res, "agent_info");
	const char *agent = json_str(info, "name");
	set_str_or_null(c->t, "agent", agent);
	set_str_or_null(c->t, "agent_name", agent);
	const cJSON *mi = json_get(info, "model_info");
	const char *mname = json_str(mi, "name"), *prov = json_str(mi, "provider");
	if (mname && prov) {
		char *m = xasprintf("%s/%s", prov, mname);
		json_set_str(c->t, "model", m);
		free(m);
	} else {
		set_str_or_null(c->t, "model", mname);
	}
	json_set_str(c->t, "skill_mode", c->o->skills && c->o->skills->n ? "with-skill" : "no-skill");

	const cJSON *reward = num_or_null(json_get(json_get(json_get(res, "verifier_result"), "rewards"), "reward"));
	const cJSON *exc = json_get(res, "exception_info");
	const char *etype = json_str(exc, "exception_type"), *emsg = json_str(exc, "exception_message");
	bool verr = false;
	for (size_t i = 0; etype && i < ARRAY_LEN(verifier_exceptions); i++)
		verr |= !strcmp(etype, verifier_exceptions[i]);
	/* AgentTimeoutError still runs the verifier; other exceptions leave no reward */
	enum trial_outcome o;
	if (reward)
		o = etype && !strcmp(etype, "AgentTimeoutError") ? TRIAL_TIMEOUT
		    : fabs(reward->valuedouble - 1.0) < 1e-9 ? TRIAL_PASSED : TRIAL_FAILED;
	else
		o = verr ? TRIAL_VERIFIER_ERROR : TRIAL_INFRA_ERROR;
	set_outcome(c, reward, o);
	set_str_or_null(c->t, "error", emsg);
	set_str_or_null(c->t, "error_category", etype);
	set_str_or_null(c->t, "verifier_error", verr ? emsg : NULL);
	set_str_or_null(c->t, "verifier_error_category", verr ? etype : NULL);
	read_verifier_reward(c, best->dir, reward);

	json_set_str(c->t, "started_at", json_str(res, "started_at"));
	json_set_str(c->t, "finished_at", json_str(res, "finished_at"));
	cJSON *du = cJSON_CreateObject();
	static const char *const phases[] = { "environment_setup", "agent_setup", "agent_execution", "verifier" };
	for (size_t i = 0; i < ARRAY_LEN(phases); i++) {
		double s = phase_seconds(res, phases[i]);
		if (isnan(s))
			json_set(du, phases[i], cJSON_CreateNull());
		else
			json_set_num(du, phases[i], s);
	}
	double tot = trial_seconds_between(json_str(res, "started_at"), json_str(res, "finished_at"));
	if (isnan(tot))
		json_set(du, "total", cJSON_CreateNull());
	else
		json_set_num(du, "total", tot);
	json_set(c->t, "durations", du);
	json_set_num(c->t, "retries", 0);
	struct strlist one = STRLIST_INIT;
	strlist_push(&one, path_base(best->dir));
	names_array(c->t, "attempts", &one);
	strlist_free(&one);
	set_file(c, "rollout", best->dir);
	char *rp = path_join(best->dir, "result.json");
	set_file(c, "result", rp);
	free(rp);

	/* the job's result.json is final once finished_at is set */
	char *job = dir_of(best->dir);
	char *jp = path_join(job, "result.json");
	struct err e;
	cJSON *jr = fs_exists(jp) ? json_read_file(jp, &e) : NULL;
	char *rel = rel_to(c->base, jp);
	if (!jr)
		problem(c, "no job summary: %s is missing or not JSON", rel);
	else if (!json_str(jr, "finished_at"))
		problem(c, "job %s has no finished_at (the run did not finish)", rel);
	set_file(c, "summary", jr ? jp : NULL);
	free(rel);
	cJSON_Delete(jr);
	free(jp);
	free(job);

	find_harness(c, agent);
	char *ap = xasprintf("%s/agent/trajectory.json", best->dir);
	cJSON *atif = fs_exists(ap) ? json_read_file(ap, &e) : NULL;
	if (!atif && o != TRIAL_INFRA_ERROR) { /* an agent that never ran leaves no trajectory */
		char *r2 = rel_to(c->base, ap);
		problem(c, "no agent trajectory: %s is missing or not JSON (this agent writes no ATIF; "
			"use RUNNER=benchflow or RUNNER=local)", r2);
		free(r2);
	} else {
		atif_to_acp(c, atif);
		if (o != TRIAL_INFRA_ERROR && c->events == 0)
			problem(c, "agent/trajectory.json has no steps although the agent ran");
	}
	cJSON_Delete(atif);
	free(ap);
	set_file(c, "acp_trajectory", NULL); /* the caller writes it (acp_out) */
	set_file(c, "llm_trajectory", NULL);
	set_skill(c, NULL);

	const cJSON *ar = json_get(res, "agent_result");
	if (cJSON_IsObject(ar) && (cJSON_IsNumber(json_get(ar, "n_input_tokens")) ||
				   cJSON_IsNumber(json_get(ar, "n_output_tokens")))) {
		cJSON *tk = cJSON_CreateObject();
		double in = json_num(ar, "n_input_tokens", 0), out = json_num(ar, "n_output_tokens", 0);
		json_set_num(tk, "input", in);
		json_set_num(tk, "output", out);
		set_num_or_null(tk, "cache_read", json_get(ar, "n_cache_tokens"));
		json_set_num(tk, "total", in + out);
		json_set_str(tk, "source", "agent_result");
		json_set(c->t, "tokens", tk);
	} else {
		json_set(c->t, "tokens", cJSON_CreateNull());
	}
	set_num_or_null(c->t, "cost_usd", json_get(ar, "cost_usd"));
	json_set_num(c->t, "tool_calls", (double)c->tool_events);
	cJSON *tr = cJSON_CreateObject();
	json_set_num(tr, "events", (double)c->events);
	json_set_num(tr, "tool_calls", (double)c->tool_events);
	json_set(c->t, "trajectory", tr);
}

cJSON *trial_parse(const char *dir, const char *base, const struct trial_opts *o, struct err *e)
{
	if (!fs_is_dir(dir)) {
		err_set(e, ERR_INPUT, "'%s' is not a folder", dir);
		return NULL;
	}
	struct cands cs = { 0 };
	if (scan_depth(&cs, dir, 2, e) < 0) {
		cands_free(&cs);
		return NULL;
	}
	bool want_harbor = o->runner && !strcmp(o->runner, "harbor");
	const struct cand *best = NULL;
	size_t flats = 0, bf = 0, hb = 0;
	for (size_t i = 0; i < cs.n; i++) {
		const struct cand *k = &cs.v[i];
		flats += k->kind == C_FLAT;
		bf += k->kind == C_BENCHFLOW;
		hb += k->kind == C_HARBOR;
	}
	enum cand_kind want = (want_harbor && hb) || !bf ? C_HARBOR : C_BENCHFLOW;
	for (size_t i = 0; i < cs.n; i++)
		if (cs.v[i].kind == want && (!best || newer(&cs.v[i].mtime, &best->mtime)))
			best = &cs.v[i];
	if (!best) {
		if (flats)
			err_set(e, ERR_INPUT, "'%s' holds %zu flat-schema review fixture%s (result.json with status/reward "
				"beside run_config.json), not BenchFlow or Harbor trials: point at a jobs dir written "
				"by `bench eval run`", dir, flats, flats == 1 ? "" : "s");
		else
			err_set(e, ERR_INPUT, "'%s' holds no trial: no result.json of a BenchFlow rollout or Harbor trial "
				"(the runner wrote nothing; see its log)", dir);
		cands_free(&cs);
		return NULL;
	}

	struct ctx c;
	memset(&c, 0, sizeof c);
	c.o = o;
	c.base = base ? base : dir;
	c.t = cJSON_CreateObject();
	c.problems = cJSON_CreateArray();
	json_set_num(c.t, "format", TRIAL_FORMAT);
	json_set(c.t, "files", cJSON_CreateObject());

	if (best->kind == C_BENCHFLOW) {
		/* BenchFlow's own retries leave several rollouts of one task: newest wins */
		const char *task = json_str(best->res, "task_name");
		long retries = 0;
		struct strlist attempts = STRLIST_INIT;
		const struct cand *order[64];
		size_t no = 0;
		for (size_t i = 0; i < cs.n && no < ARRAY_LEN(order); i++) {
			const struct cand *k = &cs.v[i];
			const char *kt = json_str(k->res, "task_name");
			if (k->kind == C_BENCHFLOW && (!task || !kt || !strcmp(task, kt)))
				order[no++] = k;
		}
		/* oldest first */
		for (size_t i = 1; i < no; i++)
			for (size_t j = i; j > 0 && newer(&order[j - 1]->mtime, &order[j]->mtime); j--) {
				const struct cand *tmp = order[j];
				order[j] = order[j - 1];
				order[j - 1] = tmp;
			}
		for (size_t i = 0; i < no; i++)
			strlist_push(&attempts, path_base(order[i]->dir));
		retries = (long)no - 1;
		parse_benchflow(&c, best, retries, &attempts);
		strlist_free(&attempts);
	} else {
		parse_harbor(&c, best);
	}
	json_set(c.t, "data_problems", c.problems);
	trial_check(c.t, o->require_skill);
	skill_use_free(&c.use);
	if (c.own_loaded)
		harness_free(&c.own);
	cands_free(&cs);
	return c.t;
}

void trial_check(cJSON *t, bool require_skill)
{
	cJSON *probs = cJSON_CreateArray();
	const cJSON *data = json_get(t, "data_problems");
	for (const cJSON *p = data ? data->child : NULL; p; p = p->next)
		if (cJSON_IsString(p))
			cJSON_AddItemToArray(probs, cJSON_CreateString(p->valuestring));
	const cJSON *sk = json_get(t, "skill");
	const cJSON *inj = json_get(sk, "injected");
	bool with_skill = cJSON_GetArraySize(inj) > 0;
	const char *outcome = json_str(t, "outcome");
	bool agent_ran = outcome && strcmp(outcome, "infra_error");
	if (require_skill && with_skill && agent_ran) {
		if (!json_bool(sk, "checked", false)) {
			cJSON_AddItemToArray(probs, cJSON_CreateString(
				"REQUIRE_SKILL=1 but skill use could not be checked (no harness rules)"));
		} else if (!json_bool(sk, "invoked", false)) {
			struct buf b = BUF_INIT;
			buf_adds(&b, "REQUIRE_SKILL=1: our skill (");
			for (const cJSON *n = inj->child; n; n = n->next)
				buf_printf(&b, "%s%s", n == inj->child ? "" : ", ", cJSON_IsString(n) ? n->valuestring : "?");
			buf_printf(&b, ") was never invoked%s", json_bool(sk, "read", false) ? " (only read)" : "");
			cJSON_AddItemToArray(probs, cJSON_CreateString(b.data));
			buf_free(&b);
		}
	}
	json_set_bool(t, "complete", cJSON_GetArraySize(probs) == 0);
	json_set(t, "problems", probs);
}

const char *trial_first_problem(const cJSON *t)
{
	const cJSON *p = json_get(t, "problems");
	return p && cJSON_IsString(p->child) ? p->child->valuestring : NULL;
}
