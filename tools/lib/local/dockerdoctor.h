/* dockerdoctor.h — make doctor's checks of SANDBOX=docker and podman:
 * the engine (reachable, version; podman: rootless or not), its storage
 * driver and registry mirrors, the proxy
 * settings builds and trials get, the architecture decision (QEMU), that a
 * plain host program still runs (binfmt sane), that MODEL answers from
 * inside a container with the trial's network settings, and which of the
 * run's L1 and L2 images exist and which are due. skillc-doctor prints the lines. */
#ifndef SKILLC_LOCAL_DOCKERDOCTOR_H
#define SKILLC_LOCAL_DOCKERDOCTOR_H

#include <stdbool.h>

struct docker_doctor {
	const char *sandbox;   /* SANDBOX: the checks run for docker and podman only */
	const char *qemu;      /* QEMU */
	const char *image;     /* IMAGE (may be NULL) */
	const char *task_dir;  /* the task folder (NULL: no task given) */
	const char *run_dir;   /* the run folder, for its images/ stamps (may be NULL) */
	const char *harness;   /* HARNESS */
	const char *model;     /* MODEL: reached from inside a container (NULL or "": not checked) */
};

/* One line of the doctor: ok or a problem, the check's name (the engine's
 * name, alone or with -storage, -mirrors, ...), what it found. */
typedef void docker_doctor_report_fn(void *ctx, bool ok, const char *check, const char *msg);

void docker_doctor_run(const struct docker_doctor *d, docker_doctor_report_fn *line, void *ctx);

#endif
