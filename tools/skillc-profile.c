/* skillc-profile — resolves a model id to its model profile: the first
 * profile whose pattern matches (user profiles before built-in ones), else
 * the default. Writes profile.json (only when its bytes change) and says on
 * stdout which profile matched and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "compile/profile.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-profile [--model ID] [--profiles DIR] [--user-profiles DIR] [--out FILE]\n"
	"       skillc-profile --from FILE [--out FILE]\n"
	"       skillc-profile --check FILE...\n"
	"\n"
	"Resolves the model id (default: $MODEL; empty means the default profile) to a\n"
	"model profile. User profiles (--user-profiles, default $PROFILES_DIR; an absent\n"
	"folder is fine) are tried before the built-in ones (--profiles, default\n"
	"$SKILLC_RULES/profiles, else the rules beside the tool), each folder's *.json\n"
	"in file-name order; the first \"match\" pattern (PCRE2) that finds the id wins,\n"
	"else default.json. Prints the match and why; --out writes the resolution as\n"
	"JSON (rewritten only when it changes), else it goes to stdout. --check\n"
	"validates profile files. --from FILE takes a resolution made before (a\n"
	"profile.json of this tool; PROFILE=FILE) as it is, checked, instead of resolving.\n"
	"Exit 0 done, 2 bad input (a broken profile file, a bad option).\n";

static char *default_builtin(void)
{
	char *rules = rules_dir();
	char *p = xasprintf("%s/profiles", rules ? rules : "rules");
	free(rules);
	return p;
}

static void check_files(const struct strlist *files)
{
	for (size_t i = 0; i < files->n; i++) {
		struct err e = { 0 };
		cJSON *p = profile_load(files->v[i], &e);
		if (!p)
			die_err(&e);
		printf("%s: ok (%s)\n", files->v[i], json_str(p, "profile"));
		cJSON_Delete(p);
	}
}

/* Which profile, and why, on one line (and the others that matched). */
static void say_choice(const char *model, const cJSON *r)
{
	const cJSON *also = json_get(r, "also_matched");
	printf("%s -> %s (%s %s): %s\n", *model ? model : "(no MODEL)", json_str(r, "name"),
	       json_str(r, "source"), json_str(r, "file"), json_str(r, "why"));
	if (cJSON_GetArraySize(also) > 0) {
		printf("also matched, not used:");
		for (const cJSON *c = also->child; c; c = c->next)
			printf(" %s", c->valuestring);
		printf("\n");
	}
}

/* The resolved profile into --out (its folder made), or onto stdout. */
static void write_profile(const char *out, const cJSON *r)
{
	struct err e = { 0 };
	if (!out) {
		struct buf b = BUF_INIT;
		json_canon(r, true, &b);
		printf("%s\n", b.data);
		buf_free(&b);
		return;
	}
	if (fs_mkdirs_parent(out, &e) < 0 || json_write_if_changed(out, r, &e) < 0)
		die_err(&e);
}

/* --from: a resolution made before, its profile checked. */
static cJSON *read_resolution(const char *file)
{
	struct err e = { 0 };
	cJSON *r = json_read_file(file, &e);
	if (!r)
		die(2, "--from: %s", e.msg);
	if (!cJSON_IsObject(json_get(r, "profile")) || !json_str(r, "name"))
		die(2,
		    "--from: '%s' is not a profile resolution (skillc-profile --out's "
		    "profile.json)",
		    file);
	return r;
}

static const char *model, *user, *out, *builtin_dir, *from;
static bool check;
static const struct opt rows[] = {
	OPT_STRING("model", &model, "ID", "the model id (default: $MODEL)"),
	OPT_STRING("profiles", &builtin_dir, "DIR", "the built-in profiles"),
	OPT_STRING("user-profiles", &user, "DIR", "profiles tried first (default: $PROFILES_DIR)"),
	OPT_STRING("out", &out, "FILE", "where the resolution goes (default: stdout)"),
	OPT_STRING("from", &from, "FILE", "take this resolution (PROFILE) instead of resolving"),
	OPT_BOOL("check", &check, "validate the profile files given instead"),
	OPT_END,
};

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_PROFILE);
	model = getenv("MODEL");
	user = getenv("PROFILES_DIR");
	struct strlist files;
	opts_args_or_die(rows, argc, argv, 1, &files);
	if (check) {
		check_files(&files);
		strlist_free(&files);
		return 0;
	}
	if (files.n)
		die(2, "unknown option '%s' (see --help)", files.v[0]);
	strlist_free(&files);
	char *builtin = builtin_dir ? xstrdup(builtin_dir) : NULL;
	if (!builtin)
		builtin = default_builtin();
	if (!model)
		model = "";
	struct err e = { 0 };
	cJSON *r = from ? read_resolution(from) : profile_resolve(model, user, builtin, &e);
	if (!r)
		die_err(&e);
	if (from)
		printf("profile %s: from %s\n", json_str(r, "name"), from);
	else
		say_choice(model, r);
	write_profile(out, r);
	cJSON_Delete(r);
	free(builtin);
	return 0;
}
