/* trial_test.c — the trial parser over the project's own fixtures (BenchFlow
 * production layout, its retries, old results, Harbor, the flat-schema
 * fixtures it must refuse), the harness rules, and the statistics. Runs
 * with cwd = the repo root, so rules/ is ./rules. */
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "eval/harness.h"
#include "base/json.h"
#include "report/stats.h"
#include "t.h"
#include "eval/trial.h"

static char *dir;

static void age(const char *rel, long seconds_ago)
{
	char *p = path_join(dir, rel);
	struct timespec t[2] = { { time(NULL) - seconds_ago, 0 }, { time(NULL) - seconds_ago, 0 } };
	CHECK(utimensat(AT_FDCWD, p, t, 0) == 0);
	free(p);
}

/* A result.json in BenchFlow's production shape (a subset of its keys). */
static char *result_json(const char *rollout, const char *rewards, const char *cat, const char *error,
			 long tools, long total_tokens)
{
	return xasprintf("{\n  \"task_name\": \"demo\",\n  \"rollout_name\": \"%s\",\n  \"rewards\": %s,\n"
			 "  \"agent\": \"opencode\",\n  \"agent_name\": \"OpenCode\",\n  \"model\": \"vllm/qwen-27b\",\n"
			 "  \"skill_mode\": \"with-skill\",\n  \"n_tool_calls\": %ld,\n  \"n_skill_invocations\": 1,\n"
			 "  \"agent_result\": {\"n_input_tokens\": 900, \"n_output_tokens\": 100, \"n_cache_read_tokens\": 5,"
			 " \"total_tokens\": %ld, \"cost_usd\": 0.25, \"usage_source\": \"provider_response\"},\n"
			 "  \"error\": %s,\n  \"error_category\": %s,\n  \"verifier_error\": null,\n"
			 "  \"started_at\": \"2026-08-23 10:00:00.500000\",\n  \"finished_at\": \"2026-08-23 10:01:40.500000\",\n"
			 "  \"timing\": {\"environment_setup\": 10.0, \"agent_execution\": 80.5, \"total\": 100.0}\n}\n",
			 rollout, rewards, tools, total_tokens, error, cat);
}

#define SKILL_CALL "{\"type\": \"tool_call\", \"tool_call_id\": \"c1\", \"kind\": \"skill\", " \
	"\"title\": \"skill {\\\"name\\\": \\\"csv-sum\\\"}\", \"status\": \"completed\", \"content\": [{\"type\": " \
	"\"content\", \"content\": {\"type\": \"text\", \"text\": \"<skill_content name=\\\"csv-sum\\\">x</skill_content>\"}}]}"
#define BUILTIN_CALL "{\"type\": \"tool_call\", \"tool_call_id\": \"c0\", \"kind\": \"skill\", " \
	"\"title\": \"skill {\\\"name\\\": \\\"customize-opencode\\\"}\", \"status\": \"completed\", \"content\": []}"
#define READ_CALL "{\"type\": \"tool_call\", \"tool_call_id\": \"c2\", \"kind\": \"read\", " \
	"\"title\": \"read {\\\"filePath\\\": \\\"/home/agent/.opencode/skills/csv-sum/references/x.md\\\"}\", " \
	"\"status\": \"completed\", \"content\": []}"
#define EXEC_CALL "{\"type\": \"tool_call\", \"tool_call_id\": \"c3\", \"kind\": \"execute\", \"title\": \"ls\", " \
	"\"status\": \"completed\", \"content\": []}"
#define LLM_LINE "{\"request\": {\"body\": {\"messages\": [{\"role\": \"system\", \"content\": \"x <available_skills>" \
	"<skill><name>customize-opencode</name></skill><skill><name>csv-sum</name></skill></available_skills>\"}]}}, " \
	"\"response\": {\"body\": {\"choices\": [{\"message\": {\"tool_calls\": [{\"id\": \"c1\", \"function\": " \
	"{\"name\": \"skill\", \"arguments\": \"{\\\"name\\\": \\\"csv-sum\\\"}\"}}]}}], \"usage\": " \
	"{\"prompt_tokens\": 700, \"completion_tokens\": 50, \"total_tokens\": 750}}}, \"metadata\": {\"call_purpose\": \"agent\"}}"

