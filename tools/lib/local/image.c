#include "local/image.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/proc.h"
#include "local/container.h"
#include "local/launch.h"

extern char **environ;

/* Bump when the way images are made changes: every key changes with it. */
#define IMAGE_FORMAT "1"

/* The proxy variables a build gets (by name: their values stay off command lines). */
static const char *const proxy_vars[] = { "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
					  "no_proxy", "ALL_PROXY", "all_proxy" };

void image_ref_free(struct image_ref *r)
{
	free(r->tag);
	free(r->pinned);
	memset(r, 0, sizeof *r);
}

/* A name as a docker repository accepts it: lower case, every run of
 * other characters one '-'. Caller frees. */
static char *repo_part(const char *s)
{
	struct buf b = BUF_INIT;
	for (; *s; s++) {
		char c = (char)tolower((unsigned char)*s);
		if (isalnum((unsigned char)c))
			buf_addc(&b, c);
		else if (b.len && b.data[b.len - 1] != '-')
			buf_addc(&b, '-');
	}
	while (b.len && b.data[b.len - 1] == '-')
		b.data[--b.len] = '\0';
	if (!b.len)
		buf_adds(&b, "x");
	return buf_detach(&b);
}

/* A fresh folder under work for one build context; caller frees. */
static char *make_context(const char *work, struct err *e)
{
	if (fs_mkdirs(work, e) < 0)
		return NULL;
	char *dir = path_join(work, ".skillc-build.XXXXXX");
	if (!mkdtemp(dir)) {
		err_set(e, ERR_WORK, "cannot create a build folder in '%s':", work);
		free(dir);
		return NULL;
	}
	return dir;
}

/* A file or tree at dst: hard links where the filesystem allows (a build
 * context is only read), copies elsewhere; links are kept as links. */
static int place(const char *src, const char *dst, const struct fs_entry *en, struct err *e)
{
	if (S_ISDIR(en->mode))
		return fs_mkdirs(dst, e);
	if (S_ISLNK(en->mode))
		return symlink(en->link, dst) < 0 ? err_set(e, ERR_WORK, "cannot create link '%s':", dst) : 0;
	if (!S_ISREG(en->mode))
		return 0;
	return link(src, dst) == 0 ? 0 : fs_copy_file(src, dst, en->mode & 0777, e);
}

/* The tree under src into dst (created), leaving out skip (relative; NULL: none). */
static int copy_tree_into(const char *src, const char *dst, const char *skip, struct err *e)
{
	struct fs_tree tree = { 0 };
	if (fs_mkdirs(dst, e) < 0 || fs_list_tree(src, &tree, e) < 0)
		return -1;
	size_t sl = skip ? strlen(skip) : 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < tree.n; i++) {
		const char *p = tree.v[i].path;
		if (skip && !strncmp(p, skip, sl) && (p[sl] == '/' || !p[sl]))
			continue;
		char *s = path_join(src, p), *d = path_join(dst, p);
		r = place(s, d, &tree.v[i], e);
		free(s);
		free(d);
	}
	fs_tree_free(&tree);
	return r;
}

static int write_text(const char *dir, const char *name, const char *text, struct err *e)
{
	char *p = path_join(dir, name);
	int r = fs_write_atomic(p, text, strlen(text), 0644, e);
	free(p);
	return r;
}

/* The content key of a build context: its tree, the platform, our format. */
static int context_key(const char *ctx, const char *platform, hash_hex out, struct err *e)
{
	hash_hex tree;
	if (hash_tree(ctx, tree, e) < 0)
		return -1;
	char *text = xasprintf("skillc-image %s\n%s\n%s\n", IMAGE_FORMAT, tree, platform ? platform : "");
	hash_bytes(text, strlen(text), out);
	free(text);
	return 0;
}

/* Signs in a build's output of a TLS chain a proxy intercepts. */
static const char *const tls_marks[] = { "SELF_SIGNED_CERT_IN_CHAIN", "self signed certificate in certificate chain",
					  "self-signed certificate in certificate chain", "unable to get local issuer",
					  "certificate verify failed", "CERTIFICATE_VERIFY_FAILED",
					  "x509: certificate signed by unknown authority", "SSL certificate problem" };

