#include "local/reachdoctor.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/proc.h"
#include "local/container.h"
#include "local/modelroute.h"
#include "local/relay.h"
#include "local/setup.h"

/* An image with nothing in it: skillc-init is static and bound in, and the
 * network is the container's, not the image's, so no trial image (which
 * may not be built yet) is needed. */
#define PROBE_IMAGE "skillc/doctor-probe:empty"

static int probe_image(const struct engine *en, const char *dir, struct err *e)
{
	char id[80];
	int found = engine_image_id(en, PROBE_IMAGE, id, e);
	if (found != 0)
		return found < 0 ? -1 : 0;
	char *tar = path_join(dir, "empty.tar");
	static const char zeros[10240]; /* an empty tar archive: its two end blocks, padded */
	int r = fs_write_atomic(tar, zeros, sizeof zeros, 0600, e);
	struct buf out = BUF_INIT;
	char *argv[] = { (char *)en->name, (char *)"import", tar, (char *)PROBE_IMAGE, NULL };
	if (r == 0 && engine_call(argv, &out, e) != 0)
		r = err_set(e, ERR_WORK, "%s import of an empty image: %s", en->name, buf_last_line(&out));
	buf_free(&out);
	free(tar);
	return r;
}

/* The relay's loop, in a child of ours until we kill it. */
static pid_t serve_relay(struct relay *rl)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	signal(SIGTERM, SIG_DFL);
	for (;;) {
		struct pollfd pf[130];
		int n = relay_pollfds(rl, pf, 130);
		if (poll(pf, (nfds_t)n, -1) > 0)
			relay_service(rl, pf, n);
	}
}

static void run_args(const struct engine *en, struct strlist *a, const char *init, const char *dir, const char *port,
		     bool network)
{
	strlist_push(a, en->name);
	strlist_push(a, "run");
	strlist_push(a, "--rm");
	container_limits(en, a);
	strlist_push(a, "--label");
	strlist_push(a, LABEL_KIND "=doctor");
	if (!network) {
		strlist_push(a, "--network");
		strlist_push(a, "none");
	}
	strlist_push(a, "--volume");
	strlist_push_owned(a, xasprintf("%s:%s:ro", init, CONTAINER_INIT));
	strlist_push(a, "--volume");
	strlist_push_owned(a, xasprintf("%s:/run/skillc/sock", dir));
	strlist_push(a, "--entrypoint");
	strlist_push(a, CONTAINER_INIT);
	strlist_push(a, PROBE_IMAGE);
	strlist_push(a, "sandbox-init");
	strlist_push(a, "--listen");
	strlist_push_owned(a, xasprintf("127.0.0.1:%s", port));
	strlist_push(a, "--to");
	strlist_push(a, "/run/skillc/sock/model.sock");
	strlist_push(a, "--");
	strlist_push(a, CONTAINER_INIT);
	strlist_push(a, "probe");
	strlist_push_owned(a, xasprintf("127.0.0.1:%s", port));
}

/* The container's run with the relay served meanwhile: 0, *what its answer. */
static int probe(const struct engine *en, const struct model_route *route, const char *dir, bool network, char **what,
		 struct err *e)
{
	char *init = local_init_program(e);
	char *sock = path_join(dir, "model.sock");
	int lfd = init ? relay_listen_unix(sock, e) : -1;
	free(sock);
	if (lfd < 0) {
		free(init);
		return -1;
	}
	struct relay *rl = relay_new(lfd, NULL, model_route_connect, (void *)route);
	pid_t pid = serve_relay(rl);
	struct strlist a = STRLIST_INIT;
	run_args(en, &a, init, dir, route->port, network);
	struct buf out = BUF_INIT;
	int rc = pid > 0 ? engine_call(a.v, &out, e) : err_set(e, ERR_WORK, "cannot start the relay:");
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	relay_free(rl);
	if (rc == 0)
		*what = xstrdup(buf_last_line(&out));
	else if (rc > 0)
		err_set(e, ERR_WORK, "%s", buf_last_line(&out));
	buf_free(&out);
	strlist_free(&a);
	free(init);
	return rc == 0 ? 0 : -1;
}

int reach_from_container(const struct engine *en, const char *model, bool network, char **what, struct err *e)
{
	*what = NULL;
	struct model_route route = { 0 };
	char tmpl[] = "/tmp/skillc-doctor.XXXXXX";
	char *dir = NULL;
	int r = model_route_resolve(model, &route, e);
	if (r == 0 && !(dir = mkdtemp(tmpl)))
		r = err_set(e, ERR_WORK, "cannot make a folder in /tmp:");
	if (r == 0)
		r = probe_image(en, dir, e);
	if (r == 0)
		r = probe(en, &route, dir, network, what, e);
	struct err ce;
	if (dir && fs_remove_tree(dir, &ce) < 0 && r == 0)
		r = err_set(e, ERR_WORK, "%s", ce.msg);
	model_route_free(&route);
	return r;
}
