/* corpus_test.c — the parser against real BenchFlow artifacts in
 * ../shared/corpus/benchflow-samples (skipped, and counted as skipped, when absent).
 * Every expected value below was read off the files by hand. */
#include <math.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "t.h"
#include "eval/trial.h"

#define CORPUS "../shared/corpus/benchflow-samples"
#define PROD CORPUS "/writer-generated-production-schema"

static struct strlist names(const char *a, const char *b, const char *c)
{
	struct strlist l = STRLIST_INIT;
	if (a)
		strlist_push(&l, a);
	if (b)
		strlist_push(&l, b);
	if (c)
		strlist_push(&l, c);
	return l;
}

static cJSON *parse(const char *path, const struct strlist *skills, struct err *e)
{
	struct trial_opts o = { NULL, "rules", "benchflow", skills, false, NULL };
	return trial_parse(path, NULL, &o, e);
}

static const char *first_name(const cJSON *t, const char *list)
{
	const cJSON *a = json_get(json_get(t, "skill"), list);
	return a && a->child ? a->child->valuestring : NULL;
}

/* pass-with-skill: reward 1.0; 19600 in + 600 out = 20200 tokens, $0.006; 4 tool
 * calls; the `skill` tool loads flood-detection; usgs-data-download's SKILL.md is
 * only read; all three bundled skills are in <available_skills>. */
static void test_pass_with_skill(void)
{
	struct strlist s = names("flood-detection", "nws-flood-thresholds", "usgs-data-download");
	struct err e;
	cJSON *t = parse(PROD "/pass-with-skill/jobs", &s, &e);
	CHECK(t != NULL);
	CHECK_STR(json_str(t, "outcome"), "passed");
	CHECK(json_num(t, "reward", -1) == 1.0);
	CHECK(json_num(t, "verifier_reward", -1) == 1.0);
	CHECK_INT(json_num(json_get(t, "tokens"), "total", -1), 20200);
	CHECK_INT(json_num(json_get(t, "tokens"), "input", -1), 19600);
	CHECK_INT(json_num(json_get(t, "tokens"), "output", -1), 600);
	CHECK(fabs(json_num(t, "cost_usd", -1) - 0.006) < 1e-12);
	CHECK_INT(json_num(t, "tool_calls", -1), 4);
	CHECK(fabs(json_num(json_get(t, "durations"), "total", -1) - 309.6) < 1e-9);
	const cJSON *sk = json_get(t, "skill");
	CHECK(json_bool(sk, "invoked", false));
	CHECK_STR(first_name(t, "invoked_names"), "flood-detection");
	CHECK_INT(cJSON_GetArraySize(json_get(sk, "invoked_names")), 1);
	CHECK(json_bool(sk, "read", false));
	CHECK_STR(first_name(t, "read_names"), "usgs-data-download");
	CHECK(json_bool(sk, "catalog", false));
	CHECK_INT(cJSON_GetArraySize(json_get(sk, "catalog_names")), 3);
	CHECK_INT(json_num(sk, "runner_invocations", -1), 1);
	CHECK_INT(json_num(json_get(t, "trajectory"), "events", -1), 7);
	CHECK(json_bool(t, "complete", false));
	cJSON_Delete(t);
	strlist_free(&s);

	/* injecting only usgs-data-download: read, never invoked */
	s = names("usgs-data-download", NULL, NULL);
	t = parse(PROD "/pass-with-skill/jobs", &s, &e);
	CHECK(!json_bool(json_get(t, "skill"), "invoked", true));
	CHECK(json_bool(json_get(t, "skill"), "read", false));
	cJSON_Delete(t);
	strlist_free(&s);
}

/* fail-no-skill: reward 0.0, 10900 + 320 = 11220 tokens, $0.0024, 2 tool calls,
 * no skill anywhere (the catalog holds only the built-in customize-opencode). */
