#include "pipeline/stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/strmap.h"
#include "base/versions.h"

const struct source_def source_table[] = {
	{ "inputs/skill.src.hash", SRC_SKILL, "environment/skills" },
	{ "inputs/task.src.hash", SRC_TASK, "" }, /* a trial depends on the whole task: tests, data, Dockerfile */
	{ "inputs/profiles.src.hash", SRC_RULES, "profiles" },
	{ "inputs/user-profiles.src.hash", SRC_SETTING, "PROFILES_DIR" },
	/* the images of SANDBOX=docker: the task's environment, the harness's recipe */
	{ "inputs/environment.src.hash", SRC_TASK, "environment" },
	{ "inputs/harness.src.hash", SRC_HARNESS, "HARNESS" },
	/* what a standalone front hands over: outside traces, a profile made before */
	{ "inputs/traces.src.hash", SRC_SETTING, "TRACES" },
	{ "inputs/profile.src.hash", SRC_SETTING, "PROFILE" },
	/* a skill run's other train tasks (POOL_TASKS): their trials' task, their images */
	{ "inputs/pool/%t.src.hash", SRC_POOL, "" },
	{ "inputs/pool/%t.environment.src.hash", SRC_POOL, "environment" },
};
const size_t source_count = ARRAY_LEN(source_table);

/* The images of a trial: only for RUNNER=local in a container (docker, podman). */
#define CONTAINER_TRIALS { "RUNNER=local", "SANDBOX=docker|podman" }
#define L1_STAMP "images/%T.l1.id"
#define L2_STAMP "images/%T--%H.l2.id"
/* a pooled task's (stage_def.pooled): its own images, its own source */
#define POOL_L1_STAMP "images/%t.l1.id"
#define POOL_L2_STAMP "images/%t--%H.l2.id"
#define POOL_SRC "inputs/pool/%t.src.hash"

static char *expand_ref(const char *tmpl, const struct run *r, int index, int round);

/* value is one of alts ("a|b|c"). */
static bool one_of(const char *value, const char *alts)
{
	size_t n = strlen(value);
	for (const char *a = alts; a; a = strchr(a, '|') ? strchr(a, '|') + 1 : NULL)
		if (!strncmp(a, value, n) && (a[n] == '|' || !a[n]))
			return true;
	return false;
}

/* The run's trials are in a container: SANDBOX names an engine. */
static bool in_container(const struct run *r)
{
	return one_of(run_get(r, "SANDBOX"), "docker|podman");
}

/* static-eval runs enough trials for the fast stage too; static-index and
 * `make eval` take the first REPEAT of them. */
static int static_trials(const struct run *r)
{
	long repeat = run_get_int(r, "REPEAT"), fast = run_get_int(r, "FAST_MIN_TRACES");
	return (int)(repeat > fast ? repeat : fast);
}

static int fast_units_of(const struct run *r)
{
	long top = run_get_int(r, "FAST_TOP"), bottom = run_get_int(r, "FAST_BOTTOM");
	return (int)(top > bottom ? top : bottom);
}

/* ---- deep and final (docs/deep.md) */

static int deep_first(const struct run *r)
{
	long t = run_get_int(r, "DEEP_TRIALS");
	return (int)(t > 0 ? t : run_get_int(r, "REPEAT"));
}

static int deep_max(const struct run *r)
{
	long f = deep_first(r), m = run_get_int(r, "DEEP_MAX_TRIALS");
	m = m > 0 ? m : 2 * f;
	m = m < f ? f : m;
	return (int)(m > 200 ? 200 : m);
}

/* Looks after the first: one per extension of DEEP_TRIALS trials. */
static int deep_extra_looks(const struct run *r)
{
	long f = deep_first(r), m = deep_max(r);
	return (int)((m - f + f - 1) / f);
}

static long look_trials(const struct run *r, int j)
{
	long n = deep_first(r) * j;
	return n < deep_max(r) ? n : deep_max(r);
}

static int final_repeat(const struct run *r)
{
	long n = run_get_int(r, "FINAL_REPEAT");
	return (int)(n > 0 ? n : run_get_int(r, "REPEAT"));
}

/* The fast candidate deep-start judges against S_static: none when the run
 * has no fast stage (FAST_STAGE=0). */
static void deep_start_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	char t[TRIAL_NAME_MAX];
	if (!run_get_int(r, "FAST_STAGE"))
		return;
	strlist_push(out, "artifacts/fast/S_fast.hash");
	for (long i = 1; i <= run_get_int(r, "REPEAT"); i++)
		strlist_push_owned(out, xasprintf("traces/%s/fast/%s/trial.json", r->task,
		                                  trial_name(i, t)));
}

/* A trial after the first look runs only when the look before its batch says so. */
static void deep_eval_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	long f = deep_first(r);
	if (ref->index <= f)
		return;
	long batch = 1 + (ref->index - f + f - 1) / f;
	strlist_push_owned(out, xasprintf("artifacts/deep/round-%d/look-%03ld.json", ref->round, batch - 1));
}

static void deep_look_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	for (long i = 1; i <= look_trials(r, ref->index); i++)
		strlist_push_owned(out, xasprintf("artifacts/deep/round-%d/trials/%03ld.json", ref->round, i));
	if (ref->index > 1)
		strlist_push_owned(out, xasprintf("artifacts/deep/round-%d/look-%03d.json", ref->round, ref->index - 1));
}

static void deep_decide_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	for (int j = 1; j <= deep_extra_looks(r); j++)
		strlist_push_owned(out, xasprintf("artifacts/deep/round-%d/look-%03d.json", ref->round, j));
}

/* ---- a skill run's other train tasks (POOL_TASKS, docs/skill-runs.md) */

/* The K-th task of POOL_TASKS (from 1), or NULL past the last; caller frees. */
static char *pool_task(const struct run *r, int k)
{
	char *copy = xstrdup(run_get(r, "POOL_TASKS")), *found = NULL, *save = NULL;
	int i = 0;
	for (char *w = strtok_r(copy, " ,", &save); w && !found; w = strtok_r(NULL, " ,", &save))
		if (++i == k)
			found = xstrdup(w);
	free(copy);
	return found;
}

/* A pooled task's set: SKILL_SOURCE's sibling of that name (the skill run's
 * sets/raw/<task>), else the task's own skills. */
static char *pool_set(const struct run *r, const char *task)
{
	const char *src = run_get(r, "SKILL_SOURCE");
	if (*src) {
		char *up = path_dir(src), *set = path_join(up, task);
		free(up);
		return set;
	}
	return xasprintf("%s/%s/environment/skills", run_get(r, "TASKS_DIR"), task);
}

/* Each pooled task's trials of a stage: traces/<task>/<stage>/test-NNN/trial.json. */
static void pool_trials(const struct run *r, const char *stage, long n, struct strlist *out)
{
	char t[TRIAL_NAME_MAX], *task;
	for (int k = 1; (task = pool_task(r, k)); k++, free(task))
		for (long i = 1; i <= n; i++)
			strlist_push_owned(out, xasprintf("traces/%s/%s/%s/trial.json", task, stage,
			                                  trial_name(i, t)));
}

/* Each pooled task's candidate records of round K: trials/<task>/NNN.json. */
static void pool_records(const struct run *r, int round, long n, struct strlist *out)
{
	char *task;
	for (int k = 1; (task = pool_task(r, k)); k++, free(task))
		for (long i = 1; i <= n; i++)
			strlist_push_owned(out, xasprintf("artifacts/deep/round-%d/trials/%s/%03ld"
			                                  ".json", round, task, i));
}

static void pool_static_inputs(const struct stage_ref *ref, const struct run *r,
                               struct strlist *out)
{
	(void)ref;
	pool_trials(r, "static", static_trials(r), out);
}

/* Each pooled task's source: a step reading its files (an instruction, the
 * held-out files of the leakage guard) runs again when they change. */
static void pool_sources(const struct run *r, struct strlist *out)
{
	char *task;
	for (int k = 1; (task = pool_task(r, k)); k++, free(task))
		strlist_push_owned(out, xasprintf("inputs/pool/%s.src.hash", task));
}

static void pool_source_inputs(const struct stage_ref *ref, const struct run *r,
                               struct strlist *out)
{
	(void)ref;
	pool_sources(r, out);
}

static void pool_static_source_inputs(const struct stage_ref *ref, const struct run *r,
                                      struct strlist *out)
{
	pool_static_inputs(ref, r, out);
	pool_sources(r, out);
}

