/* skilldoc_test — the skill document model: block structure, headings that
 * are not headings (fences), sections and their ids, inline index, file
 * references, protected literals, byte-exact rendering and edits. */
#include "t.h"
#include "skill/skilldoc.h"

static struct skilldoc *parse(const char *s)
{
	return sd_parse(s, strlen(s));
}

static bool renders_same(const struct skilldoc *d, const char *s)
{
	struct buf b = BUF_INIT;
	sd_render(d, &b);
	bool ok = b.len == strlen(s) && !memcmp(b.data, s, b.len);
	buf_free(&b);
	return ok;
}

static int count_kind(const struct skilldoc *d, enum sd_block_kind k)
{
	int n = 0;
	for (size_t i = 0; i < d->nblocks; i++)
		n += d->blocks[i].kind == k;
	return n;
}

static char *span(const struct skilldoc *d, size_t off, size_t len)
{
	return xstrndup(d->src + off, len);
}

/* The text of the i-th literal of kind k, or NULL. */
static char *literal(const struct skilldoc *d, enum sd_lit_kind k, int i)
{
	for (size_t j = 0; j < d->nliterals; j++)
		if (d->literals[j].kind == k && i-- == 0)
			return span(d, d->literals[j].off, d->literals[j].len);
	return NULL;
}

static bool has_literal(const struct skilldoc *d, enum sd_lit_kind k, const char *text)
{
	for (size_t j = 0; j < d->nliterals; j++)
		if (d->literals[j].kind == k && d->literals[j].len == strlen(text) &&
		    !memcmp(d->src + d->literals[j].off, text, d->literals[j].len))
			return true;
	return false;
}

static bool is_protected(const struct skilldoc *d, const char *text)
{
	const char *p = strstr(d->src, text);
	if (!p)
		return false;
	size_t off = (size_t)(p - d->src);
	for (size_t j = 0; j < d->nliterals; j++)
		if (d->literals[j].off <= off && off + strlen(text) <= d->literals[j].off + d->literals[j].len)
			return true;
	return false;
}

static void frontmatter_and_render(void)
{
	const char *s = "---\nname: x\ndescription: y\n---\n# T\n\nBody.\n";
	struct skilldoc *d = parse(s);
	CHECK(d->has_frontmatter);
	CHECK_INT(d->fm.off, 0);
	CHECK_INT(d->fm.len, 31);
	char *y = span(d, d->fm_yaml.off, d->fm_yaml.len);
	CHECK_STR(y, "name: x\ndescription: y\n");
	free(y);
	CHECK_INT(d->body, 31);
	CHECK(renders_same(d, s));
	sd_free(d);

	d = parse("---\nname: x\n");
	CHECK(!d->has_frontmatter);
	CHECK(d->fm_unclosed);
	CHECK_INT(d->body, 0);
	sd_free(d);

	d = parse("");
	CHECK(renders_same(d, ""));
	CHECK_INT(d->nblocks, 0);
	CHECK_INT(d->nsections, 1);
	sd_free(d);

	/* no final newline, CRLF, tabs */
	s = "---\r\nname: x\r\n---\r\n# A\r\n\tcode?\r\n\r\ntext";
	d = parse(s);
	CHECK(d->has_frontmatter);
	CHECK(renders_same(d, s));
	sd_free(d);
}

static void atx_headings(void)
{
	const char *s = "# One #\n#NoSpace\n    # indented code\n\n   ### Three ###   \n####### seven\n##\n";
	struct skilldoc *d = parse(s);
	int h = 0;
	for (size_t i = 0; i < d->nblocks; i++) {
		if (d->blocks[i].kind != SD_HEADING)
			continue;
		char *t = span(d, d->blocks[i].text.off, d->blocks[i].text.len);
		static const char *const texts[] = { "One", "Three", "" };
		static const int levels[] = { 1, 3, 2 };
		if (h < 3) {
			CHECK_STR(t, texts[h]);
			CHECK_INT(d->blocks[i].level, levels[h]);
		}
		free(t);
		h++;
	}
	CHECK_INT(h, 3);
	CHECK(renders_same(d, s));
	sd_free(d);
}

