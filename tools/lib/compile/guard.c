#include "compile/guard.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "skill/skilldoc.h"

/* The folders skilldoc recognizes as skill paths (skilldoc.h, struct sd_ref). */
static const char *const skill_dirs[] = {
	"scripts/", "references/", "reference/", "assets/", "templates/", "examples/", "resources/",
};

/* Length of "scripts/", "references/", ... at s, else 0. */
static size_t guard_skill_dir_at(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_LEN(skill_dirs); i++) {
		size_t k = strlen(skill_dirs[i]);
		if (n >= k && !memcmp(s, skill_dirs[i], k))
			return k;
	}
	return 0;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

size_t guard_root_prefix(const char *s, size_t n)
{
	static const char base[] = "{baseDir}/";
	if (n >= sizeof base - 1 && !memcmp(s, base, sizeof base - 1))
		return sizeof base - 1;
	if (!n || s[0] != '$')
		return 0;
	size_t i = 1;
	bool brace = i < n && s[i] == '{';
	i += brace;
	size_t start = i;
	while (i < n && (isalpha((unsigned char)s[i]) || s[i] == '_'))
		i++;
	bool skill = false;
	for (size_t k = start; k + 5 <= i && !skill; k++)
		skill = !strncasecmp(s + k, "skill", 5);
	if (!skill || (brace && (i >= n || s[i++] != '}')) || i >= n || s[i] != '/')
		return 0;
	return i + 1;
}

void guard_path_form(const char *s, size_t n, struct buf *out)
{
	size_t i = 0;
	while (i < n) {
		char prev = i ? s[i - 1] : ' ';
		if (!word_char(prev) && !strchr(".~/$}-", prev)) {
			size_t p = guard_root_prefix(s + i, n - i);
			size_t q = p;
			if (n - i - q >= 2 && s[i + q] == '.' && s[i + q + 1] == '/')
				q += 2;
			if (q && guard_skill_dir_at(s + i + q, n - i - q)) {
				i += q;
				continue;
			}
		}
		buf_addc(out, s[i++]);
	}
	buf_adds(out, "");
}

/* skilldoc sees "{baseDir}/scripts/x" as the path literal "/scripts/x"
 * (and "$SKILL_DIR/scripts/x" as "$SKILL_DIR" + "/scripts/x"): a literal
 * starting with the '/' of a root prefix is keyed with the prefix, and
 * the $VAR of a root prefix is no literal of its own. */
static size_t prefix_start(const char *src, size_t off)
{
	if (src[off] != '/')
		return off;
	for (size_t k = 1; k <= 64 && k <= off; k++)
		if (guard_root_prefix(src + off - k, k + 1) == k + 1)
			return off - k;
	return off;
}

static bool is_root_prefix(const char *src, size_t len, const struct sd_literal *l)
{
	if (l->kind != SD_LIT_ENV && l->kind != SD_LIT_PLACEHOLDER)
		return false;
	size_t p = guard_root_prefix(src + l->off, len - l->off);
	return p == l->len + 1 && guard_skill_dir_at(src + l->off + p, len - l->off - p);
}

/* The items of one Markdown document, added to the three lists. */
static void collect(const struct skilldoc *d, struct strlist *codes, struct strlist *heads,
		    struct strlist *lits)
{
	for (size_t i = 0; i < d->ncodes; i++)
		strlist_push_owned(codes, xstrndup(d->src + d->codes[i].off, d->codes[i].len));
	for (size_t i = 0; i < d->nblocks; i++)
		if (d->blocks[i].kind == SD_HEADING) {
			struct buf h = BUF_INIT;
			guard_path_form(d->src + d->blocks[i].text.off, d->blocks[i].text.len, &h);
			strlist_push_owned(heads, buf_detach(&h));
		}
	for (size_t i = 0; i < d->nliterals; i++) {
		const struct sd_literal *l = &d->literals[i];
		size_t start = prefix_start(d->src, l->off);
		if (l->kind == SD_LIT_CODE_BLOCK || is_root_prefix(d->src, d->len, l))
			continue;
		struct buf k = BUF_INIT;
		guard_path_form(d->src + start, l->off + l->len - start, &k);
		strlist_push_owned(lits, buf_detach(&k));
	}
}

void guard_init(struct guard_base *g, const struct skill_src *s)
{
	memset(g, 0, sizeof *g);
	const struct skilldoc *d = s->doc;
	g->fm = xstrndup(d->src + d->fm.off, d->fm.len);
	g->fm_len = d->fm.len;
	collect(d, &g->codes, &g->headings, &g->literals);
	strlist_sort(&g->codes);
	strlist_sort(&g->headings);
	strlist_sort(&g->literals);
}

