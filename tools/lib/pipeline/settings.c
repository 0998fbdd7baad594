#include "pipeline/settings.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"
#include "skill/source.h"

/* The one list of settings: its defaults, what each accepts, whether it
 * changes results, and its text. `make` writes mk/defaults.mk, the settings
 * part of `make help` and the table in docs/settings.md from it
 * (tools/gen/settings.c); adding a setting is adding a row here. Rows:
 * name, kind, default, choices, min, max, changes results, help, scope. */
const struct setting_def settings_table[] = {
	{ "task", SET_NAME, "", NULL, 0, 0, false, "the task: a folder under TASKS_DIR",
	  SCOPE_IDENTITY },
	{ "tasks", SET_NAMES, "", NULL, 0, 0, false,
	  "several tasks, one run each (instead of task=)", SCOPE_CALL },
	{ "harnesses", SET_NAMES, "", NULL, 0, 0, false,
	  "several harnesses: every task runs with each (instead of HARNESS=)", SCOPE_CALL },
	{ "models", SET_MODELS, "", NULL, 0, 0, false,
	  "several target models: every task runs with each (instead of MODEL=)", SCOPE_CALL },
	{ "MATRIX", SET_PATH, "", NULL, 0, 0, false,
	  "a YAML file listing the runs: tasks, harnesses, models (or a Harbor job config's "
	  "agents and datasets)",
	  SCOPE_CALL },
	{ "TASK_FILTER", SET_NAMES, "", NULL, 0, 0, false,
	  "only the tasks whose name holds one of these words", SCOPE_CALL },
	{ "HARNESS_FILTER", SET_NAMES, "", NULL, 0, 0, false, "only these harnesses", SCOPE_CALL },
	{ "MODEL_FILTER", SET_MODELS, "", NULL, 0, 0, false, "only these models", SCOPE_CALL },
	{ "skill", SET_PATH, "", NULL, 0, 0, false,
	  "a skill run: the skill tuned on the train= tasks and judged on the test= tasks, a "
	  "skill folder or the name of a skill folder in the train tasks "
	  "(docs/skill-runs.md)",
	  SCOPE_CALL },
	{ "train", SET_NAMES, "", NULL, 0, 0, false,
	  "a skill run's train tasks: the only tasks whose trials and text the optimizer sees",
	  SCOPE_CALL },
	{ "test", SET_NAMES, "", NULL, 0, 0, false,
	  "a skill run's held-out test tasks: raw and final trials only, nothing of them reaches "
	  "a prompt",
	  SCOPE_CALL },
	{ "SPLIT", SET_DECIMAL, "0.4", NULL, 0, 1, false,
	  "a skill run over tasks= instead of train=/test=: the share of the tasks drawn as test "
	  "tasks (at least one, and one left to train)",
	  SCOPE_CALL },
	{ "SPLIT_SEED", SET_INT, "1", NULL, 0, 2147483647, false,
	  "the seed of that draw; the split and its seed are recorded in the skill run",
	  SCOPE_CALL },
	{ "TASKS_DIR", SET_PATH, "tasks", NULL, 0, 0, false,
	  "folder holding the tasks (point it at a SkillsBench checkout's tasks/)", SCOPE_RUN },
	{ "RESULTS", SET_PATH, "results/compile-pipeline", NULL, 0, 0, false,
	  "folder holding the runs", SCOPE_IDENTITY },
	{ "RUN_DIR", SET_PATH, "", NULL, 0, 0, false,
	  "this run folder instead of RESULTS/<task>--<harness>--<model> (must be under RESULTS)",
	  SCOPE_IDENTITY },
	{ "CACHE_DIR", SET_PATH, CACHE_DIR_DEFAULT, NULL, 0, 0, false,
	  "content-addressed caches (LLM answers, trials) shared by all runs", SCOPE_CALL },
	{ "HARNESS", SET_NAME, "opencode", NULL, 0, 0, true,
	  "agent harness (rules/harness/<name>.json)", SCOPE_IDENTITY },
	{ "MODEL", SET_MODEL, "", NULL, 0, 0, true,
	  "target model, provider/model-id; every stage after ingest needs it", SCOPE_IDENTITY },
	{ "EXTERNAL_MODEL", SET_MODEL, "", NULL, 0, 0, true,
	  "the compiler's planning model, provider/model-id (STATIC_MODE=hybrid)", SCOPE_RUN },
	{ "BENCH", SET_NAME, "", NULL, 0, 0, true,
	  "the task source's name in the summary (empty: the TASKS_DIR folder's name)", SCOPE_RUN },
	{ "RUNNER", SET_ENUM, "local", "benchflow harbor local", 0, 0, true, "evaluation runner",
	  SCOPE_RUN },
	{ "SANDBOX", SET_ENUM, "bwrap", "bwrap docker podman none", 0, 0, true,
	  "where RUNNER=local trials run: bwrap (this machine's programs; a Dockerfile's RUN/ENV "
	  "steps are not reproduced), docker or podman (a container of the task's own "
	  "image, docs/containers.md) or none (unsandboxed, as root)",
	  SCOPE_RUN },
	{ "IMAGE", SET_IMAGE, "", NULL, 0, 0, true,
	  "SANDBOX=docker|podman: a local image used as the task's L1 instead of building its "
	  "Dockerfile (empty: build it)",
	  SCOPE_RUN },
	{ "QEMU", SET_ENUM, "auto", "auto yes no", 0, 0, false,
	  "SANDBOX=docker|podman, an image of another architecture than the host's: auto emulates "
	  "it where qemu-user-static is registered, yes without checking, no never "
	  "(docs/containers.md)",
	  SCOPE_RUN },
	{ "RUNTIME_BASE", SET_IMAGE, "debian:12-slim", NULL, 0, 0, false,
	  "the Debian 12 image make runtime-image builds the Docker-in-Docker runtime from "
	  "(docs/containers.md)",
	  SCOPE_CALL },
	{ "REGISTRY_MIRROR", SET_ARGS, "", NULL, 0, 0, false,
	  "registry mirrors (http(s) URLs, comma-separated) the Docker-in-Docker runtime's daemon "
	  "pulls base images through; for your own daemon: registry-mirrors in its "
	  "daemon.json (docs/containers.md)",
	  SCOPE_CALL },
	{ "IMAGE_REGISTRY", SET_IMAGE, "", NULL, 0, 0, false,
	  "SANDBOX=docker or podman, host:port[/prefix]: make images also pushes each L1/L2 there "
	  "and pins its digest in the stamp; a node lacking an image pulls it by digest "
	  "instead of building it (docs/cluster.md)",
	  SCOPE_CALL },
	{ "REPEAT", SET_INT, "3", NULL, 1, 1000, true, "trials per evaluation", SCOPE_RUN },
	{ "FAST_MIN_TRACES", SET_INT, "6", NULL, 1, 1000, true,
	  "counting traces the fast stage needs; static-eval runs at least this many", SCOPE_RUN },
	{ "FAST_TOP", SET_INT, "3", NULL, 1, 100, true,
	  "traces in the fast stage's top group (docs/fast.md)", SCOPE_RUN },
	{ "FAST_BOTTOM", SET_INT, "3", NULL, 1, 100, true,
	  "traces in the fast stage's bottom group", SCOPE_RUN },
	{ "FAST_MAX_PATCHES", SET_INT, "4", NULL, 0, 100, true,
	  "patches the fast stage may keep (0: none)", SCOPE_RUN },
	{ "FAST_STAGE", SET_INT, "1", NULL, 0, 1, true,
	  "0: the run has no fast stage, deep's round 1 starts from S_static alone (skillc-deep "
	  "run: deep from given traces)",
	  SCOPE_RUN },
	{ "DEEP_ROUNDS", SET_INT, "3", NULL, 0, 100, true,
	  "deep optimization rounds (docs/deep.md)", SCOPE_RUN },
	{ "DEEP_TRIALS", SET_INT, "0", NULL, 0, 200, true,
	  "candidate trials at a deep round's first look (0: REPEAT)", SCOPE_RUN },
	{ "DEEP_MAX_TRIALS", SET_INT, "0", NULL, 0, 200, true,
	  "candidate trials a deep round may extend to (0: 2 x DEEP_TRIALS)", SCOPE_RUN },
	{ "DEEP_TEST", SET_ENUM, "barnard", "barnard fisher", 0, 0, true,
	  "the deep decision's exact one-sided test on the pass counts", SCOPE_RUN },
	{ "DEEP_ALPHA", SET_DECIMAL, "0.10", NULL, 0, 1, true,
	  "false-accept rate of the deep decision (exact one-sided test)", SCOPE_RUN },
	{ "DEEP_TOLERANCE", SET_DECIMAL, "1.10", NULL, 1, 100, true,
	  "largest median paired ratio of tokens, steps and time a deep edit may cost", SCOPE_RUN },
	{ "FINAL_REPEAT", SET_INT, "0", NULL, 0, 1000, true,
	  "fresh trials of S_final in the final evaluation (0: REPEAT)", SCOPE_RUN },
	{ "FINAL_FRESH", SET_INT, "0", NULL, 0, 1, true,
	  "1: the final evaluation never reuses the selection trials of the last accepted round",
	  SCOPE_RUN },
	{ "STATIC_MODE", SET_ENUM, "deterministic", "deterministic hybrid copy", 0, 0, true,
	  "static compile mode (hybrid adds one planning call to EXTERNAL_MODEL; copy keeps the "
	  "skill unchanged, as the standalone skillc-fast and skillc-deep run do)",
	  SCOPE_RUN },
	{ "BASELINE", SET_INT, "0", NULL, 0, 1, false,
	  "1: eval and final also run REPEAT trials with no skill (noskill-eval), the baseline "
	  "the summary compares every stage against (docs/baseline.md)",
	  SCOPE_RUN },
	{ "REQUIRE_SKILL", SET_INT, "0", NULL, 0, 1, true,
	  "1: a trial that never invoked the skill fails its check", SCOPE_RUN },
	{ "AGENT_TIMEOUT", SET_INT, "0", NULL, 0, 604800, true,
	  "the agent's time limit in a trial, seconds (0: the task's own [agent] timeout_sec)",
	  SCOPE_RUN },
	{ "AGENT_HANDSHAKE_TIMEOUT", SET_INT, "0", NULL, 0, 3600, false,
	  "RUNNER=local: seconds the agent has to answer the ACP handshake, at most its time "
	  "limit (0: BenchFlow's 60; raise it where a loaded machine starts the agent slowly)",
	  SCOPE_RUN },
	{ "RM_API_URL", SET_URL, "", NULL, 0, 0, true,
	  "AgentRM scoring service for the fast stage; make doctor checks its /health", SCOPE_RUN },
	{ "PROFILES_DIR", SET_PATH, "profiles", NULL, 0, 0, false,
	  "your model profiles, searched before rules/profiles/", SCOPE_RUN },
	{ "SKILL_SOURCE", SET_PATH, "", NULL, 0, 0, false,
	  "evaluate and compile these skills instead of the task's own: a skill folder (SKILL.md) "
	  "or a skills root holding a set; the run folder is named by its content "
	  "(docs/baseline.md)",
	  SCOPE_IDENTITY },
	{ "TRACES", SET_PATH, "", NULL, 0, 0, false,
	  "static-eval runs no trial: it imports the traces in this folder (test-NNN/trial.json "
	  "folders or BenchFlow runs), REPEAT of them, in name order (the standalone skillc-fast "
	  "and skillc-deep run)",
	  SCOPE_RUN },
	{ "PROFILE", SET_PATH, "", NULL, 0, 0, false,
	  "the profile stage copies this profile resolution (skillc-profile's profile.json) "
	  "instead of resolving MODEL",
	  SCOPE_RUN },
	{ "SKILLS", SET_NAMES, "", NULL, 0, 0, true,
	  "compile and optimize (static, fast, deep) only these skill folders of the task's set; "
	  "the others stay byte-identical, and every trial still sees the whole set (empty: "
	  "every skill)",
	  SCOPE_RUN },
	{ "POOL_TASKS", SET_NAMES, "", NULL, 0, 0, true,
	  "a skill run's other train tasks (set by skillc-skillrun): the run also tries its skill "
	  "on each (its set under SKILL_SOURCE's parent; its own source stamp and images), Fast "
	  "reads their traces and instructions and Deep decides over every task by the exact "
	  "stratified test (docs/skill-runs.md)",
	  SCOPE_RUN },
	{ "MAX_FILE_MB", SET_INT, "25", NULL, 1, 4096, true,
	  "largest file of a task or a skill any tool reads, in MB", SCOPE_RUN },
	{ "BUDGET_USD", SET_USD, "", NULL, 0, 0, false,
	  "no stage of the run starts once the run has paid this much, USD (empty: no budget)",
	  SCOPE_RUN },
	{ "STAGE_TIMEOUT", SET_INT, "3600", NULL, 1, 604800, false,
	  "time limit of one stage, seconds; the stage's whole process group is stopped after it",
	  SCOPE_RUN },
	{ "TRIAL_TIMEOUT", SET_INT, "10800", NULL, 60, 604800, false,
	  "hard time limit of one evaluation trial, seconds", SCOPE_RUN },
	{ "ROUTES", SET_PATH, "provider_routes.json", NULL, 0, 0, false,
	  "provider routes file (the shipped example when absent)", SCOPE_CALL },
	{ "ENV_FILE", SET_PATH, ".env", NULL, 0, 0, false, "file holding API keys", SCOPE_CALL },
	{ "LLM_CACHE", SET_ENUM, "use", "use refresh off only", 0, 0, false,
	  "LLM cache mode (only: offline replay, a miss is an error)", SCOPE_CALL },
	{ "DOCTOR_PROBE", SET_ENUM, "models", "models call none", 0, 0, false,
	  "how far make doctor tests a provider (call: one 1-token request)", SCOPE_CALL },
	{ "LAUNCHER", SET_ENUM, "local", "local srun", 0, 0, false,
	  "where trials run: here, or each as a Slurm job through srun (docs/cluster.md)",
	  SCOPE_CALL },
	{ "SRUN_ARGS", SET_ARGS, "", NULL, 0, 0, false,
	  "more srun options for LAUNCHER=srun, e.g. --partition=gpu --mem=8G", SCOPE_CALL },
	{ "DATASET_PIN", SET_PATH, "", NULL, 0, 0, false,
	  "a dataset pin (make pin writes it): a run refuses to start when its task differs from "
	  "the pinned one",
	  SCOPE_CALL },
	{ "OUT", SET_PATH, "", NULL, 0, 0, false,
	  "make export: the bundle to write, a .tar.gz or .tar.zst file", SCOPE_CALL },
	{ "HARBOR_JOBS", SET_PATH, "", NULL, 0, 0, false,
	  "a Harbor jobs folder (or one job, jobs/<job>) whose trials make summary adds to the "
	  "table",
	  SCOPE_CALL },
	{ "STAGE", SET_NAME, "", NULL, 0, 0, false,
	  "the stage clean-stage forgets (or one trial, raw-eval.003)", SCOPE_CALL },
	{ "GOAL", SET_NAME, "final", NULL, 0, 0, false,
	  "the goal make status and make doctor judge: a stage, eval or final", SCOPE_CALL },
	{ "WATCH_TIMEOUT", SET_INT, "0", NULL, 0, 604800, false,
	  "how long make watch waits, seconds (0: until done)", SCOPE_CALL },
	{ "GATE_STAGE", SET_NAME, "final", NULL, 0, 0, false,
	  "the stage make gate judges against raw (docs/ci.md)", SCOPE_CALL },
	{ "GATE_RULE", SET_ENUM, "no-regression", "no-regression gain", 0, 0, false,
	  "make gate: no-regression fails a run only on evidence of a loss (the 95% interval of "
	  "stage - raw below 0); gain passes it only when the interval's lower end is at "
	  "least GATE_MIN_DELTA (docs/ci.md)",
	  SCOPE_CALL },
	{ "GATE_MIN_DELTA", SET_INT, "0", NULL, -100, 100, false,
	  "make gate with GATE_RULE=gain: the lower end of the 95% interval of stage - raw (and - "
	  "noskill) must be at least this many points; negative: a loss allowed "
	  "(non-inferiority); -100: off",
	  SCOPE_CALL },
	{ "GATE_MAX_REGRESSED", SET_INT, "0", NULL, 0, 100000, false,
	  "make gate: how many runs may have the stage below raw", SCOPE_CALL },
	{ "GATE_VS", SET_ENUM, "none", "none noskill", 0, 0, false,
	  "make gate: noskill also judges stage - noskill", SCOPE_CALL },
	{ "GATE_ACROSS", SET_ENUM, "runs", "runs tasks", 0, 0, false,
	  "make gate over several runs: runs judges each run; tasks judges the mean change across "
	  "them, its 95% interval clustered by task (docs/ci.md, docs/statistics.md)",
	  SCOPE_CALL },
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

static bool model_ok(const char *v)
{
	return (name_is_safe(v) || (chars_ok(v, "/:@") && v[0] != '/' && v[0] != '.' && !strstr(v, ".."))) &&
	       strchr(v, '/');
}

static bool enum_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);
	for (const char *p = choices; n && *p;) {
		size_t w = strcspn(p, " ");
		if (w == n && !strncmp(p, v, n))
			return true;
		p += w;
		p += *p == ' ';
	}
	return false;
}