static void deep_start_pool_inputs(const struct stage_ref *ref, const struct run *r,
                                   struct strlist *out)
{
	deep_start_inputs(ref, r, out);
	pool_trials(r, "static", static_trials(r), out);
	if (run_get_int(r, "FAST_STAGE"))
		pool_trials(r, "fast", run_get_int(r, "REPEAT"), out);
}

static void deep_look_pool_inputs(const struct stage_ref *ref, const struct run *r,
                                  struct strlist *out)
{
	deep_look_inputs(ref, r, out);
	pool_records(r, ref->round, look_trials(r, ref->index), out);
}

static void deep_decide_pool_inputs(const struct stage_ref *ref, const struct run *r,
                                    struct strlist *out)
{
	deep_decide_inputs(ref, r, out);
	pool_records(r, ref->round, deep_max(r), out);
}

/* Argument templates shared by several rows (stage_def.args). */
#define ONLY_ARGS "if SKILLS --only $SKILLS" /* the skills of the set a stage may change */
#define FAST_ARGS(step) \
	step, "--skill @artifacts/static/S_static", "--dir @artifacts/fast", ONLY_ARGS
#define RULE_ARGS "--first #deep_first --max #deep_max --alpha $DEEP_ALPHA" \
	" --tolerance $DEEP_TOLERANCE --test $DEEP_TEST"
/* One trial: skillc-eval into traces/<task>/<stage>/test-NNN/ (docs/eval.md). */
#define TRIAL_HEAD(stage, skill) "--task %D", skill, \
	"--harness $HARNESS --model $MODEL --runner $RUNNER", \
	"if RUNNER=local --sandbox #sandbox", "if #image --image #image", \
	"--out @traces/%T/" stage "/test-%N --stage " stage " --index %I --of #count", \
	"--incomplete @.incomplete --cache $CACHE_DIR"
#define TRIAL_TAIL "if AGENT_TIMEOUT --agent-timeout $AGENT_TIMEOUT", \
	"if AGENT_HANDSHAKE_TIMEOUT --handshake-timeout $AGENT_HANDSHAKE_TIMEOUT", \
	"--deadline #deadline", "if #env_file --env-file $ENV_FILE"
#define TRIAL_ARGS(stage, skill) TRIAL_HEAD(stage, "--skills-root @" skill), \
	"if REQUIRE_SKILL --require-skill", TRIAL_TAIL
/* One trial of a pooled task: its set with the stage's skills laid over it
 * ("*over:DIR": DIR/<each of SKILLS>), into traces/<that task>/<stage>/. */
#define POOL_TRIAL_ARGS(stage, over) "--task %d --skills-root %s", over, \
	"--harness $HARNESS --model $MODEL --runner $RUNNER", \
	"if RUNNER=local --sandbox #sandbox", "if #image --image #image", \
	"--out @traces/%t/" stage "/test-%N --stage " stage " --index %I --of #count", \
	"--incomplete @.incomplete --cache $CACHE_DIR", "if REQUIRE_SKILL --require-skill", \
	TRIAL_TAIL
#define POOL_TRIAL_SETTINGS "HARNESS", "MODEL", "RUNNER", "SANDBOX", "REQUIRE_SKILL", \
	"AGENT_TIMEOUT", "POOL_TASKS"

