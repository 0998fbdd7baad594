/* sd-dump — shows the skill document model of files, for tests and for
 * looking at how the model meets real skills.
 *   sd-dump FILE               blocks, sections, code blocks, refs, literals
 *   sd-dump --roundtrip FILE.. parse + render each file; checks the render is
 *                              byte-identical and the index is consistent;
 *                              prints "ok <file>" or "FAIL <file>: <why>" */
#include <stdio.h>
#include <string.h>

#include "base/fs.h"
#include "skill/skilldoc.h"

static void snippet(const struct skilldoc *d, size_t off, size_t len)
{
	putchar('"');
	for (size_t i = 0; i < len && i < 60; i++) {
		char c = d->src[off + i];
		if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '"' || c == '\\')
			printf("\\%c", c);
		else
			putchar(c);
	}
	if (len > 60)
		fputs("...", stdout);
	putchar('"');
}

static void dump(const struct skilldoc *d)
{
	printf("frontmatter %s %zu+%zu body %zu\n", d->has_frontmatter ? "yes" : d->fm_unclosed ? "unclosed" : "no",
	       d->fm.off, d->fm.len, d->body);
	for (size_t i = 0; i < d->nblocks; i++) {
		const struct sd_block *b = &d->blocks[i];
		printf("block %zu %s line %d", i, sd_block_kind_name(b->kind), b->line);
		if (b->kind == SD_HEADING) {
			printf(" h%d ", b->level);
			snippet(d, b->text.off, b->text.len);
		}
		printf(" section %d\n", b->section);
	}
	for (size_t i = 0; i < d->nsections; i++) {
		const struct sd_section *s = &d->sections[i];
		int l1, c1, l2, c2;
		sd_line_col(d, s->off, &l1, &c1);
		sd_line_col(d, s->end ? s->end - 1 : 0, &l2, &c2);
		printf("section \"%s\" level %d parent %d lines %d-%d\n", s->id, s->level, s->parent, l1, l2);
	}
	for (size_t i = 0; i < d->ncodes; i++) {
		const struct sd_code *c = &d->codes[i];
		int l, col;
		sd_line_col(d, c->off, &l, &col);
		printf("code line %d %s info ", l, c->fence_char ? (c->closed ? "fence" : "unclosed-fence") : "indented");
		snippet(d, c->info.off, c->info.len);
		printf(" block %d\n", c->block);
	}
	for (size_t i = 0; i < d->nrefs; i++)
		printf("ref %d:%d %s %s\n", d->refs[i].line, d->refs[i].col,
		       sd_ref_origin_name(d->refs[i].origin), d->refs[i].path);
	for (size_t i = 0; i < d->nliterals; i++) {
		int l, c;
		sd_line_col(d, d->literals[i].off, &l, &c);
		printf("literal %d:%d %s ", l, c, sd_lit_kind_name(d->literals[i].kind));
		snippet(d, d->literals[i].off, d->literals[i].len);
		putchar('\n');
	}
}

static const char *check(const struct skilldoc *d, const struct buf *in)
{
	struct buf out = BUF_INIT;
	sd_render(d, &out);
	bool same = out.len == in->len && (!out.len || !memcmp(out.data, in->data, out.len));
	buf_free(&out);
	if (!same)
		return "render differs from the input";
	size_t at = d->body;
	for (size_t i = 0; i < d->nblocks; i++) {
		if (d->blocks[i].off != at || !d->blocks[i].len)
			return "blocks do not tile the body";
		at += d->blocks[i].len;
	}
	if (at != d->len && !(at == d->body && d->body == d->len))
		return "blocks do not reach the end";
	for (size_t i = 0; i < d->ncodes; i++)
		for (size_t b = 0; b < d->nblocks; b++)
			if (d->blocks[b].kind == SD_HEADING && d->blocks[b].off >= d->codes[i].off &&
			    d->blocks[b].off < d->codes[i].off + d->codes[i].len)
				return "a heading inside a code block";
	for (size_t i = 1; i < d->nliterals; i++)
		if (d->literals[i].off < d->literals[i - 1].off + d->literals[i - 1].len)
			return "literals overlap";
	for (size_t i = 1; i < d->nsections; i++) {
		const struct sd_section *s = &d->sections[i], *p = &d->sections[s->parent];
		if (s->off < p->off || s->end > p->end || s->end <= s->off)
			return "a section outside its parent";
		if (sd_section_find(d, s->id) != (int)i)
			return "section id not unique";
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int rc = 0;
	bool rt = argc > 1 && !strcmp(argv[1], "--roundtrip");
	for (int i = rt ? 2 : 1; i < argc; i++) {
		struct buf in = BUF_INIT;
		struct err e = { 0, "" };
		if (fs_read(argv[i], 0, &in, &e) < 0) {
			printf("FAIL %s: %s\n", argv[i], e.msg);
			rc = 1;
			continue;
		}
		struct skilldoc *d = sd_parse(in.data, in.len);
		if (rt) {
			const char *why = check(d, &in);
			if (why)
				printf("FAIL %s: %s\n", argv[i], why), rc = 1;
			else
				printf("ok %s\n", argv[i]);
		} else {
			dump(d);
		}
		sd_free(d);
		buf_free(&in);
	}
	return rc;
}
