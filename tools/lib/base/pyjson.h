/* pyjson.h — JSON text as Python's json.dumps writes it, for files that
 * must look like BenchFlow's own (result.json, acp_trajectory.jsonl): keys
 * in insertion order, ", " and ": " separators (or indent=2), non-ASCII as
 * \uXXXX escapes, and floats that stay floats ("1.0", not "1"). */
#ifndef SKILLC_BASE_PYJSON_H
#define SKILLC_BASE_PYJSON_H

#include <cJSON.h>

#include "base/util.h"

/* Adds obj[key] = d as a number node printed as a Python float (repr:
 * shortest text that reads back to the same double, with ".0" when
 * integral; non-finite values become null); returns the node. */
cJSON *pyjson_add_float(cJSON *obj, const char *key, double d);
/* The value of a number node, including the float nodes pyjson_add_float
 * makes; 0 for anything else. */
double pyjson_number(const cJSON *v);

/* Appends v as json.dumps(v) (indent < 0) or json.dumps(v, indent=n). Plain
 * cJSON numbers print as integers when integral, else as floats. */
void pyjson_print(const cJSON *v, int indent, struct buf *out);

#endif