static struct strlist ours(void)
{
	struct strlist l = STRLIST_INIT;
	strlist_push(&l, "csv-sum");
	return l;
}

static cJSON *parse(const char *sub, const struct strlist *skills, bool require, struct err *e)
{
	char *p = path_join(dir, sub);
	struct trial_opts o = { NULL, "rules", "benchflow", skills, require, NULL };
	cJSON *t = trial_parse(p, NULL, &o, e);
	free(p);
	return t;
}

static void rollout(const char *jobs, const char *name, const char *result, const char *acp, const char *llm)
{
	char *p = xasprintf("%s/2026-08-23__10-00-00/%s/result.json", jobs, name);
	t_put(dir, p, result);
	free(p);
	if (acp) {
		p = xasprintf("%s/2026-08-23__10-00-00/%s/trajectory/acp_trajectory.jsonl", jobs, name);
		t_put(dir, p, acp);
		free(p);
	}
	if (llm) {
		p = xasprintf("%s/2026-08-23__10-00-00/%s/trajectory/llm_trajectory.jsonl", jobs, name);
		t_put(dir, p, llm);
		free(p);
	}
	p = xasprintf("%s/2026-08-23__10-00-00/summary.json", jobs);
	t_put(dir, p, "{\"total\": 1}\n");
	free(p);
}

static void test_production_pass_skill_invoked(void)
{
	char *r = result_json("demo__0000aaaa", "{\"reward\": 1.0}", "null", "null", 3, 1000);
	/* no final newline, as BenchFlow writes it; a built-in skill first */
	rollout("pass", "demo__0000aaaa", r, "{\"type\": \"user_message\", \"text\": \"go\"}\n" BUILTIN_CALL "\n"
		SKILL_CALL "\n" EXEC_CALL "\n{\"type\": \"agent_message\", \"text\": \"done\"}", LLM_LINE);
	free(r);
	t_put(dir, "pass/2026-08-23__10-00-00/demo__0000aaaa/verifier/reward.txt", "1\n");
	struct strlist s = ours();
	struct err e;
	cJSON *t = parse("pass", &s, false, &e);
	CHECK(t != NULL);
	CHECK_STR(json_str(t, "schema"), "benchflow");
	CHECK_STR(json_str(t, "outcome"), "passed");
	CHECK(json_bool(t, "passed", false));
	CHECK(json_num(t, "reward", -1) == 1.0);
	CHECK(json_num(t, "verifier_reward", -1) == 1.0);
	CHECK(json_bool(t, "complete", false));
	CHECK_INT(json_num(t, "tool_calls", -1), 3);
	CHECK_INT(json_num(t, "retries", -1), 0);
	const cJSON *tk = json_get(t, "tokens");
	CHECK_INT(json_num(tk, "total", -1), 1000);
	CHECK_INT(json_num(tk, "input", -1), 900);
	CHECK(fabs(json_num(t, "cost_usd", -1) - 0.25) < 1e-12);
	CHECK(fabs(json_num(json_get(t, "durations"), "agent_execution", -1) - 80.5) < 1e-9);
	const cJSON *sk = json_get(t, "skill");
	CHECK(json_bool(sk, "invoked", false));
	CHECK(!json_bool(sk, "read", true));
	CHECK(json_bool(sk, "catalog", false));
	CHECK_INT(json_num(sk, "invocations", -1), 1); /* the built-in skill call is not ours */
	CHECK_INT(cJSON_GetArraySize(json_get(sk, "invoked_names")), 1);
	CHECK_STR(json_get(sk, "invoked_names")->child->valuestring, "csv-sum");
	CHECK_INT(json_num(json_get(t, "trajectory"), "events", -1), 5);
	CHECK_STR(json_str(json_get(t, "files"), "acp_trajectory"),
		  "2026-08-23__10-00-00/demo__0000aaaa/trajectory/acp_trajectory.jsonl");
	cJSON_Delete(t);

	/* the same trial seen from a harness file naming another skill: nothing of ours */
	struct strlist other = STRLIST_INIT;
	strlist_push(&other, "customize-opencodex");
	t = parse("pass", &other, false, &e);
	CHECK(!json_bool(json_get(t, "skill"), "invoked", true));
	cJSON_Delete(t);
	strlist_free(&other);
	strlist_free(&s);
}

