#include "base/dotenv.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/redact.h"

bool dotenv_name_ok(const char *name)
{
	if (!name || !(isalpha((unsigned char)*name) || *name == '_'))
		return false;
	for (const char *p = name; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	return true;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Parses the value part [p, end) into out; returns NULL on success or
 * what is wrong (never quoting the value). */
static const char *parse_value(const char *p, const char *end, struct buf *out)
{
	buf_add(out, "", 0);
	if (p < end && (*p == '\'' || *p == '"')) {
		char q = *p++;
		for (; p < end && *p != q; p++) {
			if (q == '"' && *p == '\\' && p + 1 < end) {
				p++;
				switch (*p) {
				case 'n': buf_addc(out, '\n'); break;
				case 't': buf_addc(out, '\t'); break;
				case 'r': buf_addc(out, '\r'); break;
				default: buf_addc(out, *p); break; /* \" \\ \$ and others: literal */
				}
				continue;
			}
			buf_addc(out, *p);
		}
		if (p >= end)
			return "unterminated quote";
		p = skip_blank(p + 1, end);
		if (p < end && *p != '#')
			return "text after the closing quote";
		return NULL;
	}
	const char *stop = end;
	for (const char *c = p; c < end; c++) {
		if (*c == '#' && (c == p || c[-1] == ' ' || c[-1] == '\t')) {
			stop = c;
			break;
		}
	}
	while (stop > p && (stop[-1] == ' ' || stop[-1] == '\t'))
		stop--;
	buf_add(out, p, (size_t)(stop - p));
	return NULL;
}

static void set_value(struct dotenv *d, char *name, char *value)
{
	for (size_t i = 0; i < d->names.n; i++) {
		if (!strcmp(d->names.v[i], name)) {
			explicit_bzero(d->values.v[i], strlen(d->values.v[i]));
			free(d->values.v[i]);
			d->values.v[i] = value;
			free(name);
			return;
		}
	}
	strlist_push_owned(&d->names, name);
	strlist_push_owned(&d->values, value);
}

static int parse_line(struct dotenv *d, const char *p, const char *end, int lineno, struct err *e)
{
	p = skip_blank(p, end);
	if (end > p && end[-1] == '\r')
		end--;
	if (p == end || *p == '#')
		return 0;
	if ((size_t)(end - p) > 7 && !strncmp(p, "export", 6) && (p[6] == ' ' || p[6] == '\t'))
		p = skip_blank(p + 7, end);
	const char *eq = memchr(p, '=', (size_t)(end - p));
	if (!eq)
		return err_set(e, ERR_INPUT, "'%s' line %d: expected NAME=VALUE", d->path, lineno);
	const char *ne = eq;
	while (ne > p && (ne[-1] == ' ' || ne[-1] == '\t'))
		ne--;
	char *name = xstrndup(p, (size_t)(ne - p));
	if (!dotenv_name_ok(name)) {
		free(name);
		return err_set(e, ERR_INPUT, "'%s' line %d: bad variable name (use letters, digits and '_')",
			       d->path, lineno);
	}
	struct buf val = BUF_INIT;
	const char *why = parse_value(skip_blank(eq + 1, end), end, &val);
	if (why) {
		explicit_bzero(val.data, val.len);
		buf_free(&val);
		err_set(e, ERR_INPUT, "'%s' line %d: %s in the value of %s", d->path, lineno, why, name);
		free(name);
		return -1;
	}
	set_value(d, name, buf_detach(&val));
	return 0;
}

int dotenv_load(struct dotenv *d, const char *path, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err why;
	if (!fs_exists(path))
		return 0;
	if (fs_read(path, DOTENV_MAX, &text, &why) < 0) {
		int err = errno;
		if (text.len) /* what was read may hold keys; nothing was read from a folder */
			explicit_bzero(text.data, text.len);
		buf_free(&text);
		if (err == EFBIG)
			return err_set(e, ERR_INPUT, "ENV_FILE '%s' is over 1 MiB: an env file holds a few "
				       "NAME=VALUE lines; point ENV_FILE at the right file", path);
		return err_set(e, ERR_INPUT, "ENV_FILE: %s", why.msg);
	}
	d->path = xstrdup(path);
	int rc = 0, lineno = 0;
	for (const char *p = text.data, *end = text.data + text.len; p < end && rc == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		++lineno;
		/* a NUL would silently cut the value short */
		rc = memchr(p, '\0', (size_t)(le - p)) ? err_set(e, ERR_INPUT, "'%s' line %d: a NUL byte: remove it (a key holds none)", path, lineno)
			: parse_line(d, p, le, lineno, e);
		p = nl ? nl + 1 : end;
	}
	explicit_bzero(text.data, text.len);
	buf_free(&text);
	return rc;
}

const char *dotenv_get(const struct dotenv *d, const char *name, enum dotenv_source *src)
{
	const char *v = getenv(name);
	enum dotenv_source s = DOTENV_ENVIRON;
	if (!v || !*v) {
		v = NULL;
		s = DOTENV_MISSING;
		for (size_t i = 0; i < d->names.n; i++) {
			if (!strcmp(d->names.v[i], name) && *d->values.v[i]) {
				v = d->values.v[i];
				s = DOTENV_FILE;
			}
		}
	}
	if (src)
		*src = s;
	return v;
}

void dotenv_free(struct dotenv *d)
{
	strlist_free(&d->names);
	redact_wipe(&d->values);
	free(d->path);
	d->path = NULL;
}
