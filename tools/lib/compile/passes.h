/* passes.h — the deterministic passes of the static compile. Each pass
 * reads the profile, changes a struct skill_out (SKILL.md and added files;
 * the frontmatter bytes are never touched) and records what it did in a
 * JSON object. The driver (skillc-static) runs the selected passes in the
 * order of pass_table, runs the guard after each and rolls a failing pass
 * back. See docs/static.md for the scoring and the texts written.
 *
 *   structure  heading levels without gaps, at most one H1, one blank line
 *              between blocks outside code, one at the start of the body,
 *              none at the end.
 *   refs       file references in Markdown text (links, code spans, prose;
 *              never code blocks): "./x", "{baseDir}/x", "$SKILL_DIR/x"
 *              become "x" (only when x exists in the skill, and only with
 *              prefers explicit_paths); references to files the skill does
 *              not have are reported as dangling, "../" paths that leave
 *              the skill as escaping; nothing is followed on disk.
 *   budget     while the body is over the profile's budget, moves whole
 *              low-value sections to references/<slug>.md, leaving the
 *              heading and a one-line pointer saying when to read it.
 *   hoist      moves gotchas / pitfalls / critical-notes sections before
 *              the first working section of their parent.
 */
#ifndef SKILLC_COMPILE_PASSES_H
#define SKILLC_COMPILE_PASSES_H

#include <stdbool.h>
#include <cJSON.h>

#include "skill/skilldoc.h"
#include "compile/package.h"
#include "base/util.h"

struct pass_ctx {
	const struct skill_src *src;
	const cJSON *profile;  /* the profile object (profile.json's "profile") */
};

struct pass_def {
	const char *name;
	const char *what;
	/* Runs the pass on o, adding details to notes. -1 (e set) only when the
	 * pass itself breaks; "nothing to do" is 0. */
	int (*run)(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e);
};

extern const struct pass_def pass_table[];
extern const size_t pass_count;
const struct pass_def *pass_find(const char *name);

/* Whether the profile selects the pass, and why (a sentence; caller frees). */
bool pass_selected(const struct pass_def *p, const cJSON *profile, char **why);

int pass_refs(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e);
int pass_budget(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e);
int pass_hoist(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e);
int pass_structure(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e);

/* ---- shared by the passes and the hybrid plan ---- */

/* Body size as lint measures it (skilldoc.h). */
struct body_size {
	long lines, tokens;
};
struct body_size body_measure(const struct skilldoc *d);

/* How the budget pass sees a section. */
enum section_class { SC_GOTCHA, SC_CORE, SC_MARKETING, SC_REFERENCE, SC_EXAMPLE, SC_OTHER };
const char *section_class_name(enum section_class k);
/* The class of a heading text (case-insensitive keyword rules). */
enum section_class section_classify(const char *heading, size_t n);

struct section_score {
	enum section_class cls;
	bool protected_;       /* gotcha or core: never moved */
	int score;             /* 0..100, lower moves first */
	int relevance;         /* % of its prose words that are words of the name and description */
	int table_pct;         /* % of its lines in tables */
	int list_items;        /* flag/code-led list items and table rows */
	int marketing_words;
	bool unrelated;        /* relevance < 10% and not reference/marketing */
};

/* Moves section s of d (the SKILL.md of o) to a new references file named
 * after its slug: the edit replaces the section's content (not its
 * heading) with "\n<pointer>\n\n" ("\n<pointer>\n" at the end), where pointer is "Read [F](F) when
 * <when>." The file gets the section's text. Adds the file to o and the
 * edit to ed; returns the file's path (caller frees). */
char *move_to_reference(const struct skill_src *src, struct skill_out *o, const struct skilldoc *d,
			int s, const char *when, struct sd_edits *ed);

/* Applies ed to o->md (parsed as d) in place. */
int out_apply(struct skill_out *o, const struct skilldoc *d, const struct sd_edits *ed, struct err *e);

/* Moves section s before offset dest (another section's start or the end
 * of its parent), keeping one blank line after it. */
int move_section_before(const struct skilldoc *d, int s, size_t dest, struct sd_edits *ed,
			struct err *e);

#endif
