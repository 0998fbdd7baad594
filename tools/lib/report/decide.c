#include "report/decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/exact.h"

static const char *const test_names[] = { "fisher", "barnard", "strict", "margin" };
static const char *const verdict_names[] = { "reject", "accept", "extend" };

const struct decide_effect decide_table_effects[4] = { { .5, .5 }, { .4, .7 }, { .3, .8 }, { .6, .4 } };

const char *decide_test_name(enum decide_test t)
{
	return (size_t)t < ARRAY_LEN(test_names) ? test_names[t] : "?";
}

int decide_test_from(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_LEN(test_names); i++)
		if (!strcmp(name, test_names[i]))
			return (int)i;
	return -1;
}

const char *decide_verdict_name(enum decide_verdict v)
{
	return (size_t)v < ARRAY_LEN(verdict_names) ? verdict_names[v] : "?";
}

bool decide_is_test(enum decide_test t)
{
	return t == DECIDE_FISHER || t == DECIDE_BARNARD;
}

double decide_level(const struct decide_rule *r)
{
	return r->level > 0 ? r->level : r->alpha;
}

void decide_rule_init(struct decide_rule *r, enum decide_test t, double alpha, long first)
{
	*r = (struct decide_rule){ .test = t, .alpha = alpha, .grey = 0.5, .margin = 2, .first = first,
				   .max = first, .step = first, .reward_tiebreak = true };
}

int decide_rule_check(const struct decide_rule *r, struct err *e)
{
	if ((size_t)r->test >= ARRAY_LEN(test_names))
		return err_set(e, ERR_INPUT, "decision rule: unknown test %d", (int)r->test);
	if (decide_is_test(r->test) && !(r->alpha > 0 && r->alpha < 1))
		return err_set(e, ERR_INPUT, "decision rule: alpha %g is not between 0 and 1", r->alpha);
	if (decide_is_test(r->test) && !(r->level >= 0 && r->level <= r->alpha))
		return err_set(e, ERR_INPUT, "decision rule: level %g must be between 0 and alpha %g", r->level,
			       r->alpha);
	if (decide_is_test(r->test) && !(r->grey >= r->alpha && r->grey <= 1))
		return err_set(e, ERR_INPUT, "decision rule: grey %g must be between alpha %g and 1", r->grey,
			       r->alpha);
	if (r->first < 1 || r->max < r->first || r->max > EXACT_MAX_N)
		return err_set(e, ERR_INPUT, "decision rule: need 1 <= first (%ld) <= max (%ld) <= %d trials",
			       r->first, r->max, EXACT_MAX_N);
	if (r->step < 1)
		return err_set(e, ERR_INPUT, "decision rule: step %ld must be at least 1", r->step);
	if (!decide_is_test(r->test) && r->max != r->first)
		return err_set(e, ERR_INPUT, "decision rule: %s has no grey zone to extend: set max = first",
			       decide_test_name(r->test));
	if (r->test == DECIDE_MARGIN && r->margin < 1)
		return err_set(e, ERR_INPUT, "decision rule: margin %ld must be at least 1", r->margin);
	return 0;
}

static int counts_check(const struct decide_counts *c, struct err *e)
{
	if (c->base_n < 1 || c->base_n > EXACT_MAX_N || c->base_pass < 0 || c->base_pass > c->base_n)
		return err_set(e, ERR_INPUT, "decision: baseline %ld/%ld is not a pass count (1..%d trials)",
			       c->base_pass, c->base_n, EXACT_MAX_N);
	if (c->cand_n < 1 || c->cand_n > EXACT_MAX_N || c->cand_pass < 0 || c->cand_pass > c->cand_n)
		return err_set(e, ERR_INPUT, "decision: candidate %ld/%ld is not a pass count (1..%d trials)",
			       c->cand_pass, c->cand_n, EXACT_MAX_N);
	return 0;
}

