/* edit.h — the deep stage's local edit: the weakest scored unit (lowest
 * mean score, then document order; in a set of several skills, units of
 * skills the traces used before those of skills no trace used) that is
 * not in the rejected memory gets
 * one typed edit from the compiler's model,
 *   {"edit": {"op": "update" | "add" | "delete", "find": QUOTE, "text": TEXT, "why": TEXT}}
 * confined to that unit (a paragraph unit's find is the paragraph itself),
 * applied through the document model and checked by the guard (patch.h).
 * An edit that fails — or an answer that is no edit — is rolled back and
 * the next weakest unit is tried, at most EDIT_TRIES times. The prompt
 * lists the rejected edits of earlier rounds so they are not proposed
 * again. docs/deep.md#the-edit. */
#ifndef SKILLC_OPTIMIZE_EDIT_H
#define SKILLC_OPTIMIZE_EDIT_H

#include <cJSON.h>

#include "optimize/skillpkg.h"
#include "llm/client.h"
#include "compile/leak.h"
#include "optimize/traces.h"
#include "base/util.h"

#define EDIT_TEMPLATE "skillc-deep-edit-1"
#define EDIT_TRIES 3

struct edit_input {
	const struct pkgset *skill;     /* the best set so far */
	const cJSON *scores;            /* this round's scores.json */
	const cJSON *rejected;          /* [{round, unit, edit, ...}] of earlier rounds */
	const char *instruction;
	const struct trace_set *traces;
	const char *model;
	int round;
	long budget_tokens;
	const struct leak_index *leak;  /* the leakage guard's index, or NULL (no check) */
};

/* *out gets the set's skills (pkgset_outs; free with pkgset_outs_free):
 * the one the edit held in changed, every other as it was; and *doc
 * edit.json (caller frees). -1 with e set when the model could not be
 * asked. */
int deep_edit(struct llm_client *c, const struct edit_input *in, struct skill_out **out, cJSON **doc, struct err *e);

#endif
