/* decide_test.c — report/exact, report/decide, report/paired: the exact
 * tests against known values and against brute force, the acceptance rule
 * against the table of optimization.md §8, the sequential rule's dynamic
 * program against an enumeration of every path, and the runtime ratios. */
#include <math.h>

#include "base/json.h"
#include "report/decide.h"
#include "report/exact.h"
#include "report/paired.h"
#include "t.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static void test_fisher_known_values(void)
{
	/* optimization.md §8 at N = 6 and N = 3, as exact fractions of C(12, 6) = 924 and C(6, 3) = 20 */
	CHECK(NEAR(exact_fisher(0, 6, 6, 6), 1.0 / 924, 1e-12));
	CHECK(NEAR(exact_fisher(2, 6, 6, 6), 28.0 / 924, 1e-12));
	CHECK(NEAR(exact_fisher(1, 6, 5, 6), 37.0 / 924, 1e-12));
	CHECK(NEAR(exact_fisher(2, 6, 5, 6), 112.0 / 924, 1e-12));
	CHECK(NEAR(exact_fisher(1, 6, 4, 6), 112.0 / 924, 1e-12));
	CHECK(NEAR(exact_fisher(0, 3, 3, 3), 0.05, 1e-12));
	CHECK(NEAR(exact_fisher(3, 3, 0, 3), 1.0, 1e-12)); /* the candidate is worse: nothing to show */
	CHECK(NEAR(exact_fisher(2, 5, 2, 5), 186.0 / 252, 1e-12)); /* a tie: 1 - P(B = 0) - P(B = 1) */
	CHECK(exact_fisher(0, 0, 1, 1) == -1);
	CHECK(exact_fisher(4, 3, 1, 3) == -1);
}

static double pooled_z(long x, long na, long y, long nb)
{
	double p = (double)(x + y) / (double)(na + nb);
	if (p <= 0 || p >= 1)
		return 0;
	return ((double)y / (double)nb - (double)x / (double)na) / sqrt(p * (1 - p) * (1.0 / na + 1.0 / nb));
}

/* The Barnard p-value the slow way: every table, a dense grid of pi. */
static double barnard_brute(long a, long na, long b, long nb)
{
	double zo = pooled_z(a, na, b, nb), best = 0;
	for (int i = 0; i <= 20000; i++) {
		double pi = i / 20000.0, sum = 0;
		for (long x = 0; x <= na; x++)
			for (long y = 0; y <= nb; y++) {
				double z = pooled_z(x, na, y, nb);
				if (z >= zo - 1e-9 * (1 + fabs(zo)))
					sum += exact_binom_pmf(na, x, pi) * exact_binom_pmf(nb, y, pi);
			}
		if (sum > best)
			best = sum;
	}
	return best;
}

static void test_barnard_known_values(void)
{
	/* 2/10 vs 7/9: R's Barnard package with a 1e-6 grid of the nuisance
	 * parameter gives 0.009886140845 (the value scipy's tests quote) */
	CHECK(NEAR(exact_barnard(2, 10, 7, 9), 0.009886140845, 1e-10));
	/* 3/3 vs 0/3: only that table is as extreme; max of pi^3 (1-pi)^3 */
	CHECK(NEAR(exact_barnard(0, 3, 3, 3), 1.0 / 64, 1e-12));
	CHECK(NEAR(exact_barnard(3, 3, 3, 3), 1.0, 1e-12));
	CHECK(exact_barnard(0, 3, 4, 3) == -1);
	static const long cases[][4] = { { 0, 4, 3, 4 }, { 1, 5, 4, 5 }, { 2, 6, 5, 6 }, { 1, 3, 5, 6 },
					 { 0, 6, 2, 4 }, { 3, 7, 3, 5 }, { 2, 5, 1, 5 } };
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const long *c = cases[i];
		double ours = exact_barnard(c[0], c[1], c[2], c[3]), brute = barnard_brute(c[0], c[1], c[2], c[3]);
		/* the grid can only miss the top, never exceed it */
		CHECK(ours >= brute - 1e-12);
		CHECK(ours <= brute + 1e-6);
	}
}

static void test_classify_matches_pvalues(void)
{
	for (int barnard = 0; barnard < 2; barnard++)
		for (long na = 3; na <= 7; na += 4)
			for (long nb = 2; nb <= 6; nb += 2) {
				unsigned char cls[64];
				CHECK(exact_classify(barnard, na, nb, 0.1, 0.5, cls) == 0);
				for (long x = 0; x <= na; x++)
					for (long y = 0; y <= nb; y++) {
						double p = barnard ? exact_barnard(x, na, y, nb) : exact_fisher(x, na, y, nb);
						int want = exact_at_most(p, 0.1) ? 0 : exact_at_most(p, 0.5) ? 1 : 2;
						CHECK_INT(cls[x * (nb + 1) + y], want);
					}
			}
}

