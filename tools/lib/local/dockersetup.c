#include "local/dockersetup.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/proc.h"
#include "local/arch.h"
#include "local/image.h"
#include "local/setup.h"

/* How long a trial's container may outlive the start of its agent before
 * the watchdog removes it, besides the agent's and the verifier's limits. */
#define CONTAINER_MARGIN 900

static void build_failure(struct local_trial *t, const char *msg)
{
	agent_outcome_error(&t->agent, "environment_build", "Environment build failed: %s", msg);
}

/* The L2 of t, built now when the daemon lacks it. */
static int build_images(struct local_trial *t, struct err *e)
{
	char *log = path_join(t->paths.dir, "build.log");
	char *work = path_join(t->paths.dir, ".skillc-local");
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	const char *base = getenv("IMAGE");
	struct image_opts o = { .engine = t->box.engine, .work = work, .log_fd = fd, .base = base && *base ? base : NULL };
	struct image_ref l1 = { 0 }, l2 = { 0 };
	struct arch_plan plan = { 0 };
	int r = arch_plan_build(o.engine, &t->task, o.base, &plan, e);
	if (r == 0 && plan.emulate && fd >= 0)
		dprintf(fd, "%s\n", plan.why);
	o.platform = plan.platform;
	if (r == 0)
		r = image_l1(&t->task, &o, &l1, e);
	if (r == 0)
		r = image_l2(&t->task, &t->h, &l1, &o, &l2, e);
	if (r == 0) {
		t->box.image = xstrdup(l2.id);
		t->box.image_tag = xstrdup(l2.tag);
	}
	if (fd >= 0)
		close(fd);
	image_ref_free(&l1);
	image_ref_free(&l2);
	arch_plan_free(&plan);
	free(work);
	free(log);
	return r;
}

void docker_setup_image(struct local_trial *t, const char *image)
{
	struct err e = { 0 };
	const struct engine *en = t->box.engine;
	if (engine_ping(en, NULL, &e) < 0) {
		agent_outcome_sandbox_failure(&t->agent, e.msg);
		return;
	}
	if (!image) {
		if (build_images(t, &e) < 0)
			build_failure(t, e.msg);
		return;
	}
	char id[80];
	int found = engine_image_id(en, image, id, &e);
	if (found == 0 && strstr(image, "@sha256:")) { /* pinned in IMAGE_REGISTRY: pulled, never built here */
		if (image_pull(en, image, id, &e) < 0) {
			build_failure(t, e.msg);
			return;
		}
		found = 1;
	}
	if (found < 0) {
		agent_outcome_sandbox_failure(&t->agent, e.msg);
	} else if (!found) {
		char *msg = xasprintf("the trial image '%s' does not exist in %s (make images builds it)", image, en->store);
		build_failure(t, msg);
		free(msg);
	} else {
		t->box.image = xstrdup(id);
		t->box.image_tag = xstrdup(image);
	}
}

/* The container's settings: the task's limits and workdir, the binds,
 * labels naming the trial and the run. */
static void fill_spec(struct local_trial *t, const char *init)
{
	struct container_spec *s = &t->box.spec;
	s->image = t->box.image;
	s->name = t->paths.rollout;
	s->workdir = t->task.workdir;
	s->network = t->box.share_net;
	s->cpus = t->task.cpus;
	s->memory_mb = t->task.memory_mb;
	s->init = init;
	for (size_t i = 0; i < t->box.sb.nbinds; i++) {
		const struct sandbox_bind *b = &t->box.sb.binds[i];
		strlist_push_owned(&s->binds, xasprintf("%s:%s%s", b->src, b->dest, b->rw ? "" : ":ro"));
	}
	strlist_push_owned(&s->labels, xasprintf("%s=%s", LABEL_TRIAL, t->paths.dir));
	const char *run = getenv("SKILLC_RUN");
	if (run && *run)
		strlist_push_owned(&s->labels, xasprintf("%s=%s", LABEL_RUN, run));
}

