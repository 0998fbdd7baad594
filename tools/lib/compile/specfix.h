/* specfix.h — what the spec requires of a compiled skill that a pass can
 * mend: a description over the spec's 1024 characters is cut at the last
 * sentence (else word) end that fits. Runs after the passes, outside the
 * guard (the frontmatter's bytes are the guard's to keep, except here). */
#ifndef SKILLC_COMPILE_SPECFIX_H
#define SKILLC_COMPILE_SPECFIX_H

#include <cJSON.h>

#include "compile/package.h"

#define SPEC_DESCRIPTION_MAX 1024

/* A step record ({"step", "kind", "status", "why"}) when o's description
 * was shortened, NULL when nothing needed mending (or nothing could be:
 * the validator then names it). */
cJSON *specfix_description(struct skill_out *o);

#endif
