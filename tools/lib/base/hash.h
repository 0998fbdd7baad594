/* hash.h — XXH3-128 content hashes in hex (32 lowercase digits: for a file,
 * the digits `xxhsum -H2` prints, XXH128 being XXH3's 128-bit variant). */
#ifndef SKILLC_BASE_HASH_H
#define SKILLC_BASE_HASH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define HASH_HEXLEN 32
typedef char hash_hex[HASH_HEXLEN + 1];

void hash_bytes(const void *data, size_t len, hash_hex out);
int hash_file(const char *path, hash_hex out, struct err *e);

/* Hashes a directory tree: every entry in sorted relative-path order, with
 * its kind, its executable bit (the only mode bit that survives a git
 * checkout or a copy under another umask), its path and its contents;
 * symlinks contribute their target text and are never followed. A regular
 * file hashes as its contents alone (so it matches hash_file). */
int hash_tree(const char *path, hash_hex out, struct err *e);

/* A tree digest for large trees hashed again and again (the task folder at
 * every make): each file contributes the hash of its bytes, and those come
 * from cache_file when the file's size, times and inode are unchanged, so
 * an unchanged tree costs a listing and a stat per file. With update, the
 * cache is rewritten (atomically, only when it changed). The digest differs
 * from hash_tree's, and is the same with or without a cache. */
int hash_tree_cached(const char *path, const char *cache_file, bool update, hash_hex out, struct err *e);

/* True when s is exactly 32 lowercase hex digits. */
int hash_is_hex(const char *s);

/* The stamp file convention: "<hex>\n". Rewrites path only when the hash
 * changed, so make sees a new mtime only for new content. Returns 1 when
 * written, 0 when unchanged. */
int stamp_write(const char *path, const hash_hex hex, struct err *e);
/* Reads a stamp file; -1 when absent or malformed. */
int stamp_read(const char *path, hash_hex out, struct err *e);

#endif
