/* skillpkg.h — the skill under optimization as the fast and deep stages
 * see it: loaded from a skill folder (holding SKILL.md) or from a skills
 * root holding exactly one (the stages' S_static/, S_fast/, ...), its
 * section index as prompts show it, and the references/ files it points to. */
#ifndef SKILLC_OPTIMIZE_SKILLPKG_H
#define SKILLC_OPTIMIZE_SKILLPKG_H

#include <stdbool.h>
#include <cJSON.h>

#include "compile/package.h"
#include "skill/skilldoc.h"
#include "base/util.h"

/* The id prompts use for the root section (skilldoc's ""): no slug id has
 * it, as every slug id ends in "#N". */
#define SECTION_ROOT_ID "root"

/* Loads dir: a skill folder (SKILL.md or skill.md inside) or a root
 * holding exactly one. ERR_INPUT naming dir otherwise. */
int skillpkg_load(const char *dir, struct skill_src *s, struct err *e);

/* The section id as prompts and records write it ("" -> SECTION_ROOT_ID). */
const char *section_public_id(const struct skilldoc *d, int section);
/* The section named by a public id (SECTION_ROOT_ID, "a/b#1", or "a/b"
 * meaning "a/b#1"), or -1. */
int section_lookup(const struct skilldoc *d, const char *id);
/* Section i's own text (up to its first subsection) in [*from, *to): the
 * blank lines around it and trailing spaces left out. */
void section_own_text(const struct skilldoc *d, size_t i, size_t *from, size_t *to);

/* The section index for prompts: for each section "[id] heading" and the
 * section's own text (heading line excluded, subsections excluded), cut to
 * max_text bytes per section with "..." when longer. Appends. */
void skillpkg_index_text(const struct skilldoc *d, size_t max_text, struct buf *out);

/* The skill-relative paths under references/ that SKILL.md points to, each
 * once, in document order. */
void skillpkg_pointed_refs(const struct skilldoc *d, struct strlist *out);

/* out written as a skills root at target (built beside it, swapped in
 * whole), its tree hash stamped in hash_file. */
int skillpkg_publish(const struct skill_src *src, const struct skill_out *out, const char *target,
		     const char *hash_file, struct err *e);

#endif
