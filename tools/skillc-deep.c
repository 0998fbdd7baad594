/* skillc-deep — the deep stage: rounds of section scoring, one local edit,
 * candidate trials and a decision, keeping the best validated skill; then
 * S_final and its final evaluation. make runs one step per target
 * (deep-start, deep-K-score, deep-K-edit, deep-K-eval.NNN, deep-K-look.NNN,
 * deep-K-decide, deep-final, final-eval.NNN); `skillc-deep run` drives the
 * same steps outside make. The steps are optimize/deep.h; this is their
 * command line. See docs/deep.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "optimize/deep.h"

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
	"(unless --fresh), else COMMAND.\n"
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
	"run: every step outside make, the seed's `deep run`: the skill and its traces\n"
	"(trial folders or BenchFlow runs) into --output, --rounds rounds (default 3),\n"
	"candidate trials by skillc-eval (--target-model, --harness opencode, --runner\n"
	"local), then S_final; the settings go to <output>/deep-run.json. resume: the\n"
	"same again from that file; what was done is answered by the caches.\n"
	"\n"
	"Exit 0 done, 1 the work failed, 2 bad usage or input. See docs/deep.md.\n";

struct opts {
	struct deep_opts d;
	bool rounds_set;
	const char *test;
};

/* Every step's options, as rows (base/opts.h). */
static struct opts opt;
static const struct opt rows[] = {
	OPT_STRING("run", &opt.d.run, "DIR", "the run folder; file paths are relative to it"),
	OPT_STRING("base-source", &opt.d.src[0], "S", "(start) the stage the base skill came from"),
	OPT_STRING("base-skill", &opt.d.skill[0], "DIR", "(start) the base skill's folder"),
	OPT_STRING("base-trials", &opt.d.trials[0], "DIR", "(start) the base skill's trials"),
	OPT_WHOLE("base-count", &opt.d.count[0], 0, 100000, "N", "(start) how many of them count"),
	OPT_STRING("cand-source", &opt.d.src[1], "S", "(start) the stage the candidate came from"),
	OPT_STRING("cand-skill", &opt.d.skill[1], "DIR", "(start) the candidate skill's folder"),
	OPT_STRING("cand-trials", &opt.d.trials[1], "DIR", "(start) the candidate's trials"),
	OPT_WHOLE("cand-count", &opt.d.count[1], 0, 100000, "N", "(start) how many of them count"),
	OPT_SMALL("round", &opt.d.round, 1, 100, "K", "the round a step is about"),
	{ "rounds", 0, OPT_INT, &opt.d.rounds, "R", "rounds (final, final-trial, run)",
	  0, 100, NULL, &opt.rounds_set },
	OPT_STRING("model", &opt.d.model, "M", "(score, edit, run) the compiler's model"),
	OPT_STRING("task", &opt.d.task, "DIR", "(score, edit, run) the task folder"),
	OPT_EACH("leak-task", &opt.d.leak_tasks, "DIR", "(edit) another task the guard holds out"),
	OPT_EACH("pool-task", &opt.d.pool_tasks, "NAME", "(look, decide) another pooled task"),
	OPT_EACH("pool-base-trials", &opt.d.pool_trials[0], "DIR",
		 "(start) another pooled task's base trials"),
	OPT_EACH("pool-cand-trials", &opt.d.pool_trials[1], "DIR",
		 "(start) another pooled task's candidate trials"),
	OPT_STRING("of-task", &opt.d.of_task, "NAME", "(trial) the pooled task it is of"),
	OPT_STRING("profile", &opt.d.profile, "FILE", "(edit) the target model's profile"),
	OPT_STRING("only", &opt.d.only, "SKILLS", "(score, edit) the skills of the set to change"),
	OPT_SMALL("index", &opt.d.index, 1, 100000, "I", "(trial, final-trial) its index"),
	OPT_STRING("trial", &opt.d.trial, "DIR", "(trial, final-trial) its folder"),
	OPT_BOOL("fresh", &opt.d.fresh, "(final-trial) copy no selection trial"),
	OPT_SMALL("look", &opt.d.look, 1, 1000, "J", "(look) the look of the sequential rule"),
	OPT_WHOLE("first", &opt.d.rule.first, 1, 200, "N", "RULE: trials at the first look"),
	OPT_WHOLE("max", &opt.d.rule.max, 1, 200, "N", "RULE: the most trials of a round"),
	OPT_NUMBER("alpha", &opt.d.rule.alpha, 1e-9, 1, "A", "RULE: the false-accept rate"),
	OPT_NUMBER("tolerance", &opt.d.rule.tolerance, 1, 100, "T", "RULE: the most time ratio"),
	OPT_ONE_OF("test", &opt.test, "barnard|fisher", "RULE: the exact test"),
	OPT_STRING("skill", &opt.d.skill_dir, "DIR", "(run) the skill"),
	OPT_STRING("traces", &opt.d.traces, "DIR", "(run) its traces"),
	OPT_STRING("output", &opt.d.run, "DIR", "(run) where everything goes"),
	OPT_STRING("target-model", &opt.d.target, "M", "(run) the model of candidate trials"),
	OPT_STRING("harness", &opt.d.harness, "H", "(run) their harness (opencode)"),
	OPT_STRING("runner", &opt.d.runner, "R", "(run) their runner (local)"),
	OPT_END,
};

