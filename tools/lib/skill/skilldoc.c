#include "skill/skilldoc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/log.h"
#include "base/unicode.h"

/* ---- growable arrays -------------------------------------------------- */

#define PUSH(arr, n, cap, val) do { \
	GROW((arr), (n), (cap)); \
	(arr)[(n)++] = (val); \
} while (0)

/* Parser state: the document being built, its literal candidates (sorted
 * and de-overlapped at the end) and the compiled patterns. */
struct parser {
	struct skilldoc *d;
	size_t block_cap, section_cap, code_cap, inline_cap, ref_cap, lit_cap;
	struct sd_literal *cand;
	size_t ncand, cand_cap;
	pcre2_code *rx_url, *rx_skillpath, *rx_uppath, *rx_path, *rx_file, *rx_flag,
		   *rx_number, *rx_placeholder, *rx_env;
	pcre2_match_data *md;
};

/* ---- lines ------------------------------------------------------------- */

struct line {
	size_t s, e;    /* [s, e) including the newline */
	size_t ce;      /* end of content: before "\n" or "\r\n" */
	size_t first;   /* first byte that is not a space or tab */
	int indent;     /* columns before first (tabs to multiples of 4) */
	bool blank;
};

static struct line line_at(const struct skilldoc *d, size_t i)
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

static size_t line_of_off(const struct skilldoc *d, size_t off)
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

void sd_line_col(const struct skilldoc *d, size_t off, int *line, int *col)
{
	if (!d->nlines) {
		*line = 1, *col = 1;
		return;
	}
	size_t l = line_of_off(d, off);
	*line = (int)l + 1;
	*col = (int)utf8_count(d->src + d->line_starts[l], off - d->line_starts[l]) + 1;
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
	struct line l = line_at(d, i), n = line_at(d, i + 1);
	if (l.blank || l.indent > 3 || !memchr(d->src + l.first, '|', l.ce - l.first))
		return false;
	return delimiter_row(d, &n);
}

/* Starts that end a paragraph (or a lazy list/quote continuation). */
static bool interrupts(const struct skilldoc *d, size_t i)
{
	struct line l = line_at(d, i);
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
	b.len = line_at(d, last).e - b.off;
	b.line = (int)first + 1;
	PUSH(d->blocks, d->nblocks, P->block_cap, b);
	return (int)d->nblocks - 1;
}

static void add_code(struct parser *P, int block, size_t first, size_t last, char ch, int flen,
		     struct sd_span info, bool closed)
{
	struct skilldoc *d = P->d;
	struct sd_code c;
	c.off = d->line_starts[first];
	c.len = line_at(d, last).e - c.off;
	c.fence_char = ch;
	c.fence_len = flen;
	c.info = info;
	c.closed = closed;
	c.block = block;
	if (!ch) {
		c.content.off = c.off;
		c.content.len = c.len;
	} else {
		size_t cs = line_at(d, first).e;
		size_t ce = closed ? d->line_starts[last] : line_at(d, last).e;
		if (ce < cs)
			ce = cs;
		c.content.off = cs;
		c.content.len = ce - cs;
	}
	PUSH(d->codes, d->ncodes, P->code_cap, c);
}

