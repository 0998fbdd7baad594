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

/* ANSWER and the journal's last line in make's memory, without the
 * newline (as check's line comes through $(shell)). */
static char *answer_of(struct buf *line)
{
	while (line->len && line->data[line->len - 1] == '\n')
		line->len--;
	size_t k = strlen(ANSWER);
	char *r = gmk_alloc((unsigned)(k + line->len + 1));
	memcpy(r, ANSWER, k);
	memcpy(r + k, line->data, line->len);
	r[k + line->len] = '\0';
	return r;
}

/* The answer for the command v describes (goals, the names given,
 * SKILLC_MAKE_F, SKILLC_RULES, the settings' names), or NULL: each named
 * setting as NAME=VALUE, in that order, as skillc-rules run is given them. */
static char *probe(char *v[5])
{
	char *self = rules_bin(), *results = NULL, *result = NULL, *save = NULL;
	struct strlist sets = STRLIST_INIT;
	for (char *n = strtok_r(v[4], " \t", &save); n; n = strtok_r(NULL, " \t", &save)) {
		char *value = var(n);
		strlist_push_owned(&sets, xasprintf("%s=%s", n, value));
		if (!strcmp(n, "RESULTS") && !results)
			results = value;
		else
			free(value);
	}
	struct buf line = BUF_INIT;
	hash_hex key;
	if (*v[0] && self && results && *results) {
		noop_key(v[0], v[1], v[2], v[3], self, (int)sets.n, sets.v, key);
		if (noop_probe(results, key, &line))
			result = answer_of(&line);
	}
	buf_free(&line);
	strlist_free(&sets);
	free(results);
	free(self);
	return result;
}

/* $(skillc-noop GOALS GIVEN MAKE_F RULES SETTINGS), each word the name of
 * a make variable: "skillc-noop: <the last line>" when the journal of the
 * command they describe holds; else nothing. */
static char *noop(const char *name, unsigned int argc, char **argv)
{
	char *v[5] = { NULL }, *save = NULL, *word = strtok_r(argv[0], " \t", &save);
	for (int i = 0; i < 5 && word; i++, word = strtok_r(NULL, " \t", &save))
		v[i] = var(word);
	char *result = v[4] ? probe(v) : NULL;
	for (int i = 0; i < 5; i++)
		free(v[i]);
	return result;
}

/* make 4.4.90 and later call it with their ABI version first (NEWS); both
 * arguments are unused here, so one object loads into either. */
int skillc_gmk_setup(const gmk_floc *floc)
{
	gmk_add_function("skillc-noop", noop, 1, 1, GMK_FUNC_DEFAULT);
	return 1;
}
