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
#include <sys/wait.h>
#include <unistd.h>

#include "base/envlist.h"
#include "base/proc.h"

extern char **environ;

/* How long one docker CLI call may take (a create on vfs copies the image). */
#define DOCKER_CALL_TIMEOUT 300

int docker_call(char *const *argv, struct buf *out, struct err *e)
{
	struct proc_result pr;
	if (proc_capture(argv, DOCKER_CALL_TIMEOUT, out, &pr, e) < 0)
		return -1;
	return pr.timed_out ? 124 : pr.exit_code;
}

/* Runs docker with args; its output in out (may be NULL). Returns the
 * exit code, -1 with e set when docker cannot be started. */
static int docker(struct strlist *args, struct buf *out, struct err *e)
{
	struct buf ignore = BUF_INIT;
	int r = docker_call(args->v, out ? out : &ignore, e);
	if (r == 127)
		r = err_set(e, ERR_WORK, "cannot run docker: %s (install it: apt-get install -y docker.io)",
			    buf_last_line(out ? out : &ignore));
	buf_free(&ignore);
	return r;
}

static void args_init(struct strlist *a, const char *first, const char *second)
{
	strlist_push(a, "docker");
	strlist_push(a, first);
	if (second)
		strlist_push(a, second);
}

int docker_ping(char **version, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(&a, "version", "--format");
	strlist_push(&a, "{{.Server.Version}}");
	struct buf out = BUF_INIT;
	int r = docker(&a, &out, e);
	if (r > 0) {
		const char *host = getenv("DOCKER_HOST");
		r = err_set(e, ERR_WORK, "the Docker daemon at %s does not answer: %s (start it, or set DOCKER_HOST)",
			    host && *host ? host : "unix:///var/run/docker.sock", buf_last_line(&out));
	} else if (r == 0 && version) {
		*version = xstrdup(buf_last_line(&out));
	}
	buf_free(&out);
	strlist_free(&a);
	return r == 0 ? 0 : -1;
}

int docker_image_id(const char *ref, char id[80], struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(&a, "image", "inspect");
	strlist_push(&a, "--format");
	strlist_push(&a, "{{.Id}}");
	strlist_push(&a, ref);
	struct buf out = BUF_INIT;
	int r = docker(&a, &out, e);
	int found = -1;
	if (r == 0) {
		snprintf(id, 80, "%s", buf_last_line(&out));
		found = 1;
	} else if (r > 0 && out.data && strstr(out.data, "No such image")) {
		found = 0;
	} else if (r > 0) {
		err_set(e, ERR_WORK, "docker image inspect %s: %s", ref, buf_last_line(&out));
	}
	buf_free(&out);
	strlist_free(&a);
	return found;
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

static void create_args(const struct container_spec *s, struct strlist *a)
{
	args_init(a, "create", NULL);
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
	strlist_push(a, "--workdir");
	strlist_push(a, s->workdir);
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

int container_start(const struct container_spec *s, char **id, struct err *e)
{
	*id = NULL;
	struct strlist a = STRLIST_INIT;
	create_args(s, &a);
	struct buf out = BUF_INIT;
	int r = docker(&a, &out, e);
	if (r > 0)
		err_set(e, ERR_WORK, "docker create from %s: %s", s->image, buf_last_line(&out));
	if (r == 0)
		*id = xstrdup(buf_last_line(&out));
	strlist_free(&a);
	buf_reset(&out);
	if (r == 0) {
		args_init(&a, "start", *id);
		r = docker(&a, &out, e);
		if (r > 0)
			err_set(e, ERR_WORK, "docker start %s: %s", s->name, buf_last_line(&out));
		strlist_free(&a);
	}
	buf_free(&out);
	return r == 0 ? 0 : -1;
}

void container_exec_command(const char *id, const struct container_exec *x, char *const *argv, struct strlist *cmd,
			    struct strlist *cli_env)
{
	args_init(cmd, "exec", NULL);
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

int container_copy_in(const char *id, const char *src, const char *dest, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(&a, "cp", NULL);
	strlist_push_owned(&a, xasprintf("%s/.", src)); /* the contents; dest is created */
	strlist_push_owned(&a, xasprintf("%s:%s", id, dest));
	struct buf out = BUF_INIT;
	int r = docker(&a, &out, e);
	if (r > 0)
		err_set(e, ERR_WORK, "docker cp %s into the container: %s", src, buf_last_line(&out));
	buf_free(&out);
	strlist_free(&a);
	return r == 0 ? 0 : -1;
}

int container_stop_processes(const char *id, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(&a, "kill", "--signal");
	strlist_push(&a, "USR1");
	strlist_push(&a, id);
	struct buf out = BUF_INIT;
	int r = docker(&a, &out, e);
	if (r > 0)
		err_set(e, ERR_WORK, "docker kill %s: %s", id, buf_last_line(&out));
	buf_free(&out);
	strlist_free(&a);
	return r == 0 ? 0 : -1;
}

int container_remove(const char *id, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(&a, "rm", "--force");
	strlist_push(&a, id);
	struct buf out = BUF_INIT;
	int r = docker(&a, &out, e);
	if (r > 0 && !(out.data && strstr(out.data, "No such container")))
		err_set(e, ERR_WORK, "docker rm %s: %s", id, buf_last_line(&out));
	else if (r > 0)
		r = 0;
	buf_free(&out);
	strlist_free(&a);
	return r == 0 ? 0 : -1;
}

int container_remove_labelled(const char *label, const char *value, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	args_init(&a, "ps", "--all");
	strlist_push(&a, "--quiet");
	strlist_push(&a, "--filter");
	strlist_push_owned(&a, xasprintf("label=%s=%s", label, value));
	struct buf out = BUF_INIT;
	int r = docker(&a, &out, e);
	strlist_free(&a);
	int n = 0;
	if (r > 0)
		err_set(e, ERR_WORK, "docker ps: %s", buf_last_line(&out));
	for (char *save = NULL, *id = r == 0 && out.data ? strtok_r(out.data, "\n", &save) : NULL; id && r == 0;
	     id = strtok_r(NULL, "\n", &save)) {
		r = container_remove(id, e) < 0 ? 1 : 0;
		n++;
	}
	buf_free(&out);
	return r == 0 ? n : -1;
}

/* ---- the watchdog ---- */

/* In the grandchild: its own session, fd 3 the pipe, stdio /dev/null, then exec. */
static noreturn void watchdog_exec(int rfd, const char *self, const char *id, double deadline)
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
	char *argv[] = { (char *)self, (char *)"watchdog", (char *)id, secs, NULL };
	execv(self, argv);
	_exit(127);
}

int watchdog_start(struct watchdog *w, const char *self, const char *id, double deadline, struct err *e)
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
		watchdog_exec(p[0], self, id, deadline);
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

int watchdog_main(const char *id, double deadline)
{
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
		if (container_remove(id, &e) == 0)
			return 0;
		nanosleep(&(struct timespec){ 5, 0 }, NULL);
	}
	return 1;
}
