/* usage.h — usage records: one compact JSON object per line, appended with
 * a single O_APPEND write so lines from parallel writers never interleave. */
#ifndef SKILLC_LLM_USAGE_H
#define SKILLC_LLM_USAGE_H

#include <cJSON.h>

#include "base/util.h"

/* Appends rec as one line to path (created 0644 if absent). */
int usage_append(const char *path, const cJSON *rec, struct err *e);

#endif
