/* image.h — the baked images of SANDBOX=docker (and podman) trials, keyed
 * by content, built with docker's legacy builder (DOCKER_BUILDKIT=0 docker
 * build --network host) or podman build, so a Dockerfile runs as written:
 *   L1  the task's environment/ built from its own Dockerfile, without
 *       environment/skills (the skill is mounted at /skills, so raw,
 *       compiled and no-skill trials share the image); tag
 *       skillc/l1-<task>:<key>, key = hash of that build context;
 *       or, with IMAGE=<local image>, that image itself.
 *   L2  L1 with the harness installed by its recipe, the "image" object of
 *       rules/harness/<harness>.json:
 *         {"files": [{"src": "path (relative: to the harness file)", "dest": "/abs"}],
 *          "run": ["shell command", ...]}
 *       tag skillc/l2-<task>--<harness>:<key>, key = hash of its context
 *       (the L1 tag included).
 * An image whose tag is already in the daemon is not built again. Proxy
 * variables reach the builds as build args by name (Docker keeps those
 * out of the image's history); nothing else of the environment does.
 * The repositories (skillc/l1-*, skillc/l2-*) name what skillc built; no
 * labels (the legacy builder commits a layer for each, and vfs copies the
 * whole image per layer). A stamp file holds "<image id> <tag>\n". */
#ifndef SKILLC_LOCAL_IMAGE_H
#define SKILLC_LOCAL_IMAGE_H

#include <stdbool.h>

struct launch; /* local/launch.h */
#include "local/engine.h"
#include "local/task.h"
#include "base/util.h"

struct image_ref {
	char id[80];   /* sha256:... */
	char *tag;
	bool built;    /* built now (false: found in the daemon) */
	char *pinned;  /* <IMAGE_REGISTRY>/<repository>@sha256:<digest> once pushed; NULL: not */
};
void image_ref_free(struct image_ref *r);

struct image_opts {
	const struct engine *engine; /* where the images are built and kept */
	const char *work;      /* a folder for build contexts (made and removed inside it) */
	int log_fd;            /* where docker build's output goes too; -1: nowhere */
	const char *base;      /* IMAGE: this local image is the L1; NULL: build the Dockerfile */
	const char *platform;  /* --platform for builds; NULL: the daemon's own */
};

/* The task's L1 image, built when its tag is absent. Errors (ERR_WORK)
 * are the environment's: the Dockerfile failed (the failing step and its
 * last line), the IMAGE does not exist, the daemon does not answer. */
int image_l1(const struct task *t, const struct image_opts *o, struct image_ref *out, struct err *e);

/* L1 + the harness h (its "image" recipe; none: L1 itself). ERR_INPUT for
 * a recipe that is not valid. */
int image_l2(const struct task *t, const struct launch *h, const struct image_ref *l1, const struct image_opts *o,
	     struct image_ref *out, struct err *e);

/* Any other image of skillc's (the runtime's): fill(ctx, arg) writes a
 * build context into a fresh folder, tagged <repo>:<its content key>,
 * built when the daemon lacks that tag. what names it in errors. */
typedef int image_fill_fn(const char *ctx, void *arg, struct err *e);
int image_from_context(const char *repo, image_fill_fn *fill, void *arg, const struct image_opts *o, double timeout,
		       const char *what, struct image_ref *out, struct err *e);
/* Copies the file or tree src to dst (made), hard links where possible. */
int image_context_copy(const char *src, const char *dst, struct err *e);

/* IMAGE_REGISTRY=host:port[/prefix]: pushes r under <registry>/<its tag>
 * and sets r->pinned to the pushed manifest's digest reference (podman's
 * digest file goes to a temp name in work, removed after). */
int image_publish(const struct engine *en, struct image_ref *r, const char *registry,
                  const char *work, struct err *e);
/* Pulls a pinned reference (by digest: the daemon refuses content whose
 * digest differs) into the daemon; id gets its image id (80 bytes). Errors
 * are the environment's (ERR_WORK), never the trial's. */
int image_pull(const struct engine *en, const char *pinned, char id[80], struct err *e);

/* "<image id> <tag>[ <pinned>]\n" */
int image_stamp_write(const char *path, const struct image_ref *r, struct err *e);
/* Reads a stamp; -1 with e set when absent or malformed. */
int image_stamp_read(const char *path, struct image_ref *r, struct err *e);
/* 1 when the stamp's image is in the daemon under its tag (or, pinned in
 * a registry, pulled by digest now), 0 when it is not (deleted behind
 * make's back: build it again), -1 when the daemon cannot be asked or a
 * pinned image cannot be pulled (e says why). */
int image_stamp_check(const struct engine *en, const char *path, struct err *e);

#endif