/* The way out of a failed build: a base image that cannot be pulled, or an
 * intercepted TLS chain; "" when the output shows neither. */
static const char *way_out(const char *text, const char *step)
{
	bool tls = false;
	for (size_t i = 0; i < ARRAY_LEN(tls_marks) && !tls; i++)
		tls = strstr(text, tls_marks[i]) != NULL;
	if (step && strstr(step, ": FROM "))
		return tls ? " (the registry's TLS chain is intercepted: give the daemon a registry mirror it trusts, or a local "
			     "image with IMAGE=; docs/containers.md)"
			   : " (the base image cannot be pulled here: give a local image with IMAGE=, or a registry mirror "
			     "holding it with REGISTRY_MIRROR= (skillc-runtime) or registry-mirrors in the daemon's "
			     "daemon.json; docs/containers.md)";
	if (tls)
		return " (a proxy intercepts TLS: SKILLC_BUILD_CA=<its CA bundle> puts it into the build, or give a "
		       "prepared image with IMAGE=; docs/containers.md)";
	return "";
}

/* What a failed build says: the step it stopped at, its last line (no
 * terminal escapes) and the way out. */
static void build_failure(const struct engine *en, const char *what, const struct buf *log, struct err *e)
{
	char *text = xstrdup(log->data);
	text_strip_escapes(text);
	char *whole = xstrdup(text); /* strtok_r cuts text */
	const char *step = NULL, *last = "no output";
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		while (*l == ' ')
			l++;
		if (!*l || !strncmp(l, "DEPRECATED", 10) || !strncmp(l, "Install the buildx", 18) ||
		    !strncmp(l, "BuildKit is", 11) || !strncmp(l, "--->", 4) || !strncmp(l, "Removing intermediate", 21))
			continue;
		if (!strncmp(l, en->step, strlen(en->step)))
			step = l;
		last = l;
	}
	const char *hint = way_out(whole, step);
	if (step && step != last)
		err_set(e, ERR_WORK, "%s failed at %.200s: %.400s%s", what, step, last, hint);
	else
		err_set(e, ERR_WORK, "%s failed: %.400s%s", what, last, hint);
	free(whole);
	free(text);
}

/* The engine's build of ctx as tag; its output to o->log_fd and, for the message, a capture. */
static int build(const char *ctx, const char *tag, const struct image_opts *o, double timeout, const char *what,
		 struct err *e)
{
	struct strlist a = STRLIST_INIT, env = STRLIST_INIT;
	const struct engine *en = o->engine;
	strlist_push(&a, en->name);
	strlist_push(&a, "build");
	strlist_push(&a, "--network");
	strlist_push(&a, "host"); /* RUN steps reach package mirrors even where no bridge exists */
	strlist_push(&a, "--tag");
	strlist_push(&a, tag);
	for (size_t i = 0; i < ARRAY_LEN(proxy_vars); i++)
		if (getenv(proxy_vars[i])) {
			strlist_push(&a, "--build-arg");
			strlist_push(&a, proxy_vars[i]);
		}
	if (o->platform) {
		strlist_push(&a, "--platform");
		strlist_push(&a, o->platform);
	}
	strlist_push(&a, "--file");
	strlist_push_owned(&a, path_join(ctx, "Dockerfile"));
	strlist_push(&a, ctx);
	for (size_t i = 0; environ[i]; i++)
		strlist_push(&env, environ[i]);
	if (*en->build_env)
		strlist_push(&env, en->build_env);
	int cap = memfd_create("image-build", MFD_CLOEXEC);
	struct proc_spec ps = { .argv = a.v, .envp = env.v, .timeout = timeout, .grace = 10, .stdin_fd = -1,
				.tee = { cap, o->log_fd } };
	struct proc_result pr;
	int r = proc_run(&ps, &pr, e);
	if (r == 0 && (pr.timed_out || pr.exit_code)) {
		struct buf log = BUF_INIT;
		char chunk[8192];
		ssize_t n;
		lseek(cap, 0, SEEK_SET);
		while ((n = read(cap, chunk, sizeof chunk)) > 0)
			buf_add(&log, chunk, (size_t)n);
		if (pr.timed_out)
			err_set(e, ERR_WORK, "%s took longer than its build_timeout_sec (%gs)", what, timeout);
		else if (pr.exit_code == 127)
			err_set(e, ERR_WORK, "cannot run %s (install it: apt-get install -y %s)", en->name, en->package);
		else
			build_failure(en, what, &log, e);
		buf_free(&log);
		r = -1;
	}
	if (cap >= 0)
		close(cap);
	strlist_free(&a);
	strlist_free(&env);
	return r;
}

