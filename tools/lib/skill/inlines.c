/* inlines.c — inline elements (code spans, links, images, autolinks, link
 * definitions, bare URLs), file references and protected literals of every
 * block (skilldoc.h says what each is).
 *
 * One range of inline text (a block, or the part of a list item between its
 * code blocks) is read in three passes, each linear:
 *   1. spans: code spans and autolinks, which bind tighter than links
 *      (CommonMark), and the brackets outside them, matched with a stack
 *      (a blank line drops the open ones);
 *   2. tails: where "(dest "title")" after each matched ']' ends, all in one
 *      sweep (a destination runs to whitespace or to the ')' that closes
 *      it; those waiting at one parenthesis level end together);
 *   3. walk: left to right, a matched bracket with a definition or a tail
 *      is a link (its text scanned for spans only), every span is emitted,
 *      and the text between them goes through the literal patterns.
 * Scanning ahead at each '[' or '`' instead is what made "[[[[..." and
 * "[a](" repeats quadratic. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/unicode.h"
#include "skill/parse.h"
#include "skill/skilldoc.h"

/* ---- the literal and reference patterns ------------------------------- */

/* One pattern, compiled (and JIT-compiled) at its first use. Most skills
 * are a few KB and never need some of the nine: compiling them all was 40%
 * of a small skill's static compile (callgrind). The JIT pays even on a
 * small skill: interpreting until a pattern had read 64 KB made the whole
 * compile of a 2 KB skill 1% dearer, of a 5 KB one 35%, of a 20 KB one 23%. */
struct lazy_rx {
	const char *pat;
	/* every match holds one of these bytes (any) or this string: a range
	 * without it is not searched, and a pattern never needed is never
	 * compiled */
	const char *need;
	bool any;
	pcre2_code *code;
	size_t scanned; /* bytes matched against so far, by the interpreter */
	bool jit;       /* JIT-compiled: after RX_JIT_AFTER bytes */
};

/* A pattern is JIT-compiled once the interpreter has run it over this many
 * bytes: a JIT compile costs ~170,000 instructions (callgrind), what the
 * interpreter spends beyond the JIT code on 1-2 KB of text. Most skills
 * run most patterns over less than that (a process compiles one skill set),
 * and a longer text soon pays for the compile. */
#ifndef RX_JIT_AFTER
#define RX_JIT_AFTER 1024
#endif

struct patterns {
	struct lazy_rx *url, *skillpath, *uppath, *path, *file, *flag, *number, *placeholder, *env;
	pcre2_match_data *md; /* the parse's own */
};

#define SKILL_DIRS "(?:scripts|references|reference|assets|templates|examples|resources)"
#define FILE_EXTS "(?:md|markdown|py|sh|bash|js|mjs|cjs|ts|tsx|jsx|json|jsonl|ya?ml|toml|" \
	"txt|csv|tsv|xml|html?|css|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|ipynb|lean|java|kt|" \
	"c|h|cc|cpp|hpp|go|rs|rb|" \
	"php|sql|ini|cfg|conf|log|zip|tar|gz|tgz|wav|mp3|mp4|mov|mkv|bib|tex|R|jl|lua|pl|swift|" \
	"parquet|npy|npz|pkl|pt|onnx|env|lock|xsd|dtd|pddl|ttf|otf|srt|vtt)"

/* No pattern may backtrack more than linearly per start: the $..SKILL..
 * variable is checked by a lookahead and then taken possessively (as
 * "[A-Za-z_]*SKILL[A-Za-z_]*" it was quadratic in the variable's length).
 * The patterns never change; their compiled code lives as long as the
 * process. */
static struct lazy_rx rx_url = {
	"\\b(?:https?|ftp|file)://[^\\s<>\"'`]+",
	"://", false, NULL, 0, false };
static struct lazy_rx rx_skillpath = {
	"(?<![\\w.~/$}\\-])(?:\\{baseDir\\}/|\\$\\{?(?=[A-Za-z_]*(?:SKILL|skill|Skill))[A-Za-"
	"z_]++\\}?/)?((?:\\./)?" SKILL_DIRS "/(?:[\\w\\-.@+]+/)*[\\w\\-.@+]*)",
	"/", false, NULL, 0, false };
