/* arch.h — which platform SANDBOX=docker builds a task's images for, on
 * hosts whose architecture may differ from the image's (an ARM64 host, an
 * amd64 image). QEMU=auto|yes|no decides a mismatch:
 *   auto  emulate when binfmt_misc has qemu-user-static's handler for the
 *         image's architecture; else a problem saying what to install
 *   yes   emulate without looking at binfmt_misc (for a daemon whose
 *         handlers this process cannot see)
 *   no    never emulate: a mismatch is a problem
 * On a match nothing is emulated. The daemon's architecture stands for the
 * host's (it is the one that runs the containers). */
#ifndef SKILLC_LOCAL_ARCH_H
#define SKILLC_LOCAL_ARCH_H

#include <stdbool.h>

#include "base/util.h"
#include "local/engine.h"
#include "local/task.h"

enum qemu_mode { QEMU_AUTO, QEMU_YES, QEMU_NO };

/* NULL or "" is auto; anything but auto/yes/no is ERR_INPUT. */
int qemu_mode_parse(const char *s, enum qemu_mode *m, struct err *e);

/* Docker's name for an architecture given as uname -m or Docker spells it
 * (x86_64 -> amd64, aarch64 -> arm64, armv7l -> arm); others unchanged. */
const char *arch_docker_name(const char *machine);
/* binfmt_misc's (and qemu's) name for a Docker architecture (arm64 -> aarch64). */
const char *arch_qemu_name(const char *docker_arch);
/* The architecture of a platform "os/arch[/variant]" (or a bare arch), Docker's name. */
const char *arch_of_platform(const char *platform, char *buf, size_t n);

struct arch_facts {
	const char *daemon;  /* the daemon's architecture (Docker's name) */
	const char *image;   /* the image's; NULL: unknown (built or pulled natively) */
	bool binfmt;         /* qemu's handler for the image's architecture is registered */
};
struct arch_plan {
	char *platform;      /* "linux/<arch>" for builds (DOCKER_DEFAULT_PLATFORM); NULL: native */
	bool emulate;
	char *why;           /* one line for make doctor and the build log */
};
void arch_plan_free(struct arch_plan *p);

/* The decision (pure: the unit tests drive it with a table). A mismatch
 * that cannot be emulated is ERR_WORK, saying what to do. */
int arch_decide(const struct arch_facts *f, enum qemu_mode m, struct arch_plan *p, struct err *e);

/* The daemon's architecture (docker info), caller frees; NULL with e set. */
char *arch_daemon(const struct engine *en, struct err *e);

/* The plan for task t's images on this daemon: the image's architecture
 * from IMAGE (base), else the Dockerfile's FROM --platform, else its base
 * image when the daemon has it. QEMU from mode. */
int arch_plan_task(const struct engine *en, const struct task *t, const char *base, enum qemu_mode mode,
		   struct arch_plan *p, struct err *e);

/* The platform builds of t's images use: DOCKER_DEFAULT_PLATFORM when set,
 * else the plan of QEMU (the environment's). p->platform NULL: native. */
int arch_plan_build(const struct engine *en, const struct task *t, const char *base, struct arch_plan *p,
		    struct err *e);

#endif
