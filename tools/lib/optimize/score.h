/* score.h — the fast stage's scores and groups (docs/fast.md).
 *
 * Every scorable trace (complete, and passed, failed or timed out: infra
 * and verifier errors are excluded and listed) gets, in this order of
 * authority:
 *   1. the verifier's outcome class (passed < failed < timeout, best first)
 *      and its partial credit (tests passed / total from ctrf.json, else
 *      the reward);
 *   2. the AgentRM score, when RM_API_URL is set (agentrm.h);
 *   3. a structural pre-score in [0, 100], each part recorded:
 *        100
 *        - 8 per failed tool call (at most 40)
 *        - 5 per tool call repeating an earlier one (at most 25)
 *        - 20 when our skill (no skill of the set) was neither invoked nor read
 *        + 5 when the agent read a references/ file the skill points to
 *        - for tokens, agent seconds and steps each, 10 x (the ratio to
 *          the set's median - 1), between 0 and 20.
 * Traces are ordered by class, credit, AgentRM, pre-score, then index.
 *
 * Groups: the first FAST_TOP are the top, the last FAST_BOTTOM (worst
 * first, never a top one) the bottom; unit i pairs top i with bottom i
 * (a trace alone when one side is shorter). A unit is a "contrast" (a pass
 * against a failure), "efficiency" (two passes: tokens, time, steps) or
 * "failure" (two failures). The mode says what the whole set allows:
 * contrast, or failure only (nothing passed), or efficiency only
 * (everything passed), with the reason. */
#ifndef SKILLC_OPTIMIZE_SCORE_H
#define SKILLC_OPTIMIZE_SCORE_H

#include <cJSON.h>

#include "optimize/skillpkg.h"
#include "optimize/traces.h"
#include "base/util.h"

#define SCORES_FORMAT 1

struct score_opts {
	const char *rm_url;       /* NULL/empty: pre-score only */
	int min_traces;           /* FAST_MIN_TRACES */
	int top, bottom;          /* FAST_TOP, FAST_BOTTOM */
	const char *how_to_get_more; /* the sentence the "too few traces" error ends with */
};

/* Scores ts (traces of the set skill) into *scores (scores.json) and *groups
 * (groups.json); both the caller's to free. ERR_INPUT when fewer than
 * min_traces traces are scorable (the message counts them and says how to
 * get more); ERR_WORK when AgentRM is set but down. */
int fast_score(const struct trace_set *ts, const struct pkgset *skill, const struct score_opts *o,
	       cJSON **scores, cJSON **groups, struct err *e);

/* The number of map units a groups.json can hold: max(top, bottom). */
int fast_units(int top, int bottom);

/* The unit of groups.json numbered n (1-based), or NULL when it has none. Borrowed. */
const cJSON *groups_unit(const cJSON *groups, int n);

#endif
