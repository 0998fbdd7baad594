#include "pipeline/stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/versions.h"

const struct source_def source_table[] = {
	{ "inputs/skill.src.hash", SRC_SKILL, "environment/skills" },
	{ "inputs/task.src.hash", SRC_TASK, "" }, /* a trial depends on the whole task: tests, data, Dockerfile */
	{ "inputs/profiles.src.hash", SRC_RULES, "profiles" },
	{ "inputs/user-profiles.src.hash", SRC_SETTING, "PROFILES_DIR" },
	/* the images of SANDBOX=docker: the task's environment, the harness's recipe */
	{ "inputs/environment.src.hash", SRC_TASK, "environment" },
	{ "inputs/harness.src.hash", SRC_HARNESS, "HARNESS" },
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
	if (*run_get(r, "SKILL_SOURCE"))
		push_flag(argv, "--skill-source", run_get(r, "SKILL_SOURCE"));
}

/* The docker images of a trial: only for RUNNER=local SANDBOX=docker. */
#define DOCKER_TRIALS { "RUNNER=local", "SANDBOX=docker" }
#define L1_STAMP "images/%T.l1.id"
#define L2_STAMP "images/%T--%H.l2.id"

static char *expand(const char *tmpl, const struct run *r, int index);

/* The tag in the run's L2 stamp ("<id> <tag>"), or NULL without one. */
static char *l2_tag(const struct run *r)
{
	if (strcmp(run_get(r, "RUNNER"), "local") || strcmp(run_get(r, "SANDBOX"), "docker"))
		return NULL;
	char *rel = expand(L2_STAMP, r, 0), *path = run_path(r, rel);
	struct buf b = BUF_INIT;
	struct err e;
	char *tag = NULL;
	if (fs_read(path, 4096, &b, &e) == 0 && b.data && strchr(b.data, ' ')) {
		const char *t = strchr(b.data, ' ') + 1;
		tag = xstrndup(t, strcspn(t, " \n"));
	}
	buf_free(&b);
	free(path);
	free(rel);
	return tag;
}

/* skillc-image l1|l2: a run's image stamps. */
static void image_argv(const struct run *r, const char *bindir, const char *kind, struct strlist *argv)
{
	strlist_push_owned(argv, path_join(bindir, "skillc-image"));
	strlist_push(argv, kind);
	push_flag(argv, "--task", r->task_dir);
	if (!strcmp(kind, "l2")) {
		push_flag(argv, "--harness", run_get(r, "HARNESS"));
		char *l1 = expand(L1_STAMP, r, 0);
		push_path(argv, "--l1", r, l1);
		free(l1);
	}
	char *out = expand(!strcmp(kind, "l1") ? L1_STAMP : L2_STAMP, r, 0);
	push_path(argv, "--out", r, out);
	free(out);
}

static void l1_image_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                             struct strlist *argv)
{
	image_argv(r, bindir, "l1", argv);
	if (*run_get(r, "IMAGE"))
		push_flag(argv, "--image", run_get(r, "IMAGE"));
}

static void l2_image_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                             struct strlist *argv)
{
	image_argv(r, bindir, "l2", argv);
}

/* One trial of an evaluation stage: skillc-eval into traces/<task>/<stage>/test-NNN/.
 * The agent's own limit is AGENT_TIMEOUT; the hard deadline stays under
 * TRIAL_TIMEOUT so skillc-eval, not skillc-stage, does the cleanup. */
