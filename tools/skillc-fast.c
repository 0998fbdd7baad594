/* skillc-fast — the fast stage: traces of a skill -> scores and groups ->
 * one map call per top/bottom unit -> reduce into typed patches -> S_fast.
 * make runs one subcommand per target (fast-score, fast-map.NNN,
 * fast-reduce, fast-apply); without a subcommand it is a thin front over
 * that make graph (pipeline/front.h) on a folder of traces, as the seed's
 * `python -m scripts.dynamic_compile.fast` was run: the run lives in
 * --output/.run (TRACES: imported, STATIC_MODE=copy), make decides what is
 * done. The steps are optimize/fast.h; this is their command line. See
 * docs/fast.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/versions.h"
#include "optimize/fast.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"
#include "pipeline/front.h"

static const char usage[] =
	"usage: skillc-fast --traces DIR --skill DIR --model M [--output DIR] [--max-parallel N]\n"
	"                   [--rm-api-url URL] [--task DIR] [--profile FILE] [--only SKILLS]\n"
	"                   [--min-traces N] [--top N] [--bottom N] [--max-patches N] [--force]\n"
	"       skillc-fast score  --traces DIR --skill DIR --dir DIR [--trials N] [--task DIR]\n"
	"                          [--rm-api-url URL] [--min-traces N] [--top N] [--bottom N]\n"
	"       skillc-fast map    --unit N --traces DIR --skill DIR --dir DIR --model M [--task DIR]\n"
	"       skillc-fast reduce --units N --skill DIR --dir DIR --model M [--max-patches N]\n"
	"                          [--profile FILE | --budget TOKENS]\n"
	"       skillc-fast apply  --skill DIR --dir DIR [--profile FILE | --budget TOKENS] [--hash FILE]\n"
	"                          [--task DIR [--leak-task DIR]... [--traces DIR [--trials N]]]\n"
	"       score, map, apply: [--pool-traces DIR]... (other tasks' traces: <task>/test-NNN)\n"
	"       score, map: [--pool-task DIR]... (their folders: a trace's own instruction)\n"
	"\n"
	"score   scores every trace under --traces (test-NNN/trial.json folders, or\n"
	"        BenchFlow runs) of the skill --skill (a skill folder, or a skills root\n"
	"        holding a set): DIR/scores.json and DIR/groups.json. --trials N takes\n"
	"        exactly test-001..test-N (make). AgentRM gets each trace's own task's\n"
	"        instruction (as map's prompt holds it), else the trace's first prompt.\n"
	"map     asks --model (the compiler's model) about unit N of DIR/groups.json:\n"
	"        DIR/map/NNN.json (typed findings, validated). The prompt holds the\n"
	"        instruction of each trace's own task: --task's, or for a trace\n"
	"        <task>/test-NNN of --pool-traces the --pool-task folder named <task>.\n"
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
	"fast-<skill>), through the pipeline's make (the run in --output/.run, the\n"
	"traces imported by TRACES, the skill copied by STATIC_MODE=copy; --profile is\n"
	"PROFILE, else MODEL's), map calls --max-parallel at a time (default 3, make -j);\n"
	"--output gets links to S_fast, the scores, groups, patches and reports. make\n"
	"does nothing when all is up to date, and resumes a run cut short; --force\n"
	"forgets the stage (clean-stage) and asks the models again (LLM_CACHE=refresh).\n"
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
	o->rm_url = getenv("RM_API_URL");
	o->model = getenv("EXTERNAL_MODEL");
	o->min_traces = env_int("FAST_MIN_TRACES", 6);
	o->top = env_int("FAST_TOP", 3);
	o->bottom = env_int("FAST_BOTTOM", 3);
	o->max_patches = env_int("FAST_MAX_PATCHES", 4);
	o->max_parallel = 3;
}

static struct fast_opts fast;

/* The rows every step shares, then each step's own: a step takes only its
 * rows (TOOL STEP --help lists them). */
