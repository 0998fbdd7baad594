/* skillc-local — the local runner: one trial of a Harbor task on this
 * machine, in a bubblewrap sandbox, with the agent harness driven over ACP
 * and the task's own verifier, written as skillc's own trial record
 * (record.h), which skillc-eval completes; see docs/local.md. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "local/agent.h"
#include "local/dockersetup.h"
#include "local/record.h"
#include "local/setup.h"
#include "local/rollout.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/pyjson.h"
#include "local/task.h"
#include "base/util.h"
#include "local/verifier.h"

#define VERSION "1"

static const char usage[] =
	"usage: skillc-local eval run --tasks-dir TASK --agent HARNESS --model PROVIDER/MODEL\n"
	"                             --out DIR\n"
	"                             [--sandbox local|docker|podman] [--image IMAGE]\n"
	"                             [--skill-mode no-skill|with-skill] [--skills-dir ROOT]\n"
	"                             [--config-override JSON|@FILE|key.path=VALUE]... [--agent-env KEY=VALUE]...\n"
	"                             [--agent-idle-timeout SEC|none]\n"
	"                             [--agent-handshake-timeout SEC]\n"
	"                             [--quiet]\n"
	"\n"
	"Runs one trial of TASK in a bubblewrap sandbox (or, with SANDBOX=docker|podman or --sandbox docker|podman,\n"
	"in a container of the task's own image, --image or built now), drives HARNESS (rules/harness/HARNESS.json,\n"
	"or HARNESS_PATH) over ACP, runs the task's tests/test.sh, and writes the trial's record\n"
	"in DIR: trial.json (last), trajectory/acp_trajectory.jsonl, agent/, verifier/,\n"
	"artifacts/.\n"
	"A DIR whose trial.json was scored is not run again; another non-empty DIR is refused.\n"
	"Exit: 0 the trial was scored (pass or fail), 1 it errored (no reward), 2 bad usage or input.\n"
	"Environment: ROUTES (provider_routes.json), ENV_FILE (.env), SANDBOX=bwrap|docker|podman|none,\n"
	"IMAGE (docker, podman: a local image in place of the task's L1), DOCKER_HOST, CONTAINERS_STORAGE_CONF,\n"
	"CONTAINERS_CONF (podman), HARNESS_PATH, SKILLC_RULES,\n"
	"KEEP_SANDBOX=1 (keep the sandbox folder for forensics). See docs/local.md, docs/containers.md.\n";

static const char none_warning[] =
	"SANDBOX=none: running the agent and the verifier UNSANDBOXED on this machine: they can read your "
	"files and environment, write anywhere you can, and the task's files go to their real paths "
	"(/root, /logs, /tests, /skills); use only in a disposable container or VM";

static int choose_sandbox(struct local_trial *t, struct err *e)
{
	const char *mode = getenv("SANDBOX");
	const struct engine *en = engine_named(t->o->sandbox);
	t->box.engine = en ? en : engine_named(mode);
	if (t->box.engine) {
		t->box.mode = SANDBOX_CONTAINER; /* whether the engine answers is the trial's first step */
		return 0;
	}
	if (t->o->image)
		return err_set(e, ERR_INPUT, "--image is for a container sandbox (--sandbox docker|podman or SANDBOX=docker|podman)");
	if (mode && !strcmp(mode, "none")) {
		if (geteuid() != 0)
			return err_set(e, ERR_WORK, "SANDBOX=none needs root: the task's paths (/root, /logs, /tests) "
				       "are created on this host; use bubblewrap instead (apt-get install -y bubblewrap)");
		t->box.mode = SANDBOX_NONE;
		warnf("%s", none_warning);
		return 0;
	}
	if (mode && *mode && strcmp(mode, "bwrap"))
		return err_set(e, ERR_INPUT, "SANDBOX='%s': use bwrap (the default), docker, podman or none", mode);
	t->box.mode = SANDBOX_BWRAP;
	t->box.bwrap = fs_find_in_path("bwrap");
	if (!t->box.bwrap)
		return err_set(e, ERR_WORK, "bubblewrap (bwrap) is not installed: install it with "
			       "apt-get install -y bubblewrap, or set SANDBOX=none to run agents unsandboxed "
			       "(they could then read your files and keys and write anywhere you can)");
	return 0;
}

/* The trial's inputs: task, harness, model route, sandbox. Returns 0, or
 * the exit status (e says why). */
static int open_trial(struct local_trial *t, struct err *e)
{
	const struct local_opts *o = t->o;
	t->clock.start = now_mono();
	record_time(now_wall(), t->clock.started_at);
	if (task_load(o->tasks_dir, o->override, &t->task, e) < 0 || launch_load(o->agent, &t->h, e) < 0 ||
	    model_route_resolve(o->model, &t->route, e) < 0)
		return 2;
	if (choose_sandbox(t, e) < 0)
		return e->code;
	if (o->skills_dir && strcmp(o->skill_mode, "with-skill")) {
		err_set(e, ERR_INPUT, "--skills-dir is only valid with --skill-mode with-skill");
		return 2;
	}
	return 0;
}