static void headings_inside_fences_are_not_headings(void)
{
	const char *s =
		"# Real\n\n"
		"```bash\n# comment\n```\n\n"
		"~~~\n# tilde\n~~~\n\n"
		"````markdown\n```\n# still inside\n```\n````\n\n"
		"   ```\n# three-space fence\n   ```\n\n"
		"## Also real\n\n"
		"```python\n# unclosed runs to the end\n## not a heading\n";
	struct skilldoc *d = parse(s);
	CHECK_INT(count_kind(d, SD_HEADING), 2);
	CHECK_INT(count_kind(d, SD_FENCE), 5);
	CHECK_INT(d->ncodes, 5);
	CHECK(d->codes[2].fence_len == 4 && d->codes[2].fence_char == '`');
	CHECK(d->codes[1].fence_char == '~');
	char *info = span(d, d->codes[2].info.off, d->codes[2].info.len);
	CHECK_STR(info, "markdown");
	free(info);
	CHECK(!d->codes[4].closed);
	CHECK(d->codes[3].closed);
	CHECK_INT(d->codes[4].off + d->codes[4].len, strlen(s));
	CHECK(is_protected(d, "# unclosed runs to the end"));
	CHECK_INT(d->nsections, 3);
	CHECK(renders_same(d, s));
	sd_free(d);
}

static void fences_in_list_items(void)
{
	const char *s =
		"1. **Step**:\n"
		"   * Save a file:\n"
		"     ```markdown\n"
		"     # Inventory\n"
		"\n"
		"     ## [Category]\n"
		"     ```\n"
		"   * More\n"
		"2. Next\n"
		"      ```\n"
		"      # mapping\n"
		"      ```\n"
		"\n"
		"# After\n";
	struct skilldoc *d = parse(s);
	CHECK_INT(count_kind(d, SD_LIST_ITEM), 2);
	CHECK_INT(count_kind(d, SD_HEADING), 1);
	CHECK_INT(d->ncodes, 2);
	CHECK_INT(d->codes[0].block, 0);
	CHECK_INT(d->codes[1].block, 1);
	CHECK(is_protected(d, "## [Category]"));
	CHECK_STR(d->sections[1].id, "after#1");
	CHECK(renders_same(d, s));
	sd_free(d);
}

static void setext_indented_tables_and_more(void)
{
	const char *s =
		"Title\n=====\n\n"
		"Sub\ntitle\n---\n\n"
		"---\n\n"
		"para\n    continuation, not code\n\n"
		"    real code\n    more\n\n"
		"| a | b |\n|---|:-:|\n| 1 | `x|y` |\n\n"
		"> quote\n> more\n\n"
		"<details>\n<summary>x</summary>\n</details>\n\n"
		"<!-- a\n\n# not a heading\n-->\n";
	struct skilldoc *d = parse(s);
	CHECK_INT(count_kind(d, SD_HEADING), 2);
	CHECK(d->blocks[0].setext && d->blocks[0].level == 1);
	CHECK_INT(d->blocks[2].level, 2);
	char *t = span(d, d->blocks[2].text.off, d->blocks[2].text.len);
	CHECK_STR(t, "Sub\ntitle");
	free(t);
	CHECK_STR(d->sections[2].id, "title/sub-title#1");
	CHECK_INT(count_kind(d, SD_RULE), 1);
	CHECK_INT(count_kind(d, SD_INDENTED_CODE), 1);
	CHECK_INT(count_kind(d, SD_TABLE), 1);
	CHECK_INT(count_kind(d, SD_QUOTE), 1);
	CHECK_INT(count_kind(d, SD_HTML), 2);
	CHECK_INT(count_kind(d, SD_PARAGRAPH), 1);
	CHECK(renders_same(d, s));
	sd_free(d);
}

