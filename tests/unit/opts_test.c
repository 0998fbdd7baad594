/* The table-driven option parser (base/opts.h): cases as data, each a
 * command line and what it should give (the values, or the one error). */
#include <stdbool.h>

#include "t.h"
#include "base/opts.h"

static const char *name, *mode;
static long count;
static int round_no;
static double alpha;
static bool fresh, count_given;

static const struct opt rows[] = {
	{ "name", 'n', OPT_STR, &name, "NAME", "a string", 0, 0, NULL, NULL },
	{ "count", 0, OPT_LONG, &count, "N", "a whole number", 0, 50, NULL, &count_given },
	OPT_SMALL("round", &round_no, 1, 9, "K", "a small one"),
	OPT_NUMBER("alpha", &alpha, 0.001, 1, "A", "a number"),
	OPT_ONE_OF("mode", &mode, "fast|slow|off", "a choice"),
	OPT_BOOL("fresh", &fresh, "a flag"),
	OPT_END,
};

struct opt_case {
	const char *line;   /* the words after the tool's name, space-separated */
	const char *error;  /* the message, or NULL when it parses */
	const char *want;   /* name,count,round,alpha,mode,fresh,given,args,dashdash */
};

static const struct opt_case cases[] = {
	{ "--name a --count 7", NULL, "a,7,0,0.5,-,0,1,,0" },
	{ "--name=a --count=7 --round=3", NULL, "a,7,3,0.5,-,0,1,,0" },
	{ "-n b -nc", NULL, "c,0,0,0.5,-,0,0,,0" },
	{ "x --fresh y -- --name z", NULL, "-,0,0,0.5,-,1,0,x y,5" },
	{ "--alpha 0.05 --mode slow -", NULL, "-,0,0,0.05,slow,0,0,-,0" },
	{ "--count", "--count needs a value (see --help)", NULL },
	{ "--count 51", "--count wants a whole number from 0 to 50, not '51'", NULL },
	{ "--count 5x", "--count wants a whole number from 0 to 50, not '5x'", NULL },
	{ "--round=", "--round wants a whole number from 1 to 9, not ''", NULL },
	{ "--alpha 2", "--alpha wants a number from 0.001 to 1, not '2'", NULL },
	{ "--mode fas", "--mode wants fast, slow or off, not 'fas'", NULL },
	{ "--fresh=1", "--fresh takes no value (see --help)", NULL },
	{ "--nope 1", "unknown option '--nope' (see --help)", NULL },
	{ "-q", "unknown option '-q' (see --help)", NULL },
	{ "--nam a", "unknown option '--nam' (see --help)", NULL },
};

/* What the rows hold, in the shape of opt_case.want. */
static char *got(const struct opts_rest *rest)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s,%ld,%d,%g,%s,%d,%d,", name ? name : "-", count, round_no, alpha,
	           mode ? mode : "-", fresh, count_given);
	for (size_t i = 0; i < rest->args.n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", rest->args.v[i]);
	buf_printf(&b, ",%d", rest->dashdash);
	return buf_detach(&b);
}

static void test_option_cases(void)
{
	for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
		name = mode = NULL;
		count = round_no = 0;
		alpha = 0.5;
		fresh = count_given = false;
		struct strlist words = STRLIST_INIT;
		strlist_push(&words, "tool");
		char *line = xstrdup(cases[k].line);
		for (char *w = strtok(line, " "); w; w = strtok(NULL, " "))
			strlist_push(&words, w);
		struct opts_rest rest;
		struct err e = { 0 };
		int rc = opts_parse(rows, (int)words.n, words.v, 1, &rest, &e);
		if (cases[k].error) {
			CHECK_INT(rc, -1);
			CHECK_INT(e.code, 2);
			CHECK_STR(e.msg, cases[k].error);
		} else {
			CHECK_INT(rc, 0);
			char *g = got(&rest);
			CHECK_STR(g, cases[k].want);
			free(g);
		}
		opts_rest_free(&rest);
		strlist_free(&words);
		free(line);
	}
}