/* The image tagged tag, built from ctx when the daemon lacks it. */
static int ensure(const char *ctx, const char *tag, const struct image_opts *o, double timeout, const char *what,
		  struct image_ref *out, struct err *e)
{
	int found = engine_image_id(o->engine, tag, out->id, e);
	if (found < 0)
		return -1;
	if (!found) {
		if (build(ctx, tag, o, timeout, what, e) < 0)
			return -1;
		out->built = true;
		if (engine_image_id(o->engine, tag, out->id, e) != 1)
			return err_set(e, ERR_WORK, "%s: %s build left no image %s", what, o->engine->name, tag);
	}
	out->tag = xstrdup(tag);
	return 0;
}

/* environment/ without skills/, and its Dockerfile without the skill copies. */
static int l1_context(const char *ctx, void *arg, struct err *e)
{
	const struct task *t = arg;
	char *env = path_join(t->dir, "environment");
	char *df = path_join(env, "Dockerfile");
	struct buf text = BUF_INIT;
	int r = fs_exists(df) ? fs_read(df, 1 << 20, &text, e)
			      : err_set(e, ERR_INPUT, "%s: no environment/Dockerfile to build (or set IMAGE)", t->dir);
	if (r == 0)
		r = copy_tree_into(env, ctx, "skills", e);
	if (r == 0) {
		char *filtered = task_dockerfile_without_skills(text.data);
		char *dst = path_join(ctx, "Dockerfile");
		unlink(dst); /* a hard link to the task's own */
		free(dst);
		r = write_text(ctx, "Dockerfile", filtered, e);
		free(filtered);
	}
	buf_free(&text);
	free(df);
	free(env);
	return r;
}

/* The user's IMAGE as the L1, tagged by its id (the L2 on it is then
 * keyed by the image's content, not by a name that may move). */
static int l1_given(const struct engine *en, const struct task *t, const char *base, struct image_ref *out,
		    struct err *e)
{
	int found = engine_image_id(en, base, out->id, e);
	if (found < 0)
		return -1;
	if (!found)
		return err_set(e, ERR_WORK, "IMAGE '%s' does not exist in %s (%s image inspect %s): "
			       "build or load it, or leave IMAGE unset to build the task's Dockerfile", base,
			       en->store, en->name, base);
	char *repo = repo_part(t->name);
	out->tag = xasprintf("skillc/l1-%s:image-%.32s", repo, out->id + strlen("sha256:"));
	free(repo);
	char *argv[] = { (char *)en->name, (char *)"tag", out->id, out->tag, NULL };
	struct buf log = BUF_INIT;
	int r = engine_call(argv, &log, e);
	if (r > 0)
		err_set(e, ERR_WORK, "%s tag %s %s: %.300s", en->name, base, out->tag, log.data);
	buf_free(&log);
	return r == 0 ? 0 : -1;
}

int image_l1(const struct task *t, const struct image_opts *o, struct image_ref *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (o->base)
		return l1_given(o->engine, t, o->base, out, e);
	char *repo = repo_part(t->name), *name = xasprintf("skillc/l1-%s", repo);
	char *what = xasprintf("the Dockerfile of task %s", t->name);
	int r = image_from_context(name, l1_context, (void *)t, o, t->build_timeout, what, out, e);
	free(what);
	free(name);
	free(repo);
	return r;
}

int image_from_context(const char *repo, image_fill_fn *fill, void *arg, const struct image_opts *o, double timeout,
		       const char *what, struct image_ref *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	char *ctx = make_context(o->work, e);
	if (!ctx)
		return -1;
	hash_hex key;
	int r = fill(ctx, arg, e);
	if (r == 0)
		r = context_key(ctx, o->platform, key, e);
	if (r == 0) {
		char *tag = xasprintf("%s:%s", repo, key);
		r = ensure(ctx, tag, o, timeout, what, out, e);
		free(tag);
	}
	struct err ce;
	fs_remove_tree(ctx, &ce);
	free(ctx);
	return r;
}

