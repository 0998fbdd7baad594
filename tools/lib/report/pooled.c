#include "report/pooled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/exact.h"

static int check(const struct decide_rule *r, size_t k, struct err *e)
{
	if (decide_rule_check(r, e) < 0)
		return -1;
	if (!decide_is_test(r->test))
		return err_set(e, ERR_INPUT,
		               "pooled decision: the rule needs a test (fisher or barnard), not %s",
		               decide_test_name(r->test));
	if (!k || k > ACROSS_MAX_TASKS)
		return err_set(e, ERR_INPUT, "pooled decision: 1 to %d tasks, not %zu",
		               ACROSS_MAX_TASKS, k);
	return 0;
}

/* The candidate against the baseline by the mean per-task difference. */
static int compare(const struct across_task *t, size_t k)
{
	double d = 0;
	for (size_t i = 0; i < k; i++)
		d += (double)t[i].cand_pass / (double)t[i].cand_n -
			(double)t[i].base_pass / (double)t[i].base_n;
	return d > 1e-12 ? 1 : d < -1e-12 ? -1 : 0;
}

static int cls_of(const struct decide_rule *r, double p)
{
	return exact_at_most(p, decide_level(r)) ? 0 : exact_at_most(p, r->grey) ? 1 : 2;
}

int pooled_verdict(const struct decide_rule *r, const struct across_task *t, size_t k,
                   double base_reward, double cand_reward, struct pooled_result *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (check(r, k, e) < 0)
		return -1;
	out->p = across_strat_p(t, k);
	if (out->p < 0)
		return err_set(
			e, ERR_INPUT,
			"pooled decision: a task's counts are not pass counts (1..%d trials)",
			EXACT_MAX_N);
	long na = 0, nb = 0, x = 0, y = 0;
	for (size_t i = 0; i < k; i++) {
		na = t[i].base_n > na ? t[i].base_n : na;
		nb = t[i].cand_n > nb ? t[i].cand_n : nb;
		x += t[i].base_pass;
		y += t[i].cand_pass;
	}
	bool last = nb >= r->max,
	     better = !isnan(base_reward) && !isnan(cand_reward) && cand_reward > base_reward;
	int cmp = compare(t, k), cls = cls_of(r, out->p);
	out->verdict = decide_step(cls, last, cmp, r->reward_tiebreak && better);
	out->next_base_n = out->verdict == DECIDE_EXTEND ? decide_next_base(r, na) : na;
	out->next_cand_n = out->verdict == DECIDE_EXTEND ? decide_next_cand(r, nb) : nb;
	snprintf(out->why, sizeof out->why,
	         "%zu tasks, %ld vs baseline %ld passes: stratified p = %.4g %s level %.4g: %s", k,
	         y, x, out->p, cls == 0 ? "<=" : ">", decide_level(r),
	         decide_what(out->verdict, cmp, last));
	return 0;
}

/* ---------------------------------------------------------------- Monte Carlo */

/* The looks of the rule: trials per task of each arm. */
struct looks {
	long na[64], nb[64];
	size_t n;
};

static void looks_of(const struct decide_rule *r, long base_first, struct looks *l)
{
	long na = base_first, nb = r->first;
	l->n = 0;
	for (;;) {
		l->na[l->n] = na;
		l->nb[l->n++] = nb;
		if (nb >= r->max || l->n == ARRAY_LEN(l->na))
			return;
		na = decide_next_base(r, na);
		nb = decide_next_cand(r, nb);
	}
}

/* One draw: each task's trials as running pass counts, then the looks.
 * *minp: the smallest p-value before the rule stops extending (it accepts
 * at level L exactly when that is <= L); *trials: candidate trials per
 * task when it decides at the rule's own level. */
struct sim {
	const struct decide_rule *r;
	size_t k;
	struct looks l;
	long *run_a, *run_b; /* k rows of (max + 1) running counts */
	long width_a, width_b;
	struct across_task *t;
};

