#include "report/stats.h"

#include <math.h>

void stats_wilson(long c, long n, double z, double *lo, double *hi)
{
	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double p = (double)c / (double)n, nn = (double)n, z2 = z * z;
	double denom = 1 + z2 / nn;
	double center = (p + z2 / (2 * nn)) / denom;
	double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
	*lo = center - half < 0 ? 0 : center - half;
	*hi = center + half > 1 ? 1 : center + half;
}

void stats_newcombe(long c1, long n1, long c2, long n2, double z, double *lo, double *hi)
{
	double l1, u1, l2, u2;
	stats_wilson(c1, n1, z, &l1, &u1);
	stats_wilson(c2, n2, z, &l2, &u2);
	double p1 = (double)c1 / (double)n1, p2 = (double)c2 / (double)n2, d = p1 - p2;
	*lo = d - sqrt((p1 - l1) * (p1 - l1) + (u2 - p2) * (u2 - p2));
	*hi = d + sqrt((u1 - p1) * (u1 - p1) + (p2 - l2) * (p2 - l2));
}

double stats_t95(long df)
{
	static const double t[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
				    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
				    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
	if (df < 1)
		return NAN;
	return df <= 30 ? t[df - 1] : STATS_Z95;
}

double stats_pass_at_k(long c, long n, long k)
{
	if (k < 1 || k > n || c < 0 || c > n)
		return -1;
	if (n - c < k)
		return 1.0;
	/* C(n-c, k) / C(n, k) = prod_{i=0}^{k-1} (n-c-i) / (n-i) */
	double fail = 1.0;
	for (long i = 0; i < k; i++)
		fail *= (double)(n - c - i) / (double)(n - i);
	return 1.0 - fail;
}
