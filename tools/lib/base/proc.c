#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Copies one read's worth; returns 0 at end of output. */
static int copy_out(int from, const int tee[2])
{
	char chunk[8192];
	ssize_t n = read(from, chunk, sizeof chunk);
	if (n < 0 && errno == EINTR)
		return 1;
	if (n <= 0)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (tee[i] < 0)
			continue;
		const char *p = chunk;
		size_t left = (size_t)n;
		while (left) {
			ssize_t w = write(tee[i], p, left);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			p += w;
			left -= (size_t)w;
		}
	}
	return 1;
}

/* Tells the parent why the child could not start, then ends it. */
static noreturn void child_failed(int report, const char *what, const char *name)
{
	struct err e;
	err_set(&e, ERR_WORK, "%s '%s':", what, name);
	if (write(report, e.msg, strlen(e.msg)) < 0) {
		/* nobody to tell */
	}
	_exit(127);
}

static noreturn void child(const struct proc_child *c, int report)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, c->death_signal);
	sigset_t none; /* a fresh program starts with no signal blocked, whatever we block */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	for (int i = 0; i < 3; i++)
		if (c->fd[i] >= 0 && c->fd[i] != i)
			dup2(c->fd[i], i);
	if (c->cwd && chdir(c->cwd) < 0)
		child_failed(report, "cannot enter", c->cwd);
	execvpe(c->argv[0], c->argv, c->envp ? c->envp : environ);
	child_failed(report, "cannot run", c->argv[0]);
}

pid_t proc_spawn(const struct proc_child *c, bool *started, struct err *e)
{
	int rep[2];
	if (pipe2(rep, O_CLOEXEC) < 0)
		return err_set(e, ERR_WORK, "cannot create a pipe:");
	pid_t pid = fork();
	if (pid < 0) {
		err_set(e, ERR_WORK, "cannot fork:");
		close(rep[0]);
		close(rep[1]);
		return -1;
	}
	if (pid == 0)
		child(c, rep[1]);
	setpgid(pid, pid); /* also here, so no signal can race the child's own call */
	close(rep[1]);
	/* the report pipe closes unread at a successful exec */
	ssize_t n;
	while ((n = read(rep[0], e->msg, sizeof e->msg - 1)) < 0 && errno == EINTR)
		;
	close(rep[0]);
	*started = n <= 0;
	if (n > 0) {
		e->msg[n] = '\0';
		e->code = ERR_WORK;
	}
	return pid;
}

int proc_signals_begin(sigset_t *old, int flags, struct err *e)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | flags);
	if (sfd < 0) {
		err_set(e, ERR_WORK, "cannot create a signalfd:");
		sigprocmask(SIG_SETMASK, old, NULL);
	}
	return sfd;
}

void proc_signals_end(int sfd, const sigset_t *old)
{
	if (sfd >= 0)
		close(sfd);
	struct timespec zero = { 0, 0 };
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, old, NULL);
}

void proc_defer_stops(void)
{
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
}

/* Stops the child (through spec->stop when set); true when it turns out to
 * have ended meanwhile: a stop() that runs a query of its own may take the
 * SIGCHLD that would have told us. */
static bool stop_child(const struct proc_spec *spec, pid_t pid, int sig, int *status)
{
	if (!spec->stop) {
		kill(-pid, sig);
		return false;
	}
	spec->stop(sig, spec->stop_arg);
	return waitpid(pid, status, WNOHANG) == pid;
}

