/* profile.h — model profiles: what the static compile knows about a target
 * model family (context window, the body budget a skill should fit, the
 * structure it prefers and the weaknesses the passes work around). Profiles
 * are data, rules/profiles/<name>.json, matched from the model id by a PCRE2
 * pattern; users add their own in PROFILES_DIR. See docs/static.md.
 *
 * Ownership: functions returning cJSON* give the caller a tree to free with
 * cJSON_Delete. */
#ifndef SKILLC_COMPILE_PROFILE_H
#define SKILLC_COMPILE_PROFILE_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

#define PROFILE_FORMAT 1

/* One term of the profile vocabulary and what it does to the passes. */
struct profile_term {
	const char *name;
	const char *effect;
};
extern const struct profile_term profile_prefers[];
extern const size_t profile_prefers_count;
extern const struct profile_term profile_weaknesses[];
extern const size_t profile_weaknesses_count;
/* The passes a profile may switch on or off by name ("passes": {"hoist": false}). */
extern const char *const profile_pass_names[];
extern const size_t profile_pass_count;

/* Checks a profile object (a file's contents, or the profile part of a
 * resolved profile.json); `what` names it in the message (ERR_INPUT). */
int profile_check(const cJSON *p, const char *what, struct err *e);

/* Reads and checks one profile file; its "profile" must be its file name
 * without ".json". NULL with e set (ERR_INPUT, naming the file). */
cJSON *profile_load(const char *path, struct err *e);

/* Resolves a model id ("provider/model-id", may be empty): the profiles of
 * user_dir (NULL or absent: none) are tried before those of builtin_dir,
 * each folder's *.json in file-name order, the first whose "match" finds
 * the id winning; when none matches, "default" (the user's default.json
 * before the built-in one). Every file of both folders is checked, so a
 * broken profile is an error even when another one matches. Returns the
 * resolution, what profile.json holds:
 *   {"format", "model", "name", "source": "user"|"builtin", "file", "why",
 *    "matched": the text the pattern found, "also_matched": [...],
 *    "profile": {the profile's own fields}}
 * or NULL with e set. */
cJSON *profile_resolve(const char *model, const char *user_dir, const char *builtin_dir,
		       struct err *e);

/* Getters on a checked profile object (profile.json's "profile"). */
bool profile_has(const cJSON *p, const char *list, const char *term); /* list: "prefers"/"weaknesses" */
long profile_budget_tokens(const cJSON *p);
long profile_budget_lines(const cJSON *p);
/* The profile's explicit switch for a pass: 1 on, 0 off, -1 not set. */
int profile_pass_switch(const cJSON *p, const char *pass);

#endif
