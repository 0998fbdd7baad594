/* verifier.h — the task's own verifier for a local trial: `bash
 * /tests/test.sh` in a fresh sandbox over the trial's folders, with a copy
 * of the task's tests/ at /tests, under [verifier] timeout_sec, and the
 * reward read from /logs/verifier/reward.json or reward.txt the way
 * BenchFlow reads it. */
#ifndef SKILLC_LOCAL_VERIFIER_H
#define SKILLC_LOCAL_VERIFIER_H

#include "local/rollout.h"
#include "base/util.h"

/* Runs the verifier and fills t->verdict (it writes nothing else of t but,
 * without a sandbox, the /tests link). Whatever the agent left in
 * verifier/ is deleted first and symlinks in agent/ and artifacts/ are
 * removed. The verdict: rewards, or error and category (verifier_failure,
 * verifier_timeout with timeout_info). After an agent timeout, no reward
 * file counts as reward 0.0, as BenchFlow counts it. Returns -1 only when
 * it could not run or was interrupted (e says which). */
int verifier_run(struct local_trial *t, struct err *e);

#endif
