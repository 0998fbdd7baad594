#include "pipeline/skillrun.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"

static const char *val(const cJSON *values, const char *name)
{
	const char *v = json_str(values, name);
	return v ? v : "";
}

/* Words separated by spaces or commas, as the settings take lists. */
static void words(const char *s, struct strlist *out)
{
	while (*s) {
		s += strspn(s, " \t,");
		size_t n = strcspn(s, " \t,");
		if (n) {
			char *w = xstrndup(s, n);
			strlist_push_new(out, w);
			free(w);
		}
		s += n;
	}
	strlist_sort(out);
}

void skillrun_draw(size_t n, size_t k, long seed, bool *is_test)
{
	size_t *order = xcalloc(n ? n : 1, sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	uint64_t s = (uint64_t)seed;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&s) % i);
		size_t t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		is_test[order[i]] = i < k;
	free(order);
}

size_t skillrun_test_count(size_t n, double split)
{
	double k = floor(split * (double)n + 0.5);
	if (k < 1)
		k = 1;
	if (k > (double)n - 1)
		k = (double)n - 1;
	return (size_t)k;
}

/* train= and test=, or tasks= drawn; every task a folder of TASKS_DIR. */
static int plan_split(const cJSON *values, struct skillrun *sr, struct err *e)
{
	const char *train = val(values, "train"), *test = val(values, "test"),
		   *tasks = val(values, "tasks");
	if (*tasks && (*train || *test))
		return err_set(e, ERR_INPUT,
		               "skill run: give train= and test=, or tasks= with SPLIT, not both");
	if (*tasks) {
		struct strlist all = STRLIST_INIT;
		words(tasks, &all);
		if (all.n < 2) {
			strlist_free(&all);
			return err_set(
				e, ERR_INPUT,
				"skill run: tasks= names %zu task; a split needs at least 2 (one "
					"to train, one to test)",
				all.n);
		}
		bool *is_test = xcalloc(all.n, sizeof *is_test);
		skillrun_draw(all.n, skillrun_test_count(all.n, strtod(val(values, "SPLIT"), NULL)),
		              sr->seed, is_test);
		for (size_t i = 0; i < all.n; i++)
			strlist_push(is_test[i] ? &sr->test : &sr->train, all.v[i]);
		free(is_test);
		strlist_free(&all);
		sr->drawn = true;
	} else {
		words(train, &sr->train);
		words(test, &sr->test);
		if (!sr->train.n || !sr->test.n)
			return err_set(
				e, ERR_INPUT,
				"skill run: skill= needs train=\"t1 ...\" and test=\"t5 ...\" (or "
					"tasks=\"...\" with SPLIT=0.4)");
	}
	for (size_t i = 0; i < sr->test.n; i++)
		if (strlist_has(&sr->train, sr->test.v[i]))
			return err_set(
				e, ERR_INPUT,
				"skill run: task '%s' is in both train= and test=: a held-out "
					"task must be one the tuning never saw",
				sr->test.v[i]);
	struct strlist *lists[] = { &sr->train, &sr->test };
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			char *d = path_join(sr->tasks_dir, lists[l]->v[i]);
			bool ok = fs_is_dir(d);
			free(d);
			if (!ok)
				return err_set(
					e, ERR_INPUT,
					"skill run: task '%s' not found in TASKS_DIR '%s': check "
						"the name",
					lists[l]->v[i], sr->tasks_dir);
		}
	return 0;
}

static cJSON *copy_of(cJSON *copies, const char *hash)
{
	cJSON *c;
	cJSON_ArrayForEach(c, copies)
		if (!strcmp(json_str(c, "hash"), hash))
			return c;
	c = cJSON_CreateObject();
	json_set_str(c, "hash", hash);
	json_set(c, "tasks", cJSON_CreateArray());
	cJSON_AddItemToArray(copies, c);
	return c;
}

