/* The operating characteristics of the stratified test (across.h): exact
 * by enumerating the multisets of per-task outcomes (the test does not
 * depend on the tasks' order), else Monte Carlo; and the plans built on
 * them. */
#include "report/across.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/decide.h"
#include "report/exact.h"

/* ---------------------------------------------------------------- exact */

struct walk {
	size_t k;
	long na, nb, cells;
	double alpha, *lp; /* log chance of cell j = a * (nb + 1) + b */
	double **dist;     /* dist[d]: the null after d strata */
	double accept;
};

/* Strata depth..k-1 take cells >= from (a multiset); last/run: the cell
 * chosen last and how often in a row; logw: log of the multinomial
 * coefficient so far plus the cells' log chances. */
static void walk(struct walk *w, size_t depth, long from, long run, long obs, double logw)
{
	if (depth == w->k) {
		if (exact_at_most(across_tail(w->dist[depth], (long)depth * w->nb, obs), w->alpha))
			w->accept += exp(logw);
		return;
	}
	for (long c = from; c < w->cells; c++) {
		if (w->lp[c] == -INFINITY)
			continue;
		long a = c / (w->nb + 1), b = c % (w->nb + 1);
		long r = c == from && depth > 0 ? run : 0;
		across_convolve(w->dist[depth], (long)depth * w->nb, w->dist[depth + 1], w->na,
		                w->nb, a + b);
		walk(w, depth + 1, c, r + 1, obs + b, logw + log((double)depth + 1) - log((double)r + 1) + w->lp[c]);
	}
}

static double exact_oc(size_t k, long na, long nb, double pa, double pb, double alpha)
{
	struct walk w = { k, na, nb, (na + 1) * (nb + 1), alpha, NULL, NULL, 0 };
	w.lp = xcalloc((size_t)w.cells, sizeof *w.lp);
	for (long c = 0; c < w.cells; c++) {
		double q = exact_binom_pmf(na, c / (nb + 1), pa) * exact_binom_pmf(nb, c % (nb + 1), pb);
		w.lp[c] = q > 0 ? log(q) : -INFINITY;
	}
	w.dist = xcalloc(k + 1, sizeof *w.dist);
	for (size_t d = 0; d <= k; d++)
		w.dist[d] = xcalloc((size_t)(d * (size_t)nb) + 1, sizeof **w.dist);
	w.dist[0][0] = 1;
	walk(&w, 0, 0, 0, 0, 0);
	for (size_t d = 0; d <= k; d++)
		free(w.dist[d]);
	free(w.dist);
	free(w.lp);
	return w.accept > 1 ? 1 : w.accept;
}

/* ---------------------------------------------------------------- Monte Carlo */

long across_binom_draw(uint64_t *s, long n, double p)
{
	long c = 0;
	for (long i = 0; i < n; i++)
		c += (double)(splitmix64(s) >> 11) * 0x1.0p-53 < p;
	return c;
}

double across_strat_mc(size_t k, long na, long nb, double pa, double pb, double alpha, long draws)
{
	uint64_t seed = 20261202; /* fixed: the same figures every time */
	double *d0 = xcalloc((size_t)k * (size_t)nb + 1, sizeof *d0), *d1 = xcalloc((size_t)k * (size_t)nb + 1, sizeof *d1);
	long hits = 0;
	for (long i = 0; i < draws; i++) {
		long top = 0, obs = 0;
		d0[0] = 1;
		for (size_t j = 0; j < k; j++) {
			long a = across_binom_draw(&seed, na, pa);
			long b = across_binom_draw(&seed, nb, pb);
			across_convolve(d0, top, d1, na, nb, a + b);
			top += nb;
			obs += b;
			double *t = d0;
			d0 = d1;
			d1 = t;
		}
		hits += exact_at_most(across_tail(d0, top, obs), alpha);
	}
	free(d0);
	free(d1);
	return (double)hits / (double)draws;
}

