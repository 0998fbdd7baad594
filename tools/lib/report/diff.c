#include "report/diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/hash.h"
#include "report/html.h"
#include "skill/skilldoc.h"

/* ------------------------------------------------------------ line diff */

struct line {
	const char *s;
	size_t len;  /* without the newline */
	uint64_t h;
};

static size_t split_lines(const char *s, size_t len, struct line **out)
{
	size_t n = 0, cap = 0;
	struct line *v = xgrow(NULL, &cap, 1, sizeof *v); /* never NULL: callers offset it */
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (s + i)) : len - i;
		GROW(v, n, cap);
		uint64_t h = 1469598103934665603ull; /* FNV-1a */
		for (size_t k = 0; k < l; k++)
			h = (h ^ (unsigned char)s[i + k]) * 1099511628211ull;
		v[n++] = (struct line){ s + i, l, h };
		i += l + (nl != NULL);
	}
	*out = v;
	return n;
}

static int same(const struct line *a, const struct line *b)
{
	return a->h == b->h && a->len == b->len && !memcmp(a->s, b->s, a->len);
}

enum op { KEEP, DEL, INS };

/* The edit script of a[0..n) -> b[0..m): common prefix and suffix first,
 * then a longest common subsequence of the middle (quadratic, so bounded:
 * past the bound the middle is all removed, then all added). */