const struct stage_def stage_table[] = {
	{
		.name = "l1-image",
		.help = "SANDBOX=docker|podman: the task's environment/ built from its own Dockerfile (or IMAGE) as its L1 image",
		.tool = "skillc-image",
		.version = V_IMAGE,
		.inputs = { "inputs/environment.src.hash" },
		.outputs = { L1_STAMP },
		.settings = { "IMAGE" },
		.when = CONTAINER_TRIALS,
		.args = { "l1", "--task %D", "--sandbox $SANDBOX", "--out @" L1_STAMP,
		          "if IMAGE --image $IMAGE" },
	},
	{
		.name = "l2-image",
		.help = "SANDBOX=docker|podman: the L1 image with the harness installed by its recipe (rules/harness/<harness>.json \"image\")",
		.tool = "skillc-image",
		.version = V_IMAGE,
		.after = { "l1-image" },
		.inputs = { L1_STAMP, "inputs/harness.src.hash" },
		.outputs = { L2_STAMP },
		.settings = { "HARNESS" },
		.when = CONTAINER_TRIALS,
		.args = { "l2", "--task %D", "--sandbox $SANDBOX", "--harness $HARNESS",
		          "--l1 @" L1_STAMP, "--out @" L2_STAMP },
	},
	{
		.name = "l1-image-pool",
		.help = "POOL_TASKS, SANDBOX=docker|podman: each other train task's L1 image",
		.tool = "skillc-image",
		.version = V_IMAGE,
		.inputs = { "inputs/pool/%t.environment.src.hash" },
		.outputs = { POOL_L1_STAMP },
		.settings = { "POOL_TASKS" },
		.when = CONTAINER_TRIALS,
		.pooled = true,
		.args = { "l1", "--task %d", "--sandbox $SANDBOX", "--out @" POOL_L1_STAMP },
	},
	{
		.name = "l2-image-pool",
		.help = "POOL_TASKS, SANDBOX=docker|podman: each other train task's L2 image "
		        "(its L1 with the harness)",
		.tool = "skillc-image",
		.version = V_IMAGE,
		.after = { "l1-image-pool" },
		.inputs = { POOL_L1_STAMP, "inputs/harness.src.hash" },
		.outputs = { POOL_L2_STAMP },
		.settings = { "HARNESS", "POOL_TASKS" },
		.when = CONTAINER_TRIALS,
		.pooled = true,
		.args = { "l2", "--task %d", "--sandbox $SANDBOX", "--harness $HARNESS",
		          "--l1 @" POOL_L1_STAMP, "--out @" POOL_L2_STAMP },
	},
	{
		.name = "ingest",
		.help = "copy the task's skill set into inputs/skill/, validated",
		.tool = "skillc-ingest",
		.version = V_INGEST,
		.inputs = { "inputs/skill.src.hash" },
		.outputs = { "inputs/skill", "inputs/skill.hash", "inputs/check.json" },
		.settings = { "MAX_FILE_MB", "SKILL_SOURCE" },
		.args = { "--task %D", "--out @inputs/skill", "--hash @inputs/skill.hash",
		          "--report @inputs/check.json", "--max-file-mb $MAX_FILE_MB",
		          "if SKILL_SOURCE --skill-source $SKILL_SOURCE" },
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
		.args = { TRIAL_ARGS("raw", "inputs/skill") },
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
		.args = { "@traces/%T/raw" },
	},
	{
		.name = "raw-eval-pool",
		.help = "POOL_TASKS: REPEAT raw trials in each other train task's set",
		.tool = "skillc-eval",
		.version = V_EVAL,
		.after = { "ingest", "l2-image-pool" },
		.inputs = { "inputs/skill.hash", POOL_SRC, POOL_L2_STAMP },
		.outputs = { "traces/%t/raw/test-%N", "traces/%t/raw/test-%N/trial.json" },
		.settings = { POOL_TRIAL_SETTINGS },
		.needs = { "MODEL" },
		.repeat = "REPEAT",
		.timeout = "TRIAL_TIMEOUT",
		.remote = true,
		.pooled = true,
		.args = { POOL_TRIAL_ARGS("raw", "") },
	},
	{
		.name = "raw-index-pool",
		.help = "POOL_TASKS: traces/<task>/raw/index.json of each other train task",
		.tool = "skillc-traces",
		.version = V_TRACES,
		.after = { "raw-eval-pool" },
		.inputs = { "traces/%t/raw/test-%N/trial.json" },
		.outputs = { "traces/%t/raw/index.json" },
		.gather = "REPEAT",
		.pooled = true,
		.args = { "@traces/%t/raw" },
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
		.needs = { "MODEL" },
		.repeat = "REPEAT",
		.wanted_if = "BASELINE",
		.timeout = "TRIAL_TIMEOUT",
		.remote = true,
		.args = { TRIAL_HEAD("noskill", "--no-skill"), TRIAL_TAIL },
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
		.args = { "@traces/%T/noskill" },
	},
	{
		.name = "profile",
		.help = "resolve MODEL to its model profile (rules/profiles, PROFILES_DIR)",
		.tool = "skillc-profile",
		.version = V_PROFILE,
		.inputs = { "inputs/profiles.src.hash", "inputs/user-profiles.src.hash",
		            "inputs/profile.src.hash" },
		.outputs = { "artifacts/static/profile.json" },
		.settings = { "MODEL" },
		.needs = { "MODEL" },
		.args = { "if PROFILE +skillc-profile --from $PROFILE"
		          " --out @artifacts/static/profile.json",
		          "--model $MODEL", "--profiles ^profiles",
		          "--user-profiles $PROFILES_DIR",
		          "--out @artifacts/static/profile.json" },
	},
	{
		.name = "static",
		.help = "static compile of each skill of the set (SKILLS: those) for the profile: S_static/ + report",
		.tool = "skillc-static",
		.version = V_STATIC,
		.after = { "ingest", "profile" },
		.inputs = { "inputs/skill.hash", "artifacts/static/profile.json" },
		.outputs = { "artifacts/static/S_static", "artifacts/static/S_static.hash",
		             "artifacts/static/report.json", "artifacts/static/report.md",
		             "artifacts/static/plan.json" },
		.settings = { "STATIC_MODE", "EXTERNAL_MODEL", "SKILLS" },
		.needs = { "EXTERNAL_MODEL if STATIC_MODE=hybrid" },
		.rebuildable = true,
		.args = { "--skill @inputs/skill", "--profile @artifacts/static/profile.json",
		          "--mode $STATIC_MODE",
		          "if STATIC_MODE=hybrid --external-model $EXTERNAL_MODEL",
		          "--out @artifacts/static/S_static",
		          "--hash @artifacts/static/S_static.hash",
		          "--report @artifacts/static/report.json",
		          "--report-md @artifacts/static/report.md",
		          "--plan @artifacts/static/plan.json", ONLY_ARGS },
	},
	{
		.name = "static-eval",
		.help = "max(REPEAT, FAST_MIN_TRACES) trials of the statically compiled skill (reused from the store when its bytes equal the raw skill's)",
		.tool = "skillc-eval",
		.version = V_EVAL,
		.after = { "static", "l2-image" },
		.inputs = { "artifacts/static/S_static.hash", "inputs/task.src.hash", L2_STAMP,
		            "inputs/traces.src.hash" },
		.outputs = { "traces/%T/static/test-%N", "traces/%T/static/test-%N/trial.json" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "REQUIRE_SKILL", "AGENT_TIMEOUT" },
		.needs = { "MODEL" },
		.count = static_trials,
		.timeout = "TRIAL_TIMEOUT",
		.remote = true,
		.args = { "if TRACES +skillc-traces --import $TRACES --index %I"
		          " --out @traces/%T/static/test-%N *skill_names",
		          TRIAL_ARGS("static", "artifacts/static/S_static") },
	},
	{
		.name = "static-eval-pool",
		.help = "POOL_TASKS: static-eval's trials in each other train task's set",
		.tool = "skillc-eval",
		.version = V_EVAL,
		.after = { "static", "l2-image-pool" },
		.inputs = { "artifacts/static/S_static.hash", POOL_SRC, POOL_L2_STAMP },
		.outputs = { "traces/%t/static/test-%N", "traces/%t/static/test-%N/trial.json" },
		.settings = { POOL_TRIAL_SETTINGS },
		.needs = { "MODEL" },
		.count = static_trials,
		.timeout = "TRIAL_TIMEOUT",
		.remote = true,
		.pooled = true,
		.args = { POOL_TRIAL_ARGS("static", "*over:artifacts/static/S_static") },
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
		/* fast's extra trials may be there, or running */
		.args = { "@traces/%T/static", "--first $REPEAT" },
	},
	{
		.name = "fast-score",
		.wanted_if = "FAST_STAGE", /* 0: deep starts from S_static alone */
		.optimizer = true,
		.help = "score every static trace (verifier, pre-score, AgentRM) and pick the top/bottom groups",
		.tool = "skillc-fast",
		.version = V_FAST,
		.after = { "static-eval" },
		.inputs = { "traces/%T/static/test-%N/trial.json", "artifacts/static/S_static.hash",
		            "inputs/task.src.hash" },
		.outputs = { "artifacts/fast/scores.json", "artifacts/fast/groups.json" },
		.settings = { "RM_API_URL", "FAST_MIN_TRACES", "FAST_TOP", "FAST_BOTTOM",
		              "POOL_TASKS" },
		.gather_count = static_trials,
		/* AgentRM gets each trace's own task's instruction */
		.more_inputs = pool_static_source_inputs,
		.args = { "score", "--traces @traces/%T/static", "*pool_traces", "*pool_tasks",
		          "--trials #static_trials",
		          "--skill @artifacts/static/S_static", "--task %D",
		          "--dir @artifacts/fast", "--rm-api-url $RM_API_URL",
		          "--min-traces $FAST_MIN_TRACES", "--top $FAST_TOP",
		          "--bottom $FAST_BOTTOM" },
	},
	{
		.name = "fast-map",
		.wanted_if = "FAST_STAGE",
		.help = "one question to EXTERNAL_MODEL per top/bottom unit: typed findings, validated",
		.tool = "skillc-fast",
		.version = V_FAST,
		.needs = { "EXTERNAL_MODEL" },
		.after = { "fast-score" },
		.inputs = { "artifacts/fast/groups.json", "artifacts/static/S_static.hash", "inputs/task.src.hash" },
		.outputs = { "artifacts/fast/map/%N.json" },
		.settings = { "EXTERNAL_MODEL", "SKILLS", "POOL_TASKS" },
		.count = fast_units_of,
		.more_inputs = pool_source_inputs,
		.args = { FAST_ARGS("map"), "--unit %I", "--traces @traces/%T/static",
		          "*pool_traces", "*pool_tasks",
		          "--task %D", "--model $EXTERNAL_MODEL" },
	},
	{
		.name = "fast-reduce",
		.wanted_if = "FAST_STAGE",
		.help = "findings grouped by (section, kind), merged into at most FAST_MAX_PATCHES typed patches",
		.tool = "skillc-fast",
		.version = V_FAST,
		.needs = { "EXTERNAL_MODEL" },
		.after = { "fast-map" },
		.inputs = { "artifacts/fast/map/%N.json", "artifacts/static/S_static.hash", "artifacts/static/profile.json" },
		.outputs = { "artifacts/fast/reduce.json", "artifacts/fast/patches.json" },
		.settings = { "EXTERNAL_MODEL", "FAST_MAX_PATCHES", "SKILLS" },
		.gather_count = fast_units_of,
		.args = { FAST_ARGS("reduce"), "--units #fast_units", "--model $EXTERNAL_MODEL",
		          "--max-patches $FAST_MAX_PATCHES",
		          "--profile @artifacts/static/profile.json" },
	},
	{
		.name = "fast-apply",
		.wanted_if = "FAST_STAGE",
		.help = "the patches applied through the document model, guarded: S_fast/ + report",
		.tool = "skillc-fast",
		.version = V_FAST,
		.after = { "fast-reduce" },
		.inputs = { "artifacts/fast/patches.json", "artifacts/static/S_static.hash", "artifacts/static/profile.json",
		            "inputs/task.src.hash", "traces/%T/static/test-%N/trial.json" },
		.outputs = { "artifacts/fast/S_fast", "artifacts/fast/S_fast.hash", "artifacts/fast/report.json",
		             "artifacts/fast/report.md" },
		.gather_count = static_trials,
		.more_inputs = pool_static_source_inputs,
		.settings = { "SKILLS", "POOL_TASKS" },
		.args = { FAST_ARGS("apply"), "--profile @artifacts/static/profile.json",
		          /* the leakage guard: the held-out files and the verifier output */
		          "--task %D", "*leak_tasks", "--traces @traces/%T/static", "*pool_traces",
		          "--trials #static_trials" },
	},
	{
		.name = "fast-eval",
		.wanted_if = "FAST_STAGE",
		.help = "REPEAT trials of S_fast (reused from the store when its bytes equal an earlier skill's)",
		.tool = "skillc-eval",
		.version = V_EVAL,
		.needs = { "MODEL" },
		.after = { "fast-apply" },
		.inputs = { "artifacts/fast/S_fast.hash", "inputs/task.src.hash", L2_STAMP },
		.outputs = { "traces/%T/fast/test-%N", "traces/%T/fast/test-%N/trial.json" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "REQUIRE_SKILL", "AGENT_TIMEOUT" },
		.repeat = "REPEAT",
		.timeout = "TRIAL_TIMEOUT",
		.args = { TRIAL_ARGS("fast", "artifacts/fast/S_fast") },
	},
	{
		.name = "fast-eval-pool",
		.wanted_if = "FAST_STAGE",
		.help = "POOL_TASKS: REPEAT trials of S_fast in each other train task's set",
		.tool = "skillc-eval",
		.version = V_EVAL,
		.after = { "fast-apply" },
		.inputs = { "artifacts/fast/S_fast.hash", POOL_SRC, POOL_L2_STAMP },
		.outputs = { "traces/%t/fast/test-%N", "traces/%t/fast/test-%N/trial.json" },
		.settings = { POOL_TRIAL_SETTINGS },
		.needs = { "MODEL" },
		.repeat = "REPEAT",
		.timeout = "TRIAL_TIMEOUT",
		.pooled = true,
		.args = { POOL_TRIAL_ARGS("fast", "*over:artifacts/fast/S_fast") },
	},
	{
		.name = "fast-index",
		.wanted_if = "FAST_STAGE",
		.help = "traces/<task>/fast/index.json: every fast trial, normalized",
		.tool = "skillc-traces",
		.version = V_TRACES,
		.after = { "fast-eval" },
		.inputs = { "traces/%T/fast/test-%N/trial.json" },
		.outputs = { "traces/%T/fast/index.json" },
		.gather = "REPEAT",
		.args = { "@traces/%T/fast" },
	},
	{
		.name = "deep-start",
		.help = "round 1's start: S_fast if it beats S_static by the decision rule, else S_static",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.after = { "static-eval", "fast-eval" },
		.inputs = { "traces/%T/static/test-%N/trial.json",
		            "artifacts/static/S_static.hash" },
		.outputs = { "artifacts/deep/round-0/best.json", "artifacts/deep/round-0/rejected.json",
		             "artifacts/deep/round-0/decision.json" },
		.settings = { "DEEP_TEST", "DEEP_ALPHA", "DEEP_TOLERANCE", "DEEP_TRIALS",
		              "DEEP_MAX_TRIALS", "POOL_TASKS", "FAST_STAGE" },
		.gather_count = static_trials,
		.more_inputs = deep_start_pool_inputs,
		.args = { "start", "--run %F", "--base-source static",
		          "--base-skill artifacts/static/S_static",
		          "--base-trials traces/%T/static", "--base-count #static_trials",
		          "if FAST_STAGE --cand-source fast --cand-skill artifacts/fast/S_fast"
		          " --cand-trials traces/%T/fast --cand-count $REPEAT",
		          "*pool_start",
		          RULE_ARGS },
	},
	{
		.name = "deep-score",
		.help = "every section (or paragraph) of the best skill scored on five dimensions, with quoted evidence",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.needs = { "EXTERNAL_MODEL" },
		.after = { "deep-start" },
		.inputs = { "artifacts/deep/round-%P/best.json", "inputs/task.src.hash" },
		.outputs = { "artifacts/deep/round-%K/scores.json" },
		.settings = { "EXTERNAL_MODEL", "SKILLS" },
		.rounds = "DEEP_ROUNDS",
		.args = { "score", "--run %F", "--round %K", "--task %D",
		          "--model $EXTERNAL_MODEL", ONLY_ARGS },
	},
	{
		.name = "deep-edit",
		.help = "one guarded edit of the weakest unit not rejected before: candidate/",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.needs = { "EXTERNAL_MODEL" },
		.after = { "deep-score" },
		.inputs = { "artifacts/deep/round-%K/scores.json", "artifacts/deep/round-%P/best.json",
		            "artifacts/deep/round-%P/rejected.json", "artifacts/static/profile.json" },
		.outputs = { "artifacts/deep/round-%K/edit.json", "artifacts/deep/round-%K/candidate",
		             "artifacts/deep/round-%K/candidate.hash" },
		.settings = { "EXTERNAL_MODEL", "SKILLS", "POOL_TASKS" },
		.rounds = "DEEP_ROUNDS",
		/* the leakage guard reads the pooled tasks' held-out files */
		.more_inputs = pool_source_inputs,
		.args = { "edit", "--run %F", "--round %K", "--task %D",
		          "--model $EXTERNAL_MODEL", "--profile @artifacts/static/profile.json",
		          ONLY_ARGS, "*leak_tasks" },
	},
	{
		.name = "deep-eval",
		.help = "trials of the candidate: DEEP_TRIALS, then more while a look says so, up to DEEP_MAX_TRIALS",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.needs = { "MODEL" },
		.after = { "deep-edit" },
		.inputs = { "artifacts/deep/round-%K/edit.json", "artifacts/deep/round-%K/candidate.hash",
		            "inputs/task.src.hash", L2_STAMP },
		.outputs = { "artifacts/deep/round-%K/trials/%N.json" },
		.side_outputs = { "traces/%T/deep-%K/test-%N" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "REQUIRE_SKILL", "AGENT_TIMEOUT", "DEEP_TRIALS",
		              "DEEP_MAX_TRIALS" },
		.rounds = "DEEP_ROUNDS",
		.count = deep_max,
		.more_inputs = deep_eval_inputs,
		.timeout = "TRIAL_TIMEOUT",
		.args = { "trial --run %F --round %K --index %I --trial @traces/%T/deep-%K/test-%N",
		          RULE_ARGS, "-- +skillc-eval",
		          TRIAL_ARGS("deep-%K", "artifacts/deep/round-%K/candidate") },
	},
	{
		.name = "deep-eval-pool",
		.help = "POOL_TASKS: deep-eval's trials in each other train task's set",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.needs = { "MODEL" },
		.after = { "deep-edit" },
		.inputs = { "artifacts/deep/round-%K/edit.json",
		            "artifacts/deep/round-%K/candidate.hash", POOL_SRC, POOL_L2_STAMP },
		.outputs = { "artifacts/deep/round-%K/trials/%t/%N.json" },
		.side_outputs = { "traces/%t/deep-%K/test-%N" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "AGENT_TIMEOUT",
		              "POOL_TASKS", "DEEP_TRIALS", "DEEP_MAX_TRIALS" },
		.rounds = "DEEP_ROUNDS",
		.count = deep_max,
		.more_inputs = deep_eval_inputs,
		.timeout = "TRIAL_TIMEOUT",
		.pooled = true,
		.args = { "trial --run %F --round %K --index %I --trial @traces/%t/deep-%K/test-%N",
		          "--of-task %t", RULE_ARGS, "-- +skillc-eval",
		          POOL_TRIAL_ARGS("deep-%K", "*over:artifacts/deep/round-%K/candidate") },
	},
	{
		.name = "deep-look",
		.help = "the decision rule after each batch of trials but the last: accept, reject or more trials",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.after = { "deep-eval" },
		.inputs = { "artifacts/deep/round-%P/best.json", "artifacts/deep/round-%K/edit.json" },
		.outputs = { "artifacts/deep/round-%K/look-%N.json" },
		.settings = { "DEEP_TEST", "DEEP_ALPHA", "DEEP_TOLERANCE", "DEEP_TRIALS",
		              "DEEP_MAX_TRIALS", "POOL_TASKS" },
		.rounds = "DEEP_ROUNDS",
		.count = deep_extra_looks,
		.more_inputs = deep_look_pool_inputs,
		.args = { "look", "--run %F", "--round %K", "--look %I", "*pool_names", RULE_ARGS },
	},
	{
		.name = "deep-decide",
		.help = "accept the candidate (exact one-sided test, no runtime regression) or remember it as rejected",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.after = { "deep-look" },
		.inputs = { "artifacts/deep/round-%P/best.json", "artifacts/deep/round-%P/rejected.json",
		            "artifacts/deep/round-%K/edit.json", "artifacts/deep/round-%K/trials/%N.json" },
		.outputs = { "artifacts/deep/round-%K/decision.json", "artifacts/deep/round-%K/best.json",
		             "artifacts/deep/round-%K/rejected.json" },
		.settings = { "DEEP_TEST", "DEEP_ALPHA", "DEEP_TOLERANCE", "DEEP_TRIALS",
		              "DEEP_MAX_TRIALS", "POOL_TASKS" },
		.rounds = "DEEP_ROUNDS",
		.gather_count = deep_max,
		.more_inputs = deep_decide_pool_inputs,
		.args = { "decide", "--run %F", "--round %K", "*pool_names", RULE_ARGS },
	},
	{
		.name = "deep-final",
		.help = "S_final: the best validated skill of the last round; rejected.json, report",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.after = { "deep-decide", "deep-start" },
		.inputs = { "artifacts/deep/round-%R/best.json", "artifacts/deep/round-%R/rejected.json" },
		.outputs = { "artifacts/deep/S_final", "artifacts/deep/S_final.hash", "artifacts/deep/rejected.json",
		             "artifacts/deep/report.json", "artifacts/deep/report.md" },
		.settings = { "DEEP_ROUNDS" },
		.args = { "final", "--run %F", "--rounds $DEEP_ROUNDS" },
	},
	{
		.name = "final-eval",
		.help = "FINAL_REPEAT trials of S_final (the last accepted round's, reused, when S_final is its candidate)",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.needs = { "MODEL" },
		.after = { "deep-final" },
		.inputs = { "artifacts/deep/S_final.hash", "artifacts/deep/round-%R/best.json", "inputs/task.src.hash",
		            L2_STAMP },
		.outputs = { "traces/%T/final/test-%N", "traces/%T/final/test-%N/trial.json" },
		.settings = { "HARNESS", "MODEL", "RUNNER", "SANDBOX", "REQUIRE_SKILL", "AGENT_TIMEOUT", "FINAL_FRESH" },
		.count = final_repeat,
		.timeout = "TRIAL_TIMEOUT",
		.args = { "final-trial --run %F --rounds $DEEP_ROUNDS --index %I",
		          "--trial @traces/%T/final/test-%N", "if FINAL_FRESH --fresh",
		          "-- +skillc-eval", TRIAL_ARGS("final", "artifacts/deep/S_final"),
		          "--split final" },
	},
	{
		.name = "final-index",
		.help = "traces/<task>/final/index.json: every final trial, normalized",
		.tool = "skillc-traces",
		.version = V_TRACES,
		.after = { "final-eval" },
		.inputs = { "traces/%T/final/test-%N/trial.json" },
		.outputs = { "traces/%T/final/index.json" },
		.gather_count = final_repeat,
		.args = { "@traces/%T/final" },
	},
	{
		.name = "final-eval-pool",
		.help = "POOL_TASKS: final-eval's trials in each other train task's set",
		.tool = "skillc-deep",
		.version = V_DEEP,
		.needs = { "MODEL" },
		.after = { "deep-final" },
		.inputs = { "artifacts/deep/S_final.hash", "artifacts/deep/round-%R/best.json",
		            POOL_SRC, POOL_L2_STAMP },
		.outputs = { "traces/%t/final/test-%N", "traces/%t/final/test-%N/trial.json" },
		.settings = { POOL_TRIAL_SETTINGS, "FINAL_FRESH" },
		.count = final_repeat,
		.timeout = "TRIAL_TIMEOUT",
		.pooled = true,
		.args = { "final-trial --run %F --rounds $DEEP_ROUNDS --index %I",
		          "--trial @traces/%t/final/test-%N", "if FINAL_FRESH --fresh",
		          "-- +skillc-eval",
		          POOL_TRIAL_ARGS("final", "*over:artifacts/deep/S_final"),
		          "--split final" },
	},
	{
		.name = "final-index-pool",
		.help = "POOL_TASKS: traces/<task>/final/index.json of each other train task",
		.tool = "skillc-traces",
		.version = V_TRACES,
		.after = { "final-eval-pool" },
		.inputs = { "traces/%t/final/test-%N/trial.json" },
		.outputs = { "traces/%t/final/index.json" },
		.gather_count = final_repeat,
		.pooled = true,
		.args = { "@traces/%t/final" },
	},
};
const size_t stage_count = ARRAY_LEN(stage_table);

