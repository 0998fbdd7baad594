#include "base/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/unicode.h"

/* The bytes of a valid UTF-8 sequence at p (up to the NUL), else 0. */
static size_t utf8_seq(const unsigned char *p)
{
	size_t n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4, have = strnlen((const char *)p, n);
	return have == n && utf8_check((const char *)p, n) == n ? n : 0;
}

void json_quote(const char *s, bool ascii, struct buf *out)
{
	buf_addc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		const unsigned char *run = p; /* bytes copied as they are, at once */
		while (*run >= 0x20 && *run != '"' && *run != '\\' && !(ascii && *run >= 0x7f))
			run++;
		if (run > p) {
			buf_add(out, p, (size_t)(run - p));
			p = run;
			continue;
		}
		unsigned c = *p;
		if (ascii && c >= 0x80) {
			size_t n = utf8_seq(p), k;
			uint32_t cp = n ? utf8_decode((const char *)p, n, &k) : 0xfffd; /* invalid: U+FFFD */
			p += n ? n : 1;
			if (cp >= 0x10000) {
				cp -= 0x10000;
				buf_printf(out, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
			} else {
				buf_printf(out, "\\u%04x", cp);
			}
			continue;
		}
		p++;
		switch (c) {
		case '"': buf_adds(out, "\\\""); break;
		case '\\': buf_adds(out, "\\\\"); break;
		case '\b': buf_adds(out, "\\b"); break;
		case '\f': buf_adds(out, "\\f"); break;
		case '\n': buf_adds(out, "\\n"); break;
		case '\r': buf_adds(out, "\\r"); break;
		case '\t': buf_adds(out, "\\t"); break;
		default:
			if (c < 0x20 || (ascii && c == 0x7f))
				buf_printf(out, "\\u%04x", c);
			else
				buf_addc(out, (char)c);
		}
	}
	buf_addc(out, '"');
}

static void put_number(double d, struct buf *out)
{
	if (!isfinite(d)) {
		buf_adds(out, "null"); /* JSON has no inf/nan */
	} else if (d == 0) {
		buf_addc(out, '0'); /* also for -0 */
	} else if (d == floor(d) && fabs(d) < 9007199254740992.0) {
		/* an integer: digits by hand (printf of a double is slow, and reports hold many) */
		char tmp[24], *p = tmp + sizeof tmp;
		unsigned long long u = (unsigned long long)fabs(d);
		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (d < 0)
			*--p = '-';
		buf_add(out, p, (size_t)(tmp + sizeof tmp - p));
	} else {
		/* tools never call setlocale, so the decimal point is '.'; the
		 * shortest of %.15g/%.16g/%.17g that reads back as the same double */
		char tmp[40];
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(tmp, sizeof tmp, "%.*g", prec, d);
			if (prec == 17 || strtod(tmp, NULL) == d)
				break;
		}
		buf_adds(out, tmp);
	}
}

static int cmp_keys(const void *a, const void *b)
{
	const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;
	return strcmp(x->string, y->string);
}

static void indent(struct buf *out, int depth)
{
	buf_addc(out, '\n');
	for (int i = 0; i < depth; i++)
		buf_adds(out, "  ");
}

static void canon(const cJSON *v, bool pretty, int depth, struct buf *out)
{
	if (cJSON_IsNull(v) || cJSON_IsInvalid(v)) {
		buf_adds(out, "null");
	} else if (cJSON_IsFalse(v)) {
		buf_adds(out, "false");
	} else if (cJSON_IsTrue(v)) {
		buf_adds(out, "true");
	} else if (cJSON_IsNumber(v)) {
		put_number(v->valuedouble, out);
	} else if (cJSON_IsString(v) || cJSON_IsRaw(v)) {
		json_quote(v->valuestring ? v->valuestring : "", false, out);
	} else if (cJSON_IsArray(v)) {
		buf_addc(out, '[');
		int i = 0;
		for (const cJSON *c = v->child; c; c = c->next, i++) {
			if (i)
				buf_addc(out, ',');
			if (pretty)
				indent(out, depth + 1);
			canon(c, pretty, depth + 1, out);
		}
		if (pretty && i)
			indent(out, depth);
		buf_addc(out, ']');
	} else if (cJSON_IsObject(v)) {
		size_t n = 0;
		for (const cJSON *c = v->child; c; c = c->next)
			n++;
		cJSON **kids = xmalloc(n * sizeof *kids);
		n = 0;
		for (cJSON *c = v->child; c; c = c->next)
			kids[n++] = c;
		qsort(kids, n, sizeof *kids, cmp_keys);
		buf_addc(out, '{');
		for (size_t i = 0; i < n; i++) {
			if (i)
				buf_addc(out, ',');
			if (pretty)
				indent(out, depth + 1);
			json_quote(kids[i]->string, false, out);
			buf_adds(out, pretty ? ": " : ":");
			canon(kids[i], pretty, depth + 1, out);
		}
		if (pretty && n)
			indent(out, depth);
		buf_addc(out, '}');
		free(kids);
	}
}

void json_canon(const cJSON *v, bool pretty, struct buf *out)
{
	canon(v, pretty, 0, out);
}

void json_hash(const cJSON *v, char out[33])
{
	struct buf b = BUF_INIT;
	json_canon(v, false, &b);
	hash_bytes(b.data, b.len, out);
	buf_free(&b);
}