static void eval_argv(const struct stage_ref *ref, const struct run *r, const char *bindir, struct strlist *argv,
                      const char *stage, const char *skills_root)
{
	strlist_push_owned(argv, path_join(bindir, "skillc-eval"));
	push_flag(argv, "--task", r->task_dir);
	if (skills_root)
		push_path(argv, "--skills-root", r, skills_root);
	else
		strlist_push(argv, "--no-skill");
	push_flag(argv, "--harness", run_get(r, "HARNESS"));
	push_flag(argv, "--model", run_get(r, "MODEL"));
	push_flag(argv, "--runner", run_get(r, "RUNNER"));
	if (!strcmp(run_get(r, "RUNNER"), "local"))
		push_flag(argv, "--sandbox", !strcmp(run_get(r, "SANDBOX"), "docker") ? "docker" : "local");
	char *image = l2_tag(r);
	if (image)
		push_flag(argv, "--image", image);
	free(image);
	char *out = xasprintf("traces/%s/%s/test-%03d", r->task, stage, ref->index);
	push_path(argv, "--out", r, out);
	free(out);
	push_flag(argv, "--stage", stage);
	strlist_push(argv, "--index");
	strlist_push_owned(argv, xasprintf("%d", ref->index));
	strlist_push(argv, "--of");
	strlist_push_owned(argv, xasprintf("%d", ref->count));
	push_path(argv, "--incomplete", r, ".incomplete");
	push_flag(argv, "--cache", run_get(r, "CACHE_DIR"));
	if (skills_root && run_get_int(r, "REQUIRE_SKILL"))
		strlist_push(argv, "--require-skill");
	if (run_get_int(r, "AGENT_TIMEOUT") > 0)
		push_flag(argv, "--agent-timeout", run_get(r, "AGENT_TIMEOUT"));
	long limit = run_get_int(r, "TRIAL_TIMEOUT");
	strlist_push(argv, "--deadline");
	strlist_push_owned(argv, xasprintf("%ld", limit > 120 ? limit - 30 : limit));
	if (fs_exists(run_get(r, "ENV_FILE")))
		push_flag(argv, "--env-file", run_get(r, "ENV_FILE"));
}

static void noskill_eval_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                                 struct strlist *argv)
{
	eval_argv(ref, r, bindir, argv, "noskill", NULL);
}

static void index_argv(const struct run *r, const char *bindir, struct strlist *argv, const char *stage)
{
	strlist_push_owned(argv, path_join(bindir, "skillc-traces"));
	char *dir = xasprintf("traces/%s/%s", r->task, stage);
	strlist_push_owned(argv, run_path(r, dir));
	free(dir);
}

static void noskill_index_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                                  struct strlist *argv)
{
	index_argv(r, bindir, argv, "noskill");
}

static void raw_eval_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                             struct strlist *argv)
{
	eval_argv(ref, r, bindir, argv, "raw", "inputs/skill");
}

static void raw_index_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                              struct strlist *argv)
{
	index_argv(r, bindir, argv, "raw");
}

static void static_eval_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                                struct strlist *argv)
{
	eval_argv(ref, r, bindir, argv, "static", "artifacts/static/S_static");
}

static void static_index_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                                 struct strlist *argv)
{
	index_argv(r, bindir, argv, "static");
}

static void profile_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                            struct strlist *argv)
{
	strlist_push_owned(argv, path_join(bindir, "skillc-profile"));
	push_flag(argv, "--model", run_get(r, "MODEL"));
	strlist_push(argv, "--profiles");
	strlist_push_owned(argv, path_join(r->rules_dir, "profiles"));
	push_flag(argv, "--user-profiles", run_get(r, "PROFILES_DIR"));
	push_path(argv, "--out", r, "artifacts/static/profile.json");
}

static void static_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                           struct strlist *argv)
{
	strlist_push_owned(argv, path_join(bindir, "skillc-static"));
	push_path(argv, "--skill", r, "inputs/skill");
	push_path(argv, "--profile", r, "artifacts/static/profile.json");
	push_flag(argv, "--mode", run_get(r, "STATIC_MODE"));
	if (!strcmp(run_get(r, "STATIC_MODE"), "hybrid"))
		push_flag(argv, "--external-model", run_get(r, "EXTERNAL_MODEL"));
	push_path(argv, "--out", r, "artifacts/static/S_static");
	push_path(argv, "--hash", r, "artifacts/static/S_static.hash");
	push_path(argv, "--report", r, "artifacts/static/report.json");
	push_path(argv, "--report-md", r, "artifacts/static/report.md");
	push_path(argv, "--plan", r, "artifacts/static/plan.json");
}