#define SKILL_ROW \
	OPT_STRING("skill", &fast.skill, "DIR", "the skill folder, or a skills root holding a set")
#define DIR_ROW \
	OPT_STRING("dir", &fast.dir, "DIR", "the stage's folder (scores, groups, map, S_fast)")
#define ONLY_ROW OPT_STRING("only", &fast.only, "SKILLS", "change only these skills of the set")
#define TASK_ROW \
	OPT_STRING("task", &fast.task, "DIR", "the task (instruction; apply: leakage guard)")
#define TRACES_ROW \
	OPT_STRING("traces", &fast.traces, "DIR", "test-NNN/trial.json folders, or BenchFlow runs")
#define POOL_ROW \
	OPT_EACH("pool-traces", &fast.pool_traces, "DIR", "another task's traces, repeated")
#define POOL_TASK_ROW \
	OPT_EACH("pool-task", &fast.pool_tasks, "DIR", "a --pool-traces task's folder, repeated")
#define TRIALS_ROW \
	OPT_SMALL("trials", &fast.trials, 1, 100000, "N", "take exactly test-001..test-N")
#define MODEL_ROW OPT_STRING("model", &fast.model, "M", "the compiler's model (provider/model-id)")
#define RM_ROW OPT_STRING("rm-api-url", &fast.rm_url, "URL", "AgentRM's address ($RM_API_URL)")
#define PICK_ROWS \
	OPT_SMALL("min-traces", &fast.min_traces, 1, 100000, "N", "fewest traces (6)"), \
	OPT_SMALL("top", &fast.top, 1, 100, "N", "top units (3)"), \
	OPT_SMALL("bottom", &fast.bottom, 1, 100, "N", "bottom units (3)")
#define PATCHES_ROW \
	OPT_SMALL("max-patches", &fast.max_patches, 0, 100, "N", "most patches (4)")
#define PROFILE_ROW \
	OPT_STRING("profile", &fast.profile, "FILE", "the target model's profile (budget)")
#define BUDGET_ROW \
	OPT_WHOLE("budget", &fast.budget, 1, 100000000, "TOKENS", "budget without a profile (5000)")

static const struct opt front_rows[] = {
	TRACES_ROW, SKILL_ROW, MODEL_ROW,
	OPT_STRING("output", &fast.output, "DIR", "where the run and its links go (fast-<skill>)"),
	OPT_SMALL("max-parallel", &fast.max_parallel, 1, 64, "N", "map calls at once (3)"),
	RM_ROW, TASK_ROW, PROFILE_ROW, ONLY_ROW, PICK_ROWS, PATCHES_ROW,
	OPT_BOOL("force", &fast.force, "forget the stage and ask the models again"),
	OPT_END,
};
static const struct opt score_rows[] = {
	TRACES_ROW, POOL_ROW, POOL_TASK_ROW, TRIALS_ROW, SKILL_ROW, DIR_ROW, TASK_ROW, ONLY_ROW,
	RM_ROW, PICK_ROWS, OPT_END,
};
static const struct opt map_rows[] = {
	OPT_SMALL("unit", &fast.unit, 1, 1000, "N", "the unit of groups.json to ask about"),
	TRACES_ROW, POOL_ROW, POOL_TASK_ROW, SKILL_ROW, DIR_ROW, TASK_ROW, ONLY_ROW, MODEL_ROW,
	OPT_END,
};
static const struct opt reduce_rows[] = {
	OPT_SMALL("units", &fast.units, 1, 1000, "N", "how many map/NNN.json to merge"),
	SKILL_ROW, DIR_ROW, ONLY_ROW, MODEL_ROW, PATCHES_ROW, PROFILE_ROW, BUDGET_ROW, OPT_END,
};
static const struct opt apply_rows[] = {
	SKILL_ROW, DIR_ROW, ONLY_ROW, PROFILE_ROW, BUDGET_ROW,
	OPT_STRING("hash", &fast.hash, "FILE", "where S_fast's tree hash goes (DIR/S_fast.hash)"),
	TASK_ROW,
	OPT_EACH("leak-task", &fast.leak_tasks, "DIR", "another held-out task, repeated"),
	TRACES_ROW, POOL_ROW, TRIALS_ROW, OPT_END,
};
/* "" is the front (no step): its rows are in --help too. */
static const struct opt_cmd cmds[] = {
	{ "", front_rows },         { "score", score_rows }, { "map", map_rows },
	{ "reduce", reduce_rows },  { "apply", apply_rows }, OPT_CMD_END,
};