void json_use_project_allocator(void)
{
	cJSON_Hooks h = { xmalloc, free };
	cJSON_InitHooks(&h);
}

/* True when text stops inside a string or an open array or object. */
static bool cut_short(const char *text, size_t len)
{
	long depth = 0;
	bool in_str = false;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (in_str)
			in_str = c == '\\' ? (i++, true) : c != '"';
		else if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			depth--;
	}
	return in_str || depth > 0;
}

/* Says what is wrong with text where cJSON stopped at `at`. */
static void parse_error(const char *text, size_t len, size_t at, const char *name, struct err *e)
{
	size_t used = len;
	while (used && strchr(" \t\r\n", text[used - 1]))
		used--;
	int line = 1, col = 1;
	for (size_t i = 0; i < at && i < len; i++, col++)
		if (text[i] == '\n')
			line++, col = 0;
	const char *p = text + (at < len ? at : len);
	size_t left = len - (size_t)(p - text);
	while (left && *p != '-' && *p != 'N' && *p != 'I' && strchr(" \t\r\n:,[", *p))
		p++, left--;
	if (!used)
		err_set(e, ERR_INPUT, "'%s' is empty", name);
	else if (at >= used || cut_short(text, len))
		err_set(e, ERR_INPUT, "'%s' is not valid JSON (truncated, or still being written): it "
			"ends at line %d before the value is complete", name, line);
	else if ((left >= 3 && !memcmp(p, "NaN", 3)) || (left >= 8 && !memcmp(p, "Infinity", 8)) ||
		 (left >= 9 && !memcmp(p, "-Infinity", 9)))
		err_set(e, ERR_INPUT, "'%s' line %d: %.*s is not a JSON number (Python's json writes it for a "
			"float that is not finite): the writer produced a value that is not a number",
			name, line, *p == 'N' ? 3 : *p == 'I' ? 8 : 9, p);
	else
		err_set(e, ERR_INPUT, "'%s' is not valid JSON (near line %d, column %d)", name, line, col);
}

size_t json_after_value(const char *text, size_t len, const char *end)
{
	size_t at = (size_t)(end - text);
	while (at < len && strchr(" \t\r\n", text[at]) && text[at])
		at++;
	return at < len ? at : 0;
}

/* Parses text (len bytes) named name in messages; NULL with e set
 * (ERR_INPUT) saying what is wrong: empty, truncated, NaN/Infinity (which
 * Python's json writes), where it stops being JSON, or more after the value. */
static cJSON *json_parse_text(const char *text, size_t len, const char *name, struct err *e)
{
	const char *end = NULL;
	cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!v) {
		parse_error(text, len, end ? (size_t)(end - text) : 0, name, e);
		return NULL;
	}
	size_t more = json_after_value(text, len, end);
	if (more) {
		int line = 1;
		for (size_t i = 0; i < more; i++)
			line += text[i] == '\n';
		err_set(e, ERR_INPUT, "'%s' holds more after its JSON value (from line %d): two writers, or bytes "
			"appended to it; write it again", name, line);
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

cJSON *json_read_file(const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	if (fs_read(path, 0, &b, e) < 0) {
		buf_free(&b);
		return NULL;
	}
	cJSON *v = json_parse_text(b.data, b.len, path, e);
	buf_free(&b);
	return v;
}

cJSON *json_read_opt(const char *path)
{
	struct err e;
	return json_read_file(path, &e);
}

cJSON *json_read_rel(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);
	cJSON *v = json_read_opt(p);
	free(p);
	return v;
}

int json_write_file(const char *path, const cJSON *v, struct err *e)
{
	struct buf b = BUF_INIT;
	json_canon(v, true, &b);
	buf_addc(&b, '\n');
	int r = fs_write_atomic(path, b.data, b.len, 0644, e);
	buf_free(&b);
	return r;
}

int json_write_if_changed(const char *path, const cJSON *v, struct err *e)
{
	struct buf b = BUF_INIT;
	json_canon(v, true, &b);
	buf_addc(&b, '\n');
	int r = fs_write_if_changed(path, b.data, b.len, e);
	buf_free(&b);
	return r;
}

cJSON *json_get(const cJSON *obj, const char *key)
{
	return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = json_get(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double json_num(const cJSON *obj, const char *key, double fallback)
{
	const cJSON *v = json_get(obj, key);
	return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

bool json_bool(const cJSON *obj, const char *key, bool fallback)
{
	const cJSON *v = json_get(obj, key);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}

bool json_has_str(const cJSON *list, const char *s)
{
	for (const cJSON *x = cJSON_IsArray(list) ? list->child : NULL; x; x = x->next)
		if (cJSON_IsString(x) && !strcmp(x->valuestring, s))
			return true;
	return false;
}

cJSON *json_set(cJSON *obj, const char *key, cJSON *value)
{
	if (json_get(obj, key))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, value);
	else
		cJSON_AddItemToObject(obj, key, value);
	return value;
}

cJSON *json_set_str(cJSON *obj, const char *key, const char *s)
{
	return json_set(obj, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

cJSON *json_set_num(cJSON *obj, const char *key, double n)
{
	return json_set(obj, key, cJSON_CreateNumber(n));
}

cJSON *json_set_bool(cJSON *obj, const char *key, bool b)
{
	return json_set(obj, key, cJSON_CreateBool(b));
}