/* The screens' verdict: accepted or not, no grey zone. */
static bool screen_accepts(const struct decide_rule *r, long x, long na, long y, long nb)
{
	if (r->test == DECIDE_STRICT)
		return y * na > x * nb;
	return y * na - x * nb >= r->margin * na;
}

enum decide_verdict decide_step(int cls, bool last, int cmp, bool tie_extends)
{
	if (cls == 0)
		return DECIDE_ACCEPT;
	if (last)
		return DECIDE_REJECT;
	if (cmp > 0 && cls == 1)
		return DECIDE_EXTEND;
	if (cmp == 0 && tie_extends)
		return DECIDE_EXTEND;
	return DECIDE_REJECT;
}

const char *decide_what(enum decide_verdict v, int cmp, bool last)
{
	if (v == DECIDE_ACCEPT)
		return "accepted";
	if (v == DECIDE_EXTEND)
		return cmp == 0 ? "tied, higher mean reward: more trials"
				: "ahead but not significant: more trials";
	if (cmp == 0)
		return last ? "tied at the last look: rejected" : "tied: rejected";
	if (cmp < 0)
		return "behind the baseline: rejected";
	return last ? "not significant at the last look: rejected"
		    : "p above the grey zone: rejected";
}

/* decide_step at one table of a look. */
static enum decide_verdict rule_at(long x, long na, long y, long nb, int cls, bool last,
				   bool tie_extends)
{
	int cmp = y * na > x * nb ? 1 : y * na == x * nb ? 0 : -1;
	return decide_step(cls, last, cmp, tie_extends);
}

long decide_next_base(const struct decide_rule *r, long base_n)
{
	if (!r->extend_baseline)
		return base_n;
	long n = base_n + r->step < r->max ? base_n + r->step : r->max;
	return n > base_n ? n : base_n;
}

long decide_next_cand(const struct decide_rule *r, long cand_n)
{
	return cand_n + r->step < r->max ? cand_n + r->step : r->max;
}

int decide_verdict(const struct decide_rule *r, const struct decide_counts *c, struct decide_result *out,
		   struct err *e)
{
	if (decide_rule_check(r, e) < 0 || counts_check(c, e) < 0)
		return -1;
	memset(out, 0, sizeof *out);
	long x = c->base_pass, na = c->base_n, y = c->cand_pass, nb = c->cand_n;
	out->next_base_n = na;
	out->next_cand_n = nb;
	if (!decide_is_test(r->test)) {
		out->p = NAN;
		out->verdict = screen_accepts(r, x, na, y, nb) ? DECIDE_ACCEPT : DECIDE_REJECT;
		snprintf(out->why, sizeof out->why, "%ld/%ld vs baseline %ld/%ld: %s by the %s screen", y, nb, x, na,
			 out->verdict == DECIDE_ACCEPT ? "accepted" : "rejected", decide_test_name(r->test));
		return 0;
	}
	out->p = r->test == DECIDE_FISHER ? exact_fisher(x, na, y, nb) : exact_barnard(x, na, y, nb);
	bool last = nb >= r->max, tie = y * na == x * nb;
	bool better_reward = !isnan(c->cand_reward) && !isnan(c->base_reward) && c->cand_reward > c->base_reward;
	double level = decide_level(r);
	int cls = exact_at_most(out->p, level) ? 0 : exact_at_most(out->p, r->grey) ? 1 : 2;
	out->verdict = rule_at(x, na, y, nb, cls, last, r->reward_tiebreak && better_reward);
	const char *what = decide_what(out->verdict, y * na > x * nb ? 1 : tie ? 0 : -1, last);
	snprintf(out->why, sizeof out->why, "%ld/%ld vs baseline %ld/%ld: %s p = %.4g %s level %.4g: %s", y, nb,
		 x, na, decide_test_name(r->test), out->p, cls == 0 ? "<=" : ">", level, what);
	if (out->verdict == DECIDE_EXTEND) {
		out->next_base_n = decide_next_base(r, na);
		out->next_cand_n = decide_next_cand(r, nb);
	}
	return 0;
}

