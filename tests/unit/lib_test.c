/* lib_test.c — tools/lib: atomic files, tree hashes, canonical JSON,
 * process control, settings. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/redact.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/proc.h"
#include "base/slots.h"
#include "pipeline/rules.h"
#include "pipeline/settings.h"
#include "t.h"

static char *dir;

static void test_atomic_write_and_if_changed(void)
{
	char *p = path_join(dir, "a.txt");
	struct err e;
	CHECK(fs_write_atomic(p, "one\n", 4, 0644, &e) == 0);
	struct buf b = BUF_INIT;
	CHECK(fs_read(p, 0, &b, &e) == 0);
	CHECK_STR(b.data, "one\n");
	struct stat st1, st2;
	stat(p, &st1);
	struct timespec old = { 1000000, 0 };
	struct timespec times[2] = { old, old };
	utimensat(AT_FDCWD, p, times, 0);
	CHECK_INT(fs_write_if_changed(p, "one\n", 4, &e), 0);
	stat(p, &st2);
	CHECK_INT(st2.st_mtime, 1000000); /* same bytes: untouched */
	CHECK_INT(fs_write_if_changed(p, "two\n", 4, &e), 1);
	stat(p, &st2);
	CHECK(st2.st_mtime != 1000000);
	buf_reset(&b);
	CHECK(fs_read(p, 3, &b, &e) == -1); /* over the limit */
	CHECK(strstr(e.msg, "larger than 3 bytes") != NULL);
	/* no temp file left beside it */
	struct fs_tree t = { 0 };
	CHECK(fs_list_tree(dir, &t, &e) == 0);
	for (size_t i = 0; i < t.n; i++)
		CHECK(!fs_is_temp_name(t.v[i].path));
	fs_tree_free(&t);
	buf_free(&b);
	free(p);
}

static void test_hash_file_matches_xxh128(void)
{
	t_put(dir, "hi.txt", "hi\n");
	char *p = path_join(dir, "hi.txt");
	hash_hex h;
	struct err e;
	CHECK(hash_file(p, h, &e) == 0);
	CHECK_STR(h, "f4d0497cf9394caab34d1a3ab2bece70"); /* xxhsum -H2 of "hi\n" */
	hash_hex t;
	CHECK(hash_tree(p, t, &e) == 0);
	CHECK_STR(t, h);
	hash_bytes("hi\n", 3, t);
	CHECK_STR(t, h);
	free(p);
}

static void tree_hash(const char *rel, hash_hex out)
{
	char *p = path_join(dir, rel);
	struct err e;
	CHECK(hash_tree(p, out, &e) == 0);
	free(p);
}

static void test_tree_hash_rules(void)
{
	struct err e;
	char *a = path_join(dir, "ta"), *b = path_join(dir, "tb");
	fs_mkdirs(a, &e);
	fs_mkdirs(b, &e);
	/* same content written in another order hashes the same */
	t_put(dir, "ta/x.md", "x");
	t_put(dir, "ta/sub/y.md", "y");
	t_put(dir, "tb/sub/y.md", "y");
	t_put(dir, "tb/x.md", "x");
	hash_hex ha, hb;
	tree_hash("ta", ha);
	tree_hash("tb", hb);
	CHECK_STR(ha, hb);
	/* group/other permission bits do not matter, the executable bit does */
	char *x = path_join(dir, "tb/x.md");
	chmod(x, 0600);
	tree_hash("tb", hb);
	CHECK_STR(ha, hb);
	chmod(x, 0755);
	tree_hash("tb", hb);
	CHECK(strcmp(ha, hb) != 0);
	chmod(x, 0644);
	/* a renamed file changes it; "path + content" boundaries are unambiguous */
	t_put(dir, "tb/x.md", "xy");
	tree_hash("tb", hb);
	CHECK(strcmp(ha, hb) != 0);
	t_put(dir, "tb/x.md", "x");
	/* an empty folder counts */
	char *empty = path_join(dir, "tb/empty");
	fs_mkdirs(empty, &e);
	tree_hash("tb", hb);
	CHECK(strcmp(ha, hb) != 0);
	rmdir(empty);
	tree_hash("tb", hb);
	CHECK_STR(ha, hb);
	/* a symlink hashes as its target text, never followed */
	char *link = path_join(dir, "tb/link");
	CHECK(symlink("/etc/hostname", link) == 0);
	hash_hex l1, l2;
	tree_hash("tb", l1);
	unlink(link);
	CHECK(symlink("/etc/hosts", link) == 0);
	tree_hash("tb", l2);
	CHECK(strcmp(l1, l2) != 0);
	unlink(link);
	free(a);
	free(b);
	free(x);
	free(empty);
	free(link);
}

