/* skillc-fast — the fast stage: traces of a skill -> scores and groups ->
 * one map call per top/bottom unit -> reduce into typed patches -> S_fast.
 * make runs one subcommand per target (fast-score, fast-map.NNN,
 * fast-reduce, fast-apply); without a subcommand it runs every step on a
 * folder of traces, as the seed's `python -m scripts.dynamic_compile.fast`
 * did. The steps are optimize/fast.h; this is their command line. See
 * docs/fast.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/versions.h"
#include "optimize/fast.h"

static const char usage[] =
	"usage: skillc-fast --traces DIR --skill DIR --model M [--output DIR] [--score-output FILE]\n"
	"                   [--max-parallel N] [--rm-api-url URL] [--task DIR] [--profile FILE]\n"
	"                   [--only SKILLS] [--force] [step options]\n"
	"       skillc-fast score  --traces DIR --skill DIR --dir DIR [--trials N] [--task DIR]\n"
	"                          [--rm-api-url URL] [--min-traces N] [--top N] [--bottom N]\n"
	"       skillc-fast map    --unit N --traces DIR --skill DIR --dir DIR --model M [--task DIR]\n"
	"       skillc-fast reduce --units N --skill DIR --dir DIR --model M [--max-patches N]\n"
	"                          [--profile FILE | --budget TOKENS]\n"
	"       skillc-fast apply  --skill DIR --dir DIR [--profile FILE | --budget TOKENS] [--hash FILE]\n"
	"                          [--task DIR [--leak-task DIR]... [--traces DIR [--trials N]]]\n"
	"       score, map, apply: [--pool-traces DIR]... (other tasks' traces: <task>/test-NNN)\n"
	"\n"
	"score   scores every trace under --traces (test-NNN/trial.json folders, or\n"
	"        BenchFlow runs) of the skill --skill (a skill folder, or a skills root\n"
	"        holding a set): DIR/scores.json and DIR/groups.json. --trials N takes\n"
	"        exactly test-001..test-N (make); --task DIR gives the instruction.\n"
	"map     asks --model (the compiler's model) about unit N of DIR/groups.json:\n"
	"        DIR/map/NNN.json (typed findings, validated).\n"
	"reduce  groups the findings of DIR/map/001..N.json and merges them into at most\n"
	"        --max-patches typed patches: DIR/reduce.json, DIR/patches.json.\n"
	"apply   applies DIR/patches.json through the document model, each checked by the\n"
	"        static guard and rolled back when it fails: DIR/S_fast/<skill>/, its tree\n"
	"        hash (DIR/S_fast.hash or --hash), DIR/report.json, DIR/report.md.\n"
	"        --task DIR adds the leakage guard: a patch that copies what only the\n"
	"        task's tests/, solution/, expected files or the verifier output of the\n"
	"        traces under --traces hold is rolled back (docs/leakage.md);\n"
	"        --leak-task DIR (repeated) guards another task's held-out files too\n"
	"        (a skill run's other train tasks).\n"
	"--skill may be a set (a skills root of several skills): units come from every\n"
	"skill, a section id names its skill (<skill>:<id>), a patch changes one skill;\n"
	"--only SKILLS (names separated by spaces or commas) lets map, reduce and apply\n"
	"change only those skills, the others stay byte-identical.\n"
	"Without a step: all four on a folder of traces into --output (default\n"
	"fast-<skill>), map calls --max-parallel at a time (default 3). It does nothing\n"
	"when the output's record (fast-run.json) says the same inputs, settings and\n"
	"version made the files that are there; --force runs again and asks the models\n"
	"again (LLM_CACHE=refresh).\n"
	"Defaults: $RM_API_URL, $EXTERNAL_MODEL, $FAST_MIN_TRACES (6), $FAST_TOP (3),\n"
	"$FAST_BOTTOM (3), $FAST_MAX_PATCHES (4); the budget: the profile's, else 5000.\n"
	"\n"
	"Exit 0 done, 1 the work failed (AgentRM or the model down), 2 bad usage or\n"
	"input (too few traces, a missing file). See docs/fast.md.\n";

static int env_int(const char *name, int fallback)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : fallback;
}

static void defaults(struct fast_opts *o)
{
	memset(o, 0, sizeof *o);
	o->rm_url = getenv("RM_API_URL");
	o->model = getenv("EXTERNAL_MODEL");
	o->min_traces = env_int("FAST_MIN_TRACES", 6);
	o->top = env_int("FAST_TOP", 3);
	o->bottom = env_int("FAST_BOTTOM", 3);
	o->max_patches = env_int("FAST_MAX_PATCHES", 4);
	o->max_parallel = 3;
}

static const char **string_slot(struct fast_opts *o, const char *a)
{
	return !strcmp(a, "--traces")         ? &o->traces
	       : !strcmp(a, "--skill")        ? &o->skill
	       : !strcmp(a, "--dir")          ? &o->dir
	       : !strcmp(a, "--task")         ? &o->task
	       : !strcmp(a, "--rm-api-url")   ? &o->rm_url
	       : !strcmp(a, "--model")        ? &o->model
	       : !strcmp(a, "--profile")      ? &o->profile
	       : !strcmp(a, "--hash")         ? &o->hash
	       : !strcmp(a, "--output")       ? &o->output
	       : !strcmp(a, "--score-output") ? &o->score_output
	       : !strcmp(a, "--only")         ? &o->only
					      : NULL;
}

static void parse(int argc, char **argv, int from, struct fast_opts *o)
{
	defaults(o);
	for (int i = from; i < argc; i++) {
		const char *a = argv[i];
		const char **s = string_slot(o, a);
		if (s) {
			*s = std_option_value(argc, argv, &i);
			continue;
		}
		if (!strcmp(a, "--force")) {
			o->force = true;
			continue;
		}
		if (!strcmp(a, "--leak-task") || !strcmp(a, "--pool-traces")) {
			strlist_push(a[2] == 'l' ? &o->leak_tasks : &o->pool_traces,
			             std_option_value(argc, argv, &i));
			continue;
		}
		struct { const char *flag; int *slot; long min, max; } ints[] = {
			{ "--trials", &o->trials, 1, 100000 },     { "--min-traces", &o->min_traces, 1, 100000 },
			{ "--top", &o->top, 1, 100 },              { "--bottom", &o->bottom, 1, 100 },
			{ "--unit", &o->unit, 1, 1000 },           { "--units", &o->units, 1, 1000 },
			{ "--max-patches", &o->max_patches, 0, 100 }, { "--max-parallel", &o->max_parallel, 1, 64 },
		};
		size_t k = 0;
		while (k < ARRAY_LEN(ints) && strcmp(a, ints[k].flag))
			k++;
		if (k < ARRAY_LEN(ints))
			*ints[k].slot = (int)std_option_long(a, std_option_value(argc, argv, &i), ints[k].min, ints[k].max);
		else if (!strcmp(a, "--budget"))
			o->budget = std_option_long(a, std_option_value(argc, argv, &i), 1, 100000000);
		else
			die(2, "unknown option '%s' (see --help)", a);
	}
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_FAST);
	if (argc < 2)
		die(2, "missing arguments: a step (score, map, reduce, apply) or --traces DIR --skill DIR (see --help)");
	struct fast_opts o;
	struct err e = { 0 };
	int rc;
	const char *cmd = argv[1];
	if (cmd[0] == '-') {
		parse(argc, argv, 1, &o);
		char *dir = tool_dir();
		char *self = path_join(dir, "skillc-fast");
		rc = fast_run(&o, self, &e);
		free(self);
		free(dir);
	} else {
		parse(argc, argv, 2, &o);
		rc = !strcmp(cmd, "score")    ? fast_step_score(&o, &e)
		     : !strcmp(cmd, "map")    ? fast_step_map(&o, &e)
		     : !strcmp(cmd, "reduce") ? fast_step_reduce(&o, &e)
		     : !strcmp(cmd, "apply")  ? fast_step_apply(&o, &e)
					      : (die(2, "unknown step '%s': score, map, reduce or apply (see --help)", cmd), 2);
	}
	if (rc < 0)
		die_err(&e);
	strlist_free(&o.leak_tasks);
	strlist_free(&o.pool_traces);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
	return rc;
}
