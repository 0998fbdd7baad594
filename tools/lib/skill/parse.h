/* parse.h — the insides of the document parser, shared only by the files
 * that build a struct skilldoc (the way cmark's blocks.c and inlines.c
 * share one parser header):
 *   skilldoc.c  sd_parse, the model's lifetime, rendering, measures
 *   blocks.c    lines, the frontmatter, the block structure
 *   sections.c  the section tree and its ids, built from the headings
 *   inlines.c   inline elements, file references, protected literals
 *   edits.c     splices over the original bytes (no parser state)
 * Every pass is linear in the input (or n log n where it sorts): each
 * scan that could run ahead more than once per byte is replaced by an
 * answer computed once (bracket matches, code-span closers, link tails),
 * so a hostile but valid SKILL.md costs about what a real one does per MB. */
#ifndef SKILLC_SKILL_PARSE_H
#define SKILLC_SKILL_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct skilldoc;   /* skilldoc.h: each file of the parser includes it too, */
struct sd_literal; /* so this header points one way (tools/gen/check-layers) */

/* Appends val to a growable array (arr, n, cap). */
#define SD_PUSH(arr, n, cap, val) do { \
	GROW((arr), (n), (cap)); \
	(arr)[(n)++] = (val); \
} while (0)

struct patterns; /* inlines.c: the compiled literal and reference patterns */

/* The document being built, and the literal candidates (sorted and
 * de-overlapped at the end). */
struct parser {
	struct skilldoc *d;
	size_t block_cap, section_cap, code_cap, inline_cap, ref_cap, lit_cap;
	struct sd_literal *cand;
	size_t ncand, cand_cap;
	struct patterns *rx;
};

size_t sd_line_of_off(const struct skilldoc *d, size_t off);

/* blocks.c */
void sd_find_frontmatter(struct skilldoc *d);
void sd_parse_blocks(struct parser *P);

/* sections.c: sections, each block's section, the id index */
void sd_build_sections(struct parser *P);

/* inlines.c: every block's inline elements, references and literals,
 * sorted; the references get their lines and columns */
void sd_scan_inlines(struct parser *P);

#endif