static void test_fail_no_skill(void)
{
	struct strlist none = STRLIST_INIT;
	struct err e;
	cJSON *t = parse(PROD "/fail-no-skill/jobs/2026-08-20__14-03-11", &none, &e);
	CHECK_STR(json_str(t, "outcome"), "failed");
	CHECK(json_num(t, "reward", -1) == 0.0);
	CHECK(!json_bool(t, "passed", true));
	CHECK_INT(json_num(json_get(t, "tokens"), "total", -1), 11220);
	CHECK(fabs(json_num(t, "cost_usd", -1) - 0.0024) < 1e-12);
	CHECK_INT(json_num(t, "tool_calls", -1), 2);
	CHECK_STR(json_str(t, "skill_mode"), "no-skill");
	CHECK(!json_bool(json_get(t, "skill"), "invoked", true));
	CHECK(json_bool(t, "complete", false));
	cJSON_Delete(t);
	/* the task's own skill, looked for as a leak: absent, also from the catalog */
	struct strlist s = names("flood-detection", NULL, NULL);
	t = parse(PROD "/fail-no-skill/jobs", &s, &e);
	CHECK(!json_bool(json_get(t, "skill"), "invoked", true));
	CHECK(!json_bool(json_get(t, "skill"), "read", true));
	CHECK(!json_bool(json_get(t, "skill"), "catalog", true));
	cJSON_Delete(t);
	strlist_free(&s);
}

/* timeout-with-skill: error_category timeout, the verifier still gave 0.0;
 * 13800 + 560 = 14360 tokens, $0.004; flood-detection invoked before the
 * timeout; the ACP file ends with an agent_timeout line. */
static void test_timeout_with_skill(void)
{
	struct strlist s = names("flood-detection", NULL, NULL);
	struct err e;
	char *rollout = PROD "/timeout-with-skill/jobs/2026-08-20__14-03-11/flood-risk-analysis__b2e85f19";
	cJSON *t = parse(rollout, &s, &e);
	CHECK_STR(json_str(t, "outcome"), "timeout");
	CHECK(json_num(t, "reward", -1) == 0.0);
	CHECK_STR(json_str(t, "error_category"), "timeout");
	CHECK_INT(json_num(json_get(t, "tokens"), "total", -1), 14360);
	CHECK(fabs(json_num(t, "cost_usd", -1) - 0.004) < 1e-12);
	CHECK(json_bool(json_get(t, "skill"), "invoked", false));
	CHECK(fabs(json_num(json_get(t, "durations"), "agent_execution", -1) - 7200.3) < 1e-9);
	CHECK(json_bool(t, "complete", false));
	cJSON_Delete(t);
	strlist_free(&s);
}

/* infra-sandbox-startup: rewards null, sandbox_setup, usage unavailable
 * (no tokens, no cost), 0-byte ACP trajectory, no LLM trajectory. */
static void test_infra(void)
{
	struct strlist s = STRLIST_INIT;
	struct err e;
	cJSON *t = parse(PROD "/infra-sandbox-startup", &s, &e);
	CHECK(t == NULL); /* the case folder holds jobs/: deeper than a jobs dir */
	t = parse(PROD "/infra-sandbox-startup/jobs", &s, &e);
	CHECK_STR(json_str(t, "outcome"), "infra_error");
	CHECK(cJSON_IsNull(json_get(t, "reward")));
	CHECK_STR(json_str(t, "error_category"), "sandbox_setup");
	CHECK(cJSON_IsNull(json_get(t, "tokens")));
	CHECK(cJSON_IsNull(json_get(t, "cost_usd")));
	CHECK_INT(json_num(json_get(t, "trajectory"), "events", -1), 0);
	CHECK(cJSON_IsNull(json_get(json_get(t, "files"), "llm_trajectory")));
	CHECK(json_bool(t, "complete", false));
	cJSON_Delete(t);
}

/* real-old-dogfood: the 2026-04 schema (no agent_result, no skill keys):
 * gemini / gemini-2.5-flash, reward 0.0, 8 tool calls, 196.7 s, no token
 * figures, no trajectory file beside it: read, but not a complete trial. */
