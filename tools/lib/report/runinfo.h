/* runinfo.h — what a run folder says about its evaluated stages, read from
 * the folder alone (no settings): which trace folders it has
 * (traces/<task>/<stage>/), how many trials of each are due now (the
 * <stage>-eval.NNN targets its manifest.json lists), which skill each
 * evaluates now and that skill's hash as trials record it, and the bench
 * (inputs/config.json's BENCH).
 *
 * The skill a stage evaluates, by the run layout (docs/pipeline.md):
 *   noskill  none ("no-skill")        raw     inputs/skill/
 *   static   artifacts/static/S_static/   fast    artifacts/fast/S_fast/
 *   deep-K   artifacts/deep/round-K/candidate/
 *   final    artifacts/deep/S_final/
 * Other stages have no known skill, and their trials are not checked. */
#ifndef SKILLC_REPORT_RUNINFO_H
#define SKILLC_REPORT_RUNINFO_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/hash.h"
#include "base/util.h"

struct runinfo_stage {
	char *task, *name;  /* traces/<task>/<name>/ */
	char *skill_root;   /* run-relative skills root it evaluates; NULL: none known */
	hash_hex skill;     /* its skills' hash as trial.json records it (one skill's, or the set's); "" when unknown */
	cJSON *due;         /* index numbers due (array), from the manifest; NULL: unknown */
};

struct runinfo {
	char *dir;
	char *bench;        /* "" when the run does not say */
	char *source;       /* SKILL_SOURCE's tag from inputs/config.json, "" for the task's own skill */
	cJSON *config;      /* inputs/config.json, NULL when absent */
	cJSON *manifest;    /* manifest.json, NULL when absent */
	struct runinfo_stage *st;
	size_t n;
};

/* Reads what the folder has; a missing or damaged file leaves its part
 * unknown. Free with runinfo_free. */
void runinfo_load(struct runinfo *ri, const char *dir);
void runinfo_free(struct runinfo *ri);

/* Whether trial index i of the stage is due (true when unknown). */
bool runinfo_due(const struct runinfo_stage *s, long i);
/* How many trials are due; -1 when unknown. */
long runinfo_due_count(const struct runinfo_stage *s);

#endif