/* ------------------------------------------------- operating characteristics */

/* Every look of the rule from base_first and r->first trials: the trial
 * counts and the class of each table (see rule_at). */
struct look {
	long na, nb;
	unsigned char *cls;
};
struct plan {
	struct look *v;
	size_t n;
};

static void plan_free(struct plan *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->v[i].cls);
	free(pl->v);
	memset(pl, 0, sizeof *pl);
}

static int plan_build(const struct decide_rule *r, long base_first, struct plan *pl, struct err *e)
{
	memset(pl, 0, sizeof *pl);
	if (decide_rule_check(r, e) < 0)
		return -1;
	if (base_first < 1 || base_first > EXACT_MAX_N)
		return err_set(e, ERR_INPUT, "decision: %ld baseline trials (need 1..%d)", base_first, EXACT_MAX_N);
	size_t looks = (size_t)((r->max - r->first + r->step - 1) / r->step) + 1;
	pl->v = xcalloc(looks, sizeof *pl->v);
	long na = base_first, nb = r->first;
	for (size_t k = 0; k < looks; k++) {
		struct look *l = &pl->v[pl->n++];
		l->na = na;
		l->nb = nb;
		l->cls = xmalloc((size_t)(na + 1) * (size_t)(nb + 1));
		if (decide_is_test(r->test)) {
			exact_classify(r->test == DECIDE_BARNARD, na, nb, decide_level(r), r->grey,
				       l->cls);
		} else {
			for (long x = 0; x <= na; x++)
				for (long y = 0; y <= nb; y++)
					l->cls[x * (nb + 1) + y] = screen_accepts(r, x, na, y, nb) ? 0 : 2;
		}
		na = decide_next_base(r, na);
		nb = decide_next_cand(r, nb);
	}
	return 0;
}

struct run {
	double accept, mean_b;
};

/* Pushes the binomial outcomes of both arms through every look. */
static struct run plan_run(const struct plan *pl, double pa, double pb, bool tie_extends)
{
	struct run out = { 0, 0 };
	const struct look *l0 = &pl->v[0];
	double *mass = xcalloc((size_t)(l0->na + 1) * (size_t)(l0->nb + 1), sizeof *mass);
	for (long x = 0; x <= l0->na; x++)
		for (long y = 0; y <= l0->nb; y++)
			mass[x * (l0->nb + 1) + y] = exact_binom_pmf(l0->na, x, pa) * exact_binom_pmf(l0->nb, y, pb);
	for (size_t k = 0; k < pl->n; k++) {
		const struct look *l = &pl->v[k];
		bool last = k + 1 == pl->n;
		const struct look *nx = last ? NULL : &pl->v[k + 1];
		long da = nx ? nx->na - l->na : 0, db = nx ? nx->nb - l->nb : 0;
		double *next = nx ? xcalloc((size_t)(nx->na + 1) * (size_t)(nx->nb + 1), sizeof *next) : NULL;
		double *ba = xmalloc((size_t)(da + 1) * sizeof *ba), *bb = xmalloc((size_t)(db + 1) * sizeof *bb);
		for (long i = 0; i <= da; i++)
			ba[i] = exact_binom_pmf(da, i, pa);
		for (long j = 0; j <= db; j++)
			bb[j] = exact_binom_pmf(db, j, pb);
		for (long x = 0; x <= l->na; x++)
			for (long y = 0; y <= l->nb; y++) {
				double m = mass[x * (l->nb + 1) + y];
				if (m == 0)
					continue;
				enum decide_verdict v =
					rule_at(x, l->na, y, l->nb, l->cls[x * (l->nb + 1) + y], last, tie_extends);
				if (v == DECIDE_EXTEND) {
					for (long i = 0; i <= da; i++)
						for (long j = 0; j <= db; j++)
							next[(x + i) * (nx->nb + 1) + y + j] += m * ba[i] * bb[j];
					continue;
				}
				if (v == DECIDE_ACCEPT)
					out.accept += m;
				out.mean_b += m * (double)l->nb;
			}
		free(ba);
		free(bb);
		free(mass);
		mass = next;
	}
	free(mass);
	return out;
}

