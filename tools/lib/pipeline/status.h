/* status.h — why a run's targets are not up to date, in words (make
 * status): "not yet run", "input changed: tasks/x/environment/skills",
 * "setting changed: MAX_FILE_MB (25 -> 30)", "failed: <the error>", ... */
#ifndef SKILLC_PIPELINE_STATUS_H
#define SKILLC_PIPELINE_STATUS_H

#include "base/util.h"
#include "pipeline/settings.h"
#include "pipeline/stages.h"

/* Every target goal needs (*refs) and why each is stale ((*why)[i], NULL
 * when up to date). Returns how many, -1 for an unknown goal. Free both
 * with status_free. */
int status_of(const struct run *r, const char *goal, struct stage_ref **refs, char ***why);
void status_free(struct stage_ref *refs, char **why, int n);
/* One line per target, then "N of M stages need work; run: <command>" or
 * "up to date". Returns how many are stale, -1 for an unknown goal. */
int status_print(const struct run *r, const char *goal, struct buf *out);
/* One line for the run in a matrix: the stage it reached, what is due,
 * the first failure with its error. Returns how many are stale (-1 as above). */
int status_line(const struct run *r, const char *goal, struct buf *out);

/* The trials of a run by task and stage, counted: done, running, due. */
enum trial_state { TRIAL_DONE, TRIAL_RUNNING, TRIAL_DUE };
struct trial_tally {
	struct strlist keys; /* "<task>\t<stage>" in the order first seen */
	long (*n)[3];        /* per key, by enum trial_state */
};
/* The trials of task in the run in folder run, by its manifest.json: "raw:
 * 3 done, 0 running, 0 due; static: ..."; "" without any (caller frees).
 * For make watch. */
char *status_trials_text(const char *run, const char *task);

#endif
