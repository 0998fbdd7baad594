/* The Deep rule over several tasks (report/pooled.h): with one task it is
 * decide.h's Fisher rule, verdict for verdict and (within the Monte Carlo
 * error) figure for figure; over several tasks its p-value is across.h's
 * stratified one; calibration bounds its false-accept rate where the
 * uncalibrated rule exceeds it; pooling tasks buys power; bad input is
 * refused. */
#include <math.h>
#include <string.h>

#include "t.h"

#include "base/json.h"
#include "report/exact.h"
#include "report/pooled.h"

static void seq_rule(struct decide_rule *r, long first, long max, bool ext)
{
	decide_rule_init(r, DECIDE_FISHER, 0.10, first);
	r->max = max;
	r->extend_baseline = ext;
}

static void test_one_task_is_fishers_rule(void)
{
	struct decide_rule r;
	seq_rule(&r, 3, 12, true);
	struct err e = { 0 };
	long looks[][2] = { { 3, 3 }, { 6, 6 }, { 12, 12 } };
	for (size_t l = 0; l < ARRAY_LEN(looks); l++)
		for (long x = 0; x <= looks[l][0]; x++)
			for (long y = 0; y <= looks[l][1]; y++)
				for (int rw = 0; rw < 2; rw++) {
					struct across_task t = { "a", x, looks[l][0], y,
						                 looks[l][1] };
					struct decide_counts c = { x,   looks[l][0],
						                   y,   looks[l][1],
						                   0.5, rw ? 0.7 : 0.3 };
					struct decide_result d;
					struct pooled_result p;
					CHECK(decide_verdict(&r, &c, &d, &e) == 0);
					CHECK(pooled_verdict(&r, &t, 1, 0.5, rw ? 0.7 : 0.3, &p,
					                     &e) == 0);
					CHECK(fabs(p.p - d.p) < 1e-9);
					CHECK_INT(p.verdict, d.verdict);
					CHECK_INT(p.next_base_n, d.next_base_n);
					CHECK_INT(p.next_cand_n, d.next_cand_n);
				}
}

/* The Monte Carlo figures of one task against decide.h's exact ones. */
static void test_one_task_figures_match_exact(void)
{
	struct {
		long first, max;
		bool ext;
	} rules[] = { { 6, 6, false }, { 3, 12, false }, { 3, 6, true } };
	struct err e = { 0 };
	for (size_t i = 0; i < ARRAY_LEN(rules); i++) {
		struct decide_rule r;
		seq_rule(&r, rules[i].first, rules[i].max, rules[i].ext);
		for (size_t f = 0; f < ARRAY_LEN(decide_table_effects); f++) {
			const struct decide_effect *ef = &decide_table_effects[f];
			struct decide_oc d;
			struct pooled_oc p;
			CHECK(decide_oc(&r, r.first, ef->p_base, ef->p_cand, &d, &e) == 0);
			CHECK(pooled_oc(&r, 1, r.first, ef->p_base, ef->p_cand, 20000, &p, &e) ==
			      0);
			CHECK(fabs(p.accept - d.accept) <= 4 * p.se + 1e-3);
			CHECK(fabs(p.mean_cand_trials - d.mean_cand_trials) < 0.1);
		}
	}
}

