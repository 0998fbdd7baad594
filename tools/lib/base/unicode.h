/* unicode.h — the bits of Unicode skill-name checks need, matching Python
 * (what the reference validator skills-ref runs): UTF-8 decoding, NFKC,
 * str.isalnum(), "str.lower() changes it", str.strip(). The data tables are
 * generated from Python's unicodedata by tools/gen/unicode_tables.py
 * (their Unicode version in UC_UNICODE_VERSION). */
#ifndef SKILLC_BASE_UNICODE_H
#define SKILLC_BASE_UNICODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* Returns the byte offset of the first invalid UTF-8 sequence (overlongs,
 * surrogates and values above U+10FFFF are invalid), or len when valid. */
size_t utf8_check(const char *s, size_t len);

/* Decodes one code point at s (valid UTF-8 assumed, as checked by
 * utf8_check); stores its byte length in *n. */
uint32_t utf8_decode(const char *s, size_t len, size_t *n);
/* Appends cp as UTF-8. */
void utf8_put(struct buf *b, uint32_t cp);
/* Number of code points in valid UTF-8 (Python's len()). */
size_t utf8_count(const char *s, size_t len);

/* NFKC of valid UTF-8, appended to out (Python's
 * unicodedata.normalize("NFKC", s)). */
void uc_nfkc(const char *s, size_t len, struct buf *out);

bool uc_is_alnum(uint32_t cp);      /* Python chr(cp).isalnum() */
bool uc_changes_lower(uint32_t cp); /* Python chr(cp).lower() != chr(cp) */
bool uc_is_space(uint32_t cp);      /* Python chr(cp).isspace() */

/* Python's str.strip() on valid UTF-8: narrows [*s, *s + *len) in place. */
void uc_strip(const char **s, size_t *len);

#endif