const struct stage_group group_table[] = {
	{ "fast", "fast-score", "fast-apply" },
	{ "deep", "deep-start", "deep-final" },
};
const size_t group_count = ARRAY_LEN(group_table);

const struct stage_group *stage_group_find(const char *name)
{
	for (size_t i = 0; i < group_count; i++)
		if (!strcmp(group_table[i].name, name))
			return &group_table[i];
	return NULL;
}

const struct stage_def *stage_find(const char *name)
{
	for (size_t i = 0; i < stage_count; i++)
		if (!strcmp(stage_table[i].name, name))
			return &stage_table[i];
	return NULL;
}

static int instances(const struct stage_def *s, const struct run *r)
{
	if (s->count)
		return s->count(r);
	return s->repeat ? (int)run_get_int(r, s->repeat) : 0;
}

static long gathered(const struct stage_def *s, const struct run *r)
{
	return s->gather_count ? s->gather_count(r) : run_get_int(r, s->gather);
}

#define ROUNDS_SETTING "DEEP_ROUNDS"

static void ref_init(struct stage_ref *ref, const struct stage_def *s, int round, int index, int count)
{
	ref->def = s;
	ref->index = index;
	ref->count = count;
	ref->round = round;
	char base[80];
	size_t w = strcspn(s->name, "-");
	if (round)
		snprintf(base, sizeof base, "%.*s-%d%s", (int)w, s->name, round, s->name + w);
	else
		snprintf(base, sizeof base, "%s", s->name);
	if (index)
		snprintf(ref->name, sizeof ref->name, "%s.%03d", base, index);
	else
		snprintf(ref->name, sizeof ref->name, "%s", base);
}

