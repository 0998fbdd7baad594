/* skillc-eval — one evaluation trial of (task, skill or no skill, harness,
 * model, runner) into one trial folder, e.g. traces/<task>/<stage>/test-003/.
 *
 * The trial is built beside its target (a temp folder), checked, and
 * published whole; a trial that is cut short, incomplete or fails the
 * checks moves to <incomplete>/<stage>/test-NNN.<time>/ with reason.txt and
 * the tool exits 1 with the reason in one line. A trial whose content key
 * is in the trial store is linked from there without running anything.
 * The work is in eval/: job.h (the trial's identity), runner.h (the runners),
 * publish.h (build, reuse, publish) and attempts.h (failures, retries). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval/attempts.h"
#include "eval/job.h"
#include "eval/publish.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/redact.h"
#include "eval/runner.h"
#include "eval/store.h"
#include "local/launch.h"
#include "base/versions.h"

#define VERSION V_EVAL

static const char usage[] =
	"usage: skillc-eval --task DIR (--skill DIR | --no-skill) --harness H --model M\n"
	"                   --runner benchflow|harbor|local --out TRIAL_DIR [options]\n"
	"\n"
	"Runs one trial and writes TRIAL_DIR (e.g. traces/<task>/<stage>/test-003):\n"
	"trial.json (normalized facts), raw/ (the runner's own files), trajectory/\n"
	"(BenchFlow-shaped ACP and LLM trajectories), runner.log.\n"
	"\n"
	"--skill folders come first, then those of each --skills-root in turn.\n"
	"--deadline defaults to 2*agent-timeout+900, or 14400; --sandbox to local\n"
	"for --runner local (docker or podman with SANDBOX=docker|podman there), else\n"
	"docker. --sandbox, --image, --index and --split are part of the trial's key.\n"
	"\n"
	"Exit: 0 trial published (or reused, or already up to date), 1 the trial\n"
	"failed (moved to .incomplete/, reason on stderr), 2 bad usage or input\n"
	"(unknown harness, runner not installed, task without tests/test.sh).\n";

static bool model_is_safe(const char *m)
{
	if (!m || !*m || strlen(m) > 200 || !isalnum((unsigned char)m[0]))
		return false;
	for (const char *p = m; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-/:@", *p))
			return false;
	return !strstr(m, "..");
}

/* What the options must be together, and the defaults that follow from them. */
static void check_args(struct eval_opts *o)
{
	if (!o->task || !o->harness || !o->model || !o->runner || !o->out)
		die(2, "--task, --harness, --model, --runner and --out are required (see --help)");
	if (o->no_skill == (o->skills.n > 0))
		die(2, "give --skill DIR or --skills-root DIR, or --no-skill, not both or neither");
	if (strcmp(o->runner, "benchflow") && strcmp(o->runner, "harbor") && strcmp(o->runner, "local"))
		die(2, "unknown runner '%s': pick RUNNER=benchflow, harbor or local", o->runner);
	if (!*o->model)
		die(2, "no model given: set MODEL=provider/model-id (the target model)");
	if (!model_is_safe(o->model))
		die(2, "bad model '%s': use provider/model-id (letters, digits, '.', '_', '-', '/', ':', '@')", o->model);
	const char *env_sandbox = getenv("SANDBOX");
	bool engine = env_sandbox && (!strcmp(env_sandbox, "docker") || !strcmp(env_sandbox, "podman"));
	if (!o->sandbox) /* the local runner is its own sandbox unless SANDBOX names an engine; the others default to docker */
		o->sandbox = strcmp(o->runner, "local") ? "docker" : engine ? env_sandbox : "local";
	if (o->image && (strcmp(o->runner, "local") || (strcmp(o->sandbox, "docker") && strcmp(o->sandbox, "podman"))))
		die(2, "--image is for --runner local with --sandbox docker or podman");
	if (!name_is_safe(o->sandbox))
		die(2, "bad sandbox name '%s'", o->sandbox);
	if (!o->cache)
		o->cache = trialstore_default_dir();
}

