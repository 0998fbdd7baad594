/* datadir.h — where the rules data lives (profiles, harnesses, example
 * routes), and data files users may add beside it. One lookup for every
 * tool, so a build tree, an install and a test all resolve the same way. */
#ifndef SKILLC_BASE_DATADIR_H
#define SKILLC_BASE_DATADIR_H

#include "base/util.h"

/* The root of the caches every run shares (LLM answers, trials) when
 * CACHE_DIR is unset; the settings table gives make the same default. */
#define CACHE_DIR_DEFAULT "results/.cache"
/* $CACHE_DIR, else CACHE_DIR_DEFAULT (borrowed). */
const char *cache_dir(void);

/* The folder of the running tool (where its sibling tools are); caller frees. */
char *tool_dir(void);

/* The rules folder: $SKILLC_RULES, else beside the running tool
 * (<bin>/../rules in a build tree, <bin>/../share/skillc/rules once
 * installed). NULL when none exists; caller frees. */
char *rules_dir(void);

/* The pipeline's make fragment, skillc.mk: <bin>/../mk/ in a build tree,
 * <bin>/../share/skillc/ once installed. NULL when absent; caller frees. */
char *make_fragment(void);

/* Finds <kind>/<file> (e.g. "harness", "opencode.json"): first in each
 * folder of the colon-separated list in environment variable user_env (e.g.
 * HARNESS_PATH), then in rules_dir()/<kind>. Appends every folder looked in
 * to tried (may be NULL). NULL when absent; caller frees. */
char *rules_find(const char *user_env, const char *kind, const char *file, struct strlist *tried);
/* The same with an explicit last folder to look in instead of rules_dir()/<kind>. */
char *rules_find_in(const char *user_env, const char *last_dir, const char *file, struct strlist *tried);

#endif
