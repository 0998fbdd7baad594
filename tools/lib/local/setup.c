#include "local/setup.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/envlist.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/pyjson.h"

/* Host folders every sandbox shows: a program there needs no bind. */
static const char *const system_prefixes[] = { "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/" };

void local_setup_preflight(struct local_trial *t)
{
	struct buf missing = BUF_INIT;
	for (size_t i = 0; i < t->task.requires.n; i++) {
		char *p = fs_find_program(t->task.requires.v[i], local_sandbox_path);
		if (!p)
			buf_printf(&missing, "%s%s", missing.len ? ", " : "", t->task.requires.v[i]);
		free(p);
	}
	if (missing.len) {
		char *msg = xasprintf("task needs programs this host lacks: %s (install them, "
				      "e.g. apt-get install -y <package>; the task lists them in [metadata] required_programs)",
				      missing.data);
		agent_outcome_sandbox_failure(&t->agent, msg);
		free(msg);
	}
	buf_free(&missing);
}

static bool under_system(const char *path)
{
	for (size_t i = 0; i < ARRAY_LEN(system_prefixes); i++)
		if (!strncmp(path, system_prefixes[i], strlen(system_prefixes[i])))
			return true;
	return false;
}

int local_setup_program(struct local_trial *t, struct err *e)
{
	char *found = fs_find_program(t->h.argv.v[0], getenv("PATH"));
	char real[PATH_MAX];
	if (!found || !realpath(found, real)) {
		const char *hint = json_str(t->h.doc, "install");
		char *msg = xasprintf("harness command '%s' not found in PATH%s%s%s", t->h.argv.v[0],
				      hint ? " (install it: " : "", hint ? hint : "", hint ? ")" : "");
		agent_outcome_error(&t->agent, "install_failure", "%s", msg);
		free(msg);
		free(found);
		return 0;
	}
	free(found);
	t->box.program = xstrdup(real);
	if (t->box.mode == SANDBOX_BWRAP && !under_system(real)) {
		char *dir = path_dir(real);
		int r = sandbox_bind(&t->box.sb, dir, dir, false, e);
		free(dir);
		return r;
	}
	return 0;
}

static int setup_skills(struct local_trial *t, struct err *e)
{
	if (strcmp(t->o->skill_mode, "with-skill"))
		return 0;
	const char *src = t->o->skills_dir;
	if (!src)
		src = t->task.skills_dir;
	if (!src || !fs_is_dir(src))
		return err_set(e, ERR_INPUT, "%s: --skill-mode with-skill but %s", t->task.dir,
			       t->o->skills_dir ? "--skills-dir is not a folder" : "the task has no environment/skills");
	char real[PATH_MAX];
	t->box.effective_skills = xstrdup(realpath(src, real) ? real : src);
	/* a private copy: the agent must not change the source, even through /skills */
	char *copy = path_join(t->paths.scratch, "skills");
	if (fs_mkdirs(copy, e) < 0) {
		free(copy);
		return -1;
	}
	struct fs_tree tree = { 0 };
	int r = fs_list_tree(src, &tree, e);
	for (size_t i = 0; r == 0 && i < tree.n; i++) {
		char *s = path_join(src, tree.v[i].path), *d = path_join(copy, tree.v[i].path);
		if (S_ISDIR(tree.v[i].mode))
			r = fs_mkdirs(d, e);
		else if (S_ISREG(tree.v[i].mode))
			r = fs_copy_file(s, d, tree.v[i].mode & 0777, e);
		else if (S_ISLNK(tree.v[i].mode) && symlink(tree.v[i].link, d) < 0)
			r = err_set(e, ERR_WORK, "cannot create link '%s':", d);
		free(s);
		free(d);
	}
	fs_tree_free(&tree);
	if (r == 0)
		r = sandbox_bind(&t->box.sb, copy, "/skills", false, e);
	for (size_t i = 0; r == 0 && i < t->h.skill_paths.n; i++) {
		const char *d = t->h.skill_paths.v[i];
		char *at = d[0] == '~' ? xasprintf("/root%s", d + 1) : xstrdup(d);
		if (t->box.mode == SANDBOX_CONTAINER) /* the image's own folders stay: the skill is bound over its path */
			r = sandbox_bind(&t->box.sb, copy, at, false, e);
		else if ((r = sandbox_provide(&t->box.sb, at, e)) == 0)
			r = sandbox_symlink(&t->box.sb, "/skills", at, e);
		free(at);
	}
	free(copy);
	return r;
}

