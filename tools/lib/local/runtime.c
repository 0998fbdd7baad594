#include "local/runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/proc.h"
#include "local/container.h"
#include "local/task.h"

/* What the runtime image needs from Debian: the engine, make, our libraries. */
#define RUNTIME_PACKAGES "docker.io make ca-certificates procps libcjson1 libcurl4 libxxhash0 libpcre2-8-0 libyaml-0-2"

/* ---- the image ---------------------------------------------------------- */

/* skillc.mk and defaults.mk: beside the tools' build tree, or installed. */
static char *mk_dir(const char *bin)
{
	static const char *const rel[] = { "../mk", "../share/skillc" };
	for (size_t i = 0; i < ARRAY_LEN(rel); i++) {
		char *d = path_join(bin, rel[i]), *mk = path_join(d, "skillc.mk");
		bool ok = fs_exists(mk);
		free(mk);
		if (ok)
			return d;
		free(d);
	}
	return NULL;
}

/* Every skillc-* program of bin into dst. */
static int copy_tools(const char *bin, const char *dst, struct err *e)
{
	DIR *d = opendir(bin);
	if (!d)
		return err_set(e, ERR_WORK, "cannot list '%s':", bin);
	int r = 0;
	for (struct dirent *de; r == 0 && (de = readdir(d));) {
		if (strncmp(de->d_name, "skillc-", 7))
			continue;
		char *s = path_join(bin, de->d_name), *t = path_join(dst, de->d_name);
		struct stat st;
		if (stat(s, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			r = image_context_copy(s, t, e);
		free(s);
		free(t);
	}
	closedir(d);
	return r;
}

static int write_file(const char *path, const char *text, struct err *e)
{
	if (fs_mkdirs_parent(path, e) < 0)
		return -1;
	return fs_write_atomic(path, text, strlen(text), 0644, e);
}

/* The runtime's build context: root/ (skillc under RUNTIME_PREFIX) and the Dockerfile. */
static int fill_runtime(const char *ctx, void *arg, struct err *e)
{
	const char *base = arg;
	char *bin = tool_dir(), *mk = bin ? mk_dir(bin) : NULL, *rules = rules_dir();
	char *root = path_join(ctx, "root" RUNTIME_PREFIX);
	char *dbin = path_join(root, "bin"), *data = path_join(root, "share/skillc");
	int r = 0;
	if (!bin || !mk || !rules)
		r = err_set(e, ERR_WORK, "cannot find skillc's own files (tools, skillc.mk, rules) beside '%s'",
			    bin ? bin : "the running tool");
	if (r == 0)
		r = copy_tools(bin, dbin, e);
	static const char *const mks[] = { "skillc.mk", "defaults.mk" };
	for (size_t i = 0; r == 0 && i < ARRAY_LEN(mks); i++) {
		char *s = path_join(mk, mks[i]), *t = path_join(data, mks[i]);
		r = image_context_copy(s, t, e);
		free(s);
		free(t);
	}
	char *drules = path_join(data, "rules"), *paths = path_join(data, "paths.mk"), *df = path_join(ctx, "Dockerfile");
	if (r == 0)
		r = image_context_copy(rules, drules, e);
	if (r == 0)
		r = write_file(paths, "SKILLC_BIN := " RUNTIME_PREFIX "/bin\nSKILLC_DATA := " RUNTIME_PREFIX "/share/skillc\n", e);
	char *text = xasprintf("FROM %s\n"
			       "RUN dpkg -s " RUNTIME_PACKAGES " >/dev/null 2>&1 || (apt-get update && "
			       "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends " RUNTIME_PACKAGES
			       " && rm -rf /var/lib/apt/lists/*)\n"
			       "COPY root/ /\n"
			       "ENTRYPOINT [\"" RUNTIME_PREFIX "/bin/skillc-runtime\", \"inner\"]\n", base);
	if (r == 0)
		r = write_file(df, text, e);
	free(text);
	free(df);
	free(paths);
	free(drules);
	free(data);
	free(dbin);
	free(root);
	free(rules);
	free(mk);
	free(bin);
	return r;
}

int runtime_build(const char *base, const struct image_opts *o, struct image_ref *out, struct err *e)
{
	char *what = xasprintf("the runtime image (FROM %s)", base);
	int r = image_from_context(RUNTIME_REPO, fill_runtime, (void *)base, o, 3600, what, out, e);
	free(what);
	if (r < 0)
		return -1;
	char *argv[] = { (char *)"docker", (char *)"tag", out->id, (char *)RUNTIME_REPO ":latest", NULL };
	struct buf log = BUF_INIT;
	r = engine_call(argv, &log, e);
	if (r > 0)
		err_set(e, ERR_WORK, "docker tag %s " RUNTIME_REPO ":latest: %.300s", out->tag,
			log.data);
	buf_free(&log);
	return r == 0 ? 0 : -1;
}

/* ---- the launcher ------------------------------------------------------- */

static char *daemon_json(struct err *e);

/* The first line of a docker command's output; NULL when it failed. */
static char *docker_answer(char *const *argv, int *rc, struct err *e)
{
	struct buf out = BUF_INIT;
	*rc = engine_call(argv, &out, e);
	char *line = out.len ? xstrndup(out.data, strcspn(out.data, "\r\n")) : xstrdup("no output");
	if (*rc != 0 && out.len) {
		/* the last line says why */
		while (out.len && out.data[out.len - 1] == '\n')
			out.data[--out.len] = '\0';
		char *nl = strrchr(out.data, '\n');
		free(line);
		line = xstrdup(nl ? nl + 1 : out.data);
	}
	buf_free(&out);
	return line;
}

int runtime_preflight(struct buf *said, struct err *e)
{
	char *version = NULL;
	if (engine_ping(&engine_docker, &version, e) < 0)
		return -1;
	char *argv[] = { (char *)"docker", (char *)"info", (char *)"--format", (char *)"{{.Driver}}", NULL };
	int rc;
	char *driver = docker_answer(argv, &rc, e);
	char *sleep_argv[] = { (char *)"sleep", (char *)"0", NULL };
	struct buf out = BUF_INIT;
	struct proc_result pr;
	int r = 0;
	if (proc_capture(sleep_argv, 30, &out, &pr, e) < 0 || pr.exit_code)
		r = err_set(e, ERR_WORK, "a plain host program (sleep) does not run: %.200s: a binfmt_misc handler is "
			    "broken (see /proc/sys/fs/binfmt_misc)",
			    out.len ? out.data : "no output");
	else
		buf_printf(said, "Docker %s, storage driver %s, host programs run", version, rc == 0 ? driver : "unknown");
	buf_free(&out);
	free(driver);
	free(version);
	return r;
}

/* What Docker-in-Docker needs besides the privileges: the host's cgroups. */
static const char *const dind_common[] = { "--cgroupns", "host", "--volume", "/sys/fs/cgroup:/sys/fs/cgroup:rw", NULL };
/* The privileges, narrowest first (containers-and-clusters.md §4: where the
 * host's bounding set lacks CAP_SYS_RESOURCE, --privileged cannot start). */
static const char *const *const dind_flags[] = {
	(const char *const[]){ "--cap-add", "ALL", "--cap-drop", "SYS_RESOURCE", "--security-opt", "seccomp=unconfined",
			       "--security-opt", "apparmor=unconfined", "--security-opt", "systempaths=unconfined", NULL },
	(const char *const[]){ "--privileged", NULL },
};

static void push_all(struct strlist *a, const char *const *v)
{
	for (; *v; v++)
		strlist_push(a, *v);
}

static char *joined(const char *const *v)
{
	struct buf b = BUF_INIT;
	for (; *v; v++)
		buf_printf(&b, "%s%s", b.len ? " " : "", *v);
	return buf_detach(&b);
}

/* docker run -d with one set of privileges: the runtime container's id
 * (caller frees), or NULL with *rc (>0: docker said no, in *why). */
static char *start_with(const struct runtime_run *r, const char *const *flags, int *rc, char **why, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	push_all(&a, (const char *const[]){ "docker", "run", "--detach", "--network", "host", "--label",
					    LABEL_KIND "=runtime", NULL });
	char *name = xasprintf("skillc-runtime-%ld-%ld", (long)getpid(), (long)time(NULL));
	strlist_push(&a, "--name");
	strlist_push(&a, name);
	push_all(&a, flags);
	push_all(&a, dind_common);
	strlist_push(&a, r->data ? "--volume" : "--tmpfs");
	strlist_push_owned(&a, r->data ? xasprintf("%s:/var/lib/docker", r->data) : xstrdup("/var/lib/docker:exec,dev,suid"));
	strlist_push(&a, "--volume");
	strlist_push_owned(&a, xasprintf("%s:%s", r->workdir, r->workdir));
	const char *envf = getenv("ENV_FILE");
	char *env = envf && *envf ? path_normalize_abs(r->workdir, envf) : path_join(r->workdir, ".env");
	if (fs_exists(env)) {
		strlist_push(&a, "--volume");
		strlist_push_owned(&a, xasprintf("%s:%s:ro", env, env));
	}
	free(env);
	if (getenv("REGISTRY_MIRROR")) {
		strlist_push(&a, "--env");
		strlist_push(&a, "REGISTRY_MIRROR");
	}
	strlist_push(&a, r->image);
	char *line = docker_answer(a.v, rc, e);
	strlist_free(&a);
	if (*rc == 0) {
		free(name);
		return line;
	}
	/* a container that could not start stays created: remove it */
	struct err ce;
	if (*rc > 0)
		container_remove(&engine_docker, name, &ce);
	free(name);
	*why = line;
	return NULL;
}

/* The runtime container, started with the first set of privileges that
 * works here; says which. *id its id (caller frees). */
static int start(const struct runtime_run *r, char **id, struct err *e)
{
	struct buf tried = BUF_INIT;
	for (size_t i = 0; i < ARRAY_LEN(dind_flags); i++) {
		int rc;
		char *why = NULL, *flags = joined(dind_flags[i]);
		*id = start_with(r, dind_flags[i], &rc, &why, e);
		if (*id)
			fprintf(stderr, "skillc-runtime: %susing %s\n", tried.data, flags);
		else if (rc > 0)
			buf_printf(&tried, "%s fails here (%s); ", flags, why);
		free(flags);
		free(why);
		if (*id || rc < 0) {
			buf_free(&tried);
			return *id ? 0 : -1;
		}
	}
	err_set(e, ERR_WORK, "no container of %s starts with the privileges Docker-in-Docker needs: %s", r->image,
		tried.data);
	buf_free(&tried);
	return -1;
}

/* A docker query that a stop signal cuts short (proc_capture drops them):
 * its exit code, *stopped set when we were told to stop. Output in out. */
static int ask(char *const *argv, double timeout, struct buf *out, bool *stopped, struct err *e)
{
	int fd = memfd_create("skillc-runtime", MFD_CLOEXEC);
	if (fd < 0)
		return err_set(e, ERR_WORK, "memfd_create:");
	struct proc_spec ps = { .argv = argv, .timeout = timeout, .grace = 2, .stdin_fd = -1, .tee = { fd, -1 } };
	struct proc_result pr;
	int r = proc_run(&ps, &pr, e);
	if (r == 0) {
		char chunk[4096];
		ssize_t n;
		lseek(fd, 0, SEEK_SET);
		while ((n = read(fd, chunk, sizeof chunk)) > 0)
			buf_add(out, chunk, (size_t)n);
		*stopped = pr.interrupted != 0;
		r = pr.timed_out ? 124 : pr.exit_code;
	}
	close(fd);
	return r;
}

/* Polls the inner daemon until it answers, or until the deadline. */
static int wait_inner(const char *id, double seconds, struct err *e)
{
	char *argv[] = { (char *)"docker", (char *)"exec", (char *)id, (char *)"docker", (char *)"version",
			 (char *)"--format", (char *)"{{.Server.Version}}", NULL };
	double end = now_mono() + seconds;
	for (;;) {
		struct buf out = BUF_INIT;
		bool stopped = false;
		int rc = ask(argv, 60, &out, &stopped, e);
		const char *line = buf_last_line(&out);
		int r = 1;
		if (stopped) {
			r = err_set(e, ERR_WORK, "stopped before the runtime was up");
		} else if (rc == 0) {
			fprintf(stderr, "skillc-runtime: the inner daemon answers (Docker %s)\n", line);
			r = 0;
		} else if (rc < 0) {
			r = -1;
		} else if (strstr(line, "is not running")) {
			r = err_set(e, ERR_WORK, "the runtime container stopped before its daemon answered (docker logs %.12s)",
				    id);
		} else if (now_mono() > end) {
			r = err_set(e, ERR_WORK, "the inner Docker daemon did not answer within %gs: %s (its log: docker exec "
				    "%.12s cat /var/log/dockerd.log)", seconds, line, id);
		}
		buf_free(&out);
		if (r <= 0)
			return r;
		nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
	}
}

/* docker save ref | docker exec -i id docker load, cut short by a stop. */
static int load_one(const char *id, const char *ref, struct err *e)
{
	char *argv[] = { (char *)"sh", (char *)"-c",
			 (char *)"docker save \"$1\" | docker exec -i \"$2\" docker load --quiet", (char *)"sh",
			 (char *)ref, (char *)id, NULL };
	struct buf out = BUF_INIT;
	bool stopped = false;
	int rc = ask(argv, 3600, &out, &stopped, e);
	if (stopped)
		rc = err_set(e, ERR_WORK, "stopped while loading %s", ref);
	else if (rc > 0)
		rc = err_set(e, ERR_WORK, "docker save %s | docker load into the runtime: %s", ref, buf_last_line(&out));
	buf_free(&out);
	return rc == 0 ? 0 : -1;
}

static int load_images(const char *id, const struct strlist *refs, struct err *e)
{
	for (size_t i = 0; i < refs->n; i++) {
		char img[80];
		int found = engine_image_id(&engine_docker, refs->v[i], img, e);
		if (found < 0)
			return -1;
		if (!found) {
			fprintf(stderr, "skillc-runtime: %s is not in the host's daemon: not loaded\n", refs->v[i]);
			continue;
		}
		if (load_one(id, refs->v[i], e) < 0)
			return -1;
		fprintf(stderr, "skillc-runtime: loaded %s\n", refs->v[i]);
	}
	return 0;
}

/* docker exec -w workdir -e ... id argv (make gets -f RUNTIME_MK). */
static void exec_args(const struct runtime_run *r, const char *id, struct strlist *a)
{
	push_all(a, (const char *const[]){ "docker", "exec", "--workdir", NULL });
	strlist_push(a, r->workdir);
	for (size_t i = 0; i < r->env.n; i++) {
		strlist_push(a, "--env");
		strlist_push(a, r->env.v[i]);
	}
	strlist_push(a, id);
	bool has_f = false;
	for (size_t i = 1; r->argv[i]; i++)
		has_f |= !strcmp(r->argv[i], "-f") || !strncmp(r->argv[i], "--file", 6) || !strncmp(r->argv[i], "--makefile", 10);
	strlist_push(a, r->argv[0]);
	if (!strcmp(r->argv[0], "make") && !has_f) {
		strlist_push(a, "-f");
		strlist_push(a, RUNTIME_MK);
	}
	for (size_t i = 1; r->argv[i]; i++)
		strlist_push(a, r->argv[i]);
}

/* Everything after the container started: the daemon, the images, the command. */
static int inside(const struct runtime_run *r, const char *id, struct watchdog *w, int *exit_code, struct err *e)
{
	if (wait_inner(id, r->start_timeout, e) < 0 || load_images(id, &r->load, e) < 0)
		return -1;
	/* the start is confirmed: from here a watchdog only guards our death (the
	 * new one is up before the old one goes: a kill between finds one) */
	struct watchdog guard = { .fd = -1 };
	if (watchdog_start(&guard, r->self, &engine_docker, id, r->timeout, e) < 0)
		return -1;
	watchdog_done(w);
	*w = guard;
	struct strlist a = STRLIST_INIT;
	exec_args(r, id, &a);
	fprintf(stderr, "skillc-runtime: running %s in %.12s\n", r->argv[0], id);
	struct proc_spec ps = { .argv = a.v, .timeout = r->timeout, .grace = 10, .stdin_fd = -1, .tee = { -1, -1 } };
	struct proc_result pr;
	int rc = proc_run(&ps, &pr, e);
	strlist_free(&a);
	if (rc == 0)
		*exit_code = pr.interrupted ? 128 + pr.interrupted : pr.timed_out ? 124 : pr.exit_code;
	return rc;
}

int runtime_run(const struct runtime_run *r, int *exit_code, struct err *e)
{
	*exit_code = 1;
	char *mirrors = daemon_json(e); /* REGISTRY_MIRROR checked here, before anything starts */
	if (!mirrors)
		return -1;
	free(mirrors);
	char id_found[80];
	int found = engine_image_id(&engine_docker, r->image, id_found, e);
	if (found <= 0)
		return found < 0 ? -1 : err_set(e, ERR_WORK, "the runtime image '%s' does not exist (make runtime-image "
						 "builds it)", r->image);
	char *id = NULL;
	if (start(r, &id, e) < 0)
		return -1;
	fprintf(stderr, "skillc-runtime: started %.12s from %s\n", id, r->image);
	struct watchdog w = { .fd = -1 };
	int rc = watchdog_start(&w, r->self, &engine_docker, id, r->start_timeout, e);
	if (rc == 0)
		rc = inside(r, id, &w, exit_code, e);
	proc_defer_stops(); /* the removal below must happen whole */
	watchdog_done(&w);
	struct err ce;
	container_remove(&engine_docker, id, &ce);
	free(id);
	return rc;
}

/* ---- inside the container ---------------------------------------------- */

static volatile sig_atomic_t inner_dockerd;

static void forward(int sig)
{
	if (inner_dockerd > 0)
		kill((pid_t)inner_dockerd, sig);
}

/* daemon.json: vfs, no bridge or iptables, cgroupfs, the mirrors. */
static char *daemon_json(struct err *e)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"storage-driver\": \"vfs\", \"iptables\": false, \"bridge\": \"none\", "
		     "\"exec-opts\": [\"native.cgroupdriver=cgroupfs\"], \"registry-mirrors\": [");
	const char *m = getenv("REGISTRY_MIRROR");
	char *copy = xstrdup(m ? m : "");
	int n = 0, r = 0;
	for (char *save = NULL, *u = strtok_r(copy, ", ", &save); u && r == 0; u = strtok_r(NULL, ", ", &save)) {
		if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8))
			r = err_set(e, ERR_INPUT, "bad REGISTRY_MIRROR '%s': each mirror is an http:// or https:// URL", u);
		else if (strchr(u, '"') || strchr(u, '\\'))
			r = err_set(e, ERR_INPUT, "bad REGISTRY_MIRROR '%s'", u);
		else
			buf_printf(&b, "%s\"%s\"", n++ ? ", " : "", u);
	}
	free(copy);
	buf_adds(&b, "]}\n");
	if (r < 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}

