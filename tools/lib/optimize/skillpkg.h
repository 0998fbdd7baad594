/* skillpkg.h — the skills under optimization as the fast and deep stages
 * see them: a set (every skill folder of a skills root: the stages'
 * S_static/, S_fast/, ..., or a skill folder itself, a set of one), the
 * skills of it SKILLS lets them edit, the section index as prompts show
 * it, and the references/ files the skills point to. In a set of several
 * skills a public id names its skill: "<skill folder>:<section id>"; in a
 * set of one it is the section id alone, as before sets. */
#ifndef SKILLC_OPTIMIZE_SKILLPKG_H
#define SKILLC_OPTIMIZE_SKILLPKG_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/hash.h"
#include "compile/package.h"
#include "skill/skilldoc.h"
#include "base/util.h"

/* The id prompts use for the root section (skilldoc's ""): no slug id has
 * it, as every slug id ends in "#N". */
#define SECTION_ROOT_ID "root"

/* A set of skills: v sorted by folder name; edit[k]: skill k may be
 * changed (SKILLS), the others are carried over byte for byte. */
struct pkgset {
	struct skill_src *v;
	bool *edit;
	size_t n;
};

/* Loads dir: a skill folder (SKILL.md or skill.md inside, a set of one) or
 * a skills root (every skill folder of it). only: SKILLS (NULL or "":
 * every skill may be edited); a name the set lacks is ERR_INPUT naming
 * it. ERR_INPUT naming dir when it holds no skill. Free with pkgset_free
 * (also after an error). */
int pkgset_load(const char *dir, const char *only, struct pkgset *p, struct err *e);
void pkgset_free(struct pkgset *p);
/* The public id of section `section` of skill k (caller frees). */
char *pkgset_id(const struct pkgset *p, size_t k, int section);
/* The section a public id names in an editable skill (*k gets the skill),
 * or -1 (no such skill, section, or one SKILLS leaves alone). */
int pkgset_lookup(const struct pkgset *p, const char *id, size_t *k);
/* The section index of every editable skill (skillpkg_index_text with
 * public ids; in a set of several, a "### Skill <name>" line before each). */
void pkgset_index_text(const struct pkgset *p, size_t max_text, struct buf *out);
/* The references/ paths every skill of the set points to, each once. */
void pkgset_pointed_refs(const struct pkgset *p, struct strlist *out);
/* The set's name for reports: the one skill's, or "a, b, c". Caller frees. */
char *pkgset_label(const struct pkgset *p);
/* The names of the set's skills (appends). */
void pkgset_names(const struct pkgset *p, struct strlist *out);
/* The hash of the set's SKILL.md bytes: the one skill's, or for several
 * the hash of {folder name: its SKILL.md hash}. */
void pkgset_md_hash(const struct pkgset *p, hash_hex out);

/* The section id as prompts and records write it ("" -> SECTION_ROOT_ID). */
const char *section_public_id(const struct skilldoc *d, int section);
/* The section named by a public id (SECTION_ROOT_ID, "a/b#1", or "a/b"
 * meaning "a/b#1"), or -1. */
int section_lookup(const struct skilldoc *d, const char *id);
/* Section i's own text (up to its first subsection) in [*from, *to): the
 * blank lines around it and trailing spaces left out. */
void section_own_text(const struct skilldoc *d, size_t i, size_t *from, size_t *to);

/* The section index for prompts: for each section "[<prefix>id] heading"
 * and the section's own text (heading line excluded, subsections
 * excluded), cut to max_text bytes per section with "..." when longer.
 * Appends. */
void skillpkg_index_text(const struct skilldoc *d, const char *prefix, size_t max_text, struct buf *out);

/* The skill-relative paths under references/ that SKILL.md points to, each
 * once, in document order. */
void skillpkg_pointed_refs(const struct skilldoc *d, struct strlist *out);

/* The set written as a skills root at target, skill k from out[k] (built
 * beside it, swapped in whole), its tree hash stamped in hash_file. */
int pkgset_publish(const struct pkgset *p, const struct skill_out *out, const char *target, const char *hash_file,
		   struct err *e);
/* out[k] = skill k as loaded, for every k (caller frees with pkgset_outs_free). */
struct skill_out *pkgset_outs(const struct pkgset *p);
void pkgset_outs_free(const struct pkgset *p, struct skill_out *out);

#endif
