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

#include "eval/harness.h"
#include "base/util.h"

#define TRIAL_FORMAT 1  /* "format" in trial.json; bump on schema changes */

enum trial_outcome {
	TRIAL_PASSED,
	TRIAL_FAILED,
	TRIAL_TIMEOUT,
	TRIAL_INFRA_ERROR,
	TRIAL_VERIFIER_ERROR,
	TRIAL_OUTCOMES
};
const char *trial_outcome_name(enum trial_outcome o);
/* -1 for an unknown name. */
int trial_outcome_from(const char *name);
/* BenchFlow's rule, which every runner's trial follows: with a reward,
 * timeout when the agent hit its time limit (category timeout or
 * idle_timeout; without one, by the message), else passed when the reward
 * is 1.0, else failed; without one, verifier_error or infra_error. */
enum trial_outcome trial_outcome_of(const cJSON *reward, const char *cat, const char *error,
				    bool verifier_error);

struct trial_opts {
	/* The harness whose patterns detect skill use. NULL: the one whose
	 * runners.<runner>.agent equals the result's agent, from rules_dir. */
	const struct harness *harness;
	const char *rules_dir;
	const char *runner;            /* "benchflow" (default), "local", "harbor" */
	const struct strlist *skills;  /* the skills we injected; NULL/empty: none */
	bool require_skill;            /* REQUIRE_SKILL=1 */
	/* Harbor only: when set, receives the ACP trajectory made from ATIF. */
	struct buf *acp_out;
};

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

/* Seconds between two timestamps as runners write them ("2026-08-23
 * 10:39:42.436130", "2026-08-23T10:39:42Z", offsets ignored); NAN if
 * either does not parse. */
double trial_seconds_between(const char *from, const char *to);

/* Reads a JSONL file line by line (a last line without "\n" counts; empty
 * lines are skipped). fn gets each parsed value and its 1-based line
 * number. Returns the number of lines parsed, or -1 when the file cannot
 * be read; *bad_line gets the first line that is not JSON (0: none). */
long trial_jsonl_each(const char *path, void (*fn)(const cJSON *v, long line, void *arg), void *arg,
		      long *bad_line);

#endif
