#include "local/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"

/* Top-level names that belong to the host or to the runner itself. */
static const char *const reserved[] = {
	"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt",
	"proc", "dev", "sys", "run", "logs", "skills", "tests", "solution", "boot",
};

/* Host directories shown read-only; symlinks (merged /usr) are recreated. */
static const char *const system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
};

/* Secrets in /etc that even a read-only view must not show. */
static const char *const masked[] = { "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-" };

int sandbox_init(struct sandbox *sb, enum sandbox_mode mode, const char *bwrap, const char *scratch, struct err *e)
{
	memset(sb, 0, sizeof *sb);
	sb->mode = mode;
	sb->bwrap = bwrap ? xstrdup(bwrap) : NULL;
	sb->scratch = xstrdup(scratch);
	if (mkdir(scratch, 0700) < 0)
		return err_set(e, ERR_WORK, "cannot create the sandbox folder '%s':", scratch);
	char *empty = path_join(scratch, "empty");
	int r = fs_write_atomic(empty, "", 0, 0444, e);
	free(empty);
	return r;
}

/* "/a/b/c" -> "a"; NULL for "/" or a relative path. Caller frees. */
static char *top_of(const char *path)
{
	if (path[0] != '/' || !path[1])
		return NULL;
	const char *s = path + 1;
	const char *end = strchr(s, '/');
	return xstrndup(s, end ? (size_t)(end - s) : strlen(s));
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1)
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

static void push_bind(struct sandbox *sb, const char *src, const char *dest, bool rw)
{
	sb->binds = xrealloc(sb->binds, (sb->nbinds + 1) * sizeof *sb->binds);
	sb->binds[sb->nbinds++] = (struct sandbox_bind){ xstrdup(src), xstrdup(dest), rw };
}

int sandbox_provide(struct sandbox *sb, const char *path, struct err *e)
{
	char *top = top_of(path);
	if (!top || !name_is_safe(top)) {
		free(top);
		return err_set(e, ERR_INPUT, "'%s' cannot be a writable folder in the sandbox", path);
	}
	for (size_t i = 0; i < ARRAY_LEN(reserved); i++) {
		if (!strcmp(top, reserved[i])) {
			err_set(e, ERR_INPUT, "'%s' lies under /%s, which the local runner keeps for the host "
				"(move it under /root or another folder of the task's own)", path, top);
			free(top);
			return -1;
		}
	}
	char *dest = xasprintf("/%s", top);
	int r = 0;
	if (sb->mode == SANDBOX_NONE) {
		r = fs_mkdirs(dest, e);
	} else {
		bool have = false;
		for (size_t i = 0; i < sb->nbinds; i++)
			have |= !strcmp(sb->binds[i].dest, dest);
		if (!have) {
			char *src = xasprintf("%s/fs/%s", sb->scratch, top);
			r = fs_mkdirs(src, e);
			if (r == 0)
				push_bind(sb, src, dest, true);
			free(src);
		}
	}
	free(dest);
	free(top);
	return r;
}

int sandbox_bind(struct sandbox *sb, const char *src, const char *dest, bool rw, struct err *e)
{
	if (sb->mode != SANDBOX_NONE) {
		push_bind(sb, src, dest, rw);
		return 0;
	}
	/* on the host: a symlink at dest, replacing only an earlier symlink */
	struct stat st;
	if (lstat(dest, &st) == 0) {
		if (!S_ISLNK(st.st_mode))
			return err_set(e, ERR_WORK, "unsandboxed mode: '%s' exists on this host and is not a symlink; "
				       "refusing to replace it", dest);
		unlink(dest);
	}
	int r = fs_mkdirs_parent(dest, e);
	if (r == 0 && symlink(src, dest) < 0)
		r = err_set(e, ERR_WORK, "cannot link '%s' to '%s':", dest, src);
	if (r == 0)
		strlist_push(&sb->links, dest);
	return r;
}