static void test_positional_refused_without_rest(void)
{
	char *argv[] = { "tool", "stray", NULL };
	struct err e = { 0 };
	CHECK_INT(opts_parse(rows, 2, argv, 1, NULL, &e), -1);
	CHECK_STR(e.msg, "unknown option 'stray' (see --help)");
}

static void test_help_lists_every_row(void)
{
	char *dir = t_tmpdir(), *path = xasprintf("%s/help", dir);
	FILE *f = fopen(path, "w");
	opts_help(f, "usage: tool\n", rows);
	fclose(f);
	struct buf b = BUF_INIT;
	struct err e;
	CHECK_INT(fs_read(path, 1 << 16, &b, &e), 0);
	CHECK(b.data && !strncmp(b.data, "usage: tool\n\noptions:\n", 22));
	for (const struct opt *o = rows; o->type != OPT_END_ROW; o++) {
		const char *arg = o->arg ? o->arg : "";
		char *line = xasprintf("--%s%s%s", o->name, *arg ? " " : "", arg);
		CHECK(b.data && strstr(b.data, line));
		CHECK(b.data && strstr(b.data, o->help));
		free(line);
	}
	CHECK(b.data && strstr(b.data, "  -n, --name NAME"));
	buf_free(&b);
	fs_remove_tree(dir, &e);
	free(path);
	free(dir);
}

/* Every word that is not an option, those after "--" too, in order. */
static void test_args_take_the_tail(void)
{
	char *argv[] = { "tool", "a", "--fresh", "b", "--", "--name", "c", NULL };
	struct strlist args;
	struct err e = { 0 };
	fresh = false;
	CHECK_INT(opts_args(rows, 7, argv, 1, &args, &e), 0);
	CHECK(fresh);
	CHECK_INT((long)args.n, 4);
	CHECK_STR(args.v[0], "a");
	CHECK_STR(args.v[2], "--name");
	strlist_free(&args);
	char *bad[] = { "tool", "a", "--nope", NULL };
	CHECK_INT(opts_args(rows, 3, bad, 1, &args, &e), -1);
	CHECK_STR(e.msg, "unknown option '--nope' (see --help)");
	strlist_free(&args);
}

static const struct opt other_rows[] = {
	OPT_BOOL("fresh", &fresh, "a flag again"),
	OPT_STRING("only", &mode, "X", "one of its own"),
	OPT_END,
};
static const struct opt_cmd cmds[] = {
	{ "one", rows },
	{ "two", other_rows },
	{ "three", rows }, /* a table two subcommands share */
	OPT_CMD_END,
};

/* Subcommands: found by name; --help names a shared option once. */
static void test_subcommands(void)
{
	CHECK(opts_cmd_find(cmds, "two") == &cmds[1]);
	CHECK(opts_cmd_find(cmds, "four") == NULL);
	CHECK(opts_cmd_find(cmds, NULL) == NULL);
	char *dir = t_tmpdir(), *path = xasprintf("%s/help", dir);
	FILE *f = fopen(path, "w");
	opts_help_cmds(f, "usage: tool one|two\n", cmds);
	fclose(f);
	struct buf b = BUF_INIT;
	struct err e;
	CHECK_INT(fs_read(path, 1 << 16, &b, &e), 0);
	CHECK(b.data && !strncmp(b.data, "usage: tool one|two\n\noptions:\n", 30));
	CHECK(b.data && strstr(b.data, "--only X") && strstr(b.data, "--name NAME"));
	CHECK(b.data && strstr(b.data, "a flag\n") && !strstr(b.data, "a flag again"));
	const char *name_row = b.data ? strstr(b.data, "--name NAME") : NULL;
	CHECK(name_row && !strstr(name_row + 1, "--name NAME"));
	buf_free(&b);
	fs_remove_tree(dir, &e);
	free(path);
	free(dir);
}

int main(void)
{
	RUN(test_args_take_the_tail);
	RUN(test_subcommands);
	RUN(test_option_cases);
	RUN(test_positional_refused_without_rest);
	RUN(test_help_lists_every_row);
	T_EXIT();
}