static int rounds_of(const struct stage_def *s, const struct run *r)
{
	return s->rounds ? (int)run_get_int(r, s->rounds) : 0;
}

/* Appends the targets of one row (one round of it, or its only copy). */
static void push_copies(struct stage_ref **v, size_t *n, size_t *cap, const struct stage_def *s,
                        int round, const struct run *r)
{
	int k = instances(s, r);
	if (s->count && !k)
		return; /* a counted stage with no instance this run (e.g. no look) */
	for (int j = k ? 1 : 0; j <= k; j++) {
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*v = xrealloc(*v, *cap * sizeof **v);
		}
		memset(&(*v)[*n], 0, sizeof **v);
		ref_init(&(*v)[(*n)++], s, round, j, k);
	}
}

/* push_copies, and for a pooled row once per task of POOL_TASKS, each
 * named "<name>.<task>.NNN". */
static void push_row(struct stage_ref **v, size_t *n, size_t *cap, const struct stage_def *s,
                     int round, const struct run *r)
{
	if (!s->pooled) {
		push_copies(v, n, cap, s, round, r);
		return;
	}
	char *task;
	for (int k = 1; (task = pool_task(r, k)); k++, free(task)) {
		size_t from = *n;
		push_copies(v, n, cap, s, round, r);
		for (size_t i = from; i < *n; i++) {
			struct stage_ref *ref = &(*v)[i];
			char *dot = ref->index ? strrchr(ref->name, '.') : NULL;
			int base = dot ? (int)(dot - ref->name) : (int)strlen(ref->name);
			char *name = xasprintf("%.*s.%s%s", base, ref->name, task, dot ? dot : "");
			if (strlen(name) >= sizeof ref->name)
				BUG("target name %s is too long", name);
			strcpy(ref->name, name);
			free(name);
			ref->pool = k;
		}
	}
}

bool stage_in_run(const struct stage_def *s, const struct run *r)
{
	for (size_t i = 0; i < ARRAY_LEN(s->when) && s->when[i]; i++) {
		const char *eq = strchr(s->when[i], '=');
		char *name = xstrndup(s->when[i], (size_t)(eq - s->when[i]));
		bool holds = one_of(run_get(r, name), eq + 1);
		free(name);
		if (!holds)
			return false;
	}
	return true;
}

/* The run's memo (goal_refs's answers, a goal each; stage_refs's under
 * ""): they follow from its settings alone. A copy of the answer for key
 * in *out, or -1 when there is none. */
static int memo_get(const struct run *r, const char *key, struct stage_ref **out)
{
	for (size_t i = 0; i < r->goal_memo_n; i++)
		if (!strcmp(r->goal_memo[i].goal, key)) {
			size_t size = (size_t)r->goal_memo[i].n * sizeof **out;
			*out = xmalloc(size ? size : 1);
			memcpy(*out, r->goal_memo[i].refs, size);
			return r->goal_memo[i].n;
		}
	return -1;
}

static void memo_put(const struct run *r, const char *key, const struct stage_ref *refs, size_t n)
{
	struct run *w = (struct run *)r; /* const to callers, not to its own cache */
	w->goal_memo = xrealloc(w->goal_memo, (w->goal_memo_n + 1) * sizeof *w->goal_memo);
	struct run_goal_memo *m = &w->goal_memo[w->goal_memo_n++];
	m->goal = xstrdup(key);
	m->n = (int)n;
	m->refs = xmalloc(n ? n * sizeof *refs : 1);
	memcpy(m->refs, refs, n * sizeof *refs);
}

static size_t stage_refs_of(const struct run *r, struct stage_ref **out);