static void section_ids(void)
{
	const char *s =
		"# Workflow\n\n"
		"## Step 2: Run `x`\n\ntext\n\n"
		"### Details\n\n"
		"## Step 2: Run `x`\n\n"
		"#### Deep (skips a level)\n\n"
		"# [Link](https://example.com/a) <b>bold</b> *em*\n\n"
		"# 技能 Überblick\n\n"
		"# !!!\n\n"
		"# A very long heading that keeps going and going well past the forty-eight byte cap\n";
	struct skilldoc *d = parse(s);
	const char *want[] = {
		"", "workflow#1", "workflow/step-2-run-x#1", "workflow/step-2-run-x/details#1",
		"workflow/step-2-run-x#2", "workflow/step-2-run-x/deep-skips-a-level#1",
		"link-bold-em#1", "技能-Überblick#1", "section#1",
		"a-very-long-heading-that-keeps-going-and-going#1",
	};
	CHECK_INT(d->nsections, ARRAY_LEN(want));
	for (size_t i = 0; i < d->nsections && i < ARRAY_LEN(want); i++)
		CHECK_STR(d->sections[i].id, want[i]);
	CHECK_INT(sd_section_find(d, "workflow/step-2-run-x#2"), 4);
	CHECK_INT(sd_section_find(d, "workflow/step-2-run-x"), 2);
	CHECK_INT(sd_section_find(d, "workflow"), 1);
	CHECK_INT(sd_section_find(d, ""), 0);
	CHECK_INT(sd_section_find(d, "nope"), -1);
	/* spans: "Step 2" #1 runs to the second "Step 2", holds "Details" */
	const struct sd_section *st = &d->sections[2];
	CHECK_INT(st->parent, 1);
	CHECK_INT(st->end, d->sections[4].off);
	CHECK_INT(st->own_end, d->sections[3].off);
	CHECK_INT(d->sections[5].parent, 4);
	CHECK_INT(d->sections[1].end, d->sections[6].off);
	CHECK_INT(d->sections[9].end, strlen(s));
	/* trim_end drops the blank lines before the next heading */
	CHECK_INT(d->sections[3].trim_end + 1, d->sections[3].end);
	struct buf b = BUF_INIT;
	sd_section_text(d, 3, &b);
	CHECK_STR(b.data, "### Details\n\n");
	buf_free(&b);
	sd_free(d);
}

static void inlines(void)
{
	const char *s =
		"Use ``a `tick` here`` and `b`, [guide](references/g.md \"t\"), ![img](assets/i.png),\n"
		"<https://x.org/p>, https://y.org/q. and \\`not code\\`.\n\n"
		"[def]: references/d.md\n";
	struct skilldoc *d = parse(s);
	int kinds[6] = { 0 };
	for (size_t i = 0; i < d->ninlines; i++)
		kinds[d->inlines[i].kind]++;
	CHECK_INT(kinds[SD_CODE_SPAN], 2);
	CHECK_INT(kinds[SD_LINK], 1);
	CHECK_INT(kinds[SD_IMAGE], 1);
	CHECK_INT(kinds[SD_AUTOLINK], 1);
	CHECK_INT(kinds[SD_BARE_URL], 1);
	CHECK_INT(kinds[SD_LINK_DEF], 1);
	char *t = span(d, d->inlines[0].text.off, d->inlines[0].text.len);
	CHECK_STR(t, "a `tick` here");
	free(t);
	CHECK(has_literal(d, SD_LIT_URL, "https://y.org/q"));
	CHECK(has_literal(d, SD_LIT_URL, "https://x.org/p"));
	sd_free(d);
}

