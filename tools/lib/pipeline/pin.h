/* pin.h — the identity of a task tree: the git commit and dirty state when
 * TASKS_DIR lies in a git work tree, and each task's content digest. `make
 * pin` writes it to a file (DATASET_PIN); a run records its own task's
 * identity (<run>/dataset.json, shown in the report) and, with DATASET_PIN
 * set, refuses to start when a task's digest differs from the pin. The
 * digest is hash.h's hash_tree_cached one (a stat per unchanged file). */
#ifndef SKILLC_PIPELINE_PIN_H
#define SKILLC_PIPELINE_PIN_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

#define PIN_FORMAT 1

/* {"commit": "<sha>", "dirty": bool} for the work tree dir lies in (dirty:
 * anything under dir differs from the commit, untracked files included), or
 * NULL when git is missing or dir is in no work tree. Caller frees. */
cJSON *pin_git(const char *dir);

/* The digest of one task folder; cache: a per-file cache, only read (NULL: none). */
int pin_task_digest(const char *task_dir, const char *cache, char out[33], struct err *e);

/* The pin of every task of tasks_dir (each folder holding task.toml):
 * {"format", "tasks_dir", "git", "tasks": {name: digest}}. NULL with e set
 * when tasks_dir holds none or cannot be read. */
cJSON *pin_make(const char *tasks_dir, struct err *e);

/* Reads a pin file; NULL with e set (ERR_INPUT, naming the file) when it
 * is not one. */
cJSON *pin_read(const char *path, struct err *e);

/* 0 when task's digest equals the pin's; else -1 with e set (ERR_INPUT):
 * one line naming the task, the pin file and what to do. */
int pin_check(const cJSON *pin, const char *pin_path, const char *task, const char *digest, struct err *e);

#endif
