#include "base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#if (defined(__x86_64__) || defined(__i386__)) && !defined(SKILLC_XXH_PLAIN)
/* the library's dispatching entry points: AVX2 (or AVX-512) where the CPU
 * has it, as xxhsum uses; the plain ones are SSE2 (0.9x xxhsum -H2).
 * skillc-static's copy and skillc.so (SKILLC_XXH_PLAIN, Makefile) go
 * without: libxxhash.a has no dispatcher. */
#include <xxh_x86dispatch.h>
#endif

#include "base/fs.h"

static void to_hex(XXH128_hash_t h, hash_hex out)
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		out[2 * i] = digits[c.digest[i] >> 4];
		out[2 * i + 1] = digits[c.digest[i] & 15];
	}
	out[HASH_HEXLEN] = '\0';
}

void hash_bytes(const void *data, size_t len, hash_hex out)
{
	to_hex(XXH3_128bits(data, len), out);
}

static int feed_file(XXH3_state_t *st, const char *path, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_set(e, ERR_INPUT, "cannot read '%s':", path);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	/* 128 KiB on the stack: a chunk that stays in the L2 cache between the
	 * read's copy and the hash, and no fresh pages to fault in for every
	 * file (a 1 MiB malloc is an mmap each time: 0.79x xxhsum's CPU) */
	enum { CHUNK = 128 << 10 };
	char chunk[CHUNK];
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = err_set(e, ERR_INPUT, "cannot read '%s':", path);
			break;
		}
		if (n == 0)
			break;
		XXH3_128bits_update(st, chunk, (size_t)n);
	}
	close(fd);
	return rc;
}

int hash_file(const char *path, hash_hex out, struct err *e)
{
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		return err_set(e, ERR_WORK, "out of memory");
	XXH3_128bits_reset(st);
	int r = feed_file(st, path, e);
	if (r == 0)
		to_hex(XXH3_128bits_digest(st), out);
	XXH3_freeState(st);
	return r;
}

/* Per-file content hashes remembered with the stat data that vouches for
 * them. The file holds one line per file: "<path>\t<hash>\t<stat>". */
struct cache_entry {
	char *path, *stat;
	hash_hex hash;
};
struct stat_cache {
	struct cache_entry *v; /* sorted by path, as written */
	size_t n, cap;
	struct buf fresh;      /* the lines for this walk */
};

static void cache_load(struct stat_cache *c, const char *file)
{
	struct buf b = BUF_INIT;
	struct err e;
	memset(c, 0, sizeof *c);
	c->fresh = (struct buf)BUF_INIT;
	if (fs_read(file, 0, &b, &e) < 0) {
		buf_free(&b);
		return;
	}
	for (char *save = NULL, *line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2 || t2 - t1 - 1 != HASH_HEXLEN)
			continue; /* a damaged line only costs a re-hash */
		GROW(c->v, c->n, c->cap);
		struct cache_entry *en = &c->v[c->n++];
		en->path = xstrndup(line, (size_t)(t1 - line));
		memcpy(en->hash, t1 + 1, HASH_HEXLEN);
		en->hash[HASH_HEXLEN] = '\0';
		en->stat = xstrdup(t2 + 1);
	}
	buf_free(&b);
}

static void cache_free(struct stat_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].stat);
	}
	free(c->v);
	buf_free(&c->fresh);
}

static int cmp_entry_path(const void *key, const void *en)
{
	return strcmp(key, ((const struct cache_entry *)en)->path);
}

/* A file's content hash: from the cache when its size, times and inode
 * match, else read (and remembered, unless it changed in the last 2 s: a
 * write later in the same tick could keep its times, git's "racy" case). */