static void file_references(void)
{
	const char *s =
		"---\nname: x\n---\n"
		"See [guide](references/guide%20one.md#part) and [web](https://e.org/scripts/a.py).\n"
		"Run `python scripts/run.py --fast` or {baseDir}/scripts/b.sh; also ./assets/t.html\n"
		"Skip: three/examples/jsm/x.js, /abs/scripts/c.py, <https://x.org/references/r.md>,\n"
		"Python scripts/commands and and/or, [anchor](#top), [abs](/etc/x.md).\n"
		"Escapes: [up](../../COMMANDS.md) and `../CLAUDE.md`.\n\n"
		"```bash\npython scripts/in_fence.py ../data/x.csv\n```\n";
	struct skilldoc *d = parse(s);
	const char *want[][2] = {
		{ "references/guide one.md", "link" }, { "scripts/run.py", "code" }, { "scripts/b.sh", "text" },
		{ "./assets/t.html", "text" }, { "../../COMMANDS.md", "link" }, { "../CLAUDE.md", "code" },
		{ "scripts/in_fence.py", "code-block" },
	};
	CHECK_INT(d->nrefs, ARRAY_LEN(want));
	for (size_t i = 0; i < d->nrefs && i < ARRAY_LEN(want); i++) {
		CHECK_STR(d->refs[i].path, want[i][0]);
		CHECK_STR(sd_ref_origin_name(d->refs[i].origin), want[i][1]);
	}
	CHECK_INT(d->refs[0].line, 4);
	CHECK_INT(d->refs[0].col, 13);
	sd_free(d);
}

static void protected_literals(void)
{
	const char *s =
		"Wait 900 s, use 16 GB and 50% at 0.25; run with --max-tokens=4096 -v and -c:v.\n"
		"Fill {{PLACEHOLDER}} and ${VAR} from $HOME; edit config/app.yaml, ~/.bashrc, SKILL.md.\n"
		"Not paths: and/or, TCP/IP. Not flags: well-known, a - b.\n\n"
		"```\nanything --here {{X}}\n```\n";
	struct skilldoc *d = parse(s);
	CHECK(has_literal(d, SD_LIT_NUMBER, "900 s"));
	CHECK(has_literal(d, SD_LIT_NUMBER, "16 GB"));
	CHECK(has_literal(d, SD_LIT_NUMBER, "50%"));
	CHECK(has_literal(d, SD_LIT_NUMBER, "0.25"));
	CHECK(has_literal(d, SD_LIT_FLAG, "--max-tokens=4096"));
	CHECK(has_literal(d, SD_LIT_FLAG, "-v"));
	CHECK(has_literal(d, SD_LIT_FLAG, "-c:v"));
	CHECK(has_literal(d, SD_LIT_PLACEHOLDER, "{{PLACEHOLDER}}"));
	CHECK(has_literal(d, SD_LIT_PLACEHOLDER, "${VAR}"));
	CHECK(has_literal(d, SD_LIT_ENV, "$HOME"));
	CHECK(has_literal(d, SD_LIT_PATH, "config/app.yaml"));
	CHECK(has_literal(d, SD_LIT_PATH, "~/.bashrc"));
	CHECK(has_literal(d, SD_LIT_PATH, "SKILL.md"));
	CHECK(!is_protected(d, "and/or"));
	CHECK(!is_protected(d, "TCP/IP"));
	CHECK(!is_protected(d, "well-known"));
	char *f = literal(d, SD_LIT_CODE_BLOCK, 0);
	CHECK_STR(f, "```\nanything --here {{X}}\n```\n");
	free(f);
	for (size_t i = 1; i < d->nliterals; i++)
		CHECK(d->literals[i].off >= d->literals[i - 1].off + d->literals[i - 1].len);
	sd_free(d);
}

static const char doc[] =
	"---\nname: x\ndescription: y\n---\n"
	"# Skill\n\nIntro paragraph.\n\n"
	"## Setup\n\nInstall it.\n\n```bash\npip install x\n```\n\n"
	"## Usage\n\nFirst paragraph.\n\nSecond paragraph.\n\n"
	"## Reference\n\nLong details.\n";