static struct lazy_rx rx_uppath = {
	"(?<![\\w.~/$}\\-])((?:\\.\\./)+(?:[\\w\\-.@+]+/)*[\\w\\-@+]+\\.[A-Za-z][A-Za-z0-9]{0"
	",7})(?![\\w/])",
	"../", false, NULL, 0, false };
static struct lazy_rx rx_path = {
	"(?<![\\w.~/$\\-])(?:~|\\.{1,2})?(?:/[\\w.@+\\-]+)+/?|(?<![\\w/.~$\\-])[\\w.@+\\-]+(?"
	":/[\\w.@+\\-]+)+/?",
	"/", false, NULL, 0, false };
static struct lazy_rx rx_file = {
	"(?<![\\w/.\\-])[\\w\\-]+(?:\\.[\\w\\-]+)*\\." FILE_EXTS "(?![\\w])",
	".", false, NULL, 0, false };
static struct lazy_rx rx_flag = {
	"(?<![\\w\\-/.])(?:--[A-Za-z0-9][\\w\\-]*(?:=[^\\s`'\",;)]+)?|-[A-Za-z][A-Za-z0-9_]*("
	"?::[a-z]+)?)(?![\\w\\-])",
	"-", false, NULL, 0, false };
static struct lazy_rx rx_number = {
	"(?<![\\w.])[-+]?\\d+(?:[.,]\\d+)*(?:\\s?(?:%|[KMGTP]i?B|[kKMG]?Hz|bytes?|bits?|ms|us"
	"|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|px|pt|em|rem|dpi|fps|"
	"k|K|M|B|x|kg|g|mg|km|m|cm|mm|tokens?|chars?|characters?|lines?|words?|pages?|rows?|c"
	"olumns?|items?|files?|steps?|times|retries|attempts?|samples?|frames?|epochs?|iterat"
	"ions?|dB|LUFS|kbps|Mbps|bps|GPUs?|CPUs?|cores?|threads?)(?![\\w])|\\.\\d+(?![\\w.]))"
	"|(?<![\\w.])\\d+\\.\\d+(?:\\.\\d+)*(?![\\w])",
	"0123456789", true, NULL, 0, false };
static struct lazy_rx rx_placeholder = {
	"\\{\\{[^{}\\n]{1,100}\\}\\}|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}",
	"{", false, NULL, 0, false };
static struct lazy_rx rx_env = {
	"(?<![\\w$])\\$[A-Z_][A-Z0-9_]+\\b",
	"$", false, NULL, 0, false };

/* The pattern compiled (interpreted until each_match JIT-compiles it). */
static pcre2_code *rx_ready(struct lazy_rx *r)
{
	if (r->code)
		return r->code;
	int code;
	PCRE2_SIZE where;
	r->code = pcre2_compile((PCRE2_SPTR)r->pat, PCRE2_ZERO_TERMINATED, 0, &code, &where, NULL);
	if (!r->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		BUG("skilldoc pattern does not compile at %zu: %s", (size_t)where, (char *)msg);
	}
	return r->code;
}

/* Whether [s, s + n) holds what every match of r holds. */
static bool rx_may_match(const struct lazy_rx *r, const char *s, size_t n)
{
	if (!r->any)
		return memmem(s, n, r->need, strlen(r->need)) != NULL;
	for (const char *c = r->need; *c; c++)
		if (memchr(s, *c, n))
			return true;
	return false;
}

static struct patterns *use_patterns(void)
{
	struct patterns *p = xmalloc(sizeof *p);
	*p = (struct patterns){ &rx_url, &rx_skillpath, &rx_uppath, &rx_path, &rx_file, &rx_flag,
				&rx_number, &rx_placeholder, &rx_env, NULL };
	p->md = pcre2_match_data_create(4, NULL);
	if (!p->md)
		BUG("pcre2_match_data_create failed");
	return p;
}

