/* paired.h — runtime regressions between two arms of trials: the ratio
 * candidate / baseline of one cost (tokens, steps, seconds) for each pair
 * of trials with the same index, summarized by its median, and checked
 * against a tolerance (e.g. median ratio <= 1.10). Pairing by index is
 * what the trial store gives (test-001 with test-001): both arms run the
 * same task, harness and model, so a pair differs only in the skill. */
#ifndef SKILLC_REPORT_PAIRED_H
#define SKILLC_REPORT_PAIRED_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct paired_ratio {
	size_t pairs;   /* pairs with a usable value in both arms */
	double median;  /* median of cand[i] / base[i]; NAN when pairs == 0 */
	double max;     /* largest single ratio; NAN when pairs == 0 */
};

/* The ratios over i < min(nb, nc) where both values are finite, base[i]
 * > 0 and cand[i] >= 0 (NAN marks a value the trial did not record). */
void paired_ratio(const double *base, size_t nb, const double *cand, size_t nc, struct paired_ratio *out);

/* One cost of both arms, named for messages ("tokens", "steps", "seconds"). */
struct paired_metric {
	const char *name;
	const double *base, *cand;
	size_t nb, nc;
};

enum paired_verdict { PAIRED_WITHIN, PAIRED_OVER, PAIRED_UNKNOWN };

/* Checks every metric: PAIRED_OVER when one's median ratio exceeds
 * tolerance (each such metric is named in why, "tokens: median ratio 1.32
 * > 1.10 over 6 pairs"), else PAIRED_UNKNOWN when some metric has no pair
 * at all (named in why: it could not be checked), else PAIRED_WITHIN.
 * why (may be NULL) gets "; "-separated parts. */
enum paired_verdict paired_check(const struct paired_metric *m, size_t n, double tolerance, struct buf *why);

#endif