static void test_read_only_and_require_skill(void)
{
	char *r = result_json("demo__0000bbbb", "{\"reward\": 0.0}", "null", "null", 2, 500);
	rollout("read", "demo__0000bbbb", r, READ_CALL "\n" EXEC_CALL, NULL);
	free(r);
	struct strlist s = ours();
	struct err e;
	cJSON *t = parse("read", &s, false, &e);
	CHECK_STR(json_str(t, "outcome"), "failed");
	const cJSON *sk = json_get(t, "skill");
	CHECK(!json_bool(sk, "invoked", true));
	CHECK(json_bool(sk, "read", false));
	CHECK(json_get(sk, "catalog") && cJSON_IsNull(json_get(sk, "catalog"))); /* no LLM file: unknown */
	CHECK(json_bool(t, "complete", false));
	cJSON_Delete(t);
	t = parse("read", &s, true, &e);
	CHECK(!json_bool(t, "complete", true));
	CHECK_STR(trial_first_problem(t), "REQUIRE_SKILL=1: our skill (csv-sum) was never invoked (only read)");
	cJSON_Delete(t);
	strlist_free(&s);
}

static void test_retry_newest_wins(void)
{
	char *bad = result_json("demo__1111aaaa", "null", "\"pipe_closed\"", "\"Agent process closed stdout\"", 0, 0);
	char *good = result_json("demo__2222bbbb", "{\"reward\": 1.0}", "null", "null", 1, 800);
	/* the newer rollout sorts first by name: mtime must decide */
	rollout("retry", "demo__2222bbbb", good, SKILL_CALL, NULL);
	rollout("retry", "demo__1111aaaa", bad, "", NULL);
	age("retry/2026-08-23__10-00-00/demo__1111aaaa/result.json", 60);
	free(bad);
	free(good);
	struct strlist s = ours();
	struct err e;
	cJSON *t = parse("retry", &s, false, &e);
	CHECK_STR(json_str(t, "rollout"), "demo__2222bbbb");
	CHECK_STR(json_str(t, "outcome"), "passed");
	CHECK_INT(json_num(t, "retries", -1), 1);
	const cJSON *at = json_get(t, "attempts");
	CHECK_INT(cJSON_GetArraySize(at), 2);
	CHECK_STR(at->child->valuestring, "demo__1111aaaa"); /* oldest first */
	cJSON_Delete(t);
	strlist_free(&s);
}