size_t stage_refs(const struct run *r, struct stage_ref **out)
{
	int n = memo_get(r, "", out);
	if (n >= 0)
		return (size_t)n;
	size_t k = stage_refs_of(r, out);
	memo_put(r, "", *out, k);
	return k;
}

static size_t stage_refs_of(const struct run *r, struct stage_ref **out)
{
	struct stage_ref *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < stage_count; i++) {
		const struct stage_def *s = &stage_table[i];
		if (!s->rounds) {
			if (stage_in_run(s, r))
				push_row(&v, &n, &cap, s, 0, r);
			continue;
		}
		/* the block of round rows, round by round */
		size_t end = i;
		while (end < stage_count && stage_table[end].rounds)
			end++;
		for (int k = 1; k <= rounds_of(s, r); k++)
			for (size_t j = i; j < end; j++)
				push_row(&v, &n, &cap, &stage_table[j], k, r);
		i = end - 1;
	}
	if (!v)
		v = xcalloc(1, sizeof *v);
	*out = v;
	return n;
}

int stage_round_of(const char *name)
{
	for (size_t i = 0; i < stage_count; i++) {
		const char *s = stage_table[i].name;
		size_t w = strcspn(s, "-");
		if (!stage_table[i].rounds || strncmp(name, s, w) || name[w] != '-')
			continue;
		char *end;
		long k = strtol(name + w + 1, &end, 10);
		if (end != name + w + 1 && !*end && k > 0 && k < 100000)
			return (int)k;
	}
	return 0;
}

bool stage_ref_depends_on(const struct stage_ref *a, const struct stage_ref *up)
{
	if (a->def == up->def)
		return a->round > up->round ||
		       (a->round == up->round && a->pool == up->pool &&
		        (a->index == up->index || !a->index || !up->index));
	if (a->pool && up->pool && a->pool != up->pool)
		return false; /* two pooled tasks' targets */
	if (a->def->rounds && up->def->rounds && a->round != up->round)
		return a->round > up->round;
	return stage_depends_on(a->def, up->def);
}

bool stage_ref_after(const struct stage_ref *a, const struct stage_ref *up)
{
	const struct stage_def *s = a->def;
	if (a->pool && up->pool && a->pool != up->pool)
		return false;
	if (s->rounds && up->def->rounds && a->round != up->round) {
		/* round K's first row comes after round K-1's last */
		bool first = s == stage_table || !s[-1].rounds;
		bool last = up->def == &stage_table[stage_count - 1] || !up->def[1].rounds;
		return first && last && up->round == a->round - 1;
	}
	for (size_t k = 0; k < ARRAY_LEN(s->after) && s->after[k]; k++)
		if (!strcmp(up->def->name, s->after[k]))
			return !(up->def->rounds && s->rounds && up->round != a->round);
	return false;
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

/* Replaces %T with the task's name, %H with the harness's, %N with the
 * 3-digit instance and %I with the plain one, %K with the round, %P with
 * the round before it, %R with the last round, %D with the task folder
 * and %F with the run folder. */
static char *expand_ref(const char *tmpl, const struct run *r, int index, int round)
{
	struct buf b = BUF_INIT;
	for (const char *p = tmpl; *p; p++) {
		size_t plain = strcspn(p, "%"); /* the text up to the next placeholder, at once */
		if (plain) {
			buf_add(&b, p, plain);
			p += plain - 1;
			continue;
		}
		switch (*++p) {
		case 'T': buf_adds(&b, r->task); break;
		case 'H': buf_adds(&b, run_get(r, "HARNESS")); break;
		case 'N': buf_printf(&b, "%03d", index); break;
		case 'I': buf_printf(&b, "%d", index); break;
		case 'K': buf_printf(&b, "%d", round); break;
		case 'P': buf_printf(&b, "%d", round - 1); break;
		case 'R': buf_printf(&b, "%ld", run_get_int(r, ROUNDS_SETTING)); break;
		case 'D': buf_adds(&b, r->task_dir); break;
		case 'F': buf_adds(&b, r->dir); break;
		default: /* a lone '%' */
			buf_addc(&b, '%');
			p--;
		}
	}
	return buf_detach(&b);
}

/* expand_ref for a target: in a pooled row's copy, %t is its task's name,
 * %d that task's folder and %s its set (stage_def.pooled). */
static char *expand_target(const char *tmpl, const struct stage_ref *ref, const struct run *r)
{
	char *task = ref->pool ? pool_task(r, ref->pool) : NULL;
	if (!task)
		return expand_ref(tmpl, r, ref->index, ref->round);
	struct buf b = BUF_INIT;
	for (const char *p = tmpl; *p; p++) {
		if (p[0] != '%' || !p[1] || !strchr("tds", p[1])) {
			buf_addc(&b, *p);
			continue;
		}
		const char *tasks = run_get(r, "TASKS_DIR");
		char *v = *++p == 't' ? xstrdup(task)
		          : *p == 'd' ? path_join(tasks, task) : pool_set(r, task);
		buf_adds(&b, v);
		free(v);
	}
	char *x = expand_ref(b.data ? b.data : "", r, ref->index, ref->round);
	buf_free(&b);
	free(task);
	return x;
}

/* An args word "*name": several words, per task of POOL_TASKS ("pool_traces":
 * --pool-traces of its static trials, "leak_tasks": --leak-task and
 * "pool_tasks": --pool-task of its folder, "pool_start": deep start's pair,
 * "pool_names": --pool-task of its name), "over:DIR": --skill-over
 * DIR/<skill> for each of SKILLS, or "skill_names": --skill NAME for each
 * skill of the ingested set (whose use an imported BenchFlow run shows). */
static void pool_words(const char *w, const struct stage_ref *ref, const struct run *r,
                       struct strlist *argv)
{
	if (!strcmp(w, "skill_names")) {
		char *dir = run_path(r, "inputs/skill");
		struct strlist names = STRLIST_INIT;
		struct err e;
		if (fs_list_names(dir, &names, &e) == 0)
			for (size_t i = 0; i < names.n; i++) {
				char *md = xasprintf("%s/%s/SKILL.md", dir, names.v[i]);
				if (fs_exists(md)) {
					strlist_push(argv, "--skill");
					strlist_push(argv, names.v[i]);
				}
				free(md);
			}
		strlist_free(&names);
		free(dir);
		return;
	}
	if (!strncmp(w, "over:", 5)) {
		char *rel = expand_target(w + 5, ref, r), *dir = path_join(r->dir, rel);
		char *skills = xstrdup(run_get(r, "SKILLS")), *save = NULL;
		for (char *k = strtok_r(skills, " ,", &save); k; k = strtok_r(NULL, " ,", &save)) {
			strlist_push(argv, "--skill-over");
			strlist_push_owned(argv, path_join(dir, k));
		}
		free(skills);
		free(dir);
		free(rel);
		return;
	}
	char *t;
	for (int k = 1; (t = pool_task(r, k)); k++, free(t)) {
		if (!strcmp(w, "pool_traces")) {
			strlist_push(argv, "--pool-traces");
			strlist_push_owned(argv, xasprintf("%s/traces/%s/static", r->dir, t));
		} else if (!strcmp(w, "leak_tasks") || !strcmp(w, "pool_tasks")) {
			strlist_push(argv, w[0] == 'l' ? "--leak-task" : "--pool-task");
			strlist_push_owned(argv, path_join(run_get(r, "TASKS_DIR"), t));
		} else if (!strcmp(w, "pool_start")) {
			strlist_push(argv, "--pool-base-trials");
			strlist_push_owned(argv, xasprintf("traces/%s/static", t));
			if (!run_get_int(r, "FAST_STAGE"))
				continue;
			strlist_push(argv, "--pool-cand-trials");
			strlist_push_owned(argv, xasprintf("traces/%s/fast", t));
		} else if (!strcmp(w, "pool_names")) {
			strlist_push(argv, "--pool-task");
			strlist_push(argv, t);
		} else {
			BUG("stage %s: no pool word *%s", ref->def->name, w);
		}
	}
}

/* ---- the texts a template names with '#' that a setting alone cannot say */

/* The sandbox skillc-eval is told: the container engine, else local. */
static char *trial_sandbox(const struct stage_ref *ref, const struct run *r)
{
	(void)ref;
	return xstrdup(in_container(r) ? run_get(r, "SANDBOX") : "local");
}

/* The tag in the L2 stamp of the trial's task ("<id> <tag>": the run's,
 * a pooled task's own), or "" without one. */
static char *trial_image(const struct stage_ref *ref, const struct run *r)
{
	if (strcmp(run_get(r, "RUNNER"), "local") || !in_container(r))
		return xstrdup("");
	struct stage_ref at = { .pool = ref->pool };
	char *rel = expand_target(ref->pool ? POOL_L2_STAMP : L2_STAMP, &at, r);
	char *path = run_path(r, rel);
	struct buf b = BUF_INIT;
	struct err e;
	char *tag = NULL;
	if (fs_read(path, 4096, &b, &e) == 0 && strchr(b.data, ' ')) {
		const char *t = strchr(b.data, ' ') + 1;
		if (t[strcspn(t, " \n")] == ' ') /* pinned in IMAGE_REGISTRY: pulled by digest */
			t += strcspn(t, " \n") + 1;
		tag = xstrndup(t, strcspn(t, " \n"));
	}
	buf_free(&b);
	free(path);
	free(rel);
	return tag ? tag : xstrdup("");
}

/* The agent's own limit is AGENT_TIMEOUT; the hard deadline stays under
 * TRIAL_TIMEOUT so skillc-eval, not skillc-stage, does the cleanup. */
static char *trial_deadline(const struct stage_ref *ref, const struct run *r)
{
	(void)ref;
	long limit = run_get_int(r, "TRIAL_TIMEOUT");
	return xasprintf("%ld", limit > 120 ? limit - 30 : limit);
}

/* ENV_FILE when the file is there: a run without keys (fakellm, a local model) has none. */
static char *env_file(const struct stage_ref *ref, const struct run *r)
{
	(void)ref;
	const char *f = run_get(r, "ENV_FILE");
	return xstrdup(fs_exists(f) ? f : "");
}

/* The instances of a repeated row (trial %I of #count). */
static char *instance_count(const struct stage_ref *ref, const struct run *r)
{
	(void)r;
	return xasprintf("%d", ref->count);
}

/* What a template names with '#': a number worked out from several
 * settings, or a text worked out for the target. */
static const struct {
	const char *name;
	int (*number)(const struct run *r);
	char *(*text)(const struct stage_ref *ref, const struct run *r);
} template_values[] = {
	{ "static_trials", static_trials, NULL },
	{ "fast_units", fast_units_of, NULL },
	{ "deep_first", deep_first, NULL },
	{ "deep_max", deep_max, NULL },
	{ "count", NULL, instance_count },
	{ "sandbox", NULL, trial_sandbox },
	{ "image", NULL, trial_image },
	{ "deadline", NULL, trial_deadline },
	{ "env_file", NULL, env_file },
};

static char *template_value(const char *name, const struct stage_ref *ref, const struct run *r)
{
	for (size_t i = 0; i < ARRAY_LEN(template_values); i++) {
		int (*number)(const struct run *r) = template_values[i].number;
		if (strcmp(template_values[i].name, name))
			continue;
		return number ? xasprintf("%d", number(r)) : template_values[i].text(ref, r);
	}
	BUG("stage %s: no template value #%s", ref->def->name, name);
}

/* One word of a template: "$NAME" a setting's value, "#name" one of
 * template_values, "@path" a path in the run folder, "^path" one in the
 * rules folder, "+tool" a tool beside skillc-stage (a second command after
 * "--", or the whole command: stage_command); %-placeholders expanded
 * (expand_ref). */
static char *template_word(const char *w, const struct stage_ref *ref, const struct run *r,
                           const char *bindir)
{
	if (w[0] == '$')
		return xstrdup(run_get(r, w + 1));
	if (w[0] == '#')
		return template_value(w + 1, ref, r);
	if (w[0] == '+')
		return path_join(bindir, w + 1);
	bool in_run = w[0] == '@', in_rules = w[0] == '^';
	char *x = expand_target(w + (in_run || in_rules), ref, r);
	if (!in_run && !in_rules)
		return x;
	char *path = path_join(in_run ? r->dir : r->rules_dir, x);
	free(x);
	return path;
}

/* Does "if NAME" hold: the setting is not empty (a number: not 0), or the
 * value "#name" is not empty. */
static bool template_set(const char *name, const struct stage_ref *ref, const struct run *r)
{
	if (name[0] == '#') {
		char *v = template_value(name + 1, ref, r);
		bool set = *v != 0;
		free(v);
		return set;
	}
	const struct setting_def *d = setting_find(name);
	if (d && d->kind == SET_INT)
		return run_get_int(r, name) != 0;
	return *run_get(r, name) != 0;
}

/* An entry "if NAME rest" holds when NAME is set (template_set), "if
 * NAME=a|b rest" when the setting is one of those; the rest, or NULL when
 * not. */
static const char *template_condition(const char *entry, const struct stage_ref *ref,
                                      const struct run *r)
{
	if (strncmp(entry, "if ", 3))
		return entry;
	const char *end = strchr(entry + 3, ' ');
	if (!end)
		BUG("template entry '%s' has nothing after its condition", entry);
	char *cond = xstrndup(entry + 3, (size_t)(end - entry - 3)), *eq = strchr(cond, '=');
	if (eq)
		*eq = 0;
	bool holds = eq ? one_of(run_get(r, cond), eq + 1) : template_set(cond, ref, r);
	free(cond);
	return holds ? end + 1 : NULL;
}

/* A first entry "if NAME +tool ..." whose condition holds is the whole
 * command (TRACES: static-eval imports instead of running a trial). */
static const char *whole_command(const struct stage_def *s, const struct stage_ref *ref,
                                 const struct run *r)
{
	const char *a = s->args[0];
	const char *w = a && !strncmp(a, "if ", 3) ? template_condition(a, ref, r) : NULL;
	return w && w[0] == '+' ? w : NULL;
}

void stage_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                   struct strlist *argv)
{
	const struct stage_def *s = ref->def;
	const char *whole = whole_command(s, ref, r);
	if (!whole)
		strlist_push_owned(argv, path_join(bindir, s->tool));
	for (size_t i = 0; i < ARRAY_LEN(s->args) && s->args[i]; i++)
		for (const char *w = whole ? (i ? NULL : whole)
		                           : template_condition(s->args[i], ref, r);
		     w && *w;) {
			size_t n = strcspn(w, " ");
			char *word = xstrndup(w, n);
			if (word[0] == '*')
				pool_words(word + 1, ref, r, argv);
			else
				strlist_push_owned(argv, template_word(word, ref, r, bindir));
			free(word);
			w += n + (w[n] == ' ');
		}
}

