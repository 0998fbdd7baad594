/* slots.h — at most N holders across processes: N lock files
 * <dir>/<name>.<i>.lock, each held with flock while in use. The kernel
 * drops a lock when its holder dies, even by kill -9, so a crash never
 * leaks a slot. Used to cap requests in flight per LLM provider under
 * make -j. */
#ifndef SKILLC_BASE_SLOTS_H
#define SKILLC_BASE_SLOTS_H

#include "base/util.h"

/* Waits until one of n slots is free and takes it; returns the held fd
 * (give it to slot_release) or -1 with e set when dir cannot be used.
 * seed varies where the search starts, so waiters spread over slots. */
int slot_acquire(const char *dir, const char *name, int n, unsigned *seed, struct err *e);
void slot_release(int fd);

/* Takes an exclusive flock on path (created if needed), waiting for it;
 * returns the fd or -1 with e set. */
int lockfile_take(const char *path, struct err *e);

#endif
