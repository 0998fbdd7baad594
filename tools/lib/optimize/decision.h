/* decision.h — the deep stage's judgement of a candidate skill against the
 * baseline (the best skill so far), on the records of their trials.
 *
 * A trial record is what a decision needs from one trial folder:
 *   {"index", "needed": true, "trial": <run-relative folder>, "task", "key",
 *    "outcome", "scored" (passed, failed or timeout), "passed", "reward",
 *    "tokens", "steps", "seconds", "timeout", "invoked", "failed_calls"}
 * or {"index", "needed": false, "why"} for a trial that was not run.
 *
 * The target score: an exact one-sided test on the pass counts
 * (report/decide.h: Barnard's test at DEEP_ALPHA, calibrated for its looks,
 * the candidate extended by DEEP_TRIALS at a time up to DEEP_MAX_TRIALS,
 * the mean reward only breaking ties towards more trials; ties rejected).
 * Runtime: no regression in errors, timeouts or skill use, and the paired
 * median ratios of tokens, steps and agent seconds within DEEP_TOLERANCE
 * (report/paired.h). Accept = both. docs/deep.md#the-decision. */
#ifndef SKILLC_OPTIMIZE_DECISION_H
#define SKILLC_OPTIMIZE_DECISION_H

#include <stdbool.h>
#include <cJSON.h>

#include "report/decide.h"
#include "optimize/traces.h"
#include "base/util.h"

/* Loads dir/trial.json into a record (NULL when it has none). */
cJSON *record_load(const char *dir, const char *rel, int index);

struct deep_rule {
	long first, max, step;   /* candidate trials: the first look, the most, each extension */
	double alpha, tolerance;
	enum decide_test test;   /* DECIDE_BARNARD (default) or DECIDE_FISHER */
	/* Several tasks at once (a skill run's pooled train tasks): the
	 * records' "task" are the strata of the exact stratified test
	 * (report/pooled.h), the runtime pairs trials within a task. */
	bool pooled;
};

/* The looks of a rule: after first, first+step, ..., max trials. */
int deep_looks(const struct deep_rule *d);
/* Candidate trials at look j (1-based). */
long deep_look_trials(const struct deep_rule *d, int j);
/* The look whose trials include trial index i (1-based). */
int deep_look_of(const struct deep_rule *d, long i);

/* Judges the candidate records cand[0 .. ncand) (needed or not) against
 * the baseline records base. last: no more looks follow. The result
 * (caller frees) holds "verdict" (accept, reject, extend), "why",
 * "statistics" (decide_json), "runtime" ({verdict: within | over |
 * unknown, why, tokens/steps/seconds: {pairs, median, max},
 * timeouts/not_invoked/errors: {baseline, candidate}}). NULL with e set on
 * a bad rule. With d->pooled, "statistics" is pooled_json's (the strata,
 * the stratified p) and a task whose arm has no scored trial rejects. */
cJSON *deep_judge(const struct deep_rule *d, const cJSON *base, const cJSON *cand, bool last, struct err *e);

/* A copy of base's records (of cand's when of_cand) whose "index" is
 * unique over the tasks of both: task number * (largest index + 1) + index. */
cJSON *deep_pool_reindex(const cJSON *base, const cJSON *cand, bool of_cand);

#endif
