#include "local/dockerdoctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/proc.h"
#include "local/arch.h"
#include "local/container.h"
#include "local/image.h"
#include "local/reachdoctor.h"
#include "local/task.h"

struct out {
	docker_doctor_report_fn *line;
	void *ctx;
	const struct engine *en;
};

/* One line; check is the engine's name for "", else "<engine>-<check>". */
static void say(const struct out *o, bool ok, const char *check, char *msg)
{
	char *name = *check ? xasprintf("%s-%s", o->en->name, check) : xstrdup(o->en->name);
	o->line(o->ctx, ok, name, msg);
	free(name);
	free(msg);
}

/* <engine> info --format FORMAT, its first line; NULL when it failed. */
static char *info(const struct engine *en, const char *format)
{
	char *argv[] = { (char *)en->name, (char *)"info", (char *)"--format", (char *)format, NULL };
	struct buf out = BUF_INIT;
	struct err e;
	char *line = NULL;
	if (engine_call(argv, &out, &e) == 0 && out.len)
		line = xstrndup(out.data, strcspn(out.data, "\r\n"));
	buf_free(&out);
	return line;
}

static bool check_daemon(const struct out *o)
{
	char *version = NULL;
	struct err e = { 0 };
	if (engine_ping(o->en, &version, &e) < 0) {
		say(o, false, "", xasprintf("%s", e.msg));
		return false;
	}
	if (o->en == &engine_docker) {
		const char *host = getenv("DOCKER_HOST");
		say(o, true, "", xasprintf("the daemon at %s answers: Docker %s", host && *host ? host : "the default socket",
					   version));
	} else {
		char *where = engine_where(o->en), *rootless = info(o->en, "{{.Host.Security.Rootless}}");
		say(o, true, "", xasprintf("podman %s runs here (%s, %s)", version, where,
					   rootless && !strcmp(rootless, "true") ? "rootless" : "as root"));
		free(rootless);
		free(where);
	}
	free(version);
	return true;
}

static void check_storage(const struct out *o)
{
	char *driver = info(o->en, o->en->driver_format);
	if (!driver) {
		say(o, false, "storage", xasprintf("%s info does not name the storage driver", o->en->name));
		return;
	}
	say(o, true, "storage", xasprintf("%s%s", driver, !strcmp(driver, "vfs") ?
		" (copies the whole image for every layer: slow and disk-hungry for big images)" : ""));
	free(driver);
}

static void check_mirrors(const struct out *o)
{
	if (o->en != &engine_docker) { /* no daemon.json: podman reads them per call */
		say(o, true, "mirrors", xasprintf("podman's registries and mirrors are in registries.conf "
						  "(containers-registries.conf(5))"));
		return;
	}
	char *m = info(o->en, "{{range .RegistryConfig.Mirrors}}{{.}} {{end}}");
	if (m) {
		size_t n = strlen(m);
		while (n && m[n - 1] == ' ')
			m[--n] = '\0';
	}
	say(o, true, "mirrors", xasprintf("the daemon's registry mirrors: %s", m && *m ? m : "none"));
	free(m);
}

/* A proxy URL without its user and password (never printed). */
static char *without_userinfo(const char *url)
{
	const char *host = strstr(url, "://");
	host = host ? host + 3 : url;
	const char *at = strchr(host, '@');
	if (!at || (strchr(host, '/') && strchr(host, '/') < at))
		return xstrdup(url);
	return xasprintf("%.*s***@%s", (int)(host - url), url, at + 1);
}

static bool loopback(const char *url)
{
	char *shown = without_userinfo(url);
	const char *at = strstr(shown, "***@"), *scheme = strstr(shown, "://");
	const char *host = at ? at + 4 : scheme ? scheme + 3 : shown;
	bool lo = !strncmp(host, "127.", 4) || !strncmp(host, "localhost", 9) || !strncmp(host, "[::1]", 5);
	free(shown);
	return lo;
}

static void check_proxy(const struct out *o)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
					     "all_proxy" };
	struct buf b = BUF_INIT;
	bool on_loopback = false;
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		const char *v = getenv(names[i]);
		if (!v || !*v)
			continue;
		char *shown = without_userinfo(v);
		buf_printf(&b, "%s%s=%s", b.len ? ", " : "", names[i], shown);
		free(shown);
		on_loopback |= loopback(v);
	}
	if (!b.len) {
		say(o, true, "proxy", xasprintf("none set (HTTP_PROXY, HTTPS_PROXY, NO_PROXY reach builds and trials)"));
	} else {
		say(o, true, "proxy", xasprintf("%s: builds get it as build args, trial containers as environment "
			"(never the model relay)%s", b.data, on_loopback ? "; a loopback proxy serves builds (--network host) "
			"but not a trial container with network: write the host's address (docs/containers.md)" : ""));
	}
	buf_free(&b);
}

