/* fuzz.h — what the libFuzzer harnesses share (tests/fuzz/<name>.c, built and
 * run by `make fuzz`): a scratch folder of their own for parsers that read
 * files, and the splitting of one input into the files of a layout. A
 * harness aborts (a finding) when a property it checks does not hold. */
#ifndef SKILLC_FUZZ_H
#define SKILLC_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/util.h"

/* A folder for this process, made on first use, removed at exit. */
static char *fuzz_dir_path;

static void fuzz_dir_remove(void)
{
	struct err e;
	if (fuzz_dir_path)
		fs_remove_tree(fuzz_dir_path, &e);
	free(fuzz_dir_path);
}

static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path) {
		const char *t = getenv("TMPDIR");
		fuzz_dir_path = xasprintf("%s/skillc-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(fuzz_dir_path))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* A fresh sub-folder rel of the scratch folder (emptied); caller frees. */
static inline char *fuzz_fresh(const char *rel)
{
	char *p = path_join(fuzz_dir(), rel);
	struct err e;
	if (fs_remove_tree(p, &e) < 0 || fs_mkdirs(p, &e) < 0)
		abort();
	return p;
}

/* Writes data to dir/rel, making its folders (no fsync: speed matters
 * here, and the scratch folder needs no durability). */
static inline void fuzz_put(const char *dir, const char *rel, const void *data, size_t n)
{
	char *p = path_join(dir, rel), *parent = path_dir(p);
	struct err e;
	FILE *f = fs_mkdirs(parent, &e) < 0 ? NULL : fopen(p, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
		abort();
	free(parent);
	free(p);
}

/* A fresh skill root rel holding demo/SKILL.md with the n bytes of md, for
 * the harnesses that load a skill; caller frees. */
static inline char *fuzz_skill_root(const char *rel, const char *md, size_t n)
{
	char *root = fuzz_fresh(rel);
	fuzz_put(root, "demo/SKILL.md", md, n);
	return root;
}

/* The input cut at each line "----" (what the seeds write between files):
 * part k of at most max, as (data, len); missing parts are empty. */
static inline size_t fuzz_parts(const char *data, size_t size, const char **part, size_t *len, size_t max)
{
	size_t n = 0;
	const char *p = data, *end = data + size;
	while (n < max) {
		const char *cut = NULL;
		for (const char *q = p; q + 6 <= end; q++)
			if (q[0] == '\n' && !memcmp(q + 1, "----\n", 5)) {
				cut = q;
				break;
			}
		part[n] = p;
		len[n] = (size_t)((cut ? cut : end) - p);
		n++;
		if (!cut)
			break;
		p = cut + 6;
	}
	for (size_t k = n; k < max; k++)
		part[k] = "", len[k] = 0;
	return n;
}

#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz: %s:%d: %s does not hold\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#endif
