#include "compile/leak.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- a set of 64-bit keys */

/* Open addressing; key 0 marks a free slot (keys are never 0). */
struct kset {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

static size_t kset_slot(const struct kset *s, uint64_t k)
{
	size_t i = (size_t)(k & (s->cap - 1));
	while (s->keys[i] && s->keys[i] != k)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static void kset_put(struct kset *s, uint64_t k, uint32_t v);

static void kset_grow(struct kset *s)
{
	struct kset old = *s;
	s->cap = old.cap ? old.cap * 2 : 1024;
	s->keys = xcalloc(s->cap, sizeof *s->keys);
	s->vals = xcalloc(s->cap, sizeof *s->vals);
	s->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			kset_put(s, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

/* Keeps the first value a key was put with. */
static void kset_put(struct kset *s, uint64_t k, uint32_t v)
{
	if (2 * (s->n + 1) > s->cap)
		kset_grow(s);
	size_t i = kset_slot(s, k);
	if (s->keys[i])
		return;
	s->keys[i] = k;
	s->vals[i] = v;
	s->n++;
}

static const uint32_t *kset_get(const struct kset *s, uint64_t k)
{
	if (!s->cap)
		return NULL;
	size_t i = kset_slot(s, k);
	return s->keys[i] ? &s->vals[i] : NULL;
}

static void kset_free(struct kset *s)
{
	free(s->keys);
	free(s->vals);
	memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- hashing words */

static uint64_t mix(uint64_t x) /* splitmix64's finalizer */
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The key of a k-word window whose running hash is h (k = 0: a number). */
static uint64_t key_of(uint64_t h, int k)
{
	uint64_t x = mix(h + 0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1));
	return x ? x : 1;
}

static uint64_t step(uint64_t h, uint64_t w)
{
	return mix(h * 0x100000001b3ULL ^ w);
}

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

struct word {
	uint64_t h;
	size_t at, end;
};

struct words {
	struct word *v;
	size_t n, cap;
};

/* Every word of text (FNV-1a over its lowercased bytes). */
static void words_of(const char *text, size_t n, struct words *w)
{
	w->n = 0;
	for (size_t i = 0; i < n;) {
		if (!word_byte((unsigned char)text[i])) {
			i++;
			continue;
		}
		uint64_t h = 0xcbf29ce484222325ULL;
		size_t at = i;
		for (; i < n && word_byte((unsigned char)text[i]); i++) {
			unsigned char c = (unsigned char)text[i];
			h = (h ^ (c >= 'A' && c <= 'Z' ? c + 32 : c)) * 0x100000001b3ULL;
		}
		if (w->n == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 256;
			w->v = xrealloc(w->v, w->cap * sizeof *w->v);
		}
		w->v[w->n++] = (struct word){ h, at, i };
	}
}

/* A number at text[i] (not inside a word): its length, else 0; *key its key. */
static size_t number_at(const char *text, size_t n, size_t i, uint64_t *key)
{
	if (i > 0 && (word_byte((unsigned char)text[i - 1]) || text[i - 1] == '.'))
		return 0;
	size_t j = i, digits = 0;
	bool point = false;
	uint64_t h = 0xcbf29ce484222325ULL;
	while (j < n && ((text[j] >= '0' && text[j] <= '9') ||
			 (text[j] == '.' && !point && j > i && j + 1 < n && text[j + 1] >= '0' && text[j + 1] <= '9'))) {
		point |= text[j] == '.';
		digits += text[j] != '.';
		h = (h ^ (unsigned char)text[j]) * 0x100000001b3ULL;
		j++;
	}
	if (j == i || (j < n && word_byte((unsigned char)text[j])))
		return 0;
	*key = key_of(h, 0);
	return digits >= 4 || (point && digits >= 3) ? j - i : 0;
}

/* ---------------------------------------------------------------- the index */

enum { K_SHINGLE, K_LITERAL, K_NUMBER };
static const char *const kind_names[] = { "shingle", "literal", "number" };

struct leak_index {
	struct kset held, known;
	struct strlist sources;
	struct words w; /* scratch */
};

struct leak_index *leak_new(void)
{
	return xcalloc(1, sizeof(struct leak_index));
}

void leak_free(struct leak_index *lk)
{
	if (!lk)
		return;
	kset_free(&lk->held);
	kset_free(&lk->known);
	strlist_free(&lk->sources);
	free(lk->w.v);
	free(lk);
}

size_t leak_sources(const struct leak_index *lk)
{
	return lk->sources.n;
}

static uint32_t val(size_t source, int kind)
{
	return (uint32_t)(source << 2 | (size_t)kind);
}

/* The quoted strings of text: each one's words as one key. */
static void add_literals(struct leak_index *lk, size_t src, const char *text, size_t n)
{
	struct words w = { 0 };
	for (size_t i = 0; i < n; i++) {
		char q = text[i];
		if (q != '"' && q != '\'' && q != '`')
			continue;
		size_t j = i + 1;
		while (j < n && text[j] != q && text[j] != '\n')
			j++;
		if (j >= n || text[j] != q)
			continue;
		if (j - i - 1 >= 8) {
			words_of(text + i + 1, j - i - 1, &w);
			uint64_t h = 0;
			for (size_t k = 0; k < w.n; k++)
				h = step(h, w.v[k].h);
			if (w.n >= 1 && w.n <= LEAK_SHINGLE)
				kset_put(&lk->held, key_of(h, (int)w.n), val(src, K_LITERAL));
		}
		i = j;
	}
	free(w.v);
}

void leak_add_held(struct leak_index *lk, const char *source, const char *text, size_t n)
{
	size_t src = lk->sources.n;
	strlist_push(&lk->sources, source);
	words_of(text, n, &lk->w);
	for (size_t i = 0; i + LEAK_SHINGLE <= lk->w.n; i++) {
		uint64_t h = 0;
		for (size_t k = 0; k < LEAK_SHINGLE; k++)
			h = step(h, lk->w.v[i + k].h);
		kset_put(&lk->held, key_of(h, LEAK_SHINGLE), val(src, K_SHINGLE));
	}
	add_literals(lk, src, text, n);
	uint64_t key;
	for (size_t i = 0, len; i < n; i += len ? len : 1)
		if ((len = number_at(text, n, i, &key)))
			kset_put(&lk->held, key, val(src, K_NUMBER));
}

void leak_add_known(struct leak_index *lk, const char *text, size_t n)
{
	words_of(text, n, &lk->w);
	for (size_t i = 0; i < lk->w.n; i++) {
		uint64_t h = 0;
		for (size_t k = 0; k < LEAK_SHINGLE && i + k < lk->w.n; k++) {
			h = step(h, lk->w.v[i + k].h);
			kset_put(&lk->known, key_of(h, (int)k + 1), 0);
		}
	}
	uint64_t key;
	for (size_t i = 0, len; i < n; i += len ? len : 1)
		if ((len = number_at(text, n, i, &key)))
			kset_put(&lk->known, key, 0);
}

/* A held-out key the known texts do not hold: its value, else NULL. */
static const uint32_t *leaked(const struct leak_index *lk, uint64_t key)
{
	const uint32_t *v = kset_get(&lk->held, key);
	return v && !kset_get(&lk->known, key) ? v : NULL;
}

static void hit_set(const struct leak_index *lk, uint32_t v, const char *at, size_t len, struct leak_hit *hit)
{
	hit->kind = kind_names[v & 3];
	hit->source = lk->sources.v[v >> 2];
	if (len > 160)
		len = 160;
	hit->text = xstrndup(at, len);
	for (char *c = hit->text; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
}

bool leak_find(const struct leak_index *lk, const char *text, size_t n, struct leak_hit *hit)
{
	memset(hit, 0, sizeof *hit);
	struct words w = { 0 };
	words_of(text, n, &w);
	bool found = false;
	for (size_t i = 0; i < w.n && !found; i++) {
		uint64_t h = 0;
		for (size_t k = 0; k < LEAK_SHINGLE && i + k < w.n && !found; k++) {
			h = step(h, w.v[i + k].h);
			const uint32_t *v = leaked(lk, key_of(h, (int)k + 1));
			if (v) {
				hit_set(lk, *v, text + w.v[i].at, w.v[i + k].end - w.v[i].at, hit);
				found = true;
			}
		}
	}
	free(w.v);
	uint64_t key;
	for (size_t i = 0, len; i < n && !found; i += len ? len : 1) {
		const uint32_t *v;
		if ((len = number_at(text, n, i, &key)) && (v = leaked(lk, key))) {
			hit_set(lk, *v, text + i, len, hit);
			found = true;
		}
	}
	return found;
}

void leak_hit_free(struct leak_hit *h)
{
	free(h->text);
	memset(h, 0, sizeof *h);
}
