/* atif_test.c — ACP trajectories into ATIF steps (eval/atif.h): turns,
 * tool calls and their output, events ATIF has no step for, a broken line;
 * a trial as Harbor's result.json for every outcome, and the facts put
 * back from extra.skillc; a task tree's pin (pipeline/pin.h). */
#include "base/json.h"
#include "eval/atif.h"
#include "pipeline/pin.h"
#include "t.h"

static char *dir;

static cJSON *trial(const char *outcome, const char *reward)
{
	char *s = xasprintf("{\"key\": \"k1\", \"test\": \"test-002\", \"task\": \"demo\", \"harness\": \"opencode\", "
			    "\"model\": \"vllm/q\", \"stage\": \"static\", \"outcome\": \"%s\", \"reward\": %s, "
			    "\"error\": \"boom\", \"error_category\": \"sandbox_setup\", \"cost_usd\": 0.5, "
			    "\"tokens\": {\"input\": 900, \"output\": 100, \"cache_read\": 5, \"total\": 1010}, "
			    "\"skill\": {\"invoked\": true}, \"files\": {}}", outcome, reward);
	cJSON *t = cJSON_Parse(s);
	free(s);
	return t;
}

static void t_steps(void)
{
	t_put(dir, "a.jsonl",
	      "{\"type\": \"user_message\", \"text\": \"do it\"}\n"
	      "{\"type\": \"agent_thought\", \"text\": \"first \"}\n"
	      "{\"type\": \"agent_thought\", \"text\": \"look\"}\n"
	      "{\"type\": \"tool_call\", \"tool_call_id\": \"c1\", \"kind\": \"skill\", \"title\": \"skill {\\\"name\\\": \\\"x\\\"}\", "
	      "\"content\": [{\"type\": \"content\", \"content\": {\"type\": \"text\", \"text\": \"out\"}}]}\n"
	      "{\"type\": \"tool_call\", \"kind\": \"execute\", \"title\": \"ls -l {a}\"}\n"
	      "{\"type\": \"agent_message\", \"text\": \"done\"}\n"
	      "{\"type\": \"plan\"}\n"
	      "{\"type\": \"agent_thought\", \"text\": \"again\"}\n"
	      "{\"type\": \"agent_message\", \"text\": \"bye\"}");
	cJSON *t = trial("passed", "1");
	char *p = path_join(dir, "a.jsonl");
	struct err e;
	cJSON *a = atif_from_trial(t, p, &e);
	CHECK(a != NULL);
	CHECK_STR(json_str(a, "schema_version"), "ATIF-v1.4");
	CHECK_STR(json_str(a, "session_id"), "k1-test-002");
	const cJSON *st = json_get(a, "steps");
	CHECK_INT(cJSON_GetArraySize(st), 3);
	const cJSON *s2 = cJSON_GetArrayItem(st, 1);
	CHECK_STR(json_str(s2, "reasoning_content"), "first look");
	CHECK_STR(json_str(s2, "message"), "done");
	const cJSON *calls = json_get(s2, "tool_calls");
	CHECK_STR(json_str(cJSON_GetArrayItem(calls, 0), "function_name"), "skill");
	CHECK_STR(json_str(json_get(cJSON_GetArrayItem(calls, 0), "arguments"), "name"), "x");
	/* no id: one is made; a title that is no "name {json}" is the kind's */
	CHECK_STR(json_str(cJSON_GetArrayItem(calls, 1), "tool_call_id"), "call-2-2");
	CHECK_STR(json_str(cJSON_GetArrayItem(calls, 1), "function_name"), "execute");
	CHECK_STR(json_str(json_get(cJSON_GetArrayItem(calls, 1), "arguments"), "title"), "ls -l {a}");
	const cJSON *res = json_get(json_get(s2, "observation"), "results");
	CHECK_STR(json_str(cJSON_GetArrayItem(res, 0), "content"), "out");
	CHECK_STR(json_str(cJSON_GetArrayItem(res, 1), "source_call_id"), "call-2-2");
	CHECK_INT(json_num(cJSON_GetArrayItem(st, 2), "step_id", 0), 3);
	CHECK(strstr(json_str(a, "notes"), "1 trajectory events") != NULL);
	CHECK_INT(json_num(json_get(a, "final_metrics"), "total_prompt_tokens", 0), 900);
	CHECK_INT(json_num(json_get(a, "final_metrics"), "total_cached_tokens", 0), 5);
	cJSON_Delete(a);
	/* no trajectory: no steps; a line that is not JSON: an error naming it */
	a = atif_from_trial(t, NULL, &e);
	CHECK_INT(cJSON_GetArraySize(json_get(a, "steps")), 0);
	cJSON_Delete(a);
	t_put(dir, "b.jsonl", "{\"type\": \"user_message\", \"text\": \"x\"}\n{\"type\": tru");
	char *pb = path_join(dir, "b.jsonl");
	CHECK(atif_from_trial(t, pb, &e) == NULL);
	CHECK(strstr(e.msg, "line 2 is not JSON") != NULL);
	free(pb);
	free(p);
	cJSON_Delete(t);
}

