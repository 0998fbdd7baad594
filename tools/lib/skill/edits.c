/* edits.c — an edit is a list of splices over the original bytes of one
 * document; sd_apply renders them (sorted once, every other byte copied),
 * sd_edit parses the result into a new model. */
#include <stdlib.h>
#include <string.h>

#include "skill/parse.h"
#include "skill/skilldoc.h"

static void splice(struct sd_edits *ed, size_t off, size_t len, const char *text, size_t n)
{
	struct sd_splice s;
	s.off = off;
	s.len = len;
	s.text = xmalloc(n + 1);
	if (n)
		memcpy(s.text, text, n);
	s.text[n] = '\0';
	s.tlen = n;
	s.seq = ed->n;
	SD_PUSH(ed->v, ed->n, ed->cap, s);
}

void sd_edits_replace(struct sd_edits *ed, size_t off, size_t len, const char *text, size_t n)
{
	splice(ed, off, len, text, n);
}

void sd_edits_insert(struct sd_edits *ed, size_t off, const char *text, size_t n)
{
	splice(ed, off, 0, text, n);
}

void sd_edits_delete(struct sd_edits *ed, size_t off, size_t len)
{
	splice(ed, off, len, "", 0);
}

void sd_edits_free(struct sd_edits *ed)
{
	for (size_t i = 0; i < ed->n; i++)
		free(ed->v[i].text);
	free(ed->v);
	ed->v = NULL;
	ed->n = ed->cap = 0;
}

void sd_edit_replace_block(struct sd_edits *ed, const struct skilldoc *d, int block,
			   const char *text, size_t n)
{
	splice(ed, d->blocks[block].off, d->blocks[block].len, text, n);
}

void sd_edit_replace_section(struct sd_edits *ed, const struct skilldoc *d, int section,
			     const char *text, size_t n)
{
	const struct sd_section *s = &d->sections[section];
	splice(ed, s->off, s->end - s->off, text, n);
}

void sd_edit_remove_section(struct sd_edits *ed, const struct skilldoc *d, int section)
{
	sd_edit_replace_section(ed, d, section, "", 0);
}

int sd_edit_move_section(struct sd_edits *ed, const struct skilldoc *d, int section,
			 size_t dest, struct err *e)
{
	const struct sd_section *s = &d->sections[section];
	if ((dest > s->off && dest < s->end) || dest > d->len || dest < d->body)
		return err_set(e, ERR_INPUT, "cannot move section '%s' to offset %zu: inside itself "
			       "or outside the body", s->id, dest);
	struct buf t = BUF_INIT;
	buf_add(&t, d->src + s->off, s->end - s->off);
	if (t.len && t.data[t.len - 1] != '\n')
		buf_addc(&t, '\n');
	splice(ed, dest, 0, t.data, t.len);
	splice(ed, s->off, s->end - s->off, "", 0);
	buf_free(&t);
	return 0;
}

static int splice_cmp(const void *x, const void *y)
{
	const struct sd_splice *a = x, *b = y;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if ((a->len == 0) != (b->len == 0))
		return a->len == 0 ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int sd_apply(const struct skilldoc *d, const struct sd_edits *ed, struct buf *out, struct err *e)
{
	struct sd_splice *v = xmalloc((ed->n ? ed->n : 1) * sizeof(*v));
	if (ed->n)
		memcpy(v, ed->v, ed->n * sizeof(*v));
	qsort(v, ed->n, sizeof(*v), splice_cmp);
	size_t at = 0;
	int rc = 0;
	for (size_t i = 0; i < ed->n; i++) {
		if (v[i].off > d->len || v[i].len > d->len - v[i].off) {
			rc = err_set(e, ERR_INPUT, "edit at %zu+%zu lies outside the document (%zu bytes)",
				     v[i].off, v[i].len, d->len);
			break;
		}
		if (v[i].off < at) {
			rc = err_set(e, ERR_INPUT, "edits overlap at offset %zu", v[i].off);
			break;
		}
		at = v[i].off + v[i].len;
	}
	if (!rc) {
		at = 0;
		for (size_t i = 0; i < ed->n; i++) {
			buf_add(out, d->src + at, v[i].off - at);
			buf_add(out, v[i].text, v[i].tlen);
			at = v[i].off + v[i].len;
		}
		buf_add(out, d->src + at, d->len - at);
	}
	free(v);
	return rc;
}

struct skilldoc *sd_edit(const struct skilldoc *d, const struct sd_edits *ed, struct err *e)
{
	struct buf b = BUF_INIT;
	if (sd_apply(d, ed, &b, e) < 0) {
		buf_free(&b);
		return NULL;
	}
	struct skilldoc *n = sd_parse(b.data, b.len);
	buf_free(&b);
	return n;
}
