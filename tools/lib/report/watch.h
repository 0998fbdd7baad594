/* watch.h — skillc-summary --watch (make watch): the results table redrawn
 * until every due trial of the runs is complete. Due: the trial targets
 * (<stage>-eval.NNN) each run's manifest.json lists, which the make working
 * on the run keeps current; a run without one is never done. */
#ifndef SKILLC_REPORT_WATCH_H
#define SKILLC_REPORT_WATCH_H

#include "base/util.h"

/* Due and done trials over the run folders. */
void watch_counts(const struct strlist *runs, long *due, long *done);

/* Prints the table of the runs under paths (and "N of M due trials
 * complete") whenever it changes, every interval seconds (clearing a
 * terminal first). Returns 0 once every due trial is done, 2 after timeout
 * seconds (0: none), saying so on stderr. */
int watch_table(const struct strlist *paths, double timeout, double interval);

#endif
