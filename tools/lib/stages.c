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

static void ingest_command(const struct run *r, const char *bindir, struct strlist *argv)
{
	strlist_push_owned(argv, path_join(bindir, "skillc-ingest"));
	push_flag(argv, "--task", r->task_dir);
	strlist_push_owned(argv, xstrdup("--out"));
	strlist_push_owned(argv, run_path(r, "inputs/skill"));
	strlist_push_owned(argv, xstrdup("--hash"));
	strlist_push_owned(argv, run_path(r, "inputs/skill.hash"));
	strlist_push_owned(argv, xstrdup("--report"));
	strlist_push_owned(argv, run_path(r, "inputs/check.json"));
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

int stage_outputs(const struct stage_def *s, const char *rel)
{
	for (size_t i = 0; i < ARRAY_LEN(s->outputs) && s->outputs[i]; i++)
		if (!strcmp(s->outputs[i], rel))
			return 1;
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

int goal_stages(const char *goal, const struct stage_def **out, size_t max)
{
	const struct stage_def *last = stage_find(goal);
	if (!last && (!strcmp(goal, "final") || !strcmp(goal, "all")))
		last = &stage_table[stage_count - 1];
	if (!last)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < stage_count && n < max; i++)
		if (stage_depends_on(last, &stage_table[i]))
			out[n++] = &stage_table[i];
	return (int)n;
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
