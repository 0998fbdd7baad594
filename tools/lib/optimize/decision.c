#include "optimize/decision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/paired.h"
#include "report/pooled.h"

static cJSON *num_or_null(double v)
{
	return v >= 0 && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* The record of a loaded trace; rel is its run-relative folder. Caller frees. */
static cJSON *record_of(const struct trace *t, const char *rel)
{
	struct trace_facts f;
	trace_facts_read(t, NULL, &f);
	cJSON *r = cJSON_CreateObject();
	json_set_num(r, "index", t->index);
	json_set_bool(r, "needed", true);
	json_set_str(r, "trial", rel);
	json_set_str(r, "task", json_str(t->trial, "task")); /* the stratum of a pooled decision */
	json_set_str(r, "key", json_str(t->trial, "key"));
	json_set_str(r, "outcome", json_str(t->trial, "outcome"));
	json_set_bool(r, "scored", t->scorable);
	json_set_bool(r, "passed", json_bool(t->trial, "passed", false));
	const cJSON *rw = json_get(t->trial, "reward");
	json_set(r, "reward", cJSON_IsNumber(rw) ? cJSON_CreateNumber(rw->valuedouble) : cJSON_CreateNull());
	json_set(r, "tokens", num_or_null(f.tokens));
	json_set_num(r, "steps", (double)f.steps);
	json_set(r, "seconds", num_or_null(f.seconds));
	json_set_bool(r, "timeout", f.timed_out);
	const cJSON *inj = json_get(json_get(t->trial, "skill"), "injected");
	json_set_bool(r, "invoked", f.skill_invoked || !cJSON_GetArraySize(inj));
	json_set_num(r, "failed_calls", (double)f.failed_calls);
	trace_facts_free(&f);
	return r;
}

cJSON *record_load(const char *dir, const char *rel, int index)
{
	char *p = path_join(dir, "trial.json");
	cJSON *t = json_read_opt(p);
	free(p);
	if (!t)
		return NULL;
	struct trace tr = { .name = (char *)path_base(dir), .dir = (char *)dir, .trial = t,
			    .index = index };
	const char *o = json_str(t, "outcome");
	tr.scorable = json_bool(t, "complete", false) && o &&
		      (!strcmp(o, "passed") || !strcmp(o, "failed") || !strcmp(o, "timeout"));
	cJSON *r = record_of(&tr, rel);
	cJSON_Delete(t);
	return r;
}

int deep_looks(const struct deep_rule *d)
{
	return d->max <= d->first ? 1 : 1 + (int)((d->max - d->first + d->step - 1) / d->step);
}

long deep_look_trials(const struct deep_rule *d, int j)
{
	long n = d->first + (long)(j - 1) * d->step;
	return n < d->max ? n : d->max;
}

int deep_look_of(const struct deep_rule *d, long i)
{
	return i <= d->first ? 1 : 1 + (int)((i - d->first + d->step - 1) / d->step);
}

/* A record's task ("" when it names none). */
static const char *task_of(const cJSON *x)
{
	const char *t = json_str(x, "task");
	return t ? t : "";
}

/* Pass counts and mean reward of the scored, needed records (of task
 * alone unless NULL). */
static void count_of(const cJSON *recs, const char *task, long *pass, long *n, double *reward)
{
	*pass = *n = 0;
	double sum = 0;
	long nr = 0;
	for (const cJSON *x = recs ? recs->child : NULL; x; x = x->next) {
		if (!json_bool(x, "needed", false) || !json_bool(x, "scored", false) ||
		    (task && strcmp(task_of(x), task)))
			continue;
		(*n)++;
		*pass += json_bool(x, "passed", false);
		if (cJSON_IsNumber(json_get(x, "reward"))) {
			sum += json_num(x, "reward", 0);
			nr++;
		}
	}
	*reward = nr ? sum / (double)nr : NAN;
}

static void count(const cJSON *recs, long *pass, long *n, double *reward)
{
	count_of(recs, NULL, pass, n, reward);
}

/* One cost by trial index (1..len): NAN where not recorded. */
static double *by_index(const cJSON *recs, const char *key, size_t len)
{
	double *v = xcalloc(len ? len : 1, sizeof *v);
	for (size_t i = 0; i < len; i++)
		v[i] = NAN;
	for (const cJSON *x = recs ? recs->child : NULL; x; x = x->next) {
		long i = (long)json_num(x, "index", 0);
		const cJSON *c = json_get(x, key);
		if (i >= 1 && (size_t)i <= len && json_bool(x, "needed", false) && json_bool(x, "scored", false) &&
		    cJSON_IsNumber(c))
			v[i - 1] = c->valuedouble;
	}
	return v;
}

static size_t max_index(const cJSON *a, const cJSON *b)
{
	long m = 0;
	for (int k = 0; k < 2; k++)
		for (const cJSON *x = (k ? b : a) ? (k ? b : a)->child : NULL; x; x = x->next)
			if (json_num(x, "index", 0) > m)
				m = (long)json_num(x, "index", 0);
	return (size_t)m;
}

/* The tasks of the records of both arms, in order of first appearance. */
static long task_index(const struct strlist *l, const char *task)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], task))
			return (long)i;
	return -1;
}

