/* static-verify — checks a static compile's output as written on disk
 * against its source, for the end-to-end tests:
 *   static-verify SRC_ROOT OUT_ROOT
 * Both are skill set roots holding the same skill folders; for each, every
 * source file but SKILL.md must be in the output with the same bytes and
 * executable bit; every other output file must be a new Markdown file; and
 * the guard (frontmatter, code blocks, headings, literals) must hold over
 * the output read back from disk. Prints "ok" or one line saying what broke;
 * exit 0 / 1 (2 for bad usage). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "compile/guard.h"
#include "base/hash.h"
#include "base/log.h"
#include "compile/package.h"

static bool in_tree(const struct fs_tree *t, const char *path, const struct fs_entry **out)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].path, path)) {
			*out = &t->v[i];
			return true;
		}
	return false;
}

/* One skill of the set: src_dir compiled into out_dir. */
static void verify_one(const char *src_dir, const char *out_dir)
{
	struct skill_src src, out;
	struct err e;
	if (skill_src_load_dir(src_dir, &src, &e) < 0 || skill_src_load_dir(out_dir, &out, &e) < 0)
		die_err(&e);
	for (size_t i = 0; i < src.tree.n; i++) {
		const struct fs_entry *s = &src.tree.v[i], *o;
		if (!strcmp(s->path, src.md_name))
			continue;
		if (!in_tree(&out.tree, s->path, &o))
			die(1, "source file '%s' is missing from the output", s->path);
		if ((s->mode & S_IFMT) != (o->mode & S_IFMT) || (s->mode & 0111) != (o->mode & 0111))
			die(1, "'%s' changed kind or executable bit", s->path);
		if (S_ISREG(s->mode)) {
			hash_hex a, b;
			char *pa = path_join(src.dir, s->path), *pb = path_join(out.dir, s->path);
			if (hash_file(pa, a, &e) < 0 || hash_file(pb, b, &e) < 0)
				die_err(&e);
			if (strcmp(a, b))
				die(1, "source file '%s' changed", s->path);
			free(pa);
			free(pb);
		}
	}
	struct skill_out o;
	skill_out_init(&o, &out);
	for (size_t i = 0; i < out.tree.n; i++) {
		const struct fs_entry *x = &out.tree.v[i], *s;
		if (in_tree(&src.tree, x->path, &s) || S_ISDIR(x->mode))
			continue;
		size_t n = strlen(x->path);
		if (!S_ISREG(x->mode) || n < 4 || strcmp(x->path + n - 3, ".md"))
			die(1, "the output has '%s', which is no source file and no added Markdown file", x->path);
		struct buf b = BUF_INIT;
		char *p = path_join(out.dir, x->path);
		if (fs_read(p, 0, &b, &e) < 0)
			die_err(&e);
		skill_out_add(&o, x->path, b.data, b.len);
		buf_free(&b);
		free(p);
	}
	struct guard_base g;
	guard_init(&g, &src);
	struct guard_fail f;
	if (guard_check(&g, &src, &o, &f))
		die(1, "%s: guard: %s lost: %s (want %d, have %d)", src.name, f.check, f.item, f.want, f.have);
	guard_free(&g);
	skill_out_free(&o);
	skill_src_free(&src);
	skill_src_free(&out);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	if (argc != 3)
		die(2, "usage: static-verify SRC_ROOT OUT_ROOT");
	struct strlist a = STRLIST_INIT, b = STRLIST_INIT;
	struct err e;
	if (skill_set_names(argv[1], &a, &e) < 0 || skill_set_names(argv[2], &b, &e) < 0)
		die_err(&e);
	for (size_t i = 0; i < a.n || i < b.n; i++) {
		if (i >= a.n || i >= b.n || strcmp(a.v[i], b.v[i]))
			die(1, "the set's skill folders changed: '%s' came out as '%s'", i < a.n ? a.v[i] : "-", i < b.n ? b.v[i] : "-");
		char *sd = path_join(argv[1], a.v[i]), *od = path_join(argv[2], b.v[i]);
		verify_one(sd, od);
		free(sd);
		free(od);
	}
	printf("ok\n");
	strlist_free(&a);
	strlist_free(&b);
	return 0;
}
