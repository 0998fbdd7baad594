/* skillc-doctor — preflight: checks what a run of the pipeline needs before
 * any work starts, and no more: each check is a row with a test of whether
 * the goal's stages and the settings need it (a deterministic run needs no
 * EXTERNAL_MODEL; a run without trials needs no runner). One line per check,
 * spending no tokens unless asked. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/dotenv.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/proc.h"
#include "base/versions.h"
#include "eval/harness.h"
#include "eval/runner.h"
#include "llm/client.h"
#include "llm/routes.h"
#include "local/dockerdoctor.h"
#include "local/launch.h"
#include "optimize/agentrm.h"
#include "pipeline/launcher.h"
#include "pipeline/matrix.h"
#include "pipeline/settings.h"
#include "pipeline/stages.h"

static const char usage[] =
	"usage: skillc-doctor [--probe models|call|none] [GOAL]\n"
	"\n"
	"Checks what `make GOAL` needs (GOAL: a stage, or final, the default) with the\n"
	"settings of the environment (make doctor passes them), and nothing it does not\n"
	"need; prints one line per check, \"ok      <check>: ...\" or\n"
	"\"problem <check>: <what is wrong and what to do>\". The checks:\n"
	"  ROUTES, ENV_FILE     parse, when a model is called through the routes\n"
	"  CACHE_DIR            writable, and LLM_CACHE valid\n"
	"  MODEL                set; with RUNNER=local and trials due, routed and probed\n"
	"  EXTERNAL_MODEL       routed and probed when a stage needs it (STATIC_MODE=hybrid, fast, deep)\n"
	"  RUNNER               its program (bench, harbor, skillc-local), when trials are due\n"
	"  HARNESS              its file; with RUNNER=local, its acp_command and program\n"
	"  SANDBOX              RUNNER=local: bubblewrap starts a sandbox (or SANDBOX=none as root);\n"
	"                       SANDBOX=docker|podman: the engine, its storage driver and mirrors, proxies,\n"
	"                       the architecture (QEMU), and which of the run's L1/L2 images exist\n"
	"                       or are due (with task=, TASKS_DIR, RESULTS, RUN_DIR, IMAGE)\n"
	"  LAUNCHER             when trials are due: local, or with srun the cluster answering and\n"
	"                       the partition SRUN_ARGS names (or the default) up\n"
	"  RM_API_URL           when set: AgentRM answers GET /health, status ok\n"
	"--probe: how far to test each model's provider (default: $DOCTOR_PROBE, else models):\n"
	"  models  GET <base_url>/models: checks the key and the model id, spends no tokens\n"
	"  call    one request with max_tokens 1, not cached (costs a few tokens)\n"
	"  none    configuration only: no request at all\n"
	"Exit 0 all good, 1 problems found, 2 bad usage.\n";

enum probe { PROBE_MODELS, PROBE_CALL, PROBE_NONE };

struct doctor {
	enum probe probe;
	const char *goal;
	struct run run;         /* the settings (no run folder needed) */
	char *routes_path;
	const char *env_path;
	struct routes routes;
	bool routes_ok;
	struct dotenv env;
	bool env_ok;
	struct llm_client *llm; /* NULL when routes or .env are unusable */
	int problems;
	int checks;
};

