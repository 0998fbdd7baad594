/* setup.h — prepares a local trial before its agent starts: the
 * sandbox's filesystem (sandbox.h) with the task's files, the skill and the
 * harness's config files, the harness program, the in-sandbox supervisor
 * (supervisor.h), the model relay for a task without network, and the
 * agent's command line and environment. Each step reads what the earlier
 * ones set in the trial. A problem of the host or the harness is recorded
 * as the trial's error (sandbox_setup, install_failure); -1 means the step
 * itself failed, with e set. */
#ifndef SKILLC_LOCAL_SETUP_H
#define SKILLC_LOCAL_SETUP_H

#include "local/rollout.h"
#include "base/util.h"

/* Records a sandbox_setup error naming every program of [metadata]
 * required_programs that the sandbox's PATH lacks. */
void local_setup_preflight(struct local_trial *t);

/* Builds the sandbox in t->scratch: /root, /tmp, the workdir, the
 * Dockerfile's COPY files, /instruction.md, /logs/{agent,verifier,
 * artifacts} bound to the rollout folder, with --skill-mode with-skill a
 * private copy of the skill at /skills linked from the harness's
 * skill_paths, and the harness's config_files. ERR_INPUT: the task or
 * --skills-dir is at fault. */
int local_setup_sandbox(struct local_trial *t, struct err *e);

/* Finds the harness program in our PATH (t->program) and binds its folder
 * when it lives outside the system folders; not found: install_failure. */
int local_setup_program(struct local_trial *t, struct err *e);

/* skillc-init beside the running tool (the supervisor and a container's
 * first process, linked statically); NULL with e set when missing. */
char *local_init_program(struct err *e);

/* Binds skillc-init into the sandbox (a container gets it at creation)
 * and starts t->box.agent_argv with the supervisor (`sandbox-init`). */
int local_setup_supervisor(struct local_trial *t, struct err *e);

/* No network: a relay on a Unix socket bound into the sandbox (t->relay),
 * the supervisor told to listen on the route's port, and /etc/hosts
 * leading the route's host name to it. */
int local_setup_relay(struct local_trial *t, struct err *e);

/* The agent's environment (t->agent_env): a fixed base, proxies when it
 * shares the network, [environment.env], the harness's env, --agent-env,
 * and the model key in the harness's key_env. */
int local_setup_env(struct local_trial *t, struct err *e);

#endif
