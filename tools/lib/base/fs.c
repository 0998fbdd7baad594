#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fs_read(const char *path, size_t max, struct buf *out, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, ERR_INPUT, "cannot read '%s':", path);
	char chunk[65536];
	size_t total = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return err_set(e, ERR_INPUT, "cannot read '%s':", path);
		}
		if (n == 0)
			break;
		total += (size_t)n;
		if (max && total > max) {
			close(fd);
			errno = EFBIG; /* callers tell "too big" from "cannot read" by it */
			return err_set(e, ERR_INPUT, "'%s' is larger than %zu bytes", path, max);
		}
		buf_add(out, chunk, (size_t)n);
	}
	close(fd);
	if (!out->cap)
		buf_add(out, "", 0); /* a zeroed buf read from an empty file */
	return 0;
}

long fs_max_file_mb(void)
{
	const char *v = getenv("MAX_FILE_MB");
	char *end;
	long mb = v ? strtol(v, &end, 10) : 0;
	return v && *v && !*end && mb >= 1 && mb <= 4096 ? mb : 25;
}

int fs_read_limited(const char *path, struct buf *out, struct err *e)
{
	long mb = fs_max_file_mb();
	if (fs_read(path, (size_t)mb << 20, out, e) == 0)
		return 0;
	if (errno == EFBIG)
		err_set(e, ERR_INPUT, "'%s' is larger than MAX_FILE_MB (%ld MB): make it smaller or raise MAX_FILE_MB", path, mb);
	return -1;
}

char *fs_temp_beside(const char *target)
{
	static unsigned counter; /* unique within this process */
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	int dirlen = slash ? (int)(slash - target + 1) : 0;
	return xasprintf("%.*s.%s.tmp.%ld.%u", dirlen, target, base, (long)getpid(), counter++);
}

bool fs_is_temp_name(const char *base)
{
	return base[0] == '.' && strstr(base, ".tmp.") != NULL;
}

bool fs_temp_resumable(const char *dir)
{
	char *p = path_join(dir, FS_TEMP_RESUMABLE);
	struct stat st;
	bool yes = lstat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

bool fs_temp_orphaned(const char *base)
{
	const char *t = fs_is_temp_name(base) ? strstr(base, ".tmp.") : NULL;
	if (!t)
		return false;
	char *end;
	long pid = strtol(t + 5, &end, 10);
	return pid > 0 && end != t + 5 && pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int fs_remove_orphaned_temps(const char *dir, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, ERR_WORK, "cannot list '%s':", dir);
	struct strlist names = STRLIST_INIT;
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strlist_push(&names, de->d_name);
	closedir(d);
	int rc = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		char *p = path_join(dir, names.v[i]);
		struct stat st;
		if (lstat(p, &st) < 0)
			rc = errno == ENOENT ? 0 : err_set(e, ERR_WORK, "cannot stat '%s':", p);
		else if (fs_temp_orphaned(names.v[i]))
			rc = S_ISDIR(st.st_mode) ? fs_remove_tree(p, e)
			   : unlink(p) == 0 || errno == ENOENT ? 0 : err_set(e, ERR_WORK, "cannot remove '%s':", p);
		else if (S_ISDIR(st.st_mode))
			rc = fs_remove_orphaned_temps(p, e);
		free(p);
	}
	strlist_free(&names);
	return rc;
}

char *path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

int fs_mkdirs_parent(const char *path, struct err *e)
{
	char *dir = path_dir(path);
	int r = fs_mkdirs(dir, e);
	free(dir);
	return r;
}

static int fs_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	/* some filesystems cannot fsync a directory: nothing more to make durable */
	if (r < 0 && (errno == EINVAL || errno == ENOTSUP))
		r = 0;
	int saved = errno;
	close(fd);
	errno = saved;
	return r;
}

int fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO; /* a write that takes nothing would loop forever */
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fs_mkdirs(const char *path, struct err *e)
{
	/* the whole path first: most calls find it or only its last part
	 * missing, and the walk below remakes every parent (~14 failing
	 * mkdirs for an absolute path) */
	if (mkdir(path, 0755) == 0)
		return 0;
	if (errno == EEXIST && fs_is_dir(path))
		return 0;
	char *p = xstrdup(path);
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				err_set(e, ERR_WORK, "cannot create directory '%s':", p);
				free(p);
				return -1;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	if (!fs_is_dir(path))
		return err_set(e, ERR_WORK, "'%s' exists and is not a directory", path);
	return 0;
}

static int remove_at(int parent, const char *name, struct err *e, const char *shown)
{
	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return err_set(e, ERR_WORK, "cannot remove '%s':", shown);
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, ERR_WORK, "cannot open '%s':", shown);
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return err_set(e, ERR_WORK, "cannot list '%s':", shown);
	}
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = remove_at(dirfd(d), de->d_name, e, shown);
	}
	closedir(d);
	if (r == 0 && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return err_set(e, ERR_WORK, "cannot remove '%s':", shown);
	return r;
}

int fs_remove_tree(const char *path, struct err *e)
{
	return remove_at(AT_FDCWD, path, e, path);
}

/* Writeback of fd's pages started now, so the fsync at publication finds
 * them on their way and one journal commit covers every file of it. A hint
 * only: that fsync decides. */
static void start_writeback(int fd)
{
#ifdef SYNC_FILE_RANGE_WRITE
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
	(void)fd;
#endif
}

/* What a copy ends with: nothing, its writeback started, or an fsync. */
enum copy_end { COPY_PLAIN, COPY_HINT, COPY_FSYNC };

static int copy_file(const char *src, const char *dst, mode_t mode, enum copy_end end,
		     struct err *e)
{
	int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return err_set(e, ERR_INPUT, "cannot read '%s':", src);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		close(in);
		return err_set(e, ERR_WORK, "cannot create '%s':", dst);
	}
	char chunk[65536];
	int r = 0;
	for (;;) {
		ssize_t n = read(in, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = err_set(e, ERR_INPUT, "cannot read '%s':", src);
			break;
		}
		if (n == 0)
			break;
		if (fs_write_all(out, chunk, (size_t)n) < 0) {
			r = err_set(e, ERR_WORK, "cannot write '%s':", dst);
			break;
		}
	}
	if (r == 0 && end == COPY_FSYNC && fsync(out) < 0)
		r = err_set(e, ERR_WORK, "cannot write '%s':", dst);
	if (r == 0 && end == COPY_HINT)
		start_writeback(out);
	if (r == 0 && fchmod(out, mode) < 0) /* exact mode, whatever the umask */
		r = err_set(e, ERR_WORK, "cannot set the mode of '%s':", dst);
	close(in);
	if (close(out) < 0 && r == 0)
		r = err_set(e, ERR_WORK, "cannot write '%s':", dst);
	return r;
}

int fs_copy_file(const char *src, const char *dst, mode_t mode, struct err *e)
{
	return copy_file(src, dst, mode, COPY_FSYNC, e);
}

int fs_copy_new(const char *src, const char *dst, mode_t mode, bool hint, struct err *e)
{
	return copy_file(src, dst, mode, hint ? COPY_HINT : COPY_PLAIN, e);
}

/* Creates path (it must not exist), writes data, starts its writeback
 * (unless hint is false). The open descriptor is returned (for an fsync
 * later), -1 with e set. */
static int write_new_fd(const char *path, const void *data, size_t len, mode_t mode, bool hint,
                        struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return err_set(e, ERR_WORK, "cannot create '%s':", path);
	if (fs_write_all(fd, data, len) < 0) {
		err_set(e, ERR_WORK, "cannot write '%s':", path);
		close(fd);
		unlink(path);
		return -1;
	}
	if (hint)
		start_writeback(fd);
	return fd;
}

