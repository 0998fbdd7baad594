/* patch.h — applying one typed patch or edit to a skill through the
 * document model, checked by the static compile's guard (guard.h:
 * frontmatter bytes, every code block, heading and protected literal,
 * nothing outside the skill) plus two checks of its own:
 *   section  every section of the document before the patch is still there
 *            (but those a whole-section delete removes), and a new heading
 *            lies inside the patched section;
 *   budget   the body's token estimate stays within the budget, or does not
 *            grow when it was over already.
 * A patch that fails is rolled back: the output stays as it was. Ops:
 *   add      text appended after the section's own last block (before its
 *            subsections);
 *   update   find: the one block of the section's own text whose text
 *            (whitespace squashed) equals find, or the one that holds find
 *            when find has 20 or more characters, replaced by text;
 *            no find: the section's own text replaced by text;
 *   delete   find: that block removed; no find: the whole section removed. */
#ifndef SKILLC_OPTIMIZE_PATCH_H
#define SKILLC_OPTIMIZE_PATCH_H

#include <cJSON.h>

#include "compile/guard.h"
#include "compile/package.h"
#include "optimize/skillpkg.h"
#include "base/util.h"

/* Applies patch {op, section, find, text} to o. Fills step with "status"
 * (applied, unchanged, rolled_back, rejected), "before"/"after" sizes, and
 * "reason" (rejected: it cannot be applied, e.g. find quotes no block) or
 * "guard" {check, item, want, have} (rolled_back). Returns 0 when o changed. */
int patch_apply(const struct skill_src *base, const struct guard_base *g, struct skill_out *o, const cJSON *patch,
		long budget_tokens, cJSON *step);

/* patch_apply on the skill of the set p whose section the patch names
 * (a set's public id, skillpkg.h), guarded by that skill's g[k] and
 * changing only out[k]; step gets "skill" in a set of several. A section
 * of no skill the stage may edit is rejected. */
int patch_apply_set(const struct pkgset *p, const struct guard_base *g, struct skill_out *out, const cJSON *patch,
		    long budget_tokens, cJSON *step);

/* {lines, tokens} of a SKILL.md's body. */
cJSON *patch_size(const char *md, size_t len);

#endif