char *sandbox_host_path(const struct sandbox *sb, const char *path)
{
	if (sb->mode == SANDBOX_NONE)
		return xstrdup(path);
	for (size_t i = 0; i < sb->nbinds; i++) {
		const struct sandbox_bind *b = &sb->binds[i];
		if (b->rw && !strncmp(b->src, sb->scratch, strlen(sb->scratch)) && under(path, b->dest))
			return xasprintf("%s%s", b->src, path + strlen(b->dest));
	}
	return NULL;
}

static char *host_or_err(const struct sandbox *sb, const char *path, struct err *e)
{
	char *h = sandbox_host_path(sb, path);
	if (!h)
		err_set(e, ERR_INPUT, "'%s' is not under a writable folder of the sandbox", path);
	return h;
}


static int copy_entry(const char *src, const char *dst, const struct stat *st, const char *link, struct err *e)
{
	if (S_ISDIR(st->st_mode))
		return fs_mkdirs(dst, e);
	if (S_ISLNK(st->st_mode)) {
		unlink(dst);
		if (symlink(link, dst) < 0)
			return err_set(e, ERR_WORK, "cannot create link '%s':", dst);
		return 0;
	}
	if (!S_ISREG(st->st_mode))
		return 0; /* sockets, fifos, devices: not task data */
	unlink(dst); /* a COPY over an earlier link must not write through it */
	return fs_copy_file(src, dst, st->st_mode & 0777, e);
}

static int copy_tree(const char *src, const char *dst, struct err *e)
{
	struct stat st;
	if (lstat(src, &st) < 0)
		return err_set(e, ERR_INPUT, "cannot read '%s':", src);
	if (!S_ISDIR(st.st_mode)) {
		char link[PATH_MAX] = "";
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(src, link, sizeof link - 1);
			link[n > 0 ? n : 0] = '\0';
		}
		return fs_mkdirs_parent(dst, e) < 0 ? -1 : copy_entry(src, dst, &st, link, e);
	}
	if (fs_mkdirs(dst, e) < 0)
		return -1;
	struct fs_tree tree = { 0 };
	if (fs_list_tree(src, &tree, e) < 0)
		return -1;
	int r = 0;
	for (size_t i = 0; i < tree.n && r == 0; i++) {
		const struct fs_entry *en = &tree.v[i];
		char *s = path_join(src, en->path), *d = path_join(dst, en->path);
		struct stat est = { .st_mode = en->mode };
		r = copy_entry(s, d, &est, en->link, e);
		free(s);
		free(d);
	}
	fs_tree_free(&tree);
	return r;
}

int sandbox_copy_in(struct sandbox *sb, const char *src, const char *dest, bool as_child, struct err *e)
{
	char *host = host_or_err(sb, dest, e);
	if (!host)
		return -1;
	if (as_child) {
		const char *slash = strrchr(src, '/');
		char *h = path_join(host, slash ? slash + 1 : src);
		free(host);
		host = h;
	}
	int r = copy_tree(src, host, e);
	free(host);
	return r;
}

int sandbox_write(struct sandbox *sb, const char *dest, const char *data, size_t len, mode_t mode, struct err *e)
{
	char *host = host_or_err(sb, dest, e);
	if (!host)
		return -1;
	int r = fs_mkdirs_parent(host, e);
	if (r == 0)
		r = fs_write_atomic(host, data, len, mode, e);
	free(host);
	return r;
}

int sandbox_symlink(struct sandbox *sb, const char *target, const char *linkpath, struct err *e)
{
	char *host = host_or_err(sb, linkpath, e);
	if (!host)
		return -1;
	int r = fs_mkdirs_parent(host, e);
	if (r == 0) {
		struct stat st;
		if (lstat(host, &st) == 0 && S_ISDIR(st.st_mode))
			r = fs_remove_tree(host, e); /* ln -sfn over a copied folder */
		else
			unlink(host);
	}
	if (r == 0 && symlink(target, host) < 0)
		r = err_set(e, ERR_WORK, "cannot create link '%s':", host);
	free(host);
	return r;
}

int sandbox_mkdir(struct sandbox *sb, const char *dest, struct err *e)
{
	char *host = host_or_err(sb, dest, e);
	if (!host)
		return -1;
	int r = fs_mkdirs(host, e);
	free(host);
	return r;
}

