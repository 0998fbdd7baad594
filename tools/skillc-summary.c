/* skillc-summary — the results table of one run or of a whole results
 * folder: per bench x task x harness x model x runner x stage, from the
 * current trials (traces/<task>/<stage>/test-NNN/trial.json), written as summary.md,
 * summary.csv and summary.json; --watch prints the table live until every
 * due trial is done. Harbor job folders join the same table (harborjob.h).
 * The work is in results.h (the table), summary.h (the files) and watch.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "eval/harborjob.h"
#include "report/results.h"
#include "report/summary.h"
#include "base/versions.h"
#include "llm/routes.h"
#include "report/watch.h"
#include "pipeline/state.h"

#define VERSION V_SUMMARY

static const char usage[] =
	"usage: skillc-summary [--out DIR] PATH...\n"
	"       skillc-summary --watch [--timeout S] [--interval S] PATH...\n"
	"\n"
	"PATH is a run folder (holding traces/), a results folder holding runs, a\n"
	"Harbor job folder (jobs/<job>, with result.json) or a folder of them.\n"
	"Writes summary.md, summary.csv and summary.json into --out (default: the\n"
	"only PATH), one row per bench x task x harness x model x runner x stage:\n"
	"trials, scored, passed, pass rate with its 95% Wilson interval, unbiased\n"
	"pass@k, mean reward, skill invocation rate, errors by category, tokens,\n"
	"cost (the runner's, else tokens at the ROUTES prices; unknown stays\n"
	"unknown), time, and the change against the raw stage with its interval.\n"
	"A stage counts its current trials only (indexes due now, of the skill it\n"
	"evaluates now); other trial folders are listed as stale. Infra and\n"
	"verifier errors are counted and excluded from pass rates. A Harbor job's\n"
	"trials are rows of stage \"job\", runner \"harbor\", bench = the trial's\n"
	"dataset (\"adhoc\" without one), harness = the agent, model = the agent's\n"
	"model; a job still running counts the trials that have finished.\n"
	"\n"
	"--watch prints the table every --interval seconds (default 2) until every\n"
	"due trial is complete (exit 0) or --timeout seconds pass (exit 2). Due: the\n"
	"trials of the makes working on the runs now (the targets each run's .lock\n"
	"names); with no make working, nothing more is due.\n";

/* Adds the trials of the Harbor jobs to tb; says which jobs are not done. */
static void import_harbor(struct results_table *tb, const struct strlist *jobs, const struct routes *routes)
{
	for (size_t i = 0; i < jobs->n; i++) {
		struct harbor_job j;
		struct err e = { 0, "" };
		if (harbor_job_read(jobs->v[i], &j, &e) < 0)
			warnf("%s", e.msg);
		for (const cJSON *t = j.trials ? j.trials->child : NULL; t; t = t->next)
			results_add(tb, t, json_str(t, "dir"), routes);
		for (size_t k = 0; k < j.bad.n; k++)
			warnf("Harbor trial not counted: %s", j.bad.v[k]);
		long done = cJSON_GetArraySize(j.trials);
		if (j.dir && !j.finished) {
			char of[32] = "";
			if (j.planned)
				snprintf(of, sizeof of, " of %ld", j.planned);
			warnf("Harbor job %s has not finished (no finished_at): %ld trial%s done%s, %ld running; counted "
			      "what is done", j.dir, done, done == 1 ? "" : "s", of, j.running);
		}
		harbor_job_free(&j);
	}
	results_finish(tb);
}

/* The command line: the folders, --out, and --watch with its timings. */
struct summary_opts {
	const char *out;
	bool watching;
	double timeout, interval;
	struct strlist paths;
};

static struct summary_opts opt = { NULL, false, 0, 2, STRLIST_INIT };
static const struct opt rows[] = {
	OPT_STRING("out", &opt.out, "DIR", "where summary.{md,csv,json} go (default: the PATH)"),
	OPT_BOOL("watch", &opt.watching, "print the table live until every due trial is done"),
	OPT_NUMBER("timeout", &opt.timeout, 1e-3, 1e9, "S", "--watch: give up after S seconds"),
	OPT_NUMBER("interval", &opt.interval, 1e-3, 1e9, "S", "--watch: seconds between two (2)"),
	OPT_END,
};

static void parse_args(int argc, char **argv)
{
	opts_args_or_die(rows, argc, argv, 1, &opt.paths);
	if (!opt.paths.n)
		die(2, "give a run folder or a results folder (see --help)");
	for (size_t i = 0; i < opt.paths.n; i++)
		if (!fs_is_dir(opt.paths.v[i]))
			die(2, "'%s' is not a folder: give a run folder or a results folder",
			    opt.paths.v[i]);
}

/* The table of every run and Harbor job under the folders, priced from the
 * routes file when there is one. */
static void build_table(const struct strlist *runs, const struct strlist *jobs,
                        struct results_table *tb)
{
	struct routes routes = ROUTES_INIT;
	bool priced = routes_load_prices(&routes, true);
	results_build(tb, runs, priced ? &routes : NULL);
	import_harbor(tb, jobs, priced ? &routes : NULL);
	routes_free(&routes);
}

static int summarize(const struct summary_opts *o)
{
	struct strlist runs = STRLIST_INIT, jobs = STRLIST_INIT;
	for (size_t i = 0; i < o->paths.n; i++) {
		results_find_runs(o->paths.v[i], 2, &runs);
		harbor_jobs_find(o->paths.v[i], &jobs);
	}
	if (!runs.n && !jobs.n)
		die(2, "no runs under %s%s: no traces/ folder found (run make eval first), and no Harbor job folder",
		    o->paths.v[0], o->paths.n > 1 ? " ..." : "");
	if (!o->out && o->paths.n > 1)
		die(2, "several folders given: say where the summary goes with --out DIR");
	const char *out = o->out ? o->out : o->paths.v[0];
	struct results_table tb = { 0 };
	build_table(&runs, &jobs, &tb);
	struct err e = { 0, "" };
	if (summary_write(out, &tb, &e) < 0)
		die_err(&e);
	printf("%s: %zu row%s from %zu run%s", log_prog(), tb.n, tb.n == 1 ? "" : "s", runs.n, runs.n == 1 ? "" : "s");
	if (jobs.n)
		printf(" and %zu Harbor job%s", jobs.n, jobs.n == 1 ? "" : "s");
	printf(" -> %s/summary.{md,csv,json}\n", out);
	results_free(&tb);
	strlist_free(&runs);
	strlist_free(&jobs);
	return 0;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, VERSION);
	parse_args(argc, argv);
	struct watch_spec w = { &opt.paths, NULL, NULL, opt.timeout, opt.interval, run_lock_due,
		                NULL,       NULL };
	int rc = opt.watching ? watch_table(&w) : summarize(&opt);
	strlist_free(&opt.paths);
	return rc;
}