int fs_write_new(const char *path, const void *data, size_t len, mode_t mode, bool hint,
		 struct err *e)
{
	int fd = write_new_fd(path, data, len, mode, hint, e);
	if (fd < 0)
		return -1;
	if (close(fd) < 0) {
		err_set(e, ERR_WORK, "cannot write '%s':", path);
		unlink(path);
		return -1;
	}
	return 0;
}

/* ---- publications (docs/internals/durability.md) ---------------------- */

static void pub_push(struct fs_pub *p, char *tmp, const char *target, int fd)
{
	GROW(p->v, p->n, p->cap);
	bool dir = fd < 0;
	bool sync = dir && !p->rebuildable;
	p->v[p->n++] = (struct fs_pub_item){ tmp, xstrdup(target), fd, dir, sync };
}

int fs_pub_file(struct fs_pub *p, const char *path, const void *data, size_t len, mode_t mode,
                struct err *e)
{
	char *tmp = fs_temp_beside(path);
	int fd = write_new_fd(tmp, data, len, mode, !p->rebuildable, e);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	pub_push(p, tmp, path, fd);
	return 0;
}

int fs_pub_file_if_changed(struct fs_pub *p, const char *path, const void *data, size_t len,
                           struct err *e)
{
	struct buf old = BUF_INIT;
	struct err ignore;
	bool same = fs_read(path, len + 1, &old, &ignore) == 0 && old.len == len &&
		    (len == 0 || memcmp(old.data, data, len) == 0);
	buf_free(&old);
	if (same)
		return 0;
	return fs_pub_file(p, path, data, len, 0644, e) < 0 ? -1 : 1;
}

void fs_pub_dir(struct fs_pub *p, const char *tmp, const char *target)
{
	pub_push(p, xstrdup(tmp), target, -1);
}

/* fsync of every file and folder of the tree dir, folders after their
 * entries; symlinks are not followed (a link's own entry is its folder's). */
static int sync_tree(const char *dir, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, ERR_WORK, "cannot list '%s':", dir);
	int r = 0;
	for (struct dirent *de; r == 0 && (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = path_join(dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) < 0)
			r = err_set(e, ERR_WORK, "cannot stat '%s':", p);
		else if (S_ISDIR(st.st_mode))
			r = sync_tree(p, e);
		else if (S_ISREG(st.st_mode)) {
			int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 || fsync(fd) < 0)
				r = err_set(e, ERR_WORK, "cannot sync '%s':", p);
			if (fd >= 0)
				close(fd);
		}
		free(p);
	}
	closedir(d);
	if (r == 0 && fs_fsync_dir(dir) < 0)
		r = err_set(e, ERR_WORK, "cannot sync the folder '%s':", dir);
	return r;
}

/* Step 1: every temp durable before any rename. */
static int pub_sync(struct fs_pub *p, struct err *e)
{
	for (size_t i = 0; i < p->n; i++) {
		struct fs_pub_item *it = &p->v[i];
		if (it->dir) {
			if (it->sync && sync_tree(it->tmp, e) < 0)
				return -1;
			continue;
		}
		int r = p->rebuildable ? 0 : fsync(it->fd);
		if (close(it->fd) < 0)
			r = -1;
		it->fd = -1;
		if (r < 0)
			return err_set(e, ERR_WORK, "cannot write '%s':", it->tmp);
	}
	return 0;
}

/* Without RENAME_EXCHANGE (old kernel or filesystem): the old tree aside,
 * the new one in, and the old one back when that fails. *old is the old
 * tree's name to remove once the rename is durable. */
static int place_by_moving(const char *tmp, const char *target, char **old, struct err *e)
{
	*old = fs_temp_beside(target);
	if (rename(target, *old) < 0) {
		err_set(e, ERR_WORK, "cannot move '%s' aside:", target);
	} else if (rename(tmp, target) < 0) {
		err_set(e, ERR_WORK, "cannot rename '%s' to '%s':", tmp, target);
		if (rename(*old, target) < 0) /* the old tree must not stay under a temp name */
			err_set(e, ERR_WORK,
			        "cannot rename '%s' to '%s', and putting the old '%s' back "
			        "failed too (it is at '%s'):",
			        tmp, target, target, *old);
	} else {
		return 0;
	}
	free(*old);
	*old = NULL;
	return -1;
}