static const char **template_vars(const struct local_trial *t, const char *out[16])
{
	size_t n = 0;
	out[n++] = "model";
	out[n++] = t->route.model;
	out[n++] = "provider";
	out[n++] = t->route.provider;
	out[n++] = "model_full";
	out[n++] = t->o->model;
	out[n++] = "base_url";
	out[n++] = t->route.base_url;
	out[n++] = "key_env";
	out[n++] = t->h.key_env;
	out[n++] = "home";
	out[n++] = "/root";
	out[n++] = "workdir";
	out[n++] = t->task.workdir;
	out[n] = NULL;
	return out;
}

/* A generated file at `at` in the box: written into its top (bwrap, none)
 * or kept in the scratch folder and bound there (docker). */
static int place_file(struct local_trial *t, const char *at, int n, const struct buf *text, struct err *e)
{
	const char *data = text->data;
	if (t->box.mode != SANDBOX_CONTAINER) {
		if (sandbox_provide(&t->box.sb, at, e) < 0)
			return -1;
		return sandbox_write(&t->box.sb, at, data, text->len, 0600, e);
	}
	char *dir = path_join(t->paths.scratch, "config");
	char *name = xasprintf("%s/%d-%s", dir, n, path_base(at));
	int r = fs_mkdirs(dir, e);
	if (r == 0)
		r = fs_write_atomic(name, data, text->len, 0600, e);
	if (r == 0)
		r = sandbox_bind(&t->box.sb, name, at, true, e);
	free(name);
	free(dir);
	return r;
}

