/* benchflow.c — BenchFlow's rollout (reader.h): result.json (the
 * production schema with agent_result, or the older one that lacks most
 * keys), timing.json, the verifier's reward, the job's summary.json and the
 * ACP and LLM trajectories, turned into trial.json's facts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "eval/reader.h"

static const struct typed_key benchflow_keys[] = {
	{ "task_name", cJSON_String }, { "rollout_name", cJSON_String }, { "agent", cJSON_String },
	{ "model", cJSON_String }, { "rewards", cJSON_Object }, { "rewards.reward", cJSON_Number },
	{ "error", cJSON_String }, { "error_category", cJSON_String }, { "verifier_error", cJSON_String },
	{ "agent_result", cJSON_Object }, { "timing", cJSON_Object }, { "started_at", cJSON_String },
	{ "finished_at", cJSON_String }, { "n_tool_calls", cJSON_Number },
};

/* Who ran what: schema, task, rollout, agent, model, skill mode. */
static void bf_identity(struct ctx *c, const cJSON *res, const char *rollout)
{
	json_set_str(c->t, "schema", json_get(res, "agent_result") ? "benchflow" : "benchflow-legacy");
	tr_set_str_or_null(c->t, "task", json_str(res, "task_name"));
	tr_set_str_or_null(c->t, "rollout", json_str(res, "rollout_name") ? json_str(res, "rollout_name")
									   : path_base(rollout));
	tr_set_str_or_null(c->t, "agent", json_str(res, "agent"));
	tr_set_str_or_null(c->t, "agent_name", json_str(res, "agent_name"));
	tr_set_str_or_null(c->t, "model", json_str(res, "model"));
	tr_set_str_or_null(c->t, "skill_mode", json_str(res, "skill_mode"));
}

/* The outcome by BenchFlow's rules, its errors, and the verifier's own reward. */
static enum trial_outcome bf_outcome(struct ctx *c, const cJSON *res, const char *rollout)
{
	const cJSON *reward = tr_num_or_null(json_get(json_get(res, "rewards"), "reward"));
	const char *error = json_str(res, "error"), *cat = json_str(res, "error_category");
	const char *verr = json_str(res, "verifier_error");
	enum trial_outcome o = trial_outcome_of(reward, cat, error, verr != NULL);
	tr_set_outcome(c, reward, o);
	tr_set_str_or_null(c->t, "error", error);
	tr_set_str_or_null(c->t, "error_category", cat);
	tr_set_str_or_null(c->t, "verifier_error", verr);
	tr_set_str_or_null(c->t, "verifier_error_category", json_str(res, "verifier_error_category"));
	tr_read_verifier_reward(c, rollout, reward);
	return o;
}

/* "durations": result.json's timing, else timing.json (the same dict); the
 * total from the timestamps when neither has one. */
static void bf_durations(struct ctx *c, const cJSON *res, const char *rollout)
{
	json_set_str(c->t, "started_at", json_str(res, "started_at"));
	json_set_str(c->t, "finished_at", json_str(res, "finished_at"));
	const cJSON *timing = json_get(res, "timing");
	cJSON *timing_file = NULL;
	if (!timing) {
		char *tp = path_join(rollout, "timing.json");
		timing_file = json_read_opt(tp);
		free(tp);
		timing = timing_file;
	}
	cJSON *du = cJSON_CreateObject();
	static const char *const phases[] = { "environment_setup", "agent_setup", "agent_execution", "verifier", "total" };
	for (size_t i = 0; i < ARRAY_LEN(phases); i++)
		tr_set_num_or_null(du, phases[i], json_get(timing, phases[i]));
	if (!cJSON_IsNumber(json_get(timing, "total"))) {
		double s = trial_seconds_between(json_str(res, "started_at"), json_str(res, "finished_at"));
		if (!isnan(s))
			json_set_num(du, "total", s);
	}
	json_set(c->t, "durations", du);
	cJSON_Delete(timing_file);
}

/* The job's summary.json: BenchFlow writes it when the job finished. */
static void bf_job_summary(struct ctx *c, const char *rollout)
{
	cJSON_Delete(tr_read_job_file(c, rollout, "summary.json"));
}

