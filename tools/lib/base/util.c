#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void oom(void)
{
	fputs("skillc: out of memory\n", stderr);
	exit(1);
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "skillc: BUG at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputs(" (this is a bug in skillc, not in your input: please report it)\n", stderr);
	va_end(ap);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xgrow(void *v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return v;
	size_t c = *cap ? *cap : 8;
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : c * 2;
	if (size && c > SIZE_MAX / size)
		oom();
	*cap = c;
	return xrealloc(v, c * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

bool str_in(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return true;
	return false;
}

char *xasprintf(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return buf_detach(&b);
}

char buf_empty[1];

void buf_grow(struct buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 1)
		oom();
	if (!b->cap)
		b->data = NULL; /* buf_empty is shared: never grown in place */
	b->data = xgrow(b->data, &b->cap, b->len + extra + 1, 1);
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
	if (b->len + 2 > b->cap) /* the byte and the NUL; buf_empty has cap 0 */
		buf_grow(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
	else
		b->data = buf_empty;
}

const char *buf_last_line(struct buf *b)
{
	if (!b->len)
		return "no output";
	while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == '\r'))
		b->data[--b->len] = '\0';
	char *nl = strrchr(b->data, '\n');
	return nl ? nl + 1 : b->data;
}

/* Length of a bare SGR code at s ("[0m", "[1;31m"), 0 when s is not one. */
static size_t bare_sgr(const char *s)
{
	if (*s != '[')
		return 0;
	size_t n = 1;
	while (n < 12 && ((s[n] >= '0' && s[n] <= '9') || s[n] == ';'))
		n++;
	return n > 1 && s[n] == 'm' ? n + 1 : 0;
}

/* Length of the escape sequence at s (s[0] is ESC). */
static size_t escape_len(const char *s)
{
	size_t n = 1;
	if (s[n] == '[') { /* CSI: parameters, then one final byte @..~ */
		for (n++; s[n] && !(s[n] >= 0x40 && s[n] <= 0x7e); n++)
			;
		return s[n] ? n + 1 : n;
	}
	if (s[n] == ']') { /* OSC: up to BEL or ESC \ */
		for (n++; s[n] && s[n] != '\a' && !(s[n] == 0x1b && s[n + 1] == '\\'); n++)
			;
		return !s[n] ? n : s[n] == '\a' ? n + 1 : n + 2;
	}
	while (s[n] >= 0x20 && s[n] <= 0x2f) /* intermediates, e.g. ESC ( B */
		n++;
	return s[n] ? n + 1 : n; /* and the final byte */
}

void text_strip_escapes(char *s)
{
	char *w = s;
	for (const char *r = s; *r;) {
		unsigned char c = (unsigned char)*r;
		size_t skip = c == 0x1b ? escape_len(r) : bare_sgr(r);
		if (skip) {
			r += skip;
		} else if (c < 0x20 && c != '\n' && c != '\t') {
			r++;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

void buf_free(struct buf *b)
{
	if (b->cap)
		free(b->data);
	b->data = buf_empty;
	b->len = b->cap = 0;
}

char *buf_detach(struct buf *b)
{
	char *s = b->cap ? b->data : xstrdup("");
	b->data = buf_empty;
	b->len = b->cap = 0;
	return s;
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	int saved = errno;
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	size_t n = strlen(e->msg);
	if (n && e->msg[n - 1] == ':')
		snprintf(e->msg + n, sizeof e->msg - n, " %s", strerror(saved));
	e->code = code;
	errno = saved;
	return -1;
}

void strlist_push_owned(struct strlist *l, char *s)
{
	GROW(l->v, l->n + 1, l->cap); /* and its NULL */
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

void strlist_push(struct strlist *l, const char *s)
{
	strlist_push_owned(l, xstrdup(s));
}

int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double round_to(double v, int places)
{
	static const double scale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };
	if (places < 0 || (size_t)places >= ARRAY_LEN(scale))
		BUG("round_to: %d places", places);
	return round(v * scale[places]) / scale[places];
}

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void strlist_sort(struct strlist *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_str);
}

bool strlist_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void strlist_push_new(struct strlist *l, const char *s)
{
	if (!strlist_has(l, s))
		strlist_push(l, s);
}

char *trial_name(long index, char out[TRIAL_NAME_MAX])
{
	snprintf(out, TRIAL_NAME_MAX, "test-%03ld", index);
	return out;
}

long trial_index(const char *name)
{
	if (strncmp(name, "test-", 5))
		return 0;
	long n = 0;
	const char *p = name + 5;
	for (; *p >= '0' && *p <= '9' && n < 100000000; p++)
		n = n * 10 + (*p - '0');
	return p == name + 5 || *p ? 0 : n;
}

int name_is_safe(const char *s)
{
	if (!s || !*s)
		return 0;
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (p == s ? !alnum : !(alnum || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double now_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double now_file_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void iso_time(double t, char out[32])
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The edit distance of a and b, letters compared without case; names are
 * short (longer than 63: SIZE_MAX, never near). */
size_t str_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b), row[64];
	if (n > 63 || m > 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= m; j++)
		row[j] = j;
	for (size_t i = 1; i <= n; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t up = row[j], cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[m];
}

size_t str_near_max(const char *name)
{
	size_t len = strlen(name);
	return len >= 6 ? 2 : len >= 4 ? 1 : 0;
}

char *str_nearest(const char *name, const char *words)
{
	size_t max = str_near_max(name), best_d = SIZE_MAX;
	char *best = NULL;
	for (const char *p = words; *p;) {
		size_t n = strcspn(p, " ");
		char *w = xstrndup(p, n);
		size_t d = str_distance(name, w);
		if (n && d <= max && d < best_d && strcmp(name, w)) {
			free(best);
			best = w;
			best_d = d;
		} else {
			free(w);
		}
		p += n + (p[n] == ' ');
	}
	return best;
}
