/* reachdoctor.h — make doctor's model reachability check for
 * SANDBOX=docker or podman: a container with the trial's network settings
 * (none, or the engine's default when the task allows internet), the model relay
 * bound in as in a trial, and skillc-init probe sending one request to the
 * route's port on the container's loopback. */
#ifndef SKILLC_LOCAL_REACHDOCTOR_H
#define SKILLC_LOCAL_REACHDOCTOR_H

#include <stdbool.h>

#include "base/util.h"
#include "local/engine.h"

/* 0 when the model answered from inside (what has its first line, e.g.
 * "HTTP/1.1 200 OK", and the network used); -1 with e saying what failed.
 * network: the task allows internet. Caller frees *what. */
int reach_from_container(const struct engine *en, const char *model, bool network, char **what, struct err *e);

#endif
