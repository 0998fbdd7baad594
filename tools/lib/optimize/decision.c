#include "optimize/decision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/paired.h"

static cJSON *num_or_null(double v)
{
	return v >= 0 && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *record_of(const struct trace *t, const char *rel)
{
	struct trace_facts f;
	trace_facts_read(t, NULL, &f);
	cJSON *r = cJSON_CreateObject();
	json_set_num(r, "index", t->index);
	json_set_bool(r, "needed", true);
	json_set_str(r, "trial", rel);
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
	struct err e;
	cJSON *t = fs_exists(p) ? json_read_file(p, &e) : NULL;
	free(p);
	if (!t)
		return NULL;
	struct trace tr = { (char *)path_base(dir), (char *)dir, t, index, false };
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

/* Pass counts and mean reward of the scored, needed records. */
static void count(const cJSON *recs, long *pass, long *n, double *reward)
{
	*pass = *n = 0;
	double sum = 0;
	long nr = 0;
	for (const cJSON *x = recs ? recs->child : NULL; x; x = x->next) {
		if (!json_bool(x, "needed", false) || !json_bool(x, "scored", false))
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

cJSON *deep_judge(const struct deep_rule *d, const cJSON *base, const cJSON *cand, bool last, struct err *e)
{
	struct decide_counts c;
	count(base, &c.base_pass, &c.base_n, &c.base_reward);
	count(cand, &c.cand_pass, &c.cand_n, &c.cand_reward);
	cJSON *out = cJSON_CreateObject();
	bool over;
	json_set(out, "runtime", runtime(d, base, cand, &over));
	if (!c.base_n || !c.cand_n) {
		json_set_str(out, "verdict", "reject");
		json_set_str(out, "why", !c.cand_n ? "the candidate has no scored trial" : "the baseline has no scored trial");
		json_set(out, "statistics", cJSON_CreateNull());
		return out;
	}
	struct decide_rule r;
	decide_rule_init(&r, d->test == DECIDE_FISHER ? DECIDE_FISHER : DECIDE_BARNARD, d->alpha, d->first);
	r.max = d->max > d->first ? d->max : d->first;
	r.step = d->step;
	struct decide_result res;
	cJSON *stats = NULL;
	if (decide_calibrate(&r, c.base_n, e) < 0 || decide_verdict(&r, &c, &res, e) < 0 ||
	    !(stats = decide_json(&r, &c, c.base_n, NULL, 0, e))) {
		cJSON_Delete(out);
		return NULL;
	}
	json_set(out, "statistics", stats);
	const char *verdict = decide_verdict_name(res.verdict);
	char why[320];
	snprintf(why, sizeof why, "%s", res.why);
	if (res.verdict == DECIDE_EXTEND && last) {
		verdict = "reject";
		snprintf(why, sizeof why, "%s; but no trials are left (DEEP_MAX_TRIALS): rejected", res.why);
	}
	if (strcmp(verdict, "reject") && over) {
		verdict = "reject";
		snprintf(why, sizeof why, "%s; but a runtime regression (%s): rejected", res.why,
			 json_str(json_get(out, "runtime"), "why"));
	}
	json_set_str(out, "verdict", verdict);
	json_set_str(out, "why", why);
	return out;
}