static void report(struct doctor *d, bool ok, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void report(struct doctor *d, bool ok, const char *check, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%-7s %s: ", ok ? "ok" : "problem", check);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
	d->checks++;
	d->problems += !ok;
}

static void check_routes(struct doctor *d)
{
	struct err e = { 0 };
	if (routes_load(&d->routes, d->routes_path, &e) < 0) {
		report(d, false, "ROUTES", "%s", e.msg);
		return;
	}
	d->routes_ok = true;
	const char *asked = getenv("ROUTES");
	bool fallback = (!asked || !*asked || !strcmp(asked, ROUTES_DEFAULT)) && strcmp(d->routes_path, ROUTES_DEFAULT);
	report(d, true, "ROUTES", "'%s' (%zu providers)%s", d->routes_path, d->routes.n,
	       fallback ? "; no ./provider_routes.json, so the shipped example is used" : "");
}

static void check_env(struct doctor *d)
{
	struct err e = { 0 };
	if (dotenv_load(&d->env, d->env_path, &e) < 0) {
		report(d, false, "ENV_FILE", "%s", e.msg);
		return;
	}
	d->env_ok = true;
	if (d->env.path)
		report(d, true, "ENV_FILE", "'%s' (%zu variables)", d->env_path, d->env.names.n);
	else
		report(d, true, "ENV_FILE", "'%s' does not exist; keys come from the environment only", d->env_path);
}

static void check_cache(struct doctor *d)
{
	struct err e = { 0 };
	const char *dir = cache_dir();
	enum llm_cache_mode m;
	const char *mode = run_get(&d->run, "LLM_CACHE");
	if (mode && *mode && llmcache_mode_parse(mode, &m, &e) < 0) {
		report(d, false, "LLM_CACHE", "%s", e.msg);
		return;
	}
	char *llm = path_join(dir, "llm");
	char *probe = path_join(llm, ".doctor-probe");
	if (fs_mkdirs(llm, &e) < 0 || fs_write_atomic(probe, "", 0, 0644, &e) < 0)
		report(d, false, "CACHE_DIR", "cannot write to '%s': %s (set CACHE_DIR to a writable folder)", dir, e.msg);
	else
		report(d, true, "CACHE_DIR", "'%s' is writable (LLM_CACHE=%s)", dir, mode && *mode ? mode : "use");
	unlink(probe);
	free(probe);
	free(llm);
}

static void probe_models(struct doctor *d, const char *var, const char *id, const char *model,
			 const char *keynote)
{
	struct err e = { 0 };
	struct strlist ids = STRLIST_INIT;
	if (llm_list_models(d->llm, id, &ids, &e) < 0) {
		report(d, false, var, "%s%s", e.msg,
		       e.code == ERR_INPUT ? "" : " (if the provider has no model list, try DOCTOR_PROBE=call)");
	} else if (ids.n && !strlist_has(&ids, model)) {
		report(d, false, var, "%s: the provider lists %zu models but not '%s' (e.g. %s%s%s): check the model id", id,
		       ids.n, model, ids.v[0], ids.n > 1 ? ", " : "", ids.n > 1 ? ids.v[1] : "");
	} else {
		report(d, true, var, "%s: %s, %s", id, keynote,
		       ids.n ? "listed by the provider" : "the provider lists no models (not checked)");
	}
	strlist_free(&ids);
}

static void probe_call(struct doctor *d, const char *var, const char *id, const char *keynote)
{
	struct err e = { 0 };
	struct llm_msg msg = { "user", "Reply with the single word: ok" };
	struct llm_request req = { .model = id, .msgs = &msg, .n_msgs = 1, .max_tokens = 1,
				   .label = "doctor" };
	struct llm_result res;
	if (llm_call(d->llm, &req, &res, &e) < 0)
		report(d, false, var, "%s", e.msg);
	else
		report(d, true, var, "%s: %s, answered a 1-token request (%ld tokens in)", id, keynote, res.tokens_in);
	llm_result_free(&res);
}

/* --- what the goal needs ------------------------------------------------ */

/* The goal runs evaluation trials (with TRACES, static-eval imports them). */
static bool runs_trials(const struct doctor *d)
{
	bool imported = *run_get(&d->run, "TRACES");
	for (size_t i = 0; i < stage_count; i++)
		if (goal_includes(d->goal, &stage_table[i]) &&
		    !strcmp(stage_table[i].tool, "skillc-eval") &&
		    !(imported && !strcmp(stage_table[i].name, "static-eval")))
			return true;
	return false;
}

static bool runs_local_trials(const struct doctor *d)
{
	return runs_trials(d) && !strcmp(run_get(&d->run, "RUNNER"), "local");
}

static bool runs_docker_trials(const struct doctor *d)
{
	const char *mode = run_get(&d->run, "SANDBOX");
	return runs_local_trials(d) && (!strcmp(mode, "docker") || !strcmp(mode, "podman"));
}

/* Our own calls go to a model through ROUTES: EXTERNAL_MODEL whenever a
 * stage needs it; MODEL only for the local runner's agents (BenchFlow and
 * Harbor resolve MODEL themselves). */
static bool routed(const struct doctor *d, const char *var)
{
	if (!strcmp(var, "MODEL"))
		return goal_needs(d->goal, &d->run, var) && runs_local_trials(d);
	return goal_needs(d->goal, &d->run, var);
}

static bool needs_llm(const struct doctor *d) { return routed(d, "MODEL") || routed(d, "EXTERNAL_MODEL"); }
/* the trial store lives in CACHE_DIR; the runner gets ENV_FILE's keys */
static bool needs_files(const struct doctor *d) { return needs_llm(d) || runs_trials(d); }
static bool needs_model(const struct doctor *d)
{
	return goal_needs(d->goal, &d->run, "MODEL");
}

static bool needs_external_model(const struct doctor *d)
{
	return goal_needs(d->goal, &d->run, "EXTERNAL_MODEL");
}

static bool needs_agentrm(const struct doctor *d) { return *run_get(&d->run, "RM_API_URL"); }

/* --- the checks ------------------------------------------------------------ */

static void check_model(struct doctor *d, const char *var)
{
	const char *id = run_get(&d->run, var);
	struct err e = { 0 };
	if (!*id) {
		report(d, false, var, "not set, and make %s needs it: give %s=provider/model-id (providers are in ROUTES '%s')",
		       d->goal, var, d->routes_path);
		return;
	}
	if (!routed(d, var)) {
		if (runs_trials(d))
			report(d, true, var, "%s (given to RUNNER=%s, which reaches the model itself)", id,
			       run_get(&d->run, "RUNNER"));
		else
			report(d, true, var, "%s (make %s names it but calls no model)", id, d->goal);
		return;
	}
	if (!d->routes_ok) {
		report(d, false, var, "%s: not checked, ROUTES is unusable (see above)", id);
		return;
	}
	char *model;
	const struct route *rt = routes_resolve(&d->routes, id, &model, &e);
	if (!rt) {
		report(d, false, var, "%s", e.msg);
		return;
	}
	char keynote[256];
	enum dotenv_source src = DOTENV_MISSING;
	const char *key = rt->key_env ? dotenv_get(&d->env, rt->key_env, &src) : NULL;
	if (!rt->key_env || (!key && !rt->key_required)) {
		snprintf(keynote, sizeof keynote, "no key needed");
	} else if (!key) {
		report(d, false, var, "%s: provider '%s' needs a key: set %s in the environment or in ENV_FILE '%s'", id,
		       rt->provider, rt->key_env, d->env_path);
		free(model);
		return;
	} else {
		snprintf(keynote, sizeof keynote, "key %s from %s%s%s", rt->key_env,
			 src == DOTENV_ENVIRON ? "the environment" : "ENV_FILE '",
			 src == DOTENV_ENVIRON ? "" : d->env_path, src == DOTENV_ENVIRON ? "" : "'");
	}
	if (d->probe == PROBE_NONE)
		report(d, true, var, "%s: %s, route %s (not probed)", id, keynote, rt->base_url);
	else if (!d->llm)
		report(d, false, var, "%s: not probed, ENV_FILE or LLM settings are unusable (see above)", id);
	else if (d->probe == PROBE_MODELS)
		probe_models(d, var, id, model, keynote);
	else
		probe_call(d, var, id, keynote);
	free(model);
}

static void check_target_model(struct doctor *d) { check_model(d, "MODEL"); }
static void check_external_model(struct doctor *d) { check_model(d, "EXTERNAL_MODEL"); }

/* Opens the client the probes use: no cache (a probe must reach the
 * provider) and no usage record. */
static void open_client(struct doctor *d)
{
	if (!d->routes_ok || !d->env_ok || d->probe == PROBE_NONE)
		return;
	struct err e = { 0 };
	struct llm_options o = { .routes = d->routes_path, .env_file = d->env_path, .cache_mode = "off",
				 .usage_file = "/dev/null" };
	d->llm = llm_open(&o, &e);
}

static void check_runner(struct doctor *d)
{
	struct err e = { 0 };
	const char *runner = run_get(&d->run, "RUNNER");
	if (runner_check_installed(runner, &e) < 0)
		report(d, false, "RUNNER", "%s", e.msg);
	else
		report(d, true, "RUNNER", "%s: `%s` found", runner, runner_program(runner));
}

/* The local runner starts the harness itself: its acp_command must be
 * there and its program on PATH. */
static void check_local_harness(struct doctor *d, const char *name)
{
	struct err e = { 0 };
	struct launch l;
	if (launch_load(name, &l, &e) < 0) {
		report(d, false, "HARNESS", "%s", e.msg);
	} else {
		char *found = fs_find_in_path(l.argv.v[0]);
		const char *install = json_str(l.doc, "install");
		if (!found)
			report(d, false, "HARNESS", "%s: its program '%s' is not on PATH: %s%s", name, l.argv.v[0],
			       install ? "install it with " : "install it, or fix acp_command in ", install ? install : l.file);
		else
			report(d, true, "HARNESS", "%s: %s, started as %s", name, l.file, found);
		free(found);
	}
	launch_free(&l);
}

static void check_harness(struct doctor *d)
{
	struct err e = { 0 };
	const char *name = run_get(&d->run, "HARNESS");
	const char *runner = run_get(&d->run, "RUNNER");
	char *rules = harness_rules_dir(NULL, &e);
	struct harness h = { 0 };
	struct strlist none = STRLIST_INIT;
	if (!rules || harness_load(&h, rules, name, &none, &e) < 0)
		report(d, false, "HARNESS", "%s", e.msg);
	else if (!strcmp(runner, "local"))
		check_local_harness(d, name);
	else
		report(d, true, "HARNESS", "%s: %s; %s installs agent '%s' in its sandbox", name, h.path, runner,
		       harness_agent(&h, runner));
	harness_free(&h);
	free(rules);
}

/* Starts one empty sandbox the way the local runner does, so a kernel
 * without unprivileged user namespaces shows here, not in every trial. */
static void try_bwrap(struct doctor *d, const char *bwrap)
{
	char *const argv[] = { (char *)bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
			       "--proc", "/proc", "--dev", "/dev", "--", "true", NULL };
	FILE *out = tmpfile();
	struct proc_spec spec = { .argv = argv, .timeout = 20, .stdin_fd = -1,
				  .tee = { out ? fileno(out) : -1, -1 } };
	struct proc_result pr;
	struct err e = { 0 };
	char said[512] = "";
	if (proc_run(&spec, &pr, &e) < 0) {
		snprintf(said, sizeof said, "%.400s", e.msg);
	} else if (pr.exit_code && out) {
		rewind(out);
		if (fgets(said, sizeof said, out))
			said[strcspn(said, "\n")] = '\0';
	}
	if (out)
		fclose(out);
	if (*said || pr.exit_code)
		report(d, false, "SANDBOX", "bwrap (%s) cannot start a sandbox here: %s (unprivileged user namespaces "
		       "may be off: sysctl kernel.unprivileged_userns_clone=1)", bwrap, *said ? said : "it failed");
	else
		report(d, true, "SANDBOX", "bwrap: %s starts a sandbox", bwrap);
}

static void check_sandbox(struct doctor *d)
{
	const char *mode = getenv("SANDBOX");
	if (mode && !strcmp(mode, "none")) {
		if (geteuid())
			report(d, false, "SANDBOX", "none needs root (the task's paths are made on this host): run as "
			       "root in a throwaway machine, or use bubblewrap (unset SANDBOX)");
		else
			report(d, true, "SANDBOX", "none: agents run UNSANDBOXED on this machine, as root");
		return;
	}
	if (mode && (!strcmp(mode, "docker") || !strcmp(mode, "podman")))
		return; /* check_docker */
	if (mode && *mode && strcmp(mode, "bwrap")) {
		report(d, false, "SANDBOX", "'%s': use bwrap (the default), docker, podman or none", mode);
		return;
	}
	char *bwrap = fs_find_in_path("bwrap");
	if (!bwrap)
		report(d, false, "SANDBOX", "bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap");
	else
		try_bwrap(d, bwrap);
	free(bwrap);
}

static void check_agentrm(struct doctor *d)
{
	struct err e = { 0 };
	const char *url = run_get(&d->run, "RM_API_URL");
	cJSON *health = NULL;
	if (agentrm_health(url, &health, &e) < 0) {
		report(d, false, "RM_API_URL", "%s; or leave RM_API_URL empty to run without it", e.msg);
	} else {
		const char *device = json_str(health, "device");
		const cJSON *ml = json_get(health, "max_length");
		struct buf more = BUF_INIT;
		if (device)
			buf_printf(&more, ", device %s", device);
		if (cJSON_IsNumber(ml))
			buf_printf(&more, ", max_length %.0f", ml->valuedouble);
		report(d, true, "RM_API_URL", "%s: AgentRM answers /health: status ok%s", url,
		       more.data);
		buf_free(&more);
	}
	cJSON_Delete(health);
}

/* LAUNCHER=srun: srun on PATH, the cluster answering, the partition up. */
static void check_launcher(struct doctor *d)
{
	struct buf what = BUF_INIT;
	struct err e = { 0 };
	if (launcher_check(run_get(&d->run, "LAUNCHER"), run_get(&d->run, "SRUN_ARGS"), &what, &e) < 0)
		report(d, false, "LAUNCHER", "%s", e.msg);
	else
		report(d, true, "LAUNCHER", "%s", what.data);
	buf_free(&what);
}

static void report_docker_check(void *ctx, bool ok, const char *check, const char *msg)
{
	report(ctx, ok, check, "%s", msg);
}

/* SANDBOX=docker or podman (local/dockerdoctor.h); with task=, its folder and run. */
static void check_docker(struct doctor *d)
{
	const struct run *r = &d->run;
	const char *task = getenv("task");
	task = task && *task ? task : NULL;
	char *task_dir = task ? path_join(run_get(r, "TASKS_DIR"), task) : NULL;
	char *slug = model_slug(run_get(r, "MODEL"));
	char *run = !task ? NULL : *run_get(r, "RUN_DIR") ? xstrdup(run_get(r, "RUN_DIR"))
		    : xasprintf("%s/%s--%s--%s", run_get(r, "RESULTS"), task, run_get(r, "HARNESS"), slug);
	struct docker_doctor dd = { .sandbox = run_get(r, "SANDBOX"), .qemu = run_get(r, "QEMU"),
				    .image = run_get(r, "IMAGE"),
				    .task_dir = task_dir && fs_is_dir(task_dir) ? task_dir : NULL, .run_dir = run,
				    .harness = run_get(r, "HARNESS"), .model = run_get(r, "MODEL") };
	docker_doctor_run(&dd, report_docker_check, d);
	free(run);
	free(slug);
	free(task_dir);
}

struct check {
	bool (*needed)(const struct doctor *d);
	void (*run)(struct doctor *d);
};

/* In order: later rows read what earlier ones loaded. */
static const struct check checks[] = {
	{ needs_llm, check_routes },
	{ needs_files, check_env },
	{ needs_files, check_cache },
	{ needs_llm, open_client },
	{ needs_model, check_target_model },
	{ needs_external_model, check_external_model },
	{ runs_trials, check_runner },
	{ runs_trials, check_harness },
	{ runs_local_trials, check_sandbox },
	{ runs_trials, check_launcher },
	{ runs_docker_trials, check_docker },
	{ needs_agentrm, check_agentrm },
};

static enum probe parse_probe(const char *probe)
{
	if (!probe || !*probe || !strcmp(probe, "models"))
		return PROBE_MODELS;
	if (!strcmp(probe, "call"))
		return PROBE_CALL;
	if (!strcmp(probe, "none"))
		return PROBE_NONE;
	die(2, "bad DOCTOR_PROBE '%s': use models, call or none", probe);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	const char *probe = getenv("DOCTOR_PROBE");
	const struct opt rows[] = {
		OPT_ONE_OF("probe", &probe, "models|call|none", "how far to test each provider"),
		OPT_END,
	};
	opts_std(argc, argv, usage, rows, V_DOCTOR);
	struct strlist args;
	opts_args_or_die(rows, argc, argv, 1, &args);
	if (args.n > 1)
		die(2, "unexpected argument '%s' (see --help)", args.v[1]);
	struct doctor d = { .env = DOTENV_INIT, .routes = ROUTES_INIT, .goal = "final" };
	if (args.n)
		d.goal = args.v[0];
	if (!goal_known(d.goal))
		die(2, "unknown goal '%s': name a stage (e.g. static), eval or final", d.goal);
	d.probe = parse_probe(probe);
	struct err e = { 0 };
	if (run_load_settings(&d.run, &e) < 0)
		die_err(&e);
	d.routes_path = routes_locate(NULL);
	d.env_path = *run_get(&d.run, "ENV_FILE") ? run_get(&d.run, "ENV_FILE") : ".env";
	printf("checking what make %s needs (RUNNER=%s HARNESS=%s STATIC_MODE=%s)\n", d.goal,
	       run_get(&d.run, "RUNNER"), run_get(&d.run, "HARNESS"), run_get(&d.run, "STATIC_MODE"));
	for (size_t i = 0; i < ARRAY_LEN(checks); i++)
		if (checks[i].needed(&d))
			checks[i].run(&d);
	if (d.problems)
		printf("%d problem%s found\n", d.problems, d.problems == 1 ? "" : "s");
	else
		printf("all good (%d check%s)\n", d.checks, d.checks == 1 ? "" : "s");
	llm_close(d.llm);
	routes_free(&d.routes);
	dotenv_free(&d.env);
	run_free(&d.run);
	free(d.routes_path);
	strlist_free(&args);
	return d.problems ? 1 : 0;
}
