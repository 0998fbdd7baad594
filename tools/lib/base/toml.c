#include "base/toml.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"

struct toml {
	const char *p, *end;
	int line;
	const char *name;
	struct err *e;
	struct strlist defined; /* table headers seen, "a\x1fb" joined */
};

static int fail(struct toml *t, const char *what)
{
	return err_set(t->e, ERR_INPUT, "%s:%d: %s", t->name, t->line, what);
}

static void skip_ws(struct toml *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

static void skip_comment(struct toml *t)
{
	if (t->p < t->end && *t->p == '#')
		while (t->p < t->end && *t->p != '\n')
			t->p++;
}

/* Spaces, comments and newlines (inside arrays). */
static void skip_all(struct toml *t)
{
	for (;;) {
		skip_ws(t);
		skip_comment(t);
		if (t->p < t->end && (*t->p == '\n' || (*t->p == '\r' && t->p + 1 < t->end && t->p[1] == '\n'))) {
			t->p += *t->p == '\r' ? 2 : 1;
			t->line++;
			continue;
		}
		return;
	}
}

/* After a value or header: only a comment may follow on the line. */
static int end_of_line(struct toml *t)
{
	skip_ws(t);
	skip_comment(t);
	if (t->p >= t->end)
		return 0;
	if (*t->p == '\r' && t->p + 1 < t->end && t->p[1] == '\n')
		t->p++;
	if (*t->p != '\n')
		return fail(t, "unexpected text after the value (one key = value per line)");
	t->p++;
	t->line++;
	return 0;
}

static void add_utf8(struct buf *b, unsigned c)
{
	if (c < 0x80) {
		buf_addc(b, (char)c);
	} else if (c < 0x800) {
		buf_addc(b, (char)(0xc0 | c >> 6));
		buf_addc(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		buf_addc(b, (char)(0xe0 | c >> 12));
		buf_addc(b, (char)(0x80 | (c >> 6 & 0x3f)));
		buf_addc(b, (char)(0x80 | (c & 0x3f)));
	} else {
		buf_addc(b, (char)(0xf0 | c >> 18));
		buf_addc(b, (char)(0x80 | (c >> 12 & 0x3f)));
		buf_addc(b, (char)(0x80 | (c >> 6 & 0x3f)));
		buf_addc(b, (char)(0x80 | (c & 0x3f)));
	}
}

static int escape(struct toml *t, struct buf *b)
{
	char c = *t->p++;
	switch (c) {
	case 'b': buf_addc(b, '\b'); return 0;
	case 't': buf_addc(b, '\t'); return 0;
	case 'n': buf_addc(b, '\n'); return 0;
	case 'f': buf_addc(b, '\f'); return 0;
	case 'r': buf_addc(b, '\r'); return 0;
	case '"': buf_addc(b, '"'); return 0;
	case '\\': buf_addc(b, '\\'); return 0;
	case 'u':
	case 'U': {
		int n = c == 'u' ? 4 : 8;
		unsigned cp = 0;
		for (int i = 0; i < n; i++, t->p++) {
			if (t->p >= t->end || !isxdigit((unsigned char)*t->p))
				return fail(t, "bad \\u escape in a string");
			char h = *t->p;
			cp = cp * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower(h) - 'a' + 10));
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return fail(t, "\\u escape is not a Unicode scalar value");
		add_utf8(b, cp);
		return 0;
	}
	default:
		return fail(t, "unknown escape in a string");
	}
}

/* Parses a string at t->p (any of the four kinds) into b. */
static int string(struct toml *t, struct buf *b)
{
	char q = *t->p;
	bool multi = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;
	t->p += multi ? 3 : 1;
	if (multi) {
		/* a newline right after the opening quotes is dropped */
		if (t->p < t->end && *t->p == '\n') {
			t->p++;
			t->line++;
		} else if (t->end - t->p >= 2 && t->p[0] == '\r' && t->p[1] == '\n') {
			t->p += 2;
			t->line++;
		}
	}
	buf_add(b, "", 0);
	for (;;) {
		if (t->p >= t->end)
			return fail(t, "unterminated string");
		char c = *t->p;
		if (c == q) {
			if (!multi) {
				t->p++;
				return 0;
			}
			if (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q) {
				t->p += 3;
				/* up to two more quotes belong to the string */
				for (int i = 0; i < 2 && t->p < t->end && *t->p == q; i++, t->p++)
					buf_addc(b, q);
				return 0;
			}
			buf_addc(b, c);
			t->p++;
			continue;
		}
		if (c == '\n') {
			if (!multi)
				return fail(t, "newline inside a one-line string");
			buf_addc(b, c);
			t->p++;
			t->line++;
			continue;
		}
		if (c == '\\' && q == '"') {
			t->p++;
			if (multi) {
				/* line-ending backslash: trim the newline and leading blanks */
				const char *s = t->p;
				while (s < t->end && (*s == ' ' || *s == '\t' || *s == '\r'))
					s++;
				if (s < t->end && *s == '\n') {
					while (s < t->end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')) {
						if (*s == '\n')
							t->line++;
						s++;
					}
					t->p = s;
					continue;
				}
			}
			if (t->p >= t->end)
				return fail(t, "unterminated string");
			if (escape(t, b) < 0)
				return -1;
			continue;
		}
		if ((unsigned char)c < 0x20 && c != '\t' && c != '\r')
			return fail(t, "control character inside a string");
		buf_addc(b, c);
		t->p++;
	}
}

static bool is_bare(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* One key part: bare or quoted; appended to parts. */
static int key_part(struct toml *t, struct strlist *parts)
{
	skip_ws(t);
	if (t->p < t->end && (*t->p == '"' || *t->p == '\'')) {
		if (t->end - t->p >= 3 && t->p[1] == *t->p && t->p[2] == *t->p)
			return fail(t, "multi-line strings cannot be keys");
		struct buf b = BUF_INIT;
		if (string(t, &b) < 0) {
			buf_free(&b);
			return -1;
		}
		if (strlen(b.data) != b.len) {
			buf_free(&b);
			return fail(t, "a key holds a NUL character");
		}
		strlist_push_owned(parts, buf_detach(&b));
		return 0;
	}
	const char *s = t->p;
	while (t->p < t->end && is_bare(*t->p))
		t->p++;
	if (t->p == s)
		return fail(t, "expected a key");
	strlist_push_owned(parts, xstrndup(s, (size_t)(t->p - s)));
	return 0;
}

static int dotted_key(struct toml *t, struct strlist *parts)
{
	for (;;) {
		if (key_part(t, parts) < 0)
			return -1;
		skip_ws(t);
		if (t->p < t->end && *t->p == '.') {
			t->p++;
			continue;
		}
		return 0;
	}
}

static cJSON *value(struct toml *t);

static cJSON *number(struct toml *t)
{
	const char *s = t->p;
	struct buf b = BUF_INIT;
	bool is_float = false;
	while (t->p < t->end && (isalnum((unsigned char)*t->p) || strchr("+-._:", *t->p))) {
		char c = *t->p++;
		if (c == ':' || ((c == '-' || c == '+') && t->p - 1 != s && tolower(t->p[-2]) != 'e')) {
			buf_free(&b);
			fail(t, "dates and times are not supported");
			return NULL;
		}
		if (c == '.' || c == 'e' || c == 'E')
			is_float = true;
		if (c == '_') {
			/* underscores only between digits */
			if (t->p - 1 == s || !isdigit((unsigned char)t->p[-2]) || t->p >= t->end || !isdigit((unsigned char)*t->p)) {
				buf_free(&b);
				fail(t, "misplaced '_' in a number");
				return NULL;
			}
			continue;
		}
		buf_addc(&b, c);
	}
	const char *txt = b.data;
	const char *digits = txt + (*txt == '+' || *txt == '-');
	if (!strcmp(digits, "inf") || !strcmp(digits, "nan")) {
		buf_free(&b);
		fail(t, "inf and nan are not supported");
		return NULL;
	}
	if (digits[0] == '0' && digits[1] && isalpha((unsigned char)digits[1]) && digits[1] != 'e' && digits[1] != 'E') {
		buf_free(&b);
		fail(t, "hexadecimal, octal and binary integers are not supported");
		return NULL;
	}
	if (!isdigit((unsigned char)digits[0]) || (digits[0] == '0' && isdigit((unsigned char)digits[1]))) {
		buf_free(&b);
		fail(t, "expected a value (string, number, true/false, array or table)");
		return NULL;
	}
	char *endp;
	errno = 0;
	double d = strtod(txt, &endp);
	bool bad = *endp || errno == ERANGE;
	if (is_float) {
		/* TOML wants digits on both sides of '.' */
		const char *dot = strchr(txt, '.');
		if (dot && (!isdigit((unsigned char)dot[-1]) || !isdigit((unsigned char)dot[1])))
			bad = true;
	}
	buf_free(&b);
	if (bad) {
		fail(t, "malformed number");
		return NULL;
	}
	return cJSON_CreateNumber(d);
}

static cJSON *array(struct toml *t)
{
	t->p++; /* [ */
	cJSON *a = cJSON_CreateArray();
	for (;;) {
		skip_all(t);
		if (t->p >= t->end) {
			fail(t, "unterminated array");
			break;
		}
		if (*t->p == ']') {
			t->p++;
			return a;
		}
		cJSON *v = value(t);
		if (!v)
			break;
		cJSON_AddItemToArray(a, v);
		skip_all(t);
		if (t->p < t->end && *t->p == ',') {
			t->p++;
			continue;
		}
		if (t->p < t->end && *t->p == ']') {
			t->p++;
			return a;
		}
		fail(t, t->p >= t->end ? "unterminated array" : "expected ',' or ']' in an array");
		break;
	}
	cJSON_Delete(a);
	return NULL;
}

static int assign(struct toml *t, cJSON *table, struct strlist *key, cJSON *v);

static cJSON *inline_table(struct toml *t)
{
	t->p++; /* { */
	cJSON *o = cJSON_CreateObject();
	skip_ws(t);
	if (t->p < t->end && *t->p == '}') {
		t->p++;
		return o;
	}
	for (;;) {
		struct strlist key = STRLIST_INIT;
		if (dotted_key(t, &key) < 0) {
			strlist_free(&key); /* the parts read before the bad one */
			goto bad;
		}
		skip_ws(t);
		if (t->p >= t->end || *t->p != '=') {
			fail(t, "expected '=' after a key");
			strlist_free(&key);
			goto bad;
		}
		t->p++;
		skip_ws(t);
		cJSON *v = value(t);
		if (!v || assign(t, o, &key, v) < 0) {
			strlist_free(&key);
			goto bad;
		}
		strlist_free(&key);
		skip_ws(t);
		if (t->p < t->end && *t->p == ',') {
			t->p++;
			continue;
		}
		if (t->p < t->end && *t->p == '}') {
			t->p++;
			return o;
		}
		fail(t, "expected ',' or '}' in an inline table (which must fit on one line)");
		goto bad;
	}
bad:
	cJSON_Delete(o);
	return NULL;
}

static cJSON *value(struct toml *t)
{
	skip_ws(t);
	if (t->p >= t->end || *t->p == '\n' || *t->p == '#') {
		fail(t, "missing value");
		return NULL;
	}
	char c = *t->p;
	if (c == '"' || c == '\'') {
		struct buf b = BUF_INIT;
		if (string(t, &b) < 0) {
			buf_free(&b);
			return NULL;
		}
		cJSON *s = cJSON_CreateString(b.data);
		buf_free(&b);
		return s;
	}
	if (c == '[')
		return array(t);
	if (c == '{')
		return inline_table(t);
	if (t->end - t->p >= 4 && !strncmp(t->p, "true", 4) && (t->end - t->p == 4 || !is_bare(t->p[4]))) {
		t->p += 4;
		return cJSON_CreateTrue();
	}
	if (t->end - t->p >= 5 && !strncmp(t->p, "false", 5) && (t->end - t->p == 5 || !is_bare(t->p[5]))) {
		t->p += 5;
		return cJSON_CreateFalse();
	}
	return number(t);
}

/* Walks to (creating) the table holding the last key part. */
static cJSON *descend(struct toml *t, cJSON *table, const char *part)
{
	cJSON *next = cJSON_GetObjectItemCaseSensitive(table, part);
	if (!next) {
		next = cJSON_CreateObject();
		cJSON_AddItemToObject(table, part, next);
	} else if (cJSON_IsArray(next) && cJSON_GetArraySize(next) > 0 &&
		   cJSON_IsObject(cJSON_GetArrayItem(next, cJSON_GetArraySize(next) - 1))) {
		next = cJSON_GetArrayItem(next, cJSON_GetArraySize(next) - 1);
	} else if (!cJSON_IsObject(next)) {
		err_set(t->e, ERR_INPUT, "%s:%d: key '%s' is already a value, not a table", t->name, t->line, part);
		return NULL;
	}
	return next;
}

static int assign(struct toml *t, cJSON *table, struct strlist *key, cJSON *v)
{
	for (size_t i = 0; i + 1 < key->n; i++) {
		table = descend(t, table, key->v[i]);
		if (!table) {
			cJSON_Delete(v);
			return -1;
		}
	}
	const char *last = key->v[key->n - 1];
	if (cJSON_GetObjectItemCaseSensitive(table, last)) {
		cJSON_Delete(v);
		return err_set(t->e, ERR_INPUT, "%s:%d: key '%s' is defined twice", t->name, t->line, last);
	}
	cJSON_AddItemToObject(table, last, v);
	return 0;
}

static char *joined(const struct strlist *key)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < key->n; i++) {
		if (i)
			buf_addc(&b, '\x1f');
		buf_adds(&b, key->v[i]);
	}
	return buf_detach(&b);
}