/* Lines of a fence opened at line i; returns the last line. */
static size_t fence_end(const struct skilldoc *d, size_t i, char ch, int flen, int max_indent,
			bool *closed)
{
	for (size_t j = i + 1; j < d->nlines; j++) {
		struct line l = line_at(d, j);
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
		struct line l = line_at(d, j);
		char ch;
		int flen, ci;
		struct sd_span info;
		if (l.blank) {
			size_t k = j;
			while (k < d->nlines && line_at(d, k).blank)
				k++;
			if (k >= d->nlines || line_at(d, k).indent < content)
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
		struct line l = line_at(d, j);
		int lvl = setext_level(d, &l);
		if (lvl) {
			int b = add_block(P, SD_HEADING, i, j);
			struct sd_block *hb = &d->blocks[b];
			hb->level = lvl;
			hb->setext = true;
			struct line f = line_at(d, i);
			heading_text(d, hb, f.first, line_at(d, j - 1).ce);
			return j;
		}
		if (interrupts(d, j))
			break;
		j++;
	}
	add_block(P, SD_PARAGRAPH, i, j - 1);
	return j - 1;
}

static void parse_blocks(struct parser *P)
{
	struct skilldoc *d = P->d;
	size_t i = d->nlines ? line_of_off(d, d->body) : 0;
	if (d->body >= d->len)
		return;
	while (i < d->nlines) {
		struct line l = line_at(d, i);
		char ch;
		int flen, lvl, ci, ht;
		struct sd_span info;
		size_t last = i;
		if (l.blank) {
			while (last + 1 < d->nlines && line_at(d, last + 1).blank)
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
				struct line m = line_at(d, j);
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
					m = line_at(d, ++last);
			} else {
				while (last + 1 < d->nlines && !line_at(d, last + 1).blank)
					last++;
			}
			add_block(P, SD_HTML, i, last);
		} else if (thematic_break(d, &l)) {
			add_block(P, SD_RULE, i, i);
		} else if (list_marker(d, &l, &ci)) {
			last = parse_list_item(P, i, ci);
		} else if (quote_start(d, &l)) {
			while (last + 1 < d->nlines) {
				struct line m = line_at(d, last + 1);
				if (m.blank || (!quote_start(d, &m) && interrupts(d, last + 1)))
					break;
				last++;
			}
			add_block(P, SD_QUOTE, i, last);
		} else if (table_start(d, i)) {
			last = i + 1;
			while (last + 1 < d->nlines) {
				struct line m = line_at(d, last + 1);
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

static void find_frontmatter(struct skilldoc *d)
{
	if (!d->nlines)
		return;
	struct line f = line_at(d, 0);
	if (!dash_line(d, &f))
		return;
	for (size_t i = 1; i < d->nlines; i++) {
		struct line l = line_at(d, i);
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

/* ---- literals, refs and inlines ----------------------------------------- */

static pcre2_code *rx(const char *pat)
{
	int code;
	PCRE2_SIZE where;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &code, &where, NULL);
	if (!c) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		die(1, "skilldoc: bad pattern at %zu: %s", (size_t)where, (char *)msg);
	}
	return c;
}

#define SKILL_DIRS "(?:scripts|references|reference|assets|templates|examples|resources)"
#define FILE_EXTS "(?:md|markdown|py|sh|bash|js|mjs|cjs|ts|tsx|jsx|json|jsonl|ya?ml|toml|txt|csv|tsv|xml|" \
	"html?|css|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|ipynb|lean|java|kt|c|h|cc|cpp|hpp|go|rs|rb|" \
	"php|sql|ini|cfg|conf|log|zip|tar|gz|tgz|wav|mp3|mp4|mov|mkv|bib|tex|R|jl|lua|pl|swift|" \
	"parquet|npy|npz|pkl|pt|onnx|env|lock|xsd|dtd|pddl|ttf|otf|srt|vtt)"

static void compile_patterns(struct parser *P)
{
	P->rx_url = rx("\\b(?:https?|ftp|file)://[^\\s<>\"'`]+");
	P->rx_skillpath = rx("(?<![\\w.~/$}\\-])(?:\\{baseDir\\}/|\\$\\{?[A-Za-z_]*(?:SKILL|skill|Skill)[A-Za-z_]*\\}?/)?"
			     "((?:\\./)?" SKILL_DIRS "/(?:[\\w\\-.@+]+/)*[\\w\\-.@+]*)");
	P->rx_uppath = rx("(?<![\\w.~/$}\\-])((?:\\.\\./)+(?:[\\w\\-.@+]+/)*[\\w\\-@+]+\\.[A-Za-z][A-Za-z0-9]{0,7})(?![\\w/])");
	P->rx_path = rx("(?<![\\w.~/$\\-])(?:~|\\.{1,2})?(?:/[\\w.@+\\-]+)+/?|(?<![\\w/.~$\\-])[\\w.@+\\-]+(?:/[\\w.@+\\-]+)+/?");
	P->rx_file = rx("(?<![\\w/.\\-])[\\w\\-]+(?:\\.[\\w\\-]+)*\\." FILE_EXTS "(?![\\w])");
	P->rx_flag = rx("(?<![\\w\\-/.])(?:--[A-Za-z0-9][\\w\\-]*(?:=[^\\s`'\",;)]+)?|-[A-Za-z][A-Za-z0-9_]*(?::[a-z]+)?)(?![\\w\\-])");
	P->rx_number = rx("(?<![\\w.])[-+]?\\d+(?:[.,]\\d+)*(?:\\s?(?:%|[KMGTP]i?B|[kKMG]?Hz|bytes?|bits?|ms|us|ns|s|secs?|seconds?|"
			  "mins?|minutes?|h|hrs?|hours?|days?|weeks?|px|pt|em|rem|dpi|fps|k|K|M|B|x|kg|g|mg|km|m|cm|mm|"
			  "tokens?|chars?|characters?|lines?|words?|pages?|rows?|columns?|items?|files?|steps?|times|retries|"
			  "attempts?|samples?|frames?|epochs?|iterations?|dB|LUFS|kbps|Mbps|bps|GPUs?|CPUs?|cores?|threads?)(?![\\w])"
			  "|\\.\\d+(?![\\w.]))|(?<![\\w.])\\d+\\.\\d+(?:\\.\\d+)*(?![\\w])");
	P->rx_placeholder = rx("\\{\\{[^{}\\n]{1,100}\\}\\}|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}");
	P->rx_env = rx("(?<![\\w$])\\$[A-Z_][A-Z0-9_]+\\b");
	P->md = pcre2_match_data_create(4, NULL);
}

static void free_patterns(struct parser *P)
{
	pcre2_code *all[] = { P->rx_url, P->rx_skillpath, P->rx_uppath, P->rx_path, P->rx_file,
			      P->rx_flag, P->rx_number, P->rx_placeholder, P->rx_env };
	for (size_t i = 0; i < ARRAY_LEN(all); i++)
		pcre2_code_free(all[i]);
	pcre2_match_data_free(P->md);
}

/* Calls fn for each match of re in [a, b) (group g's span). */
static void each_match(struct parser *P, pcre2_code *re, size_t a, size_t b, int g,
		       void (*fn)(struct parser *, size_t, size_t, void *), void *arg)
{
	const char *s = P->d->src;
	size_t at = a;
	while (at < b) {
		/* match against the slice so lookbehinds see the text before it */
		int rc = pcre2_match(re, (PCRE2_SPTR)s, b, at, 0, P->md, NULL);
		if (rc < 0)
			break;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(P->md);
		size_t ms = ov[0], me = ov[1];
		size_t gs = ov[2 * g], ge = ov[2 * g + 1];
		if (g < rc && gs != PCRE2_UNSET && ge > gs)
			fn(P, gs, ge, arg);
		at = me > ms ? me : ms + 1;
	}
}

static void add_lit(struct parser *P, enum sd_lit_kind k, size_t off, size_t len)
{
	struct sd_literal l = { k, off, len };
	if (len)
		PUSH(P->cand, P->ncand, P->cand_cap, l);
}

static void lit_cb(struct parser *P, size_t s, size_t e, void *arg)
{
	add_lit(P, *(enum sd_lit_kind *)arg, s, e - s);
}

/* Trailing punctuation is prose, not part of a URL. */
static size_t trim_url(const char *s, size_t a, size_t e)
{
	for (;;) {
		char c = s[e - 1];
		if (e - a > 1 && strchr(".,;:!?*_'\"", c)) {
			e--;
		} else if (e - a > 1 && (c == ')' || c == ']')) {
			char open = c == ')' ? '(' : '[';
			int bal = 0;
			for (size_t i = a; i < e; i++)
				bal += s[i] == open ? 1 : s[i] == c ? -1 : 0;
			if (bal >= 0)
				break;
			e--;
		} else {
			break;
		}
	}
	return e;
}

static void url_cb(struct parser *P, size_t s, size_t e, void *arg)
{
	struct skilldoc *d = P->d;
	e = trim_url(d->src, s, e);
	add_lit(P, SD_LIT_URL, s, e - s);
	struct sd_inline in;
	memset(&in, 0, sizeof in);
	in.kind = SD_BARE_URL;
	in.off = s, in.len = e - s;
	in.dest.off = s, in.dest.len = e - s;
	in.block = *(int *)arg;
	PUSH(d->inlines, d->ninlines, P->inline_cap, in);
}

static void path_cb(struct parser *P, size_t s, size_t e, void *arg)
{
	const char *src = P->d->src;
	(void)arg;
	while (e > s && strchr(".,:;", src[e - 1]))
		e--;
	const char *p = src + s;
	size_t n = e - s;
	/* "and/or", "TCP/IP": a relative path needs an extension, a trailing
	 * slash, a leading "/", "./", "../" or "~", or two slashes */
	if (*p != '/' && *p != '.' && *p != '~' && src[e - 1] != '/') {
		size_t slashes = 0;
		for (size_t i = 0; i < n; i++)
			slashes += p[i] == '/';
		const char *last = memrchr(p, '/', n);
		const char *dot = last ? memchr(last, '.', (size_t)(p + n - last)) : NULL;
		if (slashes < 2 && !dot)
			return;
	}
	if (n > 1)
		add_lit(P, SD_LIT_PATH, s, n);
}

static void add_ref(struct parser *P, size_t s, size_t e, enum sd_ref_origin o, int block,
		    const char *path)
{
	struct skilldoc *d = P->d;
	struct sd_ref r;
	r.path = xstrdup(path);
	r.off = s;
	r.len = e - s;
	sd_line_col(d, s, &r.line, &r.col);
	r.origin = o;
	r.block = block;
	PUSH(d->refs, d->nrefs, P->ref_cap, r);
}

struct refarg {
	enum sd_ref_origin origin;
	int block;
};

static void ref_cb(struct parser *P, size_t s, size_t e, void *arg)
{
	struct refarg *ra = arg;
	const char *src = P->d->src;
	while (e > s && strchr(".,:;", src[e - 1]))
		e--;
	if (e - s < 2)
		return;
	/* in prose, "scripts/commands" is words: want an extension or a '/' */
	if (ra->origin == SD_REF_TEXT && src[e - 1] != '/') {
		const char *slash = memrchr(src + s, '/', e - s);
		if (!slash || !memchr(slash, '.', (size_t)(src + e - slash)))
			return;
	}
	char *p = xstrndup(src + s, e - s);
	add_ref(P, s, e, ra->origin, ra->block, p);
	free(p);
}

static void scan_refs(struct parser *P, size_t a, size_t b, enum sd_ref_origin o, int block)
{
	struct refarg ra = { o, block };
	each_match(P, P->rx_skillpath, a, b, 1, ref_cb, &ra);
	if (o != SD_REF_BLOCK)
		each_match(P, P->rx_uppath, a, b, 1, ref_cb, &ra);
}

/* Literals and references in running text [a, b). */
static void scan_text(struct parser *P, size_t a, size_t b, int block)
{
	if (a >= b)
		return;
	enum sd_lit_kind k;
	each_match(P, P->rx_url, a, b, 0, url_cb, &block);
	each_match(P, P->rx_path, a, b, 0, path_cb, NULL);
	k = SD_LIT_PATH;
	each_match(P, P->rx_file, a, b, 0, lit_cb, &k);
	k = SD_LIT_FLAG;
	each_match(P, P->rx_flag, a, b, 0, lit_cb, &k);
	k = SD_LIT_NUMBER;
	each_match(P, P->rx_number, a, b, 0, lit_cb, &k);
	k = SD_LIT_PLACEHOLDER;
	each_match(P, P->rx_placeholder, a, b, 0, lit_cb, &k);
	k = SD_LIT_ENV;
	each_match(P, P->rx_env, a, b, 0, lit_cb, &k);
	scan_refs(P, a, b, SD_REF_TEXT, block);
}

static bool has_scheme(const char *s, size_t n)
{
	size_t i = 0;
	if (!n || !isalpha((unsigned char)s[0]))
		return false;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '.' || s[i] == '-'))
		i++;
	return i >= 2 && i < n && s[i] == ':';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A link target: URL, anchor, absolute path, or a reference into the skill. */
static void link_dest(struct parser *P, size_t s, size_t e, int block)
{
	const char *src = P->d->src;
	size_t n = e - s;
	if (!n)
		return;
	if (has_scheme(src + s, n)) {
		add_lit(P, SD_LIT_URL, s, n);
		return;
	}
	add_lit(P, SD_LIT_PATH, s, n);
	if (src[s] == '#' || src[s] == '/' || src[s] == '~' || src[s] == '\\')
		return;
	size_t k = 0;
	while (k < n && src[s + k] != '#' && src[s + k] != '?')
		k++;
	if (!k)
		return;
	struct buf p = BUF_INIT;
	for (size_t i = 0; i < k; i++) {
		int hi, lo;
		if (src[s + i] == '%' && i + 2 < k && (hi = hexval(src[s + i + 1])) >= 0 &&
		    (lo = hexval(src[s + i + 2])) >= 0) {
			buf_addc(&p, (char)(hi * 16 + lo));
			i += 2;
		} else {
			buf_addc(&p, src[s + i]);
		}
	}
	if (p.len && !memchr(p.data, '\0', p.len))
		add_ref(P, s, s + k, SD_REF_LINK, block, p.data);
	buf_free(&p);
}

static void add_inline(struct parser *P, enum sd_inline_kind k, size_t off, size_t end,
		       size_t ts, size_t te, size_t ds, size_t de, int block)
{
	struct sd_inline in;
	in.kind = k;
	in.off = off, in.len = end - off;
	in.text.off = ts, in.text.len = te - ts;
	in.dest.off = ds, in.dest.len = de - ds;
	in.block = block;
	PUSH(P->d->inlines, P->d->ninlines, P->inline_cap, in);
}

static size_t tick_run(const char *s, size_t i, size_t e)
{
	size_t n = 0;
	while (i + n < e && s[i + n] == '`')
		n++;
	return n;
}

/* The end of the code span opened at i (a run of n backticks), or 0. */
static size_t code_span_end(const char *s, size_t i, size_t n, size_t e)
{
	size_t j = i + n;
	while (j < e) {
		if (s[j] != '`') {
			j++;
			continue;
		}
		size_t m = tick_run(s, j, e);
		if (m == n)
			return j + m;
		j += m;
	}
	return 0;
}

/* Parses "(dest "title")" at p; on success sets the dest span and returns
 * the offset after ')'; else 0. */
static size_t parse_link_tail(const char *s, size_t p, size_t e, size_t *ds, size_t *de)
{
	if (p >= e || s[p] != '(')
		return 0;
	p++;
	while (p < e && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n'))
		p++;
	if (p < e && s[p] == '<') {
		size_t q = p + 1;
		while (q < e && s[q] != '>' && s[q] != '\n' && s[q] != '<')
			q++;
		if (q >= e || s[q] != '>')
			return 0;
		*ds = p + 1, *de = q;
		p = q + 1;
	} else {
		size_t q = p;
		int depth = 0;
		while (q < e && !isspace((unsigned char)s[q]) && !iscntrl((unsigned char)s[q])) {
			if (s[q] == '\\' && q + 1 < e) {
				q += 2;
				continue;
			}
			if (s[q] == '(')
				depth++;
			else if (s[q] == ')' && depth-- == 0)
				break;
			q++;
		}
		*ds = p, *de = q;
		p = q;
	}
	while (p < e && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n'))
		p++;
	if (p < e && (s[p] == '"' || s[p] == '\'' || s[p] == '(')) {
		char close = s[p] == '(' ? ')' : s[p];
		size_t q = p + 1;
		while (q < e && s[q] != close) {
			if (s[q] == '\\')
				q++;
			q++;
		}
		if (q >= e)
			return 0;
		p = q + 1;
		while (p < e && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n'))
			p++;
	}
	if (p >= e || s[p] != ')')
		return 0;
	return p + 1;
}

/* The ']' matching the '[' at p, skipping code spans and escapes, or 0. */
static size_t match_bracket(const char *s, size_t p, size_t e)
{
	int depth = 0;
	for (size_t q = p; q < e; q++) {
		if (s[q] == '\\') {
			q++;
		} else if (s[q] == '`') {
			size_t n = tick_run(s, q, e), end = code_span_end(s, q, n, e);
			q = end ? end - 1 : q + n - 1;
		} else if (s[q] == '[') {
			depth++;
		} else if (s[q] == ']' && --depth == 0) {
			return q;
		} else if (s[q] == '\n' && q + 1 < e && s[q + 1] == '\n') {
			return 0;
		}
	}
	return 0;
}

static void scan_inline(struct parser *P, size_t a, size_t e, int block, bool in_link);

static bool at_line_start(const char *s, size_t base, size_t p)
{
	int n = 0;
	while (p > base && s[p - 1] == ' ' && n < 4)
		p--, n++;
	return n <= 3 && (p == base || s[p - 1] == '\n');
}

static void scan_inline(struct parser *P, size_t a, size_t e, int block, bool in_link)
{
	const char *s = P->d->src;
	size_t i = a, text = a;
	while (i < e) {
		char c = s[i];
		if (c == '\\' && i + 1 < e && ispunct((unsigned char)s[i + 1])) {
			i += 2;
			continue;
		}
		if (c == '`') {
			size_t n = tick_run(s, i, e), end = code_span_end(s, i, n, e);
			if (!end) {
				i += n;
				continue;
			}
			scan_text(P, text, i, block);
			add_inline(P, SD_CODE_SPAN, i, end, i + n, end - n, 0, 0, block);
			add_lit(P, SD_LIT_CODE_SPAN, i, end - i);
			scan_refs(P, i + n, end - n, SD_REF_CODE, block);
			i = text = end;
			continue;
		}
		if (c == '[' && !in_link) {
			bool image = i > a && s[i - 1] == '!';
			size_t q = match_bracket(s, i, e), ds = 0, de = 0, end = 0;
			if (q && q + 1 < e && s[q + 1] == ':' && !image && at_line_start(s, a, i)) {
				size_t p = q + 2;
				while (p < e && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n'))
					p++;
				size_t r = p;
				if (r < e && s[r] == '<') {
					while (r < e && s[r] != '>' && s[r] != '\n')
						r++;
					ds = p + 1, de = r;
				} else {
					while (r < e && !isspace((unsigned char)s[r]))
						r++;
					ds = p, de = r;
				}
				if (de > ds) {
					scan_text(P, text, i, block);
					end = r < e && s[r] == '>' ? r + 1 : r;
					add_inline(P, SD_LINK_DEF, i, end, i + 1, q, ds, de, block);
					link_dest(P, ds, de, block);
					i = text = end;
					continue;
				}
			}
			if (q && (end = parse_link_tail(s, q + 1, e, &ds, &de))) {
				size_t start = image ? i - 1 : i;
				scan_text(P, text, start, block);
				add_inline(P, image ? SD_IMAGE : SD_LINK, start, end, i + 1, q, ds, de, block);
				scan_inline(P, i + 1, q, block, true);
				link_dest(P, ds, de, block);
				i = text = end;
				continue;
			}
		}
		if (c == '<') {
			size_t q = i + 1;
			while (q < e && s[q] != '>' && s[q] != '<' && !isspace((unsigned char)s[q]))
				q++;
			if (q < e && s[q] == '>' && q > i + 1 &&
			    (has_scheme(s + i + 1, q - i - 1) || memchr(s + i + 1, '@', q - i - 1))) {
				scan_text(P, text, i, block);
				add_inline(P, SD_AUTOLINK, i, q + 1, i + 1, q, i + 1, q, block);
				add_lit(P, SD_LIT_URL, i + 1, q - i - 1);
				i = text = q + 1;
				continue;
			}
		}
		i++;
	}
	scan_text(P, text, e, block);
}

/* Inline content of block b, skipping code blocks nested in it. */
static void scan_block(struct parser *P, int b)
{
	struct skilldoc *d = P->d;
	struct sd_block *bl = &d->blocks[b];
	size_t a = bl->off, e = bl->off + bl->len;
	struct refarg ra = { SD_REF_BLOCK, b };
	switch (bl->kind) {
	case SD_BLANK:
	case SD_RULE:
		return;
	case SD_FENCE:
	case SD_INDENTED_CODE:
		add_lit(P, SD_LIT_CODE_BLOCK, a, bl->len);
		for (size_t k = 0; k < d->ncodes; k++)
			if (d->codes[k].block == b)
				each_match(P, P->rx_skillpath, d->codes[k].content.off,
					   d->codes[k].content.off + d->codes[k].content.len, 1, ref_cb, &ra);
		return;
	default:
		break;
	}
	for (size_t k = 0; k < d->ncodes; k++) {
		struct sd_code *c = &d->codes[k];
		if (c->block != b)
			continue;
		scan_inline(P, a, c->off, b, false);
		add_lit(P, SD_LIT_CODE_BLOCK, c->off, c->len);
		each_match(P, P->rx_skillpath, c->content.off, c->content.off + c->content.len, 1,
			   ref_cb, &ra);
		a = c->off + c->len;
	}
	scan_inline(P, a, e, b, false);
}

static int lit_cmp(const void *x, const void *y)
{
	const struct sd_literal *a = x, *b = y;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

static void finish_literals(struct parser *P)
{
	struct skilldoc *d = P->d;
	if (P->ncand)
		qsort(P->cand, P->ncand, sizeof(*P->cand), lit_cmp);
	size_t end = 0;
	for (size_t i = 0; i < P->ncand; i++) {
		if (i && P->cand[i].off < end)
			continue;
		PUSH(d->literals, d->nliterals, P->lit_cap, P->cand[i]);
		end = P->cand[i].off + P->cand[i].len;
	}
	free(P->cand);
}

static int ref_cmp(const void *x, const void *y)
{
	const struct sd_ref *a = x, *b = y;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int inline_cmp(const void *x, const void *y)
{
	const struct sd_inline *a = x, *b = y;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* ---- sections ------------------------------------------------------------ */

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
	bool dash = false;
	for (size_t i = 0; i < n;) {
		/* link targets and HTML tags are not heading text */
		if (s[i] == ']' && i + 1 < n && s[i + 1] == '(') {
			const char *close = memchr(s + i, ')', n - i);
			i = close ? (size_t)(close - s) + 1 : n;
			dash = true;
			continue;
		}
		if (s[i] == '<' && i + 1 < n && (isalpha((unsigned char)s[i + 1]) || s[i + 1] == '/')) {
			const char *close = memchr(s + i, '>', n - i);
			if (close) {
				i = (size_t)(close - s) + 1;
				dash = true;
				continue;
			}
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

static void build_sections(struct parser *P)
{
	struct skilldoc *d = P->d;
	struct sd_section root;
	memset(&root, 0, sizeof root);
	root.id = xstrdup("");
	root.path = xstrdup("");
	root.slug = xstrdup("");
	root.heading = -1;
	root.parent = -1;
	root.off = root.content_off = d->body;
	root.own_end = root.end = d->len;
	PUSH(d->sections, d->nsections, P->section_cap, root);

	int stack[8] = { 0 };
	int depth = 0; /* stack[0..depth] */
	for (size_t b = 0; b < d->nblocks; b++) {
		struct sd_block *bl = &d->blocks[b];
		if (bl->kind != SD_HEADING) {
			bl->section = stack[depth];
			continue;
		}
		while (depth > 0 && d->sections[stack[depth]].level >= bl->level) {
			d->sections[stack[depth]].end = bl->off;
			depth--;
		}
		int parent = stack[depth];
		if (d->sections[parent].own_end == d->sections[parent].end ||
		    d->sections[parent].own_end > bl->off)
			d->sections[parent].own_end = bl->off;
		struct sd_section s;
		memset(&s, 0, sizeof s);
		s.slug = make_slug(d->src + bl->text.off, bl->text.len);
		s.path = *d->sections[parent].path ? xasprintf("%s/%s", d->sections[parent].path, s.slug)
						   : xstrdup(s.slug);
		int ord = 1;
		for (size_t k = 1; k < d->nsections; k++)
			ord += !strcmp(d->sections[k].path, s.path);
		s.id = xasprintf("%s#%d", s.path, ord);
		s.level = bl->level;
		s.heading = (int)b;
		s.parent = parent;
		s.off = bl->off;
		s.content_off = bl->off + bl->len;
		s.own_end = s.end = d->len;
		PUSH(d->sections, d->nsections, P->section_cap, s);
		stack[++depth] = (int)d->nsections - 1;
		bl->section = stack[depth];
	}
	for (size_t k = 0; k < d->nsections; k++) {
		struct sd_section *s = &d->sections[k];
		if (s->own_end > s->end)
			s->own_end = s->end;
		s->trim_end = s->end;
		/* trailing blank blocks belong to the section but not to its text */
		for (size_t b = d->nblocks; b-- > 0;) {
			struct sd_block *bl = &d->blocks[b];
			if (bl->off >= s->end)
				continue;
			if (bl->off < s->content_off || bl->kind != SD_BLANK)
				break;
			s->trim_end = bl->off;
		}
	}
}

/* ---- public -------------------------------------------------------------- */

struct skilldoc *sd_parse(const char *bytes, size_t len)
{
	struct skilldoc *d = xcalloc(1, sizeof *d);
	struct parser P;
	memset(&P, 0, sizeof P);
	P.d = d;
	d->src = xmalloc(len + 1);
	if (len)
		memcpy(d->src, bytes, len);
	d->src[len] = '\0';
	d->len = len;

	size_t cap = 0;
	for (size_t i = 0; i < len; i++)
		if (i == 0 || bytes[i - 1] == '\n')
			PUSH(d->line_starts, d->nlines, cap, i);

	find_frontmatter(d);
	parse_blocks(&P);
	compile_patterns(&P);
	for (size_t b = 0; b < d->nblocks; b++)
		scan_block(&P, (int)b);
	free_patterns(&P);
	finish_literals(&P);
	if (d->nrefs)
		qsort(d->refs, d->nrefs, sizeof(*d->refs), ref_cmp);
	if (d->ninlines)
		qsort(d->inlines, d->ninlines, sizeof(*d->inlines), inline_cmp);
	build_sections(&P);
	return d;
}

void sd_free(struct skilldoc *d)
{
	if (!d)
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
	free(d->src);
	free(d);
}

void sd_render(const struct skilldoc *d, struct buf *out)
{
	buf_add(out, d->src, d->body);
	for (size_t b = 0; b < d->nblocks; b++)
		buf_add(out, d->src + d->blocks[b].off, d->blocks[b].len);
}

int sd_section_find(const struct skilldoc *d, const char *id)
{
	char *want = strchr(id, '#') || !*id ? xstrdup(id) : xasprintf("%s#1", id);
	int found = -1;
	for (size_t i = 0; i < d->nsections; i++)
		if (!strcmp(d->sections[i].id, want)) {
			found = (int)i;
			break;
		}
	free(want);
	return found;
}

void sd_section_text(const struct skilldoc *d, int section, struct buf *out)
{
	const struct sd_section *s = &d->sections[section];
	buf_add(out, d->src + s->off, s->end - s->off);
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

/* ---- edits ------------------------------------------------------------- */

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
	PUSH(ed->v, ed->n, ed->cap, s);
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
	struct skilldoc *n = sd_parse(b.data ? b.data : "", b.len);
	buf_free(&b);
	return n;
}
