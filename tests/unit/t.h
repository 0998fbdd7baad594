/* t.h — the unit-test protocol shared with tests/run: one line per case,
 * "ok <name>" or "FAIL <name>: <where>: <what>"; exit 1 if any failed. */
#ifndef SKILLC_T_H
#define SKILLC_T_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"

static int t_failed_total;
static int t_case_failed;
static const char *t_case_name;

#define CHECK(cond) do { \
	if (!(cond)) { \
		printf("FAIL %s: %s:%d: %s\n", t_case_name, __FILE__, __LINE__, #cond); \
		t_case_failed = 1; \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *t_a = (a), *t_b = (b); \
	if (!t_a || !t_b || strcmp(t_a, t_b)) { \
		printf("FAIL %s: %s:%d: %s == %s: got \"%s\", want \"%s\"\n", t_case_name, __FILE__, \
		       __LINE__, #a, #b, t_a ? t_a : "(null)", t_b ? t_b : "(null)"); \
		t_case_failed = 1; \
	} \
} while (0)

#define CHECK_INT(a, b) do { \
	long long t_a = (long long)(a), t_b = (long long)(b); \
	if (t_a != t_b) { \
		printf("FAIL %s: %s:%d: %s == %s: got %lld, want %lld\n", t_case_name, __FILE__, \
		       __LINE__, #a, #b, t_a, t_b); \
		t_case_failed = 1; \
	} \
} while (0)

#define RUN(fn) do { \
	t_case_name = #fn; \
	t_case_failed = 0; \
	fn(); \
	if (!t_case_failed) \
		printf("ok %s\n", #fn); \
	t_failed_total += t_case_failed; \
	fflush(stdout); \
} while (0)

#define T_EXIT() return t_failed_total ? 1 : 0

/* A fresh scratch directory under $TMPDIR (or /tmp); caller frees. */
static inline char *t_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = malloc(4096);
	snprintf(tmpl, 4096, "%s/skillc-unit.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		exit(2);
	}
	return tmpl;
}

/* Writes text to dir/rel (rel alone when dir is NULL), creating its
 * folders; a test that cannot set up stops with a FAIL line. */
static inline void t_put(const char *dir, const char *rel, const char *text)
{
	char *p = dir ? path_join(dir, rel) : xstrdup(rel);
	char *parent = path_dir(p);
	struct err e;
	if (fs_mkdirs(parent, &e) < 0 || fs_write_atomic(p, text, strlen(text), 0644, &e) < 0) {
		printf("FAIL setup: %s\n", e.msg);
		exit(2);
	}
	free(parent);
	free(p);
}

#endif
