/* fs.h — files that are whole or absent: atomic writes, directory swaps,
 * sorted tree listings that never follow symlinks. */
#ifndef SKILLC_BASE_FS_H
#define SKILLC_BASE_FS_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/util.h"

/* Reads a whole file into out (appending). max > 0 refuses larger files
 * (errno EFBIG). */
int fs_read(const char *path, size_t max, struct buf *out, struct err *e);
/* The one size limit on a file of a task or a skill skillc reads:
 * MAX_FILE_MB from the environment (1..4096; 25 when unset or bad). */
long fs_max_file_mb(void);
/* fs_read under that limit; a larger file's error names MAX_FILE_MB. */
int fs_read_limited(const char *path, struct buf *out, struct err *e);

/* write(2) until all len bytes are out (again after EINTR); -1 with errno
 * set on an error. */
int fs_write_all(int fd, const void *data, size_t len);

/* Writes a temp file beside path, fsyncs it, renames it over path and
 * fsyncs the directory: readers see the old bytes or the new, never half.
 * A publication of one file (below). */
int fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct err *e);

/* Like fs_write_atomic but leaves path (and its mtime) alone when it already
 * holds exactly these bytes. Returns 1 when written, 0 when unchanged. */
int fs_write_if_changed(const char *path, const void *data, size_t len, struct err *e);

/* A fresh temp name beside target: "<dir>/.<base>.tmp.<pid>.<n>"; caller frees. */
char *fs_temp_beside(const char *target);
/* True for names made by fs_temp_beside (used to sweep leftovers of a crash). */
bool fs_is_temp_name(const char *base);
/* True for such a name whose writing process no longer exists. */
bool fs_temp_orphaned(const char *base);
/* Removes every such file or folder in the tree dir (symlinks not followed). */
int fs_remove_orphaned_temps(const char *dir, struct err *e);
/* A temp folder holding this file is resumable: the tool that made it picks
 * it up again after a crash (skillc-eval: a runner that had finished, not
 * to be paid for twice), so a generic sweep of leftovers leaves it alone. */
#define FS_TEMP_RESUMABLE ".resume.json"
/* True when the folder dir holds FS_TEMP_RESUMABLE. */
bool fs_temp_resumable(const char *dir);

/* Swaps the finished directory tmp in at target (atomically when target
 * exists, with renameat2 RENAME_EXCHANGE), then removes the old tree. The
 * rename is made durable; the files in tmp are the caller's to have synced
 * (fs_write_atomic, fs_copy_file) or not to need it (a trial's tree). */
int fs_publish_dir(const char *tmp, const char *target, struct err *e);
/* The same, with every file and folder of tmp fsynced first: a publication
 * of one folder (below) built with fs_write_new and fs_copy_new. */
int fs_publish_tree(const char *tmp, const char *target, struct err *e);

/* A publication: files and finished folders written under temp names, then
 * put in place together, whole after a crash or absent. fs_pub_commit
 * fsyncs every temp (a folder's every file and folder), then renames each
 * into place, then fsyncs each folder renamed into once: one journal commit
 * for the data and one for the names, however many files
 * (docs/internals/durability.md). */
struct fs_pub_item {
	char *tmp, *target;
	int fd;   /* a file's temp, open until its fsync; -1 after, and for a folder */
	bool dir;  /* tmp is a finished folder of the caller's */
	bool sync; /* a folder whose every file and folder is fsynced first */
};
struct fs_pub {
	struct fs_pub_item *v;
	size_t n, cap;
	/* Outputs recomputed cheaply and deterministically from hashed inputs,
	 * whose stage record catches a torn one after a restart (skillc-stage,
	 * docs/internals/durability.md): temp and rename only, no fsync and no
	 * writeback hint. Whole after a killed process; after a machine crash
	 * possibly torn, and then detected and rebuilt, never trusted. */
	bool rebuildable;
};
#define FS_PUB_INIT { NULL, 0, 0, false }
#define FS_PUB_REBUILDABLE { NULL, 0, 0, true }
/* Writes data to a temp beside path now; path is replaced at the commit. */
int fs_pub_file(struct fs_pub *p, const char *path, const void *data, size_t len, mode_t mode,
                struct err *e);
/* The same unless path holds exactly these bytes: 1 added, 0 unchanged. */
int fs_pub_file_if_changed(struct fs_pub *p, const char *path, const void *data, size_t len,
                           struct err *e);