static void test_several_tasks(void)
{
	struct decide_rule r;
	seq_rule(&r, 3, 12, true);
	struct err e = { 0 };
	struct across_task t[] = { { "a", 1, 3, 3, 3 }, { "b", 0, 3, 2, 3 } };
	struct pooled_result p;
	CHECK(pooled_verdict(&r, t, 2, NAN, NAN, &p, &e) == 0);
	CHECK(fabs(p.p - across_strat_p(t, 2)) < 1e-12);
	CHECK(fabs(p.p - 0.04) < 1e-9); /* P(3 of a's 4 passes) P(2 of b's 2) = 3/15 * 3/15 */
	CHECK_INT(p.verdict, DECIDE_ACCEPT);
	CHECK(strstr(p.why, "2 tasks, 5 vs baseline 1 passes") != NULL);
	/* ahead, not significant: every task's arms get the next look's trials */
	struct across_task u[] = { { "a", 1, 3, 2, 3 }, { "b", 1, 3, 2, 3 } };
	CHECK(pooled_verdict(&r, u, 2, NAN, NAN, &p, &e) == 0);
	CHECK_INT(p.verdict, DECIDE_EXTEND);
	CHECK_INT(p.next_base_n, 6);
	CHECK_INT(p.next_cand_n, 6);
	/* one task ahead, one behind by as much: a tie, rejected without a reward */
	struct across_task v[] = { { "a", 1, 3, 2, 3 }, { "b", 2, 3, 1, 3 } };
	CHECK(pooled_verdict(&r, v, 2, NAN, NAN, &p, &e) == 0);
	CHECK_INT(p.verdict, DECIDE_REJECT);
	CHECK(pooled_verdict(&r, v, 2, 0.2, 0.4, &p, &e) == 0);
	CHECK_INT(p.verdict, DECIDE_EXTEND);
	/* the record: per-stratum counts, the stratified p */
	cJSON *doc = pooled_json(&r, t, 2, NAN, NAN, 3, 2000, NULL, 0, &e);
	CHECK(doc != NULL);
	CHECK_STR(json_str(json_get(doc, "rule"), "test"), "stratified");
	CHECK_INT(cJSON_GetArraySize(json_get(doc, "strata")), 2);
	CHECK(fabs(cJSON_GetObjectItem(doc, "p_value")->valuedouble - 0.04) < 1e-9);
	CHECK_INT(cJSON_GetArraySize(json_get(doc, "operating")), 4);
	cJSON_Delete(doc);
}

static void test_calibration(void)
{
	struct decide_rule r;
	seq_rule(&r, 3, 12, true);
	struct err e = { 0 };
	double at;
	double raw = pooled_worst(&r, 2, 3, 4000, &at, &e);
	CHECK(raw > 0.10); /* every extra look is a chance to cross by luck */
	CHECK(pooled_calibrate(&r, 2, 3, 4000, &e) == 0);
	CHECK(r.level > 0 && r.level < 0.10);
	CHECK(pooled_worst(&r, 2, 3, 4000, &at, &e) <= 0.10 + 1e-9);
	/* a one-look rule needs none */
	seq_rule(&r, 3, 3, false);
	CHECK(pooled_calibrate(&r, 3, 3, 4000, &e) == 0);
	CHECK(fabs(r.level - 0.10) < 1e-12);
}

static void test_pooling_buys_power(void)
{
	struct decide_rule r;
	seq_rule(&r, 3, 3, false);
	struct err e = { 0 };
	struct pooled_oc one, three;
	CHECK(pooled_oc(&r, 1, 3, .4, .7, 4000, &one, &e) == 0);
	CHECK(pooled_oc(&r, 3, 3, .4, .7, 4000, &three, &e) == 0);
	CHECK(three.accept > one.accept + 0.2);
}

static void test_bad_input(void)
{
	struct decide_rule r;
	seq_rule(&r, 3, 3, false);
	struct err e = { 0 };
	struct pooled_result p;
	struct across_task bad[] = { { "a", 4, 3, 1, 3 } };
	CHECK(pooled_verdict(&r, bad, 1, NAN, NAN, &p, &e) < 0 && e.code == ERR_INPUT);
	CHECK(pooled_verdict(&r, bad, 0, NAN, NAN, &p, &e) < 0);
	decide_rule_init(&r, DECIDE_STRICT, 0.10, 3);
	struct across_task ok[] = { { "a", 1, 3, 1, 3 } };
	CHECK(pooled_verdict(&r, ok, 1, NAN, NAN, &p, &e) < 0);
}

int main(void)
{
	RUN(test_one_task_is_fishers_rule);
	RUN(test_one_task_figures_match_exact);
	RUN(test_several_tasks);
	RUN(test_calibration);
	RUN(test_pooling_buys_power);
	RUN(test_bad_input);
	T_EXIT();
}
