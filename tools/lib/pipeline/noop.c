#include "pipeline/noop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "pipeline/state.h"

#define NOOP_HEAD "skillc-noop 1\n"
#define NOOP_TAIL "end\n"

void noop_key(const char *goals, const char *given, const char *make_f, const char *rules,
	      const char *self, int argc, char **argv, hash_hex out)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s\n%s\n", goals ? goals : "", given ? given : "");
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (strncmp(argv[i], "--", 2) && strchr(argv[i], '='))
			buf_printf(&b, "%s%c", argv[i], '\0');
	char cwd[4096];
	struct stat st;
	buf_printf(&b, "\n%s\n%s\n%s\n", getcwd(cwd, sizeof cwd) ? cwd : "?", make_f ? make_f : "", rules ? rules : "");
	/* the one variable of the environment the answer reads that is no
	 * setting (settings are arguments: make exports them to its recipes
	 * but not to its $(shell)s) */
	const char *hp = getenv("HARNESS_PATH");
	buf_printf(&b, "HARNESS_PATH=%s\n", hp ? hp : "");
	/* a new boot is a new key: after a machine crash the first make checks
	 * what was written without fsync (state_output_torn) */
	buf_printf(&b, "boot %s\n", fs_boot_id());
	/* the tools' formats are compiled in: a rebuilt skillc-rules is a new key */
	if (stat(self, &st) == 0)
		buf_printf(&b, "%llu %lld %lld.%09ld\n", (unsigned long long)st.st_ino,
			   (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	hash_bytes(b.data, b.len, out);
	buf_free(&b);
}

static char *journal_path(const char *results, const hash_hex key)
{
	return xasprintf("%s/.skillc/noop.%s", results, key);
}

static void entry_of(struct buf *b, const struct stat *st, const char *path)
{
	buf_printf(b, "E %llu %lld %o %lld %ld %lld %ld %s\n", (unsigned long long)st->st_ino, (long long)st->st_size,
		   (unsigned)st->st_mode, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		   (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec, path);
}

/* The next number of a journal line ("123 " or "-5 ", in base), *p moved
 * past it and its space; false when there is none. Parsed in place, as the
 * probe reads some 8,000 lines a 100-run no-op: no printf, no allocation. */
static bool field(const char **p, const char *end, unsigned base, long long *v)
{
	const char *s = *p;
	bool neg = s < end && *s == '-';
	unsigned long long n = 0;
	s += neg;
	const char *digits = s;
	for (; s < end && *s >= '0' && *s < (char)('0' + base); s++)
		n = n * base + (unsigned)(*s - '0');
	if (s == digits || s == end || *s != ' ')
		return false;
	*v = neg ? -(long long)n : (long long)n;
	*p = s + 1;
	return true;
}

/* An E line (after "E ") holds: its path's stat data is the recorded one. */
static int entry_holds(const char *l, const char *end)
{
	long long f[7];
	static const unsigned base[7] = { 10, 10, 8, 10, 10, 10, 10 };
	for (int i = 0; i < 7; i++)
		if (!field(&l, end, base[i], &f[i]))
			return 0;
	char path[PATH_MAX];
	struct stat st;
	size_t n = (size_t)(end - l);
	if (!n || n >= sizeof path)
		return 0;
	memcpy(path, l, n);
	path[n] = '\0';
	return lstat(path, &st) == 0 && (unsigned long long)f[0] == (unsigned long long)st.st_ino &&
	       f[1] == (long long)st.st_size && f[2] == (long long)st.st_mode &&
	       f[3] == (long long)st.st_mtim.tv_sec && f[4] == (long long)st.st_mtim.tv_nsec &&
	       f[5] == (long long)st.st_ctim.tv_sec && f[6] == (long long)st.st_ctim.tv_nsec;
}

/* One line of the journal (l up to end, its newline) holds: 1 yes, 0 no. */
static int line_holds(const char *l, const char *end)
{
	char path[PATH_MAX];
	size_t n = end - l > 2 ? (size_t)(end - l) - 2 : 0;
	if (n && l[1] == ' ' && l[0] == 'E')
		return entry_holds(l + 2, end);
	if (!n || l[1] != ' ' || n >= sizeof path - 6)
		return 0;
	memcpy(path, l + 2, n);
	path[n] = '\0';
	struct stat st;
	if (l[0] == 'A')
		return lstat(path, &st) < 0 && errno == ENOENT;
	if (l[0] != 'L')
		return 0;
	memcpy(path + n, "/.lock", 7);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int free_ = fd < 0 ? errno == ENOENT : flock(fd, LOCK_SH | LOCK_NB) == 0;
	if (fd >= 0)
		close(fd); /* lets go of the shared lock too */
	return free_;
}

/* The journal's lines after its head, up to its tail, each holds. */
static int lines_hold(const char *l, const char *end, struct buf *line)
{
	const char *nl = memchr(l, '\n', (size_t)(end - l));
	if (!nl)
		return 0;
	buf_add(line, l, (size_t)(nl - l) + 1);
	for (l = nl + 1; l < end; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl || !line_holds(l, nl))
			return 0;
	}
	return 1;
}

int noop_probe(const char *results, const hash_hex key, struct buf *line)
{
	char *p = journal_path(results, key);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	struct stat st;
	off_t least = (off_t)(sizeof NOOP_HEAD + sizeof NOOP_TAIL);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= least) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* mapped, its pages faulted in at once: no copy, no buffer grown */
	size_t len = (size_t)st.st_size;
	const char *j = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (j == MAP_FAILED)
		return 0;
	size_t head = sizeof NOOP_HEAD - 1, tail = sizeof NOOP_TAIL - 1;
	int ok = !memcmp(j, NOOP_HEAD, head) && !memcmp(j + len - tail, NOOP_TAIL, tail) &&
		 j[len - tail - 1] == '\n' && lines_hold(j + head, j + len - tail, line);
	munmap((void *)j, len);
	return ok;
}