/* One unsandboxed trial at a time: they share the host's paths. */
static int lock_unsandboxed(int *lockfd, struct err *e)
{
	*lockfd = open("/tmp/skillc-local-unsandboxed.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*lockfd < 0 || flock(*lockfd, LOCK_EX) < 0)
		return err_set(e, ERR_WORK, "cannot lock /tmp/skillc-local-unsandboxed.lock:");
	return 0;
}

/* The trial's folder; *done when it already holds a final record. */
static int claim_rollout(struct local_trial *t, bool *done, struct err *e)
{
	if (record_open(t, done, e) < 0)
		return -1;
	if (*done && !t->o->quiet)
		fprintf(stderr, "%s: %s already has a result in %s (not run again)\n", log_prog(),
			t->task.name, t->paths.dir);
	return 0;
}

/* Builds what the agent runs in. A problem of the host or the harness is
 * the trial's error. Returns 0, or the exit status when the run must stop:
 * 2 when the task or --skills-dir is at fault (the rollout is removed). */
static int prepare(struct local_trial *t, struct err *e)
{
	struct trial_box *b = &t->box;
	b->share_net = t->task.agent_network || b->mode == SANDBOX_NONE;
	b->skill_source = xstrdup(strcmp(t->o->skill_mode, "with-skill") ? "none"
				  : t->o->skills_dir ? "custom_runtime" : "task_bundled");
	double t0 = now_mono();
	if (b->mode == SANDBOX_CONTAINER) {
		docker_setup_image(t, t->o->image);
	} else {
		task_unreproduced(&t->task, &b->unreproduced);
		local_setup_preflight(t);
	}
	if (!t->agent.error && local_setup_sandbox(t, e) < 0) {
		if (e->code == ERR_INPUT) {
			struct err ce; /* no trial, nothing left */
			fs_remove_tree(t->paths.dir, &ce);
			return 2;
		}
		agent_outcome_sandbox_failure(&t->agent, e->msg);
	}
	if (!t->agent.error && b->mode != SANDBOX_CONTAINER && local_setup_program(t, e) < 0)
		agent_outcome_sandbox_failure(&t->agent, e->msg);
	if (!t->agent.error && b->mode != SANDBOX_NONE && local_setup_supervisor(t, e) < 0)
		agent_outcome_sandbox_failure(&t->agent, e->msg);
	/* a container's loopback is its own whatever its network: the model
	 * (often on the host's loopback) is reached through the relay */
	bool relay = !b->share_net || b->mode == SANDBOX_CONTAINER;
	if (!t->agent.error && relay && local_setup_relay(t, e) < 0)
		agent_outcome_sandbox_failure(&t->agent, e->msg);
	if (b->mode != SANDBOX_NONE)
		strlist_push(&b->agent_argv, "--"); /* the supervisor's options end */
	if (!t->agent.error && local_setup_env(t, e) < 0)
		return 1;
	if (!t->agent.error && b->mode == SANDBOX_CONTAINER)
		docker_setup_container(t);
	t->clock.env = now_mono() - t0;
	return 0;
}

/* The agent, then the verifier unless the agent's part failed before a
 * time limit. Returns 0, or the exit status when the run must stop. */
static int execute(struct local_trial *t, struct err *e)
{
	/* a model server that is down fails the trial now, not at the agent's time limit */
	if (!t->agent.error && model_route_probe(&t->route, 5, e) < 0)
		agent_outcome_error(&t->agent, "model_unreachable", "%s (start the model server, or check ROUTES)", e->msg);
	if (!t->agent.error)
		local_agent_run(t);
	if (t->agent.ran && t->agent.acp.status == ACP_INTERRUPTED) {
		err_set(e, ERR_WORK, "interrupted by signal %d; the trial in %s is incomplete", t->agent.acp.interrupted,
			t->paths.dir);
		return 128 + t->agent.acp.interrupted;
	}
	if ((!t->agent.error || agent_outcome_timed_out(&t->agent)) && verifier_run(t, e) < 0)
		return 1;
	local_trial_judge(t);
	return 0;
}

/* The one line on stderr saying how the trial ended. */
static void say_outcome(const struct local_trial *t)
{
	const struct agent_outcome *a = &t->agent;
	const struct verdict *v = &t->verdict;
	if (verdict_scored(v)) {
		double rw = pyjson_number(json_get(v->rewards, "reward"));
		fprintf(stderr, "%s: %s %s, reward %g%s%s: %s\n", log_prog(), t->task.name, rw == 1.0 ? "passed" : "failed",
			rw, a->error ? ", " : "", a->error ? a->category : "", t->paths.dir);
	} else {
		fprintf(stderr, "%s: %s errored (%s: %s): %s\n", log_prog(), t->task.name, a->error ? a->category : v->category,
			a->error ? a->error : v->error, t->paths.dir);
	}
}

/* The record (redacted), the line; returns the exit status. */
static int report(const struct local_trial *t, struct err *e)
{
	if (record_write(t, e) < 0 || local_trial_redact(t, e) < 0)
		return 1;
	if (!t->o->quiet)
		say_outcome(t);
	e->msg[0] = '\0';
	return verdict_scored(&t->verdict) ? 0 : 1;
}

/* The container goes, and the sandbox's folder (unless KEEP_SANDBOX) with
 * its parent when empty. */
static void clean_up(struct local_trial *t)
{
	if (!t->paths.scratch)
		return;
	struct err ce;
	bool keep = getenv("KEEP_SANDBOX") != NULL;
	if (box_cleanup(&t->box, keep, &ce) < 0)
		warnf("%s", ce.msg);
	if (keep)
		return;
	char *parent = path_join(t->paths.dir, ".skillc-local");
	rmdir(parent); /* only when no other trial uses it */
	free(parent);
}

/* Returns the exit status. */
static int run_trial(const struct local_opts *o, struct err *e)
{
	struct local_trial t = { .o = o };
	int lockfd = -1;
	bool done = false;
	int status = open_trial(&t, e);
	if (status == 0 && t.box.mode == SANDBOX_NONE && lock_unsandboxed(&lockfd, e) < 0)
		status = 1;
	if (status == 0 && claim_rollout(&t, &done, e) < 0)
		status = e->code == ERR_INPUT ? 2 : 1;
	if (status == 0 && !done) {
		status = prepare(&t, e);
		if (status == 0)
			status = execute(&t, e);
		if (status == 0)
			status = report(&t, e);
		clean_up(&t);
	}
	if (lockfd >= 0)
		close(lockfd);
	local_trial_free(&t);
	return status;
}

/* ---- options ---- */

static double parse_seconds(const char *s, const char *flag)
{
	if (!strcmp(s, "none") || !strcmp(s, "0"))
		return 0;
	char *end;
	double d = strtod(s, &end);
	if (*end || d < 0)
		die(2, "%s '%s': give seconds or none", flag, s);
	return d;
}

static struct local_opts opt = { .skill_mode = "no-skill", .sandbox = "local" };
static struct strlist overrides;             /* --config-override, as given */
static const char *idle = "600", *handshake; /* the two timeouts, as given */
static const struct opt rows[] = {
	OPT_STRING("tasks-dir", &opt.tasks_dir, "TASK", "ONE task folder"),
	OPT_STRING("agent", &opt.agent, "HARNESS", "the harness (rules/harness/HARNESS.json)"),
	OPT_STRING("model", &opt.model, "PROVIDER/MODEL", "the model, routed by ROUTES"),
	OPT_STRING("out", &opt.out, "DIR", "the trial's folder: new or empty"),
	OPT_ONE_OF("sandbox", &opt.sandbox, "local|docker|podman",
		   "local: the one SANDBOX names (default); or a container"),
	OPT_STRING("image", &opt.image, "IMAGE", "a container's trial image (else built)"),
	OPT_ONE_OF("skill-mode", &opt.skill_mode, "no-skill|with-skill",
		   "no skill (default), or the task's or --skills-dir's"),
	OPT_STRING("skills-dir", &opt.skills_dir, "ROOT", "with-skill: the skills under ROOT"),
	OPT_EACH("config-override", &overrides, "JSON|@FILE|key.path=VALUE",
		 "merged into task.toml (repeatable)"),
	OPT_EACH("agent-env", &opt.agent_env, "KEY=VALUE", "a variable for the agent (repeatable)"),
	OPT_STRING("agent-idle-timeout", &idle, "SEC|none", "end a silent agent (600)"),
	OPT_STRING("agent-handshake-timeout", &handshake, "SEC", "end an agent not started (60)"),
	OPT_BOOL("quiet", &opt.quiet, "no line saying the outcome"),
	OPT_END,
};

static void parse_opts(int argc, char **argv, struct local_opts *o)
{
	struct err e = { 0 };
	opts_parse_or_die(rows, argc, argv, 3, NULL);
	for (size_t i = 0; i < overrides.n; i++)
		if (task_parse_override(overrides.v[i], &o->override, &e) < 0)
			die_err(&e);
	for (size_t i = 0; i < o->agent_env.n; i++)
		if (!strchr(o->agent_env.v[i], '=') || o->agent_env.v[i][0] == '=')
			die(2, "--agent-env '%s': give KEY=VALUE", o->agent_env.v[i]);
	o->idle_timeout = parse_seconds(idle, "--agent-idle-timeout");
	if (handshake)
		o->handshake_timeout = parse_seconds(handshake, "--agent-handshake-timeout");
	if (!o->tasks_dir || !o->agent || !o->model || !o->out)
		die(2, "--tasks-dir, --agent, --model and --out are required (see --help)");
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, VERSION);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "watchdog")) /* container.h: started by a container trial */
		return watchdog_main(argc, argv);
	if (argc < 3 || strcmp(argv[1], "eval") || strcmp(argv[2], "run")) {
		fputs(usage, stderr);
		return 2;
	}
	parse_opts(argc, argv, &opt);
	struct err e = { 0 };
	int status = run_trial(&opt, &e);
	if (e.msg[0])
		warnf("%s", e.msg);
	cJSON_Delete(opt.override);
	strlist_free(&opt.agent_env);
	strlist_free(&overrides);
	return status;
}
