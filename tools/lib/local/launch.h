/* launch.h — how the local runner starts an agent harness over ACP, as
 * data in rules/harness/<name>.json (or a file in a HARNESS_PATH directory,
 * searched first, so users and tests can add harnesses without the product
 * knowing them). Keys read here (the skill-use rules of the same file are
 * harness.h's):
 *   "acp_command":  ["opencode", "acp"]      argv of the ACP server; [0] found in PATH
 *   "install":      "npm install -g ..."     shown when [0] is not found
 *   "skill_paths":  ["~/.opencode/skills"]   where the harness looks for skills;
 *                                            each becomes a link to /skills ("~" = the sandbox home)
 *   "config_files": [{"path": "~/...", "json": {...}} | {"path": ..., "text": "..."}]
 *                   files generated in the sandbox before the agent starts; every
 *                   string and key may use ${model} ${provider} ${model_full}
 *                   ${base_url} ${key_env} ${home} ${workdir}
 *   "env":          {"NAME": "value"}        set for the agent (values may use ${...})
 *   "key_env":      "SKILLC_MODEL_API_KEY"   the variable carrying the model key */
#ifndef SKILLC_LOCAL_LAUNCH_H
#define SKILLC_LOCAL_LAUNCH_H

#include <cJSON.h>

#include "base/util.h"

struct launch {
	char *name;
	char *file;                 /* the file it was read from */
	cJSON *doc;                 /* the whole file */
	struct strlist argv;        /* acp_command */
	struct strlist skill_paths;
	const cJSON *config_files;  /* borrowed from doc; may be NULL */
	const cJSON *env;           /* borrowed from doc; may be NULL */
	const char *key_env;        /* borrowed from doc, or the default */
};

/* Finds and reads <name>.json (name validated with name_is_safe). */
int launch_load(const char *name, struct launch *h, struct err *e);
void launch_free(struct launch *h);

/* ${name} substitution from vars (NULL-terminated name, value pairs).
 * An unknown name is an error. Caller frees. */
char *launch_subst(const char *s, const char *const *vars, struct err *e);
/* The same over every string and key of a JSON tree; caller frees the copy. */
cJSON *launch_render(const cJSON *tmpl, const char *const *vars, struct err *e);

#endif
