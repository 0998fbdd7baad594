/* noop.h — the no-op journal: a make that found nothing to do leaves, per
 * command, the stat data of every file and folder its answer read (the
 * runs' folders, their tasks, the rules data) and its last line. The next
 * make of the same command stats those paths, and when none changed (and
 * no other make holds a run) it answers with that line without starting
 * skillc-rules run, its refresh or the one make: ninja's log and git's
 * index do the same. Anything else, or any doubt, takes the whole path. */
#ifndef SKILLC_PIPELINE_NOOP_H
#define SKILLC_PIPELINE_NOOP_H

#include <stdbool.h>
#include <time.h>

#include "base/hash.h"
#include "base/strmap.h"
#include "base/util.h"

/* The journal being recorded after a no-op make. */
struct noop_rec {
	struct buf text;     /* the entries, one a line */
	struct strmap seen;  /* paths already recorded */
	struct timespec t0;  /* the file system's clock before the first stat */
	bool bad;            /* something it cannot vouch for: written nowhere */
};

/* The command's key: its goals, the names it gave, its NAME=VALUE
 * arguments (argv up to "--"), the working folder, what the last line
 * depends on besides (SKILLC_MAKE_F, SKILLC_RULES; HARNESS_PATH from
 * the environment) and the file of skillc-rules, self (new tools: new
 * key; skillc-rules passes /proc/self/exe, skillc.so its sibling). */
void noop_key(const char *goals, const char *given, const char *make_f, const char *rules,
	      const char *self, int argc, char **argv, hash_hex out);

/* 1 when RESULTS' journal for key holds and every path in it is as
 * recorded (line: its last line, with the newline), 0 when not. Reads one
 * file, stats each path, takes no lock and writes nothing. */
int noop_probe(const char *results, const hash_hex key, struct buf *line);
/* Removes the command's journal (a make that works will change things). */
void noop_forget(const char *results, const hash_hex key);

void noop_begin(struct noop_rec *n);
/* path (absent too) and, for a folder, everything under it. */
void noop_add_tree(struct noop_rec *n, const char *path);
/* A run's folder: as noop_add_tree, without what no answer reads (its
 * logs/ and the records status/<stage>.json, written by rename only). */
void noop_add_run(struct noop_rec *n, const char *run);
/* path alone: present with its stat data, or absent. */
void noop_add_path(struct noop_rec *n, const char *path);
/* run's .lock must be free for the journal to answer. */
void noop_add_lock(struct noop_rec *n, const char *run);
/* Writes the journal (no fsync: a lost one costs a whole make) unless
 * something was doubtful; frees n either way. */
void noop_commit(struct noop_rec *n, const char *results, const hash_hex key, const char *line);

#endif