/* Every space-separated word of v passes ok (and there are no other blanks). */
static bool list_ok(const char *v, bool (*ok)(const char *))
{
	bool good = true;
	char *copy = xstrdup(v);
	for (char *save = NULL, *w = strtok_r(copy, " ,", &save); good && w; w = strtok_r(NULL, " ,", &save))
		good = ok(w);
	free(copy);
	return good;
}

static bool name_ok(const char *v)
{
	return name_is_safe(v);
}

/* What a setting accepts, in words ("a whole number from 1 to 1000"). */
static const char *setting_allowed(const struct setting_def *s, char *buf, size_t n)
{
	switch (s->kind) {
	case SET_NAME:
		return "a name of letters, digits, '.', '_' and '-', starting with a letter or digit";
	case SET_NAMES:
		return "names of letters, digits, '.', '_' and '-', each starting with a letter or digit, separated by spaces or commas";
	case SET_MODEL:
		return "write provider/model-id, e.g. vllm/Qwen/Qwen3.5-27B (letters, digits and . _ - / : @)";
	case SET_MODELS:
		return "provider/model-ids (letters, digits and . _ - / : @) separated by spaces or commas";
	case SET_PATH:
		return "a path of letters, digits and . _ - / + ~ @ (no spaces, quotes or $)";
	case SET_URL:
		return "an http:// or https:// URL without spaces or quotes";
	case SET_ARGS:
		return "options of letters, digits, spaces and . _ - = , : / + @ % ~ [ ] (no quotes or $)";
	case SET_INT:
		snprintf(buf, n, "a whole number from %ld to %ld", s->min, s->max);
		return buf;
	case SET_DECIMAL:
		snprintf(buf, n, "a decimal number from %ld to %ld, e.g. 0.10", s->min, s->max);
		return buf;
	case SET_ENUM:
		snprintf(buf, n, "one of %s", s->choices);
		return buf;
	case SET_USD:
		return "an amount of US dollars, e.g. 2.50 (empty: no budget)";
	case SET_IMAGE:
		return "a local image, e.g. myorg/task-env:1 (letters, digits and . _ - / : @, starting with a letter or digit)";
	}
	return "";
}