static void check_arch(const struct out *o, const struct docker_doctor *d)
{
	struct err e = { 0 };
	enum qemu_mode mode;
	if (qemu_mode_parse(d->qemu, &mode, &e) < 0) {
		say(o, false, "arch", xasprintf("%s", e.msg));
		return;
	}
	if (!d->task_dir) {
		char *a = arch_daemon(o->en, &e);
		say(o, a != NULL, "arch", a ? xasprintf("the daemon runs %s images natively (task=T: the decision "
			"for that task's image)", a) : xasprintf("%s", e.msg));
		free(a);
		return;
	}
	struct task t = { 0 };
	if (task_load(d->task_dir, NULL, &t, &e) < 0) {
		say(o, false, "arch", xasprintf("%s", e.msg));
		return;
	}
	struct arch_plan p;
	if (arch_plan_task(o->en, &t, d->image && *d->image ? d->image : NULL, mode, &p, &e) < 0)
		say(o, false, "arch", xasprintf("task %s: %s", t.name, e.msg));
	else
		say(o, true, "arch", xasprintf("task %s: %s", t.name, p.why));
	arch_plan_free(&p);
	task_free(&t);
}

/* A broken binfmt_misc registration (an interpreter claiming every ELF
 * file) stops even the host's own programs: one must still run. */
static void check_binfmt(const struct out *o)
{
	char *argv[] = { (char *)"sleep", (char *)"0", NULL };
	struct buf out = BUF_INIT;
	struct proc_result pr;
	struct err e = { 0 };
	bool ok = proc_capture(argv, 30, &out, &pr, &e) == 0 && pr.exit_code == 0;
	say(o, ok, "binfmt", ok ? xasprintf("a plain host program (sleep) runs") :
		xasprintf("a plain host program (sleep) does not run: %s: check the handlers in "
			  "/proc/sys/fs/binfmt_misc", out.len ? out.data : e.msg));
	buf_free(&out);
}

/* MODEL from inside a container with the trial's network (the task's, or
 * none without task=), over the relay as a trial reaches it. */
static void check_reach(const struct out *o, const struct docker_doctor *d)
{
	if (!d->model || !*d->model)
		return;
	struct err e = { 0 };
	struct task t = { 0 };
	bool network = false;
	if (d->task_dir && task_load(d->task_dir, NULL, &t, &e) < 0) {
		say(o, false, "model", xasprintf("%s", e.msg));
		return;
	}
	if (d->task_dir)
		network = t.agent_network;
	char *what = NULL;
	const char *how = !network ? "--network none"
			  : o->en == &engine_docker ? "the daemon's default network (the task allows internet)"
						    : "podman's default network (the task allows internet)";
	if (reach_from_container(o->en, d->model, network, &what, &e) < 0)
		say(o, false, "model", xasprintf("%s is not reached from a container with %s and the model relay: "
							"%s (start the model server, or check ROUTES)", d->model, how, e.msg));
	else
		say(o, true, "model", xasprintf("%s answers a container with %s over the model relay: %s", d->model,
						       how, what));
	free(what);
	if (d->task_dir)
		task_free(&t);
}

/* One stamp of the run: exists, due, or deleted behind make's back. */
static void check_stamp(const struct out *o, const char *path, const char *what)
{
	struct stat st;
	struct err e = { 0 };
	if (stat(path, &st) < 0) {
		say(o, true, "images", xasprintf("%s: due (make images builds it)", what));
		return;
	}
	struct image_ref r;
	int found = image_stamp_check(o->en, path, &e);
	bool read = image_stamp_read(path, &r, &e) == 0;
	if (found < 0)
		say(o, false, "images", xasprintf("%s: %s", what, e.msg));
	else if (found)
		say(o, true, "images", xasprintf("%s: %s exists", what, read ? r.tag : "?"));
	else
		say(o, true, "images", xasprintf("%s: due (%s is not in %s: make images builds it again)",
						 what, read ? r.tag : "its image", o->en->store));
	if (read)
		image_ref_free(&r);
}

static void check_images(const struct out *o, const struct docker_doctor *d)
{
	if (!d->run_dir || !d->task_dir)
		return;
	const char *name = path_base(d->task_dir);
	char *l1 = xasprintf("%s/images/%s.l1.id", d->run_dir, name);
	char *l2 = xasprintf("%s/images/%s--%s.l2.id", d->run_dir, name, d->harness ? d->harness : "opencode");
	char *l1what = xasprintf("the L1 of %s", name), *l2what = xasprintf("the L2 of %s with %s", name, d->harness ? d->harness : "opencode");
	check_stamp(o, l1, l1what);
	check_stamp(o, l2, l2what);
	free(l2what);
	free(l1what);
	free(l2);
	free(l1);
}

void docker_doctor_run(const struct docker_doctor *d, docker_doctor_report_fn *line, void *ctx)
{
	struct out o = { line, ctx, engine_named(d->sandbox) };
	if (!o.en) {
		o.en = &engine_docker;
		say(&o, true, "", xasprintf("not used (SANDBOX=%s)", d->sandbox && *d->sandbox ? d->sandbox : "bwrap"));
		return;
	}
	if (!check_daemon(&o))
		return;
	check_storage(&o);
	check_mirrors(&o);
	check_proxy(&o);
	check_arch(&o, d);
	check_binfmt(&o);
	check_reach(&o, d);
	check_images(&o, d);
}