/* [a.b] or [[a.b]]: returns the table that following keys go into. */
static cJSON *header(struct toml *t, cJSON *root)
{
	bool aot = t->end - t->p >= 2 && t->p[1] == '[';
	t->p += aot ? 2 : 1;
	struct strlist key = STRLIST_INIT;
	cJSON *table = NULL;
	if (dotted_key(t, &key) < 0)
		goto out;
	skip_ws(t);
	if (t->end - t->p < (aot ? 2 : 1) || t->p[0] != ']' || (aot && t->p[1] != ']')) {
		fail(t, aot ? "expected ']]' to close the header" : "expected ']' to close the header");
		goto out;
	}
	t->p += aot ? 2 : 1;
	cJSON *parent = root;
	for (size_t i = 0; i + 1 < key.n; i++) {
		parent = descend(t, parent, key.v[i]);
		if (!parent)
			goto out;
	}
	const char *last = key.v[key.n - 1];
	cJSON *cur = cJSON_GetObjectItemCaseSensitive(parent, last);
	if (aot) {
		if (!cur) {
			cur = cJSON_CreateArray();
			cJSON_AddItemToObject(parent, last, cur);
		} else if (!cJSON_IsArray(cur)) {
			err_set(t->e, ERR_INPUT, "%s:%d: '%s' is not an array of tables", t->name, t->line, last);
			goto out;
		}
		table = cJSON_CreateObject();
		cJSON_AddItemToArray(cur, table);
		goto out;
	}
	char *id = joined(&key);
	for (size_t i = 0; i < t->defined.n; i++) {
		if (!strcmp(t->defined.v[i], id)) {
			free(id);
			err_set(t->e, ERR_INPUT, "%s:%d: table [%s] is defined twice", t->name, t->line, last);
			goto out;
		}
	}
	strlist_push_owned(&t->defined, id);
	if (!cur) {
		cur = cJSON_CreateObject();
		cJSON_AddItemToObject(parent, last, cur);
	} else if (!cJSON_IsObject(cur)) {
		err_set(t->e, ERR_INPUT, "%s:%d: '%s' is already a value, not a table", t->name, t->line, last);
		goto out;
	}
	table = cur;
out:
	strlist_free(&key);
	return table;
}

