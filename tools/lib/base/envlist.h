/* envlist.h — a process environment built as a strlist of NAME=value
 * (util.h), for the agent and the verifier in the sandbox: nothing of the
 * runner's own environment gets in unless added here. */
#ifndef SKILLC_BASE_ENVLIST_H
#define SKILLC_BASE_ENVLIST_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

/* Sets name=value, replacing an earlier value of name. */
void envlist_set(struct strlist *env, const char *name, const char *value);
/* Adds a task.toml env table ([environment.env], [verifier.env]): strings,
 * numbers and booleans; ${VAR} and ${VAR:-default} in a value come from
 * the runner's environment. */
void envlist_add_table(struct strlist *env, const cJSON *table);
/* Passes on the runner's http(s)_proxy / no_proxy settings (either case),
 * for a process that shares the host's network. */
void envlist_add_proxies(struct strlist *env);

/* The value of name in env, or NULL. Borrowed. */
const char *envlist_get(const struct strlist *env, const char *name);
/* True for names that look like they hold a secret (KEY, TOKEN, SECRET,
 * PASSWORD, AUTH, ... in any case): such values stay off command lines
 * and out of written settings. */
bool envlist_secret_name(const char *name);

#endif
