/* The leakage guard's detector (compile/leak.h) and its hook in the guard,
 * as a table of cases: held-out text, known text, the checked skill text,
 * and what must be found (or nothing). */
#include "t.h"

#include "compile/guard.h"
#include "compile/leak.h"
#include "compile/package.h"
#include "optimize/leakload.h"

struct leak_case {
	const char *name, *held, *known, *text;
	const char *kind, *match; /* NULL: no finding */
};

static const struct leak_case cases[] = {
	{ "an expected value copied from a shell test", "want='\"cache-v2\":1,\"db\":3,\"http\":1,'\n",
	  "Count the lines, e.g. {\"db\": 3, \"http\": 1}.", "Expect {\"cache-v2\": 1, \"db\": 3, \"http\": 1}.",
	  "literal", "cache-v2\": 1, \"db\": 3, \"http\": 1" },
	{ "the instruction's own example is not a leak", "want='\"db\":3,\"http\":1'\n",
	  "for example {\"db\": 3, \"http\": 1}", "Write {\"db\": 3, \"http\": 1}.", NULL, NULL },
	{ "eight words of a solution, case and punctuation aside",
	  "# sort the rows by the second column before you sum them\n", "", "Always SORT the rows, by the second column; before you sum.",
	  "shingle", "SORT the rows, by the second column; before" },
	{ "seven words are not a shingle", "sort the rows by the second column before\n", "",
	  "sort the rows by the second column first", NULL, NULL },
	{ "a shingle the raw skill already had", "the level is the second field of each line\n",
	  "Note: the level is the second field of each line.", "Remember: the level is the second field of each line.", NULL,
	  NULL },
	{ "a long number from the tests", "assert total == 4521.33\n", "", "The total should be 4521.33 dollars.", "number",
	  "4521.33" },
	{ "a four-digit integer", "assert rows == 1287\n", "", "There are 1287 rows.", "number", "1287" },
	{ "short numbers are not findings", "assert n == 42 and x == 3.5\n", "", "Use 42 workers and 3.5 GB.", NULL, NULL },
	{ "a number inside a word is not a number", "expect 2048\n", "", "use sha2048x here", NULL, NULL },
	{ "a number the instruction gives", "assert total == 1287\n", "The file has 1287 rows.", "Check all 1287 rows.", NULL,
	  NULL },
	{ "a single long quoted literal", "assert out == \"ZXQ_SECRET_TOKEN\"\n", "", "Print zxq_secret_token at the end.",
	  "literal", "zxq_secret_token" },
	{ "a short quoted literal is not one", "assert out == \"PASS\"\n", "", "Print PASS.", NULL, NULL },
	{ "quotes do not reach across lines", "it's here\nand there's more\n", "", "s here and there", NULL, NULL },
	{ "nothing held out", "", "", "Anything 123456 at all goes here for the skill text now.", NULL, NULL },
};

static void test_leak_cases(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct leak_case *c = &cases[i];
		struct leak_index *lk = leak_new();
		leak_add_held(lk, "tests/test.sh", c->held, strlen(c->held));
		leak_add_known(lk, c->known, strlen(c->known));
		struct leak_hit h;
		bool found = leak_find(lk, c->text, strlen(c->text), &h);
		if (found != (c->kind != NULL))
			printf("case: %s (found %d: %s %s)\n", c->name, found, found ? h.kind : "", found ? h.text : "");
		CHECK(found == (c->kind != NULL));
		if (found && c->kind) {
			CHECK_STR(h.kind, c->kind);
			CHECK_STR(h.text, c->match);
			CHECK_STR(h.source, "tests/test.sh");
		}
		leak_hit_free(&h);
		leak_free(lk);
	}
}

/* Linear: a held-out text of 200,000 words and a skill of 50,000 check in
 * well under a second even under the sanitizers (a quadratic scan would not). */
static void test_leak_large(void)
{
	struct buf held = BUF_INIT, text = BUF_INIT;
	for (int i = 0; i < 200000; i++)
		buf_printf(&held, "w%d ", i);
	for (int i = 0; i < 50000; i++)
		buf_printf(&text, "s%d ", i);
	buf_adds(&text, "w1000 w1001 w1002 w1003 w1004 w1005 w1006 w1007");
	struct leak_index *lk = leak_new();
	leak_add_held(lk, "solution/solve.py", held.data, held.len);
	struct leak_hit h;
	CHECK(leak_find(lk, text.data, text.len, &h));
	CHECK_STR(h.kind, "shingle");
	CHECK_STR(h.text, "w1000 w1001 w1002 w1003 w1004 w1005 w1006 w1007");
	CHECK_INT(leak_sources(lk), 1);
	leak_hit_free(&h);
	leak_free(lk);
	buf_free(&held);
	buf_free(&text);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel), *d = path_dir(p);
	struct err e = { 0 };
	CHECK(fs_mkdirs(d, &e) == 0);
	CHECK(fs_write_atomic(p, text, strlen(text), 0644, &e) == 0);
	free(d);
	free(p);
}

