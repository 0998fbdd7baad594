/* json.h — cJSON with the rules this project needs: canonical output
 * (sorted keys, fixed number format) so equal data hashes equal, and
 * case-sensitive lookups. Ownership: functions returning cJSON* give the
 * caller a tree to free with cJSON_Delete; strings returned are borrowed
 * from the tree unless the comment says otherwise. */
#ifndef SKILLC_BASE_JSON_H
#define SKILLC_BASE_JSON_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

/* Canonical text: keys sorted by bytes at every level, no insignificant
 * whitespace (pretty=false) or two-space indentation (pretty=true),
 * integers as integers, other numbers as %.17g (the C locale's '.'),
 * non-ASCII passed through as UTF-8. Appends to out. */
void json_canon(const cJSON *v, bool pretty, struct buf *out);

/* Appends s as a JSON string. ascii: every non-ASCII character (and DEL) as
 * \uXXXX escapes, invalid UTF-8 as U+FFFD, as Python's json.dumps writes
 * them; else UTF-8 passes through. */
void json_quote(const char *s, bool ascii, struct buf *out);

/* Hash of the compact canonical text. */
void json_hash(const cJSON *v, char out[33]);

/* Where something other than whitespace follows the value cJSON parsed up to
 * end (an offset into text), else 0: a second value or stray bytes. */
size_t json_after_value(const char *text, size_t len, const char *end);
/* Parses a file; NULL with e set when it is missing or not JSON (ERR_INPUT
 * saying what is wrong: empty, truncated, NaN/Infinity, which Python's json
 * writes, where it stops being JSON, or more after the value). */
cJSON *json_read_file(const char *path, struct err *e);
/* path parsed; NULL when it is absent or not JSON (why is dropped): a
 * file the reader does without. */
cJSON *json_read_opt(const char *path);
/* The same for <dir>/<rel>. */
cJSON *json_read_rel(const char *dir, const char *rel);
/* Writes pretty canonical JSON + newline atomically. */
int json_write_file(const char *path, const cJSON *v, struct err *e);
/* Same, but leaves the file alone when the bytes are unchanged; 1 written, 0 not. */
int json_write_if_changed(const char *path, const cJSON *v, struct err *e);

/* Makes cJSON allocate with xmalloc (base/util.h): running out of memory
 * prints a message and exits, instead of cJSON dropping a key or a value
 * without a word. log_init calls it for every tool. */
void json_use_project_allocator(void);

/* Case-sensitive getters; NULL / fallback when absent or of another type. */
cJSON *json_get(const cJSON *obj, const char *key);
const char *json_str(const cJSON *obj, const char *key);
double json_num(const cJSON *obj, const char *key, double fallback);
bool json_bool(const cJSON *obj, const char *key, bool fallback);
/* True when list is an array holding the string s. */
bool json_has_str(const cJSON *list, const char *s);

/* Sets obj[key], replacing any existing member; returns the value. */
cJSON *json_set(cJSON *obj, const char *key, cJSON *value);
cJSON *json_set_str(cJSON *obj, const char *key, const char *s); /* NULL -> null */
cJSON *json_set_num(cJSON *obj, const char *key, double n);
cJSON *json_set_bool(cJSON *obj, const char *key, bool b);

#endif