static void tasks_of(const cJSON *base, const cJSON *cand, struct strlist *out)
{
	const cJSON *arms[] = { base, cand };
	for (int k = 0; k < 2; k++)
		for (const cJSON *x = arms[k] ? arms[k]->child : NULL; x; x = x->next)
			if (task_index(out, task_of(x)) < 0)
				strlist_push(out, task_of(x));
}

cJSON *deep_pool_reindex(const cJSON *base, const cJSON *cand, bool of_cand)
{
	struct strlist tasks = STRLIST_INIT;
	tasks_of(base, cand, &tasks);
	long stride = (long)max_index(base, cand) + 1;
	cJSON *out = cJSON_Duplicate(of_cand ? cand : base, true);
	for (cJSON *x = out ? out->child : NULL; x; x = x->next)
		json_set_num(x, "index", (double)(task_index(&tasks, task_of(x)) * stride +
		                                  (long)json_num(x, "index", 0)));
	strlist_free(&tasks);
	return out;
}

/* report/decide.h's rule of a deep rule. */
static void rule_of(const struct deep_rule *d, struct decide_rule *r)
{
	enum decide_test test = d->test == DECIDE_FISHER ? DECIDE_FISHER : DECIDE_BARNARD;
	decide_rule_init(r, test, d->alpha, d->first);
	r->max = d->max > d->first ? d->max : d->first;
	r->step = d->step;
}

/* The counts of every task; a task with an arm of no scored trial names
 * itself in *why (caller frees). */
static struct across_task *pool_counts(const cJSON *base, const cJSON *cand,
                                       const struct strlist *tasks, char **why)
{
	struct across_task *t = xcalloc(tasks->n ? tasks->n : 1, sizeof *t);
	double reward;
	*why = NULL;
	for (size_t i = 0; i < tasks->n; i++) {
		t[i].name = tasks->v[i];
		count_of(base, tasks->v[i], &t[i].base_pass, &t[i].base_n, &reward);
		count_of(cand, tasks->v[i], &t[i].cand_pass, &t[i].cand_n, &reward);
		if (!*why && (!t[i].base_n || !t[i].cand_n))
			*why = xasprintf("task %s: the %s has no scored trial", tasks->v[i],
			                 !t[i].cand_n ? "candidate" : "baseline");
	}
	return t;
}

/* The rule over the tasks as strata (report/pooled.h), calibrated for the
 * fewest baseline trials of a task. */
