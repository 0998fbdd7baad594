/* reader.c — what both trial readers need (reader.h): problems, file
 * names, the trajectories and the skill-use check, outcomes, the
 * verifier's reward, the type check of result.json. */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/json.h"
#include "eval/reader.h"

const cJSON *tr_num_or_null(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v : NULL;
}

void tr_set_num_or_null(cJSON *obj, const char *key, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		json_set_num(obj, key, v->valuedouble);
	else
		json_set(obj, key, cJSON_CreateNull());
}

void tr_set_str_or_null(cJSON *obj, const char *key, const char *s)
{
	json_set_str(obj, key, s);
}

char *tr_rel_to(const char *base, const char *path)
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

char *tr_dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? xstrndup(path, (size_t)(s - path)) : xstrdup(".");
}


void tr_problem(struct ctx *c, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(c->problems, cJSON_CreateString(b.data));
	buf_free(&b);
}

cJSON *tr_read_job_file(struct ctx *c, const char *dir, const char *name)
{
	char *job = tr_dir_of(dir), *p = path_join(job, name);
	struct err e;
	bool there = fs_exists(p);
	cJSON *v = there ? json_read_file(p, &e) : NULL;
	char *rel = tr_rel_to(c->base, p);
	if (!there)
		tr_problem(c, "no job summary: %s is missing (the run did not finish)", rel);
	else if (!v)
		tr_problem(c, "%s is not valid JSON (truncated)", rel);
	tr_set_file(c, "summary", there ? p : NULL);
	free(rel);
	free(p);
	free(job);
	return v;
}

void tr_set_file(struct ctx *c, const char *key, const char *path)
{
	cJSON *files = json_get(c->t, "files");
	if (!path) {
		json_set(files, key, cJSON_CreateNull());
		return;
	}
	char *rel = tr_rel_to(c->base, path);
	json_set_str(files, key, rel);
	free(rel);
}

/* Picks the harness whose patterns apply; a missing one is a problem. */
void tr_find_harness(struct ctx *c, const char *agent)
{
	if (c->o->harness) {
		c->h = c->o->harness;
		return;
	}
	const char *runner = c->o->runner ? c->o->runner : "benchflow";
	char *name = c->o->rules_dir && agent ? harness_for_agent(c->o->rules_dir, runner, agent) : NULL;
	if (!name) {
		tr_problem(c, "no rules/harness/*.json for agent '%s': skill use cannot be checked", agent ? agent : "?");
		return;
	}
	struct err e;
	if (harness_load(&c->own, c->o->rules_dir, name, c->o->skills, &e) < 0)
		tr_problem(c, "%s", e.msg);
	else
		c->h = &c->own;
	c->own_loaded = true;
	free(name);
}

void tr_on_acp(const cJSON *v, long line, void *arg)
{
	struct ctx *c = arg;
	c->events++;
	const char *type = json_str(v, "type");
	if (type && !strcmp(type, "tool_call"))
		c->tool_events++;
	if (c->h)
		harness_scan_acp(c->h, v, &c->use);
}

static void tr_on_llm(const cJSON *v, long line, void *arg)
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
static long tr_read_jsonl(struct ctx *c, const char *path, void (*each)(const cJSON *, long, void *))
{
	long bad;
	long n = trial_jsonl_each(path, each, c, &bad);
	char *rel = tr_rel_to(c->base, path);
	if (n < 0)
		tr_problem(c, "cannot read %s", rel);
	else if (bad)
		tr_problem(c, "%s line %ld is not JSON (truncated trajectory)", rel, bad);
	free(rel);
	return n < 0 || bad ? -1 : n;
}

void tr_read_acp(struct ctx *c, const char *path, bool agent_ran)
{
	struct stat st;
	char *rel = tr_rel_to(c->base, path);
	if (stat(path, &st) < 0) {
		tr_problem(c, "no ACP trajectory: %s is missing", rel);
		tr_set_file(c, "acp_trajectory", NULL);
	} else {
		tr_set_file(c, "acp_trajectory", path);
		if (tr_read_jsonl(c, path, tr_on_acp) == 0 && agent_ran)
			tr_problem(c, "%s is empty although the agent ran", rel);
	}
	free(rel);
}

void tr_read_llm(struct ctx *c, const char *path)
{
	if (!fs_exists(path)) {
		tr_set_file(c, "llm_trajectory", NULL);
		return;
	}
	tr_set_file(c, "llm_trajectory", path);
	tr_read_jsonl(c, path, tr_on_llm);
}

void tr_names_array(cJSON *obj, const char *key, const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; l && i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
	json_set(obj, key, a);
}

void tr_set_skill(struct ctx *c, const cJSON *runner_count)
{
	cJSON *s = cJSON_CreateObject();
	tr_names_array(s, "injected", c->o->skills);
	json_set_bool(s, "invoked", c->use.invoked);
	json_set_bool(s, "read", c->use.read);
	if (c->use.catalog_seen)
		json_set_bool(s, "catalog", c->use.catalog);
	else
		json_set(s, "catalog", cJSON_CreateNull());
	json_set_num(s, "invocations", (double)(c->use.acp_invocations ? c->use.acp_invocations : c->use.llm_invocations));
	tr_set_num_or_null(s, "runner_invocations", runner_count);
	tr_names_array(s, "invoked_names", &c->use.invoked_names);
	tr_names_array(s, "read_names", &c->use.read_names);
	tr_names_array(s, "catalog_names", &c->use.catalog_names);
	json_set_bool(s, "checked", c->h != NULL);
	json_set(c->t, "skill", s);
}

void tr_set_outcome(struct ctx *c, const cJSON *reward, enum trial_outcome o)
{
	json_set_str(c->t, "outcome", trial_outcome_name(o));
	/* BenchFlow's score rule: a trial passes when its reward is exactly 1.0 */
	json_set_bool(c->t, "passed", reward && fabs(reward->valuedouble - 1.0) < 1e-9);
	tr_set_num_or_null(c->t, "reward", reward);
}

/* verifier/reward.json (its "reward" key) or verifier/reward.txt. */
void tr_read_verifier_reward(struct ctx *c, const char *rollout, const cJSON *reward)
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
			tr_problem(c, "verifier reward %g disagrees with result.json reward %g", v, reward->valuedouble);
	}
	free(pj);
	free(pt);
}

void tr_set_tokens_from_llm(struct ctx *c)
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


static const char *tr_type_name(int t)
{
	return t == cJSON_String ? "a string" : t == cJSON_Number ? "a number" : t == cJSON_Object ? "an object"
	       : t == cJSON_Array ? "an array" : t == cJSON_True || t == cJSON_False ? "a boolean" : "a value";
}

/* A key of the wrong type is a problem that names the file and the key:
 * guessing from it would misreport the trial. */
void tr_check_types(struct ctx *c, const char *file, const cJSON *res, const struct typed_key *keys,
		    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *dot = strchr(keys[i].path, '.');
		char *outer = dot ? xstrndup(keys[i].path, (size_t)(dot - keys[i].path)) : NULL;
		const cJSON *v = dot ? json_get(json_get(res, outer), dot + 1) : json_get(res, keys[i].path);
		free(outer);
		int t = v ? (v->type & 0xFF) : cJSON_NULL;
		if (t == cJSON_NULL || t == keys[i].type)
			continue;
		char *rel = tr_rel_to(c->base, file);
		tr_problem(c, "%s: '%s' is %s, not %s: the runner wrote a result this reader does not know; see its log",
			rel, keys[i].path, tr_type_name(t), tr_type_name(keys[i].type));
		free(rel);
	}
}

