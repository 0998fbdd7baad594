/* Statistics across tasks (report/across.h): the stratified test against
 * the table an independent Python script computed in exact arithmetic
 * (tests/helpers/strata-exact.py -> tests/fixtures/stats/strata-cases.txt),
 * against Fisher's test for one task, its operating characteristics
 * exact against Monte Carlo and against decide.h's one-task figures, and
 * the sign test, Holm, the interval and the normalized gain by hand. */
#include <math.h>

#include "t.h"

#include "base/fs.h"
#include "report/across.h"
#include "report/decide.h"
#include "report/exact.h"

static bool near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * (fabs(b) > 1e-300 ? fabs(b) : 1);
}

/* "a/na:b/nb,..." -> tasks; the count */
static size_t parse_strata(const char *s, struct across_task *t, size_t max)
{
	size_t k = 0;
	while (*s && *s != ' ' && k < max) {
		int used = 0;
		if (sscanf(s, "%ld/%ld:%ld/%ld%n", &t[k].base_pass, &t[k].base_n, &t[k].cand_pass, &t[k].cand_n, &used) != 4)
			return 0;
		t[k++].name = "t";
		s += used;
		if (*s == ',')
			s++;
	}
	return k;
}

static void test_strat_matches_python_table(void)
{
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	CHECK(fs_read("tests/fixtures/stats/strata-cases.txt", 0, &b, &e) == 0);
	int cases = 0;
	for (char *line = b.data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		struct across_task t[16];
		size_t k = parse_strata(line, t, 16);
		const char *sp = strchr(line, ' ');
		CHECK(k > 0 && sp);
		if (!k || !sp)
			continue;
		double want = strtod(sp + 1, NULL), got = across_strat_p(t, k);
		if (!near(got, want, 1e-9))
			printf("case %s: got %.15g\n", line, got);
		CHECK(near(got, want, 1e-9));
		cases++;
	}
	CHECK(cases >= 15);
	buf_free(&b);
}

/* One stratum is Fisher's exact test. */
static void test_strat_one_task_is_fisher(void)
{
	for (long a = 0; a <= 6; a++)
		for (long c = 0; c <= 5; c++) {
			struct across_task t = { "x", a, 6, c, 5 };
			CHECK(near(across_strat_p(&t, 1), exact_fisher(a, 6, c, 5), 1e-12));
		}
	struct across_task bad = { "x", 4, 3, 1, 3 };
	CHECK(across_strat_p(&bad, 1) < 0);
}

static void test_sign_and_holm(void)
{
	CHECK(near(across_sign_p(5, 0), 1.0 / 32, 1e-12));
	CHECK(near(across_sign_p(4, 1), 6.0 / 32, 1e-12));
	CHECK(near(across_sign_p(0, 0), 1, 0));
	double p[] = { 0.01, 0.04, 0.03, 0.20 }, adj[4];
	across_holm(p, 4, adj);
	/* sorted .01 .03 .04 .20: x4, x3, x2, x1 = .04 .09 .08->.09 .20 */
	CHECK(near(adj[0], 0.04, 1e-12));
	CHECK(near(adj[2], 0.09, 1e-12));
	CHECK(near(adj[1], 0.09, 1e-12));
	CHECK(near(adj[3], 0.20, 1e-12));
}

