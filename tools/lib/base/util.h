/* util.h — allocation that cannot fail visibly, a growable byte buffer,
 * and error values that travel up to main. */
#ifndef SKILLC_BASE_UTIL_H
#define SKILLC_BASE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A programmer error, never bad input (that is a struct err): prints
 * "skillc: BUG at file:line: ..." and aborts. The one stop in library code
 * besides running out of memory. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void bug_at(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The x* allocators print "out of memory" and exit 1 on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Growable arrays: v holds n elements of room for *cap. Returns v (moved
 * if need be) with room for at least `need`, doubling the capacity (from 8)
 * so n pushes cost O(n); dies on out-of-memory or overflow like xrealloc. */
void *xgrow(void *v, size_t *cap, size_t need, size_t size);
/* Room for one more element: GROW(list->v, list->n, list->cap); then
 * list->v[list->n++] = x. */
#define GROW(v, n, cap) ((v) = xgrow((v), &(cap), (n) + 1, sizeof *(v)))
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* For "did you mean": the edit distance of a and b (letters without case;
 * SIZE_MAX over 63 bytes), the most a name of that length may be off by,
 * and the nearest of space-separated words within it (caller frees; NULL
 * when none is, or name is one of them). */
size_t str_distance(const char *a, const char *b);
size_t str_near_max(const char *name);
char *str_nearest(const char *name, const char *words);
bool str_ends_with(const char *s, const char *suffix); /* s ends with suffix */
bool str_in(const char *s, const char *const *v, size_t n); /* s is one of v[0..n) */
/* Returns a malloc'd formatted string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable buffer. `data` is always a NUL-terminated string: BUF_INIT
 * points it at buf_empty, shared and never freed (git's strbuf_slopbuf),
 * so "nothing written" is len == 0, never a NULL test. cap == 0 means data
 * is not ours (buf_empty, or NULL in zeroed memory no buf_* call has
 * touched yet). Release with buf_free, or take ownership of `data` with
 * buf_detach, never free(data). */
struct buf {
	char *data;
	size_t len, cap;
};
extern char buf_empty[1];
#define BUF_INIT { buf_empty, 0, 0 }

void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_reset(struct buf *b);
/* The last non-empty line of b (for messages), its end trimmed in place;
 * "no output" when b is empty. */
const char *buf_last_line(struct buf *b);
/* Removes terminal escapes (ESC sequences: colours, cursor moves, titles;
 * also a colour code whose ESC was already lost, "[91m") and other control
 * bytes but \n and \t from s, in place, in one pass: build output quoted
 * in a one-line message must not carry them. */
void text_strip_escapes(char *s);
void buf_free(struct buf *b);
/* Returns the string (never NULL) and leaves b empty; the caller frees it. */
char *buf_detach(struct buf *b);

/* An error travelling up to main: code 1 = the work failed, 2 = bad usage or
 * bad input (the exit statuses of every tool). */
enum { ERR_WORK = 1, ERR_INPUT = 2 };
struct err {
	int code;
	char msg[1024];
};

/* Records the error and returns -1, so `return err_set(e, ...)` reads well.
 * A format ending in ':' appends ": " and strerror(errno), as samurai does. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A NULL-terminated list of malloc'd strings. */
struct strlist {
	char **v;
	size_t n, cap;
};
#define STRLIST_INIT { NULL, 0, 0 }
void strlist_push(struct strlist *l, const char *s); /* copies s */
void strlist_push_owned(struct strlist *l, char *s); /* takes s */
void strlist_sort(struct strlist *l);                /* byte order */
void strlist_push_new(struct strlist *l, const char *s); /* copies s unless in l */
bool strlist_has(const struct strlist *l, const char *s); /* s is one of them */
void strlist_free(struct strlist *l);

/* qsort/bsearch comparators: of char * elements by bytes, of doubles
 * ascending (NaN compares equal to everything, as before). */
int cmp_str(const void *a, const void *b);
int cmp_double(const void *a, const void *b);
/* v rounded to 0..6 decimal places, halves away from zero: how figures are
 * kept in the JSON outputs. */
double round_to(double v, int places);
/* The next number of a splitmix64 stream from *state: seeded draws that
 * come out the same on every machine (a split, Monte Carlo figures). */
uint64_t splitmix64(uint64_t *state);

/* True when s matches [A-Za-z0-9][A-Za-z0-9._-]* (task names, stage names). */
int name_is_safe(const char *s);

/* A trial's folder, "test-NNN" (traces/<task>/<stage>/test-007/): its one
 * spelling. trial_name writes index's into out and returns out;
 * trial_index reads NNN back (0 when name is not test-<digits>, NNN >= 1). */
#define TRIAL_NAME_MAX 32
char *trial_name(long index, char out[TRIAL_NAME_MAX]);
long trial_index(const char *name);

/* Monotonic and wall clocks, in seconds. */
double now_mono(void);
double now_wall(void);
/* The wall clock file times come from (a coarse one, up to a tick behind
 * now_wall): a file written after it is read is never older than it. */
double now_file_clock(void);
/* ISO 8601 UTC, e.g. 2026-11-29T07:31:53Z, into out[32]. */
void iso_time(double t, char out[32]);

#endif
