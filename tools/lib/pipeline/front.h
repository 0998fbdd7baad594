/* front.h — a standalone command as a thin front over the pipeline's make
 * (skillc-eval-skill, skillc-fast without a step, skillc-deep run): it sets up a run
 * folder by settings, runs make for one goal there, and shows the user
 * the run's output by links in its own folder. make decides what is done;
 * running the command again resumes. */
#ifndef SKILLC_PIPELINE_FRONT_H
#define SKILLC_PIPELINE_FRONT_H

#include <stdbool.h>

#include "base/proc.h"
#include "base/util.h"

/* argv: make --no-print-directory -f <skillc.mk> -j<jobs>. ERR_INPUT when
 * skillc.mk is not beside the tools. */
int front_begin(struct strlist *argv, long jobs, struct err *e);
/* NAME=value onto argv, checked against the settings table first; opt
 * names the option it came from in the error (ERR_INPUT). */
int front_set(struct strlist *argv, const char *name, const char *value, const char *opt,
              struct err *e);
/* Runs argv with goal last (argv keeps it off after). */
int front_run(struct strlist *argv, const char *goal, struct proc_result *res, struct err *e);
/* The front's exit status from make's (res of front_run): 0; 2 for bad
 * input, a busy run or a refused setting (skillc.mk makes make say 1 or 2
 * as skillc-rules run does); 1 any other failure; 128+N for signal N. */
int front_status(const struct proc_result *res);
/* out/name -> target (relative to out), replaced atomically; never over a
 * file or folder that is not a link. */
int front_link(const char *out, const char *name, const char *target, struct err *e);
/* out/name goes when it is a link. */
void front_unlink(const char *out, const char *name);
/* The newest change under run/status (0 when none): make wrote nothing when
 * it is the same after. */
long long front_mark(const char *run);

#endif
