/* exact.h — exact one-sided tests on two pass counts: is the candidate's
 * pass rate higher than the baseline's? The baseline passed a of na
 * trials, the candidate b of nb. Small samples (n <= EXACT_MAX_N per arm)
 * are the point: no normal approximation anywhere. docs/statistics.md
 * says when to use which. */
#ifndef SKILLC_REPORT_EXACT_H
#define SKILLC_REPORT_EXACT_H

#include <stdbool.h>

/* The largest trial count per arm the exact tests accept. Enumeration
 * over (na+1)(nb+1) tables stays cheap (milliseconds) well past this. */
#define EXACT_MAX_N 200

/* p <= level, allowing for the rounding of p (R's fisher.test uses the
 * same relative 1e-7): an attained p-value exactly at the level counts. */
bool exact_at_most(double p, double level);

/* C(n, k) * x^k * (1-x)^(n-k), the binomial probability mass. */
double exact_binom_pmf(long n, long k, double x);

/* Fisher's exact test, one-sided: the probability, given both arms' trial
 * counts and the total number of passes, that the candidate gets b or
 * more of them (the upper tail of the hypergeometric distribution).
 * Returns -1 when a count is out of range. */
double exact_fisher(long a, long na, long b, long nb);

/* Barnard's exact (unconditional) test, one-sided, ordered by the pooled
 * score statistic z = (b/nb - a/na) / sqrt(p(1-p)(1/na + 1/nb)), p the
 * pooled rate (z = 0 when p is 0 or 1): the largest, over every common
 * pass rate pi in [0, 1], of the chance of a table at least as extreme
 * as the observed one. More powerful than Fisher's test at small n
 * because it does not condition on the total passes. Returns -1 when a
 * count is out of range. */
double exact_barnard(long a, long na, long b, long nb);

/* Both tests' verdicts for every table of one (na, nb) at once, cheaper
 * than one p-value per table: cls[a * (nb + 1) + b] is 0 when that
 * table's p <= lo, 1 when lo < p <= hi, 2 when p > hi. cls holds
 * (na+1)(nb+1) entries. barnard selects the test. Returns -1 when a count
 * is out of range. */
int exact_classify(bool barnard, long na, long nb, double lo, double hi, unsigned char *cls);

#endif