/* optimization.md §8: P(accept) of each one-look rule at N trials per arm,
 * for a useless edit (.5 -> .5), real gains (.4 -> .7, .3 -> .8) and a
 * regression (.6 -> .4), to the table's three decimals. */
static const struct table_row {
	const char *test;
	double alpha;
	long n;
	double useless, gain47, gain38, regression;
} table8[] = {
	{ "strict", 0, 3, 0.344, 0.648, 0.832, 0.179 },
	{ "strict", 0, 6, 0.387, 0.789, 0.947, 0.158 },
	{ "margin", 0, 3, 0.109, 0.318, 0.533, 0.041 },
	{ "margin", 0, 6, 0.194, 0.584, 0.844, 0.057 },
	{ "fisher", 0.10, 3, 0.016, 0.074, 0.176, 0.004 },
	{ "fisher", 0.10, 6, 0.029, 0.191, 0.447, 0.005 },
	{ "fisher", 0.05, 6, 0.019, 0.150, 0.389, 0.003 },
	{ "strict", 0, 10, 0.412, 0.880, 0.987, 0.128 },
};

static void test_false_accept_matches_optimization_table(void)
{
	for (size_t i = 0; i < ARRAY_LEN(table8); i++) {
		const struct table_row *t = &table8[i];
		struct decide_rule r;
		decide_rule_init(&r, (enum decide_test)decide_test_from(t->test), t->alpha ? t->alpha : 0.1, t->n);
		/* the rates as decision.json records them */
		struct decide_counts c = { 0, t->n, 0, t->n, NAN, NAN };
		struct err e;
		cJSON *doc = decide_json(&r, &c, t->n, NULL, 0, &e);
		CHECK(doc != NULL);
		const cJSON *ops = json_get(doc, "operating");
		CHECK_INT(cJSON_GetArraySize(ops), 4);
		const double want[4] = { t->useless, t->gain47, t->gain38, t->regression };
		for (int k = 0; k < 4 && cJSON_GetArraySize(ops) == 4; k++) {
			const cJSON *o = cJSON_GetArrayItem(ops, k);
			double got = json_num(o, "accept", -1);
			if (!NEAR(got, want[k], 0.0005))
				printf("FAIL %s: row %zu (%s N=%ld) column %d: %.4f, table %.3f\n", t_case_name, i,
				       t->test, t->n, k, got, want[k]), t_case_failed = 1;
			CHECK(json_num(o, "accept_min", -1) == got); /* one look: no tie to extend */
		}
		CHECK_STR(json_str(cJSON_GetArrayItem(ops, 0), "kind"), "useless");
		CHECK_STR(json_str(cJSON_GetArrayItem(ops, 3), "kind"), "regression");
		cJSON_Delete(doc);
	}
}

/* decide_verdict, remembered per counts (all <= 8 here): the path
 * enumeration below asks the same question thousands of times. */
struct memo {
	signed char verdict, next_a, next_b;
};
static struct memo memo[2][9][9][9][9];

static struct memo memo_verdict(const struct decide_rule *r, const struct decide_counts *c, bool ties)
{
	struct memo *m = &memo[ties][c->base_n][c->base_pass][c->cand_n][c->cand_pass];
	if (m->verdict < 0) {
		struct decide_result res;
		struct err e;
		if (decide_verdict(r, c, &res, &e) < 0)
			res.verdict = DECIDE_REJECT;
		*m = (struct memo){ (signed char)res.verdict, (signed char)res.next_base_n,
				    (signed char)res.next_cand_n };
	}
	return *m;
}

/* The slow way for a sequential rule: every sequence of max outcomes per
 * arm, each walked through the looks with decide_verdict. */
