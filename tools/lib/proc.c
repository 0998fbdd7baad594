#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void child(const struct proc_spec *spec, int out_w)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM); /* our death (even SIGKILL) ends the child */
	sigset_t none; /* a fresh program starts with no signal blocked, whatever we block */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	int in = spec->stdin_fd >= 0 ? spec->stdin_fd : open("/dev/null", O_RDONLY);
	if (in >= 0 && in != 0)
		dup2(in, 0);
	if (out_w >= 0) {
		dup2(out_w, 1);
		dup2(out_w, 2);
	}
	if (spec->cwd && chdir(spec->cwd) < 0) {
		dprintf(2, "cannot enter '%s': %s\n", spec->cwd, strerror(errno));
		_exit(127);
	}
	execvpe(spec->argv[0], spec->argv, spec->envp ? spec->envp : environ);
	dprintf(2, "cannot run '%s': %s\n", spec->argv[0], strerror(errno));
	_exit(127);
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

int proc_run(const struct proc_spec *spec, struct proc_result *res, struct err *e)
{
	memset(res, 0, sizeof *res);
	bool tee = spec->tee[0] >= 0 || spec->tee[1] >= 0;
	int pipefd[2] = { -1, -1 };
	if (tee && pipe2(pipefd, O_CLOEXEC) < 0)
		return err_set(e, ERR_WORK, "cannot create a pipe:");

	sigset_t set, oldmask;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &oldmask);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		if (tee) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return err_set(e, ERR_WORK, "cannot create a signalfd:");
	}

	double start = now_mono();
	pid_t pid = fork();
	if (pid < 0) {
		err_set(e, ERR_WORK, "cannot fork:");
		close(sfd);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		if (tee) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (pid == 0)
		child(spec, tee ? pipefd[1] : -1);
	setpgid(pid, pid); /* also here, so no signal can race the child's own call */
	if (tee)
		close(pipefd[1]);

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
			kill(-pid, SIGTERM);
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
			if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo != SIGCHLD) {
				res->interrupted = (int)si.ssi_signo;
				kill(-pid, (int)si.ssi_signo);
				if (!kill_at)
					kill_at = now_mono() + grace;
			}
			if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
				exited = true;
				kill(-pid, SIGKILL); /* nothing of the group outlives it */
			}
		}
	}
	if (!exited)
		waitpid(pid, &status, 0);
	if (outfd >= 0)
		close(outfd);
	close(sfd);
	/* drop a SIGCHLD still pending so the restored mask does not deliver it */
	struct timespec zero = { 0, 0 };
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (sigtimedwait(&chld, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);

	res->seconds = now_mono() - start;
	if (WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
		res->exit_code = 128 + res->signal;
	}
	return 0;
}
