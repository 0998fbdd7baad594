/* skilldoc — the document model on any bytes: rendering an unmodified model
 * gives the input back byte for byte, blocks tile the body, every section
 * is found by its id, literals never overlap, and edits that replace,
 * remove and move sections apply and parse again. */
#include "fuzz.h"
#include "skill/skilldoc.h"

static void check_model(const struct skilldoc *d, const char *data, size_t size)
{
	struct buf out = BUF_INIT;
	sd_render(d, &out);
	FUZZ_CHECK(out.len == size && (!size || !memcmp(out.data, data, size)));
	buf_free(&out);
	size_t at = d->body;
	for (size_t i = 0; i < d->nblocks; i++) {
		FUZZ_CHECK(d->blocks[i].off == at && d->blocks[i].len > 0);
		at += d->blocks[i].len;
	}
	FUZZ_CHECK(d->nblocks == 0 || at == d->len);
	for (size_t i = 1; i < d->nliterals; i++)
		FUZZ_CHECK(d->literals[i].off >= d->literals[i - 1].off + d->literals[i - 1].len);
	for (size_t i = 0; i < d->nsections; i++) {
		const struct sd_section *s = &d->sections[i];
		FUZZ_CHECK(sd_section_find(d, s->id) == (int)i);
		FUZZ_CHECK(s->off <= s->trim_end && s->trim_end <= s->end && s->end <= d->len);
	}
	for (size_t i = 0; i < d->nrefs; i++)
		FUZZ_CHECK(d->refs[i].line >= 1 && d->refs[i].col >= 1);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct skilldoc *d = sd_parse((const char *)data, size);
	check_model(d, (const char *)data, size);
	struct sd_edits ed = SD_EDITS_INIT;
	struct err e;
	if (d->nsections > 2) {
		sd_edit_replace_section(&ed, d, 1, "# replaced\n", 11);
		if (sd_edit_move_section(&ed, d, (int)d->nsections - 1, d->body, &e) < 0)
			sd_edits_delete(&ed, d->body, 0);
	} else if (d->nblocks) {
		sd_edit_replace_block(&ed, d, 0, "x\n", 2);
	}
	struct skilldoc *n = sd_edit(d, &ed, &e);
	if (n) {
		struct buf out = BUF_INIT;
		sd_render(n, &out);
		check_model(n, out.data, out.len);
		buf_free(&out);
	}
	sd_free(n);
	sd_edits_free(&ed);
	sd_free(d);
	return 0;
}
