#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "fs.h"

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
	enum { CHUNK = 1 << 20 }; /* large reads: hashing is faster than small syscalls */
	char *chunk = xmalloc(CHUNK);
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
	free(chunk);
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

int hash_tree(const char *path, hash_hex out, struct err *e)
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
	static const char scheme[] = "skillc-tree-1\n"; /* bump when the layout changes */
	XXH3_128bits_update(st, scheme, sizeof scheme - 1);
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
			r = feed_file(st, full, e);
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