/* "tokens": the agent's own count, else the LLM trajectory's, else null. */
static void bf_tokens(struct ctx *c, const cJSON *ar)
{
	const char *usage_src = json_str(ar, "usage_source");
	if (!ar) {
		tr_set_tokens_from_llm(c);
		return;
	}
	if (usage_src && !strcmp(usage_src, "unavailable")) {
		json_set(c->t, "tokens", cJSON_CreateNull());
		return;
	}
	cJSON *tk = cJSON_CreateObject();
	double in = json_num(ar, "n_input_tokens", 0), out = json_num(ar, "n_output_tokens", 0);
	/* some providers report only the total (in/out stay 0): prefer it */
	double total = json_num(ar, "total_tokens", 0);
	json_set_num(tk, "input", in);
	json_set_num(tk, "output", out);
	tr_set_num_or_null(tk, "cache_read", json_get(ar, "n_cache_read_tokens"));
	json_set_num(tk, "total", total > 0 ? total : in + out);
	json_set_str(tk, "source", "agent_result");
	json_set(c->t, "tokens", tk);
}

/* The trajectories (skill use is read from them) and what they count. */
static void bf_trajectories(struct ctx *c, const cJSON *res, const char *rollout, bool agent_ran)
{
	const cJSON *ar = json_get(res, "agent_result");
	tr_set_num_or_null(c->t, "tool_calls", json_get(res, "n_tool_calls") ? json_get(res, "n_tool_calls")
									     : json_get(ar, "n_tool_calls"));
	const cJSON *skill_count = json_get(res, "n_skill_invocations") ? json_get(res, "n_skill_invocations")
									      : json_get(ar, "n_skill_invocations");
	tr_find_harness(c, json_str(res, "agent"));
	char *acp = xasprintf("%s/trajectory/acp_trajectory.jsonl", rollout);
	char *llm = xasprintf("%s/trajectory/llm_trajectory.jsonl", rollout);
	tr_read_acp(c, acp, agent_ran);
	tr_read_llm(c, llm);
	free(acp);
	free(llm);
	tr_set_skill(c, skill_count);
	bf_tokens(c, ar);
	tr_set_num_or_null(c->t, "cost_usd", json_get(ar, "cost_usd"));
	cJSON *tr = cJSON_CreateObject();
	json_set_num(tr, "events", (double)c->events);
	json_set_num(tr, "tool_calls", (double)c->tool_events);
	json_set(c->t, "trajectory", tr);
}

/* Whether the trial ran in the task's own environment: the local
 * runner's config.json says so ("reproduced" / "not_reproduced" and the
 * sandbox); null for other runners. */
static void bf_environment(struct ctx *c, const char *rollout)
{
	char *p = path_join(rollout, "config.json");
	cJSON *cfg = json_read_opt(p);
	const cJSON *local = json_get(cfg, "local");
	const char *env = json_str(local, "environment"), *sandbox = json_str(local, "sandbox");
	if (env && sandbox) {
		cJSON *o = cJSON_CreateObject();
		json_set_str(o, "sandbox", sandbox);
		json_set_bool(o, "reproduced", !strcmp(env, "reproduced"));
		json_set(o, "not_reproduced", cJSON_Duplicate(json_get(local, "dockerfile_not_reproduced"), true));
		json_set_str(o, "image", json_str(local, "image"));
		json_set(c->t, "environment", o);
	} else {
		json_set(c->t, "environment", cJSON_CreateNull());
	}
	cJSON_Delete(cfg);
	free(p);
}

void read_benchflow(struct ctx *c, const struct cand *best, long retries, const struct strlist *attempts)
{
	const cJSON *res = best->res;
	const char *rollout = best->dir;
	char *rp = path_join(rollout, "result.json");
	tr_check_types(c, rp, res, benchflow_keys, ARRAY_LEN(benchflow_keys));
	bf_identity(c, res, rollout);
	enum trial_outcome o = bf_outcome(c, res, rollout);
	bf_durations(c, res, rollout);
	json_set_num(c->t, "retries", (double)retries);
	tr_names_array(c->t, "attempts", attempts);
	tr_set_file(c, "rollout", rollout);
	tr_set_file(c, "result", rp);
	free(rp);
	bf_job_summary(c, rollout);
	bf_environment(c, rollout);
	bf_trajectories(c, res, rollout, o != TRIAL_INFRA_ERROR);
}