static size_t script(const struct line *a, size_t n, const struct line *b, size_t m, enum op **out)
{
	enum op *ops = xmalloc((n + m + 1) * sizeof *ops);
	size_t k = 0, pre = 0, suf = 0;
	while (pre < n && pre < m && same(&a[pre], &b[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre && same(&a[n - 1 - suf], &b[m - 1 - suf]))
		suf++;
	for (size_t i = 0; i < pre; i++)
		ops[k++] = KEEP;
	size_t an = n - pre - suf, bn = m - pre - suf;
	const struct line *am = a + pre, *bm = b + pre;
	if (an && bn && an * bn <= 4000000) {
		/* L[i][j] = LCS length of am[i..], bm[j..] */
		uint32_t *L = xcalloc((an + 1) * (bn + 1), sizeof *L);
#define AT(i, j) L[(i) * (bn + 1) + (j)]
		for (size_t i = an; i-- > 0;)
			for (size_t j = bn; j-- > 0;)
				AT(i, j) = same(&am[i], &bm[j]) ? AT(i + 1, j + 1) + 1
				                                : (AT(i + 1, j) >= AT(i, j + 1) ? AT(i + 1, j) : AT(i, j + 1));
		size_t i = 0, j = 0;
		while (i < an || j < bn) {
			if (i < an && j < bn && same(&am[i], &bm[j])) {
				ops[k++] = KEEP;
				i++, j++;
			} else if (j < bn && (i == an || AT(i, j + 1) > AT(i + 1, j))) {
				ops[k++] = INS;
				j++;
			} else {
				ops[k++] = DEL;
				i++;
			}
		}
#undef AT
		free(L);
	} else {
		for (size_t i = 0; i < an; i++)
			ops[k++] = DEL;
		for (size_t j = 0; j < bn; j++)
			ops[k++] = INS;
	}
	for (size_t i = 0; i < suf; i++)
		ops[k++] = KEEP;
	*out = ops;
	return k;
}

static void diff_line(struct buf *b, const char *tag, const char *mark, const struct line *l)
{
	buf_printf(b, "<%s>%s", tag, mark);
	html_text(b, l->s, l->len);
	buf_printf(b, "\n</%s>", tag);
}

void diff_lines_html(struct buf *b, const char *a, size_t alen, const char *c, size_t clen, int context,
		     long *added, long *removed)
{
	struct line *la, *lc;
	size_t n = split_lines(a, alen, &la), m = split_lines(c, clen, &lc);
	enum op *ops;
	size_t k = script(la, n, lc, m, &ops);
	/* show[i]: op i is a change or within context of one */
	char *show = xcalloc(k + 1, 1);
	for (size_t i = 0; i < k; i++) {
		if (ops[i] == KEEP)
			continue;
		size_t from = i > (size_t)context ? i - (size_t)context : 0;
		for (size_t j = from; j < k && j <= i + (size_t)context; j++)
			show[j] = 1;
	}
	buf_adds(b, "<pre class=\"diff\">");
	size_t ia = 0, ic = 0;
	bool gap = false;
	for (size_t i = 0; i < k; i++) {
		if (!show[i]) {
			gap = true;
		} else {
			if (gap)
				buf_adds(b, "<span class=\"gap\">⋯\n</span>");
			gap = false;
			if (ops[i] == KEEP)
				diff_line(b, "span", "  ", &la[ia]);
			else if (ops[i] == DEL)
				diff_line(b, "del", "− ", &la[ia]);
			else
				diff_line(b, "ins", "+ ", &lc[ic]);
		}
		*removed += ops[i] == DEL;
		*added += ops[i] == INS;
		ia += ops[i] != INS;
		ic += ops[i] != DEL;
	}
	if (gap)
		buf_adds(b, "<span class=\"gap\">⋯\n</span>");
	buf_adds(b, "</pre>\n");
	free(show);
	free(ops);
	free(la);
	free(lc);
}

/* ------------------------------------------------------------- sections */

/* The skill folders under root (holding SKILL.md), sorted. */
static void skill_dirs(const char *root, struct strlist *out)
{
	struct strlist names = STRLIST_INIT;
	struct err e;
	if (fs_list_names(root, &names, &e) == 0)
		for (size_t i = 0; i < names.n; i++) {
			char *d = path_join(root, names.v[i]), *md = path_join(d, "SKILL.md");
			if (fs_exists(md))
				strlist_push(out, names.v[i]);
			free(md);
			free(d);
		}
	strlist_free(&names);
	strlist_sort(out);
}

/* A section's own text: heading and body up to its first subsection. */
static void own_text(const struct skilldoc *d, size_t s, const char **p, size_t *len)
{
	const struct sd_section *sec = &d->sections[s];
	size_t off = s == 0 ? d->body : sec->off;
	*p = d->src + off;
	*len = sec->own_end > off ? sec->own_end - off : 0;
}

static const char *heading_of(const struct skilldoc *d, size_t s, size_t *len)
{
	const struct sd_section *sec = &d->sections[s];
	if (sec->heading < 0) {
		*len = strlen("(before the first heading)");
		return "(before the first heading)";
	}
	const struct sd_block *h = &d->blocks[sec->heading];
	*len = h->text.len;
	return d->src + h->text.off;
}

static long find_id(const struct skilldoc *d, const char *id)
{
	for (size_t i = 0; i < d->nsections; i++)
		if (!strcmp(d->sections[i].id, id))
			return (long)i;
	return -1;
}

/* in_lcs[i] for new section i: its id is common and keeps its order among
 * the common ones (a longest common subsequence of the two id orders). */
static char *order_kept(const struct skilldoc *a, const struct skilldoc *c)
{
	size_t n = a->nsections, m = c->nsections;
	char *kept = xcalloc(m + 1, 1);
	if (n * m > 4000000) { /* too many to order: no moves shown */
		for (size_t j = 0; j < m; j++)
			kept[j] = find_id(a, c->sections[j].id) >= 0;
		return kept;
	}
	uint32_t *L = xcalloc((n + 1) * (m + 1), sizeof *L);
#define AT(i, j) L[(i) * (m + 1) + (j)]
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			AT(i, j) = !strcmp(a->sections[i].id, c->sections[j].id)
			                   ? AT(i + 1, j + 1) + 1
			                   : (AT(i + 1, j) >= AT(i, j + 1) ? AT(i + 1, j) : AT(i, j + 1));
	for (size_t i = 0, j = 0; i < n && j < m;) {
		if (!strcmp(a->sections[i].id, c->sections[j].id)) {
			kept[j] = 1;
			i++, j++;
		} else if (AT(i + 1, j) >= AT(i, j + 1)) {
			i++;
		} else {
			j++;
		}
	}
#undef AT
	free(L);
	return kept;
}

struct added_file {
	char *path;
	struct buf data;
};

static void section_head(struct buf *b, const struct skilldoc *d, size_t s, const char *cls, const char *badge)
{
	size_t hl;
	const char *h = heading_of(d, s, &hl);
	buf_printf(b, "<div class=\"sec %s\"><div class=\"sec-h\"><span class=\"badge %s\">%s</span> ", cls, cls, badge);
	html_text(b, h, hl);
	buf_adds(b, " <code class=\"sid\">");
	html_str(b, d->sections[s].id);
	buf_adds(b, "</code></div>\n");
}

/* Whether text has a Markdown heading line whose text is h. */
static bool has_heading(const char *text, size_t len, const char *h, size_t hl)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i, k = 0;
		const char *line = text + i;
		while (k < l && line[k] == '#')
			k++;
		if (k && k < l && line[k] == ' ') {
			while (k < l && line[k] == ' ')
				k++;
			size_t end = l;
			while (end > k && (line[end - 1] == ' ' || line[end - 1] == '\r' || line[end - 1] == '#'))
				end--;
			if (end - k == hl && !memcmp(line + k, h, hl))
				return true;
		}
		i += l + 1;
	}
	return false;
}

