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

#include "base/fs.h"

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
		if (fs_write_all(tee[i], chunk, (size_t)n) < 0) {
			/* a closed reader: the child's output still drains */
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

/* The pipes a child's output comes through: [0] its stdout (and its
 * stderr, unless split), [1] its stderr when split; -1 when closed. */
struct outputs {
	int read[2], write[2];
	const int *tee[2];
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void outputs_close(struct outputs *o)
{
	for (int i = 0; i < 2; i++) {
		close_fd(&o->read[i]);
		close_fd(&o->write[i]);
	}
}

static int outputs_open(const struct proc_spec *spec, struct outputs *o, struct err *e)
{
	*o = (struct outputs){ { -1, -1 }, { -1, -1 }, { spec->tee, spec->err_tee } };
	bool tee = spec->tee[0] >= 0 || spec->tee[1] >= 0;
	for (int i = 0; i < (spec->split ? 2 : tee); i++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0) {
			outputs_close(o);
			return err_set(e, ERR_WORK, "cannot create a pipe:");
		}
		o->read[i] = p[0];
		o->write[i] = p[1];
	}
	return 0;
}

/* The child's stdout and stderr: the pipes, or ours (-1) to inherit. */
static void outputs_child_fds(const struct outputs *o, int *out, int *err)
{
	*out = o->write[0];
	*err = o->write[1] >= 0 ? o->write[1] : o->write[0];
}

/* A child that could not start says why where its output would have gone. */
static void say_not_started(const struct outputs *o, const char *why)
{
	int i = o->read[1] >= 0 ? 1 : 0;
	if (o->read[i] < 0) {
		dprintf(2, "%s\n", why);
		return;
	}
	for (int k = 0; k < 2; k++)
		if (o->tee[i][k] >= 0)
			dprintf(o->tee[i][k], "%s\n", why);
}

/* A running child, its time limit, and the SIGKILL that follows a stop. */
struct watch {
	const struct proc_spec *spec;
	pid_t pid;
	double deadline, grace, kill_at;
	double start, next_tick; /* next_tick: when spec->tick is due, 0: never */
	bool exited, stopping;
	int status;
};

static void reaped(struct watch *w)
{
	w->exited = true;
	kill(-w->pid, SIGKILL); /* nothing of the group outlives it */
}

/* Stops the child: its group gets sig, or spec->stop is called (a child
 * standing for work elsewhere, srun, is stopped there). A stop() that runs
 * a query of its own may take the SIGCHLD that would have told us, so the
 * child is looked at again after it. SIGKILL follows after the grace. */
static void stop_child(struct watch *w, int sig)
{
	w->stopping = true;
	if (!w->spec->stop) {
		kill(-w->pid, sig);
	} else {
		w->spec->stop(sig, w->spec->stop_arg);
		if (waitpid(w->pid, &w->status, WNOHANG) == w->pid)
			reaped(w);
	}
	if (!w->kill_at && w->grace > 0)
		w->kill_at = now_mono() + w->grace;
}

/* SIGTERM at the deadline, SIGKILL a grace period after any stop; the
 * progress tick when it is due. */
static void enforce_limits(struct watch *w, struct proc_result *res)
{
	double now = now_mono();
	if (w->exited)
		return;
	if (w->next_tick && now >= w->next_tick) {
		double next = w->spec->tick(now - w->start, w->spec->tick_arg);
		w->next_tick = next > 0 ? now + next : 0;
	}
	if (w->deadline && now >= w->deadline && !res->timed_out) {
		res->timed_out = true;
		w->kill_at = 0;
		stop_child(w, SIGTERM);
	}
	if (w->kill_at && now >= w->kill_at) {
		kill(-w->pid, SIGKILL);
		w->kill_at = 0;
	}
}

/* How long poll may sleep: until the next limit, or briefly for output
 * left by stragglers once the child has exited; -1: until something comes. */
static int wait_ms(const struct watch *w, const struct proc_result *res)
{
	if (w->exited)
		return 2000;
	double next = w->deadline && !res->timed_out ? w->deadline : 0;
	if (w->kill_at && (!next || w->kill_at < next))
		next = w->kill_at;
	if (w->next_tick && (!next || w->next_tick < next))
		next = w->next_tick;
	double ms = next ? (next - now_mono()) * 1000 + 1 : -1;
	return next && ms < 0 ? 0 : (int)ms;
}

/* A stop signal for us is passed on to the child (unless spec->deaf),
 * once: a child already stopping is not told again (GNU make told twice
 * stops waiting for its jobs and exits; the grace's SIGKILL is what
 * follows a stop). SIGCHLD may mean it exited. */
static void on_signal(int sfd, struct watch *w, struct proc_result *res)
{
	struct signalfd_siginfo si;
	if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo != SIGCHLD && !w->spec->deaf) {
		res->interrupted = (int)si.ssi_signo;
		if (!w->exited && !w->stopping)
			stop_child(w, (int)si.ssi_signo);
	}
	if (!w->exited && waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		reaped(w);
}

/* Copies the child's output and enforces its limits until it has exited
 * and its output has ended (or gone quiet after it exited). */
static void follow_child(int sfd, struct watch *w, struct outputs *o, struct proc_result *res)
{
	while (!w->exited || o->read[0] >= 0 || o->read[1] >= 0) {
		enforce_limits(w, res);
		struct pollfd pf[3] = { { sfd, POLLIN, 0 }, { o->read[0], POLLIN, 0 }, { o->read[1], POLLIN, 0 } };
		int r = poll(pf, 3, wait_ms(w, res)); /* negative fds are ignored */
		if (r < 0 && errno != EINTR)
			break;
		if (r == 0 && w->exited)
			break;
		for (int i = 0; i < 2; i++)
			if (o->read[i] >= 0 && pf[i + 1].revents && !copy_out(o->read[i], o->tee[i]))
				close_fd(&o->read[i]);
		if (pf[0].revents & POLLIN)
			on_signal(sfd, w, res);
	}
	if (!w->exited)
		waitpid(w->pid, &w->status, 0);
}

static void fill_result(int status, double seconds, struct proc_result *res)
{
	res->seconds = seconds;
	if (WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
		res->exit_code = 128 + res->signal;
	}
}

int proc_run(const struct proc_spec *spec, struct proc_result *res, struct err *e)
{
	memset(res, 0, sizeof *res);
	struct outputs o;
	if (outputs_open(spec, &o, e) < 0)
		return -1;
	sigset_t oldmask;
	int sfd = proc_signals_begin(&oldmask, 0, e);
	if (sfd < 0) {
		outputs_close(&o);
		return -1;
	}
	int devnull = spec->stdin_fd < 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
	struct proc_child c = {
		.argv = spec->argv, .envp = spec->envp, .cwd = spec->cwd,
		.fd = { spec->stdin_fd >= 0 ? spec->stdin_fd : devnull, -1, -1 },
		.death_signal = SIGTERM, /* our death (even SIGKILL) ends the child */
	};
	outputs_child_fds(&o, &c.fd[1], &c.fd[2]);
	double start = now_mono();
	struct err why = { 0 };
	bool started;
	struct watch w = { .spec = spec, .pid = proc_spawn(&c, &started, &why), .grace = spec->grace ? spec->grace : 5 };
	if (devnull >= 0)
		close(devnull);
	for (int i = 0; i < 2; i++)
		close_fd(&o.write[i]); /* the child has them */
	if (w.pid < 0) {
		*e = why;
		proc_signals_end(sfd, &oldmask);
		outputs_close(&o);
		return -1;
	}
	if (!started) /* in the child's output, as if it had said so */
		say_not_started(&o, why.msg);
	w.deadline = spec->timeout > 0 ? start + spec->timeout : 0;
	w.start = start;
	w.next_tick = spec->tick && spec->tick_first > 0 ? start + spec->tick_first : 0;
	follow_child(sfd, &w, &o, res);
	outputs_close(&o);
	proc_signals_end(sfd, &oldmask);
	fill_result(w.status, now_mono() - start, res);
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
