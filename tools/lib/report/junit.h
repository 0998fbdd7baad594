/* junit.h — a results table as JUnit XML, the test report GitHub Actions,
 * GitLab and Jenkins show natively: one <testsuite> per run (bench x task
 * x harness x model x runner), one <testcase> per stage of it, named after
 * the stage (stable across runs, so a CI keeps its history). A stage whose
 * pass rate is below raw's (the summary's regressed flag) is a <failure>
 * whose message holds both pass rates with their 95% intervals and the
 * change with its interval; a stage with no scored trial (only infra or
 * verifier errors) is an <error>; every case's <system-out> holds its pass
 * rate and interval. docs/ci.md shows a file. */
#ifndef SKILLC_REPORT_JUNIT_H
#define SKILLC_REPORT_JUNIT_H

#include "base/util.h"
#include "report/results.h"

/* Writes it to path (temp and rename; left alone when unchanged). */
int junit_write(const char *path, const struct results_table *tb, struct err *e);

#endif
