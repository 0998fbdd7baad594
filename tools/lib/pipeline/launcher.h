/* launcher.h — where a stage's tool runs (LAUNCHER). `local`: here, as a
 * child of skillc-stage. `srun`: each target whose stage is marked .remote
 * (an evaluation trial, an LLM map or edit call) becomes a Slurm job of its
 * own,
 *   srun -N1 -n1 --job-name=<run>:<target> --comment=skillc:<run path>
 *        --time=<the stage's limit + 1 min> SRUN_ARGS -- TOOL ...
 * so make -jN spreads a matrix over the cluster; its nodes must see the run
 * folder, CACHE_DIR, TASKS_DIR and the tools at the same paths.
 *
 * A launched job is marked in <run>/.slurm/<target>.json until its srun has
 * ended. A job cut short (Ctrl-C, kill, timeout) is cancelled with scancel,
 * never by signalling srun (which answers SIGINT with a status line and
 * SIGTERM with SIGKILL to the tool): Slurm sends the tool SIGTERM and waits
 * KillWait seconds, so it cleans up as it would here.
 * The watchdog: every process of a make inherits the run's lock (srun too),
 * so whoever takes the lock knows the make behind a job still marked is
 * gone; launcher_sweep cancels such orphaned jobs and waits for their end. */
#ifndef SKILLC_PIPELINE_LAUNCHER_H
#define SKILLC_PIPELINE_LAUNCHER_H

#include <stdbool.h>

#include "base/proc.h"
#include "base/util.h"
#include "pipeline/settings.h"
#include "pipeline/stages.h"

/* How one target was launched; zeroed = ran here. Free with launcher_done. */
struct launcher_job {
	char *marker;    /* <run>/.slurm/<target>.json, NULL when not a Slurm job */
	char *job_name;  /* "<run>:<target>" */
	char *comment;   /* "skillc:<absolute run path>", tells our jobs from another tree's */
	bool cancelled;  /* launcher_stop sent scancel */
};

/* Prefixes argv (the stage's command) with the launcher the run's settings
 * ask for, when ref's stage may run remotely, and marks the job. -1 with e
 * set (argv untouched) when srun is missing or the marker cannot be written. */
int launcher_wrap(const struct run *r, const struct stage_ref *ref, struct strlist *argv, struct launcher_job *l,
		  struct err *e);

/* proc_spec.stop for a Slurm job (arg: its struct launcher_job): scancel. */
void launcher_stop(int sig, void *arg);

/* After the command ended (started: it did start): a job cut short is
 * cancelled and waited for until Slurm lists it no more (COMPLETING too:
 * its tool may still be stopping); the marker goes once the job is known
 * to be gone (kept for the watchdog when Slurm cannot be asked). Frees l. */
void launcher_done(struct launcher_job *l, bool started, const struct proc_result *res);

/* The watchdog, for the holder of the run's lock: cancels the Slurm jobs an
 * earlier make of this run left behind and waits until they have ended.
 * Cheap when there are none (one opendir). -1 with e set when jobs are
 * still running after scancel. */
int launcher_sweep(const char *run_dir, struct err *e);

/* True for a line srun or slurmstepd printed about the job ("srun: error:
 * node1: task 0: Exited with exit code 1"), as opposed to the tool's own. */
bool launcher_said(const char *line);

/* make doctor: whether the launcher can run jobs (srun on PATH, the
 * cluster reachable, the partition SRUN_ARGS names, or the default one, up
 * with a usable node). 0 with a sentence in *what, else -1 with e set. */
int launcher_check(const char *launcher, const char *srun_args, struct buf *what, struct err *e);

#endif