static void test_tree_hash_cached(void)
{
	struct err e;
	t_put(dir, "tc/a.txt", "alpha");
	t_put(dir, "tc/sub/b.txt", "bravo");
	char *root = path_join(dir, "tc"), *cache = path_join(dir, "tc.cache");
	/* files written just now are never cached (a later write in the same
	 * tick could keep their times): age them */
	struct timespec old[2] = { { 1000000, 0 }, { 1000000, 0 } };
	char *a = path_join(root, "a.txt"), *b = path_join(root, "sub/b.txt");
	utimensat(AT_FDCWD, a, old, 0);
	utimensat(AT_FDCWD, b, old, 0);
	hash_hex plain, cached, again;
	CHECK(hash_tree_cached(root, cache, false, plain, &e) == 0);
	CHECK(!fs_exists(cache)); /* no update asked: nothing written */
	CHECK(hash_tree_cached(root, cache, true, cached, &e) == 0);
	CHECK_STR(cached, plain); /* the cache changes the speed, not the digest */
	struct buf lines = BUF_INIT;
	CHECK(fs_read(cache, 0, &lines, &e) == 0);
	CHECK(lines.data && !strncmp(lines.data, "a.txt\t", 6) && strstr(lines.data, "\nsub/b.txt\t"));
	buf_free(&lines);
	CHECK(hash_tree_cached(root, cache, true, again, &e) == 0);
	CHECK_STR(again, plain);
	/* same size, old mtime restored: the ctime still tells */
	t_put(dir, "tc/a.txt", "ALPHA");
	utimensat(AT_FDCWD, a, old, 0);
	CHECK(hash_tree_cached(root, cache, true, again, &e) == 0);
	CHECK(strcmp(again, plain) != 0);
	hash_hex fresh;
	char *none = path_join(dir, "no-such.cache");
	CHECK(hash_tree_cached(root, none, false, fresh, &e) == 0);
	CHECK_STR(again, fresh);
	/* a damaged cache only costs a re-hash */
	t_put(NULL, cache, "garbage\twithout\nthe\tright\tshape\n");
	CHECK(hash_tree_cached(root, cache, true, fresh, &e) == 0);
	CHECK_STR(again, fresh);
	/* not the same scheme as hash_tree: the two are never compared */
	hash_hex bytes;
	CHECK(hash_tree(root, bytes, &e) == 0);
	CHECK(strcmp(bytes, fresh) != 0);
	free(none);
	free(a);
	free(b);
	free(root);
	free(cache);
}

static void test_publish_dir_swaps(void)
{
	struct err e;
	t_put(dir, "pub-old/f", "old");
	t_put(dir, "pub-new/f", "new");
	char *target = path_join(dir, "pub"), *old = path_join(dir, "pub-old"), *neu = path_join(dir, "pub-new");
	CHECK(fs_publish_dir(old, target, &e) == 0); /* target absent: a rename */
	CHECK(!fs_exists(old));
	CHECK(fs_publish_dir(neu, target, &e) == 0); /* target present: swapped */
	CHECK(!fs_exists(neu));
	struct buf b = BUF_INIT;
	char *f = path_join(target, "f");
	CHECK(fs_read(f, 0, &b, &e) == 0);
	CHECK_STR(b.data, "new");
	buf_free(&b);
	free(f);
	free(target);
	free(old);
	free(neu);
}

