/* trialrec.h — what trial.c and the trial readers both use (trialrec.c):
 * the outcome rule, the reading options, times and JSONL. Apart from
 * trial.h so that reader.h need not include it: trial.c includes reader.h,
 * and the includes point one way (tools/gen/check-layers). */
#ifndef SKILLC_EVAL_TRIALREC_H
#define SKILLC_EVAL_TRIALREC_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"
#include "eval/harness.h"

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
