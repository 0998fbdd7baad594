#include "local/container.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/envlist.h"
#include "base/fs.h"
#include "base/proc.h"

extern char **environ;

/* Runs the engine's CLI with args; its output in out (may be NULL). Returns
 * the exit code, -1 with e set when it cannot be started. */
static int call(const struct engine *en, struct strlist *args, struct buf *out, struct err *e)
{
	struct buf ignore = BUF_INIT;
	int r = engine_call(args->v, out ? out : &ignore, e);
	if (r == 127)
		r = err_set(e, ERR_WORK, "cannot run %s: %s (install it: apt-get install -y %s)", en->name,
			    buf_last_line(out ? out : &ignore), en->package);
	buf_free(&ignore);
	return r;
}

static void args_init(const struct engine *en, struct strlist *a, const char *first, const char *second)
{
	strlist_push(a, en->name);
	strlist_push(a, first);
	if (second)
		strlist_push(a, second);
}

void container_spec_free(struct container_spec *s)
{
	strlist_free(&s->binds);
	strlist_free(&s->labels);
	strlist_free(&s->hosts);
	strlist_free(&s->env);
}

static void push_pairs(struct strlist *a, const char *flag, const struct strlist *values)
{
	for (size_t i = 0; i < values->n; i++) {
		strlist_push(a, flag);
		strlist_push(a, values->v[i]);
	}
}

/* --ulimit NAME=SOFT:HARD, unlimited as -1. */
static void push_limit(struct strlist *a, const char *name, const struct rlimit *l)
{
	long long soft = l->rlim_cur == RLIM_INFINITY ? -1 : (long long)l->rlim_cur;
	long long hard = l->rlim_max == RLIM_INFINITY ? -1 : (long long)l->rlim_max;
	strlist_push(a, "--ulimit");
	strlist_push_owned(a, xasprintf("%s=%lld:%lld", name, soft, hard));
}

/* The nofile and nproc limits a container gets where the engine's own
 * would not apply: ours (nproc no higher than pid_max, which root podman
 * sets as its own hard limit). */
void container_limits(const struct engine *en, struct strlist *a)
{
	struct rlimit nofile, nproc;
	if (!en->own_limits || getrlimit(RLIMIT_NOFILE, &nofile) < 0 || getrlimit(RLIMIT_NPROC, &nproc) < 0)
		return;
	struct buf b = BUF_INIT;
	struct err e;
	if (fs_read("/proc/sys/kernel/pid_max", 64, &b, &e) == 0 && b.len) {
		rlim_t pid_max = (rlim_t)strtoull(b.data, NULL, 10);
		if (pid_max > 0 && nproc.rlim_max > pid_max)
			nproc.rlim_max = pid_max;
	}
	buf_free(&b);
	if (nproc.rlim_cur > nproc.rlim_max)
		nproc.rlim_cur = nproc.rlim_max;
	push_limit(a, "nofile", &nofile);
	push_limit(a, "nproc", &nproc);
}

static void create_args(const struct engine *en, const struct container_spec *s, struct strlist *a)
{
	args_init(en, a, "create", NULL);
	strlist_push(a, "--name");
	strlist_push(a, s->name);
	strlist_push(a, "--label");
	strlist_push(a, LABEL_KIND "=trial");
	push_pairs(a, "--label", &s->labels);
	if (!s->network) {
		strlist_push(a, "--network");
		strlist_push(a, "none");
	}
	if (s->cpus > 0) {
		strlist_push(a, "--cpus");
		strlist_push_owned(a, xasprintf("%g", s->cpus));
	}
	if (s->memory_mb > 0) {
		strlist_push(a, "--memory");
		strlist_push_owned(a, xasprintf("%ldm", s->memory_mb));
	}
	container_limits(en, a);
	if (en->makes_workdir) { /* else it is made once the container runs */
		strlist_push(a, "--workdir");
		strlist_push(a, s->workdir);
	}
	push_pairs(a, "--add-host", &s->hosts);
	push_pairs(a, "--env", &s->env);
	strlist_push(a, "--volume");
	strlist_push_owned(a, xasprintf("%s:%s:ro", s->init, CONTAINER_INIT));
	push_pairs(a, "--volume", &s->binds);
	strlist_push(a, "--entrypoint");
	strlist_push(a, CONTAINER_INIT);
	strlist_push(a, s->image);
	strlist_push(a, "hold");
}

