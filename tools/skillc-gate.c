/* skillc-gate — the regression gate a CI acts on: exit 0 when every run's
 * gated stage (final) beats raw (and, asked, the no-skill baseline) by the
 * rule, 1 when not, 2 when the runs cannot be judged (bad input, an
 * infra-only run, a stage that did not run). One line per run says why.
 * The rule is report/gate.h; docs/ci.md explains it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "report/gate.h"
#include "report/results.h"

static const char usage[] =
	"usage: skillc-gate [--stage S] [--rule no-regression|gain] [--min-delta PP]\n"
	"                   [--max-regressed N] [--vs noskill|none] [--across runs|tasks] PATH...\n"
	"\n"
	"PATH is a run folder (holding traces/) or a results folder holding runs.\n"
	"The change of a run's stage against raw has a 95% interval (the one the\n"
	"summary prints). --rule no-regression (the default): the run fails only\n"
	"on evidence of a loss, the interval's upper end below 0 (a tie passes).\n"
	"--rule gain: it passes only when the lower end is at least --min-delta\n"
	"points (default 0: evidence of a gain; negative: non-inferiority within\n"
	"that margin; -100 turns the check off). With --vs noskill the same holds\n"
	"against the no-skill stage. At most --max-regressed runs (default 0) may\n"
	"be below raw (under no-regression: with evidence). --stage: the stage\n"
	"judged (default final).\n"
	"With 2 or more runs judged, a line gives the figures across them (the task\n"
	"is the unit): the mean change with its 95% interval clustered by task, the\n"
	"normalized gain, the exact sign test, the exact stratified test and\n"
	"Holm-adjusted per-run p-values. --across tasks makes that mean's interval\n"
	"the verdict (judged by the rule as above; each run's line is information);\n"
	"--across runs (the default) judges each run.\n"
	"Prints one line per run (ok / FAIL why / ERROR why) and a verdict line.\n"
	"Exit 0 the rule holds, 1 it does not, 2 bad input or a run that cannot be\n"
	"judged (no scored trials in raw or the stage, e.g. only infra errors).\n";

static const char *stage = "final", *rule_name = "", *delta, *regressed, *vs = "", *across = "";
static const struct opt rows[] = {
	OPT_STRING("stage", &stage, "S", "the stage judged (final)"),
	OPT_STRING("rule", &rule_name, "no-regression|gain", "what the rule asks (no-regression)"),
	OPT_STRING("min-delta", &delta, "PP", "gain: the least lower end, in points (0)"),
	OPT_STRING("max-regressed", &regressed, "N", "the runs that may be below raw (0)"),
	OPT_STRING("vs", &vs, "noskill|none", "also against the no-skill baseline (none)"),
	OPT_STRING("across", &across, "runs|tasks", "the verdict per run or across tasks (runs)"),
	OPT_END,
};

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_GATE);
	struct gate_rule rule;
	struct opts_rest rest;
	opts_parse_or_die(rows, argc, argv, 1, &rest);
	struct err e = { 0 };
	struct gate_args ga = { stage, rule_name, delta, regressed, vs, across };
	if (gate_rule_parse(&ga, &rule, &e) < 0)
		die_err(&e);
	struct strlist paths = rest.args;
	for (int i = rest.dashdash; i && i < argc; i++)
		strlist_push(&paths, argv[i]);
	struct strlist runs = STRLIST_INIT;
	if (results_runs_under(&paths, &runs, &e) < 0)
		die_err(&e);
	struct results_table tb = { 0 };
	results_build(&tb, &runs, NULL);
	struct buf out = BUF_INIT;
	int rc = gate_judge(&tb, &rule, &out);
	fputs(out.data, stdout);
	buf_free(&out);
	results_free(&tb);
	strlist_free(&runs);
	strlist_free(&paths);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(2, "cannot write to stdout");
	return rc;
}
