/* redact.h — secrets (API keys, .env values) taken out of a folder an
 * agent or a runner wrote: every occurrence in a file's bytes, in a file or
 * folder name and in a symlink target becomes ***REDACTED***. Only copies
 * written as they are can be found: a key the agent encoded (base64, URL
 * escapes, split across lines) cannot be told from other text. */
#ifndef SKILLC_BASE_REDACT_H
#define SKILLC_BASE_REDACT_H

#include "base/util.h"

#define REDACTED "***REDACTED***"

/* Secrets shorter than this are left alone: too short to tell from
 * ordinary text (a .env may also hold DEBUG=1). */
#define REDACT_MIN 8

/* Rewrites dir in place (files atomically, names by rename; a name taken
 * already gets ".2", ".3", ...). secrets may be empty. */
int redact_tree(const char *dir, const struct strlist *secrets, struct err *e);

/* Replaces every secret in b (text; b stays NUL-terminated) in place,
 * longer secrets first. Returns how many copies were replaced; *first (may
 * be NULL) gets the index in secrets of one that was found, else -1. */
size_t redact_buf(struct buf *b, const struct strlist *secrets, int *first);

/* The values that count as secrets for a runner's child: every
 * NAME=VALUE of env_extra (the ENV_FILE) and the environment's values whose
 * names say key, token, secret or password. Appended to out (copies). */
void redact_secrets_of_env(const struct strlist *env_extra, struct strlist *out);
/* Zeroes every secret of l, then frees the list. */
void redact_wipe(struct strlist *l);

#endif
