/* trial — the BenchFlow and Harbor readers on any runner output. The input
 * is cut at "----" lines into: a rollout's result.json, its ACP and LLM
 * trajectories (JSONL), the job's summary (written as summary.json and as
 * Harbor's job result.json), timing.json (also Harbor's ATIF
 * agent/trajectory.json) and verifier/reward.txt. Both readers must give a
 * normalized trial or an error, and checking a trial again changes nothing.
 * Run from the repository root (rules/harness). */
#include "fuzz.h"
#include "base/json.h"
#include "eval/trial.h"

static void read_as(const char *dir, const char *runner)
{
	struct strlist skills = STRLIST_INIT;
	strlist_push(&skills, "csv-sum");
	struct buf acp = BUF_INIT;
	struct trial_opts o = { NULL, "rules", runner, &skills, true, &acp };
	struct err e = { 0, "" };
	cJSON *t = trial_parse(dir, NULL, &o, &e);
	if (!t) {
		FUZZ_CHECK(e.code == ERR_INPUT && e.msg[0]);
	} else {
		FUZZ_CHECK(cJSON_IsBool(json_get(t, "complete")));
		struct buf a = BUF_INIT, b = BUF_INIT;
		json_canon(t, false, &a);
		trial_check(t, true);
		json_canon(t, false, &b);
		FUZZ_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
		buf_free(&a);
		buf_free(&b);
		(void)trial_first_problem(t);
	}
	cJSON_Delete(t);
	buf_free(&acp);
	strlist_free(&skills);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *part[6];
	size_t len[6];
	fuzz_parts((const char *)data, size, part, len, 6);
	char *dir = fuzz_fresh("jobs");
	const char *job = "2026-08-23__10-00-00", *roll = "2026-08-23__10-00-00/demo__9999aaaa";
	char *p;
	p = path_join(roll, "result.json"), fuzz_put(dir, p, part[0], len[0]), free(p);
	p = path_join(roll, "trajectory/acp_trajectory.jsonl"), fuzz_put(dir, p, part[1], len[1]), free(p);
	p = path_join(roll, "trajectory/llm_trajectory.jsonl"), fuzz_put(dir, p, part[2], len[2]), free(p);
	p = path_join(job, "summary.json"), fuzz_put(dir, p, part[3], len[3]), free(p);
	p = path_join(job, "result.json"), fuzz_put(dir, p, part[3], len[3]), free(p);
	p = path_join(roll, "timing.json"), fuzz_put(dir, p, part[4], len[4]), free(p);
	p = path_join(roll, "agent/trajectory.json"), fuzz_put(dir, p, part[4], len[4]), free(p);
	p = path_join(roll, "verifier/reward.txt"), fuzz_put(dir, p, part[5], len[5]), free(p);
	read_as(dir, "benchflow");
	read_as(dir, "harbor");
	free(dir);
	return 0;
}
