/* Skill runs' plan (pipeline/skillrun.h): how many tasks a SPLIT draws
 * (rounded, at least one test task and one train task), the draw itself
 * (exactly k drawn, the same for the same seed, another for another seed,
 * every task drawn by some seed), and the composed skill set (the skill in
 * place of its namesake, the rest of the set untouched, rewritten only when
 * its content changes). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "t.h"

#include "base/fs.h"
#include "base/hash.h"
#include "pipeline/skillrun.h"

static void test_count(void)
{
	CHECK_INT((long)skillrun_test_count(3, 0.4), 1);
	CHECK_INT((long)skillrun_test_count(3, 0.6), 2);
	CHECK_INT((long)skillrun_test_count(10, 0.25), 3); /* 2.5 rounds up */
	CHECK_INT((long)skillrun_test_count(5, 0), 1);     /* at least one test task */
	CHECK_INT((long)skillrun_test_count(5, 1), 4);     /* and one left to train */
	CHECK_INT((long)skillrun_test_count(2, 0.5), 1);
}

static long drawn(size_t n, size_t k, long seed, char *mask)
{
	bool t[64];
	skillrun_draw(n, k, seed, t);
	long c = 0;
	for (size_t i = 0; i < n; i++) {
		mask[i] = t[i] ? '1' : '0';
		c += t[i];
	}
	mask[n] = 0;
	return c;
}

static void test_draw(void)
{
	char a[65], b[65], c[65];
	CHECK_INT(drawn(20, 7, 1, a), 7);
	CHECK_INT(drawn(20, 7, 1, b), 7);
	CHECK(!strcmp(a, b)); /* the same seed, the same split */
	bool other = false, hit[20] = { 0 };
	for (long s = 2; s < 200; s++) {
		CHECK_INT(drawn(20, 7, s, c), 7);
		other |= strcmp(a, c) != 0;
		for (int i = 0; i < 20; i++)
			hit[i] |= c[i] == '1';
	}
	CHECK(other);
	for (int i = 0; i < 20; i++)
		CHECK(hit[i]);
}

static void put(const char *path, const char *text)
{
	struct err e = { 0 };
	char *d = path_dir(path);
	CHECK(fs_mkdirs(d, &e) == 0);
	CHECK(fs_write_atomic(path, text, strlen(text), 0644, &e) == 0);
	free(d);
}

static void test_compose(void)
{
	char tmpl[] = "/tmp/skillrun_test.XXXXXX";
	CHECK(mkdtemp(tmpl) != NULL);
	char *task = path_join(tmpl, "task"), *skill = path_join(tmpl, "new/csv"),
	     *out = path_join(tmpl, "out/set");
	char *p;
	put(p = path_join(task, "environment/skills/csv/SKILL.md"), "old csv\n");
	free(p);
	put(p = path_join(task, "environment/skills/other/SKILL.md"), "other\n");
	free(p);
	put(p = path_join(skill, "SKILL.md"), "new csv\n");
	free(p);
	struct err e = { 0 };
	CHECK(skillrun_compose(task, skill, "csv", out, &e) == 0);
	struct buf b = BUF_INIT;
	CHECK(fs_read(p = path_join(out, "csv/SKILL.md"), 1024, &b, &e) == 0 &&
	      !strcmp(b.data, "new csv\n"));
	free(p);
	buf_free(&b);
	CHECK(fs_read(p = path_join(out, "other/SKILL.md"), 1024, &b, &e) == 0 &&
	      !strcmp(b.data, "other\n"));
	free(p);
	buf_free(&b);
	struct stat st1, st2;
	CHECK(stat(out, &st1) == 0);
	CHECK(skillrun_compose(task, skill, "csv", out, &e) ==
	      0); /* the same content: left alone */
	CHECK(stat(out, &st2) == 0 && st1.st_ino == st2.st_ino);
	char *added = path_join(tmpl, "out/added");
	CHECK(skillrun_compose(task, skill, "fresh", added, &e) == 0); /* no namesake: added */
	CHECK(fs_exists(p = path_join(added, "fresh/SKILL.md")) && fs_exists(added));
	free(p);
	CHECK(fs_exists(p = path_join(added, "csv/SKILL.md")));
	free(p);
	CHECK(fs_remove_tree(tmpl, &e) == 0);
	free(added);
	free(task);
	free(skill);
	free(out);
}

int main(void)
{
	RUN(test_count);
	RUN(test_draw);
	RUN(test_compose);
	T_EXIT();
}
