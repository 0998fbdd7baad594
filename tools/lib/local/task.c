#include "local/task.h"

#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/toml.h"

void task_merge(cJSON *dst, const cJSON *src)
{
	for (const cJSON *c = src->child; c; c = c->next) {
		cJSON *old = cJSON_GetObjectItemCaseSensitive(dst, c->string);
		if (old && cJSON_IsObject(old) && cJSON_IsObject(c)) {
			task_merge(old, c);
			continue;
		}
		json_set(dst, c->string, cJSON_Duplicate(c, true));
	}
}

static int override_dotted(const char *spec, cJSON **acc, struct err *e)
{
	const char *eq = strchr(spec, '=');
	char *path = xstrndup(spec, (size_t)(eq - spec));
	cJSON *v = cJSON_Parse(eq + 1);
	if (!v)
		v = cJSON_CreateString(eq + 1);
	cJSON *patch = cJSON_CreateObject();
	cJSON *at = patch;
	int r = 0;
	char *save = NULL;
	char *part = strtok_r(path, ".", &save);
	while (part) {
		char *next = strtok_r(NULL, ".", &save);
		if (!name_is_safe(part)) {
			r = err_set(e, ERR_INPUT, "--config-override '%s': '%s' is not a key name", spec, part);
			break;
		}
		if (!next) {
			cJSON_AddItemToObject(at, part, v);
			v = NULL;
		} else {
			at = cJSON_AddObjectToObject(at, part);
		}
		part = next;
	}
	if (r == 0 && v)
		r = err_set(e, ERR_INPUT, "--config-override '%s': empty key", spec);
	cJSON_Delete(v);
	if (r == 0)
		task_merge(*acc, patch);
	cJSON_Delete(patch);
	free(path);
	return r;
}

int task_parse_override(const char *spec, cJSON **acc, struct err *e)
{
	if (!*acc)
		*acc = cJSON_CreateObject();
	cJSON *v = NULL;
	if (spec[0] == '@') {
		v = json_read_file(spec + 1, e);
		if (!v)
			return -1;
	} else if (spec[0] == '{') {
		v = cJSON_Parse(spec);
		if (!v)
			return err_set(e, ERR_INPUT, "--config-override: not valid JSON: %s", spec);
	} else if (strchr(spec, '=')) {
		return override_dotted(spec, acc, e);
	} else {
		return err_set(e, ERR_INPUT, "--config-override '%s': give a JSON object, @file or key.path=value", spec);
	}
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		return err_set(e, ERR_INPUT, "--config-override: must be a JSON object: %s", spec);
	}
	task_merge(*acc, v);
	cJSON_Delete(v);
	return 0;
}

static void push_copy(struct task *t, char *src, char *dest, bool as_child)
{
	t->copies = xrealloc(t->copies, (t->ncopies + 1) * sizeof *t->copies);
	t->copies[t->ncopies++] = (struct task_copy){ src, dest, as_child };
}

static void note_ignored(struct task *t, const char *what)
{
	for (size_t i = 0; i < t->ignored.n; i++)
		if (!strcmp(t->ignored.v[i], what))
			return;
	strlist_push(&t->ignored, what);
}

static bool is_skills_src(const char *rel)
{
	return !strcmp(rel, "skills") || !strncmp(rel, "skills/", 7);
}

/* Splits the arguments of one instruction: JSON array form or words. */
static int split_args(const char *s, struct strlist *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '[') {
		cJSON *a = cJSON_Parse(s);
		if (!cJSON_IsArray(a)) {
			cJSON_Delete(a);
			return -1;
		}
		for (cJSON *c = a->child; c; c = c->next) {
			if (!cJSON_IsString(c)) {
				cJSON_Delete(a);
				return -1;
			}
			strlist_push(out, c->valuestring);
		}
		cJSON_Delete(a);
		return 0;
	}
	while (*s) {
		const char *w = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		strlist_push_owned(out, xstrndup(w, (size_t)(s - w)));
		while (isspace((unsigned char)*s))
			s++;
	}
	return 0;
}

