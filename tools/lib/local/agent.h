/* agent.h — runs a local trial's agent: the harness under the
 * supervisor in the sandbox, driven over ACP (acp.h) with the task's
 * instruction, its stderr in the rollout's agent/<harness>.txt. */
#ifndef SKILLC_LOCAL_AGENT_H
#define SKILLC_LOCAL_AGENT_H

#include "local/rollout.h"

/* Runs the agent to its end and records in t->agent how it
 * ended as BenchFlow names it: timeout, idle_timeout (both with an
 * agent_timeout trajectory line), pipe_closed, acp_error, sandbox_setup
 * (bwrap or the supervisor could not start), infra_failure. */
void local_agent_run(struct local_trial *t);

#endif