/* The copy of the skill `name` in the most train tasks (ties: the first
 * train task's); the copies that differ listed in sr->choice. */
static int find_by_name(const char *name, struct skillrun *sr, struct err *e)
{
	sr->copies = cJSON_CreateArray();
	cJSON *best = NULL;
	for (size_t i = 0; i < sr->train.n; i++) {
		char *dir = xasprintf("%s/%s/environment/skills/%s", sr->tasks_dir, sr->train.v[i],
		                      name);
		char *md = path_join(dir, "SKILL.md");
		hash_hex h;
		if (fs_exists(md) && hash_tree(dir, h, e) == 0) {
			cJSON *c = copy_of(sr->copies, h);
			cJSON_AddItemToArray(json_get(c, "tasks"),
			                     cJSON_CreateString(sr->train.v[i]));
			if (!best ||
			    cJSON_GetArraySize(json_get(c, "tasks")) >
			            cJSON_GetArraySize(json_get(best, "tasks")))
				best = c;
		}
		free(md);
		free(dir);
	}
	if (!best)
		return err_set(
			e, ERR_INPUT,
			"skill run: no train task holds a skill folder '%s' "
				"(environment/skills/%s/SKILL.md): give skill=<folder> or a name "
				"one of them has",
			name, name);
	const char *first = cJSON_GetArrayItem(json_get(best, "tasks"), 0)->valuestring;
	sr->skill = xasprintf("%s/%s/environment/skills/%s", sr->tasks_dir, first, name);
	int copies = cJSON_GetArraySize(sr->copies);
	if (copies > 1) {
		struct buf b = BUF_INIT;
		buf_printf(&b, "skill %s: %d different copies in the train tasks:", name, copies);
		cJSON *c;
		cJSON_ArrayForEach(c, sr->copies) {
			buf_printf(&b, " %.10s in", json_str(c, "hash"));
			cJSON *t;
			cJSON_ArrayForEach(t, json_get(c, "tasks"))
				buf_printf(&b, " %s", t->valuestring);
			buf_adds(&b, ";");
		}
		buf_printf(&b, " taking %s's (in %d of %zu train tasks)", first,
		           cJSON_GetArraySize(json_get(best, "tasks")), sr->train.n);
		sr->choice = buf_detach(&b);
	}
	return 0;
}

int skillrun_plan(const cJSON *values, struct skillrun *sr, struct err *e)
{
	memset(sr, 0, sizeof *sr);
	sr->tasks_dir = fs_real_path(val(values, "TASKS_DIR"));
	sr->seed = strtol(val(values, "SPLIT_SEED"), NULL, 10);
	if (*val(values, "SPLIT"))
		sr->split = xstrdup(val(values, "SPLIT"));
	if (!sr->tasks_dir)
		return err_set(e, ERR_INPUT,
		               "skill run: TASKS_DIR '%s' is not a folder: point it at the tasks",
		               val(values, "TASKS_DIR"));
	if (*val(values, "task"))
		return err_set(e, ERR_INPUT,
		               "skill run: skill= takes train= and test= (or tasks=), not task=");
	if (plan_split(values, sr, e) < 0)
		return -1;
	const char *skill = val(values, "skill");
	char *md = path_join(skill, "SKILL.md");
	bool folder = fs_exists(md);
	free(md);
	if (folder)
		sr->skill = fs_real_path(skill);
	else if (!name_is_safe(skill) || strchr(skill, '/'))
		return err_set(
			e, ERR_INPUT,
			"skill run: skill='%s' is neither a skill folder (no SKILL.md) nor a "
				"skill folder name",
			skill);
	else if (find_by_name(skill, sr, e) < 0)
		return -1;
	sr->name = xstrdup(path_base(sr->skill));
	if (!name_is_safe(sr->name))
		return err_set(
			e, ERR_INPUT,
			"skill run: skill folder name '%s' is outside [A-Za-z0-9._-]: rename the "
				"folder",
			sr->name);
	return hash_tree(sr->skill, sr->hash, e);
}

