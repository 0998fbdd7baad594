#include "base/pyjson.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

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

/* A number node printed as a Python float (repr: shortest text that reads
 * back to the same double, with ".0" when integral). Caller owns the node
 * (add it to a tree). Non-finite values become null. */
static cJSON *pyjson_float(double d)
{
	if (!isfinite(d))
		return cJSON_CreateNull();
	char text[40];
	float_text(d, text);
	cJSON *n = cJSON_CreateRaw(text);
	if (!n) /* only for want of memory, which xmalloc (the cJSON hooks) never returns */
		BUG("cJSON_CreateRaw failed");
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
		json_quote(v->valuestring, true, out);
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
				json_quote(c->string ? c->string : "", true, out);
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