void guard_free(struct guard_base *g)
{
	free(g->fm);
	strlist_free(&g->codes);
	strlist_free(&g->headings);
	strlist_free(&g->literals);
	memset(g, 0, sizeof *g);
}

void guard_fail_free(struct guard_fail *f)
{
	free(f->item);
	memset(f, 0, sizeof *f);
}

/* One line of at most 120 bytes, for the report. */
static char *shorten(const char *s)
{
	struct buf b = BUF_INIT;
	for (const char *p = s; *p && b.len < 120; p++)
		buf_addc(&b, *p == '\n' ? ' ' : *p);
	if (strlen(s) > 120)
		buf_adds(&b, "...");
	return buf_detach(&b);
}

static int fail(struct guard_fail *f, const char *check, const char *item, int want, int have)
{
	f->check = check;
	f->item = shorten(item);
	f->want = want;
	f->have = have;
	return 1;
}

/* Every item of want (sorted) must be in have (sorted) as many times. */
static int multiset_covers(const struct strlist *want, const struct strlist *have, const char *check,
			   struct guard_fail *f)
{
	size_t j = 0;
	for (size_t i = 0; i < want->n;) {
		size_t k = i;
		while (k < want->n && !strcmp(want->v[k], want->v[i]))
			k++;
		while (j < have->n && strcmp(have->v[j], want->v[i]) < 0)
			j++;
		size_t h = j;
		while (h < have->n && !strcmp(have->v[h], want->v[i]))
			h++;
		if (h - j < k - i)
			return fail(f, check, want->v[i], (int)(k - i), (int)(h - j));
		i = k;
		j = h;
	}
	return 0;
}

static int check_outside(const struct skill_src *s, const struct skill_out *o, struct guard_fail *f)
{
	struct strmap seen = STRMAP_INIT;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < o->n; i++) {
		const char *p = o->files[i].path;
		char *norm = *p == '/' ? NULL : path_normalize_rel(p);
		bool ok = norm && !strcmp(norm, p) && *p != '.' && strcmp(p, s->md_name);
		free(norm);
		bool fresh;
		strmap_put(&seen, p, &fresh);
		/* outside the folder, over a source file, or added twice */
		if (!ok || skill_path_taken(s, NULL, p) || !fresh)
			rc = fail(f, "outside", p, 0, 0);
	}
	strmap_free(&seen);
	return rc;
}

/* The item names the kind, the copied text and where it came from. */
static int check_leak(const struct leak_index *lk, const struct skill_out *o, struct guard_fail *f)
{
	struct leak_hit h;
	bool hit = leak_find(lk, o->md.data, o->md.len, &h);
	for (size_t i = 0; !hit && i < o->n; i++)
		hit = leak_find(lk, o->files[i].data.data, o->files[i].data.len, &h);
	if (!hit)
		return 0;
	char *item = xasprintf("%s from %s: \"%s\"", h.kind, h.source, h.text);
	fail(f, "leak", item, 0, 1);
	free(item);
	leak_hit_free(&h);
	return 1;
}

int guard_check(const struct guard_base *g, const struct skill_src *s, struct skill_out *o,
		struct guard_fail *f)
{
	memset(f, 0, sizeof *f);
	if (check_outside(s, o, f))
		return 1;
	struct strlist codes = STRLIST_INIT, heads = STRLIST_INIT, lits = STRLIST_INIT;
	const struct skilldoc *d = skill_out_model(o);
	int rc = 0;
	if (d->fm.len != g->fm_len || memcmp(d->src + d->fm.off, g->fm, g->fm_len))
		rc = fail(f, "frontmatter", "the frontmatter bytes changed", 1, 0);
	collect(d, &codes, &heads, &lits);
	for (size_t i = 0; i < o->n; i++)
		if (str_ends_with(o->files[i].path, ".md"))
			collect(pkg_file_model(&o->files[i]), &codes, &heads, &lits);
	strlist_sort(&codes);
	strlist_sort(&heads);
	strlist_sort(&lits);
	if (!rc)
		rc = multiset_covers(&g->codes, &codes, "code-block", f);
	if (!rc)
		rc = multiset_covers(&g->headings, &heads, "heading", f);
	if (!rc)
		rc = multiset_covers(&g->literals, &lits, "literal", f);
	if (!rc && g->leak)
		rc = check_leak(g->leak, o, f);
	strlist_free(&codes);
	strlist_free(&heads);
	strlist_free(&lits);
	return rc;
}
