#include "compile/specfix.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/unicode.h"
#include "skill/frontmatter.h"

/* Bytes of s (len) that hold at most max code points. */
static size_t prefix_of(const char *s, size_t len, size_t max)
{
	size_t i = 0, n = 0;
	while (i < len && n < max) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		n++;
	}
	return i;
}

/* The longest head of s (within cap bytes) that ends a sentence, else a
 * word; its length. */
static size_t cut_at(const char *s, size_t cap)
{
	size_t word = 0;
	for (size_t i = cap; i > 0; i--) {
		char c = s[i - 1];
		if ((c == '.' || c == '!' || c == '?') && (i == cap || s[i] == ' '))
			return i;
		if (!word && s[i - 1] == ' ' && i > 1)
			word = i - 1;
	}
	return word ? word : cap;
}

/* The description's lines in md: from its key's line to the next line that
 * starts a key (or closes the frontmatter). */
static void value_lines(const char *md, size_t fm_end, int line, size_t *from, size_t *to)
{
	size_t p = 0;
	for (int l = 1; l < line && p < fm_end; l++)
		p = (size_t)(strchr(md + p, '\n') - md) + 1;
	*from = p;
	p = (size_t)(strchr(md + p, '\n') - md) + 1;
	while (p < fm_end && (md[p] == ' ' || md[p] == '\t' || md[p] == '\n'))
		p = (size_t)(strchr(md + p, '\n') - md) + 1;
	*to = p;
}

cJSON *specfix_description(struct skill_out *o)
{
	const struct skilldoc *d = skill_out_model(o);
	if (!d->has_frontmatter || d->fm_unclosed)
		return NULL;
	const char *md = o->md.data;
	struct fm_node *root = NULL;
	struct fm_error fe;
	if (fm_parse(md + d->fm_yaml.off, d->fm_yaml.len, 2, 1, &root, &fe) < 0 || !root)
		return NULL;
	const struct fm_node *v = fm_get(root, "description");
	cJSON *step = NULL;
	size_t chars = v && v->kind == FM_SCALAR ? utf8_count(v->str, v->len) : 0;
	if (chars > SPEC_DESCRIPTION_MAX) {
		size_t n = cut_at(v->str, prefix_of(v->str, v->len, SPEC_DESCRIPTION_MAX));
		struct buf b = BUF_INIT;
		size_t from, to;
		value_lines(md, d->fm.off + d->fm.len, v->line, &from, &to);
		buf_add(&b, md, from);
		buf_adds(&b, "description: \"");
		for (size_t i = 0; i < n; i++) {
			if (v->str[i] == '"' || v->str[i] == '\\')
				buf_addc(&b, '\\');
			buf_addc(&b, v->str[i] == '\n' ? ' ' : v->str[i]);
		}
		buf_adds(&b, "\"\n");
		buf_add(&b, md + to, o->md.len - to);
		skill_out_set_md(o, &b);
		step = cJSON_CreateObject();
		json_set_str(step, "step", "spec: description");
		json_set_str(step, "kind", "spec");
		json_set_str(step, "status", "applied");
		char *why = xasprintf("the description had %zu characters, over the spec's %d: cut to %zu at the last "
				      "sentence or word end that fits",
				      chars, SPEC_DESCRIPTION_MAX, utf8_count(v->str, n));
		json_set_str(step, "why", why);
		free(why);
	}
	fm_free(root);
	return step;
}
