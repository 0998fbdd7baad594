/* toml.h — the subset of TOML that task.toml files use, parsed strictly
 * into a cJSON tree: tables, [[arrays of tables]], dotted and quoted keys,
 * strings (basic, literal, multi-line), integers, floats, booleans, arrays
 * and inline tables. Dates and times, hex/octal/binary integers, inf and nan
 * are refused with a message rather than guessed at. */
#ifndef SKILLC_BASE_TOML_H
#define SKILLC_BASE_TOML_H

#include <cJSON.h>

#include "base/util.h"

/* Parses text (NUL-terminated, len bytes). Returns an object the caller
 * frees with cJSON_Delete, or NULL with e set to "<name>:<line>: <what>"
 * (code ERR_INPUT). Integers and floats both become cJSON numbers. */
cJSON *toml_parse(const char *text, size_t len, const char *name, struct err *e);

/* Reads and parses a file. */
cJSON *toml_read_file(const char *path, struct err *e);

#endif