static void test_outcomes(void)
{
	struct strlist s = ours();
	struct err e;
	/* timeout keeps its reward; reward 1.0 still counts as passed (BenchFlow's rule) */
	char *r = result_json("demo__3333aaaa", "{\"reward\": 1.0}", "\"timeout\"",
			      "\"Agent prompt exceeded wall-clock budget 60s\"", 2, 300);
	rollout("timeout", "demo__3333aaaa", r, SKILL_CALL "\n{\"type\": \"agent_timeout\", \"timeout_sec\": 60}", NULL);
	free(r);
	cJSON *t = parse("timeout", &s, false, &e);
	CHECK_STR(json_str(t, "outcome"), "timeout");
	CHECK(json_bool(t, "passed", false));
	CHECK(json_bool(t, "complete", false));
	cJSON_Delete(t);

	/* infra: rewards null, empty ACP file, no LLM file: complete, no score */
	r = result_json("demo__4444aaaa", "null", "\"sandbox_setup\"", "\"Sandbox startup failed\"", 0, 0);
	rollout("infra", "demo__4444aaaa", r, "", NULL);
	free(r);
	t = parse("infra", &s, true, &e);
	CHECK_STR(json_str(t, "outcome"), "infra_error");
	CHECK(cJSON_IsNull(json_get(t, "reward")));
	CHECK(!json_bool(t, "passed", true));
	CHECK(json_bool(t, "complete", false)); /* REQUIRE_SKILL does not apply: the agent never ran */
	CHECK(cJSON_IsNull(json_get(json_get(t, "files"), "llm_trajectory")));
	cJSON_Delete(t);

	/* an empty ACP trajectory although the agent ran: incomplete */
	r = result_json("demo__5555aaaa", "{\"reward\": 0.0}", "null", "null", 4, 300);
	rollout("emptyacp", "demo__5555aaaa", r, "", NULL);
	free(r);
	t = parse("emptyacp", &s, false, &e);
	CHECK(!json_bool(t, "complete", true));
	CHECK(strstr(trial_first_problem(t), "acp_trajectory.jsonl is empty although the agent ran") != NULL);
	cJSON_Delete(t);

	/* a cut trajectory line */
	r = result_json("demo__6666aaaa", "{\"reward\": 0.0}", "null", "null", 1, 300);
	rollout("cutline", "demo__6666aaaa", r, EXEC_CALL "\n{\"type\": \"tool_ca", NULL);
	free(r);
	t = parse("cutline", &s, false, &e);
	CHECK(strstr(trial_first_problem(t), "line 2 is not JSON") != NULL);
	cJSON_Delete(t);

	/* verifier error: no reward, verifier_error set */
	t_put(dir, "verr/2026-08-23__10-00-00/demo__7777aaaa/result.json",
	    "{\"task_name\": \"demo\", \"rewards\": null, \"agent\": \"opencode\", \"verifier_error\": "
	    "\"verifier timed out after 600.0s\", \"verifier_error_category\": \"verifier_timeout\"}");
	t_put(dir, "verr/2026-08-23__10-00-00/demo__7777aaaa/trajectory/acp_trajectory.jsonl", EXEC_CALL);
	t_put(dir, "verr/2026-08-23__10-00-00/summary.json", "{}");
	t = parse("verr", &s, false, &e);
	CHECK_STR(json_str(t, "outcome"), "verifier_error");
	CHECK_STR(json_str(t, "verifier_error_category"), "verifier_timeout");
	cJSON_Delete(t);

	/* no job summary: the run did not finish */
	r = result_json("demo__8888aaaa", "{\"reward\": 1.0}", "null", "null", 1, 300);
	t_put(dir, "nosum/2026-08-23__10-00-00/demo__8888aaaa/result.json", r);
	t_put(dir, "nosum/2026-08-23__10-00-00/demo__8888aaaa/trajectory/acp_trajectory.jsonl", SKILL_CALL);
	free(r);
	t = parse("nosum", &s, false, &e);
	CHECK(strstr(trial_first_problem(t), "no job summary") != NULL);
	cJSON_Delete(t);
	strlist_free(&s);
}

static void test_old_schema_tokens_from_llm(void)
{
	t_put(dir, "old/2026-04-22__22-37-42/regex-log__bab1cbf6/result.json",
	    "{\"task_name\": \"regex-log\", \"rollout_name\": \"regex-log__bab1cbf6\", \"rewards\": {\"reward\": 0.0},"
	    " \"agent\": \"opencode\", \"model\": \"m\", \"n_tool_calls\": 8, \"error\": null, \"verifier_error\": null,"
	    " \"started_at\": \"2026-04-22 22:37:42.034339\", \"finished_at\": \"2026-04-22 22:40:58.748485\"}");
	t_put(dir, "old/2026-04-22__22-37-42/regex-log__bab1cbf6/trajectory/acp_trajectory.jsonl", SKILL_CALL "\n");
	t_put(dir, "old/2026-04-22__22-37-42/regex-log__bab1cbf6/trajectory/llm_trajectory.jsonl", LLM_LINE "\n" LLM_LINE);
	t_put(dir, "old/2026-04-22__22-37-42/summary.json", "{}");
	struct strlist s = ours();
	struct err e;
	cJSON *t = parse("old", &s, false, &e);
	CHECK_STR(json_str(t, "schema"), "benchflow-legacy");
	CHECK_STR(json_str(t, "outcome"), "failed");
	CHECK_INT(json_num(t, "tool_calls", -1), 8);
	CHECK_STR(json_str(json_get(t, "tokens"), "source"), "llm_trajectory");
	CHECK_INT(json_num(json_get(t, "tokens"), "total", -1), 1500);
	CHECK(cJSON_IsNull(json_get(t, "cost_usd")));
	/* no timing: total from the timestamps */
	CHECK(fabs(json_num(json_get(t, "durations"), "total", -1) - 196.714146) < 1e-6);
	cJSON_Delete(t);
	strlist_free(&s);
}