static bool rate_ok(double p)
{
	return p >= 0 && p <= 1;
}

int decide_oc(const struct decide_rule *r, long base_first, double p_base, double p_cand, struct decide_oc *out,
	      struct err *e)
{
	if (!rate_ok(p_base) || !rate_ok(p_cand))
		return err_set(e, ERR_INPUT, "decision: pass rates %g, %g must be between 0 and 1", p_base, p_cand);
	struct plan pl;
	if (plan_build(r, base_first, &pl, e) < 0)
		return -1;
	struct run hi = plan_run(&pl, p_base, p_cand, r->reward_tiebreak);
	struct run lo = r->reward_tiebreak ? plan_run(&pl, p_base, p_cand, false) : hi;
	*out = (struct decide_oc){ p_base, p_cand, hi.accept, lo.accept, hi.mean_b };
	plan_free(&pl);
	return 0;
}

#define WORST_GRID 100

double decide_worst_false_accept(const struct decide_rule *r, long base_first, double *at, struct err *e)
{
	struct plan pl;
	if (plan_build(r, base_first, &pl, e) < 0)
		return -1;
	bool ties = r->reward_tiebreak;
	double best = 0, best_pi = 0;
	for (int i = 1; i < WORST_GRID; i++) {
		double pi = (double)i / WORST_GRID, f = plan_run(&pl, pi, pi, ties).accept;
		if (f > best) {
			best = f;
			best_pi = pi;
		}
	}
	/* golden-section search around the best grid point */
	const double g = (sqrt(5) - 1) / 2;
	double lo = best_pi - 1.0 / WORST_GRID, hi = best_pi + 1.0 / WORST_GRID;
	double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
	double f1 = plan_run(&pl, x1, x1, ties).accept, f2 = plan_run(&pl, x2, x2, ties).accept;
	for (int it = 0; it < 40; it++) {
		if (f1 < f2) {
			lo = x1;
			x1 = x2;
			f1 = f2;
			x2 = lo + g * (hi - lo);
			f2 = plan_run(&pl, x2, x2, ties).accept;
		} else {
			hi = x2;
			x2 = x1;
			f2 = f1;
			x1 = hi - g * (hi - lo);
			f1 = plan_run(&pl, x1, x1, ties).accept;
		}
	}
	if (f1 > best) {
		best = f1;
		best_pi = x1;
	}
	if (f2 > best) {
		best = f2;
		best_pi = x2;
	}
	plan_free(&pl);
	if (at)
		*at = best_pi;
	return best;
}

int decide_calibrate(struct decide_rule *r, long base_first, struct err *e)
{
	if (decide_rule_check(r, e) < 0)
		return -1;
	if (!decide_is_test(r->test))
		return 0;
	struct decide_rule t = *r;
	t.level = r->alpha;
	double worst = decide_worst_false_accept(&t, base_first, NULL, e);
	if (worst < 0)
		return -1;
	if (exact_at_most(worst, r->alpha)) {
		r->level = r->alpha;
		return 0;
	}
	double lo = 0, hi = r->alpha; /* lo keeps the rate <= alpha, hi does not */
	for (int it = 0; it < 20; it++) {
		t.level = (lo + hi) / 2;
		worst = decide_worst_false_accept(&t, base_first, NULL, e);
		if (worst < 0)
			return -1;
		if (exact_at_most(worst, r->alpha))
			lo = t.level;
		else
			hi = t.level;
	}
	if (lo <= 0)
		return err_set(e, ERR_INPUT, "decision rule: no level keeps the false-accept rate at most %g",
			       r->alpha);
	r->level = lo;
	return 0;
}

/* ------------------------------------------------------------- decision.json */

static double r6(double v)
{
	return round_to(v, 6);
}