static int block_with(const struct skilldoc *d, const char *text)
{
	for (size_t i = 0; i < d->nblocks; i++)
		if (d->blocks[i].len >= strlen(text) && !memcmp(d->src + d->blocks[i].off, text, strlen(text)))
			return (int)i;
	return -1;
}

static void edit_replace_paragraph(void)
{
	struct skilldoc *d = parse(doc);
	struct sd_edits ed = SD_EDITS_INIT;
	struct err e;
	int b = block_with(d, "First paragraph.");
	CHECK(b >= 0);
	sd_edit_replace_block(&ed, d, b, "Replaced.\n", 10);
	struct skilldoc *n = sd_edit(d, &ed, &e);
	CHECK(n != NULL);
	/* the original is untouched; the copy differs only in that block */
	CHECK(renders_same(d, doc));
	const char *p = strstr(doc, "First paragraph.\n");
	size_t pre = (size_t)(p - doc), post = pre + strlen("First paragraph.\n");
	CHECK_INT(n->len, d->len - strlen("First paragraph.\n") + 10);
	CHECK(!memcmp(n->src, doc, pre));
	CHECK(!memcmp(n->src + pre, "Replaced.\n", 10));
	CHECK(!memcmp(n->src + pre + 10, doc + post, d->len - post));
	CHECK_INT(sd_section_find(n, "skill/usage"), sd_section_find(d, "skill/usage"));
	sd_free(n);
	sd_edits_free(&ed);

	/* a no-op edit renders the same bytes */
	sd_edit_replace_block(&ed, d, b, "First paragraph.\n", 17);
	n = sd_edit(d, &ed, &e);
	CHECK(renders_same(n, doc));
	sd_free(n);
	sd_edits_free(&ed);
	sd_free(d);
}

static void edit_move_and_remove_sections(void)
{
	struct skilldoc *d = parse(doc);
	struct sd_edits ed = SD_EDITS_INIT;
	struct err e;
	int ref = sd_section_find(d, "skill/reference"), setup = sd_section_find(d, "skill/setup");
	CHECK(sd_edit_move_section(&ed, d, ref, d->sections[setup].off, &e) == 0);
	struct skilldoc *n = sd_edit(d, &ed, &e);
	CHECK_STR(n->sections[2].id, "skill/reference#1");
	CHECK_STR(n->sections[3].id, "skill/setup#1");
	CHECK_STR(n->sections[4].id, "skill/usage#1");
	/* the moved bytes and the untouched ones are exact */
	struct buf a = BUF_INIT, b = BUF_INIT;
	sd_section_text(d, ref, &a);
	sd_section_text(n, 2, &b);
	CHECK_STR(b.data, a.data);
	buf_reset(&a), buf_reset(&b);
	sd_section_text(d, setup, &a);
	sd_section_text(n, 3, &b);
	CHECK_STR(b.data, a.data);
	buf_free(&a), buf_free(&b);
	sd_free(n);
	sd_edits_free(&ed);

	/* moving a section into itself is refused */
	CHECK(sd_edit_move_section(&ed, d, setup, d->sections[setup].off + 3, &e) == -1);
	sd_edits_free(&ed);

	/* remove one section and insert a pointer where it was */
	int usage = sd_section_find(d, "skill/usage");
	sd_edit_remove_section(&ed, d, usage);
	const char *ptr = "Read references/usage.md when you use it.\n\n";
	sd_edits_insert(&ed, d->sections[usage].off, ptr, strlen(ptr));
	n = sd_edit(d, &ed, &e);
	CHECK(n != NULL);
	CHECK_INT(sd_section_find(n, "skill/usage"), -1);
	CHECK(strstr(n->src, "```\n\nRead references/usage.md when you use it.\n\n## Reference\n") != NULL);
	CHECK_INT(n->nrefs, 1);
	sd_free(n);
	sd_edits_free(&ed);
	sd_free(d);
}

