/* skillc.so's $(skillc-noop ...) (tools/plugin/skillc.c), built into this
 * program with make's four gmk_ functions stood in for by a table of
 * variables: it answers from a journal recorded under the key skillc-rules
 * run would use, and gives nothing for another value, a changed path, an
 * empty RESULTS or a short list of names. Run sanitized too, so a leak in
 * make's own process would show here. */
#include <gnumake.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "t.h"
#include "base/fs.h"
#include "pipeline/noop.h"

int skillc_gmk_setup(const gmk_floc *floc);

/* make's variables as the stand-ins see them */
static struct {
	const char *name;
	char *value;
} vars[] = {
	{ "G", "static" }, { "GIVEN", "task" }, { "MF", "/x/skillc.mk" }, { "RU", "/x/rules" },
	{ "SETS", "task RESULTS" }, { "task", "t1" }, { "RESULTS", NULL },
};
static gmk_func_ptr fn;

char *gmk_expand(const char *str)
{
	for (size_t i = 0; i < ARRAY_LEN(vars); i++)
		if (!strncmp(str, "$(", 2) && !strncmp(str + 2, vars[i].name, strlen(vars[i].name)) &&
		    !strcmp(str + 2 + strlen(vars[i].name), ")"))
			return xstrdup(vars[i].value);
	return xstrdup("");
}

void gmk_free(char *str)
{
	free(str);
}

char *gmk_alloc(unsigned int len)
{
	return xmalloc(len);
}

void gmk_add_function(const char *name, gmk_func_ptr func, unsigned int min_args, unsigned int max_args,
                      unsigned int flags)
{
	CHECK_STR(name, "skillc-noop");
	CHECK(min_args == 1 && max_args == 1 && flags == GMK_FUNC_DEFAULT);
	fn = func;
}

static void set(const char *name, char *value)
{
	for (size_t i = 0; i < ARRAY_LEN(vars); i++)
		if (!strcmp(vars[i].name, name))
			vars[i].value = value;
}

/* $(skillc-noop WORDS): its answer, "" for none */
static char *call(const char *words)
{
	char *arg = xstrdup(words), *argv[] = { arg, NULL };
	char *r = fn("skillc-noop", 1, argv);
	free(arg);
	return r ? r : xstrdup("");
}

/* The journal of task=t1 over dir and dir/a, as skillc-rules run keys it:
 * skillc-rules beside this program. */
static void record(const char *dir)
{
	char real[PATH_MAX];
	CHECK(realpath("/proc/self/exe", real) != NULL);
	char *bindir = path_dir(real), *self = path_join(bindir, "skillc-rules"), *a = path_join(dir, "a");
	char *results = xasprintf("RESULTS=%s", dir), *sets[] = { "task=t1", results };
	hash_hex key;
	noop_key("static", "task", "/x/skillc.mk", "/x/rules", self, 2, sets, key);
	struct timespec pause = { 0, 30 * 1000 * 1000 }; /* not older than the start: unwritten */
	nanosleep(&pause, NULL);
	struct noop_rec n;
	noop_begin(&n);
	noop_add_path(&n, dir);
	noop_add_path(&n, a);
	noop_commit(&n, dir, key, "skillc: t1: static done\n");
	free(results);
	free(a);
	free(self);
	free(bindir);
}

static void test_answers_from_the_journal(void)
{
	char *dir = t_tmpdir();
	t_put(dir, "a", "text\n");
	t_put(dir, ".skillc/keep", "");
	set("RESULTS", dir);
	CHECK(skillc_gmk_setup(NULL) == 1 && fn != NULL);
	record(dir);
	char *r = call("G GIVEN MF RU SETS");
	CHECK_STR(r, "skillc-noop: skillc: t1: static done");
	free(r);
	set("task", "t2"); /* another command */
	r = call("G GIVEN MF RU SETS");
	CHECK_STR(r, "");
	free(r);
	set("task", "t1");
	r = call("G GIVEN MF RU"); /* a name short */
	CHECK_STR(r, "");
	free(r);
	set("RESULTS", "");
	r = call("G GIVEN MF RU SETS");
	CHECK_STR(r, "");
	free(r);
	set("RESULTS", dir);
	t_put(dir, "a", "other text\n"); /* a recorded path changed */
	r = call("G GIVEN MF RU SETS");
	CHECK_STR(r, "");
	free(r);
	free(dir);
}

int main(void)
{
	RUN(test_answers_from_the_journal);
	T_EXIT();
}
