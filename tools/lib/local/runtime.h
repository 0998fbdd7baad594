/* runtime.h — the runtime image (Docker-in-Docker): skillc, make and a
 * Docker engine in one image, so a whole pipeline runs in a container
 * whose own daemon runs the trial containers. The launcher
 *   preflight  the host's daemon answers, its storage driver, and a plain
 *              host program still runs (a binfmt_misc handler gone wrong);
 *   flags      tries --privileged, then the capability set that works where
 *              the bounding set lacks CAP_SYS_RESOURCE, and says which;
 *   start      the container on the host's network, the working folder
 *              bound at the same path (tasks/, results/; .env read-only),
 *              a detached watchdog that removes it unless the start is
 *              confirmed in time, and removes it when the launcher dies;
 *   inner      its first process writes daemon.json (vfs, cgroupfs,
 *              REGISTRY_MIRROR) and runs dockerd;
 *   load       images the inner daemon needs, by docker save | docker load;
 *   run        the command, by docker exec; the container is removed after,
 *              on Ctrl-C too. */
#ifndef SKILLC_LOCAL_RUNTIME_H
#define SKILLC_LOCAL_RUNTIME_H

#include <stdbool.h>

#include "base/util.h"
#include "local/image.h"

/* Where skillc is installed inside the runtime image. */
#define RUNTIME_PREFIX "/usr/local"
#define RUNTIME_MK RUNTIME_PREFIX "/share/skillc/skillc.mk"
#define RUNTIME_REPO "skillc/runtime"

/* Builds the runtime image FROM base (a Debian 12 image: docker.io, make and
 * our libraries are installed by apt when it lacks them) with the running
 * tools and their data; tagged skillc/runtime:<content key> and
 * skillc/runtime:latest. */
int runtime_build(const char *base, const struct image_opts *o, struct image_ref *out, struct err *e);

/* The preflight, one line of what was found appended to said. */
int runtime_preflight(struct buf *said, struct err *e);

struct runtime_run {
	const char *image;          /* the runtime image */
	const char *self;           /* this tool, for the watchdog */
	const char *workdir;        /* bound at the same path; the command runs there */
	const char *data;           /* the inner daemon's data root on the host; NULL: a tmpfs */
	struct strlist load;        /* images the inner daemon gets */
	struct strlist env;         /* NAME (its value from our environment) or NAME=value */
	double start_timeout;       /* seconds until the start must be confirmed */
	double timeout;             /* seconds the whole run may take */
	char *const *argv;          /* the command ("make ..." gets -f RUNTIME_MK) */
};

/* Runs r->argv in a fresh runtime container; *exit_code gets its status.
 * Progress lines go to stderr. -1 with e set when the container could not
 * be started, its daemon did not come up, or an image would not load. */
int runtime_run(const struct runtime_run *r, int *exit_code, struct err *e);

/* The container's first process: daemon.json from REGISTRY_MIRROR, then
 * dockerd, reaping orphans until it exits. Returns the exit status. */
int runtime_inner(void);

/* The first FROM image of each task folder under tasks_dir, appended to out. */
void runtime_task_bases(const char *tasks_dir, struct strlist *out);

#endif