static int judge_pooled(const struct deep_rule *d, const cJSON *base, const cJSON *cand, cJSON *out,
                        struct err *e)
{
	struct strlist tasks = STRLIST_INIT;
	tasks_of(base, cand, &tasks);
	char *why;
	struct across_task *t = pool_counts(base, cand, &tasks, &why);
	int rc = 0;
	if (why || !tasks.n) {
		json_set_str(out, "verdict", "reject");
		json_set_str(out, "why", why ? why : "the candidate has no scored trial");
		json_set(out, "statistics", cJSON_CreateNull());
	} else {
		struct decide_rule r;
		rule_of(d, &r);
		long base_first = t[0].base_n, p;
		for (size_t i = 1; i < tasks.n; i++)
			base_first = t[i].base_n < base_first ? t[i].base_n : base_first;
		double br, cr;
		count(base, &p, &p, &br);
		count(cand, &p, &p, &cr);
		struct pooled_result res;
		cJSON *stats = NULL;
		size_t k = tasks.n;
		if (pooled_calibrate(&r, k, base_first, POOLED_DRAWS, e) < 0 ||
		    pooled_verdict(&r, t, k, br, cr, &res, e) < 0 ||
		    !(stats = pooled_json(&r, t, k, br, cr, base_first, POOLED_DRAWS, NULL, 0, e)))
			rc = -1;
		if (rc == 0) {
			json_set(out, "statistics", stats);
			json_set_str(out, "verdict", decide_verdict_name(res.verdict));
			json_set_str(out, "why", res.why);
		}
	}
	free(why);
	free(t);
	strlist_free(&tasks);
	return rc;
}

/* The share of scored records for which key is true (or false, when want is false). */
static double rate(const cJSON *recs, const char *key, bool want, double *mean_of)
{
	long n = 0, hits = 0;
	double sum = 0;
	for (const cJSON *x = recs ? recs->child : NULL; x; x = x->next) {
		if (!json_bool(x, "needed", false) || !json_bool(x, "scored", false))
			continue;
		n++;
		if (mean_of)
			sum += json_num(x, key, 0);
		else
			hits += json_bool(x, key, !want) == want;
	}
	if (mean_of)
		*mean_of = n ? sum / (double)n : 0;
	return n ? (double)hits / (double)n : 0;
}

static cJSON *pair_json(const struct paired_ratio *p)
{
	cJSON *j = cJSON_CreateObject();
	json_set_num(j, "pairs", (double)p->pairs);
	json_set(j, "median", isnan(p->median) ? cJSON_CreateNull() : cJSON_CreateNumber(round(p->median * 1e4) / 1e4));
	json_set(j, "max", isnan(p->max) ? cJSON_CreateNull() : cJSON_CreateNumber(round(p->max * 1e4) / 1e4));
	return j;
}

static cJSON *both(double base, double cand)
{
	cJSON *j = cJSON_CreateObject();
	json_set_num(j, "baseline", round(base * 1e4) / 1e4);
	json_set_num(j, "candidate", round(cand * 1e4) / 1e4);
	return j;
}

/* The runtime check (decision.h); *over when the candidate regresses. */
static cJSON *runtime(const struct deep_rule *d, const cJSON *base, const cJSON *cand, bool *over)
{
	cJSON *rt = cJSON_CreateObject();
	size_t len = max_index(base, cand);
	static const char *const keys[] = { "tokens", "steps", "seconds" };
	double *b[3], *c[3];
	struct paired_metric m[3];
	for (int i = 0; i < 3; i++) {
		b[i] = by_index(base, keys[i], len);
		c[i] = by_index(cand, keys[i], len);
		m[i] = (struct paired_metric){ keys[i], b[i], c[i], len, len };
		struct paired_ratio pr;
		paired_ratio(b[i], len, c[i], len, &pr);
		json_set(rt, keys[i], pair_json(&pr));
	}
	struct buf why = BUF_INIT;
	enum paired_verdict pv = paired_check(m, 3, d->tolerance, &why);
	*over = pv == PAIRED_OVER;
	double bt = rate(base, "timeout", true, NULL), ct = rate(cand, "timeout", true, NULL);
	double bn = rate(base, "invoked", false, NULL), cn = rate(cand, "invoked", false, NULL);
	double be, ce;
	rate(base, "failed_calls", true, &be);
	rate(cand, "failed_calls", true, &ce);
	json_set(rt, "timeouts", both(bt, ct));
	json_set(rt, "not_invoked", both(bn, cn));
	json_set(rt, "errors", both(be, ce));
	struct { bool bad; const char *what; double x, y; } extra[] = {
		{ ct > bt, "timeouts", bt, ct },
		{ cn > bn, "skill not invoked", bn, cn },
		{ ce > fmax(be * d->tolerance, be + 0.5), "failed tool calls per trial", be, ce },
	};
	for (size_t i = 0; i < ARRAY_LEN(extra); i++)
		if (extra[i].bad) {
			if (pv != PAIRED_OVER && !*over)
				buf_reset(&why);
			buf_printf(&why, "%s%s: %.2f -> %.2f", why.len ? "; " : "", extra[i].what, extra[i].x, extra[i].y);
			*over = true;
		}
	json_set_str(rt, "verdict", *over ? "over" : pv == PAIRED_UNKNOWN ? "unknown" : "within");
	json_set_str(rt, "why", why.len ? why.data : "within the tolerance");
	buf_free(&why);
	for (int i = 0; i < 3; i++) {
		free(b[i]);
		free(c[i]);
	}
	return rt;
}

