#include "report/exact.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

bool exact_at_most(double p, double level)
{
	return p <= level * (1 + 1e-7);
}

static double log_choose(long n, long k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

double exact_binom_pmf(long n, long k, double x)
{
	if (k < 0 || k > n)
		return 0;
	if (x <= 0)
		return k == 0 ? 1 : 0;
	if (x >= 1)
		return k == n ? 1 : 0;
	return exp(log_choose(n, k) + (double)k * log(x) + (double)(n - k) * log1p(-x));
}

static bool counts_ok(long a, long na, long b, long nb)
{
	return na >= 1 && nb >= 1 && na <= EXACT_MAX_N && nb <= EXACT_MAX_N && a >= 0 && a <= na && b >= 0 &&
	       b <= nb;
}

double exact_fisher(long a, long na, long b, long nb)
{
	if (!counts_ok(a, na, b, nb))
		return -1;
	long n = na + nb, k = a + b;
	long hi = k < nb ? k : nb;
	/* P(B = j) for j = b..hi, each from the one before:
	 * P(j+1) / P(j) = (k-j)(nb-j) / ((j+1)(n-k-nb+j+1)) */
	double pj = exp(log_choose(k, b) + log_choose(n - k, nb - b) - log_choose(n, nb));
	double sum = 0;
	for (long j = b; j <= hi; j++) {
		sum += pj;
		if (j < hi)
			pj *= (double)(k - j) * (double)(nb - j) / ((double)(j + 1) * (double)(n - k - nb + j + 1));
	}
	return sum > 1 ? 1 : sum;
}

/* ---------------------------------------------------------------- Barnard */

/* The pooled score statistic of one table (x of na baseline passes, y of
 * nb candidate passes). */
static double score_z(long x, long na, long y, long nb)
{
	double p = (double)(x + y) / (double)(na + nb);
	if (p <= 0 || p >= 1)
		return 0;
	double se = sqrt(p * (1 - p) * (1.0 / (double)na + 1.0 / (double)nb));
	return ((double)y / (double)nb - (double)x / (double)na) / se;
}

/* Two statistics this close are the same value computed two ways. */
static bool same_z(double u, double v)
{
	return fabs(u - v) <= 1e-9 * (1 + fabs(u));
}

/* The chance of a region of tables at common rate pi: w[s] is the sum of
 * C(na,x) C(nb,y) over its tables with x + y = s, so the chance is
 * sum_s w[s] pi^s (1-pi)^(n-s). */
static double region_prob(const double *w, long n, double pi)
{
	if (pi <= 0)
		return w[0];
	if (pi >= 1)
		return w[n];
	double lp = log(pi), lq = log1p(-pi), sum = 0;
	for (long s = 0; s <= n; s++)
		if (w[s] > 0)
			sum += w[s] * exp((double)s * lp + (double)(n - s) * lq);
	return sum;
}

#define GRID 256

/* basis[i * (n + 1) + s] = pi^s (1-pi)^(n-s) at pi = i / GRID, so that a
 * region's chance on the grid is a dot product. Caller frees. */
static double *grid_basis(long n)
{
	double *b = xmalloc((size_t)(GRID + 1) * (size_t)(n + 1) * sizeof *b);
	for (int i = 0; i <= GRID; i++)
		for (long s = 0; s <= n; s++) {
			double *w = &b[(size_t)i * (size_t)(n + 1) + (size_t)s];
			if (i == 0 || i == GRID)
				*w = s == (i ? n : 0);
			else
				*w = exp((double)s * log((double)i / GRID) + (double)(n - s) * log1p(-(double)i / GRID));
		}
	return b;
}

static double dot(const double *u, const double *v, long n)
{
	double sum = 0;
	for (long s = 0; s <= n; s++)
		sum += u[s] * v[s];
	return sum;
}

/* The largest chance of the region over pi in [0, 1]: a grid (basis from
 * grid_basis), then a golden-section search around every local maximum of
 * the grid. */
static double region_sup(const double *w, long n, const double *basis)
{
	double f[GRID + 1], best = 0;
	for (int i = 0; i <= GRID; i++) {
		f[i] = dot(w, &basis[(size_t)i * (size_t)(n + 1)], n);
		if (f[i] > best)
			best = f[i];
	}
	const double g = (sqrt(5) - 1) / 2;
	for (int i = 1; i < GRID && best < 1; i++) {
		/* a local maximum, or the edge of a flat top */
		if (f[i] < f[i - 1] || f[i] < f[i + 1] || (f[i] == f[i - 1] && f[i] == f[i + 1]))
			continue;
		double lo = (double)(i - 1) / GRID, hi = (double)(i + 1) / GRID;
		double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
		double f1 = region_prob(w, n, x1), f2 = region_prob(w, n, x2);
		for (int it = 0; it < 60 && hi - lo > 1e-12; it++) {
			if (f1 < f2) {
				lo = x1;
				x1 = x2;
				f1 = f2;
				x2 = lo + g * (hi - lo);
				f2 = region_prob(w, n, x2);
			} else {
				hi = x2;
				x2 = x1;
				f2 = f1;
				x1 = hi - g * (hi - lo);
				f1 = region_prob(w, n, x1);
			}
		}
		if (f1 > best)
			best = f1;
		if (f2 > best)
			best = f2;
	}
	return best > 1 ? 1 : best;
}

/* The tables of one (na, nb), most extreme first, with their statistic. */
struct table {
	long x, y;
	double z, w; /* w = C(na,x) C(nb,y) */
};

static int by_z_desc(const void *p, const void *q)
{
	const struct table *s = p, *t = q;
	if (s->z != t->z)
		return s->z > t->z ? -1 : 1;
	if (s->x != t->x)
		return s->x < t->x ? -1 : 1;
	return s->y < t->y ? -1 : s->y > t->y;
}

/* Sums the weights of tables t[0..end) by x + y into w (zeroed first). */
static void region_weights(const struct table *t, size_t end, long n, double *w)
{
	for (long s = 0; s <= n; s++)
		w[s] = 0;
	for (size_t i = 0; i < end; i++)
		w[t[i].x + t[i].y] += t[i].w;
}

double exact_barnard(long a, long na, long b, long nb)
{
	if (!counts_ok(a, na, b, nb))
		return -1;
	double z = score_z(a, na, b, nb);
	double *w = xcalloc((size_t)(na + nb + 1), sizeof *w);
	for (long x = 0; x <= na; x++)
		for (long y = 0; y <= nb; y++) {
			double zt = score_z(x, na, y, nb);
			if (zt >= z || same_z(zt, z))
				w[x + y] += exp(log_choose(na, x) + log_choose(nb, y));
		}
	double *basis = grid_basis(na + nb);
	double p = region_sup(w, na + nb, basis);
	free(basis);
	free(w);
	return p;
}

/* Barnard's p-value grows with the number of tables in the region, so the
 * tables with p <= level are a prefix of the sorted list: find its end
 * (at a boundary between distinct statistics) by bisection. */
static size_t barnard_prefix(const struct table *t, const size_t *ends, size_t groups, long n,
			     const double *basis, double level, double *w)
{
	size_t lo = 0, hi = groups; /* answer: the first lo groups */
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;
		region_weights(t, ends[mid - 1], n, w);
		if (exact_at_most(region_sup(w, n, basis), level))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo ? ends[lo - 1] : 0;
}

static int classify_barnard(long na, long nb, double lo, double hi, unsigned char *cls)
{
	size_t n = (size_t)(na + 1) * (size_t)(nb + 1), groups = 0;
	struct table *t = xmalloc(n * sizeof *t);
	size_t *ends = xmalloc(n * sizeof *ends);
	double *w = xmalloc((size_t)(na + nb + 1) * sizeof *w);
	size_t k = 0;
	for (long x = 0; x <= na; x++)
		for (long y = 0; y <= nb; y++)
			t[k++] = (struct table){ x, y, score_z(x, na, y, nb),
						 exp(log_choose(na, x) + log_choose(nb, y)) };
	qsort(t, n, sizeof *t, by_z_desc);
	for (size_t i = 1; i <= n; i++)
		if (i == n || !same_z(t[i].z, t[i - 1].z))
			ends[groups++] = i;
	double *basis = grid_basis(na + nb);
	size_t end_lo = barnard_prefix(t, ends, groups, na + nb, basis, lo, w);
	size_t end_hi = barnard_prefix(t, ends, groups, na + nb, basis, hi, w);
	free(basis);
	for (size_t i = 0; i < n; i++)
		cls[t[i].x * (nb + 1) + t[i].y] = i < end_lo ? 0 : i < end_hi ? 1 : 2;
	free(w);
	free(ends);
	free(t);
	return 0;
}

int exact_classify(bool barnard, long na, long nb, double lo, double hi, unsigned char *cls)
{
	if (!counts_ok(0, na, 0, nb))
		return -1;
	if (barnard)
		return classify_barnard(na, nb, lo, hi, cls);
	for (long x = 0; x <= na; x++)
		for (long y = 0; y <= nb; y++) {
			double p = exact_fisher(x, na, y, nb);
			cls[x * (nb + 1) + y] = exact_at_most(p, lo) ? 0 : exact_at_most(p, hi) ? 1 : 2;
		}
	return 0;
}
