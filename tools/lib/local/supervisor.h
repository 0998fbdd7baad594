/* supervisor.h — the agent's supervisor inside the sandbox, run as
 *   skillc-local sandbox-init [--listen ADDR:PORT[,ADDR:PORT] --to SOCKET] -- COMMAND...
 * The runner binds its own executable into the sandbox and starts the
 * harness under it. It copies the agent's stdio, so an agent that closes
 * its stdout is seen at once even though bwrap holds the pipe, and with
 * --listen it carries the model route into a sandbox without network:
 * each connection to ADDR:PORT goes on to the Unix socket SOCKET (relay.h).
 * It ends with the agent's exit status (141 when the agent closed its
 * stdout, 125 when the relay cannot listen, 127 when COMMAND cannot run). */
#ifndef SKILLC_LOCAL_SUPERVISOR_H
#define SKILLC_LOCAL_SUPERVISOR_H

#include "base/util.h"

/* How the supervisor's own failures start in the agent's log, where the
 * runner looks for them. */
#define SUPERVISOR_FAILURE "skillc-local sandbox-init:"

struct supervisor_opts {
	char **cmd;          /* COMMAND..., NULL-terminated */
	const char *listen;  /* ADDR:PORT[,ADDR:PORT], or NULL */
	const char *to;      /* the Unix socket behind them */
};

/* Runs cmd under the supervisor until it ends. Returns the status to end
 * with (the agent's, 141, 125 or 127 as above), or -1 with e set when the
 * supervisor itself cannot start (bad --listen, no pipes, no fork). */
int supervisor_run(const struct supervisor_opts *o, struct err *e);

#endif
