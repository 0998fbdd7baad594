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
#include "eval/reader.h"

/* ---- finding the runner's result.json files ---- */

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
	GROW(c->v, c->n, c->cap);
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

/* BenchFlow's own retries leave several rollouts of one task (the newest
 * is best): their names, oldest first, into attempts; returns the retries. */
static long benchflow_attempts(const struct cands *cs, const struct cand *best, struct strlist *attempts)
{
	const char *task = json_str(best->res, "task_name");
	const struct cand *order[64];
	size_t no = 0;
	for (size_t i = 0; i < cs->n && no < ARRAY_LEN(order); i++) {
		const struct cand *k = &cs->v[i];
		const char *kt = json_str(k->res, "task_name");
		if (k->kind == C_BENCHFLOW && (!task || !kt || !strcmp(task, kt)))
			order[no++] = k;
	}
	for (size_t i = 1; i < no; i++) /* insertion sort: at most 64 */
		for (size_t j = i; j > 0 && newer(&order[j - 1]->mtime, &order[j]->mtime); j--) {
			const struct cand *tmp = order[j];
			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	for (size_t i = 0; i < no; i++)
		strlist_push(attempts, path_base(order[i]->dir));
	return (long)no - 1;
}

/* A parse's trial and problems, before a reader fills them. */
static void ctx_begin(struct ctx *c, const char *dir, const char *base, const struct trial_opts *o)
{
	memset(c, 0, sizeof *c);
	c->o = o;
	c->base = base ? base : dir;
	c->t = cJSON_CreateObject();
	c->problems = cJSON_CreateArray();
	json_set_num(c->t, "format", TRIAL_FORMAT);
	json_set(c->t, "files", cJSON_CreateObject());
}

/* The checked trial, once a reader filled it. */
static cJSON *ctx_end(struct ctx *c)
{
	json_set(c->t, "data_problems", c->problems);
	trial_check(c->t, c->o->require_skill);
	skill_use_free(&c->use);
	if (c->own_loaded)
		harness_free(&c->own);
	return c->t;
}

/* Our own record, dir/trial.json (the local runner's): *t the trial, NULL
 * when dir holds none. -1 with e set when it is there and does not parse. */
static int parse_own(const char *dir, const char *base, const struct trial_opts *o, cJSON **t,
		     struct err *e)
{
	*t = NULL;
	char *p = path_join(dir, "trial.json");
	struct err pe;
	cJSON *rec = json_read_file(p, &pe);
	int rc = 0;
	if (fs_exists(p) && !rec)
		rc = err_set(e, ERR_INPUT, "%s: the trial is incomplete; see the runner's "
			     "log and run it again", pe.msg);
	else if (rec && own_record_is(rec)) {
		struct ctx c;
		ctx_begin(&c, dir, base, o);
		read_own(&c, dir, rec);
		*t = ctx_end(&c);
	}
	cJSON_Delete(rec);
	free(p);
	return rc;
}

/* The error of a dir that holds no trial a reader knows. */
static void no_trial(const char *dir, size_t flats, struct err *e)
{
	if (flats)
		err_set(e, ERR_INPUT, "'%s' holds %zu flat-schema review fixture%s (result.json "
			"with status/reward beside run_config.json), not BenchFlow or Harbor "
			"trials: point at a jobs dir written by `bench eval run`", dir, flats,
			flats == 1 ? "" : "s");
	else
		err_set(e, ERR_INPUT, "'%s' holds no trial: no result.json of a BenchFlow "
			"rollout or Harbor trial, no trial.json of the local runner (the "
			"runner wrote nothing; see its log)", dir);
}

cJSON *trial_parse(const char *dir, const char *base, const struct trial_opts *o, struct err *e)
{
	if (!fs_is_dir(dir)) {
		err_set(e, ERR_INPUT, "'%s' is not a folder", dir);
		return NULL;
	}
	cJSON *own;
	if (parse_own(dir, base, o, &own, e) < 0 || own)
		return own;
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
		no_trial(dir, flats, e);
		cands_free(&cs);
		return NULL;
	}
	struct ctx c;
	ctx_begin(&c, dir, base, o);
	if (best->kind == C_BENCHFLOW) {
		struct strlist attempts = STRLIST_INIT;
		long retries = benchflow_attempts(&cs, best, &attempts);
		read_benchflow(&c, best, retries, &attempts);
		strlist_free(&attempts);
	} else {
		read_harbor(&c, best);
	}
	cands_free(&cs);
	return ctx_end(&c);
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
