/* proc.h — run a child in its own process group under a time limit.
 * On timeout the whole group gets SIGTERM, then SIGKILL after a grace
 * period; SIGINT/SIGTERM/SIGHUP sent to us are forwarded to the group, so
 * Ctrl-C or a killed make never leaves work running behind. */
#ifndef SKILLC_PROC_H
#define SKILLC_PROC_H

#include <stdbool.h>

#include "util.h"

struct proc_spec {
	char *const *argv;  /* argv[0] is looked up in PATH */
	const char *cwd;    /* NULL: inherit */
	char *const *envp;  /* NULL: inherit */
	double timeout;     /* seconds; 0: none */
	double grace;       /* SIGTERM -> SIGKILL delay; 0: 5 s */
	int stdin_fd;       /* -1: /dev/null */
	/* Where the child's stdout and stderr go, both merged: copied to each
	 * fd >= 0 in tee[] (e.g. a log file and our stderr). All -1: inherit. */
	int tee[2];
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

/* Runs the child to completion. Returns 0 whenever the child ran (look at
 * the result), -1 when it could not be started. */
int proc_run(const struct proc_spec *spec, struct proc_result *res, struct err *e);

#endif
