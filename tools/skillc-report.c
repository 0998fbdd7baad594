/* skillc-report — the HTML report of runs: report.html and charts/<id>.svg in
 * each run folder, and index.html (with charts/delta.svg) over the runs of
 * a results folder. One self-contained file per page: inline CSS and SVG,
 * no script, no network. The work is in report/page.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "llm/routes.h"
#include "report/page.h"
#include "report/results.h"

static const char usage[] =
	"usage: skillc-report [--index DIR] PATH...\n"
	"\n"
	"PATH is a run folder (holding traces/) or a results folder holding runs.\n"
	"Writes report.html and charts/*.svg into every run folder found, and,\n"
	"for a results folder, index.html and charts/delta.svg into it. --index\n"
	"DIR also writes DIR's index.html over every run under DIR (make report\n"
	"task=T: the run's page and the index of RESULTS). A file is\n"
	"rewritten only when its bytes change. Trials whose runner reported no\n"
	"cost are priced from the routes file (ROUTES); unknown stays unknown.\n"
	"Exit 0 done, 1 a file could not be written, 2 bad usage or no runs.\n";

static const char *index_dir;
static const struct opt rows[] = {
	OPT_STRING("index", &index_dir, "DIR", "also DIR's index.html over every run under DIR"),
	OPT_END,
};

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_REPORT);
	struct strlist paths;
	opts_args_or_die(rows, argc, argv, 1, &paths);
	const char *index = index_dir;
	if (index && !fs_is_dir(index))
		die(2, "--index '%s' is not a folder: give the results folder", index);
	for (size_t i = 0; i < paths.n; i++)
		if (!fs_is_dir(paths.v[i]))
			die(2, "'%s' is not a folder: give a run folder or a results folder",
			    paths.v[i]);
	if (!paths.n)
		die(2, "give a run folder or a results folder (see --help)");
	struct err e = { 0, "" };
	struct routes routes = ROUTES_INIT;
	bool priced = routes_load_prices(&routes, true);
	int changed = 0;
	size_t pages = 0;
	for (size_t i = 0; i < paths.n; i++) {
		struct strlist runs = STRLIST_INIT;
		results_find_runs(paths.v[i], 2, &runs);
		if (!runs.n)
			die(2, "no runs under %s: no traces/ folder found (run make eval first)", paths.v[i]);
		for (size_t k = 0; k < runs.n; k++, pages++)
			if (page_write_run(runs.v[k], priced ? &routes : NULL, &changed, &e) < 0)
				die_err(&e);
		bool is_run = runs.n == 1 && !strcmp(runs.v[0], paths.v[i]);
		if (!is_run) {
			if (page_write_index(paths.v[i], &runs, priced ? &routes : NULL, &changed, &e) < 0)
				die_err(&e);
			printf("%s: %s/index.html over %zu run%s\n", log_prog(), paths.v[i], runs.n, runs.n == 1 ? "" : "s");
		}
		strlist_free(&runs);
	}
	if (index) {
		struct strlist runs = STRLIST_INIT;
		results_find_runs(index, 2, &runs);
		if (page_write_index(index, &runs, priced ? &routes : NULL, &changed, &e) < 0)
			die_err(&e);
		printf("%s: %s/index.html over %zu run%s\n", log_prog(), index, runs.n, runs.n == 1 ? "" : "s");
		strlist_free(&runs);
	}
	printf("%s: %zu run report%s, %d file%s rewritten\n", log_prog(), pages, pages == 1 ? "" : "s", changed,
	       changed == 1 ? "" : "s");
	routes_free(&routes);
	strlist_free(&paths);
	return 0;
}
