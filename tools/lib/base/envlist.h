/* envlist.h — a process environment built as a strlist of NAME=value
 * (util.h), for the agent and the verifier in the sandbox: nothing of the
 * runner's own environment gets in unless added here. */
#ifndef SKILLC_BASE_ENVLIST_H
#define SKILLC_BASE_ENVLIST_H

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

#endif