static void drop_patterns(struct patterns *p)
{
	pcre2_match_data_free(p->md);
	free(p);
}

/* Calls fn for each match of r in [a, b) (group g's span). */
static void each_match(struct parser *P, struct lazy_rx *r, size_t a, size_t b, int g,
		       void (*fn)(struct parser *, size_t, size_t, void *), void *arg)
{
	const char *s = P->d->src;
	if (a >= b || !rx_may_match(r, s + a, b - a))
		return;
	pcre2_code *re = rx_ready(r);
	if (!r->jit && (r->scanned += b - a) > RX_JIT_AFTER) {
		(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* without it, the interpreter */
		r->jit = true;
	}
	size_t at = a;
	while (at < b) {
		/* match against the slice so lookbehinds see the text before it */
		int rc = pcre2_match(re, (PCRE2_SPTR)s, b, at, 0, P->rx->md, NULL);
		if (rc == PCRE2_ERROR_JIT_STACKLIMIT) /* the interpreter's limits are the ones we rely on */
			rc = pcre2_match(re, (PCRE2_SPTR)s, b, at, PCRE2_NO_JIT, P->rx->md, NULL);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0) { /* a resource limit: go on after this byte rather than stop */
			at++;
			continue;
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(P->rx->md);
		size_t ms = ov[0], me = ov[1];
		size_t gs = ov[2 * g], ge = ov[2 * g + 1];
		if (g < rc && gs != PCRE2_UNSET && ge > gs)
			fn(P, gs, ge, arg);
		at = me > ms ? me : ms + 1;
	}
}

/* ---- literals and references -------------------------------------------- */

static void add_lit(struct parser *P, enum sd_lit_kind k, size_t off, size_t len)
{
	struct sd_literal l = { k, off, len };
	if (len)
		SD_PUSH(P->cand, P->ncand, P->cand_cap, l);
}

static void lit_cb(struct parser *P, size_t s, size_t e, void *arg)
{
	add_lit(P, *(enum sd_lit_kind *)arg, s, e - s);
}

/* Trailing punctuation is prose, not part of a URL; a closing bracket is
 * kept while the URL opened one (balances counted once). */
static size_t trim_url(const char *s, size_t a, size_t e)
{
	long paren = 0, square = 0;
	for (size_t i = a; i < e; i++) {
		paren += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
		square += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
	}
	for (;;) {
		char c = s[e - 1];
		long *bal = c == ')' ? &paren : c == ']' ? &square : NULL;
		if (e - a > 1 && c && strchr(".,;:!?*_'\"", c)) {
			e--;
		} else if (e - a > 1 && bal && *bal < 0) {
			(*bal)++;
			e--;
		} else {
			break;
		}
	}
	return e;
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
	SD_PUSH(P->d->inlines, P->d->ninlines, P->inline_cap, in);
}

static void url_cb(struct parser *P, size_t s, size_t e, void *arg)
{
	e = trim_url(P->d->src, s, e);
	add_lit(P, SD_LIT_URL, s, e - s);
	add_inline(P, SD_BARE_URL, s, e, 0, 0, s, e, *(int *)arg);
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

/* Lines and columns are set once all references are known (finish_refs). */
static void add_ref(struct parser *P, size_t s, size_t e, enum sd_ref_origin o, int block, const char *path)
{
	struct sd_ref r;
	memset(&r, 0, sizeof r);
	r.path = xstrdup(path);
	r.off = s;
	r.len = e - s;
	r.origin = o;
	r.block = block;
	SD_PUSH(P->d->refs, P->d->nrefs, P->ref_cap, r);
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
	each_match(P, P->rx->skillpath, a, b, 1, ref_cb, &ra);
	if (o != SD_REF_BLOCK)
		each_match(P, P->rx->uppath, a, b, 1, ref_cb, &ra);
}

/* Literals and references in running text [a, b). */
static void scan_text(struct parser *P, size_t a, size_t b, int block)
{
	if (a >= b)
		return;
	struct patterns *x = P->rx;
	enum sd_lit_kind k;
	each_match(P, x->url, a, b, 0, url_cb, &block);
	each_match(P, x->path, a, b, 0, path_cb, NULL);
	k = SD_LIT_PATH;
	each_match(P, x->file, a, b, 0, lit_cb, &k);
	k = SD_LIT_FLAG;
	each_match(P, x->flag, a, b, 0, lit_cb, &k);
	k = SD_LIT_NUMBER;
	each_match(P, x->number, a, b, 0, lit_cb, &k);
	k = SD_LIT_PLACEHOLDER;
	each_match(P, x->placeholder, a, b, 0, lit_cb, &k);
	k = SD_LIT_ENV;
	each_match(P, x->env, a, b, 0, lit_cb, &k);
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

/* ---- pass 1: spans and brackets ------------------------------------------- */

enum span_kind { SPAN_CODE, SPAN_AUTOLINK };

struct span {
	enum span_kind kind;
	size_t off, end, ticks; /* ticks: the code span's fence length */
};

struct opener {
	size_t off;             /* the '[' */
	size_t close;           /* its ']', or 0 */
	bool image;             /* "![" */
	size_t tail_end;        /* after "(dest "title")" following ']', or 0 */
	size_t dest_off, dest_end;
};

/* One range of inline text and what the passes found in it. */
struct range {
	const char *s;
	size_t a, e;
	struct span *spans;     /* in order, disjoint */
	size_t nspans, spans_cap;
	struct opener *ops;     /* in order of '[' */
	size_t nops, ops_cap;
	size_t *closed;         /* openers in the order of their ']' */
	size_t nclosed, closed_cap;
	/* the last backtick run seen of each length, + 1 (after a scan reached
	 * e: whether a closer can still come at all) */
	size_t *last_run;
	bool scanned_all;
};

static size_t tick_run(const char *s, size_t i, size_t e)
{
	size_t n = 0;
	while (i + n < e && s[i + n] == '`')
		n++;
	return n;
}

/* The end of the code span opened at i by n backticks, or 0: the next run
 * of exactly n. A failed search runs to e once; after it, last_run answers
 * every other failing one at once (cmark's trick), and a successful one
 * scans only what the span then covers. */
static size_t code_close(struct range *r, size_t i, size_t n)
{
	if (!r->last_run)
		r->last_run = xcalloc(r->e - r->a + 1, sizeof *r->last_run);
	if (r->scanned_all && r->last_run[n] <= i + n)
		return 0;
	for (size_t j = i + n; j < r->e;) {
		if (r->s[j] != '`') {
			j++;
			continue;
		}
		size_t m = tick_run(r->s, j, r->e);
		if (r->last_run[m] < j + 1)
			r->last_run[m] = j + 1;
		if (m == n)
			return j + m;
		j += m;
	}
	r->scanned_all = true;
	return 0;
}

/* <scheme:...> or <a@b> at i: its end, or 0. Stops at the next '<'. */
static size_t autolink_end(const char *s, size_t i, size_t e)
{
	size_t q = i + 1;
	while (q < e && s[q] != '>' && s[q] != '<' && !isspace((unsigned char)s[q]))
		q++;
	if (q < e && s[q] == '>' && q > i + 1 &&
	    (has_scheme(s + i + 1, q - i - 1) || memchr(s + i + 1, '@', q - i - 1)))
		return q + 1;
	return 0;
}

static void add_span(struct range *r, enum span_kind k, size_t off, size_t end, size_t ticks)
{
	struct span sp = { k, off, end, ticks };
	SD_PUSH(r->spans, r->nspans, r->spans_cap, sp);
}

static void find_spans(struct range *r)
{
	const char *s = r->s;
	size_t *stack = NULL, nstack = 0, stack_cap = 0;
	for (size_t i = r->a; i < r->e;) {
		char c = s[i];
		if (c == '\\' && i + 1 < r->e && ispunct((unsigned char)s[i + 1])) {
			i += 2;
			continue;
		}
		if (c == '`') {
			size_t n = tick_run(s, i, r->e), end = code_close(r, i, n);
			if (end)
				add_span(r, SPAN_CODE, i, end, n);
			i = end ? end : i + n;
			continue;
		}
		size_t end;
		if (c == '<' && (end = autolink_end(s, i, r->e))) {
			add_span(r, SPAN_AUTOLINK, i, end, 0);
			i = end;
			continue;
		}
		if (c == '[') {
			struct opener o = { i, 0, i > r->a && s[i - 1] == '!', 0, 0, 0 };
			SD_PUSH(r->ops, r->nops, r->ops_cap, o);
			SD_PUSH(stack, nstack, stack_cap, r->nops - 1);
		} else if (c == ']' && nstack) {
			size_t k = stack[--nstack];
			r->ops[k].close = i;
			SD_PUSH(r->closed, r->nclosed, r->closed_cap, k);
		} else if (c == '\n' && i + 1 < r->e && s[i + 1] == '\n') {
			nstack = 0; /* brackets never span a blank line */
		}
		i++;
	}
	free(stack);
}

/* ---- pass 2: link tails --------------------------------------------------- */

static bool link_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static size_t skip_space(const char *s, size_t p, size_t e)
{
	while (p < e && link_space(s[p]))
		p++;
	return p;
}

/* After a destination ending at p: [spaces] ["title" | 'title' | (title)]
 * [spaces] ')'. The end after ')', or 0. */
static size_t title_tail(const char *s, size_t p, size_t e)
{
	p = skip_space(s, p, e);
	if (p < e && (s[p] == '"' || s[p] == '\'' || s[p] == '(')) {
		char close = s[p] == '(' ? ')' : s[p];
		size_t q = p + 1;
		while (q < e && s[q] != close) {
			if (close == ')' && s[q] == '(')
				return 0; /* CommonMark: a (title) holds no unescaped '(' */
			if (s[q] == '\\')
				q++;
			q++;
		}
		if (q >= e)
			return 0;
		p = skip_space(s, q + 1, e);
	}
	return p < e && s[p] == ')' ? p + 1 : 0;
}

struct pending {
	size_t op;
	long level;
};

static void end_dest(struct range *r, size_t op, size_t at)
{
	struct opener *o = &r->ops[op];
	o->dest_end = at;
	o->tail_end = title_tail(r->s, at, r->e);
}

/* Every matched ']' followed by '(' gets its tail, in one sweep over the
 * destinations; a "<dest>" is read on its own (it ends at the next '<'). */
static void link_tails(struct range *r)
{
	const char *s = r->s;
	size_t e = r->e, nstarts = 0;
	size_t *starts = xmalloc((r->nclosed + 1) * sizeof *starts); /* openers, by dest start */
	for (size_t k = 0; k < r->nclosed; k++) {
		struct opener *o = &r->ops[r->closed[k]];
		if (o->close + 1 >= e || s[o->close + 1] != '(')
			continue;
		size_t p = skip_space(s, o->close + 2, e);
		if (p >= e)
			continue;
		o->dest_off = p;
		if (s[p] != '<') {
			starts[nstarts++] = r->closed[k];
			continue;
		}
		size_t q = p + 1;
		while (q < e && s[q] != '>' && s[q] != '\n' && s[q] != '<')
			q++;
		if (q < e && s[q] == '>') {
			o->dest_off = p + 1;
			o->dest_end = q;
			o->tail_end = title_tail(s, q + 1, e);
		}
	}
	struct pending *pend = xmalloc((nstarts + 1) * sizeof *pend);
	size_t np = 0, next = 0;
	long level = 0;
	size_t x = nstarts ? r->ops[starts[0]].dest_off : e;
	while (x < e) {
		if (next < nstarts && r->ops[starts[next]].dest_off == x)
			pend[np++] = (struct pending){ starts[next++], level };
		if (!np) { /* nothing open: on to the next start */
			if (next >= nstarts)
				break;
			x = r->ops[starts[next]].dest_off;
			continue;
		}
		unsigned char c = (unsigned char)s[x];
		if (isspace(c) || iscntrl(c)) {
			while (np)
				end_dest(r, pend[--np].op, x);
		} else if (c == '\\' && x + 1 < e) {
			x += 2;
			continue;
		} else if (c == '(') {
			level++;
		} else if (c == ')') {
			while (np && pend[np - 1].level == level)
				end_dest(r, pend[--np].op, x);
			level--;
		}
		x++;
	}
	while (np)
		end_dest(r, pend[--np].op, e);
	free(pend);
	free(starts);
}

/* ---- pass 3: the walk ----------------------------------------------------- */

/* True when pos lies inside a span (binary search). */
static bool inside_span(const struct range *r, size_t pos)
{
	size_t lo = 0, hi = r->nspans;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->spans[mid].off <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pos < r->spans[lo - 1].end;
}

static void emit_span(struct parser *P, const struct span *sp, int block)
{
	if (sp->kind == SPAN_CODE) {
		add_inline(P, SD_CODE_SPAN, sp->off, sp->end, sp->off + sp->ticks, sp->end - sp->ticks, 0, 0, block);
		add_lit(P, SD_LIT_CODE_SPAN, sp->off, sp->end - sp->off);
		scan_refs(P, sp->off + sp->ticks, sp->end - sp->ticks, SD_REF_CODE, block);
	} else {
		add_inline(P, SD_AUTOLINK, sp->off, sp->end, sp->off + 1, sp->end - 1, sp->off + 1, sp->end - 1, block);
		add_lit(P, SD_LIT_URL, sp->off + 1, sp->end - sp->off - 2);
	}
}

/* Text [from, to) with the spans in it, from span index *si on. */
static void walk_spans(struct parser *P, const struct range *r, size_t from, size_t to, size_t *si, int block)
{
	size_t text = from;
	for (; *si < r->nspans && r->spans[*si].off < to; ++*si) {
		const struct span *sp = &r->spans[*si];
		if (sp->off < text)
			continue; /* cut by a link that ends inside it */
		scan_text(P, text, sp->off, block);
		emit_span(P, sp, block);
		text = sp->end;
	}
	scan_text(P, text, to, block);
}

static bool at_line_start(const char *s, size_t base, size_t p)
{
	int n = 0;
	while (p > base && s[p - 1] == ' ' && n < 4)
		p--, n++;
	return n <= 3 && (p == base || s[p - 1] == '\n');
}

/* "[label]: dest" at the start of a line: its end, with the dest span, or 0. */
static size_t link_def(const struct range *r, const struct opener *o, size_t *ds, size_t *de)
{
	const char *s = r->s;
	size_t q = o->close, e = r->e;
	if (!q || q + 1 >= e || s[q + 1] != ':' || o->image || !at_line_start(s, r->a, o->off))
		return 0;
	size_t p = skip_space(s, q + 2, e), t = p;
	if (t < e && s[t] == '<') {
		while (t < e && s[t] != '>' && s[t] != '\n')
			t++;
		*ds = p + 1, *de = t;
	} else {
		while (t < e && !isspace((unsigned char)s[t]))
			t++;
		*ds = p, *de = t;
	}
	size_t end = t < e && s[t] == '>' ? t + 1 : t;
	return *de > *ds && !inside_span(r, end - 1) ? end : 0;
}

static void walk(struct parser *P, struct range *r, int block)
{
	size_t text = r->a, si = 0;
	for (size_t oi = 0; oi < r->nops; oi++) {
		const struct opener *o = &r->ops[oi];
		if (o->off < text)
			continue; /* inside a link or definition already read */
		size_t ds = 0, de = 0, end = link_def(r, o, &ds, &de);
		enum sd_inline_kind kind = SD_LINK_DEF;
		size_t start = o->off;
		if (!end && o->close && o->tail_end && !inside_span(r, o->tail_end - 1)) {
			end = o->tail_end, ds = o->dest_off, de = o->dest_end;
			kind = o->image ? SD_IMAGE : SD_LINK;
			start = o->image ? o->off - 1 : o->off;
		}
		if (!end)
			continue;
		walk_spans(P, r, text, start < text ? text : start, &si, block);
		add_inline(P, kind, start, end, o->off + 1, o->close, ds, de, block);
		if (kind != SD_LINK_DEF) {
			size_t k = si; /* the link text: spans and literals, no links */
			walk_spans(P, r, o->off + 1, o->close, &k, block);
		}
		link_dest(P, ds, de, block);
		text = end;
		while (si < r->nspans && r->spans[si].off < end)
			si++;
	}
	walk_spans(P, r, text, r->e, &si, block);
}

static void scan_inline(struct parser *P, size_t a, size_t e, int block)
{
	if (a >= e)
		return;
	struct range r;
	memset(&r, 0, sizeof r);
	r.s = P->d->src;
	r.a = a;
	r.e = e;
	find_spans(&r);
	link_tails(&r);
	walk(P, &r, block);
	free(r.spans);
	free(r.ops);
	free(r.closed);
	free(r.last_run);
}

/* ---- blocks ----------------------------------------------------------------- */

/* Inline content of block b, whose code blocks are codes [c0, c1). */
static void scan_block(struct parser *P, int b, size_t c0, size_t c1)
{
	struct skilldoc *d = P->d;
	struct sd_block *bl = &d->blocks[b];
	size_t a = bl->off, e = bl->off + bl->len;
	struct refarg ra = { SD_REF_BLOCK, b };
	if (bl->kind == SD_BLANK || bl->kind == SD_RULE)
		return;
	bool code = bl->kind == SD_FENCE || bl->kind == SD_INDENTED_CODE;
	if (code)
		add_lit(P, SD_LIT_CODE_BLOCK, a, bl->len);
	for (size_t k = c0; k < c1; k++) {
		const struct sd_code *c = &d->codes[k];
		if (!code) {
			scan_inline(P, a, c->off, b);
			add_lit(P, SD_LIT_CODE_BLOCK, c->off, c->len);
		}
		each_match(P, P->rx->skillpath, c->content.off, c->content.off + c->content.len, 1, ref_cb, &ra);
		a = c->off + c->len;
	}
	if (!code)
		scan_inline(P, a, e, b);
}

/* ---- finishing ------------------------------------------------------------------ */

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
		SD_PUSH(d->literals, d->nliterals, P->lit_cap, P->cand[i]);
		end = P->cand[i].off + P->cand[i].len;
	}
	free(P->cand);
	P->cand = NULL;
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

/* Sorted, then lines and columns in one walk: each column is counted on
 * from the previous reference on the same line, never from its start. */
static void finish_refs(struct skilldoc *d)
{
	if (!d->nrefs)
		return;
	qsort(d->refs, d->nrefs, sizeof(*d->refs), ref_cmp);
	size_t line = sd_line_of_off(d, d->refs[0].off), at = d->line_starts[line];
	int col = 1;
	for (size_t i = 0; i < d->nrefs; i++) {
		struct sd_ref *r = &d->refs[i];
		if (line + 1 < d->nlines && r->off >= d->line_starts[line + 1]) {
			line = sd_line_of_off(d, r->off);
			at = d->line_starts[line];
			col = 1;
		}
		col += (int)utf8_count(d->src + at, r->off - at);
		at = r->off;
		r->line = (int)line + 1;
		r->col = col;
	}
}

void sd_scan_inlines(struct parser *P)
{
	struct skilldoc *d = P->d;
	P->rx = use_patterns();
	for (size_t b = 0, k = 0; b < d->nblocks; b++) {
		size_t c0 = k;
		while (k < d->ncodes && d->codes[k].block == (int)b)
			k++;
		scan_block(P, (int)b, c0, k);
	}
	drop_patterns(P->rx);
	P->rx = NULL;
	finish_literals(P);
	finish_refs(d);
	if (d->ninlines)
		qsort(d->inlines, d->ninlines, sizeof(*d->inlines), inline_cmp);
}
