#include "base/datadir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"

char *tool_dir(void)
{
	char *exe = fs_self_exe();
	char *dir = exe ? path_dir(exe) : xstrdup(".");
	free(exe);
	return dir;
}

char *rules_dir(void)
{
	const char *env = getenv("SKILLC_RULES");
	if (env && *env)
		return fs_is_dir(env) ? realpath(env, NULL) : NULL;
	char *bin = tool_dir();
	static const char *const tails[] = { "../rules", "../share/skillc/rules" };
	char *real = NULL;
	for (size_t i = 0; i < ARRAY_LEN(tails) && !real; i++) {
		char *d = path_join(bin, tails[i]);
		real = fs_is_dir(d) ? realpath(d, NULL) : NULL;
		free(d);
	}
	free(bin);
	return real;
}

char *make_fragment(void)
{
	char *bin = tool_dir();
	static const char *const tails[] = { "../mk/skillc.mk", "../share/skillc/skillc.mk" };
	char *real = NULL;
	for (size_t i = 0; i < ARRAY_LEN(tails) && !real; i++) {
		char *f = path_join(bin, tails[i]);
		real = fs_exists(f) ? realpath(f, NULL) : NULL;
		free(f);
	}
	free(bin);
	return real;
}

static char *look_in(const char *dir, const char *file, struct strlist *tried)
{
	if (tried)
		strlist_push(tried, dir);
	char *p = path_join(dir, file);
	if (fs_exists(p))
		return p;
	free(p);
	return NULL;
}

char *rules_find_in(const char *user_env, const char *last_dir, const char *file, struct strlist *tried)
{
	const char *user = user_env ? getenv(user_env) : NULL;
	char *found = NULL;
	if (user && *user) {
		char *copy = xstrdup(user), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save))
			found = look_in(d, file, tried);
		free(copy);
	}
	if (!found && last_dir)
		found = look_in(last_dir, file, tried);
	return found;
}

char *rules_find(const char *user_env, const char *kind, const char *file, struct strlist *tried)
{
	char *rules = rules_dir();
	char *d = rules ? path_join(rules, kind) : NULL;
	char *found = rules_find_in(user_env, d, file, tried);
	free(d);
	free(rules);
	return found;
}

const char *cache_dir(void)
{
	const char *c = getenv("CACHE_DIR");
	return c && *c ? c : CACHE_DIR_DEFAULT;
}
