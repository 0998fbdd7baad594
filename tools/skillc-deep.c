/* skillc-deep — the deep stage: rounds of section scoring, one local edit,
 * candidate trials and a decision, keeping the best validated skill; then
 * S_final and its final evaluation. make runs one step per target
 * (deep-start, deep-K-score, deep-K-edit, deep-K-eval.NNN, deep-K-look.NNN,
 * deep-K-decide, deep-final, final-eval.NNN). `skillc-deep run` (the
 * seed's `deep run`) is a thin front over that make graph
 * (pipeline/front.h): a run in --output/.run that starts deep from the
 * given traces (TRACES imported, STATIC_MODE=copy, FAST_STAGE=0); make
 * decides what is done, `resume` runs it again. The steps are
 * optimize/deep.h; this is their command line. See docs/deep.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "optimize/deep.h"
#include "optimize/deepfiles.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"
#include "pipeline/front.h"

static const char usage[] =
	"usage: skillc-deep start  --run DIR --base-source S --base-skill DIR --base-trials DIR --base-count N\n"
	"                          [--cand-source S --cand-skill DIR --cand-trials DIR\n"
	"                          --cand-count N]\n"
	"                          [--pool-base-trials DIR --pool-cand-trials DIR]... RULE\n"
	"       skillc-deep score  --run DIR --round K --model M [--task DIR] [--only SKILLS]\n"
	"       skillc-deep edit   --run DIR --round K --model M [--task DIR] [--profile FILE]\n"
	"                          [--only SKILLS] [--leak-task DIR]...\n"
	"       skillc-deep trial  --run DIR --round K --index I --trial DIR [--of-task NAME]\n"
	"                          RULE -- COMMAND...\n"
	"       skillc-deep look   --run DIR --round K --look J [--pool-task NAME]... RULE\n"
	"       skillc-deep decide --run DIR --round K [--pool-task NAME]... RULE\n"
	"       skillc-deep final  --run DIR --rounds R\n"
	"       skillc-deep final-trial --run DIR --rounds R --index I --trial DIR [--fresh] -- COMMAND...\n"
	"       skillc-deep run    --skill DIR --traces DIR --output DIR --model M --task DIR\n"
	"                          --target-model M [--harness H] [--runner R] [--rounds N] [RULE]\n"
	"       skillc-deep resume --run DIR\n"
	"RULE:  --first N --max N --alpha A --tolerance T [--test barnard|fisher]\n"
	"\n"
	"Paths inside the files are relative to --run; every file is under\n"
	"<run>/artifacts/deep/. start: round-0/ (the better of the base and the\n"
	"candidate skill by the decision rule). score: round-K/scores.json. edit:\n"
	"round-K/edit.json, candidate/, candidate.hash. trial: round-K/trials/III.json,\n"
	"running COMMAND (a skillc-eval) only when the trial is needed. look: the\n"
	"decision after look J, round-K/look-JJJ.json. decide: round-K/decision.json,\n"
	"best.json, rejected.json. final: S_final/, S_final.hash, rejected.json,\n"
	"report.json, report.md. final-trial: the final evaluation's trial I, the last\n"
	"accepted round's trial I copied when S_final is that round's candidate\n"
	"(unless --fresh), else COMMAND. Each step takes only its own options\n"
	"(skillc-deep STEP --help lists them).\n"
	"A skills root may hold a set of several skills: units come from every skill\n"
	"(ids <skill>:<section id>), the edit changes one unit of one skill; --only\n"
	"SKILLS lets score and edit take units of those skills alone.\n"
	"edit: with --task, the leakage guard rolls back an edit copying what only the\n"
	"task's tests/, solution/, expected files or verifier output hold; each\n"
	"--leak-task DIR adds another task's (a skill run's other train tasks).\n"
	"Pooled over several tasks (a skill run's train tasks): start's --pool-base-trials\n"
	"and --pool-cand-trials (one pair per other task), trial's --of-task (its record\n"
	"in round-K/trials/NAME/) and look's and decide's --pool-task NAME make the rule\n"
	"the exact stratified test over the tasks, each task a stratum; decision.json\n"
	"holds each task's counts and the stratified p.\n"
	"run: the seed's `deep run`, as a thin front over the pipeline's make: a run\n"
	"in <output>/.run (SKILL_SOURCE --skill copied by STATIC_MODE=copy, TRACES\n"
	"--traces imported as its static trials, FAST_STAGE=0: round 1 starts from the\n"
	"skill), `make deep` there: --rounds rounds (default 3), candidate trials by\n"
	"skillc-eval (--target-model, --harness opencode, --runner local), S_final.\n"
	"The settings go to <output>/deep-run.json; <output>/artifacts and\n"
	"<output>/traces are links into the run. resume: the same again from that\n"
	"file; make decides what is done.\n"
	"\n"
	"Exit 0 done, 1 the work failed (run: any failed target), 2 bad usage or input.\n"
	"See docs/deep.md.\n";

/* The standalone run's own settings (run, resume). */
struct front_opts {
	const char *skill, *traces, *output, *target, *harness, *runner;
};

