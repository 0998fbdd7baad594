/* checker.c — what validate.c and lint.c both use (checker.h): recording
 * findings, the spec's keys, the caller's documents. Its own file so that
 * validate.c calls lint.c and neither calls back. */
#include "skill/checker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const allowed_fields[] = {
	"allowed-tools", "compatibility", "description", "license", "metadata", "name",
};

/* ---- findings ----------------------------------------------------------- */

struct check_finding *check_add(struct check_finding **v, size_t *n, size_t *cap, const char *rule,
				const char *file, int line, int col, const char *fmt, va_list ap)
{
	GROW(*v, *n, *cap);
	struct check_finding *f = &(*v)[(*n)++];
	struct buf b = BUF_INIT;
	buf_vprintf(&b, fmt, ap);
	f->rule = rule;
	f->message = buf_detach(&b);
	f->file = xstrdup(file ? file : "");
	f->line = line;
	f->col = col;
	f->fix = NULL;
	return f;
}

struct check_finding *check_error(struct check_report *r, const char *rule, int line, int col,
				  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct check_finding *f = check_add(&r->errors, &r->nerrors, &r->errors_cap, rule,
					    r->file ? r->file : r->path, line, col, fmt, ap);
	va_end(ap);
	return f;
}

struct check_finding *check_warn(struct check_report *r, const char *rule, int line, int col,
				 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct check_finding *f = check_add(&r->warnings, &r->nwarnings, &r->warnings_cap, rule,
					    r->file ? r->file : r->path, line, col, fmt, ap);
	va_end(ap);
	return f;
}

void check_set_fix(struct check_finding *f, const char *fmt, ...)
{
	va_list ap;
	struct buf b = BUF_INIT;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(f->fix);
	f->fix = buf_detach(&b);
}

/* The caller's model of the skill-relative file rel, or NULL. */
const struct skilldoc *check_given_doc(const struct skill *s, const char *rel)
{
	for (size_t i = 0; i < s->o->ndocs; i++)
		if (!strcmp(s->o->docs[i].rel, rel))
			return s->o->docs[i].doc;
	return NULL;
}

bool check_key_allowed(const char *key)
{
	return str_in(key, allowed_fields, ARRAY_LEN(allowed_fields));
}

void check_allowed_keys(struct buf *out)
{
	for (size_t i = 0; i < ARRAY_LEN(allowed_fields); i++)
		buf_printf(out, "%s'%s'", i ? ", " : "", allowed_fields[i]);
}
