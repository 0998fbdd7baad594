#include "base/unicode.h"

#include <stdlib.h>
#include <string.h>

struct uc_range { uint32_t lo, hi; };
struct uc_decomp { uint32_t cp; uint16_t off, len; };
struct uc_ccc { uint32_t lo, hi; uint8_t ccc; };
struct uc_comp { uint32_t a, b, c; };

#include "base/unicode_tables.h"

/* Hangul syllables decompose and compose algorithmically (Unicode §3.12). */
enum {
	H_SBASE = 0xAC00, H_LBASE = 0x1100, H_VBASE = 0x1161, H_TBASE = 0x11A7,
	H_LCOUNT = 19, H_VCOUNT = 21, H_TCOUNT = 28,
	H_NCOUNT = H_VCOUNT * H_TCOUNT, H_SCOUNT = H_LCOUNT * H_NCOUNT,
};

size_t utf8_check(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		size_t n;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			n = 2, cp = c & 0x1F, min = 0x80;
		} else if (c >= 0xE0 && c <= 0xEF) {
			n = 3, cp = c & 0x0F, min = 0x800;
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 4, cp = c & 0x07, min = 0x10000;
		} else {
			return i;
		}
		if (len - i < n)
			return i;
		for (size_t k = 1; k < n; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return i;
		i += n;
	}
	return len;
}

uint32_t utf8_decode(const char *str, size_t len, size_t *n)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0];
	size_t k, want;
	uint32_t cp;
	if (c < 0x80 || len < 2) {
		*n = 1;
		return c;
	}
	if (c >= 0xF0)
		want = 4, cp = c & 0x07;
	else if (c >= 0xE0)
		want = 3, cp = c & 0x0F;
	else
		want = 2, cp = c & 0x1F;
	if (want > len)
		want = len;
	for (k = 1; k < want; k++)
		cp = cp << 6 | (s[k] & 0x3F);
	*n = want;
	return cp;
}

