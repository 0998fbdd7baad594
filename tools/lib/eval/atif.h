/* atif.h — a trial's trajectory in ATIF, Harbor's Agent Trajectory
 * Interchange Format (v1.4, docs/export.md#atif-trajectories), written beside our own
 * record (trial.json and the ACP trajectory stay the source of truth), and
 * a trial as a Harbor trial folder (result.json + agent/trajectory.json),
 * so Harbor's viewer and our Harbor importer read it. The ATIF file carries
 * the trial's reported facts under extra.skillc, which the Harbor reader
 * restores: a round trip through Harbor's layout loses nothing the report
 * shows. */
#ifndef SKILLC_EVAL_ATIF_H
#define SKILLC_EVAL_ATIF_H

#include <cJSON.h>

#include "base/util.h"

#define ATIF_VERSION "ATIF-v1.4"
#define ATIF_FILE "trajectory/atif.json" /* in a trial folder */

/* The ATIF trajectory of trial t (its trial.json) from the ACP trajectory
 * at acp_path (NULL or missing: no steps, an agent that never ran). NULL
 * with e set when the file cannot be read or a line is not JSON. */
cJSON *atif_from_trial(const cJSON *t, const char *acp_path, struct err *e);

/* Writes <dir>/trajectory/atif.json from <dir>/trial.json's facts t and the
 * ACP trajectory t names; sets t's files.atif. */
int atif_write(const char *dir, cJSON *t, struct err *e);

/* t as Harbor's trial result.json (TrialResult: task, trial, agent, the
 * verifier's reward, the exception, tokens and cost). bench: the source. */
cJSON *atif_harbor_result(const cJSON *t, const char *bench);

/* Keys of the trial that extra.skillc.trial of atif carries are put back
 * into t where the Harbor files could not say them (stage, runner, harness,
 * skill use, durations, error category, ...). Returns 1 when atif was
 * written by skillc, else 0 (t untouched). */
int atif_restore(cJSON *t, const cJSON *atif);

#endif
