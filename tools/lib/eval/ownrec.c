/* ownrec.c — skillc's own trial record as the local runner writes it
 * (reader.h; local/record.h writes it): <dir>/trial.json already holds
 * trial.json's facts in its keys; this checks their types, takes them,
 * and adds what only skillc-eval knows: the skill-use check over the ACP
 * trajectory and the verifier's reward file compared with the record. */
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "eval/reader.h"

static const struct typed_key own_keys[] = {
	{ "task", cJSON_String }, { "rollout", cJSON_String }, { "agent", cJSON_String },
	{ "agent_name", cJSON_String }, { "model", cJSON_String }, { "skill_mode", cJSON_String },
	{ "outcome", cJSON_String }, { "reward", cJSON_Number }, { "rewards", cJSON_Object },
	{ "error", cJSON_String }, { "error_category", cJSON_String },
	{ "verifier_error", cJSON_String }, { "verifier_error_category", cJSON_String },
	{ "tool_calls", cJSON_Number }, { "skill_invocations", cJSON_Number },
	{ "tokens", cJSON_Object }, { "durations", cJSON_Object }, { "started_at", cJSON_String },
	{ "finished_at", cJSON_String }, { "environment", cJSON_Object }, { "files", cJSON_Object },
	{ "files.acp_trajectory", cJSON_String },
};

/* The facts taken as the record says them (null when absent). */
static const char *const taken[] = {
	"task", "rollout", "agent", "agent_name", "model", "skill_mode", "error", "error_category",
	"verifier_error", "verifier_error_category", "tool_calls", "tokens", "cost_usd",
	"durations", "started_at", "finished_at", "environment",
};

bool own_record_is(const cJSON *rec)
{
	const char *schema = json_str(rec, "schema");
	return schema && !strcmp(schema, "local") && cJSON_IsNumber(json_get(rec, "format"));
}

/* The outcome by eval's rule; a record that names another is wrong. */
static enum trial_outcome own_outcome(struct ctx *c, const cJSON *rec, const char *dir)
{
	const cJSON *reward = tr_num_or_null(json_get(rec, "reward"));
	bool verr = json_str(rec, "verifier_error") != NULL;
	enum trial_outcome o = trial_outcome_of(reward, json_str(rec, "error_category"),
						json_str(rec, "error"), verr);
	const char *said = json_str(rec, "outcome");
	if (said && strcmp(said, trial_outcome_name(o)))
		tr_problem(c, "its record says outcome '%s', its facts say '%s'", said,
			   trial_outcome_name(o));
	tr_set_outcome(c, reward, o);
	tr_read_verifier_reward(c, dir, reward);
	return o;
}

void read_own(struct ctx *c, const char *dir, const cJSON *rec)
{
	char *rp = path_join(dir, "trial.json");
	tr_check_types(c, rp, rec, own_keys, ARRAY_LEN(own_keys));
	json_set_str(c->t, "schema", "local");
	for (size_t i = 0; i < ARRAY_LEN(taken); i++) {
		const cJSON *v = json_get(rec, taken[i]);
		json_set(c->t, taken[i], v ? cJSON_Duplicate(v, true) : cJSON_CreateNull());
	}
	enum trial_outcome o = own_outcome(c, rec, dir);
	json_set_num(c->t, "retries", 0);
	cJSON *att = cJSON_CreateArray();
	if (json_str(rec, "rollout"))
		cJSON_AddItemToArray(att, cJSON_CreateString(json_str(rec, "rollout")));
	json_set(c->t, "attempts", att);
	tr_set_file(c, "rollout", dir);
	tr_set_file(c, "result", rp);
	tr_find_harness(c, json_str(rec, "agent"));
	const char *acp_rel = json_str(json_get(rec, "files"), "acp_trajectory");
	char *acp = path_join(dir, acp_rel ? acp_rel : "trajectory/acp_trajectory.jsonl");
	tr_read_acp(c, acp, o != TRIAL_INFRA_ERROR);
	tr_set_file(c, "llm_trajectory", NULL);
	tr_set_skill(c, json_get(rec, "skill_invocations"));
	cJSON *tr = cJSON_CreateObject();
	json_set_num(tr, "events", (double)c->events);
	json_set_num(tr, "tool_calls", (double)c->tool_events);
	json_set(c->t, "trajectory", tr);
	free(acp);
	free(rp);
}
