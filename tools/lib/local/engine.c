#include "local/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"

/* How long one CLI call may take (a create on vfs copies the image). */
#define ENGINE_CALL_TIMEOUT 300

const struct engine engine_docker = {
	.name = "docker",
	.package = "docker.io",
	.store = "the Docker daemon",
	.ping = { "version", "{{.Server.Version}}" },
	.arch = { "info", "{{.Architecture}}" },
	.driver_format = "{{.Driver}}",
	.absent_image = "No such image",
	.absent_box = "No such container",
	.step = "Step ",
	.build_env =
		"DOCKER_BUILDKIT=0", /* the legacy builder: Debian's docker.io has no BuildKit */
	.makes_workdir = true,
	.insecure_how =
		"list it in insecure-registries of the daemon's daemon.json (loopback ones need "
			"nothing)",
};

/* Root podman gives a container nofile and nproc limits of 2^20, which
 * fail to apply where its own hard limits are lower (inside a container);
 * its builds run Dockerfiles as docker's legacy builder does. */
const struct engine engine_podman = {
	.name = "podman",
	.package = "podman",
	.store = "podman's storage",
	/* no daemon: version sets up the runtime and its storage (a broken one
	 * fails it), without info's package look-ups for runc and conmon, which
	 * cost seconds on every trial */
	.ping = { "version", "{{.Client.Version}}" },
	.arch = { "version", "{{.Client.OsArch}}" },
	.driver_format = "{{.Store.GraphDriverName}}",
	.absent_image = "image not known",
	.absent_box = "no such container",
	.step = "STEP ",
	.build_env = "",
	.bare_ids = true,
	.own_limits = true,
	.rm_waits = true,
	.digest_flag = "--digestfile",
	.insecure_how =
		"give it insecure = true under its [[registry]] in registries.conf, "
			"containers-registries.conf(5)",
};

const struct engine *engine_named(const char *sandbox)
{
	if (sandbox && !strcmp(sandbox, engine_docker.name))
		return &engine_docker;
	if (sandbox && !strcmp(sandbox, engine_podman.name))
		return &engine_podman;
	return NULL;
}

int engine_call(char *const *argv, struct buf *out, struct err *e)
{
	struct proc_result pr;
	if (proc_capture(argv, ENGINE_CALL_TIMEOUT, out, &pr, e) < 0)
		return -1;
	return pr.timed_out ? 124 : pr.exit_code;
}

char *engine_where(const struct engine *en)
{
	if (en == &engine_docker) {
		const char *host = getenv("DOCKER_HOST");
		return xstrdup(host && *host ? host : "unix:///var/run/docker.sock");
	}
	char *argv[] = { (char *)en->name, (char *)"info", (char *)"--format", (char *)"{{.Store.GraphRoot}}", NULL };
	struct buf out = BUF_INIT;
	struct err e;
	char *root = engine_call(argv, &out, &e) == 0 ? xasprintf("storage %s", buf_last_line(&out))
						      : xstrdup("its storage");
	buf_free(&out);
	return root;
}

int engine_ping(const struct engine *en, char **version, struct err *e)
{
	char *argv[] = { (char *)en->name, (char *)en->ping[0], (char *)"--format", (char *)en->ping[1], NULL };
	struct buf out = BUF_INIT;
	int r = engine_call(argv, &out, e);
	if (r == 127) {
		err_set(e, ERR_WORK, "cannot run %s: %s (install it: apt-get install -y %s)", en->name, buf_last_line(&out),
			en->package);
	} else if (r > 0 && en == &engine_docker) {
		char *where = engine_where(en);
		err_set(e, ERR_WORK, "the Docker daemon at %s does not answer: %s (start it, or set DOCKER_HOST)", where,
			buf_last_line(&out));
		free(where);
	} else if (r > 0) {
		err_set(e, ERR_WORK, "podman does not run here: %s (its storage: CONTAINERS_STORAGE_CONF; docs/containers.md)",
			buf_last_line(&out));
	} else if (r == 0 && version) {
		*version = xstrdup(buf_last_line(&out));
	}
	buf_free(&out);
	return r == 0 ? 0 : -1;
}

int engine_image_id(const struct engine *en, const char *ref, char id[80], struct err *e)
{
	char *argv[] = { (char *)en->name, (char *)"image", (char *)"inspect", (char *)"--format", (char *)"{{.Id}}",
			 (char *)ref, NULL };
	struct buf out = BUF_INIT;
	int r = engine_call(argv, &out, e);
	int found = -1;
	if (r == 0) {
		const char *got = buf_last_line(&out);
		snprintf(id, 80, "%s%s", en->bare_ids && strncmp(got, "sha256:", 7) ? "sha256:" : "", got);
		found = 1;
	} else if (r > 0 && strstr(out.data, en->absent_image)) {
		found = 0;
	} else if (r > 0) {
		err_set(e, ERR_WORK, "%s image inspect %s: %s", en->name, ref, buf_last_line(&out));
	}
	buf_free(&out);
	return found;
}