/* The verdict of the rule on one task's counts (decide.h), into out. */
static int judge_one(const struct deep_rule *d, const cJSON *base, const cJSON *cand, cJSON *out,
                     struct err *e)
{
	struct decide_counts c;
	count(base, &c.base_pass, &c.base_n, &c.base_reward);
	count(cand, &c.cand_pass, &c.cand_n, &c.cand_reward);
	if (!c.base_n || !c.cand_n) {
		json_set_str(out, "verdict", "reject");
		json_set_str(out, "why", !c.cand_n ? "the candidate has no scored trial" : "the baseline has no scored trial");
		json_set(out, "statistics", cJSON_CreateNull());
		return 0;
	}
	struct decide_rule r;
	rule_of(d, &r);
	struct decide_result res;
	cJSON *stats = NULL;
	if (decide_calibrate(&r, c.base_n, e) < 0 || decide_verdict(&r, &c, &res, e) < 0 ||
	    !(stats = decide_json(&r, &c, c.base_n, NULL, 0, e)))
		return -1;
	json_set(out, "statistics", stats);
	json_set_str(out, "verdict", decide_verdict_name(res.verdict));
	json_set_str(out, "why", res.why);
	return 0;
}

cJSON *deep_judge(const struct deep_rule *d, const cJSON *base, const cJSON *cand, bool last,
                  struct err *e)
{
	cJSON *out = cJSON_CreateObject();
	bool over;
	if (d->pooled) { /* the runtime pairs trial i of a task with trial i of the same task */
		cJSON *b = deep_pool_reindex(base, cand, false);
		cJSON *c = deep_pool_reindex(base, cand, true);
		json_set(out, "runtime", runtime(d, b, c, &over));
		cJSON_Delete(b);
		cJSON_Delete(c);
	} else {
		json_set(out, "runtime", runtime(d, base, cand, &over));
	}
	int rc = d->pooled ? judge_pooled(d, base, cand, out, e) : judge_one(d, base, cand, out, e);
	if (rc < 0) {
		cJSON_Delete(out);
		return NULL;
	}
	if (cJSON_IsNull(json_get(out, "statistics")))
		return out;
	const char *verdict = json_str(out, "verdict");
	char why[320];
	snprintf(why, sizeof why, "%s", json_str(out, "why"));
	if (!strcmp(verdict, "extend") && last) {
		verdict = "reject";
		snprintf(why, sizeof why, "%s; but no trials are left (DEEP_MAX_TRIALS): rejected",
		         json_str(out, "why"));
	}
	if (strcmp(verdict, "reject") && over) {
		verdict = "reject";
		snprintf(why, sizeof why, "%s; but a runtime regression (%s): rejected",
		         json_str(out, "why"),
			 json_str(json_get(out, "runtime"), "why"));
	}
	json_set_str(out, "verdict", verdict);
	json_set_str(out, "why", why);
	return out;
}
