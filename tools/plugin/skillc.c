/* skillc.so — the no-op journal's probe inside GNU Make. skillc.mk loads it
 * (-load: a make that cannot takes skillc-rules check, which probes the
 * same journal) and expands $(skillc-noop ...) while it reads the makefile
 * (pipeline/noop.h), so a make with nothing to do starts no process at all.
 * Never built with the sanitizers (make itself is not). GNU Make loads only
 * objects that say they are under a GPL-compatible license. */
#include <dlfcn.h>
#include <gnumake.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "pipeline/noop.h"

/* what check prints before the journal's last line, skillc.mk's cue */
#define ANSWER "skillc-noop: "

/* the two names make looks up; everything else stays inside */
#define EXPORTED __attribute__((visibility("default")))
EXPORTED int plugin_is_GPL_compatible;
EXPORTED int skillc_gmk_setup(const gmk_floc *floc);

/* The value of make variable name (the caller frees it). */
static char *var(const char *name)
{
	char *ref = xasprintf("$(%s)", name), *v = gmk_expand(ref);
	free(ref);
	char *copy = xstrdup(v);
	gmk_free(v);
	return copy;
}

/* skillc-rules beside this object, links resolved (skillc-rules run keys
 * the journal with its own /proc/self/exe): the key holds its identity. */
static char *rules_bin(void)
{
	Dl_info info;
	char real[PATH_MAX];
	if (!dladdr((void *)rules_bin, &info) || !info.dli_fname || !realpath(info.dli_fname, real))
		return NULL;
	char *dir = path_dir(real), *p = path_join(dir, "skillc-rules");
	free(dir);
	return p;
}

/* $(skillc-noop GOALS GIVEN MAKE_F RULES SETTINGS), each word the name of
 * a make variable: "skillc-noop: <the last line>" when the journal of the
 * command they describe (its goals, the names given, SKILLC_MAKE_F,
 * SKILLC_RULES, and each setting named in SETTINGS as NAME=VALUE, in that
 * order, as skillc-rules run is given them) holds; else nothing. */
static char *noop(const char *name, unsigned int argc, char **argv)
{
	char *w[5] = { NULL }, *save = NULL, *word = strtok_r(argv[0], " \t", &save);
	for (int i = 0; i < 5 && word; i++, word = strtok_r(NULL, " \t", &save))
		w[i] = var(word);
	if (!w[4]) {
		for (int i = 0; i < 5; i++)
			free(w[i]);
		return NULL;
	}
	char *goals = w[0], *given = w[1], *make_f = w[2], *rules = w[3], *names = w[4], *self = rules_bin();
	struct strlist sets = { 0 };
	char *results = NULL, *result = NULL;
	for (char *n = strtok_r(names, " \t", &save); n; n = strtok_r(NULL, " \t", &save)) {
		char *v = var(n);
		strlist_push_owned(&sets, xasprintf("%s=%s", n, v));
		if (!strcmp(n, "RESULTS"))
			results = v;
		else
			free(v);
	}
	struct buf line = BUF_INIT;
	hash_hex key;
	if (*goals && self && results && *results) {
		noop_key(goals, given, make_f, rules, self, (int)sets.n, sets.v, key);
		if (noop_probe(results, key, &line)) {
			/* the line as check's comes through $(shell): no newline */
			while (line.len && line.data[line.len - 1] == '\n')
				line.len--;
			size_t k = strlen(ANSWER);
			result = gmk_alloc((unsigned)(k + line.len + 1));
			memcpy(result, ANSWER, k);
			memcpy(result + k, line.data, line.len);
			result[k + line.len] = '\0';
		}
	}
	buf_free(&line);
	strlist_free(&sets);
	free(results);
	free(goals), free(given), free(make_f), free(rules), free(names), free(self);
	return result;
}

/* make 4.4.90 and later call it with their ABI version first (NEWS); both
 * arguments are unused here, so one object loads into either. */
int skillc_gmk_setup(const gmk_floc *floc)
{
	gmk_add_function("skillc-noop", noop, 1, 1, GMK_FUNC_DEFAULT);
	return 1;
}