/* Digits with at most one '.', and at least one digit, in [min, max]. */
static bool decimal_ok(const char *v, long min, long max)
{
	int digits = 0, dots = 0;
	for (const char *p = v; *p; p++) {
		if (*p == '.')
			dots++;
		else if (*p >= '0' && *p <= '9')
			digits++;
		else
			return false;
	}
	if (!digits || dots > 1)
		return false;
	double x = strtod(v, NULL);
	return x >= (double)min && x <= (double)max;
}

static bool value_ok(const struct setting_def *s, const char *v)
{
	if (!*v && !*s->def && s->kind != SET_INT && s->kind != SET_ENUM && s->kind != SET_DECIMAL)
		return true; /* left empty, as its default is */
	switch (s->kind) {
	case SET_NAME:
		return name_is_safe(v);
	case SET_NAMES:
		return list_ok(v, name_ok);
	case SET_MODEL:
		return model_ok(v);
	case SET_MODELS:
		return list_ok(v, model_ok);
	case SET_PATH:
		return *v && chars_ok(v, "/+~@");
	case SET_IMAGE:
		return isalnum((unsigned char)v[0]) && chars_ok(v, "/:@") && !strstr(v, "..");
	case SET_URL:
		return (!strncmp(v, "http://", 7) || !strncmp(v, "https://", 8)) && chars_ok(v, "/:?&=%+~,@#[]");
	case SET_ARGS:
		return chars_ok(v, " =,:/+@%~[]");
	case SET_INT: {
		char *end;
		long n = strtol(v, &end, 10);
		const char *d = *v == '-' && s->min < 0 ? v + 1 : v; /* a sign only where negatives are allowed */
		return *d >= '0' && *d <= '9' && !*end && n >= s->min && n <= s->max;
	}
	case SET_USD: {
		char *end;
		double d = strtod(v, &end);
		return *v >= '0' && *v <= '9' && !*end && chars_ok(v, "") && d <= 1e12;
	}
	case SET_ENUM:
		return enum_ok(s->choices, v);
	case SET_DECIMAL:
		return decimal_ok(v, s->min, s->max);
	}
	return false;
}