static struct eval_opts opt = { .attempts = 3 };
static struct strlist roots = STRLIST_INIT, overs = STRLIST_INIT;
static long agent_timeout, handshake_timeout, deadline;
static const struct opt rows[] = {
	OPT_STRING("task", &opt.task, "DIR", "the task folder (task.toml, instruction.md, tests/)"),
	OPT_EACH("skill", &opt.skills, "DIR", "a skill folder to inject (repeatable)"),
	OPT_EACH("skills-root", &roots, "DIR", "inject every folder of DIR with a SKILL.md"),
	OPT_EACH("skill-over", &overs, "DIR", "a skill folder replacing its namesake (or added)"),
	OPT_BOOL("no-skill", &opt.no_skill, "inject no skill"),
	OPT_STRING("harness", &opt.harness, "H", "agent harness; rules/harness/H.json must exist"),
	OPT_STRING("model", &opt.model, "M", "provider/model-id"),
	OPT_STRING("runner", &opt.runner, "R", "benchflow, harbor or local"),
	OPT_STRING("out", &opt.out, "DIR", "the trial folder to publish"),
	OPT_STRING("stage", &opt.stage, "S", "stage name (default: the name of DIR's parent)"),
	OPT_WHOLE("index", &opt.index, 1, 100000, "I", "trial I (default: the NNN of test-NNN)"),
	OPT_WHOLE("of", &opt.of, 1, 100000, "N", "of N, for the [I/N] progress lines"),
	OPT_STRING("incomplete", &opt.incomplete, "DIR", "where failed trials go (.incomplete/)"),
	OPT_STRING("cache", &opt.cache, "DIR", "trial store ($CACHE_DIR, else results/.cache)"),
	OPT_BOOL("no-cache", &opt.no_cache, "neither reuse nor file trials"),
	OPT_WHOLE("agent-timeout", &agent_timeout, 1, 604800, "S", "the agent's wall-clock limit"),
	OPT_WHOLE("handshake-timeout", &handshake_timeout, 1, 3600, "S",
	          "--runner local: the ACP handshake's limit (60)"),
	OPT_WHOLE("deadline", &deadline, 1, 604800, "S", "hard limit for the whole trial"),
	OPT_STRING("sandbox", &opt.sandbox, "NAME", "runner sandbox (local, docker, podman)"),
	OPT_STRING("image", &opt.image, "TAG", "--runner local in docker|podman: the trial image"),
	OPT_BOOL("require-skill", &opt.require_skill, "a trial that never invoked our skill fails"),
	OPT_WHOLE("attempts", &opt.attempts, 1, 100, "N", "failed attempts allowed per trial (3)"),
	OPT_STRING("env-file", &opt.env_file, "FILE", "KEY=VALUE lines for the runner"),
	OPT_STRING("rules", &opt.rules, "DIR", "rules ($SKILLC_RULES, else beside the tools)"),
	OPT_STRING("split", &opt.split, "NAME", "trials of another split are never reused"),
	OPT_END,
};

/* --skill-over DIR: DIR takes the place of the folder of the same name
 * (a skill run's skill laid over another task's set), or is added. */
static void lay_over(struct strlist *skills, const char *dir)
{
	char *md = path_join(dir, "SKILL.md");
	bool ok = fs_exists(md);
	free(md);
	if (!ok)
		die(2, "--skill-over %s: no SKILL.md there; give a skill folder", dir);
	size_t k = 0;
	for (size_t i = 0; i < skills->n; i++)
		if (strcmp(path_base(skills->v[i]), path_base(dir)))
			skills->v[k++] = skills->v[i];
		else
			free(skills->v[i]);
	skills->n = k;
	strlist_push(skills, dir);
}

static void parse_args(int argc, char **argv)
{
	struct err e = { 0, "" };
	opts_parse_or_die(rows, argc, argv, 1, NULL);
	for (size_t i = 0; i < roots.n; i++)
		if (eval_add_skills_root(&opt.skills, roots.v[i], &e) < 0)
			die_err(&e);
	strlist_free(&roots);
	for (size_t i = 0; i < overs.n; i++)
		lay_over(&opt.skills, overs.v[i]);
	strlist_free(&overs);
	if (opt.split && !name_is_safe(opt.split))
		die(2, "bad --split '%s': use letters, digits, '.', '_' and '-'", opt.split);
	opt.agent_timeout = (double)agent_timeout;
	opt.handshake_timeout = (double)handshake_timeout;
	opt.deadline = (double)deadline;
	check_args(&opt);
}

/* The trial, paid for once: under its key's in-flight lock, after looking
 * in the store again (another make, or a stage with the same skill, may
 * have run it meanwhile); a holder that failed leaves nothing there, and
 * then it runs here; one killed after its runner finished but before it
 * filed the trial left that output, which whoever takes the lock next
 * takes over instead of running the trial again. */
