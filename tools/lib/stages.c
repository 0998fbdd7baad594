#include "stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "hash.h"
#include "json.h"
#include "versions.h"

const struct source_def source_table[] = {
	{ "inputs/skill.src.hash", "environment/skills" },
};
const size_t source_count = ARRAY_LEN(source_table);

static void push_flag(struct strlist *argv, const char *flag, const char *value)
{
	strlist_push(argv, flag);
	strlist_push(argv, value);
}

static void push_path(struct strlist *argv, const char *flag, const struct run *r, const char *rel)
{
	strlist_push(argv, flag);
	strlist_push_owned(argv, run_path(r, rel));
}

static void ingest_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                           struct strlist *argv)
{
	strlist_push_owned(argv, path_join(bindir, "skillc-ingest"));
	push_flag(argv, "--task", r->task_dir);
	push_path(argv, "--out", r, "inputs/skill");
	push_path(argv, "--hash", r, "inputs/skill.hash");
	push_path(argv, "--report", r, "inputs/check.json");
	push_flag(argv, "--max-file-mb", run_get(r, "MAX_FILE_MB"));
}

const struct stage_def stage_table[] = {
	{
		.name = "ingest",
		.help = "copy the task's skill into inputs/skill/, validated",
		.tool = "skillc-ingest",
		.version = V_INGEST,
		.inputs = { "inputs/skill.src.hash" },
		.outputs = { "inputs/skill", "inputs/skill.hash", "inputs/check.json" },
		.settings = { "MAX_FILE_MB" },
		.command = ingest_command,
	},
};
const size_t stage_count = ARRAY_LEN(stage_table);

const struct stage_def *stage_find(const char *name)
{
	for (size_t i = 0; i < stage_count; i++)
		if (!strcmp(stage_table[i].name, name))
			return &stage_table[i];
	return NULL;
}

static int instances(const struct stage_def *s, const struct run *r)
{
	return s->repeat ? (int)run_get_int(r, s->repeat) : 0;
}

static void ref_init(struct stage_ref *ref, const struct stage_def *s, int index, int count)
{
	ref->def = s;
	ref->index = index;
	ref->count = count;
	if (index)
		snprintf(ref->name, sizeof ref->name, "%s.%03d", s->name, index);
	else
		snprintf(ref->name, sizeof ref->name, "%s", s->name);
}

size_t stage_refs(const struct run *r, struct stage_ref **out)
{
	size_t n = 0;
	for (size_t i = 0; i < stage_count; i++) {
		int k = instances(&stage_table[i], r);
		n += k ? (size_t)k : 1;
	}
	struct stage_ref *v = xcalloc(n, sizeof *v);
	n = 0;
	for (size_t i = 0; i < stage_count; i++) {
		int k = instances(&stage_table[i], r);
		if (!k)
			ref_init(&v[n++], &stage_table[i], 0, 0);
		for (int j = 1; j <= k; j++)
			ref_init(&v[n++], &stage_table[i], j, k);
	}
	*out = v;
	return n;
}

int stage_ref_find(const struct run *r, const char *name, struct stage_ref *out)
{
	struct stage_ref *v;
	size_t n = stage_refs(r, &v);
	int found = -1;
	for (size_t i = 0; i < n && found < 0; i++)
		if (!strcmp(v[i].name, name)) {
			*out = v[i];
			found = 0;
		}
	free(v);
	return found;
}

/* Replaces %T with the task's name and %N with the 3-digit instance. */
static char *expand(const char *tmpl, const struct run *r, int index)
{
	struct buf b = BUF_INIT;
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '%' && p[1] == 'T') {
			buf_adds(&b, r->task);
			p++;
		} else if (p[0] == '%' && p[1] == 'N') {
			buf_printf(&b, "%03d", index);
			p++;
		} else {
			buf_addc(&b, *p);
		}
	}
	return buf_detach(&b);
}

void stage_ref_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	const struct stage_def *s = ref->def;
	for (size_t i = 0; i < ARRAY_LEN(s->inputs) && s->inputs[i]; i++) {
		if (strstr(s->inputs[i], "%N") && !ref->index && s->gather) {
			long k = run_get_int(r, s->gather);
			for (int j = 1; j <= k; j++)
				strlist_push_owned(out, expand(s->inputs[i], r, j));
		} else {
			strlist_push_owned(out, expand(s->inputs[i], r, ref->index));
		}
	}
}

void stage_ref_outputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	const struct stage_def *s = ref->def;
	for (size_t i = 0; i < ARRAY_LEN(s->outputs) && s->outputs[i]; i++)
		strlist_push_owned(out, expand(s->outputs[i], r, ref->index));
}

int stage_depends_on(const struct stage_def *s, const struct stage_def *up)
{
	if (s == up)
		return 1;
	for (size_t i = 0; i < ARRAY_LEN(s->after) && s->after[i]; i++) {
		const struct stage_def *a = stage_find(s->after[i]);
		if (a && stage_depends_on(a, up))
			return 1;
	}
	return 0;
}

cJSON *stage_config(const struct stage_def *s, const struct run *r)
{
	cJSON *c = cJSON_CreateObject();
	cJSON *set = cJSON_AddObjectToObject(c, "settings");
	for (size_t i = 0; i < ARRAY_LEN(s->settings) && s->settings[i]; i++)
		cJSON_AddStringToObject(set, s->settings[i], run_get(r, s->settings[i]));
	char *tool = xasprintf("%s %s", s->tool, s->version);
	cJSON_AddStringToObject(c, "tool", tool);
	free(tool);
	return c;
}

char *stage_config_path(const struct stage_def *s)
{
	return xasprintf("inputs/config/%s.json", s->name);
}

int goal_refs(const struct run *r, const char *goal, struct stage_ref **out)
{
	const struct stage_def *last = stage_find(goal);
	int everything = !strcmp(goal, "final") || !strcmp(goal, "all");
	*out = NULL;
	if (!last && !everything)
		return -1;
	struct stage_ref *all;
	size_t n = stage_refs(r, &all), k = 0;
	for (size_t i = 0; i < n; i++)
		if (everything || stage_depends_on(last, all[i].def))
			all[k++] = all[i];
	*out = all;
	return (int)k;
}

int source_hash(const struct run *r, const struct source_def *src, char out[33], struct err *e)
{
	char *path = *src->what ? path_join(r->task_dir, src->what) : xstrdup(r->task_dir);
	int rc = 0;
	if (!fs_exists(path)) {
		char *absent = xasprintf("absent:%s", src->what);
		hash_bytes(absent, strlen(absent), out);
		free(absent);
	} else {
		rc = hash_tree(path, out, e);
	}
	free(path);
	return rc;
}
