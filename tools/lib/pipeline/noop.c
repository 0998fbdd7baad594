#include "pipeline/noop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* One line of the journal holds: 1 yes, 0 no. */
static int line_holds(char *l)
{
	if (l[0] == 'L' && l[1] == ' ') {
		char *p = path_join(l + 2, ".lock");
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		free(p);
		int free_ = fd < 0 ? errno == ENOENT : flock(fd, LOCK_SH | LOCK_NB) == 0;
		if (fd >= 0)
			close(fd); /* lets go of the shared lock too */
		return free_;
	}
	struct stat st;
	if (l[0] == 'A' && l[1] == ' ')
		return lstat(l + 2, &st) < 0 && errno == ENOENT;
	if (l[0] != 'E' || l[1] != ' ')
		return 0;
	/* the path follows the seventh field */
	char *path = l + 2;
	for (int i = 0; i < 7 && path; i++)
		path = strchr(path, ' ') ? strchr(path, ' ') + 1 : NULL;
	if (!path || lstat(path, &st) < 0)
		return 0;
	struct buf want = BUF_INIT;
	entry_of(&want, &st, path);
	int same = want.len == strlen(l) + 1 && !memcmp(want.data, l, want.len - 1);
	buf_free(&want);
	return same;
}

int noop_probe(const char *results, const hash_hex key, struct buf *line)
{
	char *p = journal_path(results, key);
	struct buf j = BUF_INIT;
	struct err e;
	int ok = fs_read(p, 0, &j, &e) == 0 && j.len > sizeof NOOP_HEAD + sizeof NOOP_TAIL &&
		 !memcmp(j.data, NOOP_HEAD, sizeof NOOP_HEAD - 1) &&
		 !strcmp(j.data + j.len - (sizeof NOOP_TAIL - 1), NOOP_TAIL);
	free(p);
	char *l = ok ? j.data + sizeof NOOP_HEAD - 1 : NULL, *nl = l ? strchr(l, '\n') : NULL;
	if (nl) {
		buf_add(line, l, (size_t)(nl - l) + 1);
		l = nl + 1;
	}
	ok = ok && nl;
	while (ok && (nl = strchr(l, '\n')) && strcmp(l, NOOP_TAIL)) {
		*nl = '\0';
		ok = line_holds(l);
		l = nl + 1;
	}
	buf_free(&j);
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
