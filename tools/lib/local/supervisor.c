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

/* Listeners for every ADDR:PORT of spec, each relaying to `to`. Returns
 * how many, or -1 when one cannot listen (said on stderr). */
static int open_relays(const char *spec, const char *to, struct relay **rel, int max)
{
	int n = 0;
	char *copy = xstrdup(spec), *save = NULL;
	for (char *one = strtok_r(copy, ",", &save); one && n < max; one = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(one, ':');
		struct err e = { 0 };
		int fd = -1;
		if (colon) {
			*colon = '\0';
			char *addr = one;
			if (addr[0] == '[') {
				addr++;
				addr[strlen(addr) - 1] = '\0';
			}
			fd = relay_listen_tcp(addr, colon + 1, &e);
		} else {
			err_set(&e, ERR_INPUT, "'%s' is not ADDR:PORT", one);
		}
		if (fd < 0) {
			/* read by the runner from the agent log: a sandbox setup failure */
			fprintf(stderr, SUPERVISOR_FAILURE " cannot relay the model route inside the sandbox: %s "
				"(the task forbids network; use a model route on a port >= 1024)\n", e.msg);
			n = -1;
			break;
		}
		rel[n++] = relay_new(fd, to, NULL, NULL);
	}
	free(copy);
	return n;
}

/* The status of an ended child, as a shell reports it. */
static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Passes on what the agent wrote last, for up to a second. */
static void drain(struct pump *up)
{
	while (!up->eof || up->b.len) {
		struct pollfd pf[2];
		int n = 0, at[2];
		pump_fds(up, pf, &n, at);
		if (!n || poll(pf, (nfds_t)n, 1000) <= 0)
			break;
		pump_step(up, pf, at);
	}
}

/* After the agent closed its stdout: its status when it exits within half
 * a second, else it is ended (it cannot speak ACP any more). */
static int closed_stdout(pid_t pid)
{
	int st;
	for (int k = 0; k < 50; k++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			kill(-pid, SIGKILL);
			return status_of(st);
		}
		usleep(10000);
	}
	fprintf(stderr, SUPERVISOR_FAILURE " the agent closed its stdout; ending it\n");
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
	return SUPERVISOR_STDOUT_CLOSED;
}

static pid_t start_agent(char **argv, struct pump *down, struct pump *up, struct err *e)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return err_set(e, ERR_WORK, "cannot create pipes:");
	struct proc_child child = { .argv = argv, .fd = { in[0], out[1], -1 }, .death_signal = SIGKILL };
	bool started;
	pid_t pid = proc_spawn(&child, &started, e);
	if (pid < 0)
		return -1;
	if (!started)
		fprintf(stderr, SUPERVISOR_FAILURE " %s\n", e->msg);
	close(in[0]);
	close(out[1]);
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	*down = (struct pump){ 0, in[1], BUF_INIT, false };
	*up = (struct pump){ out[0], 1, BUF_INIT, false };
	return pid;
}

/* One round of the loop: stdio both ways and the relays. */
static void serve(struct pump *down, struct pump *up, struct relay **rel, int nrel)
{
	struct pollfd pf[8 + 4 * 130];
	int n = 0, at_down[2], at_up[2], at[4];
	pump_fds(down, pf, &n, at_down);
	pump_fds(up, pf, &n, at_up);
	for (int k = 0; k < nrel; k++) {
		at[k] = n;
		n += relay_pollfds(rel[k], pf + n, 130);
	}
	if (poll(pf, (nfds_t)n, 200) <= 0)
		return;
	pump_step(down, pf, at_down);
	pump_step(up, pf, at_up);
	for (int k = 0; k < nrel; k++)
		relay_service(rel[k], pf + at[k], (k + 1 < nrel ? at[k + 1] : n) - at[k]);
}

int supervisor_run(const struct supervisor_spec *s, struct err *e)
{
	struct relay *rel[4] = { 0 };
	int nrel = s->listen ? open_relays(s->listen, s->to, rel, 4) : 0;
	if (nrel < 0)
		return SUPERVISOR_NO_RELAY;
	signal(SIGPIPE, SIG_IGN);
	struct pump down, up;
	pid_t pid = start_agent(s->argv, &down, &up, e);
	if (pid < 0)
		return -1;
	for (;;) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			drain(&up);
			kill(-pid, SIGKILL);
			return status_of(st);
		}
		if (up.eof && !up.b.len)
			return closed_stdout(pid);
		if (down.eof && !down.b.len && down.to >= 0) {
			close(down.to); /* end of input reaches the agent */
			down.to = -1;
		}
		serve(&down, &up, rel, nrel);
	}
}