/* The stage making the file of each output template: looked up for every
 * input of every target, once built */
static const struct stage_def *maker_of(const char *tmpl)
{
	static struct strmap makers = STRMAP_INIT; /* template -> stage index + 1 */
	if (!makers.n)
		for (size_t i = 0; i < stage_count; i++)
			for (size_t k = 0; k < ARRAY_LEN(stage_table[i].outputs) && stage_table[i].outputs[k]; k++) {
				bool added;
				size_t *v = strmap_put(&makers, stage_table[i].outputs[k], &added);
				if (added) /* the first maker, as a search of the table would find */
					*v = i + 1;
			}
	size_t *v = strmap_get(&makers, tmpl);
	return v ? &stage_table[*v - 1] : NULL;
}

/* True when a stage the run lacks makes the file of template tmpl. */
static bool made_by_absent_stage(const char *tmpl, const struct run *r)
{
	const struct stage_def *s = maker_of(tmpl);
	return s && !stage_in_run(s, r);
}

void stage_ref_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	const struct stage_def *s = ref->def;
	for (size_t i = 0; i < ARRAY_LEN(s->inputs) && s->inputs[i]; i++) {
		if (made_by_absent_stage(s->inputs[i], r))
			continue;
		if (strstr(s->inputs[i], "%N") && !ref->index && (s->gather || s->gather_count)) {
			long k = gathered(s, r);
			struct stage_ref at = *ref;
			for (at.index = 1; at.index <= k; at.index++)
				strlist_push_owned(out, expand_target(s->inputs[i], &at, r));
		} else {
			strlist_push_owned(out, expand_target(s->inputs[i], ref, r));
		}
	}
	if (s->more_inputs)
		s->more_inputs(ref, r, out);
}

void stage_ref_outputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	const struct stage_def *s = ref->def;
	for (size_t i = 0; i < ARRAY_LEN(s->outputs) && s->outputs[i]; i++)
		strlist_push_owned(out, expand_target(s->outputs[i], ref, r));
}

