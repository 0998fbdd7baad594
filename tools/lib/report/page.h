/* page.h — the HTML report: report.html of one run (the pipeline as it
 * ran, pass rate per stage, the numbers per stage paired against raw, how
 * the skill changed, every trial with links to its files, the settings)
 * and index.html over every run of a results folder (the task x harness x
 * model matrix of the last stage's change against raw). Each page is one
 * self-contained file (inline CSS and SVG, no script, no network); each
 * chart is also written standalone into charts/<id>.svg beside the page.
 * Files are rewritten only when their bytes change, so a second run over
 * unchanged results rewrites nothing. */
#ifndef SKILLC_REPORT_PAGE_H
#define SKILLC_REPORT_PAGE_H

#include "base/util.h"

struct routes;

/* Writes <run>/report.html and <run>/charts/<id>.svg; *changed (may be NULL)
 * gets the number of files rewritten. */
int page_write_run(const char *run, const struct routes *routes, int *changed, struct err *e);

/* Writes <dir>/index.html and <dir>/charts/delta.svg over the runs (paths
 * as found under dir). */
int page_write_index(const char *dir, const struct strlist *runs, const struct routes *routes, int *changed,
		     struct err *e);

#endif