int image_context_copy(const char *src, const char *dst, struct err *e)
{
	struct stat st;
	if (stat(src, &st) < 0)
		return err_set(e, ERR_INPUT, "cannot read '%s':", src);
	if (S_ISDIR(st.st_mode))
		return copy_tree_into(src, dst, NULL, e);
	char *parent = path_dir(dst);
	struct fs_entry en = { .mode = st.st_mode };
	int r = fs_mkdirs(parent, e) < 0 ? -1 : place(src, dst, &en, e);
	free(parent);
	return r;
}

/* One "files" entry of a recipe into ctx/files/<dest>. */
static int recipe_file(const struct launch *h, const cJSON *f, const char *ctx, struct err *e)
{
	const char *src = json_str(f, "src"), *dest = json_str(f, "dest");
	if (!src || !dest || dest[0] != '/')
		return err_set(e, ERR_INPUT, "%s: each image.files entry needs \"src\" and an absolute \"dest\"", h->file);
	char *dir = path_dir(h->file);
	char *from = src[0] == '/' ? xstrdup(src) : path_join(dir, src);
	char *norm = path_normalize_abs("/", dest);
	char *to = xasprintf("%s/files%s", ctx, norm);
	struct stat st;
	int r = 0;
	if (stat(from, &st) < 0) {
		r = err_set(e, ERR_INPUT, "%s: image.files: cannot read '%s':", h->file, from);
	} else if (S_ISDIR(st.st_mode)) {
		r = copy_tree_into(from, to, NULL, e);
	} else {
		char *parent = path_dir(to);
		struct fs_entry en = { .mode = st.st_mode };
		r = fs_mkdirs(parent, e) < 0 ? -1 : place(from, to, &en, e);
		free(parent);
	}
	free(to);
	free(norm);
	free(from);
	free(dir);
	return r;
}

/* Where SKILLC_BUILD_CA (a CA bundle for builds behind a TLS-intercepting
 * proxy) goes in the L2, for the recipe's RUN lines only. */
#define BUILD_CA "/etc/skillc/build-ca.crt"

/* The build CA into ctx/files; the prefix of every RUN line ("" without one). */
static int build_ca(const char *ctx, const char **prefix, struct err *e)
{
	const char *ca = getenv("SKILLC_BUILD_CA");
	*prefix = "";
	if (!ca || !*ca)
		return 0;
	char *dst = xasprintf("%s/files" BUILD_CA, ctx);
	int r = fs_mkdirs_parent(dst, e);
	if (r == 0 && fs_copy_file(ca, dst, 0644, e) < 0)
		r = err_set(e, ERR_INPUT, "SKILLC_BUILD_CA '%s' cannot be read (%s)", ca, e->msg);
	free(dst);
	*prefix = "export NODE_EXTRA_CA_CERTS=" BUILD_CA " PIP_CERT=" BUILD_CA "; ";
	return r;
}

/* ctx/Dockerfile: FROM the L1, the recipe's files, its run lines. */
static int l2_context(const struct launch *h, const cJSON *recipe, const struct image_ref *l1, const char *ctx,
		      struct err *e)
{
	const cJSON *files = json_get(recipe, "files"), *run = json_get(recipe, "run");
	if ((files && !cJSON_IsArray(files)) || (run && !cJSON_IsArray(run)))
		return err_set(e, ERR_INPUT, "%s: \"image\" holds \"files\" (a list) and \"run\" (a list of commands)", h->file);
	struct buf df = BUF_INIT;
	buf_printf(&df, "FROM %s\n", l1->tag);
	const char *prefix;
	int r = build_ca(ctx, &prefix, e);
	for (const cJSON *f = files ? files->child : NULL; r == 0 && f; f = f->next)
		r = recipe_file(h, f, ctx, e);
	if ((files && files->child) || *prefix)
		buf_adds(&df, "COPY files/ /\n");
	for (const cJSON *c = run ? run->child : NULL; r == 0 && c; c = c->next) {
		if (!cJSON_IsString(c) || !*c->valuestring || strchr(c->valuestring, '\n'))
			r = err_set(e, ERR_INPUT, "%s: image.run entries are one-line shell commands", h->file);
		else
			buf_printf(&df, "RUN %s%s\n", prefix, c->valuestring);
	}
	if (r == 0)
		r = write_text(ctx, "Dockerfile", df.data, e);
	buf_free(&df);
	return r;
}