/* Step 2 for one item: renamed into place; a folder swapped with the old
 * tree, whose name (to remove after the folder fsync) goes to *old. */
static int pub_place(struct fs_pub_item *it, char **old, struct err *e)
{
	*old = NULL;
	if (!it->dir) {
		if (rename(it->tmp, it->target) < 0)
			return err_set(e, ERR_WORK, "cannot rename '%s' to '%s':", it->tmp,
			               it->target);
		return 0;
	}
	if (renameat2(AT_FDCWD, it->tmp, AT_FDCWD, it->target, RENAME_EXCHANGE) == 0) {
		*old = xstrdup(it->tmp); /* tmp now holds the old tree */
		return 0;
	}
	if (errno != ENOENT && errno != EINVAL && errno != ENOSYS)
		return err_set(e, ERR_WORK, "cannot swap '%s' into '%s':", it->tmp, it->target);
	if (errno != ENOENT && fs_exists(it->target))
		return place_by_moving(it->tmp, it->target, old, e);
	if (rename(it->tmp, it->target) < 0)
		return err_set(e, ERR_WORK, "cannot rename '%s' to '%s':", it->tmp, it->target);
	return 0;
}

/* Step 3: each folder renamed into synced once, however many items it got. */
static int pub_sync_parents(const struct fs_pub *p, struct err *e)
{
	struct strlist dirs = STRLIST_INIT;
	for (size_t i = 0; i < p->n; i++)
		strlist_push_owned(&dirs, path_dir(p->v[i].target));
	strlist_sort(&dirs);
	int r = 0;
	for (size_t i = 0; r == 0 && i < dirs.n; i++)
		if ((i == 0 || strcmp(dirs.v[i], dirs.v[i - 1])) && fs_fsync_dir(dirs.v[i]) < 0)
			r = err_set(e, ERR_WORK, "cannot sync the folder '%s':", dirs.v[i]);
	strlist_free(&dirs);
	return r;
}

int fs_pub_commit(struct fs_pub *p, struct err *e)
{
	int r = pub_sync(p, e);
	struct strlist olds = STRLIST_INIT;
	size_t placed = 0;
	while (r == 0 && placed < p->n) {
		char *old;
		r = pub_place(&p->v[placed], &old, e);
		if (old)
			strlist_push_owned(&olds, old);
		placed += r == 0;
	}
	if (r == 0 && !p->rebuildable)
		r = pub_sync_parents(p, e);
	for (size_t i = 0; r == 0 && i < olds.n; i++)
		r = fs_remove_tree(olds.v[i], e);
	strlist_free(&olds);
	if (r < 0) { /* what was placed stays (each whole); the rest goes */
		struct fs_pub rest = { p->v + placed, p->n - placed, 0, p->rebuildable };
		fs_pub_abort(&rest);
	}
	fs_pub_free(p);
	return r;
}

void fs_pub_abort(struct fs_pub *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct fs_pub_item *it = &p->v[i];
		if (it->fd >= 0)
			close(it->fd);
		it->fd = -1;
		struct err ignore;
		if (it->tmp)
			fs_remove_tree(it->tmp, &ignore);
	}
}

void fs_pub_free(struct fs_pub *p)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].fd >= 0)
			close(p->v[i].fd);
		free(p->v[i].tmp);
		free(p->v[i].target);
	}
	free(p->v);
	*p = (struct fs_pub)FS_PUB_INIT;
}

int fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct err *e)
{
	struct fs_pub p = FS_PUB_INIT;
	if (fs_pub_file(&p, path, data, len, mode, e) < 0)
		return -1;
	return fs_pub_commit(&p, e);
}

