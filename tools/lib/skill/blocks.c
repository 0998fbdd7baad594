/* blocks.c — lines, the frontmatter and the block structure of a
 * SKILL.md: CommonMark's blocks without nesting (skilldoc.h says which).
 * Each recognizer looks at one or two lines, and every loop moves on by
 * whole lines, so the pass is linear in the input. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "skill/parse.h"
#include "skill/skilldoc.h"

/* ---- lines ------------------------------------------------------------- */

/* One line of the document. */
struct line {
	size_t s, e;    /* [s, e) including the newline */
	size_t ce;      /* end of content: before "\n" or "\r\n" */
	size_t first;   /* first byte that is not a space or tab */
	int indent;     /* columns before first (tabs to multiples of 4) */
	bool blank;
};

static struct line sd_line_at(const struct skilldoc *d, size_t i)
{
	struct line l;
	l.s = d->line_starts[i];
	l.e = i + 1 < d->nlines ? d->line_starts[i + 1] : d->len;
	l.ce = l.e;
	if (l.ce > l.s && d->src[l.ce - 1] == '\n')
		l.ce--;
	if (l.ce > l.s && d->src[l.ce - 1] == '\r')
		l.ce--;
	l.indent = 0;
	l.first = l.s;
	while (l.first < l.ce && (d->src[l.first] == ' ' || d->src[l.first] == '\t')) {
		l.indent = d->src[l.first] == '\t' ? (l.indent / 4 + 1) * 4 : l.indent + 1;
		l.first++;
	}
	l.blank = l.first == l.ce;
	return l;
}

size_t sd_line_of_off(const struct skilldoc *d, size_t off)
{
	size_t lo = 0, hi = d->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ---- block recognizers ------------------------------------------------- */

static int atx_level(const struct skilldoc *d, const struct line *l)
{
	if (l->indent > 3)
		return 0;
	size_t p = l->first;
	int n = 0;
	while (p < l->ce && d->src[p] == '#' && n < 7)
		p++, n++;
	if (n < 1 || n > 6)
		return 0;
	if (p < l->ce && d->src[p] != ' ' && d->src[p] != '\t')
		return 0;
	return n;
}

/* A fence opener; any_indent inside list items. */
static bool fence_open(const struct skilldoc *d, const struct line *l, bool any_indent,
		       char *ch, int *flen, struct sd_span *info)
{
	if (l->indent > 3 && !any_indent)
		return false;
	size_t p = l->first;
	char c = p < l->ce ? d->src[p] : 0;
	if (c != '`' && c != '~')
		return false;
	int n = 0;
	while (p < l->ce && d->src[p] == c)
		p++, n++;
	if (n < 3)
		return false;
	if (c == '`' && memchr(d->src + p, '`', l->ce - p))
		return false;
	while (p < l->ce && (d->src[p] == ' ' || d->src[p] == '\t'))
		p++;
	size_t q = l->ce;
	while (q > p && (d->src[q - 1] == ' ' || d->src[q - 1] == '\t'))
		q--;
	*ch = c;
	*flen = n;
	info->off = p;
	info->len = q - p;
	return true;
}

static bool fence_close(const struct skilldoc *d, const struct line *l, char c, int flen,
			int max_indent)
{
	if (l->indent > max_indent)
		return false;
	size_t p = l->first;
	int n = 0;
	while (p < l->ce && d->src[p] == c)
		p++, n++;
	if (n < flen)
		return false;
	while (p < l->ce && (d->src[p] == ' ' || d->src[p] == '\t'))
		p++;
	return p == l->ce;
}

static bool thematic_break(const struct skilldoc *d, const struct line *l)
{
	if (l->indent > 3 || l->blank)
		return false;
	char c = d->src[l->first];
	if (c != '-' && c != '*' && c != '_')
		return false;
	int n = 0;
	for (size_t p = l->first; p < l->ce; p++) {
		if (d->src[p] == c)
			n++;
		else if (d->src[p] != ' ' && d->src[p] != '\t')
			return false;
	}
	return n >= 3;
}

static int setext_level(const struct skilldoc *d, const struct line *l)
{
	if (l->indent > 3 || l->blank)
		return 0;
	char c = d->src[l->first];
	if (c != '=' && c != '-')
		return 0;
	size_t p = l->first;
	while (p < l->ce && d->src[p] == c)
		p++;
	while (p < l->ce && (d->src[p] == ' ' || d->src[p] == '\t'))
		p++;
	if (p != l->ce)
		return 0;
	return c == '=' ? 1 : 2;
}

/* A list marker at up to 3 spaces; *content gets the content column. */
static bool list_marker(const struct skilldoc *d, const struct line *l, int *content)
{
	if (l->indent > 3 || l->blank)
		return false;
	size_t p = l->first;
	char c = d->src[p];
	if (c == '-' || c == '+' || c == '*') {
		p++;
	} else if (isdigit((unsigned char)c)) {
		int n = 0;
		while (p < l->ce && isdigit((unsigned char)d->src[p]) && n < 10)
			p++, n++;
		if (n > 9 || p >= l->ce || (d->src[p] != '.' && d->src[p] != ')'))
			return false;
		p++;
	} else {
		return false;
	}
	int col = l->indent + (int)(p - l->first);
	if (p == l->ce) {
		*content = col + 1;
		return true;
	}
	if (d->src[p] != ' ' && d->src[p] != '\t')
		return false;
	int spaces = 0;
	while (p < l->ce && d->src[p] == ' ' && spaces < 5)
		p++, spaces++;
	if (d->src[p] == '\t' || spaces == 0)
		spaces = 1;
	*content = col + (spaces >= 5 || p == l->ce ? 1 : spaces);
	return true;
}

static bool quote_start(const struct skilldoc *d, const struct line *l)
{
	return l->indent <= 3 && !l->blank && d->src[l->first] == '>';
}

static bool has_ci(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(s + i, needle, k))
			return true;
	return false;
}

