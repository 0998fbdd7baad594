#include "report/paired.h"

#include <math.h>
#include <stdlib.h>

void paired_ratio(const double *base, size_t nb, const double *cand, size_t nc, struct paired_ratio *out)
{
	size_t n = nb < nc ? nb : nc, k = 0;
	double *r = xmalloc((n ? n : 1) * sizeof *r);
	for (size_t i = 0; i < n; i++)
		if (isfinite(base[i]) && isfinite(cand[i]) && base[i] > 0 && cand[i] >= 0)
			r[k++] = cand[i] / base[i];
	out->pairs = k;
	out->median = out->max = NAN;
	if (k) {
		qsort(r, k, sizeof *r, cmp_double);
		out->median = k % 2 ? r[k / 2] : (r[k / 2 - 1] + r[k / 2]) / 2;
		out->max = r[k - 1];
	}
	free(r);
}

static void part(struct buf *why, const char *fmt_name, const struct paired_ratio *r, double tol)
{
	if (!why)
		return;
	if (why->len)
		buf_adds(why, "; ");
	if (r->pairs)
		buf_printf(why, "%s: median ratio %.2f > %.2f over %zu pairs", fmt_name, r->median, tol, r->pairs);
	else
		buf_printf(why, "%s: no pair of trials recorded it, not checked", fmt_name);
}

enum paired_verdict paired_check(const struct paired_metric *m, size_t n, double tolerance, struct buf *why)
{
	bool over = false, unknown = false;
	struct paired_ratio *r = xmalloc((n ? n : 1) * sizeof *r);
	for (size_t i = 0; i < n; i++) {
		paired_ratio(m[i].base, m[i].nb, m[i].cand, m[i].nc, &r[i]);
		if (r[i].pairs && r[i].median > tolerance)
			over = true;
		if (!r[i].pairs)
			unknown = true;
	}
	for (size_t i = 0; i < n; i++)
		if (over ? r[i].pairs && r[i].median > tolerance : !r[i].pairs)
			part(why, m[i].name, &r[i], tolerance);
	free(r);
	return over ? PAIRED_OVER : unknown ? PAIRED_UNKNOWN : PAIRED_WITHIN;
}