static void test_refuses_non_trials(void)
{
	struct err e = { 0, "" };
	t_put(dir, "flat/case-a/result.json", "{\"status\": \"pass\", \"reward\": 1.0, \"token_usage\": {}}");
	t_put(dir, "flat/case-a/run_config.json", "{\"task_id\": \"x\", \"harness\": \"openhands\"}");
	t_put(dir, "flat/case-b/result.json", "{\"status\": \"fail\", \"reward\": 0.0}");
	CHECK(parse("flat", NULL, false, &e) == NULL);
	CHECK_INT(e.code, ERR_INPUT);
	CHECK(strstr(e.msg, "holds 2 flat-schema review fixtures") != NULL);
	CHECK(parse("flat/case-a", NULL, false, &e) == NULL);
	CHECK(strstr(e.msg, "holds 1 flat-schema review fixture ") != NULL);

	t_put(dir, "trunc/2026-08-23__10-00-00/demo__9999aaaa/result.json", "{\"task_name\": \"demo\", \"rewards\": {\"rew");
	CHECK(parse("trunc", NULL, false, &e) == NULL);
	CHECK_INT(e.code, ERR_INPUT);
	CHECK(strstr(e.msg, "result.json' is not valid JSON (truncated, or still being written)") != NULL);

	t_put(dir, "nothing/readme.txt", "x");
	CHECK(parse("nothing", NULL, false, &e) == NULL);
	CHECK(strstr(e.msg, "holds no trial") != NULL);

	/* what Python writes for a reward that is not finite */
	t_put(dir, "inf/2026-08-23__10-00-00/demo__9999aaaa/result.json", "{\"task_name\": \"demo\", \"rewards\": {\"reward\": Infinity}}");
	CHECK(parse("inf", NULL, false, &e) == NULL);
	CHECK(strstr(e.msg, "result.json' line 1: Infinity is not a JSON number (Python's json writes it") != NULL);
	t_put(dir, "arr/2026-08-23__10-00-00/demo__9999aaaa/result.json", "[{\"task_name\": \"demo\"}]");
	CHECK(parse("arr", NULL, false, &e) == NULL);
	CHECK(strstr(e.msg, "result.json' holds a JSON array, not the object a runner writes") != NULL);
}

/* Keys of the wrong type make the trial incomplete with a message naming
 * the file and the key, never a guessed outcome. */
static void test_wrong_types(void)
{
	struct err e = { 0 };
	char *res = result_json("demo__1111aaaa", "{\"reward\": \"1.0\"}", "null", "7", 3, 1000);
	rollout("types", "demo__1111aaaa", res, "", NULL);
	free(res);
	cJSON *t = parse("types", NULL, false, &e);
	CHECK(t != NULL);
	CHECK(!json_bool(t, "complete", true));
	const char *p = trial_first_problem(t);
	CHECK(p && strstr(p, "demo__1111aaaa/result.json: 'rewards.reward' is a string, not a number") != NULL);
	cJSON_Delete(t);
}