static int start(struct local_trial *t, struct err *e)
{
	char *init = local_init_program(e);
	char *self = fs_self_exe(); /* the running tool, for the watchdog to run again */
	int r = init ? 0 : -1;
	if (r == 0 && !self)
		r = err_set(e, ERR_WORK, "cannot find our own executable for the watchdog:");
	if (r == 0) {
		fill_spec(t, init);
		r = container_start(t->box.engine, &t->box.spec, &t->box.container, e);
	}
	/* a container only its watchdog or our cleanup removes; a failed start may leave one too */
	if (t->box.container || r < 0) {
		double deadline = t->task.agent_timeout + t->task.verifier_timeout + CONTAINER_MARGIN;
		struct err we;
		const char *id = t->box.container ? t->box.container : t->paths.rollout;
		if (watchdog_start(&t->box.watchdog, self ? self : "/proc/self/exe", t->box.engine, id, deadline, &we) < 0 &&
		    r == 0)
			r = err_set(e, ERR_WORK, "%s", we.msg);
		if (!t->box.container)
			t->box.container = xstrdup(t->paths.rollout); /* its name: box_cleanup removes whatever exists */
	}
	free(self);
	free(init);
	return r;
}

/* Where the image's PATH finds each of progs: one line each, empty when absent. */
static int find_in_image(const struct engine *en, const char *id, const struct strlist *progs, struct strlist *found,
			 struct err *e)
{
	struct strlist a = STRLIST_INIT;
	strlist_push(&a, en->name);
	strlist_push(&a, "exec");
	strlist_push(&a, id);
	strlist_push(&a, CONTAINER_INIT);
	strlist_push(&a, "which");
	for (size_t i = 0; i < progs->n; i++)
		strlist_push(&a, progs->v[i]);
	struct buf out = BUF_INIT;
	int r = engine_call(a.v, &out, e);
	strlist_free(&a);
	if (r > 1 || r < 0) {
		err_set(e, ERR_WORK, "cannot look for programs in the container: %.300s",
			out.len ? out.data : "no output");
		buf_free(&out);
		return -1;
	}
	char *p = out.data;
	for (size_t i = 0; i < progs->n; i++) {
		char *nl = strchr(p, '\n');
		strlist_push_owned(found, xstrndup(p, nl ? (size_t)(nl - p) : strlen(p)));
		p = nl ? nl + 1 : p + strlen(p);
	}
	buf_free(&out);
	return 0;
}

static void find_programs(struct local_trial *t)
{
	struct strlist progs = STRLIST_INIT, found = STRLIST_INIT;
	strlist_push(&progs, t->h.argv.v[0]);
	for (size_t i = 0; i < t->task.requires.n; i++)
		strlist_push(&progs, t->task.requires.v[i]);
	struct err e = { 0 };
	if (find_in_image(t->box.engine, t->box.container, &progs, &found, &e) < 0) {
		agent_outcome_sandbox_failure(&t->agent, e.msg);
	} else if (!*found.v[0]) {
		agent_outcome_error(&t->agent, "install_failure",
				    "harness command '%s' not found in the trial image %s (the \"image\" recipe of %s "
				    "must install it; see docs/containers.md)", progs.v[0], t->box.image_tag, t->h.file);
	} else {
		t->box.program = xstrdup(found.v[0]);
		struct buf missing = BUF_INIT;
		for (size_t i = 1; i < found.n; i++)
			if (!*found.v[i])
				buf_printf(&missing, "%s%s", missing.len ? ", " : "", progs.v[i]);
		if (missing.len) {
			char *msg = xasprintf("the task's image lacks programs its task.toml requires: %s", missing.data);
			agent_outcome_sandbox_failure(&t->agent, msg);
			free(msg);
		}
		buf_free(&missing);
	}
	strlist_free(&progs);
	strlist_free(&found);
}

void docker_setup_container(struct local_trial *t)
{
	struct err e = { 0 };
	if (start(t, &e) < 0)
		agent_outcome_sandbox_failure(&t->agent, e.msg);
	else
		find_programs(t);
}