static void edit_errors(void)
{
	struct skilldoc *d = parse(doc);
	struct sd_edits ed = SD_EDITS_INIT;
	struct err e = { 0, "" };
	sd_edits_replace(&ed, 10, 5, "x", 1);
	sd_edits_replace(&ed, 12, 5, "y", 1);
	CHECK(sd_edit(d, &ed, &e) == NULL);
	CHECK_STR(e.msg, "edits overlap at offset 12");
	sd_edits_free(&ed);
	sd_edits_replace(&ed, d->len, 1, "x", 1);
	struct buf b = BUF_INIT;
	CHECK_INT(sd_apply(d, &ed, &b, &e), -1);
	buf_free(&b);
	sd_edits_free(&ed);
	/* inserts at one offset keep their order, before a splice starting there */
	sd_edits_replace(&ed, 0, 3, "+++", 3);
	sd_edits_insert(&ed, 0, "a", 1);
	sd_edits_insert(&ed, 0, "b", 1);
	CHECK_INT(sd_apply(d, &ed, &b, &e), 0);
	CHECK(!strncmp(b.data, "ab+++\nname", 10));
	buf_free(&b);
	sd_edits_free(&ed);
	sd_free(d);
}

static void section_at_eof_without_newline(void)
{
	const char *s = "# A\n\nx\n\n# B\n\nlast line";
	struct skilldoc *d = parse(s);
	struct sd_edits ed = SD_EDITS_INIT;
	struct err e;
	CHECK(sd_edit_move_section(&ed, d, 2, d->sections[1].off, &e) == 0);
	struct skilldoc *n = sd_edit(d, &ed, &e);
	CHECK_STR(n->src, "# B\n\nlast line\n# A\n\nx\n\n");
	sd_free(n);
	sd_edits_free(&ed);
	sd_free(d);
}

static void body_measures(void)
{
	struct skilldoc *d = parse("---\nname: x\n---\na\nb\nc");
	CHECK_INT(sd_body_lines(d), 3);
	sd_free(d);
	CHECK_INT(sd_estimate_tokens("abcdefgh", 8), 2);
	CHECK_INT(sd_estimate_tokens("abcdefghi", 9), 3);
	CHECK_INT(sd_estimate_tokens("\xE6\x8A\x80\xE8\x83\xBD", 6), 2);
}

/* Random documents made of markdown fragments: every one renders back
 * exactly, blocks tile the body, and literals never overlap. */
static void random_documents_round_trip(void)
{
	static const char *const frag[] = {
		"---\n", "name: x\n", "# H\n", "## Sub `c`\n", "text with `code` and [l](a/b.md)\n",
		"```\n", "~~~~\n", "   ```py\n", "    indented\n", "\n", "\t\n", "- item\n", "  - nested\n",
		"1. one\n", "     ```\n", "| a | b |\n", "|---|---|\n", "> quote\n", "<div>\n", "<!--\n",
		"-->\n", "===\n", "---\n", "***\n", "Wait 5 s --flag {{X}} https://x.y/z.\n", "``", "`",
		"[", "](", ")", "<https://a.b>", "\\`", "\r\n", "\xC3\xA9", "\xFF", "#", " ", "scripts/a.py",
	};
	unsigned seed = 12345;
	int bad = 0;
	for (int n = 0; n < 3000; n++) {
		struct buf b = BUF_INIT;
		int parts = (int)(seed % 40);
		for (int i = 0; i < parts; i++) {
			seed = seed * 1103515245u + 12345u;
			buf_adds(&b, frag[(seed >> 16) % ARRAY_LEN(frag)]);
		}
		seed = seed * 1103515245u + 12345u;
		struct skilldoc *d = sd_parse(b.data, b.len);
		struct buf out = BUF_INIT;
		sd_render(d, &out);
		if (out.len != b.len || (b.len && memcmp(out.data, b.data, b.len)))
			bad++;
		size_t at = d->body;
		for (size_t i = 0; i < d->nblocks; i++) {
			bad += d->blocks[i].off != at;
			at += d->blocks[i].len;
		}
		for (size_t i = 1; i < d->nliterals; i++)
			bad += d->literals[i].off < d->literals[i - 1].off + d->literals[i - 1].len;
		for (size_t i = 1; i < d->nsections; i++)
			bad += sd_section_find(d, d->sections[i].id) != (int)i;
		if (d->nsections > 1) {
			/* moving the last section to the front keeps every byte */
			struct sd_edits ed = SD_EDITS_INIT;
			struct err e;
			int last = (int)d->nsections - 1;
			if (sd_edit_move_section(&ed, d, last, d->body, &e) == 0) {
				struct skilldoc *m = sd_edit(d, &ed, &e);
				size_t extra = d->sections[last].end == d->len && d->len &&
					       d->src[d->len - 1] != '\n';
				bad += !m || m->len != d->len + extra;
				sd_free(m);
			}
			sd_edits_free(&ed);
		}
		buf_free(&out);
		buf_free(&b);
		sd_free(d);
	}
	CHECK_INT(bad, 0);
}

