/* supervisor.h — the agent's supervisor inside the sandbox or container,
 * run as `skillc-init sandbox-init [--listen ADDR:PORT[,ADDR:PORT] --to
 * SOCKET] -- COMMAND...` (tools/skillc-init.c). The runner binds that
 * static executable in and starts the harness under it. It copies the
 * agent's stdio, so an agent that closes its stdout is seen at once even
 * though bwrap or docker holds the pipe, and with a listen address it
 * carries the model route into a sandbox without network: each connection
 * to ADDR:PORT goes on to the Unix socket SOCKET (relay.h). */
#ifndef SKILLC_LOCAL_SUPERVISOR_H
#define SKILLC_LOCAL_SUPERVISOR_H

#include "base/util.h"

/* How the supervisor's own failures start in the agent's log, where the
 * runner looks for them. */
#define SUPERVISOR_FAILURE "skillc-init:"

/* Exit statuses of the supervisor besides the agent's own. */
#define SUPERVISOR_STDOUT_CLOSED 141  /* the agent closed its stdout */
#define SUPERVISOR_NO_RELAY 125       /* the relay cannot listen */

struct supervisor_spec {
	const char *listen;  /* "ADDR:PORT[,ADDR:PORT]" (IPv6 in brackets), or NULL */
	const char *to;      /* the Unix socket the relay passes connections to */
	char **argv;         /* the agent's command */
};

/* Runs the agent to its end, copying its stdio and serving the relay.
 * Returns the status to end with: the agent's (128 + signal when killed),
 * or one of the statuses above (the reason is on stderr, starting with
 * SUPERVISOR_FAILURE); -1 with e set when it cannot start at all. */
int supervisor_run(const struct supervisor_spec *s, struct err *e);

#endif