cJSON *toml_parse(const char *text, size_t len, const char *name, struct err *e)
{
	struct toml t = { text, text + len, 1, name, e, STRLIST_INIT };
	if (memchr(text, '\0', len)) {
		err_set(e, ERR_INPUT, "%s: holds a NUL byte; is it really TOML?", name);
		return NULL;
	}
	cJSON *root = cJSON_CreateObject();
	cJSON *table = root;
	for (;;) {
		skip_all(&t);
		if (t.p >= t.end)
			break;
		if (*t.p == '[') {
			table = header(&t, root);
			if (!table || end_of_line(&t) < 0)
				goto bad;
			continue;
		}
		struct strlist key = STRLIST_INIT;
		if (dotted_key(&t, &key) < 0) {
			strlist_free(&key);
			goto bad;
		}
		skip_ws(&t);
		if (t.p >= t.end || *t.p != '=') {
			strlist_free(&key);
			fail(&t, "expected '=' after a key");
			goto bad;
		}
		t.p++;
		cJSON *v = value(&t);
		if (!v || assign(&t, table, &key, v) < 0) {
			strlist_free(&key);
			goto bad;
		}
		strlist_free(&key);
		if (end_of_line(&t) < 0)
			goto bad;
	}
	strlist_free(&t.defined);
	return root;
bad:
	strlist_free(&t.defined);
	cJSON_Delete(root);
	return NULL;
}

cJSON *toml_read_file(const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	if (fs_read(path, 4 << 20, &b, e) < 0) {
		buf_free(&b);
		return NULL;
	}
	cJSON *v = toml_parse(b.data, b.len, path, e);
	buf_free(&b);
	return v;
}
