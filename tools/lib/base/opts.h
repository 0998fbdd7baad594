/* opts.h — a tool's options as a table of rows, parsed in one place (git's
 * parse-options is the model). A row names a long option (and a short one),
 * the kind of value, where it goes and its help line; "--x v" and "--x=v"
 * both work, "--" ends the options, and --help's option list is printed
 * from the same rows (opts_help), so the man page is checked against them
 * (tests/e2e/docs.sh). The parser returns a struct err; the tool's main
 * stops through opts_parse_or_die (log.h). */
#ifndef SKILLC_BASE_OPTS_H
#define SKILLC_BASE_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/util.h"

enum opt_type {
	OPT_END_ROW, /* ends a table */
	OPT_STR,     /* const char **: the value as given */
	OPT_FLAG,    /* bool *: set true, takes no value */
	OPT_LONG,    /* long *: a whole number in [min, max] */
	OPT_INT,     /* int *: the same */
	OPT_NUM,     /* double *: a number in [min, max] */
	OPT_CHOICE,  /* const char **: one of choices ("a|b|c") */
	OPT_LIST,    /* struct strlist *: every value given, in order (repeatable) */
};

struct opt {
	const char *name;   /* "run" for --run */
	char short_name;    /* 'o' for -o; 0 for none */
	enum opt_type type;
	void *value;
	const char *arg;    /* the value's name in --help ("DIR"); NULL for a flag */
	const char *help;   /* one line for --help */
	double min, max;    /* OPT_LONG, OPT_INT, OPT_NUM */
	const char *choices;
	bool *given;        /* when set: made true when the option is given */
};

#define OPT_STRING(n, p, a, h) { (n), 0, OPT_STR, (p), (a), (h), 0, 0, NULL, NULL }
#define OPT_BOOL(n, p, h) { (n), 0, OPT_FLAG, (p), NULL, (h), 0, 0, NULL, NULL }
#define OPT_WHOLE(n, p, lo, hi, a, h) { (n), 0, OPT_LONG, (p), (a), (h), (lo), (hi), NULL, NULL }
#define OPT_SMALL(n, p, lo, hi, a, h) { (n), 0, OPT_INT, (p), (a), (h), (lo), (hi), NULL, NULL }
#define OPT_NUMBER(n, p, lo, hi, a, h) { (n), 0, OPT_NUM, (p), (a), (h), (lo), (hi), NULL, NULL }
#define OPT_ONE_OF(n, p, c, h) { (n), 0, OPT_CHOICE, (p), (c), (h), 0, 0, (c), NULL }
#define OPT_EACH(n, p, a, h) { (n), 0, OPT_LIST, (p), (a), (h), 0, 0, NULL, NULL }
#define OPT_END { NULL, 0, OPT_END_ROW, NULL, NULL, NULL, 0, 0, NULL, NULL }

/* Where parsing stopped and what was not an option. */
struct opts_rest {
	int dashdash;          /* the index after "--", or 0 when there was none */
	struct strlist args;   /* arguments that are not options, in order */
};

/* Parses argv[start..argc) by the rows. A word not starting with '-' (or
 * "-" alone) goes to rest->args when rest is given, else it is an error, as
 * is an unknown option; "--" stops (rest->dashdash). Errors have code 2 and
 * name the option: "--round wants a whole number from 1 to 100, not 'x'". */
int opts_parse(const struct opt *rows, int argc, char **argv, int start, struct opts_rest *rest,
               struct err *e);
/* Prints usage, then "options:" and one line per row. */
void opts_help(FILE *f, const char *usage, const struct opt *rows);
void opts_rest_free(struct opts_rest *rest);
/* opts_parse with every word that is not an option, those after "--"
 * too, put into args in order (the caller frees them, also on error). */
int opts_args(const struct opt *rows, int argc, char **argv, int start, struct strlist *args,
              struct err *e);

/* A tool of subcommands ("skillc-stats across ..."): one table each. */
struct opt_cmd {
	const char *name;
	const struct opt *rows;
};
#define OPT_CMD_END { NULL, NULL }

/* The subcommand called name, or NULL (name NULL too). */
const struct opt_cmd *opts_cmd_find(const struct opt_cmd *cmds, const char *name);
/* Prints usage, then "options:" and every subcommand's rows; an option
 * several subcommands have is printed once, from its first row. */
void opts_help_cmds(FILE *f, const char *usage, const struct opt_cmd *cmds);

#endif