/* HTML block start (CommonMark types 1, 2, 6, 7). Returns the type or 0.
 * Type 7 cannot interrupt a paragraph. */
static int html_start(const struct skilldoc *d, const struct line *l, bool in_para)
{
	static const char *const block_tags[] = {
		"address", "article", "aside", "blockquote", "body", "caption", "center", "col",
		"colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset",
		"figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
		"head", "header", "hr", "html", "iframe", "legend", "li", "link", "main", "menu",
		"nav", "ol", "optgroup", "option", "p", "section", "summary", "table", "tbody",
		"td", "tfoot", "th", "thead", "title", "tr", "ul",
	};
	if (l->indent > 3 || l->blank || d->src[l->first] != '<')
		return 0;
	const char *s = d->src + l->first;
	size_t n = l->ce - l->first;
	if (n >= 4 && !memcmp(s, "<!--", 4))
		return 2;
	size_t p = 1;
	bool closing = p < n && s[p] == '/';
	if (closing)
		p++;
	size_t t = p;
	while (p < n && (isalnum((unsigned char)s[p]) || s[p] == '-'))
		p++;
	if (p == t || !isalpha((unsigned char)s[t]))
		return 0;
	size_t tl = p - t;
	bool end_ok = p == n || s[p] == ' ' || s[p] == '\t' || s[p] == '>' ||
		      (p + 1 < n && s[p] == '/' && s[p + 1] == '>');
	if (!end_ok)
		return 0;
	if (!closing) {
		static const char *const raw[] = { "script", "pre", "style", "textarea" };
		for (size_t i = 0; i < ARRAY_LEN(raw); i++)
			if (tl == strlen(raw[i]) && !strncasecmp(s + t, raw[i], tl))
				return 1;
	}
	for (size_t i = 0; i < ARRAY_LEN(block_tags); i++)
		if (tl == strlen(block_tags[i]) && !strncasecmp(s + t, block_tags[i], tl))
			return 6;
	if (in_para)
		return 0;
	/* type 7: a complete tag alone on its line */
	size_t q = n;
	while (q > 0 && (s[q - 1] == ' ' || s[q - 1] == '\t'))
		q--;
	if (q == 0 || s[q - 1] != '>' || memchr(s + 1, '<', q - 1))
		return 0;
	return 7;
}

static bool html_ends(const struct skilldoc *d, const struct line *l, int type)
{
	const char *s = d->src + l->s;
	size_t n = l->ce - l->s;
	switch (type) {
	case 1:
		return has_ci(s, n, "</script>") || has_ci(s, n, "</pre>") || has_ci(s, n, "</style>") ||
		       has_ci(s, n, "</textarea>");
	case 2:
		return has_ci(s, n, "-->");
	default:
		return false;
	}
}

static bool delimiter_row(const struct skilldoc *d, const struct line *l)
{
	if (l->blank || l->indent > 3)
		return false;
	bool pipe = false, dash = false;
	for (size_t p = l->first; p < l->ce; p++) {
		char c = d->src[p];
		if (c == '|')
			pipe = true;
		else if (c == '-')
			dash = true;
		else if (c != ':' && c != ' ' && c != '\t')
			return false;
	}
	return pipe && dash;
}

static bool table_start(const struct skilldoc *d, size_t i)
{
	if (i + 1 >= d->nlines)
		return false;
	struct line l = sd_line_at(d, i), n = sd_line_at(d, i + 1);
	if (l.blank || l.indent > 3 || !memchr(d->src + l.first, '|', l.ce - l.first))
		return false;
	return delimiter_row(d, &n);
}