static int file_hash(const char *full, const char *rel, struct stat_cache *c, hash_hex out, struct err *e)
{
	struct stat sb;
	if (!c || strpbrk(rel, "\t\n") || lstat(full, &sb) < 0)
		return hash_file(full, out, e);
	char st[160];
	snprintf(st, sizeof st, "%lld %lld.%09ld %lld.%09ld %llu", (long long)sb.st_size,
	         (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec, (long long)sb.st_ctim.tv_sec,
	         sb.st_ctim.tv_nsec, (unsigned long long)sb.st_ino);
	const struct cache_entry *hit = c->n ? bsearch(rel, c->v, c->n, sizeof *c->v, cmp_entry_path) : NULL;
	if (hit && !strcmp(hit->stat, st)) {
		memcpy(out, hit->hash, HASH_HEXLEN + 1);
	} else if (hash_file(full, out, e) < 0) {
		return -1;
	} else if (sb.st_mtim.tv_sec >= time(NULL) - 2) {
		return 0;
	}
	buf_printf(&c->fresh, "%s\t%s\t%s\n", rel, out, st);
	return 0;
}

/* The tree digest. by_file: each file contributes its content hash, not its
 * bytes, so hashes can come from a cache (a different scheme name keeps the
 * two kinds of digest apart). */
static int tree_digest(const char *path, bool by_file, struct stat_cache *cache, hash_hex out, struct err *e)
{
	struct stat sb;
	if (lstat(path, &sb) < 0)
		return err_set(e, ERR_INPUT, "cannot read '%s':", path);
	if (S_ISREG(sb.st_mode))
		return hash_file(path, out, e);
	if (S_ISLNK(sb.st_mode))
		return err_set(e, ERR_INPUT, "'%s' is a symlink; hash what it points to", path);
	struct fs_tree t = { 0 };
	if (fs_list_tree(path, &t, e) < 0) {
		fs_tree_free(&t);
		return -1;
	}
	XXH3_state_t *st = XXH3_createState();
	if (!st) {
		fs_tree_free(&t);
		return err_set(e, ERR_WORK, "out of memory");
	}
	XXH3_128bits_reset(st);
	/* bump a scheme when its layout changes */
	const char *scheme = by_file ? "skillc-tree-files-1\n" : "skillc-tree-1\n";
	XXH3_128bits_update(st, scheme, strlen(scheme));
	int r = 0;
	struct buf head = BUF_INIT;
	for (size_t i = 0; r == 0 && i < t.n; i++) {
		const struct fs_entry *en = &t.v[i];
		char kind = S_ISDIR(en->mode) ? 'd' : S_ISLNK(en->mode) ? 'l' : S_ISREG(en->mode) ? 'f' : '?';
		if (kind == '?') {
			r = err_set(e, ERR_INPUT, "'%s/%s' is not a file, directory or symlink", path, en->path);
			break;
		}
		char x = (kind == 'f' && (en->mode & 0111)) ? 'x' : '-';
		/* the length prefix keeps "path + content" boundaries unambiguous */
		long long len = kind == 'f' ? (long long)en->size : kind == 'l' ? (long long)strlen(en->link) : 0;
		buf_reset(&head);
		buf_printf(&head, "%c%c %lld %s", kind, x, len, en->path);
		XXH3_128bits_update(st, head.data, head.len + 1); /* include the NUL */
		if (kind == 'l') {
			XXH3_128bits_update(st, en->link, strlen(en->link));
		} else if (kind == 'f') {
			char *full = path_join(path, en->path);
			hash_hex fh;
			if (!by_file)
				r = feed_file(st, full, e);
			else if ((r = file_hash(full, en->path, cache, fh, e)) == 0)
				XXH3_128bits_update(st, fh, HASH_HEXLEN);
			free(full);
		}
	}
	buf_free(&head);
	if (r == 0)
		to_hex(XXH3_128bits_digest(st), out);
	XXH3_freeState(st);
	fs_tree_free(&t);
	return r;
}

int hash_tree(const char *path, hash_hex out, struct err *e)
{
	return tree_digest(path, false, NULL, out, e);
}

int hash_tree_cached(const char *path, const char *cache_file, bool update, hash_hex out, struct err *e)
{
	struct stat_cache c;
	cache_load(&c, cache_file);
	int r = tree_digest(path, true, &c, out, e);
	if (r == 0 && update && fs_write_if_changed(cache_file, c.fresh.data, c.fresh.len, e) < 0)
		r = -1;
	cache_free(&c);
	return r;
}

int hash_is_hex(const char *s)
{
	size_t i;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == HASH_HEXLEN;
}

int stamp_write(const char *path, const hash_hex hex, struct err *e)
{
	char line[HASH_HEXLEN + 2];
	snprintf(line, sizeof line, "%s\n", hex);
	return fs_write_if_changed(path, line, HASH_HEXLEN + 1, e);
}

int stamp_read(const char *path, hash_hex out, struct err *e)
{
	struct buf b = BUF_INIT;
	if (fs_read(path, 256, &b, e) < 0) {
		buf_free(&b);
		return -1;
	}
	int ok = b.len == HASH_HEXLEN + 1 && b.data[HASH_HEXLEN] == '\n';
	if (ok) {
		b.data[HASH_HEXLEN] = '\0';
		ok = hash_is_hex(b.data);
	}
	if (ok)
		memcpy(out, b.data, HASH_HEXLEN + 1);
	buf_free(&b);
	return ok ? 0 : err_set(e, ERR_INPUT, "'%s' is not a hash stamp (32 hex digits and a newline)", path);
}
