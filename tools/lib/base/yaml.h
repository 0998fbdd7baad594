/* yaml.h — a YAML document as JSON (cJSON), with libyaml, for config files
 * users write (a matrix, a Harbor job config). Mappings become objects,
 * sequences arrays, every scalar a string (the caller reads numbers and
 * booleans from them); block and flow styles both. Refused, with the line:
 * anchors and aliases, non-scalar or duplicate keys, several documents,
 * nesting deeper than 64. Linear in the input. */
#ifndef SKILLC_BASE_YAML_H
#define SKILLC_BASE_YAML_H

#include <cJSON.h>

#include "base/util.h"

/* Parses a YAML file (its path names it in messages); *out is the
 * caller's to free (an empty document gives an empty object). */
int yaml_read_file(const char *path, cJSON **out, struct err *e);

#endif
