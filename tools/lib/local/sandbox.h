/* sandbox.h — one trial's isolated filesystem view, built with bubblewrap.
 *
 * The sandbox root is an empty tmpfs holding: the host's programs read-only
 * (/usr, /bin, /lib*, /sbin, /opt, and /etc minus /etc/shadow and
 * /etc/gshadow), a fresh /proc and a minimal /dev, and writable directories
 * of the trial's own (the "tops": /root, /tmp, the workdir, any COPY
 * destination) that live under the trial's scratch folder on the host. The
 * trial folder's agent/, verifier/ and artifacts/ are bound at /logs/...;
 * nothing else of the host is visible: not the user's home, not the project
 * tree, not other trials. Inside, the agent is uid 0 of a user namespace
 * with no capabilities, in its own pid namespace (it dies with us) and,
 * unless the task allows network, its own network namespace.
 *
 * SANDBOX_NONE (opt-in by name only) runs on the host itself: sandbox paths
 * ARE host paths; /logs/..., /skills and /tests become symlinks. */
#ifndef SKILLC_LOCAL_SANDBOX_H
#define SKILLC_LOCAL_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/util.h"

/* CONTAINER: the trial's container (container.h, docker or podman); a
 * sandbox then only keeps the host side, the scratch folder and the binds,
 * for the container's create. */
enum sandbox_mode { SANDBOX_BWRAP, SANDBOX_NONE, SANDBOX_CONTAINER };

struct sandbox_bind {
	char *src;   /* host path */
	char *dest;  /* sandbox path */
	bool rw;
};

struct sandbox {
	enum sandbox_mode mode;
	char *bwrap;       /* bubblewrap's path (BWRAP mode) */
	char *scratch;     /* host folder holding this trial's writable root pieces */
	struct sandbox_bind *binds;
	size_t nbinds;
	struct strlist links; /* NONE mode: symlinks we made on the host, removed at the end */
	char *hosts;       /* scratch/etc/hosts, bound over /etc/hosts when set */
};

/* Starts an empty sandbox whose host-side pieces live in scratch (created;
 * must not exist yet). */
int sandbox_init(struct sandbox *sb, enum sandbox_mode mode, const char *bwrap, const char *scratch, struct err *e);

/* Makes the top-level directory of path (e.g. /root for /root/data)
 * writable and private to this trial. System directories (/usr, /etc,
 * /proc, /logs, ...) are refused. */
int sandbox_provide(struct sandbox *sb, const char *path, struct err *e);

/* Adds a bind of host src at sandbox dest (NONE mode: a symlink). */
int sandbox_bind(struct sandbox *sb, const char *src, const char *dest, bool rw, struct err *e);

/* The host path behind a sandbox path inside a provided top; NULL when the
 * path is not under one. For setup before any agent runs. Caller frees. */
char *sandbox_host_path(const struct sandbox *sb, const char *path);

/* Setup-time writes into provided tops (parents are created):
 * copy_in copies a file or a tree (symlinks copied as links, never
 * followed); as_child puts src at dest/<base name>. */
int sandbox_copy_in(struct sandbox *sb, const char *src, const char *dest, bool as_child, struct err *e);
int sandbox_write(struct sandbox *sb, const char *dest, const char *data, size_t len, mode_t mode, struct err *e);
int sandbox_symlink(struct sandbox *sb, const char *target, const char *linkpath, struct err *e);
int sandbox_mkdir(struct sandbox *sb, const char *dest, struct err *e);

/* How one process runs inside. */
struct sandbox_run {
	bool share_net;       /* the host's network; else a private one with loopback only */
	const char *cwd;      /* sandbox path */
	const struct sandbox_bind *extra; /* binds for this run only (e.g. /tests) */
	size_t nextra;
};

/* Appends the full command line (bwrap ... -- argv...) to out. The
 * environment is NOT put on the command line (it would show in ps): pass
 * it as the envp of the exec. */
void sandbox_command(const struct sandbox *sb, const struct sandbox_run *run, char *const *argv, struct strlist *out);

/* Opens a sandbox path the way a process inside would see it, for serving
 * an agent's file requests from outside: resolved with RESOLVE_IN_ROOT
 * under the bind that holds it, so no symlink or ".." can leave it. Writes
 * only through writable binds. Returns an fd or -1 with e set. */
int sandbox_open(const struct sandbox *sb, const char *path, int flags, mode_t mode, struct err *e);

/* Removes the scratch folder (and NONE-mode links); keeps going on errors. */
int sandbox_cleanup(struct sandbox *sb, struct err *e);
void sandbox_free(struct sandbox *sb);

#endif
