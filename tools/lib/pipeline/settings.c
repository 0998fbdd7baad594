#include "pipeline/settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"

/* The one list of settings. Defaults for people live in mk/defaults.mk;
 * `fallback` only covers a tool run by hand without make. */
const struct setting_def settings_table[] = {
	{ "TASKS_DIR", SET_PATH, "tasks", NULL, 0, 0, false, "folder holding the tasks" },
	{ "RESULTS", SET_PATH, "results/compile-pipeline", NULL, 0, 0, false, "folder holding the runs" },
	{ "CACHE_DIR", SET_PATH, "results/.cache", NULL, 0, 0, false, "shared content-addressed caches" },
	{ "HARNESS", SET_NAME, "opencode", NULL, 0, 0, true, "agent harness" },
	{ "MODEL", SET_MODEL, "", NULL, 0, 0, true, "target model, provider/model-id" },
	{ "EXTERNAL_MODEL", SET_MODEL, "", NULL, 0, 0, true, "the compiler's planning model" },
	{ "RUNNER", SET_ENUM, "local", "benchflow harbor local", 0, 0, true, "evaluation runner" },
	{ "SANDBOX", SET_ENUM, "bwrap", "bwrap docker none", 0, 0, true,
	  "where local trials run: bwrap, docker (the task's own image) or none" },
	{ "REPEAT", SET_INT, "3", NULL, 1, 1000, true, "trials per evaluation" },
	{ "FAST_MIN_TRACES", SET_INT, "6", NULL, 1, 1000, true, "traces needed by the fast stage" },
	{ "DEEP_ROUNDS", SET_INT, "3", NULL, 0, 100, true, "deep optimization rounds" },
	{ "STATIC_MODE", SET_ENUM, "deterministic", "deterministic hybrid", 0, 0, true, "static compile mode" },
	{ "REQUIRE_SKILL", SET_INT, "0", NULL, 0, 1, true, "a trial must invoke the skill to count" },
	{ "AGENT_TIMEOUT", SET_INT, "0", NULL, 0, 604800, true, "agent wall-clock limit per trial, seconds (0: the task's own)" },
	{ "RM_API_URL", SET_URL, "", NULL, 0, 0, true, "AgentRM scoring service" },
	{ "PROFILES_DIR", SET_PATH, "profiles", NULL, 0, 0, false, "your model profiles, searched before rules/profiles" },
	{ "MAX_FILE_MB", SET_INT, "25", NULL, 1, 4096, true, "largest file ingest accepts, in MB" },
	{ "STAGE_TIMEOUT", SET_INT, "3600", NULL, 1, 604800, false, "time limit of one stage, seconds" },
	{ "TRIAL_TIMEOUT", SET_INT, "10800", NULL, 60, 604800, false, "hard time limit of one evaluation trial, seconds" },
	{ "ROUTES", SET_PATH, "provider_routes.json", NULL, 0, 0, false, "provider routes file" },
	{ "ENV_FILE", SET_PATH, ".env", NULL, 0, 0, false, "file holding API keys" },
	{ "LLM_CACHE", SET_ENUM, "use", "use refresh off only", 0, 0, false, "LLM cache mode" },
	{ "DOCTOR_PROBE", SET_ENUM, "models", "models call none", 0, 0, false, "how far make doctor tests a provider" },
};
const size_t settings_count = ARRAY_LEN(settings_table);

const struct setting_def *setting_find(const char *name)
{
	for (size_t i = 0; i < settings_count; i++)
		if (!strcmp(settings_table[i].name, name))
			return &settings_table[i];
	return NULL;
}

static bool chars_ok(const char *v, const char *extra)
{
	for (const char *p = v; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("._-", c) || (c && strchr(extra, c))))
			return false;
	}
	return true;
}