/* The workdir, made in the running container by skillc-init. */
static int make_workdir(const struct engine *en, const char *id, const char *dir, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(en, &a, "exec", id);
	strlist_push(&a, CONTAINER_INIT);
	strlist_push(&a, "mkdir");
	strlist_push(&a, dir);
	struct buf out = BUF_INIT;
	int r = call(en, &a, &out, e);
	if (r > 0)
		err_set(e, ERR_WORK, "%s exec: cannot make the workdir %s: %s", en->name, dir, buf_last_line(&out));
	buf_free(&out);
	strlist_free(&a);
	return r;
}

int container_start(const struct engine *en, const struct container_spec *s, char **id, struct err *e)
{
	*id = NULL;
	struct strlist a = STRLIST_INIT;
	create_args(en, s, &a);
	struct buf out = BUF_INIT;
	int r = call(en, &a, &out, e);
	if (r > 0)
		err_set(e, ERR_WORK, "%s create from %s: %s", en->name, s->image, buf_last_line(&out));
	if (r == 0)
		*id = xstrdup(buf_last_line(&out));
	strlist_free(&a);
	buf_reset(&out);
	if (r == 0) {
		args_init(en, &a, "start", *id);
		r = call(en, &a, &out, e);
		if (r > 0)
			err_set(e, ERR_WORK, "%s start %s: %s", en->name, s->name, buf_last_line(&out));
		strlist_free(&a);
	}
	if (r == 0 && !en->makes_workdir)
		r = make_workdir(en, *id, s->workdir, e);
	buf_free(&out);
	return r == 0 ? 0 : -1;
}

void container_exec_command(const struct engine *en, const char *id, const struct container_exec *x, char *const *argv,
			    struct strlist *cmd, struct strlist *cli_env)
{
	args_init(en, cmd, "exec", NULL);
	if (x->interactive)
		strlist_push(cmd, "--interactive");
	strlist_push(cmd, "--workdir");
	strlist_push(cmd, x->cwd);
	for (size_t i = 0; environ[i]; i++)
		strlist_push(cli_env, environ[i]);
	for (size_t i = 0; x->env && i < x->env->n; i++) {
		const char *kv = x->env->v[i];
		char *name = xstrndup(kv, strcspn(kv, "="));
		strlist_push(cmd, "--env");
		if (envlist_secret_name(name)) {
			strlist_push(cmd, name); /* its value travels in the CLI's environment */
			envlist_set(cli_env, name, kv + strlen(name) + 1);
		} else {
			strlist_push(cmd, kv);
		}
		free(name);
	}
	strlist_push(cmd, id);
	for (size_t i = 0; argv[i]; i++)
		strlist_push(cmd, argv[i]);
}

int container_copy_in(const struct engine *en, const char *id, const char *src, const char *dest, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(en, &a, "cp", NULL);
	strlist_push_owned(&a, xasprintf("%s/.", src)); /* the contents; dest is created */
	strlist_push_owned(&a, xasprintf("%s:%s", id, dest));
	struct buf out = BUF_INIT;
	int r = call(en, &a, &out, e);
	if (r > 0)
		err_set(e, ERR_WORK, "%s cp %s into the container: %s", en->name, src, buf_last_line(&out));
	buf_free(&out);
	strlist_free(&a);
	return r == 0 ? 0 : -1;
}

int container_stop_processes(const struct engine *en, const char *id, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(en, &a, "kill", "--signal");
	strlist_push(&a, "USR1");
	strlist_push(&a, id);
	struct buf out = BUF_INIT;
	int r = call(en, &a, &out, e);
	if (r > 0)
		err_set(e, ERR_WORK, "%s kill %s: %s", en->name, id, buf_last_line(&out));
	buf_free(&out);
	strlist_free(&a);
	return r == 0 ? 0 : -1;
}