/* What made the parser super-linear, as documents: the answers must stay
 * right (the time is bench/parse.sh's business). */
static char *repeat(const char *unit, size_t times, const char *tail)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "---\nname: x\ndescription: y\n---\n");
	for (size_t i = 0; i < times; i++)
		buf_adds(&b, unit);
	buf_adds(&b, tail);
	return buf_detach(&b);
}

static void hostile_patterns_parse_right(void)
{
	char *s = repeat("# h\n", 5000, "");
	struct skilldoc *d = parse(s);
	CHECK_INT(d->nsections, 5001);
	CHECK_STR(d->sections[5000].id, "h#5000");
	CHECK_INT(sd_section_find(d, "h#4321"), 4321);
	CHECK_INT(d->sections[2].trim_end, d->sections[2].end);
	sd_free(d);
	free(s);
	s = repeat("[", 20000, "");
	d = parse(s);
	CHECK_INT(d->ninlines, 0);
	sd_free(d);
	free(s);
	s = repeat("[a](", 5000, "b)");
	d = parse(s); /* only the innermost bracket pair has a tail that closes */
	CHECK_INT(d->ninlines, 1);
	CHECK(d->ninlines && d->inlines[0].kind == SD_LINK);
	sd_free(d);
	free(s);
	s = repeat("see ../a.md ", 5000, "\n");
	d = parse(s);
	CHECK_INT(d->nrefs, 5000);
	CHECK_INT(d->refs[4999].line, 5);
	CHECK_INT(d->refs[4999].col, 4999 * 12 + 5);
	sd_free(d);
	free(s);
	s = repeat("`` ` ", 3000, "");
	d = parse(s);
	CHECK_INT(d->ninlines, 2000); /* as the scan-ahead parser found them, in linear time */
	sd_free(d);
	free(s);
}

/* A model is shared, never copied or parsed again (sd_share). */
static void shared_model(void)
{
	struct skilldoc *d = parse("# a\n");
	struct skilldoc *e = sd_share(d);
	CHECK(e == d);
	CHECK_INT(d->users, 2);
	sd_free(e);
	CHECK_INT(d->users, 1);
	CHECK_STR(d->sections[1].id, "a#1"); /* still alive */
	sd_free(d);
}

int main(void)
{
	RUN(frontmatter_and_render);
	RUN(atx_headings);
	RUN(headings_inside_fences_are_not_headings);
	RUN(fences_in_list_items);
	RUN(setext_indented_tables_and_more);
	RUN(section_ids);
	RUN(inlines);
	RUN(file_references);
	RUN(protected_literals);
	RUN(edit_replace_paragraph);
	RUN(edit_move_and_remove_sections);
	RUN(edit_errors);
	RUN(section_at_eof_without_newline);
	RUN(body_measures);
	RUN(random_documents_round_trip);
	RUN(hostile_patterns_parse_right);
	RUN(shared_model);
	T_EXIT();
}
