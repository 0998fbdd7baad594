/* skillc-eval-skill — the seed's evaluation wrapper as one command: a
 * skill from anywhere (or none) on one task, REPEAT trials, written as
 * --output/test-001 ... test-NNN. A thin front over the pipeline's make
 * (mk/skillc.mk, pipeline/front.h): the run lives in --output/.run (RESULTS=--output,
 * RUN_DIR=--output/.run, SKILL_SOURCE=--skill-source), so -j, the trial
 * store, the locks, the completeness rules and .incomplete/ are the ones
 * every make uses, and running it again resumes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/proc.h"
#include "base/versions.h"
#include "pipeline/front.h"
#include "pipeline/settings.h"
#include "skill/source.h"

static const char usage[] =
	"usage: skillc-eval-skill --task DIR (--skill-source DIR | --no-skill) --output DIR\n"
	"                         [--harness H] [--model M] [--runner R] [--require-skill]\n"
	"                         [--repeat N] [--max-parallel N]\n"
	"\n"
	"Evaluates the skills in --skill-source (a skill folder or a skills root, a set;\n"
	"default: the task's own) or, with --no-skill, no skill at all, on the task DIR:\n"
	"--repeat trials (default REPEAT, 3), --max-parallel at a time (make -j, default 1),\n"
	"through the pipeline's make. Trials appear as --output/test-001 ... test-NNN (links\n"
	"into the run folder --output/.run), complete ones only; attempts cut short are kept\n"
	"in --output/.incomplete. Run it again to resume: what is done is not run again.\n"
	"--harness, --model, --runner: HARNESS, MODEL, RUNNER (default: the settings' own).\n"
	"Exit 0 every trial complete, 1 some trial failed or is missing, 2 bad input.\n";

struct opts {
	const char *task, *source, *output, *harness, *model, *runner;
	bool no_skill, require_skill;
	long repeat, parallel;
};

static struct opts cli = { .parallel = 1 };
static const struct opt rows[] = {
	OPT_STRING("task", &cli.task, "DIR", "the task folder (required)"),
	OPT_STRING("skill-source", &cli.source, "DIR", "the skills to evaluate (SKILL_SOURCE)"),
	OPT_BOOL("no-skill", &cli.no_skill, "no skill at all (the baseline)"),
	OPT_STRING("output", &cli.output, "DIR", "where test-001 ... test-NNN appear (required)"),
	OPT_STRING("harness", &cli.harness, "H", "HARNESS"),
	OPT_STRING("model", &cli.model, "M", "MODEL"),
	OPT_STRING("runner", &cli.runner, "R", "RUNNER"),
	OPT_BOOL("require-skill", &cli.require_skill, "a trial that never used the skill fails"),
	OPT_WHOLE("repeat", &cli.repeat, 1, 1000, "N", "trials (REPEAT)"),
	OPT_WHOLE("max-parallel", &cli.parallel, 1, 1000, "N", "trials at a time (make -j, 1)"),
	OPT_END,
};

static void parse(int argc, char **argv, struct opts *o)
{
	opts_parse_or_die(rows, argc, argv, 1, NULL);
	*o = cli;
	if (!o->task || !o->output)
		die(2, "--task and --output are required (see --help)");
	if (o->no_skill && (o->source || o->require_skill))
		die(2, "--no-skill takes no --skill-source or --require-skill: a no-skill trial has no skill to use");
}

/* NAME=value for make, checked against the settings table first. */
static void push_setting(struct strlist *argv, const char *name, const char *value, const char *opt)
{
	struct err e = { 0 };
	if (front_set(argv, name, value, opt, &e) < 0)
		die_err(&e);
}