/* The added file holding a heading line of a removed section's title. */
static const char *moved_to(const struct skilldoc *a, size_t s, const struct added_file *f, size_t nf)
{
	size_t hl;
	const char *h = heading_of(a, s, &hl);
	if (a->sections[s].heading < 0 || !hl)
		return NULL;
	for (size_t i = 0; i < nf; i++)
		if (f[i].data.data && has_heading(f[i].data.data, f[i].data.len, h, hl))
			return f[i].path;
	return NULL;
}

/* Sections moved out to the same file, shown as one line. */
struct moved_run {
	const char *to;
	struct buf names;
	long n;
};

static void flush_moved(struct buf *b, struct moved_run *m)
{
	if (!m->n)
		return;
	buf_printf(b, "<div class=\"sec moved\"><div class=\"sec-h\"><span class=\"badge moved\">moved out</span> "
		      "%ld section%s to <code>", m->n, m->n == 1 ? "" : "s");
	html_str(b, m->to);
	buf_adds(b, "</code></div>\n<p class=\"note\">");
	buf_add(b, m->names.data, m->names.len);
	buf_adds(b, "</p></div>\n");
	buf_free(&m->names);
	m->n = 0;
	m->to = NULL;
}

static void removed_section(struct buf *b, const struct skilldoc *a, size_t s, const struct added_file *f,
			    size_t nf, struct moved_run *m, struct diff_counts *n)
{
	const char *to = moved_to(a, s, f, nf);
	if (m->n && (!to || strcmp(to, m->to)))
		flush_moved(b, m);
	if (to) {
		size_t hl;
		const char *h = heading_of(a, s, &hl);
		buf_adds(&m->names, m->n ? " · " : "");
		html_text(&m->names, h, hl);
		m->to = to;
		m->n++;
		n->sections_moved++;
		return;
	}
	section_head(b, a, s, "removed", "removed");
	n->sections_removed++;
	const char *p;
	size_t len;
	own_text(a, s, &p, &len);
	diff_lines_html(b, p, len, "", 0, 1 << 20, &n->lines_added, &n->lines_removed);
	buf_adds(b, "</div>\n");
}

/* Removed sections of a that follow a's section `after` (-1: the start)
 * up to the next one c still has. */
static void removed_after(struct buf *b, const struct skilldoc *a, const struct skilldoc *c, long after,
			  const struct added_file *f, size_t nf, struct diff_counts *n)
{
	struct moved_run m = { 0 };
	for (size_t s = (size_t)(after + 1); s < a->nsections; s++) {
		if (find_id(c, a->sections[s].id) >= 0)
			break;
		removed_section(b, a, s, f, nf, &m, n);
	}
	flush_moved(b, &m);
}