static double accept_by_paths(const struct decide_rule *r, long base_first, double pa, double pb, bool ties)
{
	long nbase = r->extend_baseline && r->max > base_first ? r->max : base_first;
	long bits = nbase + r->max;
	double total = 0;
	memset(memo, -1, sizeof memo);
	for (long m = 0; m < (1L << bits); m++) {
		double w = 1;
		for (long i = 0; i < bits; i++) {
			bool pass = (m >> i) & 1;
			double p = i < nbase ? pa : pb;
			w *= pass ? p : 1 - p;
		}
		long na = base_first, nb = r->first;
		for (;;) {
			struct decide_counts c = { 0, na, 0, nb, ties ? 0 : NAN, ties ? 1 : NAN };
			for (long i = 0; i < na; i++)
				c.base_pass += (m >> i) & 1;
			for (long i = 0; i < nb; i++)
				c.cand_pass += (m >> (nbase + i)) & 1;
			struct memo v = memo_verdict(r, &c, ties);
			if (v.verdict == DECIDE_ACCEPT)
				total += w;
			if (v.verdict != DECIDE_EXTEND)
				break;
			na = v.next_a;
			nb = v.next_b;
		}
	}
	return total;
}

static void test_sequential_program_matches_every_path(void)
{
	static const struct {
		enum decide_test test;
		long base_first, first, max, step;
		bool extend_baseline;
	} rules[] = {
		{ DECIDE_FISHER, 2, 2, 6, 2, true },  { DECIDE_BARNARD, 2, 2, 6, 2, true },
		{ DECIDE_FISHER, 3, 3, 8, 3, false }, { DECIDE_BARNARD, 4, 2, 7, 3, false },
	};
	static const double rates[][2] = { { .5, .5 }, { .4, .7 }, { .6, .4 }, { .2, .9 } };
	for (size_t i = 0; i < ARRAY_LEN(rules); i++) {
		struct decide_rule r;
		decide_rule_init(&r, rules[i].test, 0.2, rules[i].first);
		r.max = rules[i].max;
		r.step = rules[i].step;
		r.extend_baseline = rules[i].extend_baseline;
		for (size_t k = 0; k < ARRAY_LEN(rates); k++) {
			struct decide_oc oc;
			struct err e;
			CHECK(decide_oc(&r, rules[i].base_first, rates[k][0], rates[k][1], &oc, &e) == 0);
			CHECK(NEAR(oc.accept, accept_by_paths(&r, rules[i].base_first, rates[k][0], rates[k][1], true),
				   1e-12));
			CHECK(NEAR(oc.accept_min,
				   accept_by_paths(&r, rules[i].base_first, rates[k][0], rates[k][1], false), 1e-12));
			CHECK(oc.accept_min <= oc.accept);
			CHECK(oc.mean_cand_trials >= (double)r.first && oc.mean_cand_trials <= (double)r.max);
		}
	}
}