static void sim_draw(struct sim *s, uint64_t *seed, double pa, double pb, double *minp,
                     long *trials)
{
	for (size_t i = 0; i < s->k; i++) {
		long *ra = s->run_a + (long)i * s->width_a, *rb = s->run_b + (long)i * s->width_b;
		for (long j = 1; j < s->width_a; j++)
			ra[j] = ra[j - 1] + across_binom_draw(seed, 1, pa);
		for (long j = 1; j < s->width_b; j++)
			rb[j] = rb[j - 1] + across_binom_draw(seed, 1, pb);
	}
	*minp = 2;
	*trials = 0;
	bool decided = false;
	for (size_t j = 0; j < s->l.n; j++) {
		for (size_t i = 0; i < s->k; i++)
			s->t[i] = (struct across_task){
				"t", s->run_a[(long)i * s->width_a + s->l.na[j]], s->l.na[j],
				s->run_b[(long)i * s->width_b + s->l.nb[j]], s->l.nb[j]
			};
		double p = across_strat_p(s->t, s->k);
		int cmp = compare(s->t, s->k);
		bool last = j + 1 == s->l.n;
		*minp = p < *minp ? p : *minp;
		enum decide_verdict v =
			decide_step(cls_of(s->r, p), last, cmp, s->r->reward_tiebreak);
		if (!decided && v != DECIDE_EXTEND) {
			*trials = s->l.nb[j];
			decided = true;
		}
		/* does the rule extend past this look at a level it did not reach? */
		if (decide_step(exact_at_most(p, s->r->grey) ? 1 : 2, last, cmp,
		                s->r->reward_tiebreak) != DECIDE_EXTEND)
			return;
	}
}

/* Draws at (pa, pb): minp[draws] filled when not NULL; the accept rate
 * and mean trials at the rule's level. */
static void simulate(const struct decide_rule *r, size_t k, long base_first, double pa, double pb,
                     long draws, double *minp, struct pooled_oc *oc)
{
	struct sim s = { .r = r, .k = k };
	looks_of(r, base_first, &s.l);
	s.width_a = s.l.na[s.l.n - 1] + 1;
	s.width_b = s.l.nb[s.l.n - 1] + 1;
	s.run_a = xcalloc(k * (size_t)s.width_a, sizeof *s.run_a);
	s.run_b = xcalloc(k * (size_t)s.width_b, sizeof *s.run_b);
	s.t = xcalloc(k, sizeof *s.t);
	uint64_t seed = 20261202; /* fixed: the same figures every time */
	long hits = 0;
	double trials = 0;
	for (long d = 0; d < draws; d++) {
		double m;
		long n;
		sim_draw(&s, &seed, pa, pb, &m, &n);
		hits += exact_at_most(m, decide_level(r));
		trials += (double)n;
		if (minp)
			minp[d] = m;
	}
	oc->draws = draws;
	oc->accept = (double)hits / (double)draws;
	oc->se = sqrt(oc->accept * (1 - oc->accept) / (double)draws);
	oc->mean_cand_trials = trials / (double)draws;
	free(s.run_a);
	free(s.run_b);
	free(s.t);
}

static int oc_check(const struct decide_rule *r, size_t k, long base_first, long draws,
                    struct err *e)
{
	if (check(r, k, e) < 0)
		return -1;
	if (base_first < 1 || base_first > EXACT_MAX_N || draws < 1)
		return err_set(
			e, ERR_INPUT,
			"pooled decision: %ld baseline trials (1..%d), %ld draws (at least 1)",
			base_first, EXACT_MAX_N, draws);
	return 0;
}

int pooled_oc(const struct decide_rule *r, size_t k, long base_first, double p_base, double p_cand,
              long draws, struct pooled_oc *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (oc_check(r, k, base_first, draws, e) < 0)
		return -1;
	if (!(p_base >= 0 && p_base <= 1 && p_cand >= 0 && p_cand <= 1))
		return err_set(e, ERR_INPUT,
		               "pooled decision: pass rates %g, %g must be between 0 and 1", p_base,
		               p_cand);
	simulate(r, k, base_first, p_base, p_cand, draws, NULL, out);
	return 0;
}

#define GRID 19

/* minp of every draw at each common pass rate .05 .. .95. */
static double *null_minp(const struct decide_rule *r, size_t k, long base_first, long draws)
{
	double *m = xcalloc((size_t)GRID * (size_t)draws, sizeof *m);
	for (int g = 0; g < GRID; g++) {
		struct pooled_oc oc;
		double pi = 0.05 * (g + 1);
		simulate(r, k, base_first, pi, pi, draws, m + (size_t)g * (size_t)draws, &oc);
	}
	return m;
}

static double worst_at_level(const double *m, long draws, double level, double *at)
{
	double worst = 0;
	for (int g = 0; g < GRID; g++) {
		long hits = 0;
		for (long d = 0; d < draws; d++)
			hits += exact_at_most(m[(size_t)g * (size_t)draws + (size_t)d], level);
		double f = (double)hits / (double)draws;
		if (f > worst || g == 0) {
			worst = f;
			if (at)
				*at = 0.05 * (g + 1);
		}
	}
	return worst;
}

