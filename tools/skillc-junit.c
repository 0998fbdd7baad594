/* skillc-junit — the results of some runs as a JUnit XML test report
 * (report/junit.h): one test suite per run, one test case per stage, a
 * failure for each stage below raw, so CI systems show the numbers in their
 * own test view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "report/junit.h"
#include "report/results.h"

static const char usage[] =
	"usage: skillc-junit [--out FILE] PATH...\n"
	"\n"
	"PATH is a run folder (holding traces/) or a results folder holding runs.\n"
	"Writes a JUnit XML report to FILE (default: PATH/junit.xml for a single\n"
	"PATH): one <testsuite> per run (task x harness x model x runner), one\n"
	"<testcase> per stage, named after it; its pass rate and 95% interval and\n"
	"its change against raw in the message. A stage whose pass rate is below\n"
	"raw's is a <failure>; one with no scored trial (only infra or verifier\n"
	"errors) is an <error>. Exit 0 written, 2 bad input.\n";

int main(int argc, char **argv)
{
	log_init(argv[0]);
	const char *out = NULL;
	const struct opt rows[] = {
		OPT_STRING("out", &out, "FILE", "the report (default: PATH/junit.xml)"),
		OPT_END,
	};
	opts_std(argc, argv, usage, rows, V_JUNIT);
	struct strlist paths;
	opts_args_or_die(rows, argc, argv, 1, &paths);
	if (!out && paths.n > 1)
		die(2, "several folders given: say where the report goes with --out FILE");
	struct strlist runs = STRLIST_INIT;
	struct err e = { 0, "" };
	if (results_runs_under(&paths, &runs, &e) < 0)
		die_err(&e);
	struct results_table tb = { 0 };
	results_build(&tb, &runs, NULL);
	char *path = out ? xstrdup(out) : path_join(paths.v[0], "junit.xml");
	if (junit_write(path, &tb, &e) < 0)
		die_err(&e);
	long failures = 0, errors = 0;
	for (size_t i = 0; i < tb.n; i++) {
		errors += !tb.v[i].scored;
		failures += tb.v[i].scored && results_regressed(&tb.v[i]);
	}
	printf("%s: %zu test case%s (%ld failure%s, %ld error%s) from %zu run%s -> %s\n", log_prog(), tb.n,
	       tb.n == 1 ? "" : "s", failures, failures == 1 ? "" : "s", errors, errors == 1 ? "" : "s", runs.n,
	       runs.n == 1 ? "" : "s", path);
	free(path);
	results_free(&tb);
	strlist_free(&runs);
	strlist_free(&paths);
	return 0;
}
