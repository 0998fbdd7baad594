#include "pipeline/matrix.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/yaml.h"
#include "pipeline/settings.h"
#include "skill/source.h"

/* One (task, where its folder is) and one (harness, model) of the product. */
struct pair {
	char *a, *b;
};
struct pairs {
	struct pair *v;
	size_t n, cap;
};

static void pairs_add(struct pairs *l, const char *a, const char *b)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n].a = xstrdup(a);
	l->v[l->n].b = b ? xstrdup(b) : NULL;
	l->n++;
}

static void pairs_free(struct pairs *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].a);
		free(l->v[i].b);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

static const char *val(const cJSON *values, const char *name)
{
	const char *v = json_str(values, name);
	return v ? v : "";
}

/* Splits a list setting (spaces or commas) into words. */
static void words(const char *s, struct strlist *out)
{
	char *copy = xstrdup(s);
	for (char *save = NULL, *w = strtok_r(copy, " ,\t", &save); w; w = strtok_r(NULL, " ,\t", &save))
		strlist_push(out, w);
	free(copy);
}

char *model_slug(const char *model)
{
	if (!*model)
		return xstrdup("no-model");
	char *s = xstrdup(model);
	for (char *p = s; *p; p++)
		if (*p == '/' || *p == ':' || *p == '@')
			*p = '_';
	return s;
}

/* A value from a matrix file, checked as the setting `as` is. */
static int check_as(const char *as, const char *v, const char *where, struct err *e)
{
	struct err inner = { 0 };
	if (!*v && !strcmp(as, "task"))
		err_set(&inner, ERR_INPUT, "a task name is empty");
	else if (setting_check(setting_find(as), v, &inner) == 0)
		return 0;
	return err_set(e, ERR_INPUT, "%s: %s", where, inner.msg);
}

/* A YAML value that lists strings: a sequence of them, or one string of words. */
static int yaml_list(const cJSON *v, const char *key, const char *file, struct strlist *out, struct err *e)
{
	if (cJSON_IsString(v)) {
		words(v->valuestring, out);
		return 0;
	}
	if (!cJSON_IsArray(v))
		return err_set(e, ERR_INPUT, "%s: %s must be a list of strings", file, key);
	for (const cJSON *i = v->child; i; i = i->next) {
		if (!cJSON_IsString(i))
			return err_set(e, ERR_INPUT, "%s: %s must be a list of strings", file, key);
		strlist_push(out, i->valuestring);
	}
	return 0;
}

/* The task folders of a Harbor dataset path: every subfolder holding an
 * instruction.md, narrowed by task_names / exclude_task_names (globs) and
 * n_tasks, in name order. */
static int dataset_tasks(const cJSON *ds, const char *file, struct pairs *tasks, struct err *e)
{
	const char *path = json_str(ds, "path");
	if (!path) {
		const char *name = json_str(ds, "name");
		return err_set(e, ERR_INPUT, "%s: dataset %s%s has no path: skillc runs local tasks, give path: to a folder of tasks",
		               file, name ? "name: " : "", name ? name : "");
	}
	if (check_as("TASKS_DIR", path, file, e) < 0)
		return -1;
	struct strlist names = STRLIST_INIT, want = STRLIST_INIT, skip = STRLIST_INIT;
	int rc = fs_list_names(path, &names, e) < 0 ? err_set(e, ERR_INPUT, "%s: dataset path '%s' is not a folder", file, path) : 0;
	if (rc == 0 && json_get(ds, "task_names"))
		rc = yaml_list(json_get(ds, "task_names"), "task_names", file, &want, e);
	if (rc == 0 && json_get(ds, "exclude_task_names"))
		rc = yaml_list(json_get(ds, "exclude_task_names"), "exclude_task_names", file, &skip, e);
	const char *limit = json_str(ds, "n_tasks");
	long max = limit ? strtol(limit, NULL, 10) : -1, taken = 0;
	for (size_t i = 0; rc == 0 && i < names.n && (max < 0 || taken < max); i++) {
		char *dir = path_join(path, names.v[i]), *ins = path_join(dir, "instruction.md");
		int is_task = fs_exists(ins);
		free(ins);
		free(dir);
		int in = !want.n, out = 0;
		for (size_t k = 0; k < want.n; k++)
			in |= fnmatch(want.v[k], names.v[i], 0) == 0;
		for (size_t k = 0; k < skip.n; k++)
			out |= fnmatch(skip.v[k], names.v[i], 0) == 0;
		if (!is_task || !in || out)
			continue;
		if (!name_is_safe(names.v[i]))
			rc = err_set(e, ERR_INPUT, "%s: task folder '%s/%s': a task name is letters, digits, '.', '_' and '-'", file, path, names.v[i]);
		else
			pairs_add(tasks, names.v[i], path);
		taken++;
	}
	strlist_free(&names);
	strlist_free(&want);
	strlist_free(&skip);
	return rc;
}

