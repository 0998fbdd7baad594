/* map.h — the fast stage's map step: one question per unit of groups.json
 * (a top/bottom pair, or a trace alone) to the compiler's model, whose
 * answer is typed findings:
 *   {"findings": [{"section": ID, "kind": KIND, "evidence": QUOTE, "suggestion": TEXT}]}
 * KIND is one of map_kinds; ID a section id of the set's index (skillpkg.h:
 * "<skill>:<section id>" in a set of several skills);
 * QUOTE text copied from the traces or the verifier evidence the prompt
 * showed. A finding that names no existing section, has no valid kind or
 * quotes nothing from the traces is dropped and counted. The result is
 * map/NNN.json (docs/fast.md#map-artifactsfastmapnnnjson). */
#ifndef SKILLC_OPTIMIZE_MAP_H
#define SKILLC_OPTIMIZE_MAP_H

#include <cJSON.h>

#include "optimize/skillpkg.h"
#include "llm/client.h"
#include "optimize/traces.h"
#include "skill/skilldoc.h"
#include "base/util.h"

#define MAP_TEMPLATE "skillc-fast-map-2"
#define MAP_FORMAT 1
#define MAP_MAX_FINDINGS 8

extern const char *const map_kinds[]; /* "missing", "wrong", "unclear", "unused", "too_long", NULL */
/* The index of kind in map_kinds, or -1. */
int map_kind_index(const char *kind);

struct map_input {
	const struct pkgset *skill;     /* the set: its editable skills' sections are the index */
	const char *instruction;       /* the task's instruction ("" when unknown) */
	const char *worse_instruction; /* NULL, or trace B's when it ran in another task */
	const cJSON *unit;             /* groups.json unit; NULL: the unit does not exist */
	int number;                    /* the unit's number */
	const struct trace *better, *worse; /* worse may be NULL */
	const char *model;             /* EXTERNAL_MODEL */
};

/* Asks (unless the unit does not exist) and validates: the map/NNN.json
 * document (caller frees), or NULL with e set when the model could not be
 * asked. c may be NULL when in->unit is NULL. */
cJSON *map_run(struct llm_client *c, const struct map_input *in, struct err *e);

/* Keeps the findings of an answer that name a section of an editable
 * skill of the set, have a known kind and quote seen; adds "findings",
 * "dropped" and "counts" to out. */
void map_validate(const cJSON *answer, const struct pkgset *set, const char *seen, cJSON *out);

#endif
