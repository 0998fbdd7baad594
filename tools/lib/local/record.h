/* record.h — writes a local trial as skillc's own trial record, in the
 * folder --out names (docs/local.md#what-it-writes):
 *   OUT/trial.json                    the runner's facts, in trial.json's
 *                                     keys (docs/eval.md#trialjson), last
 *   OUT/trajectory/acp_trajectory.jsonl (and agent/acp_trajectory.jsonl)
 *   OUT/agent/, verifier/, artifacts/ what the sandbox's /logs held
 * Every file written whole (temp + rename); trial.json comes last, so a
 * folder holding it holds a finished trial. */
#ifndef SKILLC_LOCAL_RECORD_H
#define SKILLC_LOCAL_RECORD_H

#include <stdbool.h>

#include "local/rollout.h"
#include "base/util.h"

/* Sets t->paths (out, absolute; rollout, a new <task>__<8 hex> name;
 * agent_log, scratch) and creates OUT's agent/, verifier/, artifacts/
 * and trajectory/. *done when OUT already holds the record of a trial
 * that was scored or whose verifier errored (it is not run again). An OUT
 * that holds other files is refused (ERR_INPUT): it is no fresh folder. */
int record_open(struct local_trial *t, bool *done, struct err *e);

/* The trajectory files, then trial.json: what t says, as it says it (the
 * writer decides nothing about the outcome but its name, by eval's rule). */
int record_write(const struct local_trial *t, struct err *e);

/* A time as started_at says it ("2026-08-23 10:39:42.436130", local
 * time, microseconds), into out[32]. */
void record_time(double t, char out[32]);
/* Seconds rounded to 0.1, as durations are recorded. */
double record_round(double seconds);

#endif
