/* slots.h — at most N holders across processes: N lock files
 * <dir>/<name>.<i>.lock, each held with flock while in use. The kernel
 * drops a lock when its holder dies, even by kill -9, so a crash never
 * leaks a slot. Used to cap requests in flight per LLM provider under
 * make -j. */
#ifndef SKILLC_BASE_SLOTS_H
#define SKILLC_BASE_SLOTS_H

#include <stdbool.h>

#include "base/util.h"

/* Waits until one of n slots is free and takes it; returns the held fd
 * (give it to slot_release) or -1 with e set when dir cannot be used.
 * seed varies where the search starts, so waiters spread over slots. */
int slot_acquire(const char *dir, const char *name, int n, unsigned *seed, struct err *e);
void slot_release(int fd);

/* Takes an exclusive flock on path (created if needed), waiting for it;
 * returns the fd or -1 with e set. */
int lockfile_take(const char *path, struct err *e);

/* Who holds a lock file, in the one form every lock of ours writes: the
 * taker's line "<pre>pid N on HOST since WHEN<post>" at the file's start
 * (post may add lines), read back by whoever finds the lock busy. */
struct lock_holder {
	long pid;
	char host[256];
};
/* Writes that line over the held lock's file. Best effort: only messages
 * read it. */
void lock_claim(int fd, const char *pre, const char *post);
/* The file's text, at most max bytes (caller frees; "" when empty). */
char *lock_text(int fd, size_t max);
/* Its first line (caller frees), or fallback when there is none. */
char *lock_first_line(int fd, const char *fallback);
/* pid and host from text that starts with a line lock_claim wrote with pre;
 * *end (may be NULL) gets the offset after WHEN. 0, or -1 when it is not
 * such a line. */
int lock_holder_parse(const char *text, const char *pre, struct lock_holder *h, int *end);
/* True when h is another process on this host. */
bool lock_holder_is_other_here(const struct lock_holder *h);

#endif
