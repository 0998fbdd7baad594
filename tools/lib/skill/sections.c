/* sections.c — the section tree built from the headings (skilldoc.h: ids
 * are "<slug path>#<ordinal>"), each block's innermost section, and the id
 * index behind sd_section_find. One pass over the blocks with a stack of
 * open sections (at most 7 deep: levels 1-6 and the root); ordinals come
 * from a hash map of slug paths, trailing blanks from one backward pass. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/unicode.h"
#include "skill/parse.h"
#include "skill/skilldoc.h"

/* Decodes one code point, or U+FFFD for one invalid byte. */
static uint32_t decode_safe(const char *s, size_t n, size_t *len)
{
	unsigned char c = (unsigned char)s[0];
	size_t want = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
	if (want > n || utf8_check(s, want) != want) {
		*len = 1;
		return 0xFFFD;
	}
	return utf8_decode(s, want, len);
}

static char *make_slug(const char *s, size_t n)
{
	struct buf out = BUF_INIT;
	bool dash = false, no_gt = false; /* no '>' after here: stop looking (linear) */
	for (size_t i = 0; i < n;) {
		/* link targets and HTML tags are not heading text */
		if (s[i] == ']' && i + 1 < n && s[i + 1] == '(') {
			const char *close = memchr(s + i, ')', n - i);
			i = close ? (size_t)(close - s) + 1 : n;
			dash = true;
			continue;
		}
		if (!no_gt && s[i] == '<' && i + 1 < n && (isalpha((unsigned char)s[i + 1]) || s[i + 1] == '/')) {
			const char *close = memchr(s + i, '>', n - i);
			if (close) {
				i = (size_t)(close - s) + 1;
				dash = true;
				continue;
			}
			no_gt = true;
		}
		size_t len;
		uint32_t cp = decode_safe(s + i, n - i, &len);
		bool keep = cp < 0x80 ? isalnum((int)cp) : uc_is_alnum(cp);
		if (keep) {
			size_t need = len + (dash && out.len ? 1 : 0);
			if (out.len + need > 48) {
				/* cut at a word boundary when there is one */
				char *dash_at = out.len && !dash ? memrchr(out.data, '-', out.len) : NULL;
				if (dash_at)
					out.len = (size_t)(dash_at - out.data), out.data[out.len] = '\0';
				break;
			}
			if (dash && out.len)
				buf_addc(&out, '-');
			if (cp < 0x80)
				buf_addc(&out, (char)tolower((int)cp));
			else
				buf_add(&out, s + i, len);
			dash = false;
		} else {
			dash = true;
		}
		i += len;
	}
	if (!out.len)
		buf_adds(&out, "section");
	return buf_detach(&out);
}

static struct sd_section root_section(const struct skilldoc *d)
{
	struct sd_section root;
	memset(&root, 0, sizeof root);
	root.id = xstrdup("");
	root.path = xstrdup("");
	root.slug = xstrdup("");
	root.heading = -1;
	root.parent = -1;
	root.off = root.content_off = d->body;
	root.own_end = root.end = d->len;
	root.block_end = d->nblocks;
	return root;
}

/* The section a heading block opens, under parent; ordinals counts the
 * sections of each slug path so far. */
static struct sd_section open_section(const struct skilldoc *d, size_t b, int parent, struct strmap *ordinals)
{
	const struct sd_block *bl = &d->blocks[b];
	const struct sd_section *up = &d->sections[parent];
	struct sd_section s;
	memset(&s, 0, sizeof s);
	s.slug = make_slug(d->src + bl->text.off, bl->text.len);
	s.path = *up->path ? xasprintf("%s/%s", up->path, s.slug) : xstrdup(s.slug);
	size_t *ord = strmap_put(ordinals, s.path, NULL);
	s.id = xasprintf("%s#%zu", s.path, ++*ord);
	s.level = bl->level;
	s.heading = (int)b;
	s.parent = parent;
	s.off = bl->off;
	s.content_off = bl->off + bl->len;
	s.own_end = s.end = d->len;
	s.block = b;
	s.block_end = d->nblocks;
	return s;
}

/* A section closes where a heading of its rank or higher starts. */
static void close_section(struct sd_section *s, size_t b, size_t off)
{
	s->end = off;
	s->block_end = b;
}

/* trim_end: the end without trailing blank blocks (they belong to the
 * section but not to its text), from one pass over the blocks. */
static void trim_sections(struct skilldoc *d)
{
	/* text_end[b]: 1 + the last block before b that is not blank, or 0 */
	size_t *text_end = xmalloc((d->nblocks + 1) * sizeof *text_end);
	text_end[0] = 0;
	for (size_t b = 0; b < d->nblocks; b++)
		text_end[b + 1] = d->blocks[b].kind != SD_BLANK ? b + 1 : text_end[b];
	for (size_t k = 0; k < d->nsections; k++) {
		struct sd_section *s = &d->sections[k];
		if (s->own_end > s->end)
			s->own_end = s->end;
		size_t first = s->heading >= 0 ? (size_t)s->heading + 1 : 0; /* the first content block */
		size_t from = text_end[s->block_end] > first ? text_end[s->block_end] : first;
		s->trim_end = from < s->block_end ? d->blocks[from].off : s->end;
	}
	free(text_end);
}

void sd_build_sections(struct parser *P)
{
	struct skilldoc *d = P->d;
	struct strmap ordinals = STRMAP_INIT;
	struct sd_section root = root_section(d);
	SD_PUSH(d->sections, d->nsections, P->section_cap, root);
	int stack[8] = { 0 };
	int depth = 0; /* stack[0..depth] */
	for (size_t b = 0; b < d->nblocks; b++) {
		struct sd_block *bl = &d->blocks[b];
		if (bl->kind != SD_HEADING) {
			bl->section = stack[depth];
			continue;
		}
		while (depth > 0 && d->sections[stack[depth]].level >= bl->level)
			close_section(&d->sections[stack[depth--]], b, bl->off);
		int parent = stack[depth];
		struct sd_section *up = &d->sections[parent];
		if (up->own_end == up->end || up->own_end > bl->off)
			up->own_end = bl->off;
		struct sd_section s = open_section(d, b, parent, &ordinals);
		SD_PUSH(d->sections, d->nsections, P->section_cap, s);
		stack[++depth] = (int)d->nsections - 1;
		bl->section = stack[depth];
	}
	strmap_free(&ordinals);
	trim_sections(d);
	for (size_t k = 0; k < d->nsections; k++)
		*strmap_put(&d->section_ids, d->sections[k].id, NULL) = k;
}

int sd_section_find(const struct skilldoc *d, const char *id)
{
	char *want = strchr(id, '#') || !*id ? xstrdup(id) : xasprintf("%s#1", id);
	const size_t *k = strmap_get(&d->section_ids, want);
	free(want);
	return k ? (int)*k : -1;
}

void sd_section_text(const struct skilldoc *d, int section, struct buf *out)
{
	const struct sd_section *s = &d->sections[section];
	buf_add(out, d->src + s->off, s->end - s->off);
}
