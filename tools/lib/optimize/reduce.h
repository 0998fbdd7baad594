/* reduce.h — the fast stage's reduce step: the findings of every map unit
 * grouped deterministically by (skill, section, kind), then merged by the
 * compiler's model into typed patches, bounded in number:
 *   {"patches": [{"op": "add" | "update" | "delete", "section": ID,
 *                 "find": QUOTE (update, delete: one block of the section; optional),
 *                 "text": TEXT (add, update), "why": TEXT}]}
 * Up to REDUCE_ONE_CALL findings go in one question; more get one question
 * per group. Patches are ranked by how many findings back their section
 * and cut to max_patches; malformed, duplicate and surplus patches are
 * dropped and counted. Results: reduce.json and patches.json
 * (docs/fast.md#reduce-reducejson-patchesjson). */
#ifndef SKILLC_OPTIMIZE_REDUCE_H
#define SKILLC_OPTIMIZE_REDUCE_H

#include <cJSON.h>

#include "optimize/skillpkg.h"
#include "llm/client.h"
#include "skill/skilldoc.h"
#include "base/util.h"

#define REDUCE_TEMPLATE "skillc-fast-reduce-1"
#define REDUCE_FORMAT 1
#define REDUCE_ONE_CALL 12

struct reduce_input {
	const struct pkgset *skill;  /* the set: patches name sections of its editable skills */
	cJSON *const *maps;    /* map/NNN.json documents */
	size_t nmaps;
	int max_patches;       /* FAST_MAX_PATCHES */
	long budget_tokens;    /* the profile's body budget */
	const char *model;     /* EXTERNAL_MODEL */
};

/* *reduce and *patches are the caller's to free. -1 with e set when the
 * model could not be asked. */
int reduce_run(struct llm_client *c, const struct reduce_input *in, cJSON **reduce, cJSON **patches, struct err *e);

/* The problem with one patch against the set (a sentence), or NULL when it is well formed. */
const char *patch_problem(const cJSON *p, const struct pkgset *set);

#endif