static struct deep_opts opt;
static struct front_opts fr;
static const char *test_name;

/* The rows several steps share, then each step's own: a step takes only
 * its rows (skillc-deep STEP --help lists them). */
#define RUN_ROW OPT_STRING("run", &opt.run, "DIR", "the run folder; file paths are relative to it")
#define ROUND_ROW OPT_SMALL("round", &opt.round, 1, 100, "K", "the round the step is about")
#define ROUNDS_ROW OPT_SMALL("rounds", &opt.rounds, 0, 100, "R", "rounds")
#define MODEL_ROW OPT_STRING("model", &opt.model, "M", "the compiler's model ($EXTERNAL_MODEL)")
#define TASK_ROW OPT_STRING("task", &opt.task, "DIR", "the task folder")
#define ONLY_ROW OPT_STRING("only", &opt.only, "SKILLS", "the skills of the set to change")
#define POOL_TASK_ROW OPT_EACH("pool-task", &opt.pool_tasks, "NAME", "another pooled task")
#define INDEX_ROW OPT_SMALL("index", &opt.index, 1, 100000, "I", "the trial's index")
#define TRIAL_ROW OPT_STRING("trial", &opt.trial, "DIR", "the trial's folder")
#define RULE_ROWS \
	OPT_WHOLE("first", &opt.rule.first, 1, 200, "N", "RULE: trials at the first look"), \
	OPT_WHOLE("max", &opt.rule.max, 1, 200, "N", "RULE: the most trials of a round"), \
	OPT_NUMBER("alpha", &opt.rule.alpha, 1e-9, 1, "A", "RULE: the false-accept rate"), \
	OPT_NUMBER("tolerance", &opt.rule.tolerance, 1, 100, "T", "RULE: the most time ratio"), \
	OPT_ONE_OF("test", &test_name, "barnard|fisher", "RULE: the exact test")

