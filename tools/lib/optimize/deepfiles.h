/* deepfiles.h — the files of the deep stage's steps (deep.h): paths under
 * <run>/, JSON read with a hint of what to do, best.json and the trial
 * records it holds, the skill a step publishes. For deep*.c, and for
 * faststep.c's JSON files (deep_read, deep_write). */
#ifndef SKILLC_OPTIMIZE_DEEPFILES_H
#define SKILLC_OPTIMIZE_DEEPFILES_H

#include <cJSON.h>

#include "compile/package.h"
#include "base/hash.h"
#include "optimize/deep.h"
#include "optimize/traces.h"

/* <run>/rel; <run>/artifacts/deep/round-K/name; round-K/look-JJJ.json. Caller frees. */
char *deep_at(const struct deep_opts *o, const char *rel);
char *deep_round_file(const struct deep_opts *o, int round, const char *name);
char *deep_look_path(const struct deep_opts *o, int round, int look);

/* The JSON at path; NULL with e (ERR_INPUT) saying why and, after it, hint. */
cJSON *deep_read(const char *path, const char *hint, struct err *e);
/* Writes v (its folder made first), leaving an unchanged file alone. */
int deep_write(const char *path, const cJSON *v, struct err *e);
/* The body budget in tokens of skillc-profile's profile.json at profile;
 * 5000 without one. */
int deep_budget(const char *profile, long *budget, struct err *e);
/* round-K/best.json, the best skill after round K. */
cJSON *deep_read_best(const struct deep_opts *o, int round, struct err *e);
/* The task's instruction.md ("" without --task); NULL with e set. */
char *deep_instruction(const struct deep_opts *o, struct err *e);

/* The tree hash of the set under a run-relative skills root, and the hash
 * of its SKILL.md bytes (pkgset_md_hash). */
int deep_skill_hashes(const struct deep_opts *o, const char *root_rel, hash_hex tree, hash_hex md, struct err *e);
/* Records of the trials dir_rel/test-001 .. test-N (run-relative). */
cJSON *deep_records(const struct deep_opts *o, const char *dir_rel, long n, struct err *e);
/* A best.json: the skill (a run-relative skills root), where it came
 * from, its trials' records (taken, freed on error too). */
cJSON *deep_best_doc(const struct deep_opts *o, int round, const char *source, const char *skill_rel, cJSON *trials,
		     int accepted_round, struct err *e);
/* The traces a best.json names, loaded (for prompts); ts freed with traces_free even on error. */
int deep_best_traces(const struct deep_opts *o, const cJSON *best, struct trace_set *ts, struct err *e);

/* ERR_INPUT unless o->model names the compiler's model. */
int deep_need_model(const struct deep_opts *o, struct err *e);
/* Runs cmd, its output passed through: its exit status (128 + signal when
 * it was stopped), or -1 with e set when it cannot start. */
int deep_run_command(char **cmd, struct err *e);

#endif
