/* container.h — trial containers through a container engine's CLI
 * (engine.h), for SANDBOX=docker and SANDBOX=podman: one container per trial, created from its image with
 * the trial's binds, limits and labels (naming the run and the trial, so
 * the watchdog and the cleanup find exactly their containers), its first
 * process skillc-init hold; the agent and the verifier run in it with
 * docker exec (podman exec); a detached watchdog removes it when its runner
 * dies (even by SIGKILL) or its deadline passes. */
#ifndef SKILLC_LOCAL_CONTAINER_H
#define SKILLC_LOCAL_CONTAINER_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/util.h"
#include "local/engine.h"

/* Where skillc-init is inside every trial container. */
#define CONTAINER_INIT "/run/skillc/init"

/* Labels on everything skillc makes in an engine. */
#define LABEL_TRIAL "skillc.trial"  /* the rollout folder on the host */
#define LABEL_RUN "skillc.run"      /* the run folder (SKILLC_RUN), when make runs it */
#define LABEL_KIND "skillc.kind"    /* trial, l1, l2, runtime */

struct container_spec {
	const char *image;     /* id or tag */
	const char *name;
	const char *workdir;   /* created when absent */
	bool network;          /* the engine's default network; false: --network none */
	double cpus;           /* 0: no limit */
	long memory_mb;        /* 0: no limit */
	const char *init;      /* host path of skillc-init, bound read-only at CONTAINER_INIT */
	struct strlist binds;  /* "host:container[:ro]" */
	struct strlist labels; /* "key=value" */
	struct strlist hosts;  /* --add-host "name:ip" */
	struct strlist env;    /* container-wide NAME=value (no secrets: docker inspect shows them) */
};
void container_spec_free(struct container_spec *s);

/* The --ulimit flags an engine with own_limits needs on create and run
 * (none for the others). */
void container_limits(const struct engine *en, struct strlist *a);

/* Creates and starts the container; *id gets its id (caller frees). */
int container_start(const struct engine *en, const struct container_spec *s, char **id, struct err *e);

/* How a command runs in the container. The environment is split so no
 * secret reaches a command line: names that look secret are passed by
 * name only (-e NAME) with their values in the docker CLI's environment
 * (*cli_env: ours plus those); the rest as -e NAME=value. */
struct container_exec {
	const char *cwd;
	const struct strlist *env;  /* NAME=value */
	bool interactive;           /* -i: our stdin reaches it */
};
/* Appends `<engine> exec ...` running argv to cmd and fills cli_env
 * (NULL-terminated, owned by the caller: strlist_free). */
void container_exec_command(const struct engine *en, const char *id, const struct container_exec *x, char *const *argv, struct strlist *cmd,
			    struct strlist *cli_env);

/* Copies the contents of the host folder src into dest (created) in the container. */
int container_copy_in(const struct engine *en, const char *id, const char *src, const char *dest, struct err *e);
/* Ends every process in the container but its first (skillc-init hold). */
int container_stop_processes(const struct engine *en, const char *id, struct err *e);
/* rm --force; an absent container is fine. */
int container_remove(const struct engine *en, const char *id, struct err *e);

/* The watchdog of one container: a detached process (its own session, so
 * a kill of make's whole session spares it) that removes the container
 * when the runner dies without saying done, or at the deadline. */
struct watchdog {
	int fd;     /* our end of its pipe */
	pid_t pid;  /* > 0 once started (a zeroed one is not) */
};
/* Starts `self watchdog ID DEADLINE-SECONDS ENGINE` (self: the running tool). */
int watchdog_start(struct watchdog *w, const char *self, const struct engine *en, const char *id, double deadline, struct err *e);
/* Tells it the runner removes the container itself, and lets it go. */
void watchdog_done(struct watchdog *w);
/* The watchdog's own loop, run by `skillc-local watchdog ID DEADLINE
 * [ENGINE]` (default docker): reads fd 3 until EOF or "done"; returns the
 * exit status (2: ENGINE is neither docker nor podman). */
int watchdog_main(int argc, char **argv);

#endif
