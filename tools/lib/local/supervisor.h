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

/* How the supervisor's own failures start in the agent's log, where the
 * runner looks for them. */
#define SUPERVISOR_FAILURE "skillc-local sandbox-init:"

/* argv[1] is "sandbox-init". Does not return. */
int supervisor_main(int argc, char **argv);

#endif