static int copy_line(struct task *t, const char *instr, const char *args, const char *ctx,
		     const char *workdir, const char *where, struct err *e)
{
	struct strlist a = STRLIST_INIT;
	int r = 0;
	if (split_args(args, &a) < 0) {
		strlist_free(&a);
		return err_set(e, ERR_INPUT, "%s: %s with a malformed JSON argument list", where, instr);
	}
	size_t first = 0;
	while (first < a.n && !strncmp(a.v[first], "--", 2)) {
		if (!strncmp(a.v[first], "--from=", 7)) {
			note_ignored(t, "COPY --from");
			goto out;
		}
		first++; /* --chown, --chmod, --link: ownership is ours in the sandbox */
	}
	if (a.n - first < 2) {
		r = err_set(e, ERR_INPUT, "%s: %s needs a source and a destination", where, instr);
		goto out;
	}
	const char *dest_arg = a.v[a.n - 1];
	char *dest = path_normalize_abs(workdir, dest_arg);
	size_t nsrc = a.n - 1 - first;
	bool dest_is_dir = dest_arg[dest_arg[0] ? strlen(dest_arg) - 1 : 0] == '/' || nsrc > 1;
	for (size_t i = first; i < a.n - 1 && r == 0; i++) {
		const char *src = a.v[i];
		if (strstr(src, "://") || !strncmp(src, "git@", 4)) {
			note_ignored(t, "ADD <url>");
			continue;
		}
		char *rel = src[0] == '/' ? NULL : path_normalize_rel(src);
		if (!rel) {
			r = err_set(e, ERR_INPUT, "%s: %s source '%s' is outside the build context", where, instr, src);
			break;
		}
		if (is_skills_src(rel)) {
			t->skill_copies_dropped++;
			free(rel);
			continue;
		}
		if (!*rel || !strcmp(rel, ".")) {
			/* the whole context, minus the skills our injection replaces */
			DIR *d = opendir(ctx);
			struct strlist names = STRLIST_INIT;
			for (struct dirent *de; d && (de = readdir(d));)
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "skills"))
					strlist_push(&names, de->d_name);
			if (d)
				closedir(d);
			strlist_sort(&names);
			for (size_t k = 0; k < names.n; k++)
				push_copy(t, path_join(ctx, names.v[k]), xstrdup(dest), true);
			strlist_free(&names);
			free(rel);
			continue;
		}
		char *pattern = path_join(ctx, rel);
		if (strpbrk(rel, "*?[")) {
			glob_t g;
			if (glob(pattern, 0, NULL, &g) != 0) {
				r = err_set(e, ERR_INPUT, "%s: %s source '%s' matches nothing in %s", where, instr, src, ctx);
			} else {
				for (size_t k = 0; k < g.gl_pathc; k++) {
					char *rk = path_normalize_rel(g.gl_pathv[k] + strlen(ctx) + 1);
					if (rk && !is_skills_src(rk))
						push_copy(t, xstrdup(g.gl_pathv[k]), xstrdup(dest), !fs_is_dir(g.gl_pathv[k]));
					free(rk);
				}
				globfree(&g);
			}
			free(pattern);
		} else if (!fs_exists(pattern)) {
			r = err_set(e, ERR_INPUT, "%s: %s source '%s' does not exist in %s", where, instr, src, ctx);
			free(pattern);
		} else {
			bool dir = fs_is_dir(pattern);
			push_copy(t, pattern, xstrdup(dest), dir ? false : dest_is_dir);
		}
		free(rel);
	}
	free(dest);
out:
	strlist_free(&a);
	return r;
}

