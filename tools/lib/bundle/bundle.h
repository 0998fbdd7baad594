/* bundle.h — an artifact bundle of runs (docs/export.md): one folder,
 * packed with the system tar (.tar.gz or .tar.zst), holding
 *   runs/<run>/      what a reader needs of each run folder: manifest,
 *                    settings, dataset.json, inputs/ (the raw skill and
 *                    config), artifacts/ (every stage's skill), status/,
 *                    the report and its charts, and each trial's
 *                    trial.json and trajectory/ (ACP, LLM, ATIF), already
 *                    redacted when published
 *   harbor/<run>/<task>--<stage>/   the same trials as Harbor job folders
 *                    (result.json, agent/trajectory.json in ATIF)
 *   summary.{json,md,csv}   recomputed from the trial records alone
 *   dataset-pin.json (when given), MANIFEST.xxh128 (every other file's
 *   XXH3-128, the lines `xxhsum -H2` prints). */
#ifndef SKILLC_BUNDLE_BUNDLE_H
#define SKILLC_BUNDLE_BUNDLE_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

#define BUNDLE_MANIFEST "MANIFEST.xxh128"

/* Copies what a reader needs of the run folder run into dst (created). */
int bundle_copy_run(const char *run, const char *dst, struct err *e);

/* Writes the trials the summary counts of the copied run as Harbor job
 * folders under jobs/ (created), one per task and stage, the row's bench
 * as their dataset (source). */
int bundle_harbor_jobs(const char *run, const char *jobs, struct err *e);

struct results_table;
/* The results table of the runs and Harbor jobs under root (as
 * bundle_summary); free with results_free. */
void bundle_table(const char *root, bool runs, bool jobs, struct results_table *tb);

/* The summary of the runs and Harbor jobs under root/runs and root/harbor
 * (runs false: of root/harbor alone; jobs false: of root/runs alone), from
 * the trial records alone (no route prices). Caller frees. */
cJSON *bundle_summary(const char *root, bool runs, bool jobs);

/* Writes root/MANIFEST.xxh128 over every file under root. */
int bundle_manifest_write(const char *root, struct err *e);

/* Checks every file against the manifest: one line a problem (a changed,
 * missing or unlisted file) is pushed to bad. -1 with e set when the
 * manifest cannot be read. */
int bundle_manifest_check(const char *root, struct strlist *bad, struct err *e);

/* tar of dir's folder name into out (.tar.gz or .tar.zst, by its name),
 * written beside it and renamed into place. */
int bundle_pack(const char *dir, const char *out, struct err *e);
/* Unpacks file into the folder into (which exists). */
int bundle_unpack(const char *file, const char *into, struct err *e);

/* True when out names a .tar.gz, .tgz or .tar.zst. */
bool bundle_name_ok(const char *out);

#endif
