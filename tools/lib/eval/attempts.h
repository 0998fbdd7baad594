/* attempts.h — failed attempts of an evaluation trial and the retry
 * policy. A failed attempt is kept in <incomplete>/<stage>/test-NNN.<UTC
 * time>/ with a one-line reason.txt, and the next make tries the trial
 * again, up to --attempts failed attempts (interrupted ones never count).
 * After the last, an infra error is kept as an infra_error trial. */
#ifndef SKILLC_EVAL_ATTEMPTS_H
#define SKILLC_EVAL_ATTEMPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <cJSON.h>

#include "base/fs.h"
#include "eval/job.h"

/* Moves dir to <incomplete>/<stage>/test-NNN.<time>/ with reason.txt.
 * Returns where it went, or dir when it could not move (warned). Caller frees. */
char *attempts_keep(const struct eval_job *j, const char *dir, const char *reason);

/* Written into the trial's temp folder with the trial's key when its
 * runner starts, and again with the runner's exit status and seconds when
 * it ends (never part of a published trial): a skillc-eval killed after the
 * end (or after the runner wrote a complete result) left a run that was
 * paid for, which the next one reads instead of running the trial again. */
#define ATTEMPT_RUNNER_MARK FS_TEMP_RESUMABLE

/* Keeps aside the temp folders of this trial that a killed skillc-eval
 * left beside the trial folder (their writer is gone), except the first
 * whose runner was started for j's key (ATTEMPT_RUNNER_MARK): that one stays
 * in place for evaltrial_resume and is returned (caller frees), else NULL. */
char *attempts_sweep_leftovers(const struct eval_job *j);

/* True when the trial may run again; *prior gets its failed attempts so
 * far. False after --attempts of them: says so (progress line, and one
 * line on stderr naming the last reason and what to do). */
bool attempts_left(const struct eval_job *j, long *prior);

/* For a complete infra_error trial t while attempts remain after this one
 * (prior failed before it): true, with the reason this attempt fails so
 * that the next make tries again. */
bool attempts_retry_infra(const struct eval_job *j, long prior, const cJSON *t, char *reason, size_t size);

#endif