static void test_harbor_trial(void)
{
	t_put(dir, "hb/trial/result.json", "{\"n_total_trials\": 1, \"finished_at\": \"2026-07-18T12:10:00\", \"stats\": {}}");
	t_put(dir, "hb/trial/demo__AbCdEfG/result.json",
	    "{\"id\": \"u\", \"task_name\": \"demo\", \"trial_name\": \"demo__AbCdEfG\", \"agent_info\": {\"name\": "
	    "\"opencode\", \"model_info\": {\"name\": \"qwen-27b\", \"provider\": \"vllm\"}}, \"agent_result\": "
	    "{\"n_input_tokens\": 1200, \"n_cache_tokens\": 200, \"n_output_tokens\": 300, \"cost_usd\": null}, "
	    "\"verifier_result\": {\"rewards\": {\"reward\": 1.0}}, \"exception_info\": {\"exception_type\": "
	    "\"AgentTimeoutError\", \"exception_message\": \"timed out\"}, \"started_at\": \"2026-07-18T12:00:00\", "
	    "\"finished_at\": \"2026-07-18T12:05:30\", \"agent_execution\": {\"started_at\": \"2026-07-18T12:01:00\", "
	    "\"finished_at\": \"2026-07-18T12:04:00\"}}");
	t_put(dir, "hb/trial/demo__AbCdEfG/agent/trajectory.json",
	    "{\"schema_version\": \"ATIF-v1.2\", \"steps\": [{\"step_id\": 1, \"source\": \"user\", \"message\": \"go\"},"
	    " {\"step_id\": 2, \"source\": \"agent\", \"message\": \"\", \"tool_calls\": [{\"tool_call_id\": \"t1\", "
	    "\"function_name\": \"skill\", \"arguments\": {\"name\": \"csv-sum\"}}], \"observation\": {\"results\": "
	    "[{\"source_call_id\": \"t1\", \"content\": \"<skill_content name=\\\"csv-sum\\\">\"}]}}, "
	    "{\"step_id\": 3, \"source\": \"agent\", \"message\": \"done\"}]}");
	struct strlist s = ours();
	struct buf acp = BUF_INIT;
	char *p = path_join(dir, "hb");
	struct trial_opts o = { NULL, "rules", "harbor", &s, true, &acp };
	struct err e;
	cJSON *t = trial_parse(p, NULL, &o, &e);
	free(p);
	CHECK(t != NULL);
	CHECK_STR(json_str(t, "schema"), "harbor");
	CHECK_STR(json_str(t, "outcome"), "timeout");
	CHECK(json_bool(t, "passed", false));
	CHECK_STR(json_str(t, "model"), "vllm/qwen-27b");
	CHECK_INT(json_num(json_get(t, "tokens"), "total", -1), 1500);
	CHECK(fabs(json_num(json_get(t, "durations"), "total", -1) - 330) < 1e-9);
	CHECK(fabs(json_num(json_get(t, "durations"), "agent_execution", -1) - 180) < 1e-9);
	CHECK(json_bool(json_get(t, "skill"), "invoked", false));
	CHECK(json_bool(t, "complete", false));
	/* the BenchFlow-shaped trajectory: 3 lines, no final newline */
	CHECK(acp.len && acp.data[acp.len - 1] != '\n');
	CHECK(strstr(acp.data, "\"title\":\"skill {\\\"name\\\":\\\"csv-sum\\\"}\"") != NULL);
	long lines = 1;
	for (size_t i = 0; i < acp.len; i++)
		lines += acp.data[i] == '\n';
	CHECK_INT(lines, 3);
	cJSON_Delete(t);
	buf_free(&acp);
	strlist_free(&s);
}

static void test_harness_rules(void)
{
	struct harness h;
	struct err e = { 0, "" };
	CHECK(harness_load(&h, "rules", "no-such-harness", NULL, &e) < 0);
	CHECK(strstr(e.msg, "unknown harness 'no-such-harness': no no-such-harness.json in rules/harness (known: ") != NULL);
	CHECK(strstr(e.msg, "opencode") != NULL);
	harness_free(&h);

	t_put(dir, "r1/harness/loose.json", "{\"skill_use\": {\"invoked\": {\"acp\": [{\"kind\": \"^skill$\"}]}}}");
	char *r1 = path_join(dir, "r1");
	CHECK(harness_load(&h, r1, "loose", NULL, &e) < 0);
	CHECK(strstr(e.msg, "skill_use.invoked.acp[0] has no {skill} placeholder") != NULL);
	harness_free(&h);
	t_put(dir, "r1/harness/broken.json", "{\"skill_use\": {\"read\": {\"llm\": [{\"arguments\": \"({skill}\"}]}}}");
	CHECK(harness_load(&h, r1, "broken", NULL, &e) < 0);
	CHECK(strstr(e.msg, "pattern does not compile") != NULL);
	harness_free(&h);
	t_put(dir, "r1/harness/wrongfield.json", "{\"skill_use\": {\"catalog\": {\"acp\": [{\"title\": \"{skill}\"}]}}}");
	CHECK(harness_load(&h, r1, "wrongfield", NULL, &e) < 0);
	CHECK(strstr(e.msg, "field 'title' cannot be tested here") != NULL);
	harness_free(&h);
	free(r1);

	/* a name with regex metacharacters matches only itself */
	struct strlist s = STRLIST_INIT;
	strlist_push(&s, "a.b");
	CHECK(harness_load(&h, "rules", "opencode", &s, &e) == 0);
	struct skill_use u = { 0 };
	cJSON *ev = cJSON_Parse("{\"type\": \"tool_call\", \"kind\": \"skill\", \"title\": \"skill {\\\"name\\\": \\\"aXb\\\"}\"}");
	harness_scan_acp(&h, ev, &u);
	CHECK(!u.invoked);
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\": \"tool_call\", \"kind\": \"skill\", \"title\": \"skill {\\\"name\\\": \\\"a.b\\\"}\"}");
	harness_scan_acp(&h, ev, &u);
	CHECK(u.invoked);
	cJSON_Delete(ev);
	skill_use_free(&u);
	CHECK_STR(harness_agent(&h, "benchflow"), "opencode");
	harness_free(&h);
	strlist_free(&s);
	char *name = harness_for_agent("rules", "harbor", "claude-code");
	CHECK_STR(name, "claude-agent-acp");
	free(name);
}