/* Starts that end a paragraph (or a lazy list/quote continuation). */
static bool interrupts(const struct skilldoc *d, size_t i)
{
	struct line l = sd_line_at(d, i);
	char ch;
	int flen, ci;
	struct sd_span info;
	if (l.blank)
		return true;
	return atx_level(d, &l) || fence_open(d, &l, false, &ch, &flen, &info) ||
	       thematic_break(d, &l) || quote_start(d, &l) || list_marker(d, &l, &ci) ||
	       html_start(d, &l, true) || table_start(d, i);
}

/* ---- building ---------------------------------------------------------- */

static int add_block(struct parser *P, enum sd_block_kind kind, size_t first, size_t last)
{
	struct skilldoc *d = P->d;
	struct sd_block b;
	memset(&b, 0, sizeof b);
	b.kind = kind;
	b.off = d->line_starts[first];
	b.len = sd_line_at(d, last).e - b.off;
	b.line = (int)first + 1;
	SD_PUSH(d->blocks, d->nblocks, P->block_cap, b);
	return (int)d->nblocks - 1;
}

static void add_code(struct parser *P, int block, size_t first, size_t last, char ch, int flen,
		     struct sd_span info, bool closed)
{
	struct skilldoc *d = P->d;
	struct sd_code c;
	c.off = d->line_starts[first];
	c.len = sd_line_at(d, last).e - c.off;
	c.fence_char = ch;
	c.fence_len = flen;
	c.info = info;
	c.closed = closed;
	c.block = block;
	if (!ch) {
		c.content.off = c.off;
		c.content.len = c.len;
	} else {
		size_t cs = sd_line_at(d, first).e;
		size_t ce = closed ? d->line_starts[last] : sd_line_at(d, last).e;
		if (ce < cs)
			ce = cs;
		c.content.off = cs;
		c.content.len = ce - cs;
	}
	SD_PUSH(d->codes, d->ncodes, P->code_cap, c);
}

/* Lines of a fence opened at line i; returns the last line. */
static size_t fence_end(const struct skilldoc *d, size_t i, char ch, int flen, int max_indent,
			bool *closed)
{
	for (size_t j = i + 1; j < d->nlines; j++) {
		struct line l = sd_line_at(d, j);
		if (fence_close(d, &l, ch, flen, max_indent)) {
			*closed = true;
			return j;
		}
	}
	*closed = false;
	return d->nlines - 1;
}

static size_t parse_list_item(struct parser *P, size_t i, int content)
{
	struct skilldoc *d = P->d;
	size_t first_code = d->ncodes, last = i, j = i + 1;
	bool prev_blank = false;
	while (j < d->nlines) {
		struct line l = sd_line_at(d, j);
		char ch;
		int flen, ci;
		struct sd_span info;
		if (l.blank) {
			size_t k = j;
			while (k < d->nlines && sd_line_at(d, k).blank)
				k++;
			if (k >= d->nlines || sd_line_at(d, k).indent < content)
				break;
			j = k;
			prev_blank = true;
			continue;
		}
		if (l.indent < content) {
			if (prev_blank || list_marker(d, &l, &ci) || atx_level(d, &l) ||
			    fence_open(d, &l, false, &ch, &flen, &info) || thematic_break(d, &l) ||
			    quote_start(d, &l) || html_start(d, &l, true))
				break;
		}
		if (fence_open(d, &l, true, &ch, &flen, &info)) {
			bool closed;
			size_t end = fence_end(d, j, ch, flen, l.indent + 3, &closed);
			add_code(P, -1, j, end, ch, flen, info, closed); /* block set below */
			last = j = end;
			j++;
			prev_blank = false;
			continue;
		}
		last = j++;
		prev_blank = false;
	}
	int b = add_block(P, SD_LIST_ITEM, i, last);
	for (size_t k = first_code; k < d->ncodes; k++)
		d->codes[k].block = b;
	return last;
}

static void heading_text(struct skilldoc *d, struct sd_block *b, size_t s, size_t e)
{
	/* drop a closing sequence of '#' preceded by a space (ATX) */
	while (e > s && (d->src[e - 1] == ' ' || d->src[e - 1] == '\t'))
		e--;
	if (!b->setext) {
		size_t q = e;
		while (q > s && d->src[q - 1] == '#')
			q--;
		if (q < e && (q == s || d->src[q - 1] == ' ' || d->src[q - 1] == '\t')) {
			e = q;
			while (e > s && (d->src[e - 1] == ' ' || d->src[e - 1] == '\t'))
				e--;
		}
	}
	b->text.off = s;
	b->text.len = e - s;
}

