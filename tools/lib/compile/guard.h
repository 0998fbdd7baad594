/* guard.h — the semantic guard of the static compile. After every pass or
 * plan step it compares the whole output package (SKILL.md and every
 * Markdown file the compile added) with the source SKILL.md:
 *   frontmatter  the frontmatter bytes are identical;
 *   code-block   every code block survives byte for byte (as many times);
 *   heading      every heading's text survives (as many times; its level
 *                may change; paths compare as for literals);
 *   literal      every protected literal (skilldoc.h: code spans, URLs,
 *                paths, flags, numbers with units, placeholders, $VARS)
 *                survives as many times; a skill path compares in its
 *                root-relative form (guard_path_form), so "./scripts/x"
 *                and "scripts/x" are the same literal;
 *   outside      every added file lies inside the skill folder, under a
 *                fresh name (never over a source file);
 *   leak         (Fast and Deep, when leak is set) no text of the package
 *                copies what only the task's held-out files hold (leak.h).
 * Items may be added (pointers, copies); none may be lost. */
#ifndef SKILLC_COMPILE_GUARD_H
#define SKILLC_COMPILE_GUARD_H

#include <stdbool.h>

#include "compile/leak.h"
#include "compile/package.h"
#include "base/util.h"

struct guard_base {
	char *fm;                 /* the source's frontmatter bytes (with both --- lines) */
	size_t fm_len;
	struct strlist codes;     /* sorted multisets */
	struct strlist headings;
	struct strlist literals;  /* in guard_path_form */
	const struct leak_index *leak; /* NULL (guard_init): no leakage check; not owned */
};

/* What the guard found lost; strings owned, freed by guard_fail_free. */
struct guard_fail {
	const char *check;        /* "frontmatter", "code-block", "heading", "literal", "outside", "leak" */
	char *item;               /* the lost item, shortened to one line for the report */
	int want, have;           /* how many the source has, how many survived */
};

void guard_init(struct guard_base *g, const struct skill_src *s);
void guard_free(struct guard_base *g);

/* 0 when o keeps everything, 1 with f filled (free with guard_fail_free) when not. */
int guard_check(const struct guard_base *g, const struct skill_src *s, struct skill_out *o,
		struct guard_fail *f);
void guard_fail_free(struct guard_fail *f);

/* Text with every skill path written from the skill root: "{baseDir}/",
 * "$SKILL_DIR/"-style prefixes and a leading "./" before scripts/,
 * references/, assets/... are dropped. Appends to out. */
void guard_path_form(const char *s, size_t n, struct buf *out);
/* Length of a root prefix at s ("{baseDir}/", "${SKILL_DIR}/", "$SKILL_ROOT/"), else 0. */
size_t guard_root_prefix(const char *s, size_t n);

#endif