static const struct opt start_rows[] = {
	RUN_ROW,
	OPT_STRING("base-source", &opt.src[0], "S", "the stage the base skill came from"),
	OPT_STRING("base-skill", &opt.skill[0], "DIR", "the base skill's folder"),
	OPT_STRING("base-trials", &opt.trials[0], "DIR", "the base skill's trials"),
	OPT_WHOLE("base-count", &opt.count[0], 0, 100000, "N", "how many of them count"),
	OPT_STRING("cand-source", &opt.src[1], "S", "the stage the candidate came from"),
	OPT_STRING("cand-skill", &opt.skill[1], "DIR", "the candidate skill's folder"),
	OPT_STRING("cand-trials", &opt.trials[1], "DIR", "the candidate's trials"),
	OPT_WHOLE("cand-count", &opt.count[1], 0, 100000, "N", "how many of them count"),
	OPT_EACH("pool-base-trials", &opt.pool_trials[0], "DIR",
		 "another pooled task's base trials"),
	OPT_EACH("pool-cand-trials", &opt.pool_trials[1], "DIR",
		 "another pooled task's candidate trials"),
	RULE_ROWS, OPT_END,
};
static const struct opt score_rows[] = {
	RUN_ROW, ROUND_ROW, MODEL_ROW, TASK_ROW, ONLY_ROW, OPT_END,
};
static const struct opt edit_rows[] = {
	RUN_ROW, ROUND_ROW, MODEL_ROW, TASK_ROW,
	OPT_STRING("profile", &opt.profile, "FILE", "the target model's profile"), ONLY_ROW,
	OPT_EACH("leak-task", &opt.leak_tasks, "DIR", "another task the leakage guard holds out"),
	OPT_END,
};
static const struct opt trial_rows[] = {
	RUN_ROW, ROUND_ROW, INDEX_ROW, TRIAL_ROW,
	OPT_STRING("of-task", &opt.of_task, "NAME", "the pooled task it is of"), RULE_ROWS, OPT_END,
};
static const struct opt look_rows[] = {
	RUN_ROW, ROUND_ROW,
	OPT_SMALL("look", &opt.look, 1, 1000, "J", "the look of the sequential rule"),
	POOL_TASK_ROW, RULE_ROWS, OPT_END,
};
static const struct opt decide_rows[] = { RUN_ROW, ROUND_ROW, POOL_TASK_ROW, RULE_ROWS, OPT_END };
static const struct opt final_rows[] = { RUN_ROW, ROUNDS_ROW, OPT_END };
static const struct opt final_trial_rows[] = {
	RUN_ROW, ROUNDS_ROW, INDEX_ROW, TRIAL_ROW,
	OPT_BOOL("fresh", &opt.fresh, "copy no selection trial"), OPT_END,
};
static const struct opt run_rows[] = {
	OPT_STRING("skill", &fr.skill, "DIR", "the skill (a folder, or a root holding a set)"),
	OPT_STRING("traces", &fr.traces, "DIR", "its traces: trial folders or BenchFlow runs"),
	OPT_STRING("output", &fr.output, "DIR", "where the run, its links and deep-run.json go"),
	MODEL_ROW, TASK_ROW,
	OPT_STRING("target-model", &fr.target, "M", "the model of the candidate trials (MODEL)"),
	OPT_STRING("harness", &fr.harness, "H", "their harness (HARNESS, opencode)"),
	OPT_STRING("runner", &fr.runner, "R", "their runner (RUNNER, local)"),
	ROUNDS_ROW, RULE_ROWS, OPT_END,
};
static const struct opt resume_rows[] = {
	OPT_STRING("run", &opt.run, "DIR", "the --output of a skillc-deep run"), OPT_END,
};
static const struct opt_cmd cmds[] = {
	{ "start", start_rows },   { "score", score_rows },
	{ "edit", edit_rows },     { "trial", trial_rows },
	{ "look", look_rows },     { "decide", decide_rows },
	{ "final", final_rows },   { "final-trial", final_trial_rows },
	{ "run", run_rows },       { "resume", resume_rows },
	OPT_CMD_END,
};

/* The step's options into opt (a step's defaults first). */
static void parse(int argc, char **argv, const struct opt_cmd *c)
{
	struct deep_opts *o = &opt;
	o->rule = (struct deep_rule){ 3, 6, 3, 0.10, 1.10, DECIDE_BARNARD, false };
	o->model = getenv("EXTERNAL_MODEL");
	if (!strcmp(c->name, "run"))
		o->rounds = 3;
	struct opts_rest rest;
	opts_parse_or_die(c->rows, argc, argv, 2, &rest);
	if (rest.args.n)
		die(2, "unknown option '%s' (see skillc-deep %s --help)", rest.args.v[0], c->name);
	opts_rest_free(&rest);
	bool runs = !strcmp(c->name, "trial") || !strcmp(c->name, "final-trial");
	if (rest.dashdash && !runs)
		die(2, "%s runs no command: only trial and final-trial take -- COMMAND", c->name);
	if (rest.dashdash)
		o->command = argv + rest.dashdash;
	if (test_name)
		o->rule.test = decide_test_from(test_name);
	if (o->rule.max < o->rule.first)
		o->rule.max = o->rule.first;
	o->rule.step = o->rule.first;
	o->rule.pooled = o->pool_tasks.n || o->pool_trials[0].n;
	if (o->pool_trials[0].n != o->pool_trials[1].n && o->pool_trials[1].n)
		die(2, "--pool-base-trials and --pool-cand-trials come in pairs (one per task)");
	if (!o->run && strcmp(c->name, "run"))
		die(2, "--run DIR is required (see skillc-deep %s --help)", c->name);
}

/* ---- run and resume: the front */

static char *real_or_die(const char *path, const char *name)
{
	if (!fs_exists(path))
		die(2, "--%s: '%s' not found", name, path);
	return fs_real_path(path);
}

