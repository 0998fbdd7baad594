/* skillc-runtime — the Docker-in-Docker runtime (local/runtime.h): builds
 * the runtime image (skillc, make and a Docker engine), and runs a command
 * such as `make task=X final` in a container of it, whose own daemon runs
 * the trial containers; results land in the host's folders. See
 * docs/containers.md. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "local/container.h"
#include "local/runtime.h"
#include "pipeline/settings.h"

static const char usage[] =
	"usage: skillc-runtime build [--base IMAGE]\n"
	"       skillc-runtime run [--image IMAGE] [--load IMAGE]... [--env NAME[=VALUE]]... [--data DIR]\n"
	"                          [--start-timeout S] [--timeout S] -- COMMAND...\n"
	"\n"
	"build: the runtime image FROM IMAGE (default debian:12-slim; Debian 12: docker.io, make and\n"
	"skillc's libraries are installed by apt when it lacks them) holding these tools and their data,\n"
	"tagged skillc/runtime:<content key> and skillc/runtime:latest (found, not built, when present).\n"
	"run: checks the host (daemon, storage driver, host programs still run), finds the privileges\n"
	"Docker-in-Docker gets here (--privileged, else a capability set) and says which, starts the\n"
	"image (default skillc/runtime:latest) on the host's network with the current folder bound at\n"
	"the same path (tasks/, results/; .env read-only), starts its own dockerd (vfs, cgroupfs,\n"
	"REGISTRY_MIRROR), loads the base images of the tasks under TASKS_DIR (default tasks) and each\n"
	"--load IMAGE with docker save/load, and runs COMMAND there (`make ...` gets skillc's makefile).\n"
	"A watchdog removes the container when the start is not confirmed within --start-timeout\n"
	"(default 300 s), when this process dies, or after --timeout (default 86400 s); Ctrl-C removes\n"
	"it too. The settings, the proxies, each --env NAME and SANDBOX (default docker) reach COMMAND.\n"
	"--data DIR: the inner daemon's data on the host (default: a tmpfs).\n"
	"Exit: COMMAND's status; 1 the runtime could not start; 2 bad usage or input.\n";

struct opts {
	const char *base, *image, *data;
	struct strlist load, env;
	double start_timeout, timeout;
	char **cmd;
};

static struct opts opt = { .start_timeout = 300, .timeout = 86400 };
#define SECONDS(n, p, h) OPT_NUMBER(n, p, 1, 1e6, "S", h)
static const struct opt build_rows[] = {
	OPT_STRING("base", &opt.base, "IMAGE", "build: FROM this image (debian:12-slim)"),
	OPT_END,
};
static const struct opt run_rows[] = {
	OPT_STRING("image", &opt.image, "IMAGE", "run: the runtime image (skillc/runtime:latest)"),
	OPT_EACH("load", &opt.load, "IMAGE", "run: an image to load inside (repeatable)"),
	OPT_EACH("env", &opt.env, "NAME[=VALUE]", "run: a variable for COMMAND (repeatable)"),
	OPT_STRING("data", &opt.data, "DIR", "run: the inner daemon's data (a tmpfs)"),
	SECONDS("start-timeout", &opt.start_timeout, "run: until the start is confirmed (300)"),
	SECONDS("timeout", &opt.timeout, "run: until the container is removed (86400)"),
	OPT_END,
};
static const struct opt_cmd cmds[] = { { "build", build_rows }, { "run", run_rows }, OPT_CMD_END };

static int build(const struct opts *o)
{
	char *cwd = getcwd(NULL, 0);
	char *work = path_join(cwd ? cwd : ".", ".skillc-runtime");
	struct image_opts io = { .engine = &engine_docker, .work = work, .log_fd = 1 }; /* the runtime is docker-only */
	struct image_ref ref;
	struct err e = { 0 };
	int r = runtime_build(o->base ? o->base : "debian:12-slim", &io, &ref, &e);
	struct err ce;
	fs_remove_tree(work, &ce);
	free(work);
	free(cwd);
	if (r < 0)
		die(e.code == ERR_INPUT ? 2 : 1, "%s", e.msg);
	printf("%s %s %s\n", ref.built ? "built" : "found", ref.tag, ref.id);
	image_ref_free(&ref);
	return 0;
}

/* What the command inside gets by name: every setting, the proxies, SANDBOX. */
static void pass_env(struct strlist *env)
{
	static const char *const more[] = { "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
					    "no_proxy", "ALL_PROXY", "all_proxy", "SKILLC_BUILD_CA" };
	for (size_t i = 0; i < settings_count; i++)
		if (getenv(settings_table[i].name) && strcmp(settings_table[i].name, "SANDBOX"))
			strlist_push(env, settings_table[i].name);
	for (size_t i = 0; i < ARRAY_LEN(more); i++)
		if (getenv(more[i]))
			strlist_push(env, more[i]);
	const char *sb = getenv("SANDBOX");
	strlist_push_owned(env, xasprintf("SANDBOX=%s", sb && *sb ? sb : "docker"));
}

static char *self_path(void)
{
	char *exe = fs_self_exe();
	return exe ? exe : xstrdup("/proc/self/exe");
}

static int run(struct opts *o)
{
	if (!o->cmd || !o->cmd[0])
		die(2, "run needs a command after -- (e.g. -- make task=X final)");
	struct err e = { 0 };
	struct buf said = BUF_INIT;
	if (runtime_preflight(&said, &e) < 0)
		die(1, "preflight: %s", e.msg);
	fprintf(stderr, "skillc-runtime: preflight: %s\n", said.data);
	buf_free(&said);
	char *cwd = getcwd(NULL, 0), *self = self_path();
	if (!cwd)
		die(1, "cannot read the current folder");
	const char *tasks = getenv("TASKS_DIR");
	char *tasks_dir = path_normalize_abs(cwd, tasks && *tasks ? tasks : "tasks");
	runtime_task_bases(tasks_dir, &o->load);
	struct runtime_run r = { .image = o->image ? o->image : RUNTIME_REPO ":latest", .self = self, .workdir = cwd,
				 .data = o->data, .load = o->load, .start_timeout = o->start_timeout,
				 .timeout = o->timeout, .argv = o->cmd };
	pass_env(&r.env);
	for (size_t i = 0; i < o->env.n; i++)
		strlist_push(&r.env, o->env.v[i]);
	int status;
	int rc = runtime_run(&r, &status, &e);
	strlist_free(&r.env);
	free(tasks_dir);
	free(self);
	free(cwd);
	if (rc < 0)
		die(e.code == ERR_INPUT ? 2 : 1, "%s", e.msg);
	return status;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, V_RUNTIME);
	if (argc == 2 && !strcmp(argv[1], "inner")) /* the runtime container's first process */
		return runtime_inner();
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "watchdog")) /* runtime.h: started by run */
		return watchdog_main(argc, argv);
	const struct opt_cmd *c = opts_cmd_find(cmds, argc >= 2 ? argv[1] : NULL);
	if (!c) {
		fputs(usage, stderr);
		return 2;
	}
	struct opts_rest rest;
	opts_parse_or_die(c->rows, argc, argv, 2, &rest);
	if (rest.args.n)
		die(2, "unknown argument '%s' (see --help)", rest.args.v[0]);
	opts_rest_free(&rest);
	if (rest.dashdash)
		opt.cmd = argv + rest.dashdash;
	int r = c->rows == build_rows ? build(&opt) : run(&opt);
	strlist_free(&opt.load);
	strlist_free(&opt.env);
	return r;
}