int setting_check(const struct setting_def *s, const char *v, struct err *e)
{
	switch (s->kind) {
	case SET_NAME:
		if (!name_is_safe(v))
			return err_set(e, ERR_INPUT, "bad %s '%s': use letters, digits, '.', '_' and '-', starting with a letter or digit", s->name, v);
		return 0;
	case SET_MODEL:
		if (!*v)
			return 0;
		if (!name_is_safe(v) && !(chars_ok(v, "/:@") && v[0] != '/' && v[0] != '.' && !strstr(v, "..")))
			return err_set(e, ERR_INPUT, "bad %s '%s': write provider/model-id with letters, digits and . _ - / : @", s->name, v);
		if (!strchr(v, '/'))
			return err_set(e, ERR_INPUT, "bad %s '%s': write provider/model-id, e.g. vllm/Qwen/Qwen3.5-27B", s->name, v);
		return 0;
	case SET_PATH:
		if (!*v || !chars_ok(v, "/+~@"))
			return err_set(e, ERR_INPUT, "bad %s '%s': a path of letters, digits and . _ - / + ~ @ (no spaces, quotes or $)", s->name, v);
		return 0;
	case SET_URL:
		if (!*v)
			return 0;
		if ((strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) || !chars_ok(v, "/:?&=%+~,@#[]"))
			return err_set(e, ERR_INPUT, "bad %s '%s': an http:// or https:// URL without spaces or quotes", s->name, v);
		return 0;
	case SET_INT: {
		char *end;
		long n = strtol(v, &end, 10);
		if (!*v || *end || n < s->min || n > s->max)
			return err_set(e, ERR_INPUT, "bad %s '%s': a whole number from %ld to %ld", s->name, v, s->min, s->max);
		return 0;
	}
	case SET_ENUM: {
		size_t n = strlen(v);
		for (const char *p = s->choices; n && *p;) {
			size_t w = strcspn(p, " ");
			if (w == n && !strncmp(p, v, n))
				return 0;
			p += w;
			p += *p == ' ';
		}
		return err_set(e, ERR_INPUT, "bad %s '%s': one of %s", s->name, v, s->choices);
	}
	}
	return 0;
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v ? v : fallback;
}

int run_load(struct run *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	r->values = cJSON_CreateObject();
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		const char *v = env_or(s->name, s->fallback);
		if (setting_check(s, v, e) < 0)
			return -1;
		cJSON_AddStringToObject(r->values, s->name, v);
	}
	const char *dir = getenv("SKILLC_RUN"), *task = getenv("SKILLC_TASK"), *tdir = getenv("SKILLC_TASK_DIR");
	if (!dir || !*dir || !task || !tdir)
		return err_set(e, ERR_INPUT, "SKILLC_RUN, SKILLC_TASK and SKILLC_TASK_DIR are unset: run this through make (make task=<name> ...)");
	if (!name_is_safe(task))
		return err_set(e, ERR_INPUT, "bad task name '%s': use letters, digits, '.', '_' and '-', starting with a letter or digit", task);
	r->dir = xstrdup(dir);
	r->task = xstrdup(task);
	r->task_dir = xstrdup(tdir);
	r->rules_dir = rules_dir();
	if (!r->rules_dir)
		r->rules_dir = xstrdup("rules"); /* absent: the stages that need it say so */
	return 0;
}

void run_free(struct run *r)
{
	free(r->dir);
	free(r->task);
	free(r->task_dir);
	free(r->rules_dir);
	cJSON_Delete(r->values);
	memset(r, 0, sizeof *r);
}

const char *run_get(const struct run *r, const char *name)
{
	const char *v = json_str(r->values, name);
	return v ? v : "";
}

long run_get_int(const struct run *r, const char *name)
{
	return strtol(run_get(r, name), NULL, 10);
}

char *run_path(const struct run *r, const char *rel)
{
	return path_join(r->dir, rel);
}

cJSON *run_config(const struct run *r)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "task", r->task);
	for (size_t i = 0; i < settings_count; i++)
		if (settings_table[i].result)
			cJSON_AddStringToObject(c, settings_table[i].name, run_get(r, settings_table[i].name));
	return c;
}