int container_remove(const struct engine *en, const char *id, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(en, &a, "rm", "--force");
	if (en->rm_waits) {
		strlist_push(&a, "--time");
		strlist_push(&a, "0");
	}
	strlist_push(&a, id);
	struct buf out = BUF_INIT;
	int r = call(en, &a, &out, e);
	if (r > 0 && !strstr(out.data, en->absent_box))
		err_set(e, ERR_WORK, "%s rm %s: %s", en->name, id, buf_last_line(&out));
	else if (r > 0)
		r = 0;
	buf_free(&out);
	strlist_free(&a);
	return r == 0 ? 0 : -1;
}

/* ---- the watchdog ---- */

/* In the grandchild: its own session, fd 3 the pipe, stdio /dev/null, then exec. */
static noreturn void watchdog_exec(int rfd, const char *self, const struct engine *en, const char *id,
				   double deadline)
{
	setsid();
	if (fork() > 0)
		_exit(0); /* the grandchild goes on, a child of init: no zombie for the runner */
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		dup2(null, fd);
	if (rfd != 3) {
		dup2(rfd, 3);
		close(rfd);
	}
	char secs[32];
	snprintf(secs, sizeof secs, "%.0f", deadline);
	char *argv[] = { (char *)self, (char *)"watchdog", (char *)id, secs, (char *)en->name, NULL };
	execv(self, argv);
	_exit(127);
}

int watchdog_start(struct watchdog *w, const char *self, const struct engine *en, const char *id, double deadline,
		   struct err *e)
{
	w->fd = -1;
	w->pid = -1;
	int p[2];
	if (pipe(p) < 0)
		return err_set(e, ERR_WORK, "cannot create the watchdog's pipe:");
	fcntl(p[1], F_SETFD, FD_CLOEXEC); /* only we hold the write end: our death is its EOF */
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(e, ERR_WORK, "cannot start the watchdog:");
	}
	if (pid == 0) {
		close(p[1]);
		watchdog_exec(p[0], self, en, id, deadline);
	}
	close(p[0]);
	waitpid(pid, NULL, 0);
	w->fd = p[1];
	w->pid = pid;
	return 0;
}

void watchdog_done(struct watchdog *w)
{
	if (w->pid <= 0 || w->fd < 0)
		return;
	ssize_t n = write(w->fd, "done\n", 5);
	(void)n; /* a watchdog already gone has nothing left to do */
	close(w->fd);
	w->fd = -1;
}

int watchdog_main(int argc, char **argv)
{
	const struct engine *en = argc > 4 ? engine_named(argv[4]) : &engine_docker;
	if (argc < 4 || argc > 5 || !en)
		return 2;
	const char *id = argv[2];
	double deadline = strtod(argv[3], NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	double end = now_mono() + deadline;
	char buf[16];
	size_t got = 0;
	for (;;) {
		double left = end - now_mono();
		if (left <= 0)
			break; /* the deadline: the trial is over, whatever its runner thinks */
		struct pollfd pf = { 3, POLLIN, 0 };
		int r = poll(&pf, 1, left > 3600 ? 3600 * 1000 : (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue;
		ssize_t n = read(3, buf + got, sizeof buf - 1 - got);
		if (n > 0) {
			got += (size_t)n;
			buf[got] = '\0';
			if (strstr(buf, "done"))
				return 0;
			continue;
		}
		break; /* EOF without done: the runner died */
	}
	/* a loaded daemon may refuse once (a kill it did not see end, a removal
	 * in progress): ask again for a while before giving up */
	struct err e;
	for (int tries = 0; tries < 12; tries++) {
		if (container_remove(en, id, &e) == 0)
			return 0;
		nanosleep(&(struct timespec){ 5, 0 }, NULL);
	}
	return 1;
}
