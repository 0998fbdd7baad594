/* state.h — what a run remembers about its stages: status/<stage>.json
 * (running, done, failed, interrupted, with the inputs it saw), the
 * status/<stage>.ok stamp make depends on, and manifest.json, the one-file
 * summary rebuilt from them under a lock. */
#ifndef SKILLC_PIPELINE_STATE_H
#define SKILLC_PIPELINE_STATE_H

#include <cJSON.h>

#include "pipeline/settings.h"
#include "pipeline/stages.h"
#include "base/util.h"

/* status/<stage>.json, or NULL when the stage never ran. Caller frees. */
cJSON *state_read(const char *run, const char *stage);
int state_write(const char *run, const char *stage, const cJSON *st, struct err *e);
/* "<run>/status/<stage>.ok"; caller frees. */
char *state_ok_path(const char *run, const char *stage);

/* The content hash of one run-relative input as a stage sees it: the hash
 * a .hash stamp holds, else the file's or tree's hash; "absent" if missing. */
void state_input_hash(const char *run, const char *rel, char out[33]);
/* { rel: hash } for every input of a target (and its config slice). Caller frees. */
cJSON *state_inputs(const struct run *r, const struct stage_ref *ref);

/* status/due.json: the targets the goals (space-separated stage or group
 * names, eval or final) need, which the manifest lists as due; left alone
 * when goals is empty (clean-stage, status). */
int state_write_due(const struct run *r, const char *goals, struct err *e);

/* Rewrites manifest.json from inputs/ and status/ (atomically, under
 * <run>/.manifest.lock so parallel stages never lose each other's news). */
int manifest_rebuild(const struct run *r, struct err *e);

/* Why an output of a finished stage (its stamp at ok_path) cannot be
 * trusted, in words ("is missing", "is not a hash stamp ...", "does not
 * parse (...)", "is not a complete trial"), or NULL. Only an output changed
 * after the stamp is read (a stage writes its stamp last), so a no-op make
 * reads none: an edit, garbage or a cut-short copy is caught. Caller frees. */
char *state_output_problem(const char *path, const char *ok_path);

/* { rel: hash } of the regular-file outputs (but .hash stamps) a target
 * just wrote, for status/<stage>.json's "outputs": what it published, to
 * tell a hand edit from its own bytes later. Caller frees. */
cJSON *state_output_hashes(const struct run *r, const struct stage_ref *ref);

/* For a rebuildable stage: every regular-file output's hash, stamps too,
 * and the boot, for status/<stage>.json's "written". Caller frees. */
cJSON *state_written(const struct run *r, const struct stage_ref *ref);
/* The first output of a rebuildable target that is not what it wrote, when
 * recorded ("written") in an earlier boot: the machine stopped since, maybe
 * before the unsynced bytes reached the disk. In words, or NULL. */
char *state_output_torn(const struct run *r, const struct stage_ref *ref, const cJSON *recorded);

/* The first output of a finished target (stamp at ok) that is no longer
 * what the target published: a file whose bytes differ from recorded (its
 * "outputs"), or a folder whose tree no longer matches its "<folder>.hash"
 * output. Returns its run-relative path (caller frees), or NULL; *aside
 * gets what must be set aside for the target to make it again (the
 * output folder holding it, e.g. a trial's folder for its trial.json). */
char *state_output_edited(const struct run *r, const struct stage_ref *ref, const cJSON *recorded,
			  const char *ok, char **aside);

/* Takes <run>/.lock without waiting. Returns the open fd (inherited by the
 * children, so the lock lasts while any of them works), or -1 with e naming
 * the holder when another make has it. */
int run_lock(const char *run, const char *what, struct err *e);
/* Closes every inherited .lock fd but <run>/.lock's. */
void run_lock_keep_only(const char *run);
/* Adds a second line to the lock: the targets this make brings up to date
 * (make watch waits for those), best effort. */
void run_lock_note(int fd, const char *due);
/* The targets the make holding <run>/.lock brings up to date (caller frees),
 * or NULL when no make holds it. */
char *run_lock_due(const char *run);
/* 1 when some process holds <run>/.lock, 0 when not. */
int run_is_locked(const char *run);

#endif