int proc_run(const struct proc_spec *spec, struct proc_result *res, struct err *e)
{
	memset(res, 0, sizeof *res);
	bool tee = spec->tee[0] >= 0 || spec->tee[1] >= 0;
	int pipefd[2] = { -1, -1 };
	if (tee && pipe2(pipefd, O_CLOEXEC) < 0)
		return err_set(e, ERR_WORK, "cannot create a pipe:");
	sigset_t oldmask;
	int sfd = proc_signals_begin(&oldmask, 0, e);
	if (sfd < 0) {
		if (tee) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}

	int devnull = spec->stdin_fd < 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
	struct proc_child c = {
		.argv = spec->argv, .envp = spec->envp, .cwd = spec->cwd,
		.fd = { spec->stdin_fd >= 0 ? spec->stdin_fd : devnull, pipefd[1], pipefd[1] },
		.death_signal = SIGTERM, /* our death (even SIGKILL) ends the child */
	};
	double start = now_mono();
	struct err why = { 0 };
	bool started;
	pid_t pid = proc_spawn(&c, &started, &why);
	if (devnull >= 0)
		close(devnull);
	if (pid < 0) {
		*e = why;
		proc_signals_end(sfd, &oldmask);
		if (tee) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (tee)
		close(pipefd[1]);
	if (!started) { /* in the child's output, as if it had said so */
		if (!tee)
			dprintf(2, "%s\n", why.msg);
		for (int i = 0; tee && i < 2; i++)
			if (spec->tee[i] >= 0)
				dprintf(spec->tee[i], "%s\n", why.msg);
	}

	double deadline = spec->timeout > 0 ? start + spec->timeout : 0;
	double grace = spec->grace > 0 ? spec->grace : 5;
	double kill_at = 0; /* when SIGKILL follows the SIGTERM already sent */
	int status = 0;
	bool exited = false;
	int outfd = tee ? pipefd[0] : -1;

	while (!exited || outfd >= 0) {
		double now = now_mono();
		if (!exited && deadline && now >= deadline && !res->timed_out) {
			res->timed_out = true;
			if ((exited = stop_child(spec, pid, SIGTERM, &status)))
				kill(-pid, SIGKILL); /* nothing of the group outlives it */
			kill_at = now + grace;
		}
		if (!exited && kill_at && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
		double next = 0;
		if (!exited && deadline && !res->timed_out)
			next = deadline;
		if (!exited && kill_at && (!next || kill_at < next))
			next = kill_at;
		int wait_ms = -1;
		if (exited)
			wait_ms = 2000; /* output left by stragglers: drain briefly */
		else if (next)
			wait_ms = (int)((next - now) * 1000) + 1;

		struct pollfd pf[2] = { { sfd, POLLIN, 0 }, { outfd, POLLIN, 0 } };
		int np = outfd >= 0 ? 2 : 1;
		int r = poll(pf, (nfds_t)np, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r == 0 && exited)
			break;
		if (np == 2 && pf[1].revents && !copy_out(outfd, spec->tee)) {
			close(outfd);
			outfd = -1;
		}
		if (pf[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			bool gone = false;
			if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo != SIGCHLD && !spec->deaf) {
				res->interrupted = (int)si.ssi_signo;
				gone = !exited && stop_child(spec, pid, (int)si.ssi_signo, &status);
				if (!kill_at)
					kill_at = now_mono() + grace;
			}
			if (!exited && (gone || waitpid(pid, &status, WNOHANG) == pid)) {
				exited = true;
				kill(-pid, SIGKILL); /* nothing of the group outlives it */
			}
		}
	}
	if (!exited)
		waitpid(pid, &status, 0);
	if (outfd >= 0)
		close(outfd);
	proc_signals_end(sfd, &oldmask);

	res->seconds = now_mono() - start;
	if (WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
		res->exit_code = 128 + res->signal;
	}
	return 0;
}

int proc_capture(char *const *argv, double timeout, struct buf *out, struct proc_result *res, struct err *e)
{
	const char *dir = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/skillc-capture.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		err_set(e, ERR_WORK, "cannot create a temporary file '%s':", tmpl);
		free(tmpl);
		return -1;
	}
	unlink(tmpl);
	free(tmpl);
	struct proc_spec sp = { .argv = argv, .timeout = timeout, .grace = 2, .stdin_fd = -1, .tee = { fd, -1 },
				.deaf = true };
	int r = proc_run(&sp, res, e);
	if (r == 0) {
		lseek(fd, 0, SEEK_SET);
		char chunk[4096];
		ssize_t n;
		while ((n = read(fd, chunk, sizeof chunk)) > 0)
			buf_add(out, chunk, (size_t)n);
	}
	close(fd);
	return r;
}
