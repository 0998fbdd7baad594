/* engine.h — the container engine the container sandbox drives through its
 * CLI: docker (a daemon: DOCKER_HOST and the rest from the environment) or
 * podman (no daemon: its storage and settings are the user's containers
 * configuration, CONTAINERS_STORAGE_CONF and CONTAINERS_CONF). Both speak
 * the same commands; the few ways they differ are the fields of one table,
 * so every caller says which engine and never spells its name. */
#ifndef SKILLC_LOCAL_ENGINE_H
#define SKILLC_LOCAL_ENGINE_H

#include <stdbool.h>

#include "base/util.h"

struct engine {
	const char *name;         /* its CLI (argv[0]), and the SANDBOX value that picks it */
	const char *package;      /* what installs it on Debian */
	const char *store;        /* where its images are, in messages */
	const char *ping[2];      /* a command and its --format that answers when the engine works, with its version */
	const char *arch[2];      /* a command and its --format printing the host's architecture */
	const char *driver_format; /* info --format printing the storage driver */
	const char *absent_image; /* how inspect says an image does not exist */
	const char *absent_box;   /* how rm says a container does not exist */
	const char *step;         /* how a build's output starts each step */
	const char *build_env;    /* NAME=value for its builds ("": none) */
	bool bare_ids;            /* image ids come without "sha256:" */
	bool makes_workdir;       /* create --workdir makes a missing folder */
	bool own_limits;          /* a container needs our nofile/nproc limits given (--ulimit) */
	bool rm_waits;            /* rm --force asks the container to stop and waits: give --time 0 */
	/* push's flag writing the pushed manifest's digest to a file (NULL: push prints it) */
	const char *digest_flag;
	const char *insecure_how; /* how a user lets it reach a plain-http registry */
};

extern const struct engine engine_docker, engine_podman;

/* The engine of a SANDBOX value (docker, podman); NULL for any other. */
const struct engine *engine_named(const char *sandbox);

/* Runs a command line of the engine's CLI (argv[0] its name), its output
 * merged and appended to out. Returns its exit code (124 after the time
 * limit, 127 when the CLI is not installed), -1 with e set when it cannot
 * be started. */
int engine_call(char *const *argv, struct buf *out, struct err *e);

/* 0 when the engine answers (*version gets its version, caller frees; may
 * be NULL); else e says what to do (ERR_WORK). */
int engine_ping(const struct engine *en, char **version, struct err *e);

/* Where the engine keeps things, for messages: docker's daemon socket,
 * podman's storage root. Caller frees. */
char *engine_where(const struct engine *en);

/* The id ("sha256:...", whatever the engine prints) of an image: 1 found,
 * 0 absent, -1 the engine could not be asked (e set). id holds 80 bytes. */
int engine_image_id(const struct engine *en, const char *ref, char id[80], struct err *e);

#endif
