/* skilldoc.c — sd_parse and the model's lifetime (parse.h says which file
 * builds what), rendering and the measures lint uses. */
#include <stdlib.h>
#include <string.h>

#include "base/unicode.h"
#include "skill/parse.h"
#include "skill/skilldoc.h"

struct skilldoc *sd_parse(const char *bytes, size_t len)
{
	struct skilldoc *d = xcalloc(1, sizeof *d);
	struct parser P;
	memset(&P, 0, sizeof P);
	P.d = d;
	d->users = 1;
	d->src = xmalloc(len + 1);
	if (len)
		memcpy(d->src, bytes, len);
	d->src[len] = '\0';
	d->len = len;

	size_t cap = 0;
	for (size_t i = 0; i < len; i++)
		if (i == 0 || bytes[i - 1] == '\n')
			SD_PUSH(d->line_starts, d->nlines, cap, i);

	sd_find_frontmatter(d);
	sd_parse_blocks(&P);
	sd_scan_inlines(&P);
	sd_build_sections(&P);
	return d;
}

struct skilldoc *sd_share(const struct skilldoc *d)
{
	struct skilldoc *m = (struct skilldoc *)d; /* only the count of holders changes */
	if (m)
		m->users++;
	return m;
}

void sd_free(struct skilldoc *d)
{
	if (!d || --d->users)
		return;
	for (size_t i = 0; i < d->nsections; i++) {
		free(d->sections[i].id);
		free(d->sections[i].path);
		free(d->sections[i].slug);
	}
	for (size_t i = 0; i < d->nrefs; i++)
		free(d->refs[i].path);
	free(d->sections);
	free(d->refs);
	free(d->blocks);
	free(d->codes);
	free(d->inlines);
	free(d->literals);
	free(d->line_starts);
	strmap_free(&d->section_ids);
	free(d->src);
	free(d);
}

void sd_render(const struct skilldoc *d, struct buf *out)
{
	buf_add(out, d->src, d->body);
	for (size_t b = 0; b < d->nblocks; b++)
		buf_add(out, d->src + d->blocks[b].off, d->blocks[b].len);
}

void sd_line_col(const struct skilldoc *d, size_t off, int *line, int *col)
{
	if (!d->nlines) {
		*line = 1, *col = 1;
		return;
	}
	size_t l = sd_line_of_off(d, off);
	*line = (int)l + 1;
	*col = (int)utf8_count(d->src + d->line_starts[l], off - d->line_starts[l]) + 1;
}

size_t sd_body_lines(const struct skilldoc *d)
{
	size_t n = 0;
	for (size_t i = d->body; i < d->len; i++)
		n += d->src[i] == '\n';
	if (d->len > d->body && d->src[d->len - 1] != '\n')
		n++;
	return n;
}

size_t sd_estimate_tokens(const char *s, size_t len)
{
	size_t ascii = 0, other = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80)
			ascii++;
		else if ((c & 0xC0) != 0x80)
			other++;
	}
	return (ascii + 3) / 4 + other;
}

const char *sd_block_kind_name(enum sd_block_kind k)
{
	static const char *const names[] = { "blank", "heading", "paragraph", "list-item", "fence",
					     "indented-code", "table", "quote", "html", "rule" };
	return (size_t)k < ARRAY_LEN(names) ? names[k] : "?";
}

const char *sd_lit_kind_name(enum sd_lit_kind k)
{
	static const char *const names[] = { "code-block", "code-span", "url", "path", "flag",
					     "number", "placeholder", "env" };
	return (size_t)k < ARRAY_LEN(names) ? names[k] : "?";
}

const char *sd_ref_origin_name(enum sd_ref_origin o)
{
	static const char *const names[] = { "link", "code", "text", "code-block" };
	return (size_t)o < ARRAY_LEN(names) ? names[o] : "?";
}

