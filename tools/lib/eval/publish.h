/* publish.h — an evaluation trial folder from nothing to published. It
 * is built in a temp folder beside its target, checked, and published whole
 * (fs_publish_dir); a run cut short, an output that does not parse or fails
 * the checks is kept aside in .incomplete/ (attempts.h) instead. A trial
 * whose key is in the trial store is linked from there without a run. */
#ifndef SKILLC_EVAL_PUBLISH_H
#define SKILLC_EVAL_PUBLISH_H

#include <stdbool.h>

#include "eval/job.h"
#include "base/util.h"

/* True when the published trial.json is complete and has j's key; then
 * its mtime is renewed (make compares mtimes), and it is filed in the
 * trial store if a kill came between publishing and filing it. */
bool evaltrial_up_to_date(const struct eval_job *j);

/* Publishes the stored trial of j's key, restamped and checked again
 * (unless --no-cache); prints the end line. False when there is none or it
 * cannot be used (then the trial runs). */
bool evaltrial_reuse(const struct eval_job *j);

/* One attempt: the runner run with env_extra in its environment, its
 * output read, the folder published (and filed in the store unless it is
 * an infra error) or kept aside. Returns 0 when published, 1 when the
 * attempt failed or no attempts are left (reason on stderr), -1 with e set
 * when it cannot start: the runner is not installed (ERR_INPUT) or the temp
 * folder cannot be made. */
int evaltrial_run(const struct eval_job *j, const struct strlist *env_extra, struct err *e);

/* A trial whose runner had finished when the skillc-eval running it was
 * killed (before it published) was paid for: tmp, the temp folder it left
 * beside the trial folder (attempts_sweep_leftovers), is resumable when its
 * mark (attempts.h) says the runner of j's key ended, or what the runner
 * wrote is a complete trial. */
bool evaltrial_resumable(const struct eval_job *j, const char *tmp);

/* Such a folder's output redacted (env_extra's keys), read, and published or
 * kept aside as evaltrial_run would have, without running the trial again.
 * Returns as evaltrial_run. */
int evaltrial_resume(const struct eval_job *j, const struct strlist *env_extra, const char *tmp, struct err *e);

/* A trial whose runner had finished when the holder of its key's lock (in
 * another run sharing the store, or another stage) was killed before it
 * filed the trial: lock_text is what that holder wrote in the lock file
 * (store.h). When it was this host's and left a temp folder
 * beside its trial folder whose mark says the runner of j's key ended, that
 * folder is copied beside j's trial folder and the copy returned (caller
 * frees) for evaltrial_resume; else NULL. */
char *evaltrial_adoptable(const struct eval_job *j, const char *lock_text);

#endif