/* Harbor's job config: agents (harness + model pairs) × datasets. */
static int read_harbor(const cJSON *doc, const char *file, matrix_agent_fn agent_fn, void *arg,
                       struct pairs *tasks, struct pairs *agents, struct matrix *m, struct err *e)
{
	const cJSON *agents_v = json_get(doc, "agents"), *ds = json_get(doc, "datasets"), *tl = json_get(doc, "tasks");
	if (!cJSON_IsArray(agents_v) || !agents_v->child)
		return err_set(e, ERR_INPUT, "%s: a Harbor job config needs agents: [{name: ..., model_name: ...}]", file);
	for (const cJSON *a = agents_v->child; a; a = a->next) {
		const char *name = json_str(a, "name"), *model = json_str(a, "model_name");
		if (!name)
			return err_set(e, ERR_INPUT, "%s: an agent without name: (import_path agents have no skillc harness)", file);
		char *h = agent_fn ? agent_fn(name, arg) : NULL;
		if (!h)
			return err_set(e, ERR_INPUT, "%s: Harbor agent '%s' is no skillc harness (rules/harness/*.json runners.harbor.agent)", file, name);
		int rc = check_as("MODEL", model ? model : "", file, e);
		if (rc == 0)
			pairs_add(agents, h, model ? model : "");
		free(h);
		if (rc < 0)
			return -1;
	}
	for (const cJSON *d = cJSON_IsArray(ds) ? ds->child : NULL; d; d = d->next)
		if (dataset_tasks(d, file, tasks, e) < 0)
			return -1;
	for (const cJSON *t = cJSON_IsArray(tl) ? tl->child : NULL; t; t = t->next) {
		const char *p = json_str(t, "path");
		if (!p)
			return err_set(e, ERR_INPUT, "%s: a task without path: (skillc runs local tasks)", file);
		char *dir = path_dir(p);
		const char *base = path_base(p);
		int rc = check_as("TASKS_DIR", dir, file, e) < 0 || check_as("task", base, file, e) < 0 ? -1 : 0;
		if (rc == 0)
			pairs_add(tasks, base, dir);
		free(dir);
		if (rc < 0)
			return -1;
	}
	const char *n = json_str(doc, "n_attempts");
	if (n) {
		if (check_as("REPEAT", n, file, e) < 0)
			return -1;
		m->repeat = xstrdup(n);
	}
	return 0;
}