int setting_check(const struct setting_def *s, const char *v, struct err *e)
{
	if (value_ok(s, v))
		return 0;
	char buf[256], shown[128];
	size_t k = 0;
	for (const char *p = v; *p && k < sizeof shown - 4; p++) /* never a control byte on the terminal */
		shown[k++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
	strcpy(shown + k, strlen(v) > k ? "..." : "");
	return err_set(e, ERR_INPUT, "bad %s '%s': %s", s->name, shown, setting_allowed(s, buf, sizeof buf));
}

int settings_check_args(int argc, char **argv, struct err *e)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char *name = eq ? xstrndup(argv[i], (size_t)(eq - argv[i])) : xstrdup(argv[i]);
		const struct setting_def *s = setting_find(name);
		int rc = 0;
		if (!s || !eq)
			rc = err_set(e, ERR_INPUT, "'%s' is not NAME=VALUE of a setting (docs/settings.md)", argv[i]);
		else
			rc = setting_check(s, eq + 1, e);
		free(name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int settings_check_strays(const char *names, struct err *e)
{
	int rc = 0;
	for (const char *p = names; *p && rc == 0;) {
		size_t n = strcspn(p, " ");
		char *name = xstrndup(p, n);
		if (*name && !setting_find(name)) {
			struct buf all = BUF_INIT; /* the settings' names: built for a stray only */
			for (size_t i = 0; i < settings_count; i++)
				buf_printf(&all, "%s ", settings_table[i].name);
			char *near = str_nearest(name, all.data);
			if (near)
				rc = err_set(e, ERR_INPUT, "%s is not a setting: did you mean %s? "
					     "(make help lists the settings)", name, near);
			free(near);
			buf_free(&all);
		}
		free(name);
		p += n + (p[n] == ' ');
	}
	return rc;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v ? v : def;
}

const char *run_recorded(const struct run *r, const char *name)
{
	return r->recorded ? json_str(r->recorded, name) : NULL;
}

/* settings.json of the run, when it has one: what it remembers. */
static int load_recorded(struct run *r, struct err *e)
{
	char *p = run_path(r, "settings.json");
	int rc = 0;
	if (fs_exists(p)) {
		cJSON *doc = json_read_file(p, e);
		cJSON *set = doc ? json_get(doc, "settings") : NULL;
		if (!cJSON_IsObject(set))
			rc = err_set(e, ERR_INPUT, "'%s' is not a run's settings file (remove it to start the run's settings afresh)", p);
		else
			r->recorded = cJSON_DetachItemViaPointer(doc, set);
		cJSON_Delete(doc);
	}
	free(p);
	return rc;
}

/* A setting left out takes the recorded value (checked like any other). */
static int apply_recorded(struct run *r, struct err *e)
{
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		const char *v = run_recorded(r, s->name);
		if (s->scope == SCOPE_CALL || !v || strlist_has(&r->given, s->name))
			continue;
		if (setting_check(s, v, e) < 0)
			return err_set(e, ERR_INPUT, "%s/settings.json: %s (give %s= to replace it)", r->dir, e->msg, s->name);
		json_set_str(r->values, s->name, v);
	}
	return 0;
}

int settings_from_args(int argc, char **argv, cJSON **values, struct err *e)
{
	*values = NULL;
	if (settings_check_args(argc, argv, e) < 0)
		return -1;
	cJSON *v = cJSON_CreateObject();
	for (size_t i = 0; i < settings_count; i++)
		cJSON_AddStringToObject(v, settings_table[i].name, settings_table[i].def);
	for (int i = 0; i < argc; i++) {
		char *name = xstrndup(argv[i], strcspn(argv[i], "="));
		json_set_str(v, name, argv[i] + strlen(name) + 1);
		free(name);
	}
	*values = v;
	return 0;
}

int run_load_settings(struct run *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	r->given = (struct strlist)STRLIST_INIT;
	r->values = cJSON_CreateObject();
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		const char *v = env_or(s->name, s->def);
		if (setting_check(s, v, e) < 0)
			return -1;
		cJSON_AddStringToObject(r->values, s->name, v);
	}
	return 0;
}

