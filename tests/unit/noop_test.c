/* The no-op journal's probe (pipeline/noop.h): a journal recorded over a
 * few paths holds while nothing changes, and not after any one change the
 * probe parses for (mode, size, a path come or gone, a held lock) nor when
 * its text is cut or a number in it is altered. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "t.h"
#include "base/fs.h"
#include "pipeline/noop.h"

static char *dir;
static const hash_hex key = "0123456789abcdef0123456789abcdef";

/* Records dir, dir/a, dir/gone (absent) and dir's lock; 1 when written. */
static int record(void)
{
	/* the journal is not written for a time not older than its start */
	struct timespec pause = { 0, 30 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	struct noop_rec n;
	noop_begin(&n);
	char *a = path_join(dir, "a"), *gone = path_join(dir, "gone");
	noop_add_path(&n, dir);
	noop_add_path(&n, a);
	noop_add_path(&n, gone);
	noop_add_lock(&n, dir);
	noop_commit(&n, dir, key, "all done\n");
	free(a);
	free(gone);
	struct buf line = BUF_INIT;
	int holds = noop_probe(dir, key, &line);
	if (holds)
		CHECK_STR(line.data, "all done\n");
	buf_free(&line);
	return holds;
}

static int probe(void)
{
	struct buf line = BUF_INIT;
	int holds = noop_probe(dir, key, &line);
	buf_free(&line);
	return holds;
}

static char *journal(void)
{
	return xasprintf("%s/.skillc/noop.%s", dir, key);
}

static void test_holds_until_a_change(void)
{
	t_put(dir, "a", "text\n");
	t_put(dir, ".skillc/keep", "");
	CHECK_INT(record(), 1);
	CHECK_INT(probe(), 1);
	char *a = path_join(dir, "a");
	CHECK(chmod(a, 0600) == 0); /* the mode (and the ctime) */
	CHECK_INT(probe(), 0);
	CHECK_INT(record(), 1);
	t_put(dir, "a", "more text\n"); /* another inode and size */
	CHECK_INT(probe(), 0);
	CHECK_INT(record(), 1);
	t_put(dir, "gone", "here now\n"); /* an absent path comes */
	CHECK_INT(probe(), 0);
	char *gone = path_join(dir, "gone");
	unlink(gone);
	free(gone);
	free(a);
}

static void test_a_held_lock(void)
{
	char *lock = path_join(dir, ".lock");
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644); /* before: dir's mtime */
	CHECK_INT(record(), 1);
	CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
	CHECK_INT(probe(), 0);
	close(fd);
	CHECK_INT(probe(), 1); /* free again (the lock file is not recorded) */
	free(lock);
}

/* The journal's text changed: each E line's numbers are parsed, so a
 * number altered or a line cut short makes it not hold. */
static void edit_journal(const char *from, const char *to)
{
	char *p = journal();
	struct buf b = BUF_INIT;
	struct err e;
	CHECK(fs_read(p, 0, &b, &e) == 0);
	char *at = strstr(b.data, from);
	CHECK(at != NULL);
	if (at) {
		struct buf out = BUF_INIT;
		buf_add(&out, b.data, (size_t)(at - b.data));
		buf_adds(&out, to);
		buf_adds(&out, at + strlen(from));
		CHECK(fs_write_atomic(p, out.data, out.len, 0644, &e) == 0);
		buf_free(&out);
	}
	buf_free(&b);
	free(p);
}

static void test_an_altered_journal(void)
{
	CHECK_INT(record(), 1);
	char *a = path_join(dir, "a");
	struct stat st;
	CHECK(lstat(a, &st) == 0);
	unsigned long long ino = (unsigned long long)st.st_ino;
	long long size = (long long)st.st_size;
	char was[64], now[64];
	snprintf(was, sizeof was, "E %llu %lld ", ino, size);
	snprintf(now, sizeof now, "E %llu %lld ", ino, size + 1);
	edit_journal(was, now);
	CHECK_INT(probe(), 0);
	CHECK_INT(record(), 1);
	snprintf(now, sizeof now, "E %llu x%lld ", ino, size);
	edit_journal(was, now);
	CHECK_INT(probe(), 0);
	CHECK_INT(record(), 1);
	edit_journal("end\n", "");
	CHECK_INT(probe(), 0);
	free(a);
}

int main(void)
{
	dir = t_tmpdir();
	RUN(test_holds_until_a_change);
	RUN(test_a_held_lock);
	RUN(test_an_altered_journal);
	free(dir);
	T_EXIT();
}
