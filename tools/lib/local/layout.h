/* layout.h — writes a local trial in BenchFlow's production layout, so
 * skillc-eval reads it exactly like a `bench eval run` trial:
 *   JOBS/<YYYY-MM-DD__HH-MM-SS>/<task>__<8 hex>/   the rollout folder:
 *     config.json, result.json, timing.json, prompts.json, rewards.jsonl,
 *     trajectory/acp_trajectory.jsonl (and agent/acp_trajectory.jsonl)
 *   JOBS/<job>/summary.json and JOBS/summary.json
 * JSON as Python's json.dumps writes it (pyjson.h); every file written
 * whole (temp + rename). */
#ifndef SKILLC_LOCAL_LAYOUT_H
#define SKILLC_LOCAL_LAYOUT_H

#include "local/rollout.h"
#include "base/util.h"

/* Sets t->paths.jobs (--jobs-dir, absolute), job_dir and job_name: like
 * bench, the alphabetically last job folder is resumed, else a new one is
 * named after the local time. Creates them. */
int benchflow_pick_job(struct local_trial *t, struct err *e);

/* The name of a rollout of t's task in the job that was scored or whose
 * verifier errored (bench skips such a task), or NULL. Caller frees. */
char *benchflow_completed_rollout(const struct local_trial *t);

/* Names a new rollout <task>__<8 random hex> (t->paths: rollout, dir,
 * agent_log, scratch) and creates its agent/, verifier/, artifacts/ and
 * trajectory/ folders, and the scratch folder's parent. */
int benchflow_make_rollout(struct local_trial *t, struct err *e);

/* config.json: the trial's settings, plus a "local" object of what only
 * this runner knows. --agent-env values whose names look secret are left
 * out. */
int benchflow_write_config(const struct local_trial *t, struct err *e);

/* The rollout's trajectory files, prompts.json, rewards.jsonl (when
 * scored), timing.json and, last, result.json: what t says, as it says it
 * (the writer decides nothing about the outcome). */
int benchflow_write_result(const struct local_trial *t, struct err *e);

/* The job's summary.json over the newest result.json of each task, and
 * its copy in JOBS/summary.json. */
int benchflow_write_summary(const struct local_trial *t, struct err *e);

/* A time as BenchFlow writes started_at (Python's str(datetime), local
 * time, microseconds), into out[32]. */
void benchflow_time(double t, char out[32]);
/* Seconds rounded to 0.1 as BenchFlow reports durations. */
double benchflow_round(double seconds);

#endif