static int run_or_resume(const struct eval_job *j, const struct strlist *env_extra, const char *finished,
			 struct err *e)
{
	return finished ? evaltrial_resume(j, env_extra, finished, e) : evaltrial_run(j, env_extra, e);
}

/* Waits for the holder of j's key (holder: who, freed here); true when the
 * trial is settled then (reused from the store). *fd gets the lock. */
static bool wait_for_holder(const struct eval_job *j, char *holder, const char *finished, int *fd, struct err *e)
{
	eval_progress(j, "waiting: the same trial (key %.12s) is running, %s; it is reused when it ends", j->key, holder);
	free(holder);
	*fd = trialstore_lock(j->o->cache, j->key, true, &holder, e);
	if (*fd < 0)
		return false;
	if (evaltrial_reuse(j)) {
		trialstore_unlock(*fd);
		if (finished) /* paid for, but the store had it first */
			free(attempts_keep(j, finished, "not needed: the same trial was filed meanwhile"));
		return true;
	}
	return false;
}

/* What the last holder of the lock fd left when it was killed after its
 * runner ended and before it filed the trial (whether this one waited for
 * it or came later): a copy to read, or NULL (caller frees). */
static char *left_by_last_holder(const struct eval_job *j, int fd)
{
	char *last = trialstore_lock_text(fd);
	char *adopted = evaltrial_adoptable(j, last);
	free(last);
	return adopted;
}

static int run_once(const struct eval_job *j, const struct strlist *env_extra, const char *finished, struct err *e)
{
	if (j->o->no_cache)
		return run_or_resume(j, env_extra, finished, e);
	char *holder = NULL, *adopted = NULL;
	int fd = trialstore_lock(j->o->cache, j->key, false, &holder, e);
	if (fd < 0 && holder && wait_for_holder(j, holder, finished, &fd, e))
		return 0;
	if (fd < 0)
		return -1;
	if (!finished)
		adopted = left_by_last_holder(j, fd);
	trialstore_lock_claim(fd, j->out);
	int status = run_or_resume(j, env_extra, adopted ? adopted : finished, e);
	trialstore_unlock(fd);
	free(adopted);
	return status;
}

/* The local runner starts the harness from its file's acp_command: a file
 * without one fails here, in one line, before any runner starts. */
static int check_local_harness(const struct eval_opts *o, struct err *e)
{
	if (strcmp(o->runner, "local"))
		return 0;
	struct launch h;
	int rc = launch_load(o->harness, &h, e);
	launch_free(&h);
	return rc;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, VERSION);
	parse_args(argc, argv);
	struct strlist env_extra = STRLIST_INIT;
	struct err e = { 0, "" };
	if (opt.env_file && runner_env_load(opt.env_file, &env_extra, &e) < 0)
		die_err(&e);
	struct eval_job j;
	if (eval_job_setup(&j, &opt, &e) < 0)
		die_err(&e);

	int status = 0;
	if (evaltrial_up_to_date(&j)) {
		eval_progress(&j, "up to date");
	} else {
		/* a leftover whose runner finished (or wrote a complete result) for
		 * this key was paid for: it is read instead of run (publish.h) */
		char *left = attempts_sweep_leftovers(&j);
		if (left && !evaltrial_resumable(&j, left)) {
			free(attempts_keep(&j, left, "interrupted: left behind by a skillc-eval that was killed"));
			free(left);
			left = NULL;
		}
		/* a trial already there is another trial's (other settings, another
		 * skill; the store keeps it by its key): gone now, so a summary
		 * never counts it for this one, even when this one fails */
		char *was = path_join(j.out, "trial.json"); /* a trial folder, nothing else */
		if (fs_exists(was) && fs_remove_tree(j.out, &e) < 0)
			die_err(&e);
		free(was);
		if (!left)
			eval_progress(&j, "start: %s %s %s %s", opt.runner, opt.harness, opt.model,
				      opt.no_skill ? "no-skill" : j.skill_names.v[0]);
		if (left || !evaltrial_reuse(&j))
			status = check_local_harness(&opt, &e) < 0 ? -1
			         : run_once(&j, &env_extra, left, &e);
		free(left);
		if (status < 0)
			die_err(&e);
	}
	eval_job_free(&j);
	strlist_free(&opt.skills);
	redact_wipe(&env_extra);
	return status;
}
