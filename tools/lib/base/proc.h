/* proc.h — run a child in its own process group under a time limit.
 * On timeout the whole group gets SIGTERM, then SIGKILL after a grace
 * period; SIGINT/SIGTERM/SIGHUP sent to us are forwarded to the group (the
 * first of them: the child is stopping then), so Ctrl-C or a killed make
 * never leaves work running behind. */
#ifndef SKILLC_BASE_PROC_H
#define SKILLC_BASE_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "base/util.h"

struct proc_spec {
	char *const *argv;  /* argv[0] is looked up in PATH */
	const char *cwd;    /* NULL: inherit */
	char *const *envp;  /* NULL: inherit */
	double timeout;     /* seconds; 0: none */
	double grace;       /* SIGTERM -> SIGKILL delay; 0: 5 s; < 0: none (a
	                     * child that stops its own work and is waited for) */
	int stdin_fd;       /* -1: /dev/null */
	/* Where the child's stdout and stderr go, both merged: copied to each
	 * fd >= 0 in tee[] (e.g. a log file and our stderr). All -1: inherit. */
	int tee[2];
	/* split: stderr is kept apart, copied to each fd >= 0 in err_tee[]
	 * (e.g. the same log and our stderr), so a caller can pass its
	 * child's results on to stdout and its diagnostics to stderr. */
	bool split;
	int err_tee[2];
	/* When set, a stop (a signal we receive, or SIGTERM at the time limit)
	 * goes to stop() instead of the child's group: for a child standing
	 * for work elsewhere (srun), which must be stopped there. SIGKILL to
	 * the group still follows after the grace period. */
	void (*stop)(int sig, void *arg);
	void *stop_arg;
	/* Stop signals we receive meanwhile are dropped, not passed on: for a
	 * short query run while something else is being stopped or cleaned up
	 * (a stop() callback, bookkeeping after an interruption). */
	bool deaf;
	/* Progress while the child runs: tick(seconds so far, tick_arg) is
	 * called first after tick_first seconds (0: never), then after as many
	 * seconds as it returns (<= 0: no more). */
	double (*tick)(double seconds, void *arg);
	void *tick_arg;
	double tick_first;
};

struct proc_result {
	int exit_code;    /* the exit status, or 128 + signal when killed */
	int signal;       /* the signal that ended the child, else 0 */
	bool timed_out;
	int interrupted;  /* the signal we received and forwarded, else 0 */
	double seconds;
};

/* Blocks SIGINT, SIGTERM and SIGHUP for the rest of the process, so that
 * bookkeeping which must be whole (a status record, a move to
 * .incomplete/) is not cut short; proc_run still forwards them to its
 * child, and a fresh child starts with nothing blocked. */
void proc_defer_stops(void);

/* How proc_spawn starts a child. */
struct proc_child {
	char *const *argv;  /* argv[0] is looked up in PATH */
	char *const *envp;  /* NULL: ours */
	const char *cwd;    /* NULL: inherit */
	int fd[3];          /* its stdin, stdout, stderr; -1: ours */
	int death_signal;   /* what it gets when we die, even by SIGKILL */
};

/* Forks a child into its own process group and execs c->argv there, with
 * no signal blocked and SIGINT, SIGTERM and SIGPIPE at their defaults.
 * Returns its pid, or -1 with e set when it could not be forked. *started
 * is false when the child could not enter cwd or run argv[0]: then it
 * exits 127 (still to be reaped) and e says why, e.g. "cannot run 'x': No
 * such file or directory". */
pid_t proc_spawn(const struct proc_child *c, bool *started, struct err *e);

/* For a caller that waits for its child on a signalfd: blocks SIGCHLD,
 * SIGINT, SIGTERM and SIGHUP and returns a signalfd reading them
 * (SFD_CLOEXEC | flags); *old gets the mask to restore. -1 with e set
 * (nothing changed). */
int proc_signals_begin(sigset_t *old, int flags, struct err *e);
/* Closes sfd (when >= 0), drops a SIGCHLD still pending so the restored
 * mask does not deliver it, and restores old. */
void proc_signals_end(int sfd, const sigset_t *old);

/* Runs the child to completion. Returns 0 whenever the child ran (look at
 * the result), -1 when it could not be started. */
int proc_run(const struct proc_spec *spec, struct proc_result *res, struct err *e);

/* Runs a short command (a query: squeue, docker ps) under a time limit,
 * deaf (see above), its stdout and stderr merged into out. Returns 0 when
 * it ran (look at res), -1 when it could not be started. */
int proc_capture(char *const *argv, double timeout, struct buf *out, struct proc_result *res, struct err *e);

#endif