/* NAME=value onto the make command; bad values exit 2 naming the option. */
static void set(struct strlist *mk, const char *name, const char *value, const char *opt)
{
	struct err e = { 0 };
	if (value && *value && front_set(mk, name, value, opt, &e) < 0)
		die_err(&e);
}

static void set_int(struct strlist *mk, const char *name, long value)
{
	strlist_push_owned(mk, xasprintf("%s=%ld", name, value));
}

static char *real_or_die(const char *path, const char *opt)
{
	if (path && !fs_exists(path))
		die(2, "%s: '%s' not found", opt, path);
	return path ? fs_real_path(path) : NULL;
}

/* The task of the run: --task, else an empty one in out/.task/<name> (the
 * graph needs a task; an empty instruction is no instruction). */
static char *task_of(const struct fast_opts *o, const char *out, const char *name)
{
	if (o->task)
		return real_or_die(o->task, "--task");
	struct err e = { 0 };
	char *dir = xasprintf("%s/.task/%s", out, name), *ins = path_join(dir, "instruction.md");
	if (fs_mkdirs(dir, &e) < 0 || fs_write_if_changed(ins, "", 0, &e) < 0)
		die_err(&e);
	free(ins);
	return dir;
}

static const char *const shown[] = { "S_fast",       "S_fast.hash", "scores.json",
	                             "groups.json",  "map",         "reduce.json",
	                             "patches.json", "report.json", "report.md" };

/* The make command of the standalone run, without its goal. */
static void front_argv(const struct fast_opts *o, const char *out, const char *name, long traces,
                       struct strlist *mk)
{
	struct err e = { 0 };
	if (front_begin(mk, o->max_parallel, &e) < 0)
		die_err(&e);
	char *task = task_of(o, out, name), *tasks = path_dir(task), *run = path_join(out, ".run");
	char *skill = real_or_die(o->skill, "--skill"), *tr = real_or_die(o->traces, "--traces");
	char *profile = real_or_die(o->profile, "--profile");
	set(mk, "task", path_base(task), "--task");
	set(mk, "TASKS_DIR", tasks, "--task");
	set(mk, "RESULTS", out, "--output");
	set(mk, "RUN_DIR", run, "--output");
	set(mk, "SKILL_SOURCE", skill, "--skill");
	set(mk, "TRACES", tr, "--traces");
	set(mk, "STATIC_MODE", "copy", "--skill");
	set(mk, "PROFILE", profile, "--profile");
	set(mk, "EXTERNAL_MODEL", o->model, "--model");
	/* the traces' own model, when known: it names the profile without --profile */
	set(mk, "MODEL", getenv("MODEL") && *getenv("MODEL") ? getenv("MODEL") : "traces/imported",
	    "MODEL");
	set(mk, "RM_API_URL", o->rm_url, "--rm-api-url");
	set(mk, "SKILLS", o->only, "--only");
	set_int(mk, "REPEAT", traces);
	set_int(mk, "FAST_MIN_TRACES", o->min_traces);
	set_int(mk, "FAST_TOP", o->top);
	set_int(mk, "FAST_BOTTOM", o->bottom);
	set_int(mk, "FAST_MAX_PATCHES", o->max_patches);
	free(task);
	free(tasks);
	free(run);
	free(skill);
	free(tr);
	free(profile);
}

