#include "report/across.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/decide.h"
#include "report/exact.h"
#include "report/stats.h"

double across_log_choose(long n, long k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

double across_sign_p(long wins, long losses)
{
	long n = wins + losses;
	if (n <= 0)
		return 1;
	double p = 0;
	for (long j = wins; j <= n; j++)
		p += exp(across_log_choose(n, j) - (double)n * log(2.0));
	return p > 1 ? 1 : p;
}

static int cmp_idx(const void *x, const void *y, void *ctx)
{
	const double *p = ctx;
	double a = p[*(const size_t *)x], b = p[*(const size_t *)y];
	return a < b ? -1 : a > b ? 1 : 0;
}

void across_holm(const double *p, size_t n, double *adj)
{
	size_t *ord = xcalloc(n ? n : 1, sizeof *ord);
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof *ord, cmp_idx, (void *)p);
	double run = 0;
	for (size_t j = 0; j < n; j++) {
		double v = (double)(n - j) * p[ord[j]];
		if (v > 1)
			v = 1;
		if (v > run)
			run = v;
		adj[ord[j]] = run;
	}
	free(ord);
}

static bool task_ok(const struct across_task *t)
{
	return t->base_n >= 1 && t->cand_n >= 1 && t->base_n <= EXACT_MAX_N && t->cand_n <= EXACT_MAX_N &&
	       t->base_pass >= 0 && t->base_pass <= t->base_n && t->cand_pass >= 0 && t->cand_pass <= t->cand_n;
}

void across_convolve(const double *from, long top, double *to, long na, long nb, long tot)
{
	long lo = tot - na > 0 ? tot - na : 0, hi = tot < nb ? tot : nb;
	memset(to, 0, (size_t)(top + nb + 1) * sizeof *to);
	double denom = across_log_choose(na + nb, tot);
	for (long x = lo; x <= hi; x++) {
		double h = exp(across_log_choose(nb, x) + across_log_choose(na, tot - x) - denom);
		for (long s = 0; s <= top; s++)
			to[s + x] += from[s] * h;
	}
}

double across_tail(const double *dist, long top, long obs)
{
	double p = 0;
	for (long s = obs; s <= top; s++)
		p += dist[s];
	return p;
}

/* The p-value from per-stratum arrays (no checks). */
static double strat_p_raw(size_t k, const long *na, const long *nb, const long *a, const long *b)
{
	long max = 0, obs = 0;
	for (size_t i = 0; i < k; i++) {
		max += nb[i];
		obs += b[i];
	}
	double *dist = xcalloc((size_t)max + 1, sizeof *dist), *scratch = xcalloc((size_t)max + 1, sizeof *scratch);
	long top = 0;
	dist[0] = 1;
	for (size_t i = 0; i < k; i++) {
		across_convolve(dist, top, scratch, na[i], nb[i], a[i] + b[i]);
		top += nb[i];
		memcpy(dist, scratch, (size_t)(top + 1) * sizeof *dist);
	}
	double p = across_tail(dist, top, obs);
	free(dist);
	free(scratch);
	return p > 1 ? 1 : p;
}

double across_strat_p(const struct across_task *t, size_t k)
{
	if (!k || k > ACROSS_MAX_TASKS)
		return -1;
	long *v = xcalloc(4 * k, sizeof *v);
	double p = 0;
	for (size_t i = 0; i < k && p >= 0; i++) {
		if (!task_ok(&t[i]))
			p = -1;
		v[i] = t[i].base_n;
		v[k + i] = t[i].cand_n;
		v[2 * k + i] = t[i].base_pass;
		v[3 * k + i] = t[i].cand_pass;
	}
	if (p >= 0)
		p = strat_p_raw(k, v, v + k, v + 2 * k, v + 3 * k);
	free(v);
	return p;
}

/* ---------------------------------------------------------------- one set of tasks */

static void summary_of(const struct across_task *t, size_t k, struct across_result *r)
{
	double sb = 0, sc = 0, sd = 0;
	for (size_t i = 0; i < k; i++) {
		double pb = (double)t[i].base_pass / (double)t[i].base_n, pc = (double)t[i].cand_pass / (double)t[i].cand_n;
		r->delta[i] = pc - pb;
		sb += pb;
		sc += pc;
		sd += pc - pb;
		r->wins += pc > pb;
		r->losses += pc < pb;
		r->ties += pc == pb;
		r->task_p[i] = exact_fisher(t[i].base_pass, t[i].base_n, t[i].cand_pass, t[i].cand_n);
	}
	r->base_rate = sb / (double)k;
	r->cand_rate = sc / (double)k;
	r->mean_delta = sd / (double)k;
	r->lo = r->hi = NAN;
	if (k >= 2) {
		double ss = 0;
		for (size_t i = 0; i < k; i++)
			ss += (r->delta[i] - r->mean_delta) * (r->delta[i] - r->mean_delta);
		double half = stats_t95((long)k - 1) * sqrt(ss / (double)(k - 1)) / sqrt((double)k);
		r->lo = r->mean_delta - half;
		r->hi = r->mean_delta + half;
	}
	r->norm_gain = r->base_rate < 1 ? (r->cand_rate - r->base_rate) / (1 - r->base_rate) : NAN;
}

