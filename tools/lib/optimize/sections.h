/* sections.h — the deep stage's scoring: every unit of the skill (a
 * section's own text, or each paragraph of a long one) scored 1-5 on five
 * dimensions by the compiler's model, each score with evidence quoted from
 * the traces of the current skill:
 *   relevance      how much of it the task needed;
 *   correctness    whether it was right, by what the agent and the verifier saw;
 *   actionability  concrete commands, paths and checks the agent could use;
 *   economy        its tokens against how much it was used;
 *   findability    whether the agent found and used it when it mattered.
 * One question per batch of SECTIONS_BATCH units; the answer
 *   {"scores": [{"unit": ID, "relevance": {"score": 1-5, "evidence": QUOTE}, ...}]}
 * A dimension counts when its score is 1-5 and its evidence is quoted from
 * the traces; an entry that names no unit of the batch or counts no
 * dimension is dropped and counted. A unit's score is the mean of its
 * counted dimensions. docs/deep.md#section-scores. */
#ifndef SKILLC_OPTIMIZE_SECTIONS_H
#define SKILLC_OPTIMIZE_SECTIONS_H

#include <cJSON.h>

#include "optimize/skillpkg.h"
#include "llm/client.h"
#include "optimize/traces.h"
#include "skill/skilldoc.h"
#include "base/util.h"

#define SECTIONS_TEMPLATE "skillc-deep-score-1"
#define SECTIONS_BATCH 8
#define SECTIONS_LONG 2000   /* own text longer than this: scored by paragraph */
#define SECTIONS_TRACES 4    /* traces shown (failures first) */

extern const char *const section_dimensions[]; /* the five names, NULL-terminated */

/* One unit: a section's own text, or one block of it ("<section id>/pN");
 * in a set of several skills the id starts with "<skill>:". */
struct unit {
	char *id;
	size_t skill;  /* index in the set (0 outside a set) */
	int section;   /* index in the document */
	int block;     /* the paragraph's block, or -1 for the whole section */
	size_t off, len;
};

/* The units of every skill of the set the stage may edit, skill by skill. */
size_t units_of_set(const struct pkgset *p, struct unit **out);
void units_free(struct unit *v, size_t n);

struct score_input {
	const struct pkgset *skill;
	const char *instruction;
	const struct trace_set *traces;  /* the current skill's trials */
	const char *model;
	int round;
};

/* Scores every unit: the scores.json document (caller frees), or NULL with
 * e set when the model could not be asked. */
cJSON *sections_score(struct llm_client *c, const struct score_input *in, struct err *e);

/* The traces shown to the deep prompts (failures first, at most
 * SECTIONS_TRACES), as prompt text, each with how it used every skill of
 * a set of several; *seen gets the squashed text quotes are checked
 * against. Caller frees both. */
char *deep_traces_text(const struct trace_set *ts, const struct pkgset *set, char **seen);

#endif