void stage_ref_side_outputs(const struct stage_ref *ref, const struct run *r, struct strlist *out)
{
	const struct stage_def *s = ref->def;
	for (size_t i = 0; i < ARRAY_LEN(s->side_outputs) && s->side_outputs[i]; i++)
		strlist_push_owned(out, expand_target(s->side_outputs[i], ref, r));
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

/* The stages `make eval` brings up to date: each stage gathering trials
 * (raw-index, static-index) that needs no trace-driven optimization
 * (nothing after a stage marked .optimizer, where model calls start). */
static int is_eval_stage(const struct stage_def *s)
{
	if (!s->gather && !s->gather_count)
		return 0;
	for (size_t i = 0; i < stage_count; i++)
		if (stage_table[i].optimizer && stage_depends_on(s, &stage_table[i]))
			return 0;
	return 1;
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
	return stage_find(goal) || stage_group_find(goal) || !strcmp(goal, "final") || !strcmp(goal, "all") ||
	       !strcmp(goal, "eval");
}

bool goal_includes(const char *goal, const struct stage_def *s)
{
	if (!strcmp(goal, "final") || !strcmp(goal, "all"))
		return true;
	if (!strcmp(goal, "eval"))
		return eval_needs(s);
	const struct stage_group *grp = stage_group_find(goal);
	const struct stage_def *last = stage_find(grp ? grp->last : goal);
	return last && stage_depends_on(last, s);
}

static int goal_refs_of(const struct run *r, const char *goal, struct stage_ref **out);

int goal_refs(const struct run *r, const char *goal, struct stage_ref **out)
{
	int n = memo_get(r, goal, out);
	if (n < 0 && (n = goal_refs_of(r, goal, out)) >= 0)
		memo_put(r, goal, *out, (size_t)n);
	return n;
}

static int goal_refs_of(const struct run *r, const char *goal, struct stage_ref **out)
{
	/* images: the L2s (a pooled task's too) and the L1s they are built on */
	const struct stage_def *pool_l2 =
		!strcmp(goal, "images") ? stage_find("l2-image-pool") : NULL;
	if (!strcmp(goal, "images"))
		goal = "l2-image";
	const struct stage_group *grp = stage_group_find(goal);
	const struct stage_def *last = stage_find(grp ? grp->last : goal);
	int everything = !strcmp(goal, "final") || !strcmp(goal, "all");
	int eval = !strcmp(goal, "eval");
	*out = NULL;
	if (!goal_known(goal))
		return -1;
	struct stage_ref *all;
	size_t n = stage_refs(r, &all), k = 0;
	/* the goal's own targets, then every target whose outputs a needed
	 * target reads (so only the instances a gathering stage takes) */
	char *need = xcalloc(n ? n : 1, 1);
	struct strlist *ins = xcalloc(n ? n : 1, sizeof *ins), *outs = xcalloc(n ? n : 1, sizeof *outs);
	struct strmap maker = STRMAP_INIT; /* output path -> the first target making it */
	size_t upto = 0; /* past the last target needed: nothing after it is looked at */
	for (size_t i = 0; i < n; i++) {
		/* the whole pipeline's goals leave out the stages the run does not want (BASELINE) */
		const struct stage_def *d = all[i].def;
		if (everything || eval)
			need[i] = (everything || is_eval_stage(d)) && stage_wanted(d, r);
		else
			need[i] = d == last || d == pool_l2;
		if (need[i])
			upto = i + 1;
	}
	for (size_t i = 0; !everything && i < upto; i++) {
		stage_ref_inputs(&all[i], r, &ins[i]);
		stage_ref_outputs(&all[i], r, &outs[i]);
	}
	for (size_t i = 0; !everything && i < upto; i++)
		for (size_t m = 0; m < outs[i].n; m++) {
			bool added;
			size_t *v = strmap_put(&maker, outs[i].v[m], &added);
			if (added)
				*v = i;
		}
	/* upstream targets come first: from the last, each needed target
	 * needs the earlier targets making its inputs */
	for (size_t i = upto; !everything && i-- > 0;)
		for (size_t m = 0; need[i] && m < ins[i].n; m++) {
			size_t *j = strmap_get(&maker, ins[i].v[m]);
			if (j && *j < i)
				need[*j] = 1;
		}
	strmap_free(&maker);
	for (size_t i = 0; i < n; i++) {
		strlist_free(&ins[i]);
		strlist_free(&outs[i]);
		if (need[i])
			all[k++] = all[i];
	}
	free(ins);
	free(outs);
	free(need);
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

bool goal_needs(const char *goal, const struct run *r, const char *setting)
{
	if (!strcmp(goal, "images"))
		goal = "l2-image";
	for (size_t i = 0; goal_known(goal) && i < stage_count; i++)
		if (goal_includes(goal, &stage_table[i]) &&
		    stage_needs(&stage_table[i], r, setting))
			return true;
	return false;
}

size_t run_sources(const struct run *r, struct source_at **out)
{
	size_t n = 0, pools = 0;
	char *task;
	while ((task = pool_task(r, (int)pools + 1))) {
		free(task);
		pools++;
	}
	struct source_at *v = xcalloc(source_count * (pools + 1), sizeof *v);
	for (size_t i = 0; i < source_count; i++) {
		bool pooled = source_table[i].root == SRC_POOL; /* once a pooled task */
		for (size_t k = pooled; k <= (pooled ? pools : 0); k++)
			v[n++] = (struct source_at){ &source_table[i], (int)k };
	}
	*out = v;
	return n;
}

char *source_stamp(const struct run *r, const struct source_at *src)
{
	struct stage_ref at = { .pool = src->pool };
	return expand_target(src->def->stamp, &at, r);
}

char *source_path(const struct run *r, const struct source_at *at)
{
	const struct source_def *src = at->def;
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
	case SRC_POOL: {
		char *task = pool_task(r, at->pool);
		char *dir = path_join(run_get(r, "TASKS_DIR"), task);
		char *path = *src->what ? path_join(dir, src->what) : xstrdup(dir);
		free(dir);
		free(task);
		return path;
	}
	case SRC_TASK:
		break;
	}
	return *src->what ? path_join(r->task_dir, src->what) : xstrdup(r->task_dir);
}

int source_hash(const struct run *r, const struct source_at *at, bool update, char out[33],
                struct err *e)
{
	const struct source_def *src = at->def;
	char *path = source_path(r, at);
	int rc = 0;
	if (!fs_exists(path)) {
		char *absent = xasprintf("absent:%s", src->what);
		hash_bytes(absent, strlen(absent), out);
		free(absent);
	} else {
		/* "inputs/task.src.hash" -> "inputs/.task.src.cache": per-file hashes,
		 * so an unchanged task costs a stat per file, not a read */
		char *stamp = source_stamp(r, at);
		const char *base = path_base(stamp);
		char *cache_rel = xasprintf("%.*s.%.*s.cache", (int)(base - stamp), stamp,
		                            (int)(strlen(base) - strlen(".hash")), base);
		char *cache = run_path(r, cache_rel);
		rc = hash_tree_cached(path, cache, update, out, e);
		free(cache);
		free(cache_rel);
		free(stamp);
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
		bool in_tasks =
			src->root == SRC_TASK || src->root == SRC_SKILL || src->root == SRC_POOL;
		int names = (src->root == SRC_SETTING && !strcmp(src->what, name)) ||
		            (in_tasks && !strcmp(name, "TASKS_DIR")) ||
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
	if (s->pooled && !*run_get(r, "POOL_TASKS"))
		return false; /* no other train task: the row has no target */
	return !s->wanted_if || run_get_int(r, s->wanted_if) == 1;
}

/* "ingest, raw-eval, ...": every stage's name, for messages; caller frees. */
char *stage_names(void)
{
	struct buf names = BUF_INIT, only = BUF_INIT;
	const struct stage_def *cond = NULL; /* the stages of some runs only: the images of SANDBOX=docker|podman */
	for (size_t i = 0; i < stage_count; i++) {
		const struct stage_def *s = &stage_table[i];
		if (!s->when[0]) {
			buf_printf(&names, "%s%s", names.len ? ", " : "", s->name);
			continue;
		}
		cond = cond ? cond : s;
		buf_printf(&only, "%s%s", only.len ? ", " : "", s->name);
	}
	for (size_t i = 0; i < group_count; i++)
		buf_printf(&names, ", %s (%s ... %s)", group_table[i].name, group_table[i].first, group_table[i].last);
	if (cond) {
		buf_adds(&names, "; with");
		for (size_t k = 0; k < ARRAY_LEN(cond->when) && cond->when[k]; k++)
			buf_printf(&names, " %s", cond->when[k]);
		buf_printf(&names, ": %s", only.data);
	}
	buf_free(&only);
	return buf_detach(&names);
}