/* No name of fs_temp_beside's left anywhere under root. */
static bool no_temps(const char *root)
{
	struct err e;
	struct fs_tree t = { 0 };
	bool none = fs_list_tree(root, &t, &e) == 0;
	for (size_t i = 0; none && i < t.n; i++)
		none = !fs_is_temp_name(path_base(t.v[i].path));
	fs_tree_free(&t);
	return none;
}

static void test_publication_together(void)
{
	struct err e;
	char *root = path_join(dir, "pubs");
	t_put(root, "tree.tmp/s/SKILL.md", "skill");
	t_put(root, "same.json", "{}\n");
	char *tree = path_join(root, "tree.tmp"), *out = path_join(root, "out"),
	     *rep = path_join(root, "r/rep.json"), *same = path_join(root, "same.json"),
	     *r = path_join(root, "r");
	CHECK(fs_mkdirs(r, &e) == 0);
	struct fs_pub p = FS_PUB_INIT;
	fs_pub_dir(&p, tree, out);
	CHECK(fs_pub_file(&p, rep, "{\"a\": 1}\n", 9, 0644, &e) == 0);
	CHECK_INT(fs_pub_file_if_changed(&p, same, "{}\n", 3, &e),
	          0); /* the same bytes: not added */
	CHECK_INT(p.n, 2);
	CHECK(!fs_exists(rep)); /* nothing in place before the commit */
	CHECK(fs_pub_commit(&p, &e) == 0);
	CHECK_INT(p.n, 0);
	struct buf b = BUF_INIT;
	char *md = path_join(out, "s/SKILL.md");
	CHECK(fs_read(md, 0, &b, &e) == 0 && !strcmp(b.data, "skill"));
	buf_reset(&b);
	CHECK(fs_read(rep, 0, &b, &e) == 0 && !strcmp(b.data, "{\"a\": 1}\n"));
	CHECK(!fs_exists(tree));
	CHECK(no_temps(root));
	/* one rename fails (its target is a folder): what came before stays in
	 * place, whole; the temps after it are removed, none is left */
	char *a = path_join(root, "a"), *blocked = path_join(root, "blocked"),
	     *c = path_join(root, "c");
	t_put(root, "blocked/x", "x");
	CHECK(fs_pub_file(&p, a, "a", 1, 0644, &e) == 0);
	CHECK(fs_pub_file(&p, blocked, "b", 1, 0644, &e) == 0);
	CHECK(fs_pub_file(&p, c, "c", 1, 0644, &e) == 0);
	CHECK(fs_pub_commit(&p, &e) == -1);
	CHECK(strstr(e.msg, "cannot rename") != NULL);
	CHECK(fs_exists(a));
	CHECK(!fs_exists(c));
	CHECK(no_temps(root));
	/* an abort removes every temp */
	CHECK(fs_pub_file(&p, c, "c", 1, 0644, &e) == 0);
	fs_pub_abort(&p);
	fs_pub_free(&p);
	CHECK(!fs_exists(c));
	CHECK(no_temps(root));
	buf_free(&b);
	free(md);
	free(a);
	free(blocked);
	free(c);
	free(r);
	free(tree);
	free(out);
	free(rep);
	free(same);
	free(root);
}

static void test_normalize_rel(void)
{
	char *p = path_normalize_rel("a/./b/../c");
	CHECK_STR(p, "a/c");
	free(p);
	CHECK(path_normalize_rel("../x") == NULL);
	CHECK(path_normalize_rel("a/../../x") == NULL);
	p = path_normalize_rel("a/..");
	CHECK_STR(p, "");
	free(p);
}

