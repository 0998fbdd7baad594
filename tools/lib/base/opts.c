#include "base/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct opt *find_long(const struct opt *rows, const char *name, size_t n)
{
	for (const struct opt *o = rows; o->type != OPT_END_ROW; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *rows, char c)
{
	for (const struct opt *o = rows; o->type != OPT_END_ROW; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

/* "a|b|c" as "a, b or c", for messages. */
static char *choice_words(const char *choices)
{
	struct buf b = BUF_INIT;
	const char *last = strrchr(choices, '|');
	for (const char *p = choices; *p; p++)
		if (*p != '|')
			buf_addc(&b, *p);
		else
			buf_adds(&b, p == last ? " or " : ", ");
	return buf_detach(&b);
}

static bool is_choice(const char *choices, const char *v)
{
	size_t n = strlen(v);
	for (const char *a = choices; a; a = strchr(a, '|') ? strchr(a, '|') + 1 : NULL)
		if (!strncmp(a, v, n) && (a[n] == '|' || !a[n]))
			return true;
	return false;
}

/* Stores v into the row's value; flag is the option as the user wrote it. */
static int set_value(const struct opt *o, const char *flag, const char *v, struct err *e)
{
	char *end;
	errno = 0;
	switch (o->type) {
	case OPT_STR:
		*(const char **)o->value = v;
		break;
	case OPT_CHOICE:
		if (!is_choice(o->choices, v)) {
			char *words = choice_words(o->choices);
			err_set(e, 2, "%s wants %s, not '%s'", flag, words, v);
			free(words);
			return -1;
		}
		*(const char **)o->value = v;
		break;
	case OPT_LONG:
	case OPT_INT: {
		long n = strtol(v, &end, 10);
		if (errno || *end || end == v || n < o->min || n > o->max)
			return err_set(e, 2, "%s wants a whole number from %ld to %ld, not '%s'",
			               flag, (long)o->min, (long)o->max, v);
		if (o->type == OPT_LONG)
			*(long *)o->value = n;
		else
			*(int *)o->value = (int)n;
		break;
	}
	case OPT_NUM: {
		double x = strtod(v, &end);
		if (!*v || *end || !(x >= o->min && x <= o->max))
			return err_set(e, 2, "%s wants a number from %g to %g, not '%s'", flag,
			               o->min, o->max, v);
		*(double *)o->value = x;
		break;
	}
	case OPT_LIST:
		strlist_push(o->value, v);
		break;
	case OPT_FLAG:
		*(bool *)o->value = true;
		break;
	case OPT_END_ROW:
		BUG("set_value on the end row");
	}
	if (o->given)
		*o->given = true;
	return 0;
}

/* One option at argv[*i] ("--name", "--name=v", "-c", "-cv"); advances *i
 * past a separate value. */
static int parse_one(const struct opt *rows, int argc, char **argv, int *i, struct err *e)
{
	const char *a = argv[*i], *inline_v = NULL;
	const struct opt *o;
	if (a[1] == '-') {
		size_t n = strcspn(a + 2, "=");
		o = find_long(rows, a + 2, n);
		inline_v = a[2 + n] ? a + 3 + n : NULL;
	} else {
		o = find_short(rows, a[1]);
		inline_v = o && a[2] ? a + 2 : NULL;
	}
	if (!o)
		return err_set(e, 2, "unknown option '%s' (see --help)", a);
	char flag[80];
	if (a[1] == '-')
		snprintf(flag, sizeof flag, "--%s", o->name);
	else
		snprintf(flag, sizeof flag, "-%c", o->short_name);
	if (o->type == OPT_FLAG) {
		if (inline_v)
			return err_set(e, 2, "%s takes no value (see --help)", flag);
		return set_value(o, flag, "", e);
	}
	if (!inline_v) {
		if (*i + 1 >= argc)
			return err_set(e, 2, "%s needs a value (see --help)", flag);
		inline_v = argv[++*i];
	}
	return set_value(o, flag, inline_v, e);
}

int opts_parse(const struct opt *rows, int argc, char **argv, int start, struct opts_rest *rest,
               struct err *e)
{
	if (rest)
		*rest = (struct opts_rest){ 0, STRLIST_INIT };
	for (int i = start; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			if (rest)
				rest->dashdash = i + 1;
			return 0;
		}
		if (a[0] == '-' && a[1]) {
			if (parse_one(rows, argc, argv, &i, e) < 0)
				return -1;
		} else if (rest) {
			strlist_push(&rest->args, a);
		} else {
			return err_set(e, 2, "unknown option '%s' (see --help)", a);
		}
	}
	return 0;
}

/* One row of --help: its option, value name and help line. */
static void help_row(FILE *f, const struct opt *o)
{
	struct buf head = BUF_INIT;
	if (o->short_name)
		buf_printf(&head, "-%c, ", o->short_name);
	buf_printf(&head, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	/* a long head gets the help on a line of its own */
	const char *gap = head.len >= 26 ? "\n                            " : "";
	fprintf(f, "  %-26s%s%s\n", head.data, gap, o->help);
	buf_free(&head);
}

void opts_help(FILE *f, const char *usage, const struct opt *rows)
{
	fputs(usage, f);
	if (rows->type == OPT_END_ROW)
		return;
	fputs("\noptions:\n", f);
	for (const struct opt *o = rows; o->type != OPT_END_ROW; o++)
		help_row(f, o);
}

const struct opt_cmd *opts_cmd_find(const struct opt_cmd *cmds, const char *name)
{
	for (const struct opt_cmd *c = cmds; name && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* Whether a row before o (in an earlier subcommand, or earlier in its own)
 * has o's name: subcommands share options, or whole tables, which --help
 * names once. */
static bool named_before(const struct opt_cmd *cmds, const struct opt_cmd *in, const struct opt *o)
{
	for (const struct opt_cmd *c = cmds; c <= in; c++)
		for (const struct opt *r = c->rows; r->type != OPT_END_ROW; r++)
			if (c == in && r == o)
				return false;
			else if (!strcmp(r->name, o->name))
				return true;
	return false;
}

void opts_help_cmds(FILE *f, const char *usage, const struct opt_cmd *cmds)
{
	fputs(usage, f);
	bool any = false;
	for (const struct opt_cmd *c = cmds; c->name; c++)
		for (const struct opt *o = c->rows; o->type != OPT_END_ROW; o++)
			if (!named_before(cmds, c, o)) {
				fputs(any ? "" : "\noptions:\n", f);
				any = true;
				help_row(f, o);
			}
}

int opts_args(const struct opt *rows, int argc, char **argv, int start, struct strlist *args,
              struct err *e)
{
	struct opts_rest rest;
	int rc = opts_parse(rows, argc, argv, start, &rest, e);
	*args = rest.args;
	for (int i = rest.dashdash; rc == 0 && i && i < argc; i++)
		strlist_push(args, argv[i]);
	return rc;
}

void opts_rest_free(struct opts_rest *rest)
{
	strlist_free(&rest->args);
}
