/* yaml.h — a YAML document as JSON (cJSON), with libyaml, for config files
 * users write (a matrix, a Harbor job config). Mappings become objects,
 * sequences arrays, every scalar a string (the caller reads numbers and
 * booleans from them); block and flow styles both. Refused, with the line:
 * anchors and aliases, non-scalar or duplicate keys, several documents,
 * nesting deeper than 64. Linear in the input. */
#ifndef SKILLC_BASE_YAML_H
#define SKILLC_BASE_YAML_H

#include <stddef.h>
#include <cJSON.h>

#include "base/util.h"

/* Parses text (what names it, for messages); *out is the caller's to free
 * (an empty document gives an empty object). */
int yaml_to_json(const char *text, size_t len, const char *what, cJSON **out, struct err *e);
/* The same for a file. */
int yaml_read_file(const char *path, cJSON **out, struct err *e);

#endif