static void test_verdicts(void)
{
	struct decide_rule r;
	decide_rule_init(&r, DECIDE_FISHER, 0.10, 6);
	r.max = 12;
	r.step = 3;
	struct decide_result res;
	struct err e;
	static const struct {
		long a, na, b, nb;
		double ra, rb;
		enum decide_verdict want;
		long next;
		const char *why;
	} cases[] = {
		{ 1, 6, 5, 6, NAN, NAN, DECIDE_ACCEPT, 6, "accepted" },
		{ 2, 6, 4, 6, NAN, NAN, DECIDE_EXTEND, 9, "ahead but not significant" },
		{ 3, 6, 3, 6, NAN, NAN, DECIDE_REJECT, 6, "tied: rejected" },
		{ 3, 6, 3, 6, 0.5, 0.7, DECIDE_EXTEND, 9, "tied, higher mean reward" },
		{ 3, 6, 3, 6, 0.7, 0.5, DECIDE_REJECT, 6, "tied: rejected" },
		{ 3, 6, 6, 12, 0.5, 0.9, DECIDE_REJECT, 12, "tied at the last look" },
		{ 4, 6, 2, 6, NAN, NAN, DECIDE_REJECT, 6, "behind the baseline" },
		{ 3, 6, 8, 12, NAN, NAN, DECIDE_REJECT, 12, "not significant at the last look" },
		{ 1, 6, 10, 12, NAN, NAN, DECIDE_ACCEPT, 12, "accepted" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct decide_counts c = { cases[i].a, cases[i].na, cases[i].b, cases[i].nb, cases[i].ra, cases[i].rb };
		CHECK(decide_verdict(&r, &c, &res, &e) == 0);
		CHECK_STR(decide_verdict_name(res.verdict), decide_verdict_name(cases[i].want));
		CHECK_INT(res.next_cand_n, cases[i].next);
		if (!strstr(res.why, cases[i].why))
			printf("FAIL %s: case %zu: why '%s' lacks '%s'\n", t_case_name, i, res.why, cases[i].why),
				t_case_failed = 1;
	}
	/* the last extension stops at max */
	r.max = 10;
	struct decide_counts c = { 2, 6, 6, 9, NAN, NAN };
	CHECK(decide_verdict(&r, &c, &res, &e) == 0);
	CHECK_INT(res.verdict, DECIDE_EXTEND);
	CHECK_INT(res.next_cand_n, 10);
	CHECK_INT(res.next_base_n, 6);
	r.extend_baseline = true;
	CHECK(decide_verdict(&r, &c, &res, &e) == 0);
	CHECK_INT(res.next_base_n, 9);
	/* no tie-break: a tie is a reject even with a higher reward */
	r.reward_tiebreak = false;
	struct decide_counts tie = { 3, 6, 3, 6, 0.1, 0.9 };
	CHECK(decide_verdict(&r, &tie, &res, &e) == 0);
	CHECK_INT(res.verdict, DECIDE_REJECT);
}

static void test_bad_rules_and_counts(void)
{
	struct decide_rule r;
	struct decide_result res;
	struct err e;
	struct decide_counts ok = { 1, 3, 2, 3, NAN, NAN }, bad = { 4, 3, 2, 3, NAN, NAN };
	decide_rule_init(&r, DECIDE_FISHER, 0.1, 3);
	CHECK(decide_verdict(&r, &bad, &res, &e) == -1);
	CHECK_INT(e.code, ERR_INPUT);
	CHECK(strstr(e.msg, "baseline 4/3") != NULL);
	static const struct {
		double alpha, level, grey;
		long first, max, step;
		enum decide_test test;
		const char *msg;
	} rules[] = {
		{ 0, 0, 0.5, 3, 3, 3, DECIDE_FISHER, "alpha" },
		{ 0.6, 0, 0.5, 3, 3, 3, DECIDE_FISHER, "grey" },
		{ 0.1, 0.2, 0.5, 3, 3, 3, DECIDE_FISHER, "level" },
		{ 0.1, 0, 0.5, 3, 2, 3, DECIDE_FISHER, "first" },
		{ 0.1, 0, 0.5, 3, 6, 0, DECIDE_FISHER, "step" },
		{ 0.1, 0, 0.5, 3, 6, 3, DECIDE_STRICT, "no grey zone" },
		{ 0.1, 0, 0.5, 3, 300, 3, DECIDE_BARNARD, "200" },
	};
	for (size_t i = 0; i < ARRAY_LEN(rules); i++) {
		decide_rule_init(&r, rules[i].test, rules[i].alpha, rules[i].first);
		r.level = rules[i].level;
		r.grey = rules[i].grey;
		r.max = rules[i].max;
		r.step = rules[i].step;
		CHECK(decide_verdict(&r, &ok, &res, &e) == -1);
		if (!strstr(e.msg, rules[i].msg))
			printf("FAIL %s: rule %zu: '%s' lacks '%s'\n", t_case_name, i, e.msg, rules[i].msg),
				t_case_failed = 1;
	}
	decide_rule_init(&r, DECIDE_FISHER, 0.1, 3);
	struct decide_oc oc;
	CHECK(decide_oc(&r, 3, 1.5, 0.5, &oc, &e) == -1);
	CHECK(decide_oc(&r, 0, 0.5, 0.5, &oc, &e) == -1);
	CHECK(decide_json(&r, &bad, 3, NULL, 0, &e) == NULL);
}

static void test_calibration_bounds_the_false_accept_rate(void)
{
	struct decide_rule r;
	struct err e;
	/* one look: an exact test's size is at most its level, so nothing changes */
	decide_rule_init(&r, DECIDE_BARNARD, 0.10, 6);
	CHECK(decide_calibrate(&r, 6, &e) == 0);
	CHECK(r.level == 0.10);
	double at, worst = decide_worst_false_accept(&r, 6, &at, &e);
	CHECK(worst > 0.09 && worst <= 0.10);
	/* Barnard from 3 to 12 trials, the baseline extended too: at level
	 * 0.10 every look is another chance and the rate passes 0.10 */
	decide_rule_init(&r, DECIDE_BARNARD, 0.10, 3);
	r.max = 12;
	r.step = 3;
	r.extend_baseline = true;
	CHECK(decide_worst_false_accept(&r, 3, NULL, &e) > 0.12);
	CHECK(decide_calibrate(&r, 3, &e) == 0);
	CHECK(r.level > 0.05 && r.level < 0.10);
	worst = decide_worst_false_accept(&r, 3, &at, &e);
	CHECK(worst <= 0.10 * (1 + 1e-7));
	/* and it still beats the one-look rule on a real gain */
	struct decide_oc seq, one;
	CHECK(decide_oc(&r, 3, .4, .7, &seq, &e) == 0);
	struct decide_rule r6;
	decide_rule_init(&r6, DECIDE_BARNARD, 0.10, 6);
	CHECK(decide_oc(&r6, 6, .4, .7, &one, &e) == 0);
	CHECK(seq.accept_min > one.accept);
}

static void test_decision_json(void)
{
	struct decide_rule r;
	decide_rule_init(&r, DECIDE_FISHER, 0.10, 3);
	r.max = 9;
	r.step = 3;
	struct decide_counts c = { 1, 3, 2, 3, 0.4, 0.6 };
	struct err e;
	struct decide_effect fx[] = { { .5, .5 }, { .3, .9 } };
	cJSON *doc = decide_json(&r, &c, 3, fx, 2, &e);
	CHECK(doc != NULL);
	CHECK_STR(json_str(doc, "verdict"), "extend");
	CHECK(NEAR(json_num(doc, "p_value", -1), 0.5, 1e-9));
	CHECK_INT(json_num(json_get(doc, "next"), "candidate", -1), 6);
	CHECK_STR(json_str(json_get(doc, "rule"), "test"), "fisher");
	CHECK(json_num(json_get(doc, "rule"), "level", -1) == 0.10);
	CHECK_INT(json_num(json_get(json_get(doc, "counts"), "candidate"), "passed", -1), 2);
	CHECK(json_num(json_get(doc, "false_accept"), "worst", -1) > 0);
	CHECK_INT(cJSON_GetArraySize(json_get(doc, "operating")), 2);
	CHECK_STR(json_str(cJSON_GetArrayItem(json_get(doc, "operating"), 1), "kind"), "gain");
	cJSON_Delete(doc);
	/* a screen has no p-value */
	decide_rule_init(&r, DECIDE_STRICT, 0.10, 3);
	doc = decide_json(&r, &c, 3, NULL, 0, &e);
	CHECK(doc != NULL && cJSON_IsNull(json_get(doc, "p_value")));
	CHECK_STR(json_str(doc, "verdict"), "accept");
	cJSON_Delete(doc);
}

static void test_paired_ratios(void)
{
	const double base[] = { 100, 200, NAN, 100, 0 }, cand[] = { 110, 300, 50, 90, 10 };
	struct paired_ratio r;
	paired_ratio(base, 5, cand, 5, &r); /* pairs 0, 1, 3: 1.1, 1.5, 0.9 */
	CHECK_INT(r.pairs, 3);
	CHECK(NEAR(r.median, 1.1, 1e-12));
	CHECK(NEAR(r.max, 1.5, 1e-12));
	paired_ratio(base, 2, cand, 5, &r); /* only the first two pairs: even median */
	CHECK(NEAR(r.median, 1.3, 1e-12));
	paired_ratio(base, 0, cand, 5, &r);
	CHECK_INT(r.pairs, 0);
	CHECK(isnan(r.median));

	const double tb[] = { 1000, 1200, 900 }, tc[] = { 2100, 2300, 1900 };
	const double sb[] = { 10, 12, 9 }, sc[] = { 10, 12, 10 };
	const double none[] = { NAN, NAN, NAN };
	struct paired_metric m[] = { { "tokens", tb, tc, 3, 3 }, { "steps", sb, sc, 3, 3 } };
	struct buf why = BUF_INIT;
	CHECK_INT(paired_check(m, 2, 1.10, &why), PAIRED_OVER);
	CHECK(strstr(why.data, "tokens: median ratio 2.10 > 1.10 over 3 pairs") != NULL);
	CHECK(strstr(why.data, "steps") == NULL);
	buf_reset(&why);
	CHECK_INT(paired_check(&m[1], 1, 1.10, &why), PAIRED_WITHIN);
	CHECK(why.len == 0);
	struct paired_metric u[] = { { "steps", sb, sc, 3, 3 }, { "seconds", none, none, 3, 3 } };
	CHECK_INT(paired_check(u, 2, 1.10, &why), PAIRED_UNKNOWN);
	CHECK(strstr(why.data, "seconds: no pair") != NULL);
	buf_free(&why);
}

int main(void)
{
	RUN(test_fisher_known_values);
	RUN(test_barnard_known_values);
	RUN(test_classify_matches_pvalues);
	RUN(test_false_accept_matches_optimization_table);
	RUN(test_sequential_program_matches_every_path);
	RUN(test_verdicts);
	RUN(test_bad_rules_and_counts);
	RUN(test_calibration_bounds_the_false_accept_rate);
	RUN(test_decision_json);
	RUN(test_paired_ratios);
	T_EXIT();
}