/* deep-run.json: what resume runs again (paths made absolute). */
static cJSON *run_record(const struct front_opts *f, const struct deep_opts *o)
{
	cJSON *s = cJSON_CreateObject();
	json_set_num(s, "format", 1);
	const char *paths[] = { "skill", f->skill, "traces", f->traces, "task", o->task };
	for (size_t i = 0; i < ARRAY_LEN(paths); i += 2) {
		char *abs = real_or_die(paths[i + 1], paths[i]);
		json_set_str(s, paths[i], abs);
		free(abs);
	}
	json_set_str(s, "model", o->model);
	json_set_str(s, "target_model", f->target);
	json_set_str(s, "harness", f->harness);
	json_set_str(s, "runner", f->runner);
	json_set_num(s, "rounds", o->rounds);
	json_set_num(s, "first", (double)o->rule.first);
	json_set_num(s, "max", (double)o->rule.max);
	json_set_num(s, "alpha", o->rule.alpha);
	json_set_num(s, "tolerance", o->rule.tolerance);
	json_set_str(s, "test", decide_test_name(o->rule.test));
	return s;
}

/* The settings of deep-run.json back into f and o (its strings stay in s). */
static void resume_from(const cJSON *s, struct front_opts *f, struct deep_opts *o)
{
	f->skill = json_str(s, "skill");
	f->traces = json_str(s, "traces");
	o->task = json_str(s, "task");
	o->model = json_str(s, "model");
	f->target = json_str(s, "target_model");
	f->harness = json_str(s, "harness");
	f->runner = json_str(s, "runner");
	o->rounds = (int)json_num(s, "rounds", 3);
	o->rule.first = (long)json_num(s, "first", 3);
	o->rule.max = (long)json_num(s, "max", 6);
	o->rule.alpha = json_num(s, "alpha", 0.10);
	o->rule.tolerance = json_num(s, "tolerance", 1.10);
	o->rule.test = decide_test_from(json_str(s, "test") ? json_str(s, "test") : "barnard");
}

/* NAME=value onto the make command; a bad value exits 2 naming the option. */
static void set(struct strlist *mk, const char *name, const char *value, const char *opt_name)
{
	struct err e = { 0 };
	if (front_set(mk, name, value, opt_name, &e) < 0)
		die_err(&e);
}

/* x as a plain decimal (settings take no exponent; --alpha goes to 1e-9). */
static char *decimal(double x)
{
	char *d = xasprintf("%.9f", x), *end = d + strlen(d) - 1;
	while (*end == '0' && end[-1] != '.')
		*end-- = 0;
	return d;
}

/* The make command of the run in out/.run, without its goal: deep from the
 * given traces (docs/deep.md, `skillc-deep run`). */
static void front_argv(const struct front_opts *f, const struct deep_opts *o, const char *out,
                       long traces, struct strlist *mk)
{
	struct err e = { 0 };
	if (front_begin(mk, 1, &e) < 0)
		die_err(&e);
	char *task = real_or_die(o->task, "task"), *tasks = path_dir(task);
	char *run = path_join(out, ".run");
	set(mk, "task", path_base(task), "--task");
	set(mk, "TASKS_DIR", tasks, "--task");
	set(mk, "RESULTS", out, "--output");
	set(mk, "RUN_DIR", run, "--output");
	set(mk, "SKILL_SOURCE", f->skill, "--skill");
	set(mk, "STATIC_MODE", "copy", "--skill");
	set(mk, "TRACES", f->traces, "--traces");
	set(mk, "FAST_STAGE", "0", "--traces");
	set(mk, "EXTERNAL_MODEL", o->model, "--model");
	set(mk, "MODEL", f->target, "--target-model");
	set(mk, "HARNESS", f->harness, "--harness");
	set(mk, "RUNNER", f->runner, "--runner");
	/* every trace counts: static-eval imports exactly them */
	char *v[] = { xasprintf("%ld", traces), xasprintf("%d", o->rounds),
		      xasprintf("%ld", o->rule.first), xasprintf("%ld", o->rule.max),
		      decimal(o->rule.alpha), decimal(o->rule.tolerance) };
	set(mk, "REPEAT", v[0], "--traces");
	set(mk, "FAST_MIN_TRACES", "1", "--traces");
	set(mk, "DEEP_ROUNDS", v[1], "--rounds");
	set(mk, "DEEP_TRIALS", v[2], "--first");
	set(mk, "DEEP_MAX_TRIALS", v[3], "--max");
	set(mk, "DEEP_ALPHA", v[4], "--alpha");
	set(mk, "DEEP_TOLERANCE", v[5], "--tolerance");
	set(mk, "DEEP_TEST", decide_test_name(o->rule.test), "--test");
	for (size_t i = 0; i < ARRAY_LEN(v); i++)
		free(v[i]);
	free(task);
	free(tasks);
	free(run);
}

/* run: the record of a new run (its options checked, written once the
 * traces are read); resume: the one recorded. Either way the settings
 * come back into f and o from it. */