static void test_compute_by_hand(void)
{
	/* deltas 2/3, 1/3, 0, -1/3: mean 1/6, sd = sqrt(5/27) */
	struct across_task t[] = { { "a", 1, 3, 3, 3 }, { "b", 0, 3, 1, 3 }, { "c", 2, 3, 2, 3 }, { "d", 2, 3, 1, 3 } };
	struct across_result r;
	struct err e = { 0 };
	CHECK(across_compute(t, 4, &r, &e) == 0);
	CHECK(near(r.mean_delta, 1.0 / 6, 1e-12));
	double half = 3.182 * sqrt(5.0 / 27) / 2;
	CHECK(near(r.lo, 1.0 / 6 - half, 1e-9));
	CHECK(near(r.hi, 1.0 / 6 + half, 1e-9));
	CHECK(near(r.base_rate, 5.0 / 12, 1e-12));
	CHECK(near(r.cand_rate, 7.0 / 12, 1e-12));
	CHECK(near(r.norm_gain, (2.0 / 12) / (7.0 / 12), 1e-12));
	CHECK_INT(r.wins, 2);
	CHECK_INT(r.losses, 1);
	CHECK_INT(r.ties, 1);
	CHECK(near(r.sign_p, 0.5, 1e-12));
	CHECK(near(r.task_p[0], exact_fisher(1, 3, 3, 3), 1e-12));
	across_free(&r);
	struct across_task bad[] = { { "zz", 1, 0, 1, 3 } };
	CHECK(across_compute(bad, 1, &r, &e) < 0);
	CHECK(strstr(e.msg, "task 'zz'") != NULL);
}

/* For one task the stratified test is Fisher's, so its power is decide.h's. */
static void test_oc_one_task_matches_decide(void)
{
	struct decide_rule r;
	decide_rule_init(&r, DECIDE_FISHER, 0.10, 6);
	struct decide_oc want;
	struct err e = { 0 };
	CHECK(decide_oc(&r, 6, 0.4, 0.7, &want, &e) == 0);
	struct across_oc got;
	CHECK(across_strat_oc(1, 6, 6, 0.4, 0.7, 0.10, 1000, &got, &e) == 0);
	CHECK(got.exact);
	CHECK(near(got.accept, want.accept, 1e-9));
}

/* Exact enumeration and Monte Carlo agree within a few standard errors. */
static void test_oc_exact_vs_monte_carlo(void)
{
	struct across_oc ex, mc;
	struct err e = { 0 };
	CHECK(across_strat_oc(4, 3, 3, 0.4, 0.7, 0.10, 1000, &ex, &e) == 0);
	CHECK(ex.exact);
	double m = across_strat_mc(4, 3, 3, 0.4, 0.7, 0.10, 20000), se = sqrt(m * (1 - m) / 20000);
	CHECK(fabs(m - ex.accept) <= 4 * se);
	/* 12 tasks of 3: too many outcomes to enumerate */
	CHECK(across_strat_oc(12, 3, 3, 0.5, 0.5, 0.10, 4000, &mc, &e) == 0);
	CHECK(!mc.exact);
	CHECK(mc.draws == 4000 && mc.se > 0);
	CHECK(mc.accept <= 0.10 + 4 * mc.se);
	/* exact under the null: never above alpha */
	double at, worst = across_strat_worst(3, 3, 3, 0.10, 1000, &at, &e);
	CHECK(worst > 0 && worst <= 0.10 + 1e-9);
	/* more tasks, more power */
	CHECK(across_strat_oc(12, 3, 3, 0.4, 0.7, 0.10, 4000, &mc, &e) == 0);
	CHECK(mc.accept > ex.accept);
}

static void test_plan(void)
{
	struct err e = { 0 };
	double got;
	long n = across_plan_trials(DECIDE_FISHER, 0.5, 0.2, 0.8, 0.10, &got, &e);
	CHECK(n > 20 && n < 120);
	CHECK(got >= 0.8);
	long k = across_plan_tasks(3, 0.5, 0.2, 0.8, 0.10, 200, &got, &e);
	CHECK(k > 3 && k < 200);
	CHECK(got >= 0.8);
	CHECK(across_plan_trials(DECIDE_FISHER, 0.9, 0.2, 0.8, 0.10, &got, &e) < 0);
}

int main(void)
{
	RUN(test_strat_matches_python_table);
	RUN(test_strat_one_task_is_fisher);
	RUN(test_sign_and_holm);
	RUN(test_compute_by_hand);
	RUN(test_oc_one_task_matches_decide);
	RUN(test_oc_exact_vs_monte_carlo);
	RUN(test_plan);
	T_EXIT();
}