static void test_json_canonical(void)
{
	cJSON *a = cJSON_Parse("{\"b\": 1, \"a\": [2.5, -0, 1e3, \"\\u00e9\\n\"], \"c\": {\"z\": null, \"y\": true}}");
	cJSON *b = cJSON_Parse("{\"c\": {\"y\": true, \"z\": null}, \"a\": [2.5, 0, 1000, \"\\u00e9\\n\"], \"b\": 1.0}");
	struct buf x = BUF_INIT, y = BUF_INIT;
	json_canon(a, false, &x);
	json_canon(b, false, &y);
	CHECK_STR(x.data, "{\"a\":[2.5,0,1000,\"\xc3\xa9\\n\"],\"b\":1,\"c\":{\"y\":true,\"z\":null}}");
	CHECK_STR(x.data, y.data);
	buf_reset(&x);
	json_canon(cJSON_GetObjectItem(a, "c"), true, &x);
	CHECK_STR(x.data, "{\n  \"y\": true,\n  \"z\": null\n}");
	char h1[33], h2[33];
	json_hash(a, h1);
	json_hash(b, h2);
	CHECK_STR(h1, h2);
	CHECK(json_get(a, "B") == NULL); /* case-sensitive, unlike cJSON_GetObjectItem */
	cJSON_Delete(a);
	cJSON_Delete(b);
	buf_free(&x);
	buf_free(&y);
}

