/* dockersetup.h — the SANDBOX=docker (and podman) steps of a local trial's set-up
 * (setup.h does the rest, the same for every box): the trial's image (the
 * one given, else the task's L1 and the harness's L2 built now, image.h),
 * its container started with the binds setup.h collected plus its
 * watchdog (container.h), and the harness program and the task's
 * required_programs looked up inside. Failures are the trial's error, as
 * infra categories: environment_build (the image could not be had),
 * sandbox_setup (the engine, the container), install_failure (the harness
 * is not in the image). */
#ifndef SKILLC_LOCAL_DOCKERSETUP_H
#define SKILLC_LOCAL_DOCKERSETUP_H

#include "local/rollout.h"

/* The engine (t->box.engine) answers, and t->box.image is image (a ready trial image) or
 * the task's L2, built now when absent (IMAGE in the environment stands in
 * for the L1; the build's output goes to the rollout's build.log). */
void docker_setup_image(struct local_trial *t, const char *image);

/* Starts the container and its watchdog, then finds the harness program
 * (t->box.program) and the task's required_programs in it. */
void docker_setup_container(struct local_trial *t);

#endif
