/* watch.h — skillc-summary --watch (make watch): the results table redrawn
 * until every trial the makes working now will run is complete. Due: the
 * trials (targets NAME.NNN) among the targets the make holding a run's lock
 * brings up to date (due_fn says which); a run no make holds adds none.
 * States and times come from each run's manifest.json. */
#ifndef SKILLC_REPORT_WATCH_H
#define SKILLC_REPORT_WATCH_H

#include "base/util.h"

/* The targets the make holding run's lock brings up to date, space
 * separated (caller frees), or NULL when no make holds it. */
typedef char *(*watch_due_fn)(const char *run);

struct watch_counts {
	long due, done, running;
	long busy;       /* runs a make holds */
	double median;   /* seconds of a finished trial, 0 when none */
};

/* What watch_table watches. */
struct watch_spec {
	const struct strlist *paths;  /* run folders or results folders */
	const struct strlist *labels; /* NULL, or a line per path naming it (a skill
				       * run's roles: its table follows; "" paths are
				       * runs not planned yet) */
	const char *holder;           /* NULL, or a folder whose lock, while held,
				       * means more is due (a skill run between the
				       * makes of its member runs) */
	double timeout, interval;
	watch_due_fn due_fn;
	const struct strlist *tasks;  /* with labels: the task each is about, or NULL */
	/* NULL, or the trials of a task in a run by stage ("raw: 3 done, 0
	 * running, 0 due; ..."; caller frees): a line under its table */
	char *(*trials_fn)(const char *run, const char *task);
};

/* Prints the table of the runs under the paths (and "N of M due trials
 * complete", what is running and about how long is left) whenever it
 * changes, every interval seconds (clearing a terminal first). Returns 0
 * once every due trial is done (at once when no make works on the runs), 2
 * after timeout seconds (0: none), saying so on stderr. */
int watch_table(const struct watch_spec *w);

#endif
