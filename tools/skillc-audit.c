/* skillc-audit — what make audit prints: per run and stage, the leakage
 * guard's findings, the share of trials in which the agent invoked or read
 * each skill, and whether the final skill is one the agent used at all.
 * Reads run folders only. The work is in report/audit.h. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "report/audit.h"
#include "report/results.h"

static const char usage[] =
	"usage: skillc-audit PATH...\n"
	"\n"
	"PATH is a run folder (holding traces/) or a results folder holding runs.\n"
	"Prints, for every run and stage: its counted trials; for each skill of\n"
	"the set, in how many of them the agent invoked it, read it, and either;\n"
	"for fast and each deep round, the patches or edits the leakage guard\n"
	"rolled back, each with the text it matched and the held-out file it came\n"
	"from; then whether the agent used the final skill in the final trials (a\n"
	"line starting 'warning:' for a skill it never invoked or read), and a\n"
	"closing line with the totals. Nothing is written.\n"
	"Exit 0 done (findings and warnings included), 2 bad usage or no runs.\n";

int main(int argc, char **argv)
{
	log_init(argv[0]);
	static const struct opt none[] = { OPT_END };
	opts_std(argc, argv, usage, none, V_AUDIT);
	struct strlist paths, runs = STRLIST_INIT;
	opts_args_or_die(none, argc, argv, 1, &paths);
	struct err e = { 0, "" };
	if (results_runs_under(&paths, &runs, &e) < 0)
		die_err(&e);
	struct audit_totals tot = { 0 };
	struct buf out = BUF_INIT;
	for (size_t i = 0; i < runs.n; i++)
		audit_run(runs.v[i], &out, &tot);
	buf_printf(&out, "%s: %ld run%s, %ld leakage finding%s rolled back, %ld warning%s\n",
	           log_prog(), tot.runs, tot.runs == 1 ? "" : "s", tot.leaks,
	           tot.leaks == 1 ? "" : "s", tot.warnings, tot.warnings == 1 ? "" : "s");
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	strlist_free(&runs);
	strlist_free(&paths);
	return 0;
}