int runtime_inner(void)
{
	struct err e = { 0 };
	char *json = daemon_json(&e);
	if (!json || fs_mkdirs("/etc/docker", &e) < 0 ||
	    fs_write_atomic("/etc/docker/daemon.json", json, strlen(json), 0644, &e) < 0) {
		fprintf(stderr, "skillc-runtime inner: %s\n", e.msg);
		free(json);
		return 2;
	}
	free(json);
	int log = open("/var/log/dockerd.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	char *argv[] = { (char *)"dockerd", (char *)"--config-file", (char *)"/etc/docker/daemon.json", NULL };
	struct proc_child c = { .argv = argv, .fd = { -1, log, log } };
	bool started;
	pid_t pid = proc_spawn(&c, &started, &e);
	if (pid < 0) {
		fprintf(stderr, "skillc-runtime inner: %s\n", e.msg);
		return 1;
	}
	inner_dockerd = pid;
	struct sigaction sa = { .sa_handler = forward };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (p < 0 && errno != EINTR)
			return 1;
	}
}

void runtime_task_bases(const char *tasks_dir, struct strlist *out)
{
	DIR *d = opendir(tasks_dir);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char *ctx = xasprintf("%s/%s/environment", tasks_dir, de->d_name), *df = path_join(ctx, "Dockerfile");
		struct buf text = BUF_INIT;
		struct err e;
		struct task t = { 0 };
		if (fs_exists(df) && fs_read(df, 1 << 20, &text, &e) == 0 &&
		    task_parse_dockerfile(&t, text.data, ctx, df, &e) == 0 && t.base_image)
			strlist_push_new(out, t.base_image);
		task_free(&t);
		buf_free(&text);
		free(df);
		free(ctx);
	}
	closedir(d);
}