/* Fills what every run has once its values are known. */
static int run_finish(struct run *r, const char *rules, struct err *e)
{
	if (load_recorded(r, e) < 0 || apply_recorded(r, e) < 0)
		return -1;
	const char *task = run_get(r, "task");
	if (!name_is_safe(task))
		return err_set(e, ERR_INPUT, "%s: not a run of a task (settings.json names none): give task=", r->dir);
	r->task = xstrdup(task);
	r->task_dir = path_join(run_get(r, "TASKS_DIR"), task);
	r->rules_dir = rules ? xstrdup(rules) : rules_dir();
	if (!r->rules_dir)
		r->rules_dir = xstrdup("rules"); /* absent: the stages that need it say so */
	return 0;
}

int run_open(struct run *r, const char *dir, const cJSON *cmd, const struct strlist *given, const char *rules,
             struct err *e)
{
	memset(r, 0, sizeof *r);
	r->given = (struct strlist)STRLIST_INIT;
	r->dir = xstrdup(dir);
	r->values = cJSON_Duplicate(cmd, 1);
	for (size_t i = 0; i < given->n; i++)
		strlist_push(&r->given, given->v[i]);
	return run_finish(r, rules, e);
}

int run_open_dir(struct run *r, const char *dir, struct err *e)
{
	memset(r, 0, sizeof *r);
	r->given = (struct strlist)STRLIST_INIT;
	r->dir = xstrdup(dir);
	r->values = cJSON_CreateObject();
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		const char *v = s->scope == SCOPE_CALL ? env_or(s->name, s->def) : s->def;
		if (setting_check(s, v, e) < 0)
			return -1;
		cJSON_AddStringToObject(r->values, s->name, v);
		if (s->scope == SCOPE_CALL)
			strlist_push(&r->given, s->name);
	}
	char *p = run_path(r, "settings.json");
	int known = fs_exists(p);
	free(p);
	if (!known)
		return err_set(e, ERR_INPUT, "'%s' is not a run folder (no settings.json): make creates runs (make task=<name> ...)", dir);
	return run_finish(r, NULL, e);
}