int task_parse_dockerfile(struct task *t, const char *text, const char *ctx, const char *name, struct err *e)
{
	char *workdir = xstrdup("/");
	bool saw_workdir = false;
	struct buf line = BUF_INIT;
	int lineno = 0, start = 0, r = 0;
	const char *p = text;
	while (*p && r == 0) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		const char *s = p;
		p += n + (nl ? 1 : 0);
		while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		const char *q = s;
		while (q < s + n && isspace((unsigned char)*q))
			q++;
		if (!line.len && (q == s + n || *q == '#'))
			continue;
		if (line.len && *q == '#')
			continue; /* comment lines inside a continuation are dropped */
		if (!line.len)
			start = lineno;
		bool cont = n && s[n - 1] == '\\';
		buf_add(&line, s, cont ? n - 1 : n);
		if (cont) {
			buf_addc(&line, ' ');
			continue;
		}
		char *l = line.data;
		while (isspace((unsigned char)*l))
			l++;
		char instr[16] = "";
		size_t k = 0;
		while (l[k] && !isspace((unsigned char)l[k]) && k < sizeof instr - 1) {
			instr[k] = (char)toupper((unsigned char)l[k]);
			k++;
		}
		instr[k] = '\0';
		const char *args = l + k;
		char *where = xasprintf("%s:%d", name, start);
		if (!strcmp(instr, "FROM")) {
			/* a new stage: only the last one becomes the image */
			for (size_t i = 0; i < t->ncopies; i++) {
				free(t->copies[i].src);
				free(t->copies[i].dest);
			}
			t->ncopies = 0;
			free(workdir);
			workdir = xstrdup("/");
			saw_workdir = false;
		} else if (!strcmp(instr, "WORKDIR")) {
			struct strlist a = STRLIST_INIT;
			split_args(args, &a);
			if (a.n != 1) {
				r = err_set(e, ERR_INPUT, "%s: WORKDIR needs one path", where);
			} else {
				char *w = path_normalize_abs(workdir, a.v[0]);
				free(workdir);
				workdir = w;
				saw_workdir = true;
			}
			strlist_free(&a);
		} else if (!strcmp(instr, "COPY") || !strcmp(instr, "ADD")) {
			r = copy_line(t, instr, args, ctx, workdir, where, e);
		} else {
			note_ignored(t, instr);
		}
		free(where);
		buf_reset(&line);
	}
	buf_free(&line);
	if (r == 0 && saw_workdir && !t->workdir)
		t->workdir = xstrdup(workdir);
	free(workdir);
	return r;
}

static cJSON *section(const cJSON *cfg, const char *name)
{
	cJSON *s = json_get(cfg, name);
	return cJSON_IsObject(s) ? s : NULL;
}

static int read_timeout(const struct task *t, const char *sect, double fallback, double *out, struct err *e)
{
	cJSON *v = json_get(section(t->config, sect), "timeout_sec");
	if (!v || cJSON_IsNull(v)) {
		*out = fallback;
		return 0;
	}
	if (!cJSON_IsNumber(v) || v->valuedouble <= 0)
		return err_set(e, ERR_INPUT, "%s/task.toml: [%s] timeout_sec must be a positive number of seconds", t->dir, sect);
	*out = v->valuedouble;
	return 0;
}

/* network_mode of a section: 1 allowed, 0 not, -1 unset; -2 bad value. */
static int network_of(const cJSON *sect)
{
	const char *m = json_str(sect, "network_mode");
	if (m) {
		if (!strcmp(m, "public"))
			return 1;
		if (!strcmp(m, "no-network") || !strcmp(m, "none") || !strcmp(m, "allowlist"))
			return 0; /* an allowlist cannot be enforced here: stricter is safer */
		return -2;
	}
	cJSON *ai = json_get(sect, "allow_internet");
	if (cJSON_IsBool(ai))
		return cJSON_IsTrue(ai);
	return -1;
}

static int read_network(const struct task *t, const char *sect, bool *out, struct err *e)
{
	int env = network_of(section(t->config, "environment"));
	int own = network_of(section(t->config, sect));
	if (env == -2 || own == -2)
		return err_set(e, ERR_INPUT, "%s/task.toml: network_mode must be public, no-network or allowlist", t->dir);
	*out = own >= 0 ? own : env >= 0 ? env : 1; /* Harbor's default is public */
	return 0;
}

static int read_env(const struct task *t, const cJSON *sect, const char *what, cJSON **out, struct err *e)
{
	cJSON *env = json_get(sect, "env");
	*out = NULL;
	if (!env)
		return 0;
	if (!cJSON_IsObject(env))
		return err_set(e, ERR_INPUT, "%s/task.toml: [%s] env must be a table of strings", t->dir, what);
	for (cJSON *c = env->child; c; c = c->next) {
		bool ok_name = c->string[0] && !isdigit((unsigned char)c->string[0]);
		for (const char *s = c->string; *s; s++)
			if (!isalnum((unsigned char)*s) && *s != '_')
				ok_name = false;
		if (!ok_name || !(cJSON_IsString(c) || cJSON_IsNumber(c) || cJSON_IsBool(c)))
			return err_set(e, ERR_INPUT, "%s/task.toml: [%s.env] %s must be a NAME = \"string\"", t->dir, what, c->string);
	}
	*out = env;
	return 0;
}