static cJSON *front_record(struct front_opts *f, struct deep_opts *o, bool resume,
                           const char *rec)
{
	struct err e = { 0 };
	cJSON *s = NULL;
	if (resume) {
		s = deep_read(rec, "resume --run DIR needs a folder made by skillc-deep run", &e);
	} else {
		if (!f->skill || !f->traces || !f->output || !o->task || !f->target)
			die(2, "run needs --skill, --traces, --output, --task and --target-model "
			       "(see skillc-deep run --help)");
		f->harness = f->harness ? f->harness : "opencode";
		f->runner = f->runner ? f->runner : "local";
		if (deep_need_model(o, &e) == 0)
			s = run_record(f, o);
	}
	if (!s)
		die_err(&e);
	resume_from(s, f, o);
	if (!f->skill || !f->traces || !o->task || !f->target || !f->harness || !f->runner)
		die(2, "'%s' lacks a setting of skillc-deep run: run it again with its options",
		    rec);
	if (deep_need_model(o, &e) < 0)
		die_err(&e);
	return s;
}

/* run, resume: deep-run.json, make deep in <output>/.run, the links. */
static int run_front(struct front_opts *f, struct deep_opts *o, bool resume)
{
	const char *output = resume ? o->run : f->output;
	char *rec = path_join(output ? output : ".", "deep-run.json");
	cJSON *s = front_record(f, o, resume, rec);
	struct err e = { 0 };
	struct trace_set ts;
	struct trace_opts to = { 0, NULL };
	struct pkgset src = { 0 };
	if (pkgset_load(f->skill, NULL, &src, &e) < 0 || traces_load(f->traces, &to, &ts, &e) < 0 ||
	    (!resume && (fs_mkdirs(output, &e) < 0 || json_write_if_changed(rec, s, &e) < 0)))
		die_err(&e);
	char *out = fs_real_path(output), *run = path_join(out, ".run");
	struct strlist mk = STRLIST_INIT;
	front_argv(f, o, out, (long)ts.n, &mk);
	if (front_link(out, "artifacts", ".run/artifacts", &e) < 0 ||
	    front_link(out, "traces", ".run/traces", &e) < 0)
		die_err(&e);
	struct proc_result res = { 0 };
	long long before = front_mark(run);
	if (front_run(&mk, "deep", &res, &e) < 0)
		die_err(&e);
	if (res.exit_code == 0 && before && front_mark(run) == before)
		printf("%s: up to date (make: the same skill, traces, settings and version made "
		       "every file)\n",
		       output);
	else if (res.exit_code == 0)
		printf("S_final: %s/artifacts/deep/S_final\n", output);
	strlist_free(&mk);
	free(run);
	free(out);
	traces_free(&ts);
	pkgset_free(&src);
	cJSON_Delete(s);
	free(rec);
	return front_status(&res);
}

static int run_step(const char *cmd, struct deep_opts *o, struct err *e)
{
	return !strcmp(cmd, "start")    ? deep_step_start(o, e)
	       : !strcmp(cmd, "score")  ? deep_step_score(o, e)
	       : !strcmp(cmd, "edit")   ? deep_step_edit(o, e)
	       : !strcmp(cmd, "trial")  ? deep_step_trial(o, e)
	       : !strcmp(cmd, "look")   ? deep_step_look(o, e)
	       : !strcmp(cmd, "decide") ? deep_step_decide(o, e)
	       : !strcmp(cmd, "final")  ? deep_step_final(o, e)
	                                : deep_step_final_trial(o, e);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, V_DEEP);
	if (argc < 2)
		die(2, "missing step: start, score, edit, trial, look, decide, final, final-trial, "
		       "run or resume (see --help)");
	const struct opt_cmd *c = opts_cmd_find(cmds, argv[1]);
	if (!c)
		die(2, "unknown step '%s' (see --help)", argv[1]);
	parse(argc, argv, c);
	struct err e = { 0 };
	int rc;
	if (!strcmp(c->name, "run") || !strcmp(c->name, "resume"))
		rc = run_front(&fr, &opt, !strcmp(c->name, "resume"));
	else if ((rc = run_step(c->name, &opt, &e)) < 0)
		die_err(&e);
	strlist_free(&opt.leak_tasks);
	strlist_free(&opt.pool_tasks);
	strlist_free(&opt.pool_trials[0]);
	strlist_free(&opt.pool_trials[1]);
	return rc;
}