/* The make command of the run, without its goal. */
static void make_argv(const struct opts *o, const char *task_dir, const char *out, struct strlist *argv)
{
	struct err e = { 0 };
	if (front_begin(argv, o->parallel, &e) < 0)
		die_err(&e);
	char *tasks = path_dir(task_dir), *run = path_join(out, ".run");
	push_setting(argv, "task", path_base(task_dir), "--task");
	push_setting(argv, "TASKS_DIR", tasks, "--task");
	push_setting(argv, "RESULTS", out, "--output");
	push_setting(argv, "RUN_DIR", run, "--output");
	free(tasks);
	free(run);
	if (o->source)
		push_setting(argv, "SKILL_SOURCE", o->source, "--skill-source");
	const struct { const char *name, *value, *opt; } rest[] = {
		{ "HARNESS", o->harness, "--harness" }, { "MODEL", o->model, "--model" },
		{ "RUNNER", o->runner, "--runner" },
	};
	for (size_t i = 0; i < ARRAY_LEN(rest); i++)
		if (rest[i].value)
			push_setting(argv, rest[i].name, rest[i].value, rest[i].opt);
	if (o->repeat)
		strlist_push_owned(argv, xasprintf("REPEAT=%ld", o->repeat));
	if (!o->no_skill)
		strlist_push_owned(argv, xasprintf("REQUIRE_SKILL=%d", o->require_skill));
}

/* test-NNN for every complete trial of the stage (its trial.json published),
 * and .incomplete; returns how many trials are there. */
static long publish(const char *out, const char *task, const char *stage, long repeat, struct err *e)
{
	long have = 0;
	for (long i = 1; i <= 100000; i++) {
		char name[TRIAL_NAME_MAX];
		trial_name(i, name);
		char *rel = xasprintf(".run/traces/%s/%s/%s", task, stage, name);
		char *json = xasprintf("%s/%s/trial.json", out, rel);
		bool complete = i <= repeat && fs_exists(json);
		int rc = complete ? front_link(out, name, rel, e) : 0;
		if (!complete)
			front_unlink(out, name);
		free(rel);
		free(json);
		if (rc < 0)
			return -1;
		have += complete;
		if (i > repeat) {
			char *next = path_join(out, name);
			bool more = fs_exists(next);
			free(next);
			if (!more)
				break;
		}
	}
	char *inc = path_join(out, ".run/.incomplete");
	int rc = fs_is_dir(inc) ? front_link(out, ".incomplete", ".run/.incomplete", e) : 0;
	free(inc);
	return rc < 0 ? -1 : have;
}

/* The REPEAT the run worked with, as it remembers it (settings.json). */
static long run_repeat(const char *out)
{
	char *p = path_join(out, ".run/settings.json");
	cJSON *doc = json_read_opt(p);
	const char *v = json_str(json_get(doc, "settings"), "REPEAT");
	long n = strtol(v ? v : setting_find("REPEAT")->def, NULL, 10);
	cJSON_Delete(doc);
	free(p);
	return n;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_EVAL_SKILL);
	struct opts o;
	parse(argc, argv, &o);
	struct err e = { 0 };
	char *task_dir = fs_is_dir(o.task) ? fs_real_path(o.task) : NULL;
	if (!task_dir)
		die(2, "task folder '%s' not found", o.task);
	if (o.source) { /* a bad source: one line here, before any folder is made */
		struct skill_set sk;
		if (skill_set_open(o.source, true, 0, &sk, &e) < 0)
			die(2, "--skill-source: %s", e.msg);
		skill_set_free(&sk);
	}
	if (fs_mkdirs(o.output, &e) < 0)
		die_err(&e);
	char *out = fs_real_path(o.output);
	struct strlist mk = STRLIST_INIT;
	make_argv(&o, task_dir, out, &mk);
	struct proc_result res;
	if (front_run(&mk, o.no_skill ? "noskill-index" : "raw-index", &res, &e) < 0)
		die_err(&e);
	const char *stage = o.no_skill ? "noskill" : "raw";
	long repeat = o.repeat ? o.repeat : run_repeat(out);
	long have = publish(out, path_base(task_dir), stage, repeat, &e);
	if (have < 0)
		die_err(&e);
	char first[TRIAL_NAME_MAX], last[TRIAL_NAME_MAX];
	printf("skillc-eval-skill: %ld of %ld trials complete in %s (%s ... %s)\n", have, repeat,
	       out, trial_name(1, first), trial_name(repeat, last));
	strlist_free(&mk);
	free(out);
	free(task_dir);
	int rc = front_status(&res);
	return rc == 0 && have != repeat ? 1 : rc;
}
