/* box.h — what a local trial's agent and verifier run in: a bubblewrap
 * sandbox over the host's programs (sandbox.h), the host itself
 * (SANDBOX=none), or the trial's own container built from the task's
 * Dockerfile (SANDBOX=docker or podman, container.h); and how a command runs there. */
#ifndef SKILLC_LOCAL_BOX_H
#define SKILLC_LOCAL_BOX_H

#include <stdbool.h>

#include "local/container.h"
#include "local/relay.h"
#include "local/sandbox.h"
#include "base/util.h"

struct trial_box {
	enum sandbox_mode mode;
	char *bwrap;               /* bubblewrap's path (bwrap mode) */
	struct sandbox sb;         /* the host side: scratch folder and binds (every mode) */
	char *skill_source;        /* BenchFlow's skill_source: none, task_bundled, custom_runtime */
	char *effective_skills;    /* the skills folder used, absolute */
	bool share_net;            /* the agent uses the host's (docker: the daemon's) network */
	char *program;             /* the harness program, resolved where it runs */
	struct strlist agent_argv; /* the supervisor's command line before the harness's */
	struct strlist agent_env;  /* holds the model key */
	struct relay *relay;
	struct strlist unreproduced; /* Dockerfile instructions the box could not honour (RUN, ENV, ...) */
	/* container mode (docker, podman) */
	const struct engine *engine;
	char *image, *image_tag;   /* the L2 image: id and tag */
	struct container_spec spec;
	char *container;           /* its id, once started */
	struct watchdog watchdog;
};

/* How one command runs in the box. */
struct box_run {
	bool share_net;            /* bwrap: the host's network (docker: fixed at creation) */
	const char *cwd;
	const struct sandbox_bind *extra; /* bwrap: binds for this run only */
	size_t nextra;
	bool interactive;          /* docker: our stdin reaches it */
};

/* The host command line (cmd) and its environment (cmd_env) that run argv
 * in the box with the environment env; no secret of env reaches cmd. */
void box_command(const struct trial_box *b, const struct box_run *run, char *const *argv, const struct strlist *env,
		 struct strlist *cmd, struct strlist *cmd_env);

/* Ends whatever the agent left running (docker: every process of the
 * container but its first; a bwrap sandbox ends with its runner). */
int box_stop_processes(const struct trial_box *b, struct err *e);

/* Removes the container (and lets its watchdog go) and the scratch folder
 * (unless keep); keeps going on errors, returns the first. */
int box_cleanup(struct trial_box *b, bool keep, struct err *e);
void box_free(struct trial_box *b);

#endif