int run_record(struct run *r, struct strlist *changes, struct err *e)
{
	cJSON *now = cJSON_CreateObject();
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		if (s->scope == SCOPE_CALL)
			continue;
		const char *v = run_get(r, s->name), *was = run_recorded(r, s->name);
		cJSON_AddStringToObject(now, s->name, v);
		if (r->recorded && was && strcmp(was, v))
			strlist_push_owned(changes, xasprintf("%s %s -> %s", s->name, *was ? was : "''", *v ? v : "''"));
	}
	int changed = !r->recorded || !cJSON_Compare(now, r->recorded, true);
	int rc = 0;
	if (changed) {
		cJSON *doc = cJSON_CreateObject();
		json_set_num(doc, "format", 1);
		cJSON_AddStringToObject(doc, "task", r->task);
		cJSON_AddItemToObject(doc, "settings", cJSON_Duplicate(now, 1));
		char *p = run_path(r, "settings.json");
		rc = fs_mkdirs(r->dir, e) < 0 || json_write_file(p, doc, e) < 0 ? -1 : 1;
		free(p);
		cJSON_Delete(doc);
		if (rc == 1) {
			cJSON_Delete(r->recorded);
			r->recorded = cJSON_Duplicate(now, 1);
		}
	}
	cJSON_Delete(now);
	return rc;
}