void skillrun_free(struct skillrun *sr)
{
	free(sr->skill);
	free(sr->name);
	free(sr->choice);
	free(sr->tasks_dir);
	free(sr->split);
	cJSON_Delete(sr->copies);
	strlist_free(&sr->train);
	strlist_free(&sr->test);
	memset(sr, 0, sizeof *sr);
}

static cJSON *names_json(const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
	return a;
}

char *skillrun_dir(const struct skillrun *sr, const char *results, const char *harness,
                   const char *slug)
{
	cJSON *key = cJSON_CreateObject();
	json_set(key, "train", names_json(&sr->train));
	json_set(key, "test", names_json(&sr->test));
	char h[33];
	json_hash(key, h);
	cJSON_Delete(key);
	return xasprintf("%s/skill-%s--%s--%s--%.8s", results, sr->name, harness, slug, h);
}

cJSON *skillrun_json(const struct skillrun *sr)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *s = json_set(o, "skill", cJSON_CreateObject());
	json_set_str(s, "name", sr->name);
	json_set_str(s, "source", sr->skill);
	json_set_str(s, "hash", sr->hash);
	json_set(s, "copies", sr->copies ? cJSON_Duplicate(sr->copies, true) : cJSON_CreateNull());
	json_set_str(s, "choice", sr->choice);
	cJSON *sp = json_set(o, "split", cJSON_CreateObject());
	json_set(sp, "train", names_json(&sr->train));
	json_set(sp, "test", names_json(&sr->test));
	json_set_str(sp, "how", sr->drawn ? "drawn" : "given");
	json_set(sp, "fraction",
	         sr->drawn ? cJSON_CreateNumber(strtod(sr->split, NULL)) : cJSON_CreateNull());
	json_set(sp, "seed", sr->drawn ? cJSON_CreateNumber((double)sr->seed) : cJSON_CreateNull());
	return o;
}

/* tmp = the task's set without `name`, then skill copied in as tmp/name. */
static int compose_into(const char *task_dir, const char *skill, const char *name, const char *tmp,
                        struct err *e)
{
	char *own = path_join(task_dir, "environment/skills");
	struct strlist names = STRLIST_INIT;
	int rc = fs_mkdirs(tmp, e);
	if (rc == 0 && fs_is_dir(own))
		rc = fs_list_names(own, &names, e);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		if (!strcmp(names.v[i], name))
			continue;
		char *from = path_join(own, names.v[i]), *to = path_join(tmp, names.v[i]);
		rc = fs_is_dir(from) ? tree_copy(from, to, false, e)
				     : fs_copy_file(from, to, 0644, e);
		free(from);
		free(to);
	}
	char *to = path_join(tmp, name);
	if (rc == 0)
		rc = tree_copy(skill, to, false, e);
	free(to);
	strlist_free(&names);
	free(own);
	return rc;
}

int skillrun_compose(const char *task_dir, const char *skill, const char *name, const char *out,
                     struct err *e)
{
	char *parent = path_dir(out), *tmp = fs_temp_beside(out);
	hash_hex now, was;
	int rc = fs_mkdirs(parent, e) < 0 || fs_remove_tree(tmp, e) < 0 ||
			compose_into(task_dir, skill, name, tmp, e) < 0
		? -1
		: 0;
	if (rc == 0 && fs_is_dir(out) && hash_tree(tmp, now, e) == 0 &&
	    hash_tree(out, was, e) == 0 && !strcmp(now, was))
		rc = fs_remove_tree(tmp, e);
	else if (rc == 0)
		rc = fs_publish_dir(tmp, out, e);
	if (rc < 0) {
		struct err ignored;
		fs_remove_tree(tmp, &ignored);
	}
	free(parent);
	free(tmp);
	return rc;
}