/* Hand-computed: Wilson 95% for 7/10 is [0.3968, 0.8922] (p = .7, z^2 = 3.8415,
 * center = .89207/1.38415 = .64449, half = 1.95996*sqrt(.021+.0096037)/1.38415 = .24772). */
static void test_stats(void)
{
	double lo, hi;
	stats_wilson(7, 10, STATS_Z95, &lo, &hi);
	CHECK(fabs(lo - 0.39677) < 5e-5);
	CHECK(fabs(hi - 0.89221) < 5e-5);
	stats_wilson(0, 5, STATS_Z95, &lo, &hi); /* 0/5: [0, 3.8415/8.8415 = .43449] */
	CHECK(lo == 0);
	CHECK(fabs(hi - 0.43449) < 5e-5);
	stats_wilson(4, 4, STATS_Z95, &lo, &hi); /* 4/4: lo = 4/7.8415 = .51010 */
	CHECK(fabs(lo - 0.51010) < 5e-5);
	CHECK(hi == 1);
	/* pass@k, n = 5, c = 2: 1 - C(3,k)/C(5,k) */
	CHECK(fabs(stats_pass_at_k(2, 5, 1) - 0.4) < 1e-12);
	CHECK(fabs(stats_pass_at_k(2, 5, 2) - 0.7) < 1e-12);   /* 1 - 3/10 */
	CHECK(fabs(stats_pass_at_k(2, 5, 3) - 0.9) < 1e-12);   /* 1 - 1/10 */
	CHECK(stats_pass_at_k(2, 5, 4) == 1.0);                 /* n - c < k */
	CHECK(stats_pass_at_k(0, 5, 5) == 0.0);
	CHECK(stats_pass_at_k(2, 5, 6) == -1);
	CHECK(stats_pass_at_k(2, 5, 0) == -1);
}

static void test_jsonl_and_times(void)
{
	t_put(dir, "j.jsonl", "{\"a\": 1}\n\n{\"a\": 2}\r\n{\"a\": 3}");
	char *p = path_join(dir, "j.jsonl");
	long bad;
	CHECK_INT(trial_jsonl_each(p, NULL, NULL, &bad), 3);
	CHECK_INT(bad, 0);
	free(p);
	CHECK(fabs(trial_seconds_between("2026-08-23 10:39:42.436130", "2026-08-23T10:53:59.051112Z") -
		   856.614982) < 1e-6);
	CHECK(isnan(trial_seconds_between("yesterday", "2026-08-23 10:00:00")));
	/* found by a sanitizer run: float-to-int overflow on a huge seconds field */
	CHECK(isnan(trial_seconds_between("2026-08-23 07:10:53.6e34", "2026-08-23 10:00:00")));
	CHECK(isnan(trial_seconds_between("2026-13-23 07:10:53", "2026-08-23 10:00:00")));
	CHECK(isnan(trial_seconds_between("2026-08-23 07:10:nan", "2026-08-23 10:00:00")));
}

/* The local runner's own record (docs/local.md#what-it-writes): its facts
 * taken as they are, the skill check added, contradictions refused. */