int fs_write_if_changed(const char *path, const void *data, size_t len, struct err *e)
{
	struct fs_pub p = FS_PUB_INIT;
	int r = fs_pub_file_if_changed(&p, path, data, len, e);
	if (r == 1 && fs_pub_commit(&p, e) < 0)
		return -1;
	return r;
}

static int publish_one_dir(const char *tmp, const char *target, bool sync, struct err *e)
{
	struct fs_pub p = FS_PUB_INIT;
	fs_pub_dir(&p, tmp, target);
	p.v[0].sync = sync;
	return fs_pub_commit(&p, e);
}

int fs_publish_dir(const char *tmp, const char *target, struct err *e)
{
	return publish_one_dir(tmp, target, false, e);
}

int fs_publish_tree(const char *tmp, const char *target, struct err *e)
{
	return publish_one_dir(tmp, target, true, e);
}

bool fs_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

bool fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fs_move_aside(const char *path, const char *dir, struct err *e)
{
	const char *base = path_base(path);
	while (*base == '.')
		base++; /* keep forensics visible: ".x.tmp.1" -> "x.tmp.1" */
	char *dst = fs_move_aside_as(path, dir, base, e);
	int r = dst ? 0 : -1;
	free(dst);
	return r;
}

char *fs_move_aside_as(const char *path, const char *dir, const char *name, struct err *e)
{
	if (fs_mkdirs(dir, e) < 0)
		return NULL;
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	char *dst = xasprintf("%s/%s.%s", dir, name, stamp);
	for (int i = 1; fs_exists(dst); i++) {
		free(dst);
		dst = xasprintf("%s/%s.%s.%d", dir, name, stamp, i);
	}
	if (rename(path, dst) < 0) {
		err_set(e, ERR_WORK, "cannot move '%s' to '%s':", path, dst);
		free(dst);
		return NULL;
	}
	return dst;
}

int fs_list_names(const char *dir, struct strlist *out, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, ERR_INPUT, "cannot list '%s':", dir);
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strlist_push(out, de->d_name);
	closedir(d);
	strlist_sort(out);
	return 0;
}

char *fs_find_program(const char *prog, const char *path)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
	char *copy = xstrdup(path ? path : ""), *save = NULL, *found = NULL;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = path_join(*d ? d : ".", prog);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

char *fs_find_in_path(const char *prog)
{
	return fs_find_program(prog, getenv("PATH"));
}

char *fs_real_path(const char *p)
{
	char buf[PATH_MAX];
	if (realpath(p, buf))
		return xstrdup(buf);
	if (p[0] == '/')
		return xstrdup(p);
	if (!getcwd(buf, sizeof buf))
		return xstrdup(p);
	return path_join(buf, p);
}

char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a);
	if (n && a[n - 1] == '/')
		return xasprintf("%s%s", a, b);
	return xasprintf("%s/%s", a, b);
}

const char *path_base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

char *path_normalize_rel(const char *rel)
{
	struct strlist parts = STRLIST_INIT;
	const char *p = rel;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* skip empty and "." components */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (parts.n == 0) {
				strlist_free(&parts);
				return NULL;
			}
			free(parts.v[--parts.n]);
			parts.v[parts.n] = NULL;
		} else {
			strlist_push_owned(&parts, xstrndup(p, n));
		}
		p += n;
		if (*p == '/')
			p++;
	}
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < parts.n; i++) {
		if (i)
			buf_addc(&b, '/');
		buf_adds(&b, parts.v[i]);
	}
	strlist_free(&parts);
	return buf_detach(&b);
}

char *path_normalize_abs(const char *base, const char *p)
{
	char *joined = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", base, p);
	struct strlist parts = STRLIST_INIT;
	char *save = NULL;
	for (char *s = strtok_r(joined, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (!strcmp(s, "."))
			continue;
		if (!strcmp(s, "..")) {
			if (parts.n) {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			}
			continue;
		}
		strlist_push(&parts, s);
	}
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < parts.n; i++)
		buf_printf(&b, "/%s", parts.v[i]);
	if (!b.len)
		buf_addc(&b, '/');
	strlist_free(&parts);
	free(joined);
	return buf_detach(&b);
}

