#include "local/task.h"

#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/toml.h"

/* Deep-merges src into dst (objects recursively, anything else replaced). */
static void task_merge(cJSON *dst, const cJSON *src)
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

/* COPY . dest: the whole context, minus the skills our injection replaces. */
static void copy_context(struct task *t, const char *ctx, const char *dest)
{
	DIR *d = opendir(ctx);
	struct strlist names = STRLIST_INIT;
	for (struct dirent *de; d && (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "skills"))
			strlist_push(&names, de->d_name);
	if (d)
		closedir(d);
	strlist_sort(&names);
	for (size_t k = 0; k < names.n; k++)
		push_copy(t, path_join(ctx, names.v[k]), xstrdup(dest), true);
	strlist_free(&names);
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
			strlist_push_new(&t->ignored, "COPY --from");
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
			strlist_push_new(&t->ignored, "ADD <url>");
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
			copy_context(t, ctx, dest);
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

/* One instruction of a Dockerfile, its continuation lines joined. */
struct df_instr {
	char name[16];     /* the keyword in upper case */
	const char *args;  /* what follows it */
	int line;          /* where it starts (1-based) */
	const char *raw;   /* its text as written, comment lines within included */
	size_t raw_len;
};
typedef int df_fn(const struct df_instr *in, void *ctx, struct err *e);

/* Calls fn for each instruction of text, in order, until it returns < 0. */
static int dockerfile_each(const char *text, df_fn *fn, void *ctx, struct err *e)
{
	struct buf line = BUF_INIT;
	int lineno = 0, r = 0;
	struct df_instr in = { .line = 0 };
	for (const char *p = text; *p && r == 0;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = p;
		lineno++;
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
		if (!line.len) {
			in.line = lineno;
			in.raw = s;
		}
		bool cont = n && s[n - 1] == '\\';
		buf_add(&line, s, cont ? n - 1 : n);
		if (cont) {
			buf_addc(&line, ' ');
			continue;
		}
		in.raw_len = (size_t)(p - in.raw);
		char *l = line.data;
		while (isspace((unsigned char)*l))
			l++;
		size_t k = 0;
		for (; l[k] && !isspace((unsigned char)l[k]) && k < sizeof in.name - 1; k++)
			in.name[k] = (char)toupper((unsigned char)l[k]);
		in.name[k] = '\0';
		in.args = l + k;
		r = fn(&in, ctx, e);
		buf_reset(&line);
	}
	buf_free(&line);
	return r;
}

/* FROM [--platform=P] image [AS name]: the stage's base image and platform. */
static void note_base(struct task *t, const char *args)
{
	struct strlist a = STRLIST_INIT;
	split_args(args, &a);
	free(t->base_image);
	free(t->base_platform);
	t->base_image = t->base_platform = NULL;
	for (size_t i = 0; i < a.n && !t->base_image; i++) {
		if (!strncmp(a.v[i], "--platform=", 11))
			t->base_platform = xstrdup(a.v[i] + 11);
		else if (strncmp(a.v[i], "--", 2))
			t->base_image = xstrdup(a.v[i]);
	}
	strlist_free(&a);
}

/* The parse state of task_parse_dockerfile. */
struct df_parse {
	struct task *t;
	const char *ctx, *file;
	char *workdir;
	bool saw_workdir;
};

static int parse_one(const struct df_instr *in, void *arg, struct err *e)
{
	struct df_parse *ps = arg;
	struct task *t = ps->t;
	char *where = xasprintf("%s:%d", ps->file, in->line);
	int r = 0;
	if (!strcmp(in->name, "FROM")) {
		/* a new stage: only the last one becomes the image */
		for (size_t i = 0; i < t->ncopies; i++) {
			free(t->copies[i].src);
			free(t->copies[i].dest);
		}
		t->ncopies = 0;
		free(ps->workdir);
		ps->workdir = xstrdup("/");
		ps->saw_workdir = false;
		note_base(t, in->args);
	} else if (!strcmp(in->name, "WORKDIR")) {
		struct strlist a = STRLIST_INIT;
		split_args(in->args, &a);
		if (a.n != 1) {
			r = err_set(e, ERR_INPUT, "%s: WORKDIR needs one path", where);
		} else {
			char *w = path_normalize_abs(ps->workdir, a.v[0]);
			free(ps->workdir);
			ps->workdir = w;
			ps->saw_workdir = true;
		}
		strlist_free(&a);
	} else if (!strcmp(in->name, "COPY") || !strcmp(in->name, "ADD")) {
		r = copy_line(t, in->name, in->args, ps->ctx, ps->workdir, where, e);
	} else {
		strlist_push_new(&t->ignored, in->name);
	}
	free(where);
	return r;
}

int task_parse_dockerfile(struct task *t, const char *text, const char *ctx, const char *name, struct err *e)
{
	struct df_parse ps = { t, ctx, name, xstrdup("/"), false };
	int r = dockerfile_each(text, parse_one, &ps, e);
	if (r == 0 && ps.saw_workdir && !t->workdir)
		t->workdir = xstrdup(ps.workdir);
	free(ps.workdir);
	return r;
}

/* What a Dockerfile changes that a sandbox over the host's programs cannot. */
static const char *const unreproducible[] = { "RUN", "ENV", "USER", "SHELL", "ONBUILD", "COPY --from", "ADD <url>" };

void task_unreproduced(const struct task *t, struct strlist *out)
{
	for (size_t i = 0; i < t->ignored.n; i++)
		for (size_t k = 0; k < ARRAY_LEN(unreproducible); k++)
			if (!strcmp(t->ignored.v[i], unreproducible[k]))
				strlist_push(out, t->ignored.v[i]);
}

/* An instruction's sources without those under skills/ (flags kept). */
static void drop_skill_sources(const struct strlist *a, struct strlist *kept, int *dropped)
{
	size_t first = 0;
	while (first < a->n && !strncmp(a->v[first], "--", 2))
		strlist_push(kept, a->v[first++]);
	for (size_t i = first; i + 1 < a->n; i++) {
		char *rel = a->v[i][0] == '/' ? NULL : path_normalize_rel(a->v[i]);
		if (rel && is_skills_src(rel))
			(*dropped)++;
		else
			strlist_push(kept, a->v[i]);
		free(rel);
	}
	if (a->n)
		strlist_push(kept, a->v[a->n - 1]);
}

static int filter_one(const struct df_instr *in, void *arg, struct err *e)
{
	struct buf *out = arg;
	struct strlist a = STRLIST_INIT, kept = STRLIST_INIT;
	int dropped = 0, flags = 0;
	bool copy = !strcmp(in->name, "COPY") || !strcmp(in->name, "ADD");
	if (copy && split_args(in->args, &a) == 0)
		drop_skill_sources(&a, &kept, &dropped);
	for (size_t i = 0; i < kept.n && !strncmp(kept.v[i], "--", 2); i++)
		flags++;
	if (!dropped) {
		buf_add(out, in->raw, in->raw_len);
		if (in->raw_len && in->raw[in->raw_len - 1] != '\n')
			buf_addc(out, '\n');
	} else if (kept.n - (size_t)flags < 2) {
		buf_printf(out, "# skillc: dropped, the skill is mounted at /skills instead: %s %s\n", in->name,
			   in->args + strspn(in->args, " \t"));
	} else {
		cJSON *arr = cJSON_CreateArray();
		for (size_t i = (size_t)flags; i < kept.n; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(kept.v[i]));
		char *js = cJSON_PrintUnformatted(arr);
		buf_printf(out, "%s", in->name);
		for (int i = 0; i < flags; i++)
			buf_printf(out, " %s", kept.v[i]);
		buf_printf(out, " %s\n", js);
		free(js);
		cJSON_Delete(arr);
	}
	strlist_free(&a);
	strlist_free(&kept);
	(void)e;
	return 0;
}

char *task_dockerfile_without_skills(const char *text)
{
	struct buf out = BUF_INIT;
	struct err e;
	buf_add(&out, "", 0);
	dockerfile_each(text, filter_one, &out, &e);
	return buf_detach(&out);
}

static cJSON *section(const cJSON *cfg, const char *name)
{
	cJSON *s = json_get(cfg, name);
	return cJSON_IsObject(s) ? s : NULL;
}

/* A positive number of [sect] key, or fallback when absent. */
static int read_positive(const struct task *t, const char *sect, const char *key, double fallback, double *out,
			 struct err *e)
{
	cJSON *v = json_get(section(t->config, sect), key);
	if (!v || cJSON_IsNull(v)) {
		*out = fallback;
		return 0;
	}
	if (!cJSON_IsNumber(v) || v->valuedouble <= 0)
		return err_set(e, ERR_INPUT, "%s/task.toml: [%s] %s must be a positive number%s", t->dir, sect, key,
			       strstr(key, "_sec") ? " of seconds" : "");
	*out = v->valuedouble;
	return 0;
}

static int read_timeout(const struct task *t, const char *sect, double fallback, double *out, struct err *e)
{
	return read_positive(t, sect, "timeout_sec", fallback, out, e);
}

/* [environment] memory_mb, or the older memory = "2G" / "512M". */
static int read_memory(struct task *t, struct err *e)
{
	const cJSON *env = section(t->config, "environment");
	const char *legacy = json_str(env, "memory");
	double mb = 0;
	if (!json_get(env, "memory_mb") && legacy) {
		char *end;
		double v = strtod(legacy, &end);
		double unit = !strcasecmp(end, "g") || !strcasecmp(end, "gb") ? 1024
			      : !strcasecmp(end, "m") || !strcasecmp(end, "mb") || !*end ? 1 : 0;
		if (end == legacy || v <= 0 || !unit)
			return err_set(e, ERR_INPUT, "%s/task.toml: [environment] memory '%s': write memory_mb = 2048", t->dir,
				       legacy);
		mb = v * unit;
	} else if (read_positive(t, "environment", "memory_mb", 0, &mb, e) < 0) {
		return -1;
	}
	t->memory_mb = (long)mb;
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
	int r = fs_read_limited(p, &ins, e);
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
	    read_positive(t, "environment", "build_timeout_sec", TASK_BUILD_TIMEOUT, &t->build_timeout, e) < 0 ||
	    read_positive(t, "environment", "cpus", 0, &t->cpus, e) < 0 || read_memory(t, e) < 0 ||
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
			r = task_parse_dockerfile(t, text.data, ctx, df, e);
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
	free(t->base_image);
	free(t->base_platform);
	free(t->skills_dir);
	free(t->tests_dir);
	memset(t, 0, sizeof *t);
}