/* leak_load reads tests/, solution/ and *expected* files as held out,
 * the instruction and the skill as known; the guard then rolls back. */
static void test_leak_load_and_guard(void)
{
	char *dir = t_tmpdir(), *task = path_join(dir, "task"), *sk = path_join(dir, "skills");
	write_file(task, "instruction.md", "Sum the column `amount` of /root/sales.csv.\n");
	write_file(task, "tests/test.sh", "[ \"$(cat /root/out)\" = 98765 ] || exit 1\n");
	write_file(task, "solution/solve.sh", "awk -F, 'NR>1 {s+=$3} END {print s}' /root/sales.csv\n");
	write_file(task, "environment/expected_total.txt", "grand total 55555\n");
	write_file(task, "environment/data.csv", "id,amount\n1,77777\n");
	const char *md = "---\nname: csv\ndescription: Sum a CSV column. Use for sums.\n---\n# CSV\n\nUse awk.\n";
	write_file(sk, "csv/SKILL.md", md);
	struct pkgset set = { 0 };
	struct err e = { 0 };
	CHECK(pkgset_load(sk, NULL, &set, &e) == 0 && set.n == 1);
	const struct skill_src *src = &set.v[0];
	struct leak_index *lk = leak_load(task, NULL, &set, &e);
	CHECK(lk != NULL);
	CHECK_INT(leak_sources(lk), 3); /* tests, solution, the expected file; not the data */
	struct leak_hit h;
	CHECK(leak_find(lk, "print 98765", 11, &h));
	CHECK_STR(h.source, "tests/test.sh");
	leak_hit_free(&h);
	CHECK(leak_find(lk, "about 55555", 11, &h));
	CHECK_STR(h.source, "environment/expected_total.txt");
	leak_hit_free(&h);
	CHECK(!leak_find(lk, "about 77777", 11, &h));
	struct guard_base g;
	guard_init(&g, src);
	g.leak = lk;
	struct skill_out o;
	skill_out_init(&o, src);
	struct buf nb = BUF_INIT;
	buf_printf(&nb, "%sThe answer is 98765.\n", md);
	skill_out_set_md(&o, &nb);
	struct guard_fail f;
	CHECK(guard_check(&g, src, &o, &f) == 1);
	CHECK_STR(f.check, "leak");
	CHECK_STR(f.item, "number from tests/test.sh: \"98765\"");
	guard_fail_free(&f);
	skill_out_free(&o);
	guard_free(&g);
	leak_free(lk);
	pkgset_free(&set);
	struct err e2 = { 0 };
	CHECK(fs_remove_tree(dir, &e2) == 0);
	free(task);
	free(sk);
	free(dir);
}

/* Over several tasks (a skill run's pooled train tasks): every task's
 * held-out files count, named by task; every instruction is known. */
static void test_leak_load_several_tasks(void)
{
	char *dir = t_tmpdir(), *a = path_join(dir, "tr-a"), *b = path_join(dir, "tr-b");
	write_file(a, "instruction.md", "Sum the column of /root/a.csv.\n");
	write_file(a, "tests/test.sh", "[ \"$(cat /root/out)\" = 11111 ] || exit 1\n");
	write_file(b, "instruction.md", "Sum the column of /root/b.csv; the header says 33333.\n");
	write_file(b, "tests/test.sh", "[ \"$(cat /root/out)\" = 22222 ] || exit 1\n");
	write_file(b, "solution/expected.txt", "33333\n");
	struct err e = { 0 };
	const char *tasks[] = { a, b };
	struct leak_index *lk = leak_load_tasks(tasks, 2, NULL, NULL, &e);
	CHECK(lk != NULL);
	CHECK_INT(leak_sources(lk), 3);
	struct leak_hit h;
	CHECK(leak_find(lk, "print 11111", 11, &h));
	CHECK_STR(h.source, "tr-a: tests/test.sh");
	leak_hit_free(&h);
	CHECK(leak_find(lk, "print 22222", 11, &h));
	CHECK_STR(h.source, "tr-b: tests/test.sh");
	leak_hit_free(&h);
	CHECK(!leak_find(lk, "about 33333", 11, &h)); /* tr-b's instruction says it */
	leak_free(lk);
	const char *missing[] = { a, "/nonexistent/tr-c" };
	CHECK(leak_load_tasks(missing, 2, NULL, NULL, &e) == NULL && e.code == ERR_INPUT);
	free(a);
	free(b);
	free(dir);
}

int main(void)
{
	RUN(test_leak_cases);
	RUN(test_leak_large);
	RUN(test_leak_load_and_guard);
	RUN(test_leak_load_several_tasks);
	T_EXIT();
}
