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
	"nothing (also for any --strays). Exit 0 either way; 2 for bad usage.\n"
	"\n"
	"  --help      this text\n"
	"  --version   the format version\n";

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
	std_options(argc, argv, usage, VERSION);
	const char *goals = NULL, *strays = "", *given[3] = { "", "", "" }, *results = NULL;
	int i = 1;
	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		const char *const names[] = { "--given", "--make-f", "--rules" };
		for (int k = 0; k < 3; k++)
			if (!strcmp(argv[i], names[k]))
				given[k] = argv[i + 1];
		if (!strcmp(argv[i], "--noop"))
			goals = argv[i + 1];
		else if (!strcmp(argv[i], "--strays"))
			strays = argv[i + 1];
	}
	if (!goals)
		die(2, "missing --noop GOALS (see --help)");
	for (int k = i; k < argc; k++)
		if (!strncmp(argv[k], "RESULTS=", 8))
			results = argv[k] + 8;
	char *self = rules_bin();
	/* a stray is refused by skillc-rules check; no RESULTS, no journal */
	if (!self || *strays || !results || !*results) {
		free(self);
		return 0;
	}
	hash_hex key;
	noop_key(goals, given[0], given[1], given[2], self, argc - 1, argv + 1, key);
	free(self);
	struct buf line = BUF_INIT;
	bool holds = noop_probe(results, key, &line);
	if (holds && (printf("skillc-noop: %s", line.data) < 0 || fflush(stdout) != 0))
		die(1, "cannot write to stdout: %m");
	buf_free(&line);
	return 0;
}