static void parse(int argc, char **argv, struct opts *p)
{
	memset(p, 0, sizeof *p);
	struct deep_opts *o = &p->d;
	o->rule = (struct deep_rule){ 3, 6, 3, 0.10, 1.10, DECIDE_BARNARD, false };
	o->model = getenv("EXTERNAL_MODEL");
	struct opts_rest rest;
	opts_parse_or_die(rows, argc, argv, 2, &rest);
	if (rest.args.n)
		die(2, "unknown option '%s' (see --help)", rest.args.v[0]);
	opts_rest_free(&rest);
	if (rest.dashdash)
		o->command = argv + rest.dashdash;
	if (p->test)
		o->rule.test = decide_test_from(p->test);
	if (o->rule.max < o->rule.first)
		o->rule.max = o->rule.first;
	o->rule.step = o->rule.first;
	o->rule.pooled = o->pool_tasks.n || o->pool_trials[0].n;
	if (o->pool_trials[0].n != o->pool_trials[1].n && o->pool_trials[1].n)
		die(2, "--pool-base-trials and --pool-cand-trials come in pairs (one per task)");
	if (!o->run)
		die(2, "--run DIR (run, resume: --output DIR) is required (see --help)");
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_DEEP);
	if (argc < 2)
		die(2, "missing step: start, score, edit, trial, look, decide, final or final-trial (see --help)");
	parse(argc, argv, &opt);
	struct opts *p = &opt;
	struct deep_opts *o = &p->d;
	const char *cmd = argv[1];
	struct err e = { 0 };
	int rc;
	if (!strcmp(cmd, "run") || !strcmp(cmd, "resume")) {
		if (!p->rounds_set)
			o->rounds = 3;
		rc = deep_run(o, !strcmp(cmd, "resume"), &e);
	} else {
		rc = !strcmp(cmd, "start")         ? deep_step_start(o, &e)
		     : !strcmp(cmd, "score")       ? deep_step_score(o, &e)
		     : !strcmp(cmd, "edit")        ? deep_step_edit(o, &e)
		     : !strcmp(cmd, "trial")       ? deep_step_trial(o, &e)
		     : !strcmp(cmd, "look")        ? deep_step_look(o, &e)
		     : !strcmp(cmd, "decide")      ? deep_step_decide(o, &e)
		     : !strcmp(cmd, "final")       ? deep_step_final(o, &e)
		     : !strcmp(cmd, "final-trial") ? deep_step_final_trial(o, &e)
						   : (die(2, "unknown step '%s' (see --help)", cmd), 2);
	}
	if (rc < 0)
		die_err(&e);
	strlist_free(&o->leak_tasks);
	strlist_free(&o->pool_tasks);
	strlist_free(&o->pool_trials[0]);
	strlist_free(&o->pool_trials[1]);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
	return rc;
}