int image_l2(const struct task *t, const struct launch *h, const struct image_ref *l1, const struct image_opts *o,
	     struct image_ref *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	const cJSON *recipe = json_get(h->doc, "image");
	if (!recipe) { /* no recipe: the harness must be in the L1 already */
		memcpy(out->id, l1->id, sizeof out->id);
		out->tag = xstrdup(l1->tag);
		return 0;
	}
	if (!cJSON_IsObject(recipe))
		return err_set(e, ERR_INPUT, "%s: \"image\" must be an object (files, run)", h->file);
	char *ctx = make_context(o->work, e);
	if (!ctx)
		return -1;
	hash_hex key;
	int r = l2_context(h, recipe, l1, ctx, e);
	if (r == 0)
		r = context_key(ctx, o->platform, key, e);
	if (r == 0) {
		char *rt = repo_part(t->name), *rh = repo_part(h->name);
		char *tag = xasprintf("skillc/l2-%s--%s:%s", rt, rh, key);
		char *what = xasprintf("the %s install recipe (%s) on task %s's image", h->name, h->file, t->name);
		r = ensure(ctx, tag, o, t->build_timeout, what, out, e);
		free(what);
		free(tag);
		free(rt);
		free(rh);
	}
	struct err ce;
	fs_remove_tree(ctx, &ce);
	free(ctx);
	return r;
}

/* Runs `<engine> A B C [D]`, its output in out: the exit code (-1: not run). */
static int engine4(const struct engine *en, const char *a, const char *b, const char *c, const char *d, struct buf *out,
		   struct err *e)
{
	char *argv[] = { (char *)en->name, (char *)a, (char *)b, (char *)c, (char *)d, NULL };
	return engine_call(argv, out, e);
}

/* host:port[/prefix]: registry name characters only, no scheme. */
static bool registry_ok(const char *reg)
{
	if (!*reg || strstr(reg, "://") || reg[strlen(reg) - 1] == '/')
		return false;
	for (const char *c = reg; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr(".-_:/", *c))
			return false;
	return true;
}

/* The registry's refusal of a push or pull, in one line: what the engine
 * said, and the way out (hint; for a registry that speaks plain http: how
 * the engine is told it may). */
static int registry_failure(const struct engine *en, const char *what, const char *hint,
                            struct buf *out, struct err *e)
{
	if (out->len)
		text_strip_escapes(out->data);
	bool plain = out->len && strstr(out->data, "HTTP response to HTTPS client");
	return err_set(e, ERR_WORK, "%s: %s (%s%s)", what, buf_last_line(out),
	               plain ? "a plain-http registry: " : "", plain ? en->insecure_how : hint);
}

/* The pushed manifest's 64 hex digits into hex: docker prints them
 * ("digest: sha256:..."), podman writes "sha256:..." to its digest file. */
static int pushed_digest(const struct engine *en, const char *remote, struct buf *out,
                         const char *dfile, char hex[65], struct err *e)
{
	struct buf f = BUF_INIT;
	const char *d = NULL;
	if (!dfile && out->len && (d = strstr(out->data, "digest: sha256:")))
		d += 15;
	else if (dfile && fs_read(dfile, 4096, &f, e) == 0 && f.len &&
	         !strncmp(f.data, "sha256:", 7))
		d = f.data + 7;
	int rc = 0;
	if (!d || strspn(d, "0123456789abcdef") < 64)
		rc = err_set(e, ERR_WORK, "%s push %s gave no digest: %s", en->name, remote,
			     dfile ? (f.len ? f.data : "no digest file") : buf_last_line(out));
	else
		snprintf(hex, 65, "%.64s", d);
	buf_free(&f);
	return rc;
}