/* Ours: tasks, harnesses, models (lists) and tasks_dir. */
static int read_lists(const cJSON *doc, const char *file, struct strlist *t, struct strlist *h, struct strlist *mo,
                      char **tasks_dir, struct err *e)
{
	for (const cJSON *k = doc->child; k; k = k->next) {
		int rc = 0;
		if (!strcmp(k->string, "tasks"))
			rc = yaml_list(k, "tasks", file, t, e);
		else if (!strcmp(k->string, "harnesses"))
			rc = yaml_list(k, "harnesses", file, h, e);
		else if (!strcmp(k->string, "models"))
			rc = yaml_list(k, "models", file, mo, e);
		else if (!strcmp(k->string, "tasks_dir") && cJSON_IsString(k))
			rc = check_as("TASKS_DIR", k->valuestring, file, e) < 0 ? -1 : (*tasks_dir = xstrdup(k->valuestring), 0);
		else
			rc = err_set(e, ERR_INPUT, "%s: unknown key '%s' (a matrix has tasks, harnesses, models, tasks_dir; "
			             "a Harbor job config agents and datasets)", file, k->string);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int check_all(const struct strlist *l, const char *as, const char *file, struct err *e)
{
	for (size_t i = 0; i < l->n; i++)
		if (check_as(as, l->v[i], file, e) < 0)
			return -1;
	return 0;
}

/* The lists a command gives: tasks/harnesses/models (or task/HARNESS/MODEL), or MATRIX. */
static int gather(const cJSON *values, matrix_agent_fn agent_fn, void *arg, struct pairs *tasks,
                  struct pairs *agents, struct matrix *m, struct err *e)
{
	const char *file = val(values, "MATRIX");
	struct strlist t = STRLIST_INIT, h = STRLIST_INIT, mo = STRLIST_INIT;
	char *tasks_dir = NULL;
	int rc = 0, lists = 0;
	if (*file) {
		if (*val(values, "tasks") || *val(values, "harnesses") || *val(values, "models") || *val(values, "task"))
			return err_set(e, ERR_INPUT, "MATRIX=%s lists the runs: give it or task=/tasks=/harnesses=/models=, not both", file);
		cJSON *doc = NULL;
		rc = yaml_read_file(file, &doc, e);
		if (rc == 0 && !cJSON_IsObject(doc))
			rc = err_set(e, ERR_INPUT, "%s: a matrix is a mapping (tasks:, harnesses:, models:, or Harbor's agents: and datasets:)", file);
		if (rc == 0 && (json_get(doc, "agents") || json_get(doc, "datasets")))
			rc = read_harbor(doc, file, agent_fn, arg, tasks, agents, m, e);
		else if (rc == 0) {
			rc = read_lists(doc, file, &t, &h, &mo, &tasks_dir, e);
			if (rc == 0 && (check_all(&t, "task", file, e) < 0 || check_all(&h, "HARNESS", file, e) < 0 ||
			                check_all(&mo, "MODEL", file, e) < 0))
				rc = -1;
			lists = 1;
		}
		cJSON_Delete(doc);
	} else {
		words(*val(values, "tasks") ? val(values, "tasks") : val(values, "task"), &t);
		words(*val(values, "harnesses") ? val(values, "harnesses") : val(values, "HARNESS"), &h);
		words(*val(values, "models") ? val(values, "models") : val(values, "MODEL"), &mo);
		lists = 1;
	}
	if (rc == 0 && lists) {
		if (!h.n)
			strlist_push(&h, val(values, "HARNESS"));
		if (!mo.n)
			strlist_push(&mo, val(values, "MODEL"));
		for (size_t i = 0; i < t.n; i++)
			pairs_add(tasks, t.v[i], tasks_dir);
		for (size_t i = 0; i < h.n; i++)
			for (size_t k = 0; k < mo.n; k++)
				pairs_add(agents, h.v[i], mo.v[k]);
	}
	strlist_free(&t);
	strlist_free(&h);
	strlist_free(&mo);
	free(tasks_dir);
	return rc;
}

static int any_in(const char *filter, const char *s, int substring)
{
	struct strlist w = STRLIST_INIT;
	words(filter, &w);
	int hit = !w.n;
	for (size_t i = 0; i < w.n && !hit; i++)
		hit = substring ? strstr(s, w.v[i]) != NULL : !strcmp(s, w.v[i]);
	strlist_free(&w);
	return hit;
}

static void add_run(struct matrix *m, const char *task, const char *tasks_dir, const char *harness,
                    const char *model, char *dir)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->v = xrealloc(m->v, m->cap * sizeof *m->v);
	}
	struct run_spec *r = &m->v[m->n++];
	r->task = xstrdup(task);
	r->tasks_dir = tasks_dir ? xstrdup(tasks_dir) : NULL;
	r->harness = xstrdup(harness);
	r->model = xstrdup(model);
	r->dir = dir;
}

static int cmp_dir(const void *a, const void *b)
{
	return strcmp(((const struct run_spec *)a)->dir, ((const struct run_spec *)b)->dir);
}

