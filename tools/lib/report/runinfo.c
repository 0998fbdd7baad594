#include "report/runinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "skill/source.h"

/* The skills root of a stage name (the layout in runinfo.h), run-relative;
 * NULL when none or unknown. Caller frees. */
static char *runinfo_skill_root(const char *stage)
{
	static const struct {
		const char *stage, *root;
	} fixed[] = {
		{ "raw", "inputs/skill" },
		{ "static", "artifacts/static/S_static" },
		{ "fast", "artifacts/fast/S_fast" },
		{ "final", "artifacts/deep/S_final" },
	};
	for (size_t i = 0; i < ARRAY_LEN(fixed); i++)
		if (!strcmp(stage, fixed[i].stage))
			return xstrdup(fixed[i].root);
	char *end;
	if (!strncmp(stage, "deep-", 5) && stage[5] >= '1' && stage[5] <= '9') {
		long k = strtol(stage + 5, &end, 10);
		if (!*end)
			return xasprintf("artifacts/deep/round-%ld/candidate", k);
	}
	return NULL;
}

/* The hash skillc-eval records for the skills in root (skill_set_hash:
 * the one skill's tree hash, or the set's); "" when root holds none. */
static void root_skill_hash(const char *root, hash_hex out)
{
	out[0] = 0;
	struct skill_set set;
	struct err e;
	if (skill_set_open(root, false, 0, &set, &e) < 0 || skill_set_hash(&set, out, &e) < 0)
		out[0] = 0;
	skill_set_free(&set);
}

/* The indexes of <stage>-eval.NNN in the manifest's targets; NULL when none. */
static cJSON *due_of(const cJSON *manifest, const char *stage)
{
	const cJSON *targets = json_get(manifest, "targets");
	char *prefix = xasprintf("%s-eval.", stage);
	size_t plen = strlen(prefix);
	cJSON *due = NULL;
	for (const cJSON *t = targets ? targets->child : NULL; t; t = t->next) {
		if (!t->string || strncmp(t->string, prefix, plen))
			continue;
		char *end;
		long i = strtol(t->string + plen, &end, 10);
		if (*end || i < 1)
			continue;
		if (!due)
			due = cJSON_CreateArray();
		cJSON_AddItemToArray(due, cJSON_CreateNumber((double)i));
	}
	free(prefix);
	return due;
}

static void add_stage(struct runinfo *ri, const char *task, const char *name)
{
	ri->st = xrealloc(ri->st, (ri->n + 1) * sizeof *ri->st);
	struct runinfo_stage *s = &ri->st[ri->n++];
	memset(s, 0, sizeof *s);
	s->task = xstrdup(task);
	s->name = xstrdup(name);
	s->due = due_of(ri->manifest, name);
	if (!strcmp(name, "noskill")) {
		snprintf(s->skill, sizeof s->skill, "no-skill");
		return;
	}
	s->skill_root = runinfo_skill_root(name);
	if (s->skill_root) {
		char *root = path_join(ri->dir, s->skill_root);
		root_skill_hash(root, s->skill);
		free(root);
	}
}

void runinfo_load(struct runinfo *ri, const char *dir)
{
	memset(ri, 0, sizeof *ri);
	ri->dir = xstrdup(dir);
	ri->config = json_read_rel(dir, "inputs/config.json");
	ri->manifest = json_read_rel(dir, "manifest.json");
	const char *bench = json_str(ri->config, "BENCH");
	ri->bench = xstrdup(bench ? bench : "");
	const char *source = json_str(ri->config, "SKILL_SOURCE");
	ri->source = xstrdup(source ? source : "");
	char *traces = path_join(dir, "traces");
	struct strlist tasks = STRLIST_INIT;
	struct err e;
	fs_list_names(traces, &tasks, &e);
	for (size_t i = 0; i < tasks.n; i++) {
		char *td = path_join(traces, tasks.v[i]);
		struct strlist stages = STRLIST_INIT;
		fs_list_names(td, &stages, &e);
		for (size_t k = 0; k < stages.n; k++) {
			char *sd = path_join(td, stages.v[k]);
			if (fs_is_dir(sd))
				add_stage(ri, tasks.v[i], stages.v[k]);
			free(sd);
		}
		strlist_free(&stages);
		free(td);
	}
	strlist_free(&tasks);
	free(traces);
}

void runinfo_free(struct runinfo *ri)
{
	for (size_t i = 0; i < ri->n; i++) {
		free(ri->st[i].task);
		free(ri->st[i].name);
		free(ri->st[i].skill_root);
		cJSON_Delete(ri->st[i].due);
	}
	free(ri->st);
	free(ri->dir);
	free(ri->bench);
	free(ri->source);
	cJSON_Delete(ri->config);
	cJSON_Delete(ri->manifest);
	memset(ri, 0, sizeof *ri);
}

bool runinfo_due(const struct runinfo_stage *s, long i)
{
	if (!s->due)
		return true;
	for (const cJSON *d = s->due->child; d; d = d->next)
		if ((long)d->valuedouble == i)
			return true;
	return false;
}

long runinfo_due_count(const struct runinfo_stage *s)
{
	return s->due ? (long)cJSON_GetArraySize(s->due) : -1;
}