static void t_harbor_result(void)
{
	static const struct { const char *outcome, *reward, *exc; bool scored; } cases[] = {
		{ "passed", "1", NULL, true }, { "failed", "0", NULL, true },
		{ "timeout", "0", "AgentTimeoutError", true }, { "infra_error", "null", "EnvironmentStartTimeoutError", false },
		{ "verifier_error", "null", "VerifierOutputParseError", false },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		cJSON *t = trial(cases[i].outcome, cases[i].reward);
		cJSON *r = atif_harbor_result(t, "bench");
		CHECK_STR(json_str(r, "trial_name"), "test-002");
		CHECK_STR(json_str(r, "source"), "bench");
		CHECK_INT(cJSON_IsObject(json_get(r, "verifier_result")), cases[i].scored);
		const char *exc = json_str(json_get(r, "exception_info"), "exception_type");
		if (cases[i].exc)
			CHECK_STR(exc, cases[i].exc);
		else
			CHECK(exc == NULL);
		CHECK_INT(json_num(json_get(r, "agent_result"), "n_cache_tokens", 0), 5);
		cJSON_Delete(r);
		cJSON_Delete(t);
	}
}

static void t_restore(void)
{
	cJSON *t = trial("failed", "0"), *a = atif_from_trial(t, NULL, &(struct err){ 0 });
	cJSON *back = cJSON_Parse("{\"stage\": \"job\", \"outcome\": \"failed\", \"tokens\": null}");
	CHECK_INT(atif_restore(back, a), 1);
	CHECK_STR(json_str(back, "stage"), "static");
	CHECK_STR(json_str(back, "error_category"), "sandbox_setup");
	CHECK_INT(json_num(json_get(back, "tokens"), "total", 0), 1010);
	CHECK(json_bool(json_get(back, "skill"), "invoked", false));
	cJSON *plain = cJSON_Parse("{\"steps\": []}");
	CHECK_INT(atif_restore(back, plain), 0);
	cJSON_Delete(plain);
	cJSON_Delete(back);
	cJSON_Delete(a);
	cJSON_Delete(t);
}

static void t_pin(void)
{
	char *tasks = path_join(dir, "tasks");
	t_put(tasks, "a/task.toml", "x = 1\n");
	t_put(tasks, "a/instruction.md", "do a\n");
	t_put(tasks, "b/task.toml", "x = 2\n");
	t_put(tasks, "notes/readme.md", "not a task\n");
	struct err e;
	cJSON *p = pin_make(tasks, &e);
	CHECK(p != NULL);
	CHECK_INT(cJSON_GetArraySize(json_get(p, "tasks")), 2);
	const char *da = json_str(json_get(p, "tasks"), "a");
	CHECK(da && strlen(da) == 32);
	CHECK_INT(pin_check(p, "pin.json", "a", da, &e), 0);
	CHECK_INT(pin_check(p, "pin.json", "a", "00000000000000000000000000000000", &e), -1);
	CHECK(strstr(e.msg, "task 'a' differs from the dataset pin 'pin.json'") != NULL);
	CHECK_INT(pin_check(p, "pin.json", "c", da, &e), -1);
	CHECK(strstr(e.msg, "task 'c' is not in the dataset pin") != NULL);
	cJSON_Delete(p);
	char *empty = path_join(dir, "empty");
	CHECK_INT(fs_mkdirs(empty, &e), 0);
	CHECK(pin_make(empty, &e) == NULL);
	CHECK(strstr(e.msg, "holds no task") != NULL);
	free(empty);
	free(tasks);
}

int main(void)
{
	dir = t_tmpdir();
	RUN(t_steps);
	RUN(t_harbor_result);
	RUN(t_restore);
	RUN(t_pin);
	struct err e;
	fs_remove_tree(dir, &e);
	free(dir);
	T_EXIT();
}
