/* dotenv.h — KEY=VALUE files (.env) holding API keys. Values live in
 * memory only, are wiped when freed and never appear in an error message:
 * errors name the file and the line number, never the line. */
#ifndef SKILLC_BASE_DOTENV_H
#define SKILLC_BASE_DOTENV_H

#include <stdbool.h>

#include "base/util.h"

struct dotenv {
	char *path;            /* the file read, or NULL when there was none */
	struct strlist names;  /* names[i] = values.v[i] */
	struct strlist values;
};
#define DOTENV_INIT { NULL, STRLIST_INIT, STRLIST_INIT }

/* A larger file is refused (it is not an env file of keys). */
#define DOTENV_MAX (1u << 20)

/* Reads path. A missing file is not an error (keys may all come from the
 * environment); a malformed line is (ERR_INPUT, "'.env' line N: ..."). The
 * syntax: blank lines, '#' comments, `[export] NAME=VALUE` where VALUE is
 * bare (trailing blanks and a ' #' comment dropped), 'single-quoted'
 * (literal) or "double-quoted" (\n \t \" \\ \$ escapes). The last of
 * duplicate names wins. Over DOTENV_MAX bytes is an error that says so.
 * d is freed with dotenv_free even on error. */
int dotenv_load(struct dotenv *d, const char *path, struct err *e);

/* Where a variable's value comes from. */
enum dotenv_source { DOTENV_MISSING, DOTENV_ENVIRON, DOTENV_FILE };

/* The value of name: the real environment wins when it holds a non-empty
 * value, else the file. Borrowed (from d or environ); NULL when missing. */
const char *dotenv_get(const struct dotenv *d, const char *name, enum dotenv_source *src);

/* True for a valid variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool dotenv_name_ok(const char *name);

/* Wipes the values and frees everything. */
void dotenv_free(struct dotenv *d);

#endif
