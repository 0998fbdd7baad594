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
#include "base/log.h"
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
	"  --task DIR          the task folder (task.toml, instruction.md, tests/test.sh)\n"
	"  --skill DIR         the skill folder to inject (repeatable); --no-skill: none\n"
	"  --skills-root DIR   inject every folder of DIR that holds a SKILL.md\n"
	"  --harness H         agent harness; rules/harness/H.json must exist\n"
	"  --model M           provider/model-id\n"
	"  --runner R          benchflow (bench eval run), harbor (harbor run), local\n"
	"                      (skillc-local eval run, same flags as bench)\n"
	"  --out DIR           the trial folder to publish\n"
	"  --stage S           stage name (default: the name of DIR's parent)\n"
	"  --index I --of N    trial I of N, for the [I/N] progress lines (I defaults\n"
	"                      to the NNN of test-NNN; part of the trial's key)\n"
	"  --incomplete DIR    where failed trials go (default: the run's .incomplete/)\n"
	"  --cache DIR         trial store root (default $CACHE_DIR, else results/.cache)\n"
	"  --no-cache          neither reuse nor file trials\n"
	"  --agent-timeout S   the agent's wall-clock limit inside the runner\n"
	"  --handshake-timeout S\n"
	"                      --runner local: the agent's limit for the ACP handshake\n"
	"                      (default 60, at most the agent's time limit)\n"
	"  --deadline S        hard limit for the whole trial (default 2*agent-timeout+900,\n"
	"                      or 14400): the runner's process group is killed\n"
	"  --sandbox NAME      runner sandbox (default: local for --runner local, docker or podman\n"
	"                      with SANDBOX=docker|podman there, else docker); part of the trial's key\n"
	"  --image TAG         --runner local --sandbox docker|podman: the trial image (make images\n"
	"                      bakes it); part of the trial's key\n"
	"  --require-skill     a trial where our skill was never invoked fails\n"
	"  --attempts N        failed attempts allowed per trial (default 3); after the\n"
	"                      last, an infra error is kept as an infra_error trial\n"
	"  --env-file FILE     KEY=VALUE lines added to the runner's environment\n"
	"  --rules DIR         rules folder (default: $SKILLC_RULES, else next to the tools)\n"
	"  --split NAME        a namespace in the trial's key: trials of another split (or\n"
	"                      none) are never reused for it (the final evaluation's fresh trials)\n"
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

static void parse_args(int argc, char **argv, struct eval_opts *o)
{
	struct err e = { 0, "" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--task"))
			o->task = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--skill"))
			strlist_push(&o->skills, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--skills-root")) {
			if (eval_add_skills_root(&o->skills, std_option_value(argc, argv, &i), &e) < 0)
				die_err(&e);
		} else if (!strcmp(a, "--no-skill"))
			o->no_skill = true;
		else if (!strcmp(a, "--harness"))
			o->harness = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--model"))
			o->model = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--runner"))
			o->runner = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--out"))
			o->out = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--stage"))
			o->stage = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--index"))
			o->index = std_option_long(a, std_option_value(argc, argv, &i), 1, 100000);
		else if (!strcmp(a, "--of"))
			o->of = std_option_long(a, std_option_value(argc, argv, &i), 1, 100000);
		else if (!strcmp(a, "--incomplete"))
			o->incomplete = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--cache"))
			o->cache = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--no-cache"))
			o->no_cache = true;
		else if (!strcmp(a, "--agent-timeout"))
			o->agent_timeout = (double)std_option_long(a, std_option_value(argc, argv, &i), 1, 604800);
		else if (!strcmp(a, "--handshake-timeout")) {
			const char *v = std_option_value(argc, argv, &i);
			o->handshake_timeout = (double)std_option_long(a, v, 1, 3600);
		} else if (!strcmp(a, "--deadline"))
			o->deadline = (double)std_option_long(a, std_option_value(argc, argv, &i), 1, 604800);
		else if (!strcmp(a, "--sandbox"))
			o->sandbox = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--image"))
			o->image = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--require-skill"))
			o->require_skill = true;
		else if (!strcmp(a, "--attempts"))
			o->attempts = std_option_long(a, std_option_value(argc, argv, &i), 1, 100);
		else if (!strcmp(a, "--env-file"))
			o->env_file = std_option_value(argc, argv, &i);
		else if (!strcmp(a, "--split")) {
			o->split = std_option_value(argc, argv, &i);
			if (!name_is_safe(o->split))
				die(2, "bad --split '%s': use letters, digits, '.', '_' and '-'", o->split);
		} else if (!strcmp(a, "--rules"))
			o->rules = std_option_value(argc, argv, &i);
		else
			die(2, "unknown argument '%s' (see --help)", a);
	}
	check_args(o);
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
	std_options(argc, argv, usage, VERSION);
	struct eval_opts o = { 0 };
	o.attempts = 3;
	parse_args(argc, argv, &o);
	struct strlist env_extra = STRLIST_INIT;
	struct err e = { 0, "" };
	if (o.env_file && runner_env_load(o.env_file, &env_extra, &e) < 0)
		die_err(&e);
	struct eval_job j;
	if (eval_job_setup(&j, &o, &e) < 0)
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
			eval_progress(&j, "start: %s %s %s %s", o.runner, o.harness, o.model,
				      o.no_skill ? "no-skill" : j.skill_names.v[0]);
		if (left || !evaltrial_reuse(&j))
			status = check_local_harness(&o, &e) < 0 ? -1 : run_once(&j, &env_extra, left, &e);
		free(left);
		if (status < 0)
			die_err(&e);
	}
	eval_job_free(&j);
	strlist_free(&o.skills);
	runner_env_free(&env_extra);
	return status;
}