int across_strat_oc(size_t k, long n_base, long n_cand, double p_base, double p_cand, double alpha, long draws,
		    struct across_oc *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (!k || k > ACROSS_MAX_TASKS || n_base < 1 || n_cand < 1 || n_base > EXACT_MAX_N || n_cand > EXACT_MAX_N)
		return err_set(e, ERR_INPUT, "the stratified test takes 1 to %d tasks of 1 to %d trials per arm",
			       ACROSS_MAX_TASKS, EXACT_MAX_N);
	if (!(alpha > 0 && alpha < 1) || !(p_base >= 0 && p_base <= 1) || !(p_cand >= 0 && p_cand <= 1) || draws < 1)
		return err_set(e, ERR_INPUT, "alpha and pass rates must lie in [0, 1], draws be at least 1");
	long cells = (n_base + 1) * (n_cand + 1);
	/* how many multisets of k cells: C(k + cells - 1, k) */
	double multisets = exp(across_log_choose((long)k + cells - 1, (long)k));
	if (multisets <= (double)ACROSS_EXACT_OUTCOMES) {
		out->accept = exact_oc(k, n_base, n_cand, p_base, p_cand, alpha);
		out->exact = true;
	} else {
		out->accept = across_strat_mc(k, n_base, n_cand, p_base, p_cand, alpha, draws);
		out->draws = draws;
		out->se = sqrt(out->accept * (1 - out->accept) / (double)draws);
	}
	return 0;
}

double across_strat_worst(size_t k, long n_base, long n_cand, double alpha, long draws, double *at, struct err *e)
{
	double worst = -1, where = 0;
	for (int i = 1; i <= 19; i++) {
		struct across_oc oc;
		double pi = 0.05 * i;
		if (across_strat_oc(k, n_base, n_cand, pi, pi, alpha, draws, &oc, e) < 0)
			return -1;
		if (oc.accept > worst) {
			worst = oc.accept;
			where = pi;
		}
	}
	if (at)
		*at = where;
	return worst;
}

/* ---------------------------------------------------------------- plans */

static int plan_check(double p_base, double effect, double power, double alpha, struct err *e)
{
	if (!(effect > 0) || !(p_base >= 0) || !(p_base + effect <= 1))
		return err_set(e, ERR_INPUT, "--effect must be above 0 and --base + --effect at most 1 (pass rates)");
	if (!(power > 0 && power < 1) || !(alpha > 0 && alpha < 1))
		return err_set(e, ERR_INPUT, "--power and --alpha must lie between 0 and 1");
	return 0;
}

long across_plan_trials(int test, double p_base, double effect, double power, double alpha, double *got,
			struct err *e)
{
	if (plan_check(p_base, effect, power, alpha, e) < 0)
		return -1;
	*got = 0;
	for (long n = 1; n <= EXACT_MAX_N; n++) {
		struct decide_rule r;
		struct decide_oc oc;
		decide_rule_init(&r, (enum decide_test)test, alpha, n);
		if (decide_oc(&r, n, p_base, p_base + effect, &oc, e) < 0)
			return -1;
		*got = oc.accept;
		if (oc.accept >= power)
			return n;
	}
	return 0;
}

long across_plan_tasks(long per_task, double p_base, double effect, double power, double alpha, long max_tasks,
		       double *got, struct err *e)
{
	if (plan_check(p_base, effect, power, alpha, e) < 0)
		return -1;
	if (max_tasks < 1 || max_tasks > ACROSS_MAX_TASKS)
		return err_set(e, ERR_INPUT, "at most %d tasks", ACROSS_MAX_TASKS);
	struct across_oc oc;
	if (across_strat_oc((size_t)max_tasks, per_task, per_task, p_base, p_base + effect, alpha, 2000, &oc, e) < 0)
		return -1;
	*got = oc.accept;
	if (oc.accept < power)
		return 0;
	/* power grows with the tasks: bisect for the fewest that reach it */
	long lo = 1, hi = max_tasks;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (across_strat_oc((size_t)mid, per_task, per_task, p_base, p_base + effect, alpha, 2000, &oc, e) < 0)
			return -1;
		if (oc.accept >= power)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (across_strat_oc((size_t)lo, per_task, per_task, p_base, p_base + effect, alpha, 2000, &oc, e) < 0)
		return -1;
	*got = oc.accept;
	return lo;
}