/* The finished folder tmp goes in at target at the commit (the old tree,
 * if any, is swapped out and removed), its every file and folder fsynced
 * before. */
void fs_pub_dir(struct fs_pub *p, const char *tmp, const char *target);
/* Makes it all durable and puts it in place; frees p either way. On an
 * error what was already renamed stays (whole) and the other temps go. */
int fs_pub_commit(struct fs_pub *p, struct err *e);
/* Removes every temp of p (files and folders); fs_pub_free after. */
void fs_pub_abort(struct fs_pub *p);
void fs_pub_free(struct fs_pub *p);
/* Creates path (absent before) in a folder that is not yet published, with
 * no fsync of its own: the publication of that folder makes it durable.
 * hint: start its writeback now, for a publication that will fsync it
 * (false for a rebuildable one, which never does). */
int fs_write_new(const char *path, const void *data, size_t len, mode_t mode, bool hint,
		 struct err *e);

int fs_mkdirs(const char *path, struct err *e);          /* mkdir -p */
/* mkdir -p of path_dir(path): the folder a file is about to be written in. */
int fs_mkdirs_parent(const char *path, struct err *e);
int fs_remove_tree(const char *path, struct err *e);     /* rm -rf; absent is fine */
int fs_copy_file(const char *src, const char *dst, mode_t mode, struct err *e); /* fsynced */
/* The same into a folder not yet published: no fsync of its own (see fs_write_new). */
int fs_copy_new(const char *src, const char *dst, mode_t mode, bool hint, struct err *e);
bool fs_exists(const char *path);                        /* lstat succeeds */
bool fs_is_dir(const char *path);                        /* stat, follows links */
/* Moves path to dir/<base>.<stamp> (creating dir); used for .incomplete/. */
int fs_move_aside(const char *path, const char *dir, struct err *e);
/* The same under a name of the caller's: dir/<name>.<stamp>[.<n>]. Returns
 * where it went (caller frees), NULL with e set when it could not move. */
char *fs_move_aside_as(const char *path, const char *dir, const char *name, struct err *e);
/* The names in dir not starting with '.', appended to out, then out sorted
 * by bytes. -1 with e set (errno kept) when dir cannot be opened. */
int fs_list_names(const char *dir, struct strlist *out, struct err *e);
/* prog as execvp finds it: itself when it holds a '/', else joined with the
 * first folder of the PATH list `path` (an empty entry is ".") holding an
 * executable regular file of that name; NULL when none. Caller frees. */
char *fs_find_program(const char *prog, const char *path);
/* The same in $PATH. */
char *fs_find_in_path(const char *prog);

/* p with symlinks resolved when it exists, else p made absolute from the
 * working directory as written (not normalized). Caller frees. */
char *fs_real_path(const char *p);

/* "a" + "/" + "b"; caller frees. */
char *path_join(const char *a, const char *b);
/* What comes before the last '/' ("/" for "/x", "." without one); caller frees. */
char *path_dir(const char *p);
/* What comes after the last '/' (borrowed from p). */
const char *path_base(const char *p);
/* Lexically normalizes a relative path ("a/./b/../c" -> "a/c"). Returns
 * NULL when it climbs above its start ("../x"). Caller frees. */
char *path_normalize_rel(const char *rel);

/* An absolute, lexically normalized path: p taken from base when relative,
 * "." and empty parts dropped, ".." climbing but never above "/"
 * ("/a/./b//../c" -> "/a/c"). Caller frees. */
char *path_normalize_abs(const char *base, const char *p);

/* One entry of a tree, path relative to the root, "/"-separated. */
struct fs_entry {
	char *path;
	mode_t mode;  /* from lstat: type and permission bits */
	off_t size;
	char *link;   /* symlink target, else NULL */
};
struct fs_tree {
	struct fs_entry *v;
	size_t n, cap;
};
/* Lists every entry under root (not root itself) sorted by path bytes,
 * using lstat: symlinks are listed as links, never followed. */
int fs_list_tree(const char *root, struct fs_tree *out, struct err *e);
void fs_tree_free(struct fs_tree *t);

/* Copies the tree src to dst (dst must not exist): directories made,
 * symlinks recreated, regular files hard-linked when link is true and
 * possible, else copied with their mode. */
int tree_copy(const char *src, const char *dst, bool link, struct err *e);

/* The running program's path (/proc/self/exe read), NULL when unknown.
 * Caller frees. */
char *fs_self_exe(void);
/* The kernel's boot id ("" when unknown), read once. */
const char *fs_boot_id(void);

#endif
