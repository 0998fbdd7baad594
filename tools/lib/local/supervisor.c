#include "local/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/proc.h"
#include "local/relay.h"
#include "base/util.h"

/* One direction of the agent's stdio. */
struct pump {
	int from, to;
	struct buf b;
	bool eof;
};

static void pump_fds(struct pump *p, struct pollfd *pf, int *n, int at[2])
{
	at[0] = at[1] = -1;
	if (!p->eof && p->from >= 0 && p->b.len < (1u << 20)) {
		at[0] = *n;
		pf[(*n)++] = (struct pollfd){ p->from, POLLIN, 0 };
	}
	if (p->b.len && p->to >= 0) {
		at[1] = *n;
		pf[(*n)++] = (struct pollfd){ p->to, POLLOUT, 0 };
	}
}

static void pump_step(struct pump *p, const struct pollfd *pf, const int at[2])
{
	if (at[0] >= 0 && pf[at[0]].revents) {
		char chunk[65536];
		ssize_t got = read(p->from, chunk, sizeof chunk);
		if (got > 0)
			buf_add(&p->b, chunk, (size_t)got);
		else if (got == 0 || (errno != EAGAIN && errno != EINTR))
			p->eof = true;
	}
	if (at[1] >= 0 && pf[at[1]].revents) {
		ssize_t put = write(p->to, p->b.data, p->b.len);
		if (put > 0) {
			memmove(p->b.data, p->b.data + put, p->b.len - (size_t)put);
			p->b.len -= (size_t)put;
		} else if (put < 0 && errno != EAGAIN && errno != EINTR) {
			p->b.len = 0;
			close(p->to);
			p->to = -1;
		}
	}
}

/* The relays of --listen ADDR:PORT[,ADDR:PORT] to the socket `to`, into
 * rel (up to 4). 125 after saying why on stderr when one cannot listen,
 * -1 with e set for a spec that is not ADDR:PORT, else 0. */
static int start_relays(const char *listen_spec, const char *to, struct relay **rel, int *nrel, struct err *e)
{
	char *spec = listen_spec ? xstrdup(listen_spec) : NULL, *save = NULL;
	int rc = 0;
	for (char *one = spec ? strtok_r(spec, ",", &save) : NULL; one && *nrel < 4 && rc == 0;
	     one = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(one, ':');
		if (!colon) {
			rc = err_set(e, ERR_INPUT, "sandbox-init: '%s' is not ADDR:PORT", one);
			break;
		}
		*colon = '\0';
		char *addr = one;
		if (addr[0] == '[') {
			addr++;
			addr[strlen(addr) - 1] = '\0';
		}
		struct err le;
		int fd = relay_listen_tcp(addr, colon + 1, &le);
		if (fd < 0) {
			/* read by the runner from the agent log: a sandbox setup failure */
			fprintf(stderr, SUPERVISOR_FAILURE " cannot relay the model route inside the sandbox: %s "
				"(the task forbids network; use a model route on a port >= 1024)\n", le.msg);
			rc = 125;
		} else {
			rel[(*nrel)++] = relay_new(fd, to, NULL, NULL);
		}
	}
	free(spec);
	return rc;
}

int supervisor_run(const struct supervisor_opts *o, struct err *e)
{
	char **cmd = o->cmd;
	struct relay *rel[4] = { 0 };
	int nrel = 0;
	int rc = start_relays(o->listen, o->to, rel, &nrel, e);
	if (rc)
		return rc;
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return err_set(e, ERR_WORK, "sandbox-init: cannot create pipes:");
	struct proc_child child = { .argv = cmd, .fd = { in[0], out[1], -1 }, .death_signal = SIGKILL };
	struct err se;
	bool started;
	pid_t pid = proc_spawn(&child, &started, &se);
	if (pid < 0)
		return err_set(e, ERR_WORK, "sandbox-init: cannot fork:");
	if (!started)
		fprintf(stderr, SUPERVISOR_FAILURE " %s\n", se.msg);
	close(in[0]);
	close(out[1]);
	signal(SIGPIPE, SIG_IGN);
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	struct pump down = { 0, in[1], BUF_INIT, false }, up = { out[0], 1, BUF_INIT, false };
	for (;;) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			/* pass on what it wrote last, then end with its status */
			while (!up.eof || up.b.len) {
				struct pollfd pf[2];
				int n = 0, at[2];
				pump_fds(&up, pf, &n, at);
				if (!n || poll(pf, (nfds_t)n, 1000) <= 0)
					break;
				pump_step(&up, pf, at);
			}
			kill(-pid, SIGKILL);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		if (up.eof && !up.b.len) {
			/* an agent that just exited closes stdout first: wait a little for its status */
			for (int k = 0; k < 50; k++) {
				if (waitpid(pid, &st, WNOHANG) == pid) {
					kill(-pid, SIGKILL);
					return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				}
				usleep(10000);
			}
			/* the agent closed its stdout: it cannot speak ACP any more */
			fprintf(stderr, SUPERVISOR_FAILURE " the agent closed its stdout; ending it\n");
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			return 141;
		}
		if (down.eof && !down.b.len && down.to >= 0) {
			close(down.to); /* end of input reaches the agent */
			down.to = -1;
		}
		struct pollfd pf[8 + 4 * 130];
		int n = 0, at_down[2], at_up[2], at[4];
		pump_fds(&down, pf, &n, at_down);
		pump_fds(&up, pf, &n, at_up);
		for (int k = 0; k < nrel; k++) {
			at[k] = n;
			n += relay_pollfds(rel[k], pf + n, 130);
		}
		if (poll(pf, (nfds_t)n, 200) <= 0)
			continue;
		pump_step(&down, pf, at_down);
		pump_step(&up, pf, at_up);
		for (int k = 0; k < nrel; k++)
			relay_service(rel[k], pf + at[k], (k + 1 < nrel ? at[k + 1] : n) - at[k]);
	}
}