static void test_proc_exit_and_tee(void)
{
	int fds[2];
	CHECK(pipe(fds) == 0);
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct proc_spec spec = { .argv = argv, .stdin_fd = -1, .tee = { fds[1], -1 } };
	struct proc_result r;
	struct err e;
	CHECK(proc_run(&spec, &r, &e) == 0);
	close(fds[1]);
	CHECK_INT(r.exit_code, 3);
	CHECK(!r.timed_out);
	char got[64] = "";
	ssize_t n = read(fds[0], got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	CHECK_STR(got, "out\nerr\n");
	close(fds[0]);
}

static void read_all(int fd, char *out, size_t size)
{
	ssize_t n = read(fd, out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
}

static void test_proc_split_stderr(void)
{
	/* split: stdout to its fds, stderr to its own; both into a shared log */
	int out[2], err[2], log[2];
	CHECK(pipe(out) == 0 && pipe(err) == 0 && pipe(log) == 0);
	char *argv[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	struct proc_spec spec = { .argv = argv, .stdin_fd = -1, .tee = { out[1], log[1] }, .split = true,
				  .err_tee = { err[1], log[1] } };
	struct proc_result r;
	struct err e;
	CHECK(proc_run(&spec, &r, &e) == 0);
	close(out[1]);
	close(err[1]);
	close(log[1]);
	char got[64];
	read_all(out[0], got, sizeof got);
	CHECK_STR(got, "out\n");
	read_all(err[0], got, sizeof got);
	CHECK_STR(got, "err\n");
	read_all(log[0], got, sizeof got);
	CHECK(strstr(got, "out\n") && strstr(got, "err\n") && strlen(got) == 8);
	/* a program that cannot start says so on the stderr side */
	CHECK(pipe(out) == 0 && pipe(err) == 0);
	char *none[] = { "no-such-program-xyz", NULL };
	struct proc_spec s2 = { .argv = none, .stdin_fd = -1, .tee = { out[1], -1 }, .split = true,
				.err_tee = { err[1], -1 } };
	CHECK(proc_run(&s2, &r, &e) == 0);
	close(out[1]);
	close(err[1]);
	CHECK_INT(r.exit_code, 127);
	read_all(out[0], got, sizeof got);
	CHECK_STR(got, "");
	read_all(err[0], got, sizeof got);
	CHECK(strstr(got, "no-such-program-xyz") != NULL);
}

static void test_grow(void)
{
	struct { int *v; size_t n, cap; } a = { 0 };
	for (int i = 0; i < 1000; i++) {
		GROW(a.v, a.n, a.cap);
		a.v[a.n++] = i;
		CHECK(a.cap >= a.n && a.cap <= 2 * a.n + 8); /* doubling: linear work */
	}
	long sum = 0;
	for (size_t i = 0; i < a.n; i++)
		sum += a.v[i];
	CHECK_INT(sum, 999 * 1000 / 2);
	size_t cap = a.cap;
	a.v = xgrow(a.v, &a.cap, 10, sizeof *a.v);
	CHECK(a.cap == cap); /* room already there: nothing moves */
	free(a.v);
}

static void test_proc_cannot_start(void)
{
	/* the reason is in the child's output, the status is the shell's 127 */
	int fds[2];
	CHECK(pipe(fds) == 0);
	char *argv[] = { "no-such-program-xyz", NULL };
	struct proc_spec spec = { .argv = argv, .stdin_fd = -1, .tee = { fds[1], -1 } };
	struct proc_result r;
	struct err e;
	CHECK(proc_run(&spec, &r, &e) == 0);
	CHECK_INT(r.exit_code, 127);
	char *argv2[] = { "true", NULL };
	struct proc_spec spec2 = { .argv = argv2, .cwd = "/no/such/dir", .stdin_fd = -1, .tee = { fds[1], -1 } };
	CHECK(proc_run(&spec2, &r, &e) == 0);
	CHECK_INT(r.exit_code, 127);
	close(fds[1]);
	char got[256] = "";
	ssize_t n = read(fds[0], got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	CHECK_STR(got, "cannot run 'no-such-program-xyz': No such file or directory\n"
		       "cannot enter '/no/such/dir': No such file or directory\n");
	close(fds[0]);
}

/* Alive and not a zombie (orphans may wait for a reaper that never comes
 * in a container whose pid 1 does not reap). */
static int process_alive(pid_t pid)
{
	char path[64], stat[256] = "";
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(stat, 1, sizeof stat - 1, f);
	fclose(f);
	stat[n] = '\0';
	char *paren = strrchr(stat, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

static void test_proc_timeout_kills_group(void)
{
	/* the child leaves a grandchild behind; a timeout must end both */
	char *pidfile = path_join(dir, "grandchild.pid");
	char *script = xasprintf("sleep 60 & echo $! > %s; wait", pidfile);
	char *argv[] = { "sh", "-c", script, NULL };
	struct proc_spec spec = { .argv = argv, .stdin_fd = -1, .timeout = 0.5, .grace = 0.5, .tee = { -1, -1 } };
	struct proc_result r;
	struct err e;
	double t0 = now_mono();
	CHECK(proc_run(&spec, &r, &e) == 0);
	CHECK(r.timed_out);
	CHECK(now_mono() - t0 < 5);
	struct buf b = BUF_INIT;
	CHECK(fs_read(pidfile, 0, &b, &e) == 0);
	pid_t gc = (pid_t)atoi(b.len ? b.data : "0");
	CHECK(gc > 0);
	/* killed, it may take a moment to go: poll (5 s), never sleep-and-hope */
	for (int i = 0; i < 500 && gc > 0 && process_alive(gc); i++)
		usleep(10000);
	CHECK(gc > 0 && !process_alive(gc));
	buf_free(&b);
	free(script);
	free(pidfile);
}

/* One row per case: setting, value, accepted. */
static const struct {
	const char *name, *value;
	int ok;
} setting_cases[] = {
	{ "MODEL", "siliconflow/Qwen/Qwen3.5-27B", 1 },
	{ "MODEL", "ollama/qwen2.5:7b", 1 },
	{ "MODEL", "", 1 },
	{ "MODEL", "gpt-4o", 0 },
	{ "MODEL", "a/$(x)", 0 },
	{ "MODEL", "/abs/model", 0 },
	{ "MODEL", "a/../b", 0 },
	{ "REPEAT", "0", 0 },
	{ "REPEAT", "1000", 1 },
	{ "REPEAT", "1001", 0 },
	{ "REPEAT", "", 0 },
	{ "REPEAT", " 3", 0 },
	{ "REPEAT", "+3", 0 },
	{ "REPEAT", "3x", 0 },
	{ "RUNNER", "docker", 0 },
	{ "RUNNER", "harbor", 1 },
	{ "RUNNER", "harbo", 0 },
	{ "RUNNER", "", 0 },
	{ "RM_API_URL", "http://127.0.0.1:9000/score", 1 },
	{ "RM_API_URL", "https://rm.example/a?b=1&c=[2]#x", 1 },
	{ "RM_API_URL", "ftp://x", 0 },
	{ "RM_API_URL", "http://x/ y", 0 },
	{ "RM_API_URL", "http://x/'y", 0 },
	{ "RM_API_URL", "", 1 },
	{ "TASKS_DIR", "my tasks", 0 },
	{ "TASKS_DIR", "", 0 },
	{ "TASKS_DIR", "../skillsbench/tasks", 1 },
	{ "TASKS_DIR", "a$b", 0 },
	{ "RUN_DIR", "", 1 },
	{ "HARNESS", "-x", 0 },
	{ "HARNESS", "", 0 },
	{ "BENCH", "", 1 },
	{ "task", "a b", 0 },
	{ "task", ".hidden", 0 },
	{ "tasks", "a b c", 1 },
	{ "tasks", "a -b", 0 },
	{ "tasks", "a\tb", 0 },
	{ "tasks", "", 1 },
	{ "STAGE", "", 1 },
	{ "STAGE", "raw-eval.003", 1 },
	{ "LAUNCHER", "srun", 1 },
	{ "LAUNCHER", "sbatch", 0 },
	{ "SRUN_ARGS", "--partition=gpu --gres=gpu:1 -x node[01-03],n7 --mem=8G", 1 },
	{ "SRUN_ARGS", "", 1 },
	{ "SRUN_ARGS", "--comment='x'", 0 },
	{ "SRUN_ARGS", "-p a;touch x", 0 },
	{ "SRUN_ARGS", "-p $HOME", 0 },
	{ "SRUN_ARGS", "-p a\tb", 0 },
};

static void test_settings_check(void)
{
	struct err e;
	for (size_t i = 0; i < ARRAY_LEN(setting_cases); i++) {
		const struct setting_def *s = setting_find(setting_cases[i].name);
		CHECK(s != NULL);
		if (!s)
			continue;
		int ok = setting_check(s, setting_cases[i].value, &e) == 0;
		if (ok != setting_cases[i].ok)
			fprintf(stderr, "setting %s='%s': got %s\n", s->name, setting_cases[i].value, ok ? "ok" : e.msg);
		CHECK(ok == setting_cases[i].ok);
	}
	/* every default passes its own row's check: a new row cannot ship a bad default */
	for (size_t i = 0; i < settings_count; i++) {
		int ok = setting_check(&settings_table[i], settings_table[i].def, &e) == 0;
		if (!ok)
			fprintf(stderr, "default of %s: %s\n", settings_table[i].name, e.msg);
		CHECK(ok);
	}
	CHECK(setting_check(setting_find("MODEL"), "gpt-4o", &e) == -1);
	CHECK_STR(e.msg, "bad MODEL 'gpt-4o': write provider/model-id, e.g. vllm/Qwen/Qwen3.5-27B (letters, digits and . _ - / : @)");
	CHECK(setting_check(setting_find("REPEAT"), "0", &e) == -1);
	CHECK_STR(e.msg, "bad REPEAT '0': a whole number from 1 to 1000");
	CHECK(setting_check(setting_find("RUNNER"), "docker", &e) == -1);
	CHECK_STR(e.msg, "bad RUNNER 'docker': one of benchflow harbor local");
	CHECK(setting_check(setting_find("task"), "a\nb", &e) == -1);
	CHECK_STR(e.msg, "bad task 'a?b': a name of letters, digits, '.', '_' and '-', starting with a letter or digit");
	char *args[] = { "REPEAT=4", "NOPE=1" };
	CHECK(settings_check_args(2, args, &e) == -1);
	CHECK_STR(e.msg, "'NOPE=1' is not NAME=VALUE of a setting (docs/settings.md)");
}

static void test_redact_buf(void)
{
	struct strlist sec = STRLIST_INIT;
	strlist_push(&sec, "sk-short");        /* held by the next: replaced after it */
	strlist_push(&sec, "sk-shortXYZ-123");
	strlist_push(&sec, "tiny");            /* under REDACT_MIN: left alone */
	struct buf b = BUF_INIT;
	buf_adds(&b, "a sk-shortXYZ-123 b sk-short c tiny sk-shortXYZ-123");
	int first;
	CHECK_INT(redact_buf(&b, &sec, &first), 3);
	CHECK_INT(first, 1);
	CHECK_STR(b.data, "a " REDACTED " b " REDACTED " c tiny " REDACTED);
	CHECK_INT(redact_buf(&b, &sec, &first), 0);
	CHECK_INT(first, -1);
	buf_free(&b);
	strlist_free(&sec);
}

static void test_strip_escapes(void)
{
	char s[] = "\x1b[91mStep 1/2 : FROM python:3.12-slim\x1b[0m\r\n\x1b]0;title\x07pull [1;31mfailed[0m\tok \x1b(B[x]";
	text_strip_escapes(s);
	CHECK_STR(s, "Step 1/2 : FROM python:3.12-slim\npull failed\tok [x]");
	char cut[] = "end \x1b[3";
	text_strip_escapes(cut);
	CHECK_STR(cut, "end ");
}

static void test_sort_and_round(void)
{
	const char *w[] = { "b", "a", "ab", "" };
	qsort(w, ARRAY_LEN(w), sizeof *w, cmp_str);
	CHECK_STR(w[0], "");
	CHECK_STR(w[1], "a");
	CHECK_STR(w[3], "b");
	double d[] = { 2.5, -1, 0, 1e9 };
	qsort(d, ARRAY_LEN(d), sizeof *d, cmp_double);
	CHECK(d[0] == -1 && d[1] == 0 && d[2] == 2.5 && d[3] == 1e9);
	CHECK(round_to(0.123456789, 6) == 0.123457);
	CHECK(round_to(2.675, 1) == 2.7);
	CHECK(round_to(-0.125, 2) == round(-0.125 * 100) / 100);
	CHECK(round_to(1.5, 0) == 2);
}

/* The trial folder's one spelling, and reading its number back. */
static void test_trial_name(void)
{
	char t[TRIAL_NAME_MAX];
	CHECK_STR(trial_name(7, t), "test-007");
	CHECK_STR(trial_name(1234, t), "test-1234");
	CHECK_INT(trial_index("test-007"), 7);
	CHECK_INT(trial_index(trial_name(100000, t)), 100000);
	const char *not[] = { "test-", "test-000", "test-7x", "test--1", "test-+1", "tset-001",
	                      "test-99999999999999999999", "" };
	for (size_t i = 0; i < ARRAY_LEN(not); i++)
		CHECK_INT(trial_index(not[i]), 0);
}

/* splitmix64 is the published generator: seed 0 gives its known first
 * numbers, so seeded splits and Monte Carlo figures match everywhere. */
static void test_splitmix64(void)
{
	uint64_t s = 0;
	CHECK(splitmix64(&s) == 0xe220a8397b1dcdafULL);
	CHECK(splitmix64(&s) == 0x6e789e6aa1b965f4ULL);
	CHECK(s == 2 * 0x9e3779b97f4a7c15ULL);
}

/* A buf is a string from BUF_INIT on: "nothing written" is len 0, the
 * shared empty string is never written to or freed (the sanitizer build
 * would say so), and a zeroed buf (calloc'd structs) works the same. */
static void test_buf_never_null(void)
{
	struct buf b = BUF_INIT;
	CHECK(b.data != NULL && b.data[0] == '\0' && b.len == 0);
	CHECK_STR(buf_last_line(&b), "no output");
	buf_reset(&b);
	buf_free(&b);
	CHECK(b.data == buf_empty);
	char *s = buf_detach(&b); /* its own copy, never buf_empty */
	CHECK(s != buf_empty && s[0] == '\0');
	free(s);
	buf_adds(&b, "x");
	CHECK(b.data != buf_empty && b.cap > 0);
	CHECK_STR(b.data, "x");
	buf_reset(&b);
	CHECK_STR(b.data, "");
	s = buf_detach(&b);
	CHECK_STR(s, "");
	CHECK(b.data == buf_empty && b.len == 0 && b.cap == 0);
	free(s);
	struct buf z;
	memset(&z, 0, sizeof z);
	buf_reset(&z);
	CHECK(z.data == buf_empty);
	memset(&z, 0, sizeof z);
	buf_printf(&z, "%d", 42);
	CHECK_STR(z.data, "42");
	buf_free(&z);
	CHECK(buf_empty[0] == '\0');
}

/* Both kinds of lock line (a run's "locked by ... (what)", a trial's
 * "pid ... \n<where>") are written and read back by the one set of helpers;
 * a longer old text is cut, an empty file gives the fallback. */
static void test_lock_holder(void)
{
	char *p = path_join(dir, "holder.lock");
	int fd = open(p, O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0);
	char *line = lock_first_line(fd, "nobody");
	CHECK_STR(line, "nobody");
	free(line);
	const char *old = "old text longer than what comes next ..................\n";
	CHECK(pwrite(fd, old, strlen(old), 0) == (ssize_t)strlen(old));
	lock_claim(fd, "locked by ", " (make final)\n");
	char *text = lock_text(fd, 4096);
	struct lock_holder h;
	int end = 0;
	CHECK(lock_holder_parse(text, "locked by ", &h, &end) == 0);
	CHECK_INT(h.pid, getpid());
	CHECK_STR(text + end, " (make final)\n");
	CHECK(!lock_holder_is_other_here(&h)); /* this process */
	h.pid = 1;
	CHECK(lock_holder_is_other_here(&h));
	CHECK(lock_holder_parse(text, "", &h, NULL) < 0); /* the wrong form */
	free(text);
	lock_claim(fd, "", "\n/where/it/runs\n");
	text = lock_text(fd, 4096);
	CHECK(lock_holder_parse(text, "", &h, &end) == 0);
	CHECK_STR(text + end, "\n/where/it/runs\n");
	line = lock_first_line(fd, "nobody");
	CHECK(!strncmp(line, "pid ", 4) && !strchr(line, '\n'));
	CHECK(lock_holder_parse("pid x on h since t", "", &h, NULL) < 0);
	free(line);
	free(text);
	close(fd);
	free(p);
}

/* Two stages marking and clearing their .inflight/ markers at once: the
 * last one out removes the folder, and a mark never fails on that. */
static void test_inflight_race(void)
{
	char *run = path_join(dir, "inflight-run");
	CHECK(mkdir(run, 0755) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	int fails = 0;
	for (int i = 0; pid >= 0 && i < 3000; i++) {
		struct err e = { 0 };
		const char *target = pid == 0 ? "child" : "parent";
		fails += inflight_mark(run, target, &e) < 0;
		inflight_clear(run, target);
	}
	if (pid == 0)
		_exit(fails ? 1 : 0);
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(fails == 0);
	free(run);
}

int main(void)
{
	dir = t_tmpdir();
	RUN(test_atomic_write_and_if_changed);
	RUN(test_redact_buf);
	RUN(test_hash_file_matches_xxh128);
	RUN(test_tree_hash_rules);
	RUN(test_tree_hash_cached);
	RUN(test_publish_dir_swaps);
	RUN(test_publication_together);
	RUN(test_normalize_rel);
	RUN(test_json_canonical);
	RUN(test_proc_exit_and_tee);
	RUN(test_proc_timeout_kills_group);
	RUN(test_proc_cannot_start);
	RUN(test_proc_split_stderr);
	RUN(test_grow);
	RUN(test_settings_check);
	RUN(test_strip_escapes);
	RUN(test_sort_and_round);
	RUN(test_splitmix64);
	RUN(test_trial_name);
	RUN(test_inflight_race);
	RUN(test_lock_holder);
	RUN(test_buf_never_null);
	struct err e;
	fs_remove_tree(dir, &e);
	free(dir);
	T_EXIT();
}