int image_publish(const struct engine *en, struct image_ref *r, const char *registry,
                  const char *work, struct err *e)
{
	if (!registry_ok(registry))
		return err_set(e, ERR_INPUT, "bad IMAGE_REGISTRY '%s': give host:port[/prefix], e.g. registry.example:5000/skillc",
			       registry);
	char *remote = xasprintf("%s/%s", registry, r->tag),
	     *what = xasprintf("%s push %s", en->name, remote);
	char *base = en->digest_flag ? path_join(work, "push.digest") : NULL,
	     *dfile = base ? fs_temp_beside(base) : NULL;
	struct buf out = BUF_INIT;
	char hex[65];
	int rc = engine4(en, "tag", r->id, remote, NULL, &out, e);
	if (rc > 0)
		err_set(e, ERR_WORK, "%s tag %s: %s", en->name, remote, buf_last_line(&out));
	buf_reset(&out);
	if (rc == 0)
		rc = dfile ? engine4(en, "push", en->digest_flag, dfile, remote, &out, e)
			   : engine4(en, "push", remote, NULL, NULL, &out, e);
	if (rc > 0)
		registry_failure(en, what, "is IMAGE_REGISTRY's registry up?", &out, e);
	if (rc == 0)
		rc = pushed_digest(en, remote, &out, dfile, hex, e);
	if (rc == 0) { /* by digest, without the tag: the tag is what could be pushed over */
		const char *colon = strrchr(remote, ':');
		size_t repo = colon > strrchr(remote, '/') ? (size_t)(colon - remote) : strlen(remote);
		r->pinned = xasprintf("%.*s@sha256:%s", (int)repo, remote, hex);
	}
	if (dfile)
		unlink(dfile);
	buf_free(&out);
	free(dfile);
	free(base);
	free(what);
	free(remote);
	return rc == 0 ? 0 : -1;
}

int image_pull(const struct engine *en, const char *pinned, char id[80], struct err *e)
{
	int found = engine_image_id(en, pinned, id, e);
	if (found != 0)
		return found < 0 ? -1 : 0;
	struct buf out = BUF_INIT;
	char *what = xasprintf("cannot pull %s from the registry", pinned);
	int rc = engine4(en, "pull", pinned, NULL, NULL, &out, e);
	if (rc > 0)
		registry_failure(
			en, what,
			"built and pushed by make images with IMAGE_REGISTRY; a digest that does "
				"not match is refused",
			&out, e);
	buf_free(&out);
	free(what);
	if (rc == 0 && engine_image_id(en, pinned, id, e) != 1)
		return err_set(e, ERR_WORK, "%s pull %s left no image", en->name, pinned);
	return rc == 0 ? 0 : -1;
}

int image_stamp_write(const char *path, const struct image_ref *r, struct err *e)
{
	char *text = xasprintf("%s %s%s%s\n", r->id, r->tag, r->pinned ? " " : "", r->pinned ? r->pinned : "");
	int w = fs_write_if_changed(path, text, strlen(text), e);
	free(text);
	return w < 0 ? -1 : 0;
}

int image_stamp_read(const char *path, struct image_ref *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	struct buf b = BUF_INIT;
	if (fs_read(path, 4096, &b, e) < 0) {
		buf_free(&b);
		return -1;
	}
	char *sp = strchr(b.data, ' ');
	size_t idl = sp ? (size_t)(sp - b.data) : 0;
	int rc = 0;
	if (!sp || idl >= sizeof r->id || strncmp(b.data, "sha256:", 7)) {
		rc = err_set(e, ERR_INPUT, "%s: not an image stamp (\"<image id> <tag>\")", path);
	} else {
		memcpy(r->id, b.data, idl);
		r->id[idl] = '\0';
		size_t tl = strcspn(sp + 1, " \n");
		r->tag = xstrndup(sp + 1, tl);
		if (sp[1 + tl] == ' ')
			r->pinned = xstrndup(sp + 2 + tl, strcspn(sp + 2 + tl, " \n"));
	}
	buf_free(&b);
	return rc;
}

int image_stamp_check(const struct engine *en, const char *path, struct err *e)
{
	struct image_ref r;
	if (image_stamp_read(path, &r, e) < 0)
		return 0;
	char id[80];
	int found = r.pinned ? (image_pull(en, r.pinned, id, e) == 0 ? 1 : -1) : engine_image_id(en, r.tag, id, e);
	int ok = found < 0 ? -1 : found && !strcmp(id, r.id);
	image_ref_free(&r);
	return ok;
}
