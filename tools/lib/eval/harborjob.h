/* harborjob.h — Harbor job folders as Harbor leaves them (jobs/<job>/
 * result.json, config.json, one folder per trial: <trial>/result.json,
 * agent/, verifier/), read so that results Harbor produced elsewhere (an
 * AISBench matrix, a `harbor run` of your own) join skillc-summary's table.
 * Each trial is read by trial.h's Harbor reader; this adds what a job
 * knows: which dataset (the bench), whether it finished, how many trials it
 * planned and how many are done. */
#ifndef SKILLC_EVAL_HARBORJOB_H
#define SKILLC_EVAL_HARBORJOB_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

struct harbor_job {
	char *dir;
	char *name;         /* the folder's name: the job name */
	bool finished;      /* result.json has finished_at (Harbor's completion signal) */
	long planned;       /* n_total_trials (stats.n_trials in Harbor <= 0.3); 0: unknown */
	cJSON *trials;      /* array of normalized trials (trial.h), one per trial folder with a
	                       result.json, each also with bench, harness, runner "harbor",
	                       stage "job", job and dir (its folder) */
	long running;       /* trial folders without result.json yet (Harbor writes it last) */
	struct strlist bad; /* "<trial folder>: why" for a result.json that does not parse */
};

/* Appends the Harbor job folders at path: path itself when its result.json
 * is a Harbor job's (n_total_trials or stats), else its children that are.
 * Returns how many it found. */
size_t harbor_jobs_find(const char *path, struct strlist *jobs);

/* Reads one job folder into j (free with harbor_job_free, also on error).
 * -1 with e set (ERR_INPUT) when dir is not a Harbor job folder. */
int harbor_job_read(const char *dir, struct harbor_job *j, struct err *e);
void harbor_job_free(struct harbor_job *j);

#endif
