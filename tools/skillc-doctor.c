/* skillc-doctor — preflight: checks the settings a run needs before any
 * work starts, one line per check, spending no tokens unless asked. The
 * checks are a table; later checks (runner, docker, AgentRM) are added as
 * rows. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/dotenv.h"
#include "base/fs.h"
#include "llm/client.h"
#include "base/log.h"
#include "llm/routes.h"
#include "local/dockerdoctor.h"
#include "pipeline/launcher.h"
#include "pipeline/matrix.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-doctor [--probe models|call|none]\n"
	"\n"
	"Checks the settings a pipeline run needs; prints one line per check,\n"
	"\"ok      <check>: ...\" or \"problem <check>: <what is wrong and what to do>\".\n"
	"Reads MODEL, EXTERNAL_MODEL, ROUTES, ENV_FILE, CACHE_DIR, LLM_CACHE, LAUNCHER,\n"
	"SRUN_ARGS, SANDBOX, IMAGE, QEMU, and task, TASKS_DIR, RESULTS, RUN_DIR, HARNESS\n"
	"from the environment (make doctor passes them). SANDBOX=docker: the\n"
	"daemon, its storage driver and mirrors, proxies, the architecture (QEMU), and\n"
	"which of the run's L1/L2 images exist or are due.\n"
	"\n"
	"  --probe MODE   how far to test each model's provider (default: $DOCTOR_PROBE,\n"
	"                 else models):\n"
	"                   models  GET <base_url>/models: checks the key and the model id,\n"
	"                           spends no tokens\n"
	"                   call    one request with max_tokens 1, not cached (costs a few tokens)\n"
	"                   none    configuration only: no request at all\n"
	"\n"
	"Exit 0 all good, 1 problems found, 2 bad usage.\n";

enum probe { PROBE_MODELS, PROBE_CALL, PROBE_NONE };

struct doctor {
	enum probe probe;
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
	const char *mode = getenv("LLM_CACHE");
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

static bool listed(const struct strlist *ids, const char *model)
{
	for (size_t i = 0; i < ids->n; i++)
		if (!strcmp(ids->v[i], model))
			return true;
	return false;
}

static void probe_models(struct doctor *d, const char *var, const char *id, const char *model,
			 const char *keynote)
{
	struct err e = { 0 };
	struct strlist ids = STRLIST_INIT;
	if (llm_list_models(d->llm, id, &ids, &e) < 0) {
		report(d, false, var, "%s%s", e.msg,
		       e.code == ERR_INPUT ? "" : " (if the provider has no model list, try DOCTOR_PROBE=call)");
	} else if (ids.n && !listed(&ids, model)) {
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

static void check_model(struct doctor *d, const char *var)
{
	const char *id = getenv(var);
	struct err e = { 0 };
	if (!id || !*id) {
		report(d, false, var, "not set: give %s=provider/model-id (providers are in ROUTES '%s')", var,
		       d->routes_path);
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

/* LAUNCHER=srun: srun on PATH, the cluster answering, the partition up. */
static void check_launcher(struct doctor *d)
{
	struct buf what = BUF_INIT;
	struct err e = { 0 };
	if (launcher_check(getenv("LAUNCHER"), getenv("SRUN_ARGS"), &what, &e) < 0)
		report(d, false, "LAUNCHER", "%s", e.msg);
	else
		report(d, true, "LAUNCHER", "%s", what.data);
	buf_free(&what);
}

static void docker_line(void *ctx, bool ok, const char *check, const char *msg)
{
	report(ctx, ok, check, "%s", msg);
}

/* The setting name from the environment, or dflt when unset or empty. */
static const char *setting(const char *name, const char *dflt)
{
	const char *v = getenv(name);
	return v && *v ? v : dflt;
}

/* SANDBOX=docker (local/dockerdoctor.h); with task=, its folder and run. */
static void check_docker(struct doctor *d)
{
	const char *task = setting("task", NULL);
	char *task_dir = task ? path_join(setting("TASKS_DIR", "tasks"), task) : NULL;
	char *slug = model_slug(setting("MODEL", ""));
	char *run = task ? (getenv("RUN_DIR") && *getenv("RUN_DIR") ? xstrdup(getenv("RUN_DIR"))
			    : xasprintf("%s/%s--%s--%s", setting("RESULTS", "results/compile-pipeline"), task,
				        setting("HARNESS", "opencode"), slug)) : NULL;
	struct docker_doctor dd = { .sandbox = getenv("SANDBOX"), .qemu = getenv("QEMU"), .image = getenv("IMAGE"),
				    .task_dir = task_dir && fs_is_dir(task_dir) ? task_dir : NULL, .run_dir = run,
				    .harness = setting("HARNESS", "opencode") };
	docker_doctor_run(&dd, docker_line, d);
	free(run);
	free(slug);
	free(task_dir);
}

struct check {
	const char *name;
	void (*run)(struct doctor *d);
};

static const struct check checks[] = {
	{ "routes", check_routes },
	{ "env", check_env },
	{ "cache", check_cache },
	{ "client", open_client },
	{ "model", check_target_model },
	{ "external-model", check_external_model },
	{ "launcher", check_launcher },
	{ "docker", check_docker },
};

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_DOCTOR);
	const char *probe = getenv("DOCTOR_PROBE");
	static const struct option longopts[] = { { "probe", required_argument, 0, 'p' }, { 0, 0, 0, 0 } };
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'p')
			die(2, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
		probe = optarg;
	}
	if (optind < argc)
		die(2, "unexpected argument '%s' (see --help)", argv[optind]);
	struct doctor d = { .env = DOTENV_INIT, .routes = ROUTES_INIT };
	if (!probe || !*probe || !strcmp(probe, "models"))
		d.probe = PROBE_MODELS;
	else if (!strcmp(probe, "call"))
		d.probe = PROBE_CALL;
	else if (!strcmp(probe, "none"))
		d.probe = PROBE_NONE;
	else
		die(2, "bad DOCTOR_PROBE '%s': use models, call or none", probe);
	d.routes_path = routes_locate(NULL);
	d.env_path = getenv("ENV_FILE") && *getenv("ENV_FILE") ? getenv("ENV_FILE") : ".env";
	for (size_t i = 0; i < ARRAY_LEN(checks); i++)
		checks[i].run(&d);
	if (d.problems)
		printf("%d problem%s found\n", d.problems, d.problems == 1 ? "" : "s");
	else
		printf("all good (%d checks)\n", d.checks);
	llm_close(d.llm);
	routes_free(&d.routes);
	dotenv_free(&d.env);
	free(d.routes_path);
	return d.problems ? 1 : 0;
}
