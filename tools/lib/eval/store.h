/* store.h — complete trials filed by content key, shared by every run
 * (docs/eval.md#the-trial-store): $CACHE_DIR/trials/<2 hex>/<key>/ holds
 * a whole trial folder (trial.json, raw/, trajectory/). Entries are
 * written beside their final name and renamed in whole, so a reader sees a
 * complete entry or none, and concurrent writers of one key are harmless
 * (the first rename wins). */
#ifndef SKILLC_EVAL_STORE_H
#define SKILLC_EVAL_STORE_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/fs.h" /* tree_copy */
#include "base/slots.h"
#include "base/util.h"

/* The key: hash of the canonical JSON of the identity object
 * { task, task_hash, skill_hash ("no-skill"), harness, model, runner,
 *   settings {...that change results}, index }. */
void trialstore_key(const cJSON *identity, char out[33]);

/* $CACHE_DIR, else CACHE_DIR_DEFAULT (base/datadir.h; borrowed). */
const char *trialstore_default_dir(void);

/* "<cache>/trials/<2 hex>/<key>"; caller frees. */
char *trialstore_path(const char *cache, const char *key);

/* True when a complete entry for key exists. */
bool trialstore_has(const char *cache, const char *key);

/* Files the trial folder dir under key (hard links where the filesystem
 * allows, else copies; trial.json always a copy) with its tree hash in
 * "<entry>.sum"; an existing entry is left alone. */
int trialstore_put(const char *cache, const char *key, const char *dir, struct err *e);

/* Pay once for a trial: the in-flight lock of key, a flock on
 * <cache>/trials/<2 hex>/<key>.lock held while the trial runs (released by
 * the kernel when its holder dies, so a killed run never blocks anyone).
 * Returns the fd for trialstore_unlock. When another process holds it:
 * with wait, waits for it; without, returns -1 with *holder saying who
 * ("pid N on HOST since T"; caller frees) and e untouched. -1 with e set
 * when the lock cannot be made. Whoever waited must look in the store
 * again first, and may read what the last holder left (trialstore_lock_text)
 * before claiming the lock as its own. */
int trialstore_lock(const char *cache, const char *key, bool wait, char **holder, struct err *e);
/* Writes "pid N on HOST since T" and, on a second line, where (the
 * holder's trial folder, absolute; NULL: none) into the held lock's file,
 * for waiters. Best effort. */
void trialstore_lock_claim(int fd, const char *where);
void trialstore_unlock(int fd);

/* The last holder of a lock: its pid, host and trial folder. */
struct trial_holder {
	struct lock_holder by;
	char *where; /* owned; NULL when it wrote none */
};
/* Parses what trialstore_lock_claim wrote (both lines): 0, or -1
 * when it is not that. h->where is freed by the caller. */
int trialstore_holder_parse(const char *text, struct trial_holder *h);
/* Both lines the lock file of key holds now (caller frees; "" when none).
 * Read it while holding the lock, before the next holder writes. */
char *trialstore_lock_text(int fd);

/* Recreates the entry at dst (which must not exist), hard-linked or copied.
 * An entry whose files no longer match its sum is set aside in
 * <cache>/trials/.corrupt/ and -1 returned with e saying so. */
int trialstore_get(const char *cache, const char *key, const char *dst, struct err *e);

#endif