double pooled_worst(const struct decide_rule *r, size_t k, long base_first, long draws, double *at,
                    struct err *e)
{
	if (oc_check(r, k, base_first, draws, e) < 0)
		return -1;
	double *m = null_minp(r, k, base_first, draws);
	double w = worst_at_level(m, draws, decide_level(r), at);
	free(m);
	return w;
}

int pooled_calibrate(struct decide_rule *r, size_t k, long base_first, long draws, struct err *e)
{
	if (oc_check(r, k, base_first, draws, e) < 0)
		return -1;
	double *m = null_minp(r, k, base_first, draws);
	double lo = 0, hi = r->alpha; /* lo keeps the rate <= alpha, hi does not */
	if (exact_at_most(worst_at_level(m, draws, r->alpha, NULL), r->alpha))
		lo = r->alpha;
	for (int it = 0; lo < hi && it < 20; it++) {
		double mid = (lo + hi) / 2;
		if (exact_at_most(worst_at_level(m, draws, mid, NULL), r->alpha))
			lo = mid;
		else
			hi = mid;
	}
	free(m);
	if (lo <= 0)
		return err_set(e, ERR_INPUT,
		               "pooled decision: no level keeps the false-accept rate at most %g",
		               r->alpha);
	r->level = lo;
	return 0;
}

/* ---------------------------------------------------------------- the record */

static cJSON *strata_json(const struct across_task *t, size_t k)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < k; i++)
		cJSON_AddItemToArray(a, across_task_json(&t[i]));
	return a;
}

static cJSON *operating(const struct decide_rule *r, size_t k, long base_first, long draws,
                        const struct decide_effect *f, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		struct pooled_oc oc;
		simulate(r, k, base_first, f[i].p_base, f[i].p_cand, draws, NULL, &oc);
		cJSON *o = cJSON_CreateObject();
		json_set_num(o, "p_base", f[i].p_base);
		json_set_num(o, "p_cand", f[i].p_cand);
		json_set_str(o, "kind", decide_effect_kind(&f[i]));
		json_set(o, "accept", across_num6(oc.accept));
		json_set(o, "se", across_num6(oc.se));
		json_set(o, "mean_candidate_trials", across_num6(oc.mean_cand_trials));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

cJSON *pooled_json(const struct decide_rule *r, const struct across_task *t, size_t k,
                   double base_reward, double cand_reward, long base_first, long draws,
                   const struct decide_effect *effects, size_t n, struct err *e)
{
	struct pooled_result res;
	if (pooled_verdict(r, t, k, base_reward, cand_reward, &res, e) < 0 ||
	    oc_check(r, k, base_first, draws, e) < 0)
		return NULL;
	if (!n) {
		effects = decide_table_effects;
		n = ARRAY_LEN(decide_table_effects);
	}
	cJSON *doc = cJSON_CreateObject(), *rule = json_set(doc, "rule", decide_rule_json(r));
	json_set_str(rule, "test", "stratified");
	json_set(doc, "strata", strata_json(t, k));
	cJSON *rw = json_set(doc, "rewards", cJSON_CreateObject());
	json_set(rw, "baseline", across_num6(base_reward));
	json_set(rw, "candidate", across_num6(cand_reward));
	json_set_str(doc, "verdict", decide_verdict_name(res.verdict));
	json_set(doc, "p_value", across_num6(res.p));
	json_set_str(doc, "why", res.why);
	if (res.verdict == DECIDE_EXTEND) {
		cJSON *nx = json_set(doc, "next", cJSON_CreateObject());
		json_set_num(nx, "baseline", (double)res.next_base_n);
		json_set_num(nx, "candidate", (double)res.next_cand_n);
	}
	double at = 0;
	double *m = null_minp(r, k, base_first, draws);
	double worst = worst_at_level(m, draws, decide_level(r), &at);
	free(m);
	cJSON *fa = json_set(doc, "false_accept", cJSON_CreateObject());
	json_set(fa, "worst", across_num6(worst));
	json_set(fa, "worst_at", across_num6(at));
	json_set_num(fa, "baseline_trials", (double)base_first);
	json_set_num(fa, "tasks", (double)k);
	json_set_num(fa, "draws", (double)draws);
	json_set(doc, "operating", operating(r, k, base_first, draws, effects, n));
	return doc;
}