const struct stage_def stage_table[] = {
	{
		.name = "l1-image",
		.help = "SANDBOX=docker: the task's environment/ built from its own Dockerfile (or IMAGE) as its L1 image",
		.tool = "skillc-image",
		.version = V_IMAGE,
		.inputs = { "inputs/environment.src.hash" },
		.outputs = { L1_STAMP },
		.settings = { "IMAGE" },
		.when = DOCKER_TRIALS,
		.command = l1_image_command,
	},
	{
		.name = "l2-image",
		.help = "SANDBOX=docker: the L1 image with the harness installed by its recipe (rules/harness/<harness>.json \"image\")",
		.tool = "skillc-image",
		.version = V_IMAGE,
		.after = { "l1-image" },
		.inputs = { L1_STAMP, "inputs/harness.src.hash" },
		.outputs = { L2_STAMP },
		.settings = { "HARNESS" },
		.when = DOCKER_TRIALS,
		.command = l2_image_command,
	},
	{
		.name = "ingest",
		.help = "copy the task's skill into inputs/skill/, validated",
		.tool = "skillc-ingest",
		.version = V_INGEST,
		.inputs = { "inputs/skill.src.hash" },
		.outputs = { "inputs/skill", "inputs/skill.hash", "inputs/check.json" },
		.settings = { "MAX_FILE_MB", "SKILL_SOURCE" },
		.command = ingest_command,
	},
	{
		.name = "raw-eval",
		.help = "REPEAT trials of the raw skill, one target each",
		.tool = "skillc-eval",
		.version = V_EVAL,
		.after = { "ingest", "l2-image" },
		.inputs = { "inputs/skill.hash", "inputs/task.src.hash", L2_STAMP },
		.outputs = { "traces/%T/raw/test-%N", "traces/%T/raw/test-%N/trial.json" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "REQUIRE_SKILL", "AGENT_TIMEOUT" },
		.needs = { "MODEL" },
		.repeat = "REPEAT",
		.timeout = "TRIAL_TIMEOUT",
		.remote = true,
		.command = raw_eval_command,
	},
	{
		.name = "raw-index",
		.help = "traces/<task>/raw/index.json: every raw trial, normalized",
		.tool = "skillc-traces",
		.version = V_TRACES,
		.after = { "raw-eval" },
		.inputs = { "traces/%T/raw/test-%N/trial.json" },
		.outputs = { "traces/%T/raw/index.json" },
		.gather = "REPEAT",
		.command = raw_index_command,
	},
	{
		.name = "noskill-eval",
		.help = "REPEAT trials with no skill at all, the baseline (BASELINE=1 puts them in eval and final)",
		.tool = "skillc-eval",
		.version = V_EVAL,
		/* no skill: the trials depend on the task alone, so every run of the
		 * task, harness, model and runner shares them through the trial store */
		.after = { "l2-image" },
		.inputs = { "inputs/task.src.hash", L2_STAMP },
		.outputs = { "traces/%T/noskill/test-%N", "traces/%T/noskill/test-%N/trial.json" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "AGENT_TIMEOUT" },
		.repeat = "REPEAT",
		.wanted_if = "BASELINE",
		.timeout = "TRIAL_TIMEOUT",
		.remote = true,
		.command = noskill_eval_command,
	},
	{
		.name = "noskill-index",
		.help = "traces/<task>/noskill/index.json: every no-skill trial, normalized",
		.tool = "skillc-traces",
		.version = V_TRACES,
		.after = { "noskill-eval" },
		.inputs = { "traces/%T/noskill/test-%N/trial.json" },
		.outputs = { "traces/%T/noskill/index.json" },
		.gather = "REPEAT",
		.wanted_if = "BASELINE",
		.command = noskill_index_command,
	},
	{
		.name = "profile",
		.help = "resolve MODEL to its model profile (rules/profiles, PROFILES_DIR)",
		.tool = "skillc-profile",
		.version = V_PROFILE,
		.inputs = { "inputs/profiles.src.hash", "inputs/user-profiles.src.hash" },
		.outputs = { "artifacts/static/profile.json" },
		.settings = { "MODEL" },
		.needs = { "MODEL" },
		.command = profile_command,
	},
	{
		.name = "static",
		.help = "static compile of the skill for the profile: S_static/ + report",
		.tool = "skillc-static",
		.version = V_STATIC,
		.after = { "ingest", "profile" },
		.inputs = { "inputs/skill.hash", "artifacts/static/profile.json" },
		.outputs = { "artifacts/static/S_static", "artifacts/static/S_static.hash",
		             "artifacts/static/report.json", "artifacts/static/report.md",
		             "artifacts/static/plan.json" },
		.settings = { "STATIC_MODE", "EXTERNAL_MODEL" },
		.needs = { "EXTERNAL_MODEL if STATIC_MODE=hybrid" },
		.command = static_command,
	},
	{
		.name = "static-eval",
		.help = "REPEAT trials of the statically compiled skill (reused from the store when its bytes equal the raw skill's)",
		.tool = "skillc-eval",
		.version = V_EVAL,
		.after = { "static", "l2-image" },
		.inputs = { "artifacts/static/S_static.hash", "inputs/task.src.hash", L2_STAMP },
		.outputs = { "traces/%T/static/test-%N", "traces/%T/static/test-%N/trial.json" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "REQUIRE_SKILL", "AGENT_TIMEOUT" },
		.needs = { "MODEL" },
		.repeat = "REPEAT",
		.timeout = "TRIAL_TIMEOUT",
		.remote = true,
		.command = static_eval_command,
	},
	{
		.name = "static-index",
		.help = "traces/<task>/static/index.json: every static trial, normalized",
		.tool = "skillc-traces",
		.version = V_TRACES,
		.after = { "static-eval" },
		.inputs = { "traces/%T/static/test-%N/trial.json" },
		.outputs = { "traces/%T/static/index.json" },
		.gather = "REPEAT",
		.command = static_index_command,
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

bool stage_in_run(const struct stage_def *s, const struct run *r)
{
	for (size_t i = 0; i < ARRAY_LEN(s->when) && s->when[i]; i++) {
		const char *eq = strchr(s->when[i], '=');
		char *name = xstrndup(s->when[i], (size_t)(eq - s->when[i]));
		bool holds = !strcmp(run_get(r, name), eq + 1);
		free(name);
		if (!holds)
			return false;
	}
	return true;
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
		if (!stage_in_run(&stage_table[i], r))
			continue;
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

/* Replaces %T with the task's name, %H with the harness's and %N with the
 * 3-digit instance. */
static char *expand(const char *tmpl, const struct run *r, int index)
{
	struct buf b = BUF_INIT;
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '%' && p[1] == 'T') {
			buf_adds(&b, r->task);
			p++;
		} else if (p[0] == '%' && p[1] == 'H') {
			buf_adds(&b, run_get(r, "HARNESS"));
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

/* True when a stage the run lacks makes the file of template tmpl. */
static bool made_by_absent_stage(const char *tmpl, const struct run *r)
{
	for (size_t i = 0; i < stage_count; i++) {
		const struct stage_def *s = &stage_table[i];
		for (size_t k = 0; k < ARRAY_LEN(s->outputs) && s->outputs[k]; k++)
			if (!strcmp(s->outputs[k], tmpl))
				return !stage_in_run(s, r);
	}
	return false;
}

void stage_ref_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	const struct stage_def *s = ref->def;
	for (size_t i = 0; i < ARRAY_LEN(s->inputs) && s->inputs[i]; i++) {
		if (made_by_absent_stage(s->inputs[i], r))
			continue;
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

long stage_timeout(const struct stage_def *s, const struct run *r)
{
	return run_get_int(r, s->timeout ? s->timeout : "STAGE_TIMEOUT");
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

/* An evaluation stage: its trials (repeat) or their gathering (gather). */
static int is_eval_stage(const struct stage_def *s)
{
	return s->repeat || s->gather;
}

/* True when goal `eval` needs stage s: some evaluation stage is s or comes after it. */
static int eval_needs(const struct stage_def *s)
{
	for (size_t i = 0; i < stage_count; i++)
		if (is_eval_stage(&stage_table[i]) && stage_depends_on(&stage_table[i], s))
			return 1;
	return 0;
}

bool goal_known(const char *goal)
{
	return stage_find(goal) || !strcmp(goal, "final") || !strcmp(goal, "all") || !strcmp(goal, "eval");
}

bool goal_includes(const char *goal, const struct stage_def *s)
{
	if (!strcmp(goal, "final") || !strcmp(goal, "all"))
		return true;
	if (!strcmp(goal, "eval"))
		return eval_needs(s);
	const struct stage_def *last = stage_find(goal);
	return last && stage_depends_on(last, s);
}

int goal_refs(const struct run *r, const char *goal, struct stage_ref **out)
{
	/* images: the L2s and the L1s they are built on */
	if (!strcmp(goal, "images"))
		goal = "l2-image";
	*out = NULL;
	if (!goal_known(goal))
		return -1;
	struct stage_ref *all;
	size_t n = stage_refs(r, &all), k = 0;
	/* the whole pipeline's goals leave out the stages the run does not want (BASELINE) */
	bool whole = !strcmp(goal, "final") || !strcmp(goal, "all") || !strcmp(goal, "eval");
	for (size_t i = 0; i < n; i++) {
		const struct stage_def *s = all[i].def;
		if (goal_includes(goal, s) && (!whole || stage_wanted(s, r)))
			all[k++] = all[i];
	}
	*out = all;
	return (int)k;
}

/* The folder holding <harness>.json (HARNESS_PATH first, then rules/harness). */
static char *harness_folder(const struct run *r, const char *name)
{
	char *file = xasprintf("%s.json", name);
	char *rules = path_join(r->rules_dir, "harness");
	char *found = rules_find_in("HARNESS_PATH", rules, file, NULL);
	char *dir = found ? path_dir(found) : rules;
	if (found)
		free(rules);
	free(found);
	free(file);
	return dir;
}

/* "NAME" or "NAME if OTHER=value": does it name setting, and hold in r? */
static bool need_holds(const char *need, const struct run *r, const char *setting)
{
	size_t n = strcspn(need, " ");
	if (n != strlen(setting) || strncmp(need, setting, n))
		return false;
	const char *cond = need[n] ? strstr(need, " if ") : NULL;
	if (!cond)
		return !need[n];
	cond += 4;
	const char *eq = strchr(cond, '=');
	if (!eq)
		return false;
	char *other = xstrndup(cond, (size_t)(eq - cond));
	bool holds = !strcmp(run_get(r, other), eq + 1);
	free(other);
	return holds;
}

bool stage_needs(const struct stage_def *s, const struct run *r, const char *setting)
{
	for (size_t i = 0; i < ARRAY_LEN(s->needs) && s->needs[i]; i++)
		if (need_holds(s->needs[i], r, setting))
			return true;
	return false;
}

char *source_path(const struct run *r, const struct source_def *src)
{
	switch (src->root) {
	case SRC_SETTING:
		return xstrdup(run_get(r, src->what));
	case SRC_HARNESS:
		return harness_folder(r, run_get(r, src->what));
	case SRC_RULES:
		return *src->what ? path_join(r->rules_dir, src->what) : xstrdup(r->rules_dir);
	case SRC_SKILL:
		if (*run_get(r, "SKILL_SOURCE"))
			return xstrdup(run_get(r, "SKILL_SOURCE"));
		break;
	case SRC_TASK:
		break;
	}
	return *src->what ? path_join(r->task_dir, src->what) : xstrdup(r->task_dir);
}

int source_hash(const struct run *r, const struct source_def *src, bool update, char out[33], struct err *e)
{
	char *path = source_path(r, src);
	int rc = 0;
	if (!fs_exists(path)) {
		char *absent = xasprintf("absent:%s", src->what);
		hash_bytes(absent, strlen(absent), out);
		free(absent);
	} else {
		/* "inputs/task.src.hash" -> "inputs/.task.src.cache": per-file hashes,
		 * so an unchanged task costs a stat per file, not a read */
		const char *base = path_base(src->stamp);
		char *cache_rel = xasprintf("%.*s.%.*s.cache", (int)(base - src->stamp), src->stamp,
		                            (int)(strlen(base) - strlen(".hash")), base);
		char *cache = run_path(r, cache_rel);
		rc = hash_tree_cached(path, cache, update, out, e);
		free(cache);
		free(cache_rel);
	}
	free(path);
	return rc;
}

/* True when stage s reads the setting itself. */
static int reads_setting(const struct stage_def *s, const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(s->settings) && s->settings[i]; i++)
		if (!strcmp(s->settings[i], name))
			return 1;
	if ((s->repeat && !strcmp(s->repeat, name)) || (s->gather && !strcmp(s->gather, name)))
		return 1;
	/* a source the setting names or places (a folder setting, the task folder) */
	for (size_t k = 0; k < source_count; k++) {
		const struct source_def *src = &source_table[k];
		int names = (src->root == SRC_SETTING && !strcmp(src->what, name)) ||
		            ((src->root == SRC_TASK || src->root == SRC_SKILL) && !strcmp(name, "TASKS_DIR")) ||
		            (src->root == SRC_SKILL && !strcmp(name, "SKILL_SOURCE"));
		for (size_t i = 0; names && i < ARRAY_LEN(s->inputs) && s->inputs[i]; i++)
			if (!strcmp(s->inputs[i], src->stamp))
				return 1;
	}
	return 0;
}

void stages_affected_by(const char *setting, struct strlist *out)
{
	for (size_t i = 0; i < stage_count; i++) {
		int hit = 0;
		for (size_t j = 0; j < stage_count && !hit; j++)
			hit = reads_setting(&stage_table[j], setting) && stage_depends_on(&stage_table[i], &stage_table[j]);
		if (hit)
			strlist_push(out, stage_table[i].name);
	}
}

bool stage_wanted(const struct stage_def *s, const struct run *r)
{
	return !s->wanted_if || run_get_int(r, s->wanted_if) == 1;
}

/* "ingest, raw-eval, ...": every stage's name, for messages; caller frees. */
char *stage_names(void)
{
	struct buf names = BUF_INIT, only = BUF_INIT;
	const struct stage_def *cond = NULL; /* the stages of some runs only: the images of SANDBOX=docker */
	for (size_t i = 0; i < stage_count; i++) {
		const struct stage_def *s = &stage_table[i];
		if (!s->when[0]) {
			buf_printf(&names, "%s%s", names.len ? ", " : "", s->name);
			continue;
		}
		cond = cond ? cond : s;
		buf_printf(&only, "%s%s", only.len ? ", " : "", s->name);
	}
	if (cond) {
		buf_adds(&names, "; with");
		for (size_t k = 0; k < ARRAY_LEN(cond->when) && cond->when[k]; k++)
			buf_printf(&names, " %s", cond->when[k]);
		buf_printf(&names, ": %s", only.data);
	}
	buf_free(&only);
	return buf_detach(&names);
}