/* Without a step: the run set up, make for fast-apply, the links. */
static int run_front(const struct fast_opts *o)
{
	if (!o->traces || !*o->traces || !o->skill || !*o->skill)
		die(2, "%s is required (see --help)",
		    !o->traces || !*o->traces ? "--traces" : "--skill");
	if (!o->model || !*o->model)
		die(2, "the fast stage asks the compiler's model: set "
		       "EXTERNAL_MODEL=provider/model-id "
		       "(or --model)");
	struct err e = { 0 };
	struct pkgset src = { 0 };
	struct trace_set ts;
	struct trace_opts to = { 0, NULL };
	if (pkgset_load(o->skill, o->only, &src, &e) < 0 ||
	    traces_load(o->traces, &to, &ts, &e) < 0)
		die_err(&e);
	/* a set of one is named by its skill, a set by its root */
	char *name = xstrdup(src.n == 1 ? src.v[0].name : path_base(o->skill));
	char *out_default = xasprintf("fast-%s", name);
	const char *output = o->output ? o->output : out_default;
	if (fs_mkdirs(output, &e) < 0)
		die_err(&e);
	char *out = fs_real_path(output), *run = path_join(out, ".run");
	struct strlist mk = STRLIST_INIT;
	front_argv(o, out, name, (long)ts.n, &mk);
	struct proc_result res = { 0 };
	if (o->force) {
		strlist_push(&mk, "STAGE=fast-score");
		if (front_run(&mk, "clean-stage", &res, &e) < 0)
			die_err(&e);
		free(mk.v[--mk.n]);
		mk.v[mk.n] = NULL;
		setenv("LLM_CACHE", "refresh", 1);
	}
	long long before = front_mark(run);
	if (res.exit_code == 0 && front_run(&mk, "fast-apply", &res, &e) < 0)
		die_err(&e);
	for (size_t i = 0; i < ARRAY_LEN(shown) && res.exit_code == 0; i++) {
		char *rel = xasprintf(".run/artifacts/fast/%s", shown[i]);
		if (front_link(out, shown[i], rel, &e) < 0)
			die_err(&e);
		free(rel);
	}
	if (res.exit_code == 0 && before && front_mark(run) == before)
		printf("%s: up to date (make: the same traces, skill, settings and version made "
		       "every file)\n",
		       output);
	else if (res.exit_code == 0)
		printf("S_fast: %s/S_fast%s%s\n", output, src.n == 1 ? "/" : "",
		       src.n == 1 ? name : "");
	strlist_free(&mk);
	free(run);
	free(out);
	free(out_default);
	free(name);
	traces_free(&ts);
	pkgset_free(&src);
	return front_status(&res);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, V_FAST);
	if (argc < 2)
		die(2, "missing arguments: a step (score, map, reduce, apply) or --traces DIR "
		       "--skill DIR (see --help)");
	defaults(&fast);
	struct err e = { 0 };
	int rc;
	const char *cmd = argv[1];
	if (cmd[0] == '-') {
		opts_parse_or_die(front_rows, argc, argv, 1, NULL);
		rc = run_front(&fast);
	} else {
		const struct opt_cmd *c = *cmd ? opts_cmd_find(cmds, cmd) : NULL;
		if (!c)
			die(2, "unknown step '%s': score, map, reduce or apply (see --help)", cmd);
		opts_parse_or_die(c->rows, argc, argv, 2, NULL);
		rc = !strcmp(cmd, "score")    ? fast_step_score(&fast, &e)
		     : !strcmp(cmd, "map")    ? fast_step_map(&fast, &e)
		     : !strcmp(cmd, "reduce") ? fast_step_reduce(&fast, &e)
		                              : fast_step_apply(&fast, &e);
		if (rc < 0)
			die_err(&e);
	}
	strlist_free(&fast.leak_tasks);
	strlist_free(&fast.pool_traces);
	strlist_free(&fast.pool_tasks);
	return rc;
}