static int setup_config_files(struct local_trial *t, struct err *e)
{
	const char *vars[16];
	template_vars(t, vars);
	int n = 0;
	for (const cJSON *c = t->h.config_files ? t->h.config_files->child : NULL; c; c = c->next) {
		const char *path = json_str(c, "path");
		char *at = path[0] == '~' ? xasprintf("/root%s", path + 1) : xstrdup(path);
		struct buf text = BUF_INIT;
		int r = 0;
		if (json_get(c, "json")) {
			cJSON *v = launch_render(json_get(c, "json"), vars, e);
			if (!v) {
				r = -1;
			} else {
				pyjson_print(v, 2, &text);
				buf_addc(&text, '\n');
				cJSON_Delete(v);
			}
		} else {
			char *s = launch_subst(json_str(c, "text"), vars, e);
			if (!s)
				r = -1;
			else
				buf_adds(&text, s);
			free(s);
		}
		if (r < 0)
			err_set(e, ERR_INPUT, "%s: config file %s: %s", t->h.file, path, e->msg);
		if (r == 0)
			r = place_file(t, at, n++, &text, e);
		buf_free(&text);
		free(at);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The proxies of the host, with the model route kept off them: the agent
 * reaches its model directly (share_net) or through the relay on loopback. */
static void add_proxies(struct strlist *env, const struct model_route *route)
{
	envlist_add_proxies(env);
	static const char *const names[] = { "NO_PROXY", "no_proxy" };
	if (!envlist_get(env, "HTTP_PROXY") && !envlist_get(env, "HTTPS_PROXY") && !envlist_get(env, "http_proxy") &&
	    !envlist_get(env, "https_proxy"))
		return;
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		const char *old = envlist_get(env, names[i]);
		char *v = xasprintf("%s%slocalhost,127.0.0.1,::1,%s", old ? old : "", old && *old ? "," : "", route->host);
		envlist_set(env, names[i], v);
		free(v);
	}
}

int local_setup_env(struct local_trial *t, struct err *e)
{
	struct strlist *env = &t->box.agent_env;
	if (t->box.mode != SANDBOX_CONTAINER) { /* a container has its image's own */
		local_sandbox_env(env);
		envlist_set(env, "LOGNAME", "root");
	}
	envlist_set(env, "TERM", "dumb");
	if (t->box.share_net || t->box.mode == SANDBOX_CONTAINER)
		add_proxies(env, &t->route);
	envlist_add_table(env, t->task.env);
	const char *vars[16];
	template_vars(t, vars);
	for (const cJSON *c = t->h.env ? t->h.env->child : NULL; c; c = c->next) {
		char *v = launch_subst(c->valuestring, vars, e);
		if (!v)
			return -1;
		envlist_set(env, c->string, v);
		free(v);
	}
	for (size_t i = 0; i < t->o->agent_env.n; i++) {
		const char *kv = t->o->agent_env.v[i];
		char *name = xstrndup(kv, (size_t)(strchr(kv, '=') - kv));
		envlist_set(env, name, strchr(kv, '=') + 1);
		free(name);
	}
	if (t->route.key)
		envlist_set(env, t->h.key_env, t->route.key); /* the key travels in the environment only */
	return 0;
}

char *local_init_program(struct err *e)
{
	char *dir = tool_dir();
	char *init = path_join(dir, "skillc-init");
	free(dir);
	if (access(init, X_OK) == 0)
		return init;
	err_set(e, ERR_WORK, "%s is missing: it goes beside skillc-local (build it with make, or reinstall skillc)", init);
	free(init);
	return NULL;
}

int local_setup_supervisor(struct local_trial *t, struct err *e)
{
	if (t->box.mode == SANDBOX_CONTAINER) { /* docker create binds it */
		strlist_push(&t->box.agent_argv, CONTAINER_INIT);
		strlist_push(&t->box.agent_argv, "sandbox-init");
		return 0;
	}
	char *init = local_init_program(e);
	int r = init ? sandbox_bind(&t->box.sb, init, "/run/skillc/init", false, e) : -1;
	free(init);
	if (r < 0)
		return -1;
	strlist_push(&t->box.agent_argv, "/run/skillc/init");
	strlist_push(&t->box.agent_argv, "sandbox-init");
	return 0;
}

/* The supervisor's --listen and --to: the route's port on loopback. */
static void relay_listen_args(struct local_trial *t)
{
	struct strlist *a = &t->box.agent_argv;
	strlist_push(a, "--listen");
	if (!strcmp(t->route.host, "::1"))
		strlist_push_owned(a, xasprintf("[::1]:%s", t->route.port));
	else if (t->route.loopback && strcmp(t->route.host, "localhost"))
		strlist_push_owned(a, xasprintf("127.0.0.1:%s", t->route.port));
	else
		strlist_push_owned(a, xasprintf("127.0.0.1:%s,[::1]:%s", t->route.port, t->route.port));
	strlist_push(a, "--to");
	strlist_push(a, "/run/skillc/sock/model.sock");
}

int local_setup_relay(struct local_trial *t, struct err *e)
{
	char *run = path_join(t->paths.scratch, "run");
	char *sock = path_join(run, "model.sock");
	int r = fs_mkdirs(run, e);
	int lfd = r == 0 ? relay_listen_unix(sock, e) : -1;
	if (lfd < 0) {
		free(run);
		free(sock);
		return -1;
	}
	t->box.relay = relay_new(lfd, NULL, model_route_connect, &t->route);
	r = sandbox_bind(&t->box.sb, run, "/run/skillc/sock", false, e);
	free(run);
	free(sock);
	relay_listen_args(t);
	/* a remote route's name must lead to the relay too */
	if (t->box.mode == SANDBOX_CONTAINER && !t->route.loopback) /* docker writes /etc/hosts itself */
		strlist_push_owned(&t->box.spec.hosts, xasprintf("%s:127.0.0.1", t->route.host));
	if (t->box.mode == SANDBOX_CONTAINER || r < 0)
		return r;
	char *hosts = path_join(t->paths.scratch, "hosts");
	struct buf text = BUF_INIT;
	buf_adds(&text, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n");
	if (!t->route.loopback)
		buf_printf(&text, "127.0.0.1\t%s\n", t->route.host);
	r = fs_write_atomic(hosts, text.data, text.len, 0644, e);
	buf_free(&text);
	t->box.sb.hosts = hosts;
	return r;
}

int local_setup_sandbox(struct local_trial *t, struct err *e)
{
	struct sandbox *sb = &t->box.sb;
	if (sandbox_init(sb, t->box.mode, t->box.bwrap, t->paths.scratch, e) < 0)
		return -1;
	if (t->box.mode != SANDBOX_CONTAINER && (sandbox_provide(sb, "/root", e) < 0 || sandbox_provide(sb, "/tmp", e) < 0 ||
	    sandbox_provide(sb, t->task.workdir, e) < 0 || sandbox_mkdir(sb, t->task.workdir, e) < 0))
		return -1;
	for (size_t i = 0; t->box.mode != SANDBOX_CONTAINER && i < t->task.ncopies; i++) {
		const struct task_copy *c = &t->task.copies[i];
		if (sandbox_provide(sb, c->dest, e) < 0 || sandbox_copy_in(sb, c->src, c->dest, c->as_child, e) < 0)
			return -1;
	}
	char *ins = path_join(t->paths.scratch, "instruction.md");
	int r = fs_write_atomic(ins, t->task.instruction, strlen(t->task.instruction), 0644, e);
	if (r == 0)
		r = sandbox_bind(sb, ins, "/instruction.md", false, e);
	free(ins);
	const char *logs[] = { "agent", "verifier", "artifacts" };
	for (size_t i = 0; r == 0 && i < ARRAY_LEN(logs); i++) {
		char *src = path_join(t->paths.dir, logs[i]);
		char *dest = xasprintf("/logs/%s", logs[i]);
		r = sandbox_bind(sb, src, dest, true, e);
		free(src);
		free(dest);
	}
	if (r == 0)
		r = setup_skills(t, e);
	if (r == 0)
		r = setup_config_files(t, e);
	return r;
}