static void set_num_or_null(cJSON *o, const char *k, double v)
{
	if (isnan(v))
		json_set(o, k, cJSON_CreateNull());
	else
		json_set_num(o, k, r6(v));
}

cJSON *decide_rule_json(const struct decide_rule *r)
{
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "test", decide_test_name(r->test));
	if (decide_is_test(r->test)) {
		json_set_num(o, "alpha", r->alpha);
		json_set_num(o, "level", decide_level(r));
		json_set_num(o, "grey", r->grey);
	}
	if (r->test == DECIDE_MARGIN)
		json_set_num(o, "margin", (double)r->margin);
	json_set_num(o, "first", (double)r->first);
	json_set_num(o, "max", (double)r->max);
	json_set_num(o, "step", (double)r->step);
	json_set(o, "extend_baseline", cJSON_CreateBool(r->extend_baseline));
	json_set(o, "reward_tiebreak", cJSON_CreateBool(r->reward_tiebreak));
	return o;
}

static cJSON *arm_json(long passed, long n, double reward)
{
	cJSON *o = cJSON_CreateObject();
	json_set_num(o, "passed", (double)passed);
	json_set_num(o, "trials", (double)n);
	set_num_or_null(o, "mean_reward", reward);
	return o;
}

const char *decide_effect_kind(const struct decide_effect *f)
{
	return f->p_cand > f->p_base ? "gain" : f->p_cand < f->p_base ? "regression" : "useless";
}

cJSON *decide_json(const struct decide_rule *r, const struct decide_counts *c, long base_first,
		   const struct decide_effect *effects, size_t n, struct err *e)
{
	struct decide_result res;
	if (decide_verdict(r, c, &res, e) < 0)
		return NULL;
	if (!n) {
		effects = decide_table_effects;
		n = ARRAY_LEN(decide_table_effects);
	}
	double at;
	double worst = decide_worst_false_accept(r, base_first, &at, e);
	if (worst < 0)
		return NULL;
	cJSON *ops = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		struct decide_oc oc;
		if (decide_oc(r, base_first, effects[i].p_base, effects[i].p_cand, &oc, e) < 0) {
			cJSON_Delete(ops);
			return NULL;
		}
		cJSON *o = cJSON_CreateObject();
		json_set_num(o, "p_base", effects[i].p_base);
		json_set_num(o, "p_cand", effects[i].p_cand);
		json_set_str(o, "kind", decide_effect_kind(&effects[i]));
		json_set_num(o, "accept", r6(oc.accept));
		json_set_num(o, "accept_min", r6(oc.accept_min));
		json_set_num(o, "mean_candidate_trials", r6(oc.mean_cand_trials));
		cJSON_AddItemToArray(ops, o);
	}
	cJSON *doc = cJSON_CreateObject();
	json_set(doc, "rule", decide_rule_json(r));
	cJSON *counts = cJSON_CreateObject();
	json_set(counts, "baseline", arm_json(c->base_pass, c->base_n, c->base_reward));
	json_set(counts, "candidate", arm_json(c->cand_pass, c->cand_n, c->cand_reward));
	json_set(doc, "counts", counts);
	json_set_str(doc, "verdict", decide_verdict_name(res.verdict));
	set_num_or_null(doc, "p_value", res.p);
	json_set_str(doc, "why", res.why);
	if (res.verdict == DECIDE_EXTEND) {
		cJSON *nx = cJSON_CreateObject();
		json_set_num(nx, "baseline", (double)res.next_base_n);
		json_set_num(nx, "candidate", (double)res.next_cand_n);
		json_set(doc, "next", nx);
	}
	cJSON *fa = cJSON_CreateObject();
	json_set_num(fa, "worst", r6(worst));
	json_set_num(fa, "worst_at", r6(at));
	json_set_num(fa, "baseline_trials", (double)base_first);
	json_set(doc, "false_accept", fa);
	json_set(doc, "operating", ops);
	return doc;
}
