/* skillc-noop — answers a make that has nothing to do from the command's
 * no-op journal (pipeline/noop.h), and nothing else. It is the one process
 * such a make starts, so it is kept small: linked statically from the few
 * sources it needs (see the Makefile), no settings table, no cJSON. Any
 * doubt (no journal, a stat that differs, a busy run, a stray variable)
 * prints nothing, and skillc.mk takes the whole path through
 * skillc-rules, which checks and says everything as before. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "pipeline/noop.h"

#define VERSION "1"

static const char usage[] =
	"usage: skillc-noop [--strays NAMES] --noop 'G...' --given 'NAME...' --make-f F\n"
	"                   --rules DIR NAME=VALUE...\n"
	"\n"
	"Run by skillc.mk while make reads it, with the arguments skillc-rules check\n"
	"takes (docs/internals/make.md#the-no-op-journal): when the command's journal\n"
	"(RESULTS/.skillc/noop.<key>) holds, every path in it has the stat data it had\n"
	"and no run is locked, it prints \"skillc-noop: <the last line>\"; otherwise\n"
	"nothing (also for any --strays). Exit 0 either way; 2 for bad usage.\n";

static const char *goals, *strays = "", *given = "", *make_f = "", *rules = "";
static const struct opt rows[] = {
	OPT_STRING("noop", &goals, "GOALS", "the goals of the make (required)"),
	OPT_STRING("given", &given, "NAMES", "the variables given on make's command line"),
	OPT_STRING("make-f", &make_f, "F", "the makefile make reads (SKILLC_MAKE_F)"),
	OPT_STRING("rules", &rules, "DIR", "the rules data (SKILLC_RULES)"),
	OPT_STRING("strays", &strays, "NAMES", "variables skillc-rules check refuses: no answer"),
	OPT_END,
};

/* skillc-rules beside this program: the journal's key holds its identity. */
static char *rules_bin(void)
{
	char *self = fs_self_exe();
	if (!self)
		return NULL;
	char *dir = path_dir(self), *p = path_join(dir, "skillc-rules");
	free(self);
	free(dir);
	return p;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, VERSION);
	struct strlist sets;
	opts_args_or_die(rows, argc, argv, 1, &sets);
	if (!goals)
		die(2, "missing --noop GOALS (see --help)");
	const char *results = NULL;
	for (size_t k = 0; k < sets.n; k++)
		if (!strncmp(sets.v[k], "RESULTS=", 8))
			results = sets.v[k] + 8;
	char *self = rules_bin();
	/* a stray is refused by skillc-rules check; no RESULTS, no journal */
	if (!self || *strays || !results || !*results) {
		free(self);
		strlist_free(&sets);
		return 0;
	}
	hash_hex key;
	noop_key(goals, given, make_f, rules, self, argc - 1, argv + 1, key);
	free(self);
	struct buf line = BUF_INIT;
	bool holds = noop_probe(results, key, &line);
	strlist_free(&sets); /* results points into it */
	if (holds && (printf("skillc-noop: %s", line.data) < 0 || fflush(stdout) != 0))
		die(1, "cannot write to stdout: %m");
	buf_free(&line);
	return 0;
}
