/* trial.h — one evaluation trial, read from what a runner wrote and
 * normalized into the facts trial.json holds (docs/eval.md has the
 * schema). Readers:
 *   - BenchFlow's production rollout (<jobs>/<job>/<task>__<hex>/result.json,
 *     config.json, timing.json, trajectory/acp_trajectory.jsonl,
 *     trajectory/llm_trajectory.jsonl, verifier/reward.txt|reward.json,
 *     <job>/summary.json), including BenchFlow's own retries (the newest
 *     result.json wins, the others are counted) and the older result.json
 *     that lacks most keys;
 *   - Harbor's trial folder (<jobs>/<job>/<trial>/result.json with
 *     verifier_result / exception_info, agent/trajectory.json in ATIF,
 *     whose steps become a BenchFlow-shaped ACP trajectory).
 * The flat-schema review fixtures (result.json with status/reward beside a
 * run_config.json) are refused: they are not trials. */
#ifndef SKILLC_EVAL_TRIAL_H
#define SKILLC_EVAL_TRIAL_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"
#include "eval/trialrec.h"

#define TRIAL_FORMAT 1  /* "format" in trial.json; bump on schema changes */

/* Reads the runner output under dir: a BenchFlow jobs dir, job dir or
 * rollout dir, or a Harbor jobs dir, job dir or trial dir. Paths in
 * "files" are relative to base (NULL: dir). Returns the normalized trial
 * (caller frees) with "complete" and "problems" set by trial_check.
 * NULL with e set (ERR_INPUT) when dir holds no trial at all: no
 * result.json, only flat-schema fixtures, or a result.json that is not
 * valid JSON (truncated, or still being written). */
cJSON *trial_parse(const char *dir, const char *base, const struct trial_opts *o, struct err *e);

/* (Re)applies the completeness and skill checks (docs/eval.md#a-trial-folder) to a
 * normalized trial: keeps the data problems found while parsing (kept in
 * "data_problems"), adds the REQUIRE_SKILL check, and sets "complete"
 * and "problems". Used again when a stored trial is reused. */
void trial_check(cJSON *t, bool require_skill);

/* The first problem of a trial, or NULL when complete. Borrowed. */
const char *trial_first_problem(const cJSON *t);

#endif