int across_compute(const struct across_task *t, size_t k, struct across_result *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	if (!k || k > ACROSS_MAX_TASKS)
		return err_set(e, ERR_INPUT, "between 1 and %d tasks, not %zu", ACROSS_MAX_TASKS, k);
	for (size_t i = 0; i < k; i++)
		if (!task_ok(&t[i]))
			return err_set(e, ERR_INPUT, "task '%s': counts %ld/%ld and %ld/%ld are out of range (1 to %d trials per arm)",
				       t[i].name ? t[i].name : "?", t[i].base_pass, t[i].base_n, t[i].cand_pass, t[i].cand_n,
				       EXACT_MAX_N);
	r->tasks = k;
	r->delta = xcalloc(k, sizeof *r->delta);
	r->task_p = xcalloc(k, sizeof *r->task_p);
	r->task_holm = xcalloc(k, sizeof *r->task_holm);
	summary_of(t, k, r);
	across_holm(r->task_p, k, r->task_holm);
	r->sign_p = across_sign_p(r->wins, r->losses);
	r->strat_p = across_strat_p(t, k);
	return 0;
}

void across_free(struct across_result *r)
{
	free(r->delta);
	free(r->task_p);
	free(r->task_holm);
	memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- JSON */

cJSON *across_num6(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(round_to(v, 6)) : cJSON_CreateNull();
}

static cJSON *arm(long pass, long n)
{
	cJSON *o = cJSON_CreateObject();
	json_set_num(o, "passed", (double)pass);
	json_set_num(o, "trials", (double)n);
	return o;
}

cJSON *across_task_json(const struct across_task *t)
{
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "task", t->name ? t->name : "");
	json_set(o, "baseline", arm(t->base_pass, t->base_n));
	json_set(o, "candidate", arm(t->cand_pass, t->cand_n));
	return o;
}

static cJSON *per_task(const struct across_task *t, size_t k, const struct across_result *r)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < k; i++) {
		cJSON *o = across_task_json(&t[i]);
		json_set(o, "delta", across_num6(r->delta[i]));
		json_set(o, "p", across_num6(r->task_p[i]));
		json_set(o, "p_holm", across_num6(r->task_holm[i]));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The stratified test's power at this run's size (the mean trials per arm)
 * for the gain it observed; NAN when it observed none. */
static int observed_power(const struct across_task *t, size_t k, const struct across_result *r, double alpha,
			  struct across_oc *oc, struct err *e)
{
	long nb = 0, nc = 0;
	for (size_t i = 0; i < k; i++) {
		nb += t[i].base_n;
		nc += t[i].cand_n;
	}
	nb = (long)lround((double)nb / (double)k);
	nc = (long)lround((double)nc / (double)k);
	if (!(r->cand_rate > r->base_rate)) {
		oc->accept = NAN;
		return 0;
	}
	return across_strat_oc(k, nb, nc, r->base_rate, r->cand_rate, alpha, 2000, oc, e);
}

cJSON *across_json(const struct across_task *t, size_t k, double alpha, struct err *e)
{
	struct across_result r;
	struct across_oc oc = { 0 };
	if (across_compute(t, k, &r, e) < 0 || observed_power(t, k, &r, alpha, &oc, e) < 0) {
		across_free(&r);
		return NULL;
	}
	cJSON *o = cJSON_CreateObject();
	json_set_num(o, "tasks", (double)r.tasks);
	json_set(o, "base_rate", across_num6(r.base_rate));
	json_set(o, "cand_rate", across_num6(r.cand_rate));
	json_set(o, "mean_delta", across_num6(r.mean_delta));
	cJSON *ci = json_set(o, "ci95", cJSON_CreateArray());
	cJSON_AddItemToArray(ci, across_num6(r.lo));
	cJSON_AddItemToArray(ci, across_num6(r.hi));
	json_set(o, "normalized_gain", across_num6(r.norm_gain));
	cJSON *s = json_set(o, "sign_test", cJSON_CreateObject());
	json_set_num(s, "wins", (double)r.wins);
	json_set_num(s, "losses", (double)r.losses);
	json_set_num(s, "ties", (double)r.ties);
	json_set(s, "p", across_num6(r.sign_p));
	json_set(json_set(o, "stratified", cJSON_CreateObject()), "p", across_num6(r.strat_p));
	json_set(o, "alpha", across_num6(alpha));
	json_set_str(o, "verdict", exact_at_most(r.strat_p, alpha) ? "accept" : "reject");
	json_set(o, "power_at_observed", across_num6(oc.accept));
	json_set(o, "power_exact", cJSON_CreateBool(oc.exact));
	json_set(o, "too_small", cJSON_CreateBool(isfinite(oc.accept) && oc.accept < 0.8));
	json_set(o, "per_task", per_task(t, k, &r));
	across_free(&r);
	return o;
}
