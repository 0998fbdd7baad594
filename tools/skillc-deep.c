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
#include "base/versions.h"
#include "optimize/deep.h"

static const char usage[] =
	"usage: skillc-deep start  --run DIR --base-source S --base-skill DIR --base-trials DIR --base-count N\n"
	"                          [--cand-source S --cand-skill DIR --cand-trials DIR --cand-count N] RULE\n"
	"       skillc-deep score  --run DIR --round K --model M [--task DIR] [--only SKILLS]\n"
	"       skillc-deep edit   --run DIR --round K --model M [--task DIR] [--profile FILE]\n"
	"                          [--only SKILLS] [--leak-task DIR]...\n"
	"       skillc-deep trial  --run DIR --round K --index I --trial DIR RULE -- COMMAND...\n"
	"       skillc-deep look   --run DIR --round K --look J RULE\n"
	"       skillc-deep decide --run DIR --round K RULE\n"
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
};

static double num_arg(const char *flag, const char *v, double min, double max)
{
	char *end;
	double x = strtod(v, &end);
	if (!*v || *end || !(x >= min && x <= max))
		die(2, "%s wants a number from %g to %g, not '%s'", flag, min, max, v);
	return x;
}

static void parse(int argc, char **argv, struct opts *p)
{
	memset(p, 0, sizeof *p);
	struct deep_opts *o = &p->d;
	o->rule = (struct deep_rule){ 3, 6, 3, 0.10, 1.10, DECIDE_BARNARD };
	o->model = getenv("EXTERNAL_MODEL");
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			o->command = argv + i + 1;
			break;
		}
		const char **s = !strcmp(a, "--run")           ? &o->run
			       : !strcmp(a, "--model")         ? &o->model
			       : !strcmp(a, "--task")          ? &o->task
			       : !strcmp(a, "--profile")       ? &o->profile
			       : !strcmp(a, "--only")          ? &o->only
			       : !strcmp(a, "--trial")         ? &o->trial
			       : !strcmp(a, "--output")        ? &o->run
			       : !strcmp(a, "--skill")         ? &o->skill_dir
			       : !strcmp(a, "--traces")        ? &o->traces
			       : !strcmp(a, "--target-model")  ? &o->target
			       : !strcmp(a, "--harness")       ? &o->harness
			       : !strcmp(a, "--runner")        ? &o->runner
			       : !strcmp(a, "--base-source")   ? &o->src[0]
			       : !strcmp(a, "--cand-source")   ? &o->src[1]
			       : !strcmp(a, "--base-skill")    ? &o->skill[0]
			       : !strcmp(a, "--cand-skill")    ? &o->skill[1]
			       : !strcmp(a, "--base-trials")   ? &o->trials[0]
			       : !strcmp(a, "--cand-trials")   ? &o->trials[1]
							       : NULL;
		if (s) {
			*s = std_option_value(argc, argv, &i);
			continue;
		}
		if (!strcmp(a, "--fresh")) {
			o->fresh = true;
			continue;
		}
		if (!strcmp(a, "--leak-task")) {
			strlist_push(&o->leak_tasks, std_option_value(argc, argv, &i));
			continue;
		}
		const char *v = std_option_value(argc, argv, &i);
		if (!strcmp(a, "--base-count") || !strcmp(a, "--cand-count"))
			o->count[a[2] == 'c'] = std_option_long(a, v, 0, 100000);
		else if (!strcmp(a, "--round"))
			o->round = (int)std_option_long(a, v, 1, 100);
		else if (!strcmp(a, "--rounds")) {
			o->rounds = (int)std_option_long(a, v, 0, 100);
			p->rounds_set = true;
		}
		else if (!strcmp(a, "--index"))
			o->index = (int)std_option_long(a, v, 1, 100000);
		else if (!strcmp(a, "--look"))
			o->look = (int)std_option_long(a, v, 1, 1000);
		else if (!strcmp(a, "--first"))
			o->rule.first = std_option_long(a, v, 1, 200);
		else if (!strcmp(a, "--max"))
			o->rule.max = std_option_long(a, v, 1, 200);
		else if (!strcmp(a, "--alpha"))
			o->rule.alpha = num_arg(a, v, 1e-9, 1);
		else if (!strcmp(a, "--tolerance"))
			o->rule.tolerance = num_arg(a, v, 1, 100);
		else if (!strcmp(a, "--test")) {
			if (strcmp(v, "barnard") && strcmp(v, "fisher"))
				die(2, "--test wants barnard or fisher, not '%s'", v);
			o->rule.test = decide_test_from(v);
		}
		else
			die(2, "unknown option '%s' (see --help)", a);
	}
	if (o->rule.max < o->rule.first)
		o->rule.max = o->rule.first;
	o->rule.step = o->rule.first;
	if (!o->run)
		die(2, "--run DIR (run, resume: --output DIR) is required (see --help)");
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_DEEP);
	if (argc < 2)
		die(2, "missing step: start, score, edit, trial, look, decide, final or final-trial (see --help)");
	struct opts p;
	parse(argc, argv, &p);
	struct deep_opts *o = &p.d;
	const char *cmd = argv[1];
	struct err e = { 0 };
	int rc;
	if (!strcmp(cmd, "run") || !strcmp(cmd, "resume")) {
		if (!p.rounds_set)
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
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
	return rc;
}
