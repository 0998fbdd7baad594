/* verifier.h — the task's own verifier for a local trial: `bash
 * /tests/test.sh` in a fresh sandbox over the trial's folders, with a copy
 * of the task's tests/ at /tests, under [verifier] timeout_sec, and the
 * reward read from /logs/verifier/reward.json or reward.txt the way
 * BenchFlow reads it. */
#ifndef SKILLC_LOCAL_VERIFIER_H
#define SKILLC_LOCAL_VERIFIER_H

#include "local/rollout.h"
#include "base/util.h"

/* Runs the verifier. Whatever the agent left in verifier/ is deleted first
 * and symlinks in agent/ and artifacts/ are removed. Sets t->rewards, or
 * t->verifier_error and t->verifier_category (verifier_failure,
 * verifier_timeout with t->verifier_timeout_info), and t->t_verifier.
 * Returns -1 only when it could not run or was interrupted (e says which). */
int verifier_run(struct local_trial *t, struct err *e);

#endif