void noop_forget(const char *results, const hash_hex key)
{
	char *p = journal_path(results, key);
	unlink(p);
	free(p);
}

void noop_begin(struct noop_rec *n)
{
	memset(n, 0, sizeof *n);
	buf_adds(&n->text, "");
	/* the clock file times come from (a coarse one, a tick behind) */
	clock_gettime(CLOCK_REALTIME_COARSE, &n->t0);
}

/* A time at or after t0 may hide a change made in the same tick after
 * the stat (git's "racily clean" entries): such a journal is not written. */
static bool racy(const struct timespec *t, const struct timespec *t0)
{
	return t->tv_sec > t0->tv_sec || (t->tv_sec == t0->tv_sec && t->tv_nsec >= t0->tv_nsec);
}

static bool add_stat(struct noop_rec *n, const char *path, struct stat *st)
{
	bool added;
	strmap_put(&n->seen, path, &added);
	if (!added)
		return false;
	if (strchr(path, '\n')) {
		n->bad = true;
		return false;
	}
	if (lstat(path, st) < 0) {
		if (errno == ENOENT)
			buf_printf(&n->text, "A %s\n", path);
		else
			n->bad = true;
		return false;
	}
	/* a link's target is not followed here: its change would go unseen */
	if (S_ISLNK(st->st_mode) || racy(&st->st_mtim, &n->t0) || racy(&st->st_ctim, &n->t0))
		n->bad = true;
	entry_of(&n->text, st, path);
	return true;
}

void noop_add_path(struct noop_rec *n, const char *path)
{
	struct stat st;
	add_stat(n, path, &st);
}

/* What a run's folder holds that no answer reads: logs/ (the stages'
 * output) and the stages' records status/<stage>.json, which only the
 * tools write, by rename, so status/'s own stat data shows each. Not
 * recording them spares ~10% of a no-op's lstats. */
static bool unread(const char *run, const char *path)
{
	size_t n = strlen(run), len = strlen(path);
	if (strncmp(path, run, n) || path[n] != '/')
		return false;
	const char *rel = path + n + 1;
	bool record = !strncmp(rel, "status/", 7) && !strchr(rel + 7, '/') && len > 5 &&
		      !strcmp(path + len - 5, ".json");
	return record || !strcmp(rel, "logs");
}

static void add_tree(struct noop_rec *n, const char *path, const char *run)
{
	struct stat st;
	if ((run && unread(run, path)) || !add_stat(n, path, &st) || !S_ISDIR(st.st_mode))
		return;
	DIR *d = opendir(path);
	if (!d) {
		n->bad = true;
		return;
	}
	for (struct dirent *de; !n->bad && (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".lock"))
			continue; /* a run's .lock changes with every make: it is probed, not compared */
		char *p = path_join(path, de->d_name);
		add_tree(n, p, run);
		free(p);
	}
	closedir(d);
}

void noop_add_tree(struct noop_rec *n, const char *path)
{
	add_tree(n, path, NULL);
}

void noop_add_run(struct noop_rec *n, const char *run)
{
	add_tree(n, run, run);
}

void noop_add_lock(struct noop_rec *n, const char *run)
{
	if (strchr(run, '\n'))
		n->bad = true;
	else
		buf_printf(&n->text, "L %s\n", run);
}

void noop_commit(struct noop_rec *n, const char *results, const hash_hex key, const char *line)
{
	size_t len = strlen(line);
	if (!n->bad && len && line[len - 1] == '\n' && !memchr(line, '\n', len - 1)) {
		char *p = journal_path(results, key), *tmp = fs_temp_beside(p);
		FILE *f = fopen(tmp, "we");
		bool good = f && fputs(NOOP_HEAD, f) >= 0 && fputs(line, f) >= 0 &&
			    fwrite(n->text.data, 1, n->text.len, f) == n->text.len && fputs(NOOP_TAIL, f) >= 0;
		good = f && fclose(f) == 0 && good;
		if (!good || rename(tmp, p) < 0)
			unlink(tmp); /* best effort: without a journal the next make does it all */
		free(tmp);
		free(p);
	}
	buf_free(&n->text);
	strmap_free(&n->seen);
	memset(n, 0, sizeof *n);
}