void run_free(struct run *r)
{
	free(r->dir);
	free(r->task);
	free(r->task_dir);
	free(r->rules_dir);
	cJSON_Delete(r->values);
	cJSON_Delete(r->recorded);
	strlist_free(&r->given);
	for (size_t i = 0; i < r->goal_memo_n; i++) {
		free(r->goal_memo[i].goal);
		free(r->goal_memo[i].refs);
	}
	free(r->goal_memo);
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

/* BENCH when left empty: the name of the folder holding the tasks, or of
 * the one above it when that is called "tasks" (a SkillsBench checkout's
 * skillsbench/tasks gives "skillsbench"). */
static char *bench_default(const struct run *r)
{
	char *tasks = path_dir(r->task_dir), *abs = fs_real_path(tasks);
	const char *dir = abs ? abs : tasks;
	char *name = xstrdup(path_base(dir));
	if (!strcmp(name, "tasks")) {
		char *up = path_dir(dir);
		free(name);
		name = xstrdup(path_base(up));
		free(up);
	}
	free(abs);
	free(tasks);
	if (!name_is_safe(name)) {
		free(name);
		name = xstrdup("tasks");
	}
	return name;
}

cJSON *run_config(const struct run *r)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "task", r->task);
	/* the skill from elsewhere, by content (its path is no result) */
	if (*run_get(r, "SKILL_SOURCE")) {
		struct err e;
		char *tag = skill_source_tag(run_get(r, "SKILL_SOURCE"), &e);
		cJSON_AddStringToObject(c, "SKILL_SOURCE", tag ? tag : "unreadable");
		free(tag);
	}
	for (size_t i = 0; i < settings_count; i++) {
		const char *name = settings_table[i].name, *v = run_get(r, name);
		if (!settings_table[i].result)
			continue;
		if (!strcmp(name, "BENCH") && !*v) {
			char *bench = bench_default(r);
			cJSON_AddStringToObject(c, name, bench);
			free(bench);
		} else {
			cJSON_AddStringToObject(c, name, v);
		}
	}
	return c;
}

char *run_command(const struct run *r, const char *goal)
{
	struct buf b = BUF_INIT;
	/* skillc.mk given with -f (installed): the command must say so too */
	const char *mk = getenv("SKILLC_MAKE_F");
	if (mk && *mk)
		buf_printf(&b, "make -f %s task=%s", mk, r->task);
	else
		buf_printf(&b, "make task=%s", r->task);
	for (size_t i = 0; i < settings_count; i++) {
		const struct setting_def *s = &settings_table[i];
		const char *v = run_get(r, s->name), *was = run_recorded(r, s->name);
		int names_run = s->scope == SCOPE_IDENTITY && strcmp(s->name, "task") && strcmp(v, s->def);
		int not_kept = s->scope == SCOPE_RUN && strlist_has(&r->given, s->name) &&
		               (!was || strcmp(was, v)) && strcmp(v, s->def);
		if (names_run || not_kept)
			buf_printf(&b, " %s=%s", s->name, v);
	}
	buf_printf(&b, " %s", goal);
	return buf_detach(&b);
}