static void sections_html(struct buf *b, const struct skilldoc *a, const struct skilldoc *c,
			  const struct added_file *f, size_t nf, struct diff_counts *n)
{
	char *kept = order_kept(a, c);
	struct buf same = BUF_INIT;
	size_t nsame = 0;
	removed_after(b, a, c, -1, f, nf, n);
	for (size_t j = 0; j < c->nsections; j++) {
		long i = find_id(a, c->sections[j].id);
		const char *pa, *pc;
		size_t la, lc;
		own_text(c, j, &pc, &lc);
		if (i < 0) {
			section_head(b, c, j, "added", "added");
			diff_lines_html(b, "", 0, pc, lc, 1 << 20, &n->lines_added, &n->lines_removed);
			buf_adds(b, "</div>\n");
			n->sections_added++;
			continue;
		}
		own_text(a, (size_t)i, &pa, &la);
		bool changed = la != lc || memcmp(pa, pc, la), moved = !kept[j];
		if (!changed && !moved) {
			size_t hl;
			const char *h = heading_of(c, j, &hl);
			buf_adds(&same, nsame++ ? " · " : "");
			html_text(&same, h, hl);
		} else {
			section_head(b, c, j, moved ? "moved" : "changed", moved ? (changed ? "moved, changed" : "moved") : "changed");
			if (changed)
				diff_lines_html(b, pa, la, pc, lc, 2, &n->lines_added, &n->lines_removed);
			buf_adds(b, "</div>\n");
			n->sections_changed += changed;
			n->sections_moved += moved;
		}
		removed_after(b, a, c, i, f, nf, n);
	}
	if (nsame) {
		buf_printf(b, "<p class=\"unchanged\"><span class=\"badge same\">unchanged</span> %zu section%s: ", nsame,
			   nsame == 1 ? "" : "s");
		buf_add(b, same.data, same.len);
		buf_adds(b, "</p>\n");
	}
	buf_free(&same);
	free(kept);
}

/* ---------------------------------------------------------------- files */

static bool read_small(const char *dir, const char *rel, struct buf *out)
{
	char *p = path_join(dir, rel);
	struct err e;
	bool ok = fs_read(p, 1 << 20, out, &e) == 0;
	free(p);
	return ok;
}

static bool is_text(const struct buf *b)
{
	return !b->len || !memchr(b->data, 0, b->len);
}

static bool tree_has(const struct fs_tree *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].path, path))
			return true;
	return false;
}

static void file_row(struct buf *b, const char *cls, const char *path, const struct buf *a, const struct buf *c,
		     struct diff_counts *n)
{
	buf_printf(b, "<details class=\"file %s\"><summary><span class=\"badge %s\">%s</span> <code>", cls, cls, cls);
	html_str(b, path);
	buf_adds(b, "</code></summary>\n");
	if ((!a || is_text(a)) && (!c || is_text(c)))
		diff_lines_html(b, a ? a->data : "", a ? a->len : 0, c ? c->data : "", c ? c->len : 0,
				!a || !c ? 1 << 20 : 2, &n->lines_added, &n->lines_removed);
	else
		buf_adds(b, "<p class=\"note\">binary file</p>\n");
	buf_adds(b, "</details>\n");
	n->files_changed++;
}

/* Every regular file but SKILL.md: added, removed, changed; fills *added
 * with the added ones' bytes (for moved sections). */
static void files_html(const char *da, const char *dc, struct added_file **added, size_t *nadded,
		       struct diff_counts *n, struct buf *out)
{
	struct fs_tree ta = { 0 }, tc = { 0 };
	struct err e;
	fs_list_tree(da, &ta, &e);
	fs_list_tree(dc, &tc, &e);
	*added = xcalloc(tc.n + 1, sizeof **added);
	*nadded = 0;
	for (size_t i = 0; i < tc.n; i++) {
		const char *p = tc.v[i].path;
		if (!S_ISREG(tc.v[i].mode) || !strcmp(p, "SKILL.md"))
			continue;
		struct buf nb = BUF_INIT, ob = BUF_INIT;
		bool have_new = read_small(dc, p, &nb);
		if (!tree_has(&ta, p)) {
			file_row(out, "added", p, NULL, have_new ? &nb : NULL, n);
			(*added)[*nadded].path = xstrdup(p);
			(*added)[(*nadded)++].data = nb;
			continue;
		}
		if (read_small(da, p, &ob) && have_new && (ob.len != nb.len || memcmp(ob.data, nb.data, ob.len)))
			file_row(out, "changed", p, &ob, &nb, n);
		buf_free(&ob);
		buf_free(&nb);
	}
	for (size_t i = 0; i < ta.n; i++)
		if (S_ISREG(ta.v[i].mode) && strcmp(ta.v[i].path, "SKILL.md") && !tree_has(&tc, ta.v[i].path)) {
			struct buf ob = BUF_INIT;
			bool have = read_small(da, ta.v[i].path, &ob);
			file_row(out, "removed", ta.v[i].path, have ? &ob : NULL, NULL, n);
			buf_free(&ob);
		}
	fs_tree_free(&ta);
	fs_tree_free(&tc);
}