static void add(struct strlist *l, const char *a, const char *b, const char *c)
{
	strlist_push(l, a);
	if (b)
		strlist_push(l, b);
	if (c)
		strlist_push(l, c);
}

static void add_bind(struct strlist *out, const struct sandbox_bind *b)
{
	add(out, b->rw ? "--bind" : "--ro-bind", b->src, b->dest);
}

void sandbox_command(const struct sandbox *sb, const struct sandbox_run *run, char *const *argv, struct strlist *out)
{
	if (sb->mode == SANDBOX_NONE) {
		for (size_t i = 0; argv[i]; i++)
			strlist_push(out, argv[i]);
		return;
	}
	add(out, sb->bwrap, "--die-with-parent", "--new-session");
	add(out, "--unshare-all", "--unshare-user", NULL);
	add(out, "--uid", "0", NULL);
	add(out, "--gid", "0", NULL);
	add(out, "--cap-drop", "ALL", NULL);
	add(out, "--hostname", "sandbox", NULL);
	if (run->share_net)
		add(out, "--share-net", NULL, NULL);
	for (size_t i = 0; i < ARRAY_LEN(system_dirs); i++) {
		const char *d = system_dirs[i];
		struct stat st;
		if (lstat(d, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			char link[PATH_MAX];
			ssize_t n = readlink(d, link, sizeof link - 1);
			if (n > 0) {
				link[n] = '\0';
				add(out, "--symlink", link, d);
			}
		} else if (S_ISDIR(st.st_mode)) {
			add(out, "--ro-bind", d, d);
		}
	}
	char *empty = path_join(sb->scratch, "empty"); /* device nodes do not work in binds */
	for (size_t i = 0; i < ARRAY_LEN(masked); i++)
		if (fs_exists(masked[i]))
			add(out, "--ro-bind", empty, masked[i]);
	free(empty);
	if (sb->hosts && !run->share_net)
		add(out, "--ro-bind", sb->hosts, "/etc/hosts");
	add(out, "--proc", "/proc", NULL);
	add(out, "--dev", "/dev", NULL);
	for (size_t i = 0; i < sb->nbinds; i++)
		add_bind(out, &sb->binds[i]);
	for (size_t i = 0; i < run->nextra; i++)
		add_bind(out, &run->extra[i]);
	add(out, "--chdir", run->cwd, NULL);
	strlist_push(out, "--");
	for (size_t i = 0; argv[i]; i++)
		strlist_push(out, argv[i]);
}

static const struct sandbox_bind *bind_for(const struct sandbox *sb, const char *path)
{
	const struct sandbox_bind *best = NULL;
	for (size_t i = 0; i < sb->nbinds; i++)
		if (under(path, sb->binds[i].dest) && (!best || strlen(sb->binds[i].dest) > strlen(best->dest)))
			best = &sb->binds[i];
	return best;
}

/* Walks path one component at a time, never following a link with the
 * kernel: links are read and resolved again as sandbox paths. */
static int open_walk(const struct sandbox *sb, const char *path, int flags, mode_t mode, int hops, struct err *e)
{
	if (hops > 40)
		return err_set(e, ERR_INPUT, "too many symbolic links in '%s'", path);
	char *norm = path_normalize_abs("/", path);
	const struct sandbox_bind *b = bind_for(sb, norm);
	bool writing = (flags & O_ACCMODE) != O_RDONLY;
	if (!b || (writing && !b->rw)) {
		err_set(e, ERR_INPUT, "'%s' is %s in the sandbox", path, b ? "read-only" : "not reachable");
		free(norm);
		return -1;
	}
	const char *rel = norm + strlen(b->dest) + (strlen(b->dest) > 1);
	while (*rel == '/')
		rel++;
	struct stat st;
	if (stat(b->src, &st) == 0 && !S_ISDIR(st.st_mode)) {
		free(norm);
		if (*rel)
			return err_set(e, ERR_INPUT, "'%s' is not reachable in the sandbox", path);
		int fd = open(b->src, (flags & ~(O_CREAT | O_TRUNC)) | O_CLOEXEC | O_NOFOLLOW);
		return fd < 0 ? err_set(e, ERR_INPUT, "cannot open '%s':", path) : fd;
	}
	int dir = open(b->src, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		free(norm);
		return err_set(e, ERR_WORK, "cannot open '%s':", path);
	}
	char *rest = xstrdup(rel), *save = NULL;
	char *comp = strtok_r(rest, "/", &save);
	struct buf seen = BUF_INIT; /* the sandbox path walked so far */
	buf_adds(&seen, strcmp(b->dest, "/") ? b->dest : "");
	int fd = -1;
	if (!comp) {
		fd = openat(dir, ".", (flags & ~(O_CREAT | O_TRUNC)) | O_CLOEXEC);
		if (fd < 0)
			err_set(e, ERR_INPUT, "cannot open '%s':", path);
	}
	while (comp) {
		char *next = strtok_r(NULL, "/", &save);
		if (fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			char link[PATH_MAX];
			ssize_t n = readlinkat(dir, comp, link, sizeof link - 1);
			if (n < 0) {
				err_set(e, ERR_INPUT, "cannot read link '%s':", path);
				break;
			}
			link[n] = '\0';
			struct buf again = BUF_INIT;
			if (link[0] == '/')
				buf_adds(&again, link);
			else
				buf_printf(&again, "%s/%s", seen.len ? seen.data : "", link);
			for (char *c = next; c; c = strtok_r(NULL, "/", &save))
				buf_printf(&again, "/%s", c);
			fd = open_walk(sb, again.data, flags, mode, hops + 1, e);
			buf_free(&again);
			break;
		}
		buf_printf(&seen, "/%s", comp);
		if (!next) {
			fd = openat(dir, comp, flags | O_CLOEXEC | O_NOFOLLOW, mode);
			if (fd < 0)
				err_set(e, ERR_INPUT, "cannot open '%s':", path);
			break;
		}
		int nd = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nd < 0) {
			err_set(e, ERR_INPUT, "cannot open '%s':", path);
			break;
		}
		close(dir);
		dir = nd;
		comp = next;
	}
	close(dir);
	buf_free(&seen);
	free(rest);
	free(norm);
	return fd;
}

