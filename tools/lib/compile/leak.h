/* leak.h — the leakage guard's detector: does a skill text hold something
 * that only the task's held-out files (tests/, solution/, expected files,
 * verifier output) hold, and the raw skill and the instruction do not?
 * Three kinds of copy count:
 *   shingle  8 consecutive words of a held-out text;
 *   literal  a quoted string of a held-out text ("..." '...' `...`, on one
 *            line, at least 8 bytes), matched by its words (so
 *            "cache-v2":1 matches cache-v2: 1);
 *   number   a number with at least 4 digits, or a decimal point and at
 *            least 3 (4521, 0.125, 42.17).
 * Words are runs of letters, digits and '_', compared case-blind. Every
 * item is hashed (64 bits) into sets, so building and checking are linear
 * in the text. docs/leakage.md explains it. */
#ifndef SKILLC_COMPILE_LEAK_H
#define SKILLC_COMPILE_LEAK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define LEAK_SHINGLE 8 /* words of a shingle; literals up to this many words */

struct leak_index;

struct leak_index *leak_new(void);
void leak_free(struct leak_index *lk);

/* A held-out text; source names it in findings ("tests/test.sh"), copied. */
void leak_add_held(struct leak_index *lk, const char *source, const char *text, size_t n);
/* A text the skill may repeat (the raw skill, the instruction). */
void leak_add_known(struct leak_index *lk, const char *text, size_t n);
/* How many held-out texts were added. */
size_t leak_sources(const struct leak_index *lk);

struct leak_hit {
	const char *kind;   /* "shingle", "literal", "number" */
	char *text;         /* the matching text as it stands in the checked text (<= 160 bytes) */
	const char *source; /* the held-out text it came from (owned by the index) */
};

/* The first copy in text: true with hit filled (free with leak_hit_free). */
bool leak_find(const struct leak_index *lk, const char *text, size_t n, struct leak_hit *hit);
void leak_hit_free(struct leak_hit *h);

#endif