/* The change of one skill folder da -> dc (both hold a SKILL.md). */
static void diff_one(struct buf *b, const char *da, const char *dc, struct diff_counts *n)
{
	struct buf ma = BUF_INIT, mc = BUF_INIT;
	if (!read_small(da, "SKILL.md", &ma) || !read_small(dc, "SKILL.md", &mc)) {
		buf_adds(b, "<p class=\"note\">No readable SKILL.md in <code>");
		html_str(b, dc);
		buf_adds(b, "</code>.</p>\n");
	} else {
		struct added_file *added;
		size_t nadded;
		struct buf files = BUF_INIT;
		files_html(da, dc, &added, &nadded, n, &files);
		struct skilldoc *a = sd_parse(ma.data, ma.len), *c = sd_parse(mc.data, mc.len);
		if (a->fm.len != c->fm.len || memcmp(a->src + a->fm.off, c->src + c->fm.off, a->fm.len)) {
			buf_adds(b, "<div class=\"sec changed\"><div class=\"sec-h\"><span class=\"badge changed\">changed</span> frontmatter</div>\n");
			diff_lines_html(b, a->src + a->fm.off, a->fm.len, c->src + c->fm.off, c->fm.len, 2, &n->lines_added,
					&n->lines_removed);
			buf_adds(b, "</div>\n");
		}
		sections_html(b, a, c, added, nadded, n);
		if (files.len) {
			buf_adds(b, "<h4>Other files</h4>\n");
			buf_add(b, files.data, files.len);
		}
		buf_free(&files);
		for (size_t i = 0; i < nadded; i++) {
			free(added[i].path);
			buf_free(&added[i].data);
		}
		free(added);
		sd_free(a);
		sd_free(c);
	}
	buf_free(&ma);
	buf_free(&mc);
}

/* True when the two skill folders hold the same tree. */
static bool same_skill(const char *da, const char *dc)
{
	hash_hex ha, hc;
	struct err e;
	return hash_tree(da, ha, &e) == 0 && hash_tree(dc, hc, &e) == 0 && !strcmp(ha, hc);
}

/* A set of several skills: a heading a skill, the unchanged ones in one line. */
static void diff_set(struct buf *b, const char *old_root, const char *new_root, const struct strlist *names,
		     struct diff_counts *n)
{
	struct buf same = BUF_INIT;
	for (size_t i = 0; i < names->n; i++) {
		char *da = path_join(old_root, names->v[i]), *dc = path_join(new_root, names->v[i]);
		if (same_skill(da, dc)) {
			buf_adds(&same, same.len ? ", " : "");
			html_str(&same, names->v[i]);
		} else {
			buf_adds(b, "<h4>Skill <code>");
			html_str(b, names->v[i]);
			buf_adds(b, "</code></h4>\n");
			diff_one(b, da, dc, n);
		}
		free(da);
		free(dc);
	}
	if (same.len) {
		buf_adds(b, "<p class=\"note\">Unchanged skills (byte-identical): ");
		buf_add(b, same.data, same.len);
		buf_adds(b, ".</p>\n");
	}
	buf_free(&same);
}

void diff_skill_html(struct buf *b, const char *old_root, const char *new_root, struct diff_counts *n)
{
	memset(n, 0, sizeof *n);
	struct strlist na = STRLIST_INIT, nc = STRLIST_INIT;
	skill_dirs(old_root, &na);
	skill_dirs(new_root, &nc);
	bool same_set = na.n == nc.n && na.n > 0;
	for (size_t i = 0; same_set && i < na.n; i++)
		same_set = !strcmp(na.v[i], nc.v[i]);
	if (!same_set) {
		buf_adds(b, "<p class=\"note\">The skill folders of <code>");
		html_str(b, old_root);
		buf_adds(b, "</code> and <code>");
		html_str(b, new_root);
		buf_adds(b, "</code> differ (or one holds none).</p>\n");
	} else if (na.n == 1) {
		char *da = path_join(old_root, na.v[0]), *dc = path_join(new_root, nc.v[0]);
		diff_one(b, da, dc, n);
		free(da);
		free(dc);
	} else {
		diff_set(b, old_root, new_root, &nc, n);
	}
	strlist_free(&na);
	strlist_free(&nc);
}