static char *own_record(const char *outcome, const char *reward)
{
	return xasprintf("{\"format\": 1, \"schema\": \"local\", \"task\": \"demo\","
			 " \"rollout\": \"demo__0000bbbb\", \"agent\": \"opencode\","
			 " \"agent_name\": \"OpenCode\", \"model\": \"vllm/qwen-27b\","
			 " \"skill_mode\": \"with-skill\", \"outcome\": \"%s\", \"reward\": %s,"
			 " \"rewards\": {\"reward\": %s}, \"error\": null,"
			 " \"error_category\": null,"
			 " \"verifier_error\": null, \"tool_calls\": 2, \"skill_invocations\": 1,"
			 " \"tokens\": {\"input\": 90, \"output\": 10, \"total\": 100,"
			 " \"source\": \"acp\"}, \"cost_usd\": null,"
			 " \"durations\": {\"agent_execution\": 4.5, \"total\": 9.0},"
			 " \"environment\": {\"sandbox\": \"bubblewrap\", \"reproduced\": false,"
			 " \"not_reproduced\": [\"RUN\"], \"image\": null},"
			 " \"files\": {\"acp_trajectory\": \"trajectory/acp_trajectory.jsonl\"}}\n",
			 outcome, reward, reward);
}

static void test_own_record(void)
{
	char *r = own_record("passed", "1.0");
	t_put(dir, "own/trial.json", r);
	free(r);
	t_put(dir, "own/trajectory/acp_trajectory.jsonl",
	      "{\"type\": \"user_message\", \"text\": \"go\"}\n" SKILL_CALL "\n" EXEC_CALL);
	t_put(dir, "own/verifier/reward.txt", "1\n");
	struct strlist s = ours();
	struct err e;
	cJSON *t = parse("own", &s, true, &e);
	CHECK(t != NULL);
	CHECK_STR(json_str(t, "schema"), "local");
	CHECK_STR(json_str(t, "outcome"), "passed");
	CHECK(json_bool(t, "complete", false));
	CHECK(json_num(t, "verifier_reward", -1) == 1.0);
	CHECK_INT(json_num(t, "tool_calls", -1), 2);
	CHECK_INT(json_num(json_get(t, "tokens"), "total", -1), 100);
	CHECK(!json_bool(json_get(t, "environment"), "reproduced", true));
	CHECK(json_bool(json_get(t, "skill"), "invoked", false));
	CHECK_INT(json_num(json_get(t, "skill"), "runner_invocations", -1), 1);
	CHECK_STR(json_str(json_get(t, "files"), "result"), "trial.json");
	CHECK_STR(json_str(json_get(t, "files"), "acp_trajectory"),
		  "trajectory/acp_trajectory.jsonl");
	cJSON_Delete(t);

	/* a record whose outcome its facts contradict, a reward file that disagrees */
	r = own_record("failed", "1.0");
	t_put(dir, "own/trial.json", r);
	free(r);
	t = parse("own", &s, false, &e);
	CHECK(!json_bool(t, "complete", true));
	CHECK(strstr(trial_first_problem(t), "says outcome 'failed'") != NULL);
	cJSON_Delete(t);
	r = own_record("failed", "0.0");
	t_put(dir, "own/trial.json", r);
	free(r);
	t = parse("own", &s, false, &e);
	CHECK_STR(json_str(t, "outcome"), "failed");
	CHECK(!json_bool(t, "complete", true));
	cJSON_Delete(t);

	/* cut short: no trial */
	t_put(dir, "own/trial.json", "{\"format\": 1, \"schema\": \"lo");
	CHECK(parse("own", &s, false, &e) == NULL);
	CHECK(strstr(e.msg, "the trial is incomplete") != NULL);
	CHECK(strstr(e.msg, "own/trial.json") != NULL); /* the parse error names the file */
	strlist_free(&s);
}

int main(void)
{
	dir = t_tmpdir();
	RUN(test_production_pass_skill_invoked);
	RUN(test_read_only_and_require_skill);
	RUN(test_retry_newest_wins);
	RUN(test_outcomes);
	RUN(test_old_schema_tokens_from_llm);
	RUN(test_refuses_non_trials);
	RUN(test_wrong_types);
	RUN(test_harbor_trial);
	RUN(test_own_record);
	RUN(test_harness_rules);
	RUN(test_stats);
	RUN(test_jsonl_and_times);
	struct err e;
	fs_remove_tree(dir, &e);
	free(dir);
	T_EXIT();
}