static void test_old_dogfood(void)
{
	struct strlist s = STRLIST_INIT;
	struct err e;
	cJSON *t = parse(CORPUS "/real-old-dogfood", &s, &e);
	CHECK(t != NULL);
	CHECK_STR(json_str(t, "schema"), "benchflow-legacy");
	CHECK_STR(json_str(t, "agent"), "gemini");
	CHECK_STR(json_str(t, "model"), "gemini-2.5-flash");
	CHECK_STR(json_str(t, "task"), "regex-log");
	CHECK_STR(json_str(t, "outcome"), "failed");
	CHECK(json_num(t, "reward", -1) == 0.0);
	CHECK_INT(json_num(t, "tool_calls", -1), 8);
	CHECK(cJSON_IsNull(json_get(t, "tokens")));
	CHECK(fabs(json_num(json_get(t, "durations"), "total", -1) - 196.7) < 1e-9);
	CHECK(!json_bool(json_get(t, "skill"), "invoked", true));
	CHECK(!json_bool(t, "complete", true));
	cJSON_Delete(t);
}

/* real third-party result (openhands, openrouter/openai/gpt-5.2): reward 0.0,
 * in/out tokens 0 but total_tokens 1288292, $0.67804275, 32 tool calls, one
 * structured skill invocation counted by BenchFlow. */
static void test_thirdparty_excerpt(void)
{
	char *dir = t_tmpdir();
	char *rd = path_join(dir, "manufacturing-codebook-normalization__20d53cd3");
	struct err e;
	CHECK(fs_mkdirs(rd, &e) == 0);
	char *dst = path_join(rd, "result.json");
	CHECK(fs_copy_file(CORPUS "/real-thirdparty-result-excerpt/manufacturing-codebook-normalization__20d53cd3."
			   "result.compact.json", dst, 0644, &e) == 0);
	struct strlist s = STRLIST_INIT;
	cJSON *t = parse(rd, &s, &e);
	CHECK_STR(json_str(t, "outcome"), "failed");
	CHECK_STR(json_str(t, "agent"), "openhands");
	CHECK_INT(json_num(json_get(t, "tokens"), "total", -1), 1288292);
	CHECK(fabs(json_num(t, "cost_usd", -1) - 0.67804275) < 1e-12);
	CHECK_INT(json_num(t, "tool_calls", -1), 32);
	CHECK_INT(json_num(json_get(t, "skill"), "runner_invocations", -1), 1);
	CHECK(fabs(json_num(json_get(t, "durations"), "total", -1) - 856.6) < 1e-9);
	cJSON_Delete(t);
	fs_remove_tree(dir, &e);
	free(dst);
	free(rd);
	free(dir);
}

/* The review fixtures are a different, synthetic schema: never trials. */
static void test_flat_fixtures_refused(void)
{
	static const char *const dirs[] = {
		CORPUS "/fixture-flat-schema",
		CORPUS "/fixture-flat-schema/clean-pass",
		CORPUS "/fixture-flat-schema/infra-timeout-missing-usage",
		CORPUS "/fixture-flat-schema/missing-llm-trajectory",
		CORPUS "/fixture-flat-schema/no-skill-leak",
		CORPUS "/fixture-flat-schema/reward-hack",
		CORPUS "/fixture-flat-schema-history",
		CORPUS "/fixture-flat-schema-history/no-skill-benign-marker",
	};
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		struct err e = { 0, "" };
		cJSON *t = parse(dirs[i], NULL, &e);
		CHECK(t == NULL);
		CHECK_INT(e.code, ERR_INPUT);
		CHECK(strstr(e.msg, "flat-schema review fixture") != NULL);
		cJSON_Delete(t);
	}
}

int main(void)
{
	if (!fs_is_dir(CORPUS)) {
		printf("ok corpus samples # skip no corpus at %s\n", CORPUS);
		return 0;
	}
	RUN(test_pass_with_skill);
	RUN(test_fail_no_skill);
	RUN(test_timeout_with_skill);
	RUN(test_infra);
	RUN(test_old_dogfood);
	RUN(test_thirdparty_excerpt);
	RUN(test_flat_fixtures_refused);
	T_EXIT();
}
