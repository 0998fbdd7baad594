/* skillc-image — the baked images of SANDBOX=docker (or podman) trials as
 * make targets (local/image.h): the task's L1 and the harness's L2, each
 * found in the engine by its content tag or built, and recorded in a stamp file
 * ("<image id> <tag>") that is rewritten only when it changes. Run by the
 * l1-image and l2-image stages (make images); see docs/containers.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "local/arch.h"
#include "local/image.h"
#include "local/launch.h"
#include "local/task.h"

static const char usage[] =
	"usage: skillc-image l1 --task DIR --out STAMP [--image IMAGE] [--sandbox docker|podman]\n"
	"       skillc-image l2 --task DIR --harness NAME --l1 STAMP --out STAMP [--sandbox docker|podman]\n"
	"       skillc-image check STAMP...\n"
	"\n"
	"l1: the task's environment/ built from its own Dockerfile (without environment/skills;\n"
	"the skill is mounted), or IMAGE, tagged skillc/l1-<task>:<content key>. l2: the L1 with\n"
	"the harness installed by the \"image\" recipe of its harness file, tagged\n"
	"skillc/l2-<task>--<harness>:<key>. An image the daemon has under its tag is not built\n"
	"again; the build's output goes to stdout. STAMP gets \"<image id> <tag>\" (rewritten\n"
	"only when it changes). check: exit 0 when every stamp's image is in the daemon under its\n"
	"tag, 1 when one is not (it names them), 2 when the daemon cannot be asked.\n"
	"IMAGE_REGISTRY=host:port[/prefix]: each image is also pushed there, its digest kept in STAMP;\n"
	"check then pulls a pinned image the daemon lacks by digest instead of calling it gone.\n"
	"Environment: SANDBOX, DOCKER_HOST, CONTAINERS_STORAGE_CONF and "
		"CONTAINERS_REGISTRIES_CONF (podman),\nHTTP_PROXY/HTTPS_PROXY/NO_PROXY "
	"(build args), DOCKER_DEFAULT_PLATFORM, QEMU,\n"
	"HARNESS_PATH, SKILLC_RULES. Exit: 0 done, 1 the build failed (environment_build), 2 bad input.\n";

static struct opts {
	const char *kind, *task, *harness, *l1, *out, *image, *sandbox;
	const struct engine *engine;
} opt;

#define TASK_ROW OPT_STRING("task", &opt.task, "DIR", "the task folder")
#define OUT_ROW OPT_STRING("out", &opt.out, "STAMP", "the stamp file: \"<image id> <tag>\"")
#define SANDBOX_ROW OPT_ONE_OF("sandbox", &opt.sandbox, "docker|podman", \
			       "the engine (default: SANDBOX when it names one, else docker)")
static const struct opt l1_rows[] = {
	TASK_ROW, OUT_ROW,
	OPT_STRING("image", &opt.image, "IMAGE", "l1: this image, not the task's Dockerfile"),
	SANDBOX_ROW, OPT_END,
};
static const struct opt l2_rows[] = {
	TASK_ROW,
	OPT_STRING("harness", &opt.harness, "NAME", "l2: the harness to install"),
	OPT_STRING("l1", &opt.l1, "STAMP", "l2: the L1's stamp"),
	OUT_ROW, SANDBOX_ROW, OPT_END,
};
static const struct opt none[] = { OPT_END };
static const struct opt_cmd cmds[] = {
	{ "l1", l1_rows }, { "l2", l2_rows }, { "check", none }, OPT_CMD_END,
};

/* The engine SANDBOX names; docker when it names none. */
static const struct engine *env_engine(void)
{
	const struct engine *en = engine_named(getenv("SANDBOX"));
	return en ? en : &engine_docker;
}

/* Builds (or finds) the image o asks for into *ref. */
static int make_image(const struct opts *o, struct image_ref *ref, struct err *e)
{
	struct task t;
	struct launch h = { 0 };
	struct image_ref l1 = { 0 };
	char *work = path_dir(o->out);
	struct image_opts io = { .engine = o->engine, .work = work, .log_fd = 1, .base = o->image };
	struct arch_plan plan = { 0 };
	int r = task_load(o->task, NULL, &t, e);
	if (r == 0 && (r = arch_plan_build(io.engine, &t, o->image, &plan, e)) == 0) {
		io.platform = plan.platform;
		if (plan.emulate)
			printf("%s\n", plan.why);
	}
	if (r == 0 && !strcmp(o->kind, "l1"))
		r = image_l1(&t, &io, ref, e);
	else if (r == 0 && (r = launch_load(o->harness, &h, e)) == 0 && (r = image_stamp_read(o->l1, &l1, e)) == 0)
		r = image_l2(&t, &h, &l1, &io, ref, e);
	image_ref_free(&l1);
	launch_free(&h);
	task_free(&t);
	arch_plan_free(&plan);
	free(work);
	return r;
}

static int build(const struct opts *o)
{
	struct err e = { 0 };
	struct image_ref ref = { 0 };
	const char *registry = getenv("IMAGE_REGISTRY");
	char *dir = path_dir(o->out);
	int r = fs_mkdirs(dir, &e);
	if (r == 0)
		r = make_image(o, &ref, &e);
	if (r == 0 && registry && *registry) /* other nodes pull it by digest instead of building it */
		r = image_publish(o->engine, &ref, registry, dir, &e);
	free(dir);
	if (r == 0) {
		printf("%s %s %s%s%s\n", ref.built ? "built" : "found", ref.tag, ref.id, ref.pinned ? ", pushed as " : "",
		       ref.pinned ? ref.pinned : "");
		r = fflush(stdout) == 0 ? image_stamp_write(o->out, &ref, &e) : err_set(&e, ERR_WORK, "cannot write stdout:");
	}
	image_ref_free(&ref);
	if (r < 0 && e.code == ERR_INPUT)
		die_err(&e);
	if (r < 0)
		die(1, "environment_build: %s", e.msg);
	return 0;
}

static int check(const struct strlist *stamps)
{
	int status = 0;
	for (size_t i = 0; i < stamps->n; i++) {
		struct err e = { 0 };
		int ok = image_stamp_check(env_engine(), stamps->v[i], &e);
		if (ok < 0)
			die(2, "%s", e.msg);
		if (!ok) {
			printf("%s: its image is gone from %s\n", stamps->v[i],
			       env_engine()->store);
			status = 1;
		}
	}
	return status;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, V_IMAGE);
	const struct opt_cmd *c = opts_cmd_find(cmds, argc >= 2 ? argv[1] : NULL);
	if (!c) {
		fputs(usage, stderr);
		return 2;
	}
	if (c->rows == none) {
		struct strlist stamps;
		opts_args_or_die(none, argc, argv, 2, &stamps);
		int status = check(&stamps);
		strlist_free(&stamps);
		return status;
	}
	opt.kind = c->name;
	opts_parse_or_die(c->rows, argc, argv, 2, NULL);
	opt.engine = opt.sandbox ? engine_named(opt.sandbox) : env_engine();
	bool l2 = c->rows == l2_rows;
	if (!opt.task || !opt.out || (l2 && (!opt.harness || !opt.l1)))
		die(2, "%s needs --task and --out%s (see --help)", opt.kind,
		    l2 ? ", --harness and --l1" : "");
	return build(&opt);
}