/* RUN_DIR names the one run's folder: under RESULTS, without "..". */
static int check_run_dir(const char *run_dir, const char *results, size_t runs, struct err *e)
{
	size_t n = strlen(results);
	if (runs != 1)
		return err_set(e, ERR_INPUT, "RUN_DIR=%s names one run, and this command is about %zu", run_dir, runs);
	if (strncmp(run_dir, results, n) || run_dir[n] != '/' || !run_dir[n + 1])
		return err_set(e, ERR_INPUT, "RUN_DIR '%s' must be under RESULTS '%s'", run_dir, results);
	if (strstr(run_dir, ".."))
		return err_set(e, ERR_INPUT, "RUN_DIR '%s' must not contain '..'", run_dir);
	return 0;
}

int matrix_expand(const cJSON *values, matrix_agent_fn agent_fn, void *arg, struct matrix *m, struct err *e)
{
	memset(m, 0, sizeof *m);
	struct pairs tasks = { 0 }, agents = { 0 };
	int rc = gather(values, agent_fn, arg, &tasks, &agents, m, e);
	const char *results = val(values, "RESULTS"), *run_dir = val(values, "RUN_DIR");
	/* SKILL_SOURCE: its skill's content names the runs too (docs/baseline.md) */
	char *src = NULL;
	if (rc == 0 && *val(values, "SKILL_SOURCE") && tasks.n) {
		char *tag = skill_source_tag(val(values, "SKILL_SOURCE"), e);
		src = tag ? xasprintf("--%s", tag) : NULL;
		rc = tag ? 0 : -1;
		free(tag);
	}
	for (size_t i = 0; rc == 0 && i < tasks.n; i++) {
		if (!any_in(val(values, "TASK_FILTER"), tasks.v[i].a, 1))
			continue;
		for (size_t k = 0; k < agents.n; k++) {
			const char *h = agents.v[k].a, *mo = agents.v[k].b;
			if (!any_in(val(values, "HARNESS_FILTER"), h, 0) || !any_in(val(values, "MODEL_FILTER"), mo, 0))
				continue;
			char *slug = model_slug(mo);
			char *dir = *run_dir ? xstrdup(run_dir) : xasprintf("%s/%s--%s--%s%s", results, tasks.v[i].a, h, slug, src ? src : "");
			free(slug);
			add_run(m, tasks.v[i].a, tasks.v[i].b, h, mo, dir);
		}
	}
	if (rc == 0 && tasks.n && !m->n)
		rc = err_set(e, ERR_INPUT, "TASK_FILTER/HARNESS_FILTER/MODEL_FILTER leave no run of the %zu there are", tasks.n * agents.n);
	if (rc == 0 && *run_dir && m->n)
		rc = check_run_dir(run_dir, results, m->n, e);
	if (rc == 0 && m->n > 1) {
		qsort(m->v, m->n, sizeof *m->v, cmp_dir);
		for (size_t i = 1; rc == 0 && i < m->n; i++)
			if (!strcmp(m->v[i].dir, m->v[i - 1].dir))
				rc = err_set(e, ERR_INPUT, "two runs of the matrix share the folder %s (a task or combination listed twice)", m->v[i].dir);
	}
	free(src);
	pairs_free(&tasks);
	pairs_free(&agents);
	return rc;
}

int matrix_find_runs(const char *results, struct matrix *m, struct err *e)
{
	memset(m, 0, sizeof *m);
	struct strlist names = STRLIST_INIT;
	if (!fs_is_dir(results))
		return 0;
	if (fs_list_names(results, &names, e) < 0)
		return -1;
	for (size_t i = 0; i < names.n; i++) {
		char *dir = path_join(results, names.v[i]);
		cJSON *doc = json_read_rel(dir, "settings.json");
		const cJSON *s = json_get(doc, "settings");
		const char *task = json_str(doc, "task");
		if (task && name_is_safe(task))
			add_run(m, task, json_str(s, "TASKS_DIR"), json_str(s, "HARNESS") ? json_str(s, "HARNESS") : "",
			        json_str(s, "MODEL") ? json_str(s, "MODEL") : "", dir);
		else
			free(dir);
		cJSON_Delete(doc);
	}
	strlist_free(&names);
	return 0;
}

void matrix_free(struct matrix *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].task);
		free(m->v[i].tasks_dir);
		free(m->v[i].harness);
		free(m->v[i].model);
		free(m->v[i].dir);
	}
	free(m->v);
	free(m->repeat);
	memset(m, 0, sizeof *m);
}
