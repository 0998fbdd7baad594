#include "base/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SKILLC_STATIC_INIT /* skillc-init links statically, without cJSON (Makefile) */
#include "base/json.h"
#endif

/* The one piece of process-wide state: the name set by main. */
static const char *prog = "skillc";

/* At exit, standard output is flushed and closed, and a failure is an
 * error (git's check at the end of main): `tool >/dev/full` must not say
 * it succeeded. The exit status given to exit() is kept when not 0. */
static void close_stdout(int status, void *arg)
{
	(void)arg;
	bool bad = ferror(stdout) != 0; /* an earlier write failed: errno is gone */
	int why = 0;
	if (fflush(stdout) != 0)
		why = errno, bad = true;
	if (fclose(stdout) != 0 && !why)
		why = errno, bad = true;
	if (!bad)
		return;
	if (why == EPIPE) /* a reader that went away is no news */
		_exit(status ? status : 141);
	if (why)
		fprintf(stderr, "%s: cannot write standard output: %s\n", prog, strerror(why));
	else
		fprintf(stderr, "%s: cannot write standard output (a write to it failed)\n", prog);
	_exit(status ? status : 1);
}

void log_init(const char *progname)
{
	const char *slash = strrchr(progname, '/');
	prog = slash ? slash + 1 : progname;
#ifndef SKILLC_STATIC_INIT
	json_use_project_allocator();
#endif
	on_exit(close_stdout, NULL);
}

const char *log_prog(void)
{
	return prog;
}

void log_speak_as(const char *name)
{
	prog = name;
}

static unsigned messages;

unsigned log_messages(void)
{
	return messages;
}

static void vmsg(const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;
	messages++;
	buf_printf(&b, "%s: ", prog);
	buf_vprintf(&b, fmt, ap);
	buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, stderr); /* one write: lines from parallel jobs stay whole */
	buf_free(&b);
}

/* progressf with a va_list. */
static void vprogressf(const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;
	buf_vprintf(&b, fmt, ap);
	buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, stdout);
	fflush(stdout);
	buf_free(&b);
}

void progressf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprogressf(fmt, ap);
	va_end(ap);
}

void warnf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(status);
}

void die_err(const struct err *e)
{
	die(e->code ? e->code : 1, "%s", e->msg);
}

void opts_parse_or_die(const struct opt *rows, int argc, char **argv, int start,
                       struct opts_rest *rest)
{
	struct err e = { 0 };
	if (opts_parse(rows, argc, argv, start, rest, &e) < 0)
		die(2, "%s", e.msg);
}

void opts_args_or_die(const struct opt *rows, int argc, char **argv, int start,
                      struct strlist *args)
{
	struct err e = { 0 };
	if (opts_args(rows, argc, argv, start, args, &e) < 0)
		die(2, "%s", e.msg);
}

/* 'h' when argv asks for --help (or -h), 'v' for --version, else 0. */
static int std_asked(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 'h';
		if (!strcmp(argv[i], "--version"))
			return 'v';
	}
	return 0;
}

static noreturn void print_version(const char *version)
{
	printf("%s %s\n", prog, version);
	exit(0);
}

void opts_std(int argc, char **argv, const char *usage, const struct opt *rows,
              const char *version)
{
	int asked = std_asked(argc, argv);
	if (asked == 'v')
		print_version(version);
	if (asked == 'h') {
		opts_help(stdout, usage, rows);
		exit(0);
	}
}

void opts_cmds_std(int argc, char **argv, const char *usage, const struct opt_cmd *cmds,
                   const char *version)
{
	const struct opt_cmd *c = argc > 1 ? opts_cmd_find(cmds, argv[1]) : NULL;
	int asked = std_asked(argc, argv);
	if (asked == 'v')
		print_version(version);
	if (asked == 'h') {
		if (c)
			opts_help(stdout, usage, c->rows);
		else
			opts_help_cmds(stdout, usage, cmds);
		exit(0);
	}
}