static size_t parse_paragraph(struct parser *P, size_t i)
{
	struct skilldoc *d = P->d;
	size_t j = i + 1;
	while (j < d->nlines) {
		struct line l = sd_line_at(d, j);
		int lvl = setext_level(d, &l);
		if (lvl) {
			int b = add_block(P, SD_HEADING, i, j);
			struct sd_block *hb = &d->blocks[b];
			hb->level = lvl;
			hb->setext = true;
			struct line f = sd_line_at(d, i);
			heading_text(d, hb, f.first, sd_line_at(d, j - 1).ce);
			return j;
		}
		if (interrupts(d, j))
			break;
		j++;
	}
	add_block(P, SD_PARAGRAPH, i, j - 1);
	return j - 1;
}

void sd_parse_blocks(struct parser *P)
{
	struct skilldoc *d = P->d;
	size_t i = d->nlines ? sd_line_of_off(d, d->body) : 0;
	if (d->body >= d->len)
		return;
	while (i < d->nlines) {
		struct line l = sd_line_at(d, i);
		char ch;
		int flen, lvl, ci, ht;
		struct sd_span info;
		size_t last = i;
		if (l.blank) {
			while (last + 1 < d->nlines && sd_line_at(d, last + 1).blank)
				last++;
			add_block(P, SD_BLANK, i, last);
		} else if (fence_open(d, &l, false, &ch, &flen, &info)) {
			bool closed;
			last = fence_end(d, i, ch, flen, 3, &closed);
			int b = add_block(P, SD_FENCE, i, last);
			add_code(P, b, i, last, ch, flen, info, closed);
			d->blocks[b].text = d->codes[d->ncodes - 1].content;
		} else if ((lvl = atx_level(d, &l))) {
			int b = add_block(P, SD_HEADING, i, i);
			d->blocks[b].level = lvl;
			size_t s = l.first + (size_t)lvl;
			while (s < l.ce && (d->src[s] == ' ' || d->src[s] == '\t'))
				s++;
			heading_text(d, &d->blocks[b], s, l.ce);
		} else if (l.indent >= 4) {
			for (size_t j = i + 1; j < d->nlines; j++) {
				struct line m = sd_line_at(d, j);
				if (!m.blank && m.indent < 4)
					break;
				if (!m.blank)
					last = j;
			}
			int b = add_block(P, SD_INDENTED_CODE, i, last);
			struct sd_span none = { 0, 0 };
			add_code(P, b, i, last, 0, 0, none, true);
		} else if ((ht = html_start(d, &l, false))) {
			if (ht == 1 || ht == 2) {
				struct line m = l;
				while (!html_ends(d, &m, ht) && last + 1 < d->nlines)
					m = sd_line_at(d, ++last);
			} else {
				while (last + 1 < d->nlines && !sd_line_at(d, last + 1).blank)
					last++;
			}
			add_block(P, SD_HTML, i, last);
		} else if (thematic_break(d, &l)) {
			add_block(P, SD_RULE, i, i);
		} else if (list_marker(d, &l, &ci)) {
			last = parse_list_item(P, i, ci);
		} else if (quote_start(d, &l)) {
			while (last + 1 < d->nlines) {
				struct line m = sd_line_at(d, last + 1);
				if (m.blank || (!quote_start(d, &m) && interrupts(d, last + 1)))
					break;
				last++;
			}
			add_block(P, SD_QUOTE, i, last);
		} else if (table_start(d, i)) {
			last = i + 1;
			while (last + 1 < d->nlines) {
				struct line m = sd_line_at(d, last + 1);
				if (m.blank || !memchr(d->src + m.s, '|', m.ce - m.s) ||
				    (interrupts(d, last + 1) && !table_start(d, last + 1)))
					break;
				last++;
			}
			add_block(P, SD_TABLE, i, last);
		} else {
			last = parse_paragraph(P, i);
		}
		i = last + 1;
	}
}

/* ---- frontmatter --------------------------------------------------------- */

static bool dash_line(const struct skilldoc *d, const struct line *l)
{
	size_t q = l->ce;
	while (q > l->s && (d->src[q - 1] == ' ' || d->src[q - 1] == '\t'))
		q--;
	return q - l->s == 3 && !memcmp(d->src + l->s, "---", 3);
}

void sd_find_frontmatter(struct skilldoc *d)
{
	if (!d->nlines)
		return;
	struct line f = sd_line_at(d, 0);
	if (!dash_line(d, &f))
		return;
	for (size_t i = 1; i < d->nlines; i++) {
		struct line l = sd_line_at(d, i);
		if (dash_line(d, &l)) {
			d->has_frontmatter = true;
			d->fm.off = 0;
			d->fm.len = l.e;
			d->fm_yaml.off = f.e;
			d->fm_yaml.len = l.s - f.e;
			d->body = l.e;
			return;
		}
	}
	d->fm_unclosed = true;
}

