#include "pyjson.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void float_text(double d, char out[40])
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(out, 40, "%.*g", prec, d);
		if (strtod(out, NULL) == d)
			break;
	}
	/* Python writes 1e+16 as "1e+16" and 1e-05 as "1e-05", like %g */
	if (!strpbrk(out, ".eEn"))
		strcat(out, ".0");
}

cJSON *pyjson_float(double d)
{
	if (!isfinite(d))
		return cJSON_CreateNull();
	char text[40];
	float_text(d, text);
	cJSON *n = cJSON_CreateRaw(text);
	if (!n)
		abort();
	return n;
}

cJSON *pyjson_add_float(cJSON *obj, const char *key, double d)
{
	cJSON *n = pyjson_float(d);
	cJSON_AddItemToObject(obj, key, n);
	return n;
}

double pyjson_number(const cJSON *v)
{
	if (cJSON_IsRaw(v))
		return strtod(v->valuestring, NULL);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Decodes one UTF-8 sequence; returns its length, or 0 when malformed. */
static int utf8_decode(const unsigned char *p, unsigned *cp)
{
	if (p[0] < 0xc2)
		return 0;
	int n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : p[0] < 0xf5 ? 4 : 0;
	if (!n)
		return 0;
	unsigned c = p[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static void put_string(const char *s, struct buf *out)
{
	buf_addc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		unsigned c = *p;
		if (c >= 0x80) {
			int n = utf8_decode(p, &c);
			if (!n) {
				c = 0xfffd; /* invalid bytes: the replacement character */
				n = 1;
			}
			p += n;
			if (c >= 0x10000) {
				c -= 0x10000;
				buf_printf(out, "\\u%04x\\u%04x", 0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
			} else {
				buf_printf(out, "\\u%04x", c);
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
			if (c < 0x20 || c == 0x7f)
				buf_printf(out, "\\u%04x", c);
			else
				buf_addc(out, (char)c);
		}
	}
	buf_addc(out, '"');
}

static void newline(struct buf *out, int indent, int depth)
{
	buf_addc(out, '\n');
	for (int i = 0; i < indent * depth; i++)
		buf_addc(out, ' ');
}

static void print(const cJSON *v, int indent, int depth, struct buf *out)
{
	if (cJSON_IsTrue(v)) {
		buf_adds(out, "true");
	} else if (cJSON_IsFalse(v)) {
		buf_adds(out, "false");
	} else if (cJSON_IsRaw(v)) {
		buf_adds(out, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (!isfinite(d)) {
			buf_adds(out, "null");
		} else if (d == floor(d) && fabs(d) < 9007199254740992.0) {
			buf_printf(out, "%.0f", d);
		} else {
			char text[40];
			float_text(d, text);
			buf_adds(out, text);
		}
	} else if (cJSON_IsString(v)) {
		put_string(v->valuestring, out);
	} else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		bool obj = cJSON_IsObject(v);
		buf_addc(out, obj ? '{' : '[');
		if (!v->child) {
			buf_addc(out, obj ? '}' : ']');
			return;
		}
		for (const cJSON *c = v->child; c; c = c->next) {
			if (c != v->child)
				buf_adds(out, indent < 0 ? ", " : ",");
			if (indent >= 0)
				newline(out, indent, depth + 1);
			if (obj) {
				put_string(c->string ? c->string : "", out);
				buf_adds(out, ": ");
			}
			print(c, indent, depth + 1, out);
		}
		if (indent >= 0)
			newline(out, indent, depth);
		buf_addc(out, obj ? '}' : ']');
	} else {
		buf_adds(out, "null");
	}
}

void pyjson_print(const cJSON *v, int indent, struct buf *out)
{
	print(v, indent, 0, out);
}