int sandbox_open(const struct sandbox *sb, const char *path, int flags, mode_t mode, struct err *e)
{
	if (path[0] != '/')
		return err_set(e, ERR_INPUT, "'%s' is not an absolute path", path);
	if (sb->mode == SANDBOX_NONE) {
		int fd = open(path, flags | O_CLOEXEC, mode);
		return fd < 0 ? err_set(e, ERR_INPUT, "cannot open '%s':", path) : fd;
	}
	return open_walk(sb, path, flags, mode, 0, e);
}

int sandbox_cleanup(struct sandbox *sb, struct err *e)
{
	int r = 0;
	for (size_t i = 0; i < sb->links.n; i++) {
		unlink(sb->links.v[i]);
		char *parent = path_dir(sb->links.v[i]);
		rmdir(parent); /* /logs, when nothing else is in it; never "/" */
		free(parent);
	}
	if (sb->scratch && fs_exists(sb->scratch)) {
		/* the agent may have left folders without write permission */
		struct fs_tree t = { 0 };
		struct err ignore;
		if (fs_list_tree(sb->scratch, &t, &ignore) == 0) {
			for (size_t i = 0; i < t.n; i++) {
				if (S_ISDIR(t.v[i].mode) && (t.v[i].mode & 0700) != 0700) {
					char *p = path_join(sb->scratch, t.v[i].path);
					chmod(p, 0700);
					free(p);
				}
			}
		}
		fs_tree_free(&t);
		r = fs_remove_tree(sb->scratch, e);
	}
	return r;
}

void sandbox_free(struct sandbox *sb)
{
	free(sb->bwrap);
	free(sb->scratch);
	for (size_t i = 0; i < sb->nbinds; i++) {
		free(sb->binds[i].src);
		free(sb->binds[i].dest);
	}
	free(sb->binds);
	strlist_free(&sb->links);
	free(sb->hosts);
	memset(sb, 0, sizeof *sb);
}
