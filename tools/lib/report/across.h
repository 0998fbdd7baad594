/* across.h — statistics across tasks: one baseline and one candidate arm
 * on each of several tasks, judged with the task as the unit
 * (optimization.md §8: per-task paired differences, clustered by task,
 * paired tests across tasks, a multiple-comparison correction when each
 * task is judged on its own). docs/statistics.md explains every figure. */
#ifndef SKILLC_REPORT_ACROSS_H
#define SKILLC_REPORT_ACROSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>

#include "base/util.h"

/* The largest number of tasks (strata) the functions take. */
#define ACROSS_MAX_TASKS 1000

/* One task: the baseline passed base_pass of base_n scored trials, the
 * candidate cand_pass of cand_n (both n >= 1, at most EXACT_MAX_N). */
struct across_task {
	const char *name;
	long base_pass, base_n, cand_pass, cand_n;
};

/* One-sided exact sign test over tasks: the chance of wins or more of
 * wins + losses fair coin flips (ties are dropped). 1 when no task differs. */
double across_sign_p(long wins, long losses);

/* Holm's step-down adjustment of n p-values (Holm 1979): sorted
 * ascending, the j-th smallest (0-based) becomes max over i <= j of
 * min(1, (n - i) p_(i)). adj[i] belongs to p[i]. */
void across_holm(const double *p, size_t n, double *adj);

/* The exact stratified test of a common odds ratio (tasks as strata, the
 * exact conditional test behind Mantel-Haenszel): given each task's total
 * passes, the candidate's passes in task i are hypergeometric when the
 * skill changes nothing; their sum's distribution is the convolution of
 * those. The one-sided p-value is the chance that the sum is at least the
 * observed one. -1 when a count is out of range or k is 0 or too large. */
double across_strat_p(const struct across_task *t, size_t k);

/* Everything a report says about a set of tasks. */
struct across_result {
	size_t tasks;
	double base_rate, cand_rate;  /* means over tasks of the per-task pass rates */
	double mean_delta, lo, hi;    /* mean per-task difference, 95% t interval across tasks (NAN below 2 tasks) */
	double norm_gain;             /* (cand_rate - base_rate) / (1 - base_rate); NAN when base_rate is 1 */
	long wins, losses, ties;
	double sign_p, strat_p;       /* one-sided: the sign test, the stratified test */
	double *delta, *task_p, *task_holm; /* per task: difference, one-sided Fisher p, Holm-adjusted; owned */
};

/* -1 with e set (ERR_INPUT naming the task) on bad counts. Free with across_free. */
int across_compute(const struct across_task *t, size_t k, struct across_result *r, struct err *e);
void across_free(struct across_result *r);

/* The stratified test's chance of accepting at level alpha when each of k
 * tasks gives n_base baseline and n_cand candidate trials, passing with
 * p_base and p_cand. Exact (every outcome enumerated) when there are at
 * most ACROSS_EXACT_OUTCOMES outcomes, else a Monte Carlo estimate over
 * draws seeded samples (se its standard error). */
#define ACROSS_EXACT_OUTCOMES 2000000L
struct across_oc {
	double accept, se;
	bool exact;
	long draws;
};
int across_strat_oc(size_t k, long n_base, long n_cand, double p_base, double p_cand, double alpha, long draws,
		    struct across_oc *out, struct err *e);

/* The Monte Carlo estimate alone (draws seeded samples), whatever the count:
 * what across_strat_oc falls back on, callable to check it against the
 * exact figure. */
double across_strat_mc(size_t k, long n_base, long n_cand, double p_base, double p_cand, double alpha, long draws);

/* The seeded draws behind the Monte Carlo figures (pooled.h's too): a
 * binomial count of n trials from a splitmix64 stream (base/util.h). */
long across_binom_draw(uint64_t *s, long n, double p);

/* The largest accept rate over a common pass rate (both arms equal) on a
 * grid of 19 rates 0.05 .. 0.95: the stratified test's false-accept rate. */
double across_strat_worst(size_t k, long n_base, long n_cand, double alpha, long draws, double *at, struct err *e);

/* What a claim needs. trials: the fewest trials per arm on one task for
 * the one-look rule of decide.h (test, alpha) to accept a gain p_base ->
 * p_base + effect with at least the given power (0 when even EXACT_MAX_N
 * is not enough); tasks: the fewest tasks, each with per_task trials per
 * arm, for the stratified test (0 when even max_tasks is not enough).
 * *got gets the power reached. */
long across_plan_trials(int test, double p_base, double effect, double power, double alpha, double *got,
			struct err *e);
long across_plan_tasks(long per_task, double p_base, double effect, double power, double alpha, long max_tasks,
		       double *got, struct err *e);

/* { tasks, base_rate, cand_rate, mean_delta, ci95: [lo, hi], normalized_gain,
 *   sign_test: {wins, losses, ties, p}, stratified: {p},
 *   per_task: [{task, baseline: {passed, trials}, candidate: {...}, delta, p, p_holm}],
 *   alpha, verdict: accept|reject (stratified p <= alpha),
 *   power_at_observed: x, too_small: bool (power_at_observed < 0.8) }
 * rounded to 6 decimals. NULL with e set on bad counts; caller frees. */
/* JSON pieces shared with pooled.c: a number rounded to 6 places (null when
 * not finite) and a task's counts {"task", "baseline", "candidate"}, each arm
 * {"passed", "trials"}. */
cJSON *across_num6(double v);
cJSON *across_task_json(const struct across_task *t);

/* The stratified test's pieces shared with acrossoc.c: log C(n, k); the
 * hypergeometric null of one stratum (na baseline and nb candidate trials,
 * tot passes) convolved into from (0..top) -> to (0..top + nb); the chance
 * of dist (0..top) from obs up. */
double across_log_choose(long n, long k);
void across_convolve(const double *from, long top, double *to, long na, long nb, long tot);
double across_tail(const double *dist, long top, long obs);

cJSON *across_json(const struct across_task *t, size_t k, double alpha, struct err *e);

#endif