static int read_requires(struct task *t, struct err *e)
{
	cJSON *req = json_get(section(t->config, "metadata"), "required_programs");
	if (!req)
		return 0;
	if (!cJSON_IsArray(req))
		return err_set(e, ERR_INPUT, "%s/task.toml: [metadata] required_programs must be a list of program names", t->dir);
	for (cJSON *c = req->child; c; c = c->next) {
		if (!cJSON_IsString(c) || !name_is_safe(c->valuestring) || strchr(c->valuestring, '/'))
			return err_set(e, ERR_INPUT, "%s/task.toml: [metadata] required_programs holds '%s', not a program name",
				       t->dir, cJSON_IsString(c) ? c->valuestring : "(not a string)");
		strlist_push(&t->requires, c->valuestring);
	}
	return 0;
}

int task_load(const char *dir, const cJSON *override, struct task *t, struct err *e)
{
	memset(t, 0, sizeof *t);
	t->dir = xstrdup(dir);
	size_t n = strlen(t->dir);
	while (n > 1 && t->dir[n - 1] == '/')
		t->dir[--n] = '\0';
	const char *slash = strrchr(t->dir, '/');
	t->name = xstrdup(slash ? slash + 1 : t->dir);
	if (!name_is_safe(t->name))
		return err_set(e, ERR_INPUT, "%s: task folder name '%s' is not a safe name ([A-Za-z0-9._-])", dir, t->name);
	if (!fs_is_dir(t->dir))
		return err_set(e, ERR_INPUT, "%s: no such task folder", dir);
	char real[PATH_MAX];
	if (realpath(t->dir, real)) {
		free(t->dir); /* absolute: the sandbox binds and links need it */
		t->dir = xstrdup(real);
	}

	char *p = path_join(t->dir, "task.toml");
	t->config = toml_read_file(p, e);
	free(p);
	if (!t->config)
		return -1;
	if (override)
		task_merge(t->config, override);

	p = path_join(t->dir, "instruction.md");
	struct buf ins = BUF_INIT;
	int r = fs_read(p, 1 << 20, &ins, e);
	free(p);
	if (r < 0) {
		buf_free(&ins);
		return -1;
	}
	t->instruction = buf_detach(&ins);

	const char *wd = json_str(section(t->config, "environment"), "workdir");
	if (wd) {
		if (wd[0] != '/')
			return err_set(e, ERR_INPUT, "%s/task.toml: [environment] workdir must be an absolute path", t->dir);
		t->workdir = path_normalize_abs("/", wd);
	}
	if (read_timeout(t, "agent", TASK_AGENT_TIMEOUT, &t->agent_timeout, e) < 0 ||
	    read_timeout(t, "verifier", TASK_VERIFIER_TIMEOUT, &t->verifier_timeout, e) < 0 ||
	    read_network(t, "agent", &t->agent_network, e) < 0 ||
	    read_network(t, "verifier", &t->verifier_network, e) < 0 ||
	    read_env(t, section(t->config, "environment"), "environment", &t->env, e) < 0 ||
	    read_env(t, section(t->config, "verifier"), "verifier", &t->verifier_env, e) < 0 ||
	    read_requires(t, e) < 0)
		return -1;

	char *ctx = path_join(t->dir, "environment");
	char *df = path_join(ctx, "Dockerfile");
	if (fs_exists(df)) {
		struct buf text = BUF_INIT;
		r = fs_read(df, 1 << 20, &text, e);
		if (r == 0)
			r = task_parse_dockerfile(t, text.data ? text.data : "", ctx, df, e);
		buf_free(&text);
	}
	free(df);
	char *skills = path_join(ctx, "skills");
	if (fs_is_dir(skills))
		t->skills_dir = skills;
	else
		free(skills);
	free(ctx);
	if (r < 0)
		return -1;
	if (!t->workdir)
		t->workdir = xstrdup("/root");
	t->tests_dir = path_join(t->dir, "tests");
	return 0;
}

void task_free(struct task *t)
{
	free(t->dir);
	free(t->name);
	cJSON_Delete(t->config);
	free(t->instruction);
	free(t->workdir);
	strlist_free(&t->requires);
	for (size_t i = 0; i < t->ncopies; i++) {
		free(t->copies[i].src);
		free(t->copies[i].dest);
	}
	free(t->copies);
	strlist_free(&t->ignored);
	free(t->skills_dir);
	free(t->tests_dir);
	memset(t, 0, sizeof *t);
}
