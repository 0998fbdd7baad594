/* stats.h — the numbers a results table reports for n scored trials of
 * which c passed. */
#ifndef SKILLC_REPORT_STATS_H
#define SKILLC_REPORT_STATS_H

/* z for a two-sided 95% interval. */
#define STATS_Z95 1.959963984540054

/* Wilson score interval for c successes in n trials at the given z
 * (Wilson 1927): unlike the normal approximation it stays inside [0, 1]
 * and is sensible for small n and for 0 or n successes. n = 0 gives
 * lo = 0, hi = 1. */
void stats_wilson(long c, long n, double z, double *lo, double *hi);

/* The 95% (at z) interval of the difference p1 - p2 of two independent
 * proportions c1/n1 and c2/n2: Newcombe's hybrid score interval (method 10
 * of Newcombe 1998), built from the two Wilson intervals. Needs n1, n2 > 0. */
void stats_newcombe(long c1, long n1, long c2, long n2, double z, double *lo, double *hi);

/* The two-sided 95% quantile of Student's t with df degrees of freedom
 * (df >= 1; from a table to df 30, then the normal 1.96). */
double stats_t95(long df);

/* The unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large
 * Language Models Trained on Code"): the chance that at least one of k
 * trials drawn without replacement from the n passes,
 * 1 - C(n-c, k) / C(n, k), computed as a stable product. Needs 1 <= k <= n;
 * returns -1 otherwise. */
double stats_pass_at_k(long c, long n, long k);

#endif
