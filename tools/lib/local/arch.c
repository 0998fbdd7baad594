#include "local/arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "local/engine.h"

/* Where binfmt_misc lists its handlers. */
#define BINFMT_DIR "/proc/sys/fs/binfmt_misc"

int qemu_mode_parse(const char *s, enum qemu_mode *m, struct err *e)
{
	if (!s || !*s || !strcmp(s, "auto"))
		*m = QEMU_AUTO;
	else if (!strcmp(s, "yes"))
		*m = QEMU_YES;
	else if (!strcmp(s, "no"))
		*m = QEMU_NO;
	else
		return err_set(e, ERR_INPUT, "bad QEMU '%s': use auto, yes or no", s);
	return 0;
}

/* uname -m names and Docker's, one row per architecture. */
static const struct {
	const char *docker, *qemu, *alias;
} arch_names[] = {
	{ "amd64", "x86_64", "x86_64" },
	{ "arm64", "aarch64", "aarch64" },
	{ "arm", "arm", "armv7l" },
	{ "386", "i386", "i686" },
	{ "ppc64le", "ppc64le", "ppc64le" },
	{ "s390x", "s390x", "s390x" },
	{ "riscv64", "riscv64", "riscv64" },
};

const char *arch_docker_name(const char *machine)
{
	for (size_t i = 0; i < ARRAY_LEN(arch_names); i++)
		if (!strcmp(machine, arch_names[i].alias) || !strcmp(machine, arch_names[i].docker))
			return arch_names[i].docker;
	return machine;
}

const char *arch_qemu_name(const char *docker_arch)
{
	for (size_t i = 0; i < ARRAY_LEN(arch_names); i++)
		if (!strcmp(docker_arch, arch_names[i].docker))
			return arch_names[i].qemu;
	return docker_arch;
}

const char *arch_of_platform(const char *platform, char *buf, size_t n)
{
	const char *slash = strchr(platform, '/');
	const char *a = slash ? slash + 1 : platform;
	snprintf(buf, n, "%.*s", (int)strcspn(a, "/"), a);
	return arch_docker_name(buf);
}

void arch_plan_free(struct arch_plan *p)
{
	free(p->platform);
	free(p->why);
	memset(p, 0, sizeof *p);
}

int arch_decide(const struct arch_facts *f, enum qemu_mode m, struct arch_plan *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	if (!f->image || !*f->image) {
		p->why = xasprintf("the image's architecture is not known before its build: built for the daemon's (%s)",
				   f->daemon);
		return 0;
	}
	if (!strcmp(f->image, f->daemon)) {
		p->why = xasprintf("host and image are both %s: no emulation", f->daemon);
		return 0;
	}
	if (m == QEMU_NO)
		return err_set(e, ERR_WORK, "the image is %s, the host %s, and QEMU=no: use an image for %s, or QEMU=auto "
			       "with qemu-user-static installed", f->image, f->daemon, f->daemon);
	if (m == QEMU_AUTO && !f->binfmt)
		return err_set(e, ERR_WORK, "the image is %s, the host %s, and no qemu-%s handler is registered in "
			       BINFMT_DIR ": apt-get install -y qemu-user-static binfmt-support (or use an image for %s)",
			       f->image, f->daemon, arch_qemu_name(f->image), f->daemon);
	p->platform = xasprintf("linux/%s", f->image);
	p->emulate = true;
	p->why = xasprintf("the image is %s, the host %s: emulated with qemu-user-static (--platform %s%s)", f->image,
			   f->daemon, p->platform, m == QEMU_YES && !f->binfmt ? "; QEMU=yes: binfmt_misc not checked" : "");
	return 0;
}

/* 1 when /proc/sys/fs/binfmt_misc/qemu-<arch> is registered and enabled. */
static bool arch_binfmt_registered(const char *docker_arch)
{
	char *path = xasprintf(BINFMT_DIR "/qemu-%s", arch_qemu_name(docker_arch));
	struct buf b = BUF_INIT;
	struct err e;
	bool on = fs_read(path, 4096, &b, &e) == 0 && !strncmp(b.data, "enabled", 7);
	buf_free(&b);
	free(path);
	return on;
}

/* The first line of an engine command's output, caller frees; NULL when it
 * failed (e set). */
static char *engine_line(char *const *argv, struct err *e)
{
	struct buf out = BUF_INIT;
	int rc = engine_call(argv, &out, e);
	char *line = NULL;
	if (rc == 0 && out.len)
		line = xstrndup(out.data, strcspn(out.data, "\r\n"));
	else if (rc > 0)
		err_set(e, ERR_WORK, "%s %s: %.300s", argv[0], argv[1],
			out.len ? out.data : "no output");
	buf_free(&out);
	return line;
}

char *arch_daemon(const struct engine *en, struct err *e)
{
	char *argv[] = { (char *)en->name, (char *)en->arch[0], (char *)"--format",
			 (char *)en->arch[1], NULL };
	char *a = engine_line(argv, e);
	if (!a)
		return NULL;
	char name[64]; /* podman says linux/amd64, docker x86_64 */
	char *d = xstrdup(arch_of_platform(a, name, sizeof name));
	free(a);
	return d;
}

/* The architecture of an image the daemon has; NULL when it has not. */
static char *image_arch(const struct engine *en, const char *ref)
{
	char *argv[] = { (char *)en->name, (char *)"image", (char *)"inspect", (char *)"--format",
			 (char *)"{{.Architecture}}", (char *)ref, NULL };
	struct err e;
	return engine_line(argv, &e);
}

int arch_plan_task(const struct engine *en, const struct task *t, const char *base, enum qemu_mode mode,
		   struct arch_plan *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	char *daemon = arch_daemon(en, e);
	if (!daemon)
		return -1;
	char buf[64];
	char *image = NULL;
	if (!base && t->base_platform)
		image = xstrdup(arch_of_platform(t->base_platform, buf, sizeof buf));
	else if (base || t->base_image)
		image = image_arch(en, base ? base : t->base_image);
	if (image) {
		char *n = xstrdup(arch_docker_name(image));
		free(image);
		image = n;
	}
	struct arch_facts f = { daemon, image, image && arch_binfmt_registered(image) };
	int r = arch_decide(&f, mode, p, e);
	free(image);
	free(daemon);
	return r;
}

int arch_plan_build(const struct engine *en, const struct task *t, const char *base, struct arch_plan *p,
		    struct err *e)
{
	memset(p, 0, sizeof *p);
	const char *given = getenv("DOCKER_DEFAULT_PLATFORM");
	if (given && *given) {
		p->platform = xstrdup(given);
		p->why = xasprintf("DOCKER_DEFAULT_PLATFORM=%s", given);
		return 0;
	}
	enum qemu_mode mode;
	if (qemu_mode_parse(getenv("QEMU"), &mode, e) < 0)
		return -1;
	return arch_plan_task(en, t, base, mode, p, e);
}