void utf8_put(struct buf *b, uint32_t cp)
{
	char t[4];
	size_t n;
	if (cp < 0x80) {
		t[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		t[0] = (char)(0xC0 | cp >> 6), t[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
	} else if (cp < 0x10000) {
		t[0] = (char)(0xE0 | cp >> 12), t[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		t[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
	} else {
		t[0] = (char)(0xF0 | cp >> 18), t[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		t[2] = (char)(0x80 | (cp >> 6 & 0x3F)), t[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
	}
	buf_add(b, t, n);
}

size_t utf8_count(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

static bool in_ranges(const struct uc_range *r, size_t n, uint32_t cp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < r[mid].lo)
			hi = mid;
		else if (cp > r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

bool uc_is_alnum(uint32_t cp)
{
	return in_ranges(uct_alnum, ARRAY_LEN(uct_alnum), cp);
}

bool uc_changes_lower(uint32_t cp)
{
	return in_ranges(uct_changes_lower, ARRAY_LEN(uct_changes_lower), cp);
}

bool uc_is_space(uint32_t cp)
{
	return in_ranges(uct_space, ARRAY_LEN(uct_space), cp);
}

static unsigned ccc_of(uint32_t cp)
{
	size_t lo = 0, hi = ARRAY_LEN(uc_ccc_runs);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < uc_ccc_runs[mid].lo)
			hi = mid;
		else if (cp > uc_ccc_runs[mid].hi)
			lo = mid + 1;
		else
			return uc_ccc_runs[mid].ccc;
	}
	return 0;
}

static const struct uc_decomp *decomp_of(uint32_t cp)
{
	size_t lo = 0, hi = ARRAY_LEN(uc_decomp_index);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < uc_decomp_index[mid].cp)
			hi = mid;
		else if (cp > uc_decomp_index[mid].cp)
			lo = mid + 1;
		else
			return &uc_decomp_index[mid];
	}
	return NULL;
}

static uint32_t compose_pair(uint32_t a, uint32_t b)
{
	if (a >= H_LBASE && a < H_LBASE + H_LCOUNT && b >= H_VBASE && b < H_VBASE + H_VCOUNT)
		return H_SBASE + ((a - H_LBASE) * H_VCOUNT + (b - H_VBASE)) * H_TCOUNT;
	if (a >= H_SBASE && a < H_SBASE + H_SCOUNT && (a - H_SBASE) % H_TCOUNT == 0 &&
	    b > H_TBASE && b < H_TBASE + H_TCOUNT)
		return a + (b - H_TBASE);
	size_t lo = 0, hi = ARRAY_LEN(uc_comp_pairs);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct uc_comp *c = &uc_comp_pairs[mid];
		if (a < c->a || (a == c->a && b < c->b))
			hi = mid;
		else if (a > c->a || b > c->b)
			lo = mid + 1;
		else
			return c->c;
	}
	return 0;
}

/* A growable array of code points for the normalization passes. */
struct cps {
	uint32_t *v;
	size_t n, cap;
};

static void cps_push(struct cps *c, uint32_t cp)
{
	GROW(c->v, c->n, c->cap);
	c->v[c->n++] = cp;
}

static void decompose(uint32_t cp, struct cps *out)
{
	if (cp >= H_SBASE && cp < H_SBASE + H_SCOUNT) {
		uint32_t s = cp - H_SBASE;
		cps_push(out, H_LBASE + s / H_NCOUNT);
		cps_push(out, H_VBASE + s % H_NCOUNT / H_TCOUNT);
		if (s % H_TCOUNT)
			cps_push(out, H_TBASE + s % H_TCOUNT);
		return;
	}
	const struct uc_decomp *d = decomp_of(cp);
	if (!d) {
		cps_push(out, cp);
		return;
	}
	for (size_t i = 0; i < d->len; i++)
		cps_push(out, uc_decomp_pool[d->off + i]);
}

/* Canonical ordering: a stable sort of each run of non-starters by class. */
static void reorder(struct cps *c)
{
	for (size_t i = 1; i < c->n; i++) {
		unsigned k = ccc_of(c->v[i]);
		if (!k)
			continue;
		size_t j = i;
		uint32_t cp = c->v[i];
		while (j > 0) {
			unsigned p = ccc_of(c->v[j - 1]);
			if (p <= k)
				break;
			c->v[j] = c->v[j - 1];
			j--;
		}
		c->v[j] = cp;
	}
}

/* Canonical composition (Unicode §3.11, D117). */
static void compose(struct cps *c)
{
	if (!c->n)
		return;
	size_t starter = 0, out = 1;
	bool have_starter = ccc_of(c->v[0]) == 0;
	int last_ccc = have_starter ? 0 : 256;
	for (size_t i = 1; i < c->n; i++) {
		uint32_t cp = c->v[i];
		int k = (int)ccc_of(cp);
		uint32_t comp = 0;
		if (have_starter && (last_ccc < k || (last_ccc == 0 && out == starter + 1)))
			comp = compose_pair(c->v[starter], cp);
		if (comp) {
			c->v[starter] = comp;
			continue;
		}
		if (k == 0) {
			starter = out;
			have_starter = true;
			last_ccc = 0;
		} else {
			last_ccc = k;
		}
		c->v[out++] = cp;
	}
	c->n = out;
}

void uc_nfkc(const char *s, size_t len, struct buf *out)
{
	struct cps c = { NULL, 0, 0 };
	for (size_t i = 0; i < len;) {
		size_t n;
		uint32_t cp = utf8_decode(s + i, len - i, &n);
		decompose(cp, &c);
		i += n;
	}
	reorder(&c);
	compose(&c);
	for (size_t i = 0; i < c.n; i++)
		utf8_put(out, c.v[i]);
	if (!out->cap)
		buf_add(out, "", 0);
	free(c.v);
}

void uc_strip(const char **sp, size_t *lenp)
{
	const char *s = *sp;
	size_t len = *lenp;
	while (len) {
		size_t n;
		if (!uc_is_space(utf8_decode(s, len, &n)))
			break;
		s += n, len -= n;
	}
	while (len) {
		size_t k = len - 1;
		while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		size_t n;
		if (!uc_is_space(utf8_decode(s + k, len - k, &n)))
			break;
		len = k;
	}
	*sp = s, *lenp = len;
}