static void tree_push(struct fs_tree *t, char *path, const struct stat *st, char *link)
{
	GROW(t->v, t->n, t->cap);
	t->v[t->n++] = (struct fs_entry){ path, st->st_mode, st->st_size, link };
}

static int list_dir(const char *root, const char *rel, struct fs_tree *t, struct err *e)
{
	char *dirpath = *rel ? path_join(root, rel) : xstrdup(root);
	DIR *d = opendir(dirpath);
	if (!d) {
		err_set(e, ERR_INPUT, "cannot list '%s':", dirpath);
		free(dirpath);
		return -1;
	}
	struct strlist names = STRLIST_INIT;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strlist_push(&names, de->d_name);
	closedir(d);
	strlist_sort(&names);
	int r = 0;
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		char *childrel = *rel ? xasprintf("%s/%s", rel, names.v[i]) : xstrdup(names.v[i]);
		char *full = path_join(dirpath, names.v[i]);
		struct stat st;
		if (lstat(full, &st) < 0) {
			r = err_set(e, ERR_INPUT, "cannot stat '%s':", full);
			free(childrel);
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t n = readlink(full, target, sizeof target - 1);
			if (n < 0) {
				r = err_set(e, ERR_INPUT, "cannot read link '%s':", full);
				free(childrel);
			} else {
				tree_push(t, childrel, &st, xstrndup(target, (size_t)n));
			}
		} else {
			tree_push(t, childrel, &st, NULL);
			if (S_ISDIR(st.st_mode))
				r = list_dir(root, childrel, t, e);
		}
		free(full);
	}
	strlist_free(&names);
	free(dirpath);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct fs_entry *)a)->path, ((const struct fs_entry *)b)->path);
}

int fs_list_tree(const char *root, struct fs_tree *out, struct err *e)
{
	if (list_dir(root, "", out, e) < 0)
		return -1;
	/* per-directory order is already sorted; sort whole paths so "a-b" and
	 * "a/b" order the same on every machine */
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_entry);
	return 0;
}

void fs_tree_free(struct fs_tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].link);
	}
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

int tree_copy(const char *src, const char *dst, bool link_ok, struct err *e)
{
	struct fs_tree t = { 0 };
	if (fs_list_tree(src, &t, e) < 0) {
		fs_tree_free(&t);
		return -1;
	}
	int r = 0;
	if (mkdir(dst, 0755) < 0)
		r = err_set(e, ERR_WORK, "cannot create '%s':", dst);
	for (size_t i = 0; r == 0 && i < t.n; i++) {
		const struct fs_entry *en = &t.v[i];
		char *from = path_join(src, en->path), *to = path_join(dst, en->path);
		if (S_ISDIR(en->mode)) {
			if (mkdir(to, 0755) < 0)
				r = err_set(e, ERR_WORK, "cannot create '%s':", to);
		} else if (S_ISLNK(en->mode)) {
			if (symlink(en->link, to) < 0)
				r = err_set(e, ERR_WORK, "cannot create '%s':", to);
		} else if (S_ISREG(en->mode)) {
			if (!link_ok || link(from, to) < 0)
				r = fs_copy_file(from, to, en->mode & 07777, e);
		}
		free(from);
		free(to);
	}
	fs_tree_free(&t);
	return r;
}

/* The kernel's id of this boot: outputs written without fsync are checked
 * again when it changed (docs/internals/durability.md). "" when unknown. */
const char *fs_boot_id(void)
{
	static char id[64];
	static bool done;
	if (!done) {
		struct buf b = BUF_INIT;
		struct err e;
		done = true;
		if (fs_read("/proc/sys/kernel/random/boot_id", sizeof id - 1, &b, &e) == 0)
			snprintf(id, sizeof id, "%.*s", (int)strcspn(b.data, "\n"), b.data);
		buf_free(&b);
	}
	return id;
}

char *fs_self_exe(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return xstrdup(exe);
}
