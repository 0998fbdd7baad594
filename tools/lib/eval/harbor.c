/* harbor.c — Harbor's trial folder (reader.h): result.json with
 * verifier_result and exception_info, the job's result.json, and
 * agent/trajectory.json in ATIF, whose steps become a BenchFlow-shaped ACP
 * trajectory (trial_opts.acp_out) scanned for skill use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "eval/atif.h"
#include "eval/reader.h"

static const struct typed_key harbor_keys[] = {
	{ "task_name", cJSON_String }, { "trial_name", cJSON_String }, { "agent_info", cJSON_Object },
	{ "verifier_result", cJSON_Object }, { "verifier_result.rewards", cJSON_Object },
	{ "exception_info", cJSON_Object }, { "exception_info.exception_type", cJSON_String },
	{ "exception_info.exception_message", cJSON_String }, { "agent_result", cJSON_Object },
	{ "started_at", cJSON_String }, { "finished_at", cJSON_String },
};

static const char *const verifier_exceptions[] = {
	"VerifierTimeoutError", "RewardFileNotFoundError", "RewardFileEmptyError", "VerifierOutputParseError",
};

/* ---- ATIF steps -> BenchFlow-shaped ACP events ---- */

static void acp_line(struct ctx *c, cJSON *ev)
{
	tr_on_acp(ev, 0, c);
	if (c->o->acp_out) {
		if (c->o->acp_out->len)
			buf_addc(c->o->acp_out, '\n'); /* BenchFlow's shape: no final newline */
		char *s = cJSON_PrintUnformatted(ev);
		buf_adds(c->o->acp_out, s);
		free(s);
	}
	cJSON_Delete(ev);
}

static void text_event(struct ctx *c, const char *type, const char *text)
{
	cJSON *ev = cJSON_CreateObject();
	json_set_str(ev, "type", type);
	json_set_str(ev, "text", text);
	acp_line(c, ev);
}

static const char *observation_for(const cJSON *step, const char *id)
{
	const cJSON *res = json_get(json_get(step, "observation"), "results");
	for (const cJSON *r = res ? res->child : NULL; r; r = r->next) {
		const char *src = json_str(r, "source_call_id");
		if (!id || !src || !strcmp(src, id))
			return json_str(r, "content");
	}
	return NULL;
}

/* One tool call: a completed tool_call titled "<tool> <arguments>", with
 * the step's observation for it as its content. */
static void tool_call_event(struct ctx *c, const cJSON *step, const cJSON *tc)
{
	const char *fn = json_str(tc, "function_name"), *id = json_str(tc, "tool_call_id");
	struct buf args = BUF_INIT;
	const cJSON *a = json_get(tc, "arguments");
	if (cJSON_IsString(a))
		buf_adds(&args, a->valuestring);
	else if (a)
		json_canon(a, false, &args);
	if (c->h)
		harness_scan_tool_call(c->h, fn, args.data, &c->use);
	cJSON *ev = cJSON_CreateObject();
	json_set_str(ev, "type", "tool_call");
	json_set_str(ev, "tool_call_id", id);
	json_set_str(ev, "kind", "other");
	char *title = xasprintf("%s%s%s", fn ? fn : "tool", args.len ? " " : "", args.data);
	json_set_str(ev, "title", title);
	free(title);
	json_set_str(ev, "status", "completed");
	cJSON *content = cJSON_CreateArray();
	const char *obs = observation_for(step, id);
	if (obs) {
		cJSON *blk = cJSON_CreateObject(), *inner = cJSON_CreateObject();
		json_set_str(inner, "type", "text");
		json_set_str(inner, "text", obs);
		json_set_str(blk, "type", "content");
		json_set(blk, "content", inner);
		cJSON_AddItemToArray(content, blk);
	}
	json_set(ev, "content", content);
	acp_line(c, ev);
	buf_free(&args);
}

/* user_message, agent_thought, tool_call, agent_message, in step order. */
static void atif_to_acp(struct ctx *c, const cJSON *atif)
{
	const cJSON *steps = json_get(atif, "steps");
	for (const cJSON *st = cJSON_IsArray(steps) ? steps->child : NULL; st; st = st->next) {
		const char *src = json_str(st, "source"), *msg = json_str(st, "message");
		if (src && !strcmp(src, "user") && msg) {
			text_event(c, "user_message", msg);
			continue;
		}
		if (!src || strcmp(src, "agent"))
			continue;
		const char *thought = json_str(st, "reasoning_content");
		if (thought && *thought)
			text_event(c, "agent_thought", thought);
		const cJSON *tcs = json_get(st, "tool_calls");
		for (const cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc; tc = tc->next)
			tool_call_event(c, st, tc);
		if (msg && *msg)
			text_event(c, "agent_message", msg);
	}
}

/* ---- result.json ---- */

/* Who ran what: schema, task, trial, agent, "provider/model", skill mode. */
static const char *hb_identity(struct ctx *c, const cJSON *res, const char *dir)
{
	json_set_str(c->t, "schema", "harbor");
	tr_set_str_or_null(c->t, "task", json_str(res, "task_name"));
	tr_set_str_or_null(c->t, "rollout", json_str(res, "trial_name") ? json_str(res, "trial_name") : path_base(dir));
	const cJSON *info = json_get(res, "agent_info");
	const char *agent = json_str(info, "name");
	tr_set_str_or_null(c->t, "agent", agent);
	tr_set_str_or_null(c->t, "agent_name", agent);
	const cJSON *mi = json_get(info, "model_info");
	const char *mname = json_str(mi, "name"), *prov = json_str(mi, "provider");
	char *m = mname && prov ? xasprintf("%s/%s", prov, mname) : NULL;
	tr_set_str_or_null(c->t, "model", m ? m : mname);
	free(m);
	json_set_str(c->t, "skill_mode", c->o->skills && c->o->skills->n ? "with-skill" : "no-skill");
	return agent;
}

/* AgentTimeoutError still runs the verifier; other exceptions leave no
 * reward (a verifier's own exception is a verifier error). */
static enum trial_outcome hb_outcome(struct ctx *c, const cJSON *res, const char *dir)
{
	const cJSON *reward = tr_num_or_null(json_get(json_get(json_get(res, "verifier_result"), "rewards"), "reward"));
	const cJSON *exc = json_get(res, "exception_info");
	const char *etype = json_str(exc, "exception_type"), *emsg = json_str(exc, "exception_message");
	bool verr = false;
	for (size_t i = 0; etype && i < ARRAY_LEN(verifier_exceptions); i++)
		verr |= !strcmp(etype, verifier_exceptions[i]);
	enum trial_outcome o;
	if (reward)
		o = etype && !strcmp(etype, "AgentTimeoutError") ? TRIAL_TIMEOUT
		    : fabs(reward->valuedouble - 1.0) < 1e-9 ? TRIAL_PASSED : TRIAL_FAILED;
	else
		o = verr ? TRIAL_VERIFIER_ERROR : TRIAL_INFRA_ERROR;
	tr_set_outcome(c, reward, o);
	tr_set_str_or_null(c->t, "error", emsg);
	tr_set_str_or_null(c->t, "error_category", etype);
	tr_set_str_or_null(c->t, "verifier_error", verr ? emsg : NULL);
	tr_set_str_or_null(c->t, "verifier_error_category", verr ? etype : NULL);
	tr_read_verifier_reward(c, dir, reward);
	return o;
}

static void set_seconds(cJSON *obj, const char *key, double s)
{
	if (isnan(s))
		json_set(obj, key, cJSON_CreateNull());
	else
		json_set_num(obj, key, s);
}

/* "durations" from each phase's timestamps and the trial's own. */
static void hb_durations(struct ctx *c, const cJSON *res)
{
	json_set_str(c->t, "started_at", json_str(res, "started_at"));
	json_set_str(c->t, "finished_at", json_str(res, "finished_at"));
	cJSON *du = cJSON_CreateObject();
	static const char *const phases[] = { "environment_setup", "agent_setup", "agent_execution", "verifier" };
	for (size_t i = 0; i < ARRAY_LEN(phases); i++) {
		const cJSON *p = json_get(res, phases[i]);
		set_seconds(du, phases[i], trial_seconds_between(json_str(p, "started_at"), json_str(p, "finished_at")));
	}
	set_seconds(du, "total", trial_seconds_between(json_str(res, "started_at"), json_str(res, "finished_at")));
	json_set(c->t, "durations", du);
}

/* The job's result.json is final once finished_at is set. */
static void hb_job_summary(struct ctx *c, const char *dir)
{
	cJSON *jr = tr_read_job_file(c, dir, "result.json");
	if (jr && !json_str(jr, "finished_at")) {
		char *job = tr_dir_of(dir), *jp = path_join(job, "result.json");
		char *rel = tr_rel_to(c->base, jp);
		tr_problem(c, "job %s has no finished_at (the run did not finish)", rel);
		free(rel);
		free(jp);
		free(job);
	}
	cJSON_Delete(jr);
}

/* agent/trajectory.json: an agent that never ran leaves none. Returns
 * it (caller frees) for what else it says. */
static cJSON *hb_trajectory(struct ctx *c, const char *dir, const char *agent, bool agent_ran)
{
	tr_find_harness(c, agent);
	char *ap = xasprintf("%s/agent/trajectory.json", dir);
	cJSON *atif = json_read_opt(ap);
	if (!atif && agent_ran) {
		char *rel = tr_rel_to(c->base, ap);
		tr_problem(c, "no agent trajectory: %s is missing or not JSON (this agent writes no ATIF; "
			   "use RUNNER=benchflow or RUNNER=local)", rel);
		free(rel);
	} else {
		atif_to_acp(c, atif);
		if (agent_ran && c->events == 0)
			tr_problem(c, "agent/trajectory.json has no steps although the agent ran");
	}
	free(ap);
	tr_set_file(c, "acp_trajectory", NULL); /* the caller writes it (acp_out) */
	tr_set_file(c, "llm_trajectory", NULL);
	tr_set_skill(c, NULL);
	return atif;
}

/* The trial's "tokens" from the counts of src (Harbor's agent_result or
 * ATIF's final_metrics): the keys of its input, output and cache counts. */
static void hb_set_tokens(struct ctx *c, const cJSON *src, const char *in_key, const char *out_key,
			  const char *cache_key, const char *source)
{
	cJSON *tk = cJSON_CreateObject();
	double in = json_num(src, in_key, 0), out = json_num(src, out_key, 0);
	json_set_num(tk, "input", in);
	json_set_num(tk, "output", out);
	tr_set_num_or_null(tk, "cache_read", json_get(src, cache_key));
	json_set_num(tk, "total", in + out);
	json_set_str(tk, "source", source);
	json_set(c->t, "tokens", tk);
}

/* ATIF's final_metrics, for an agent_result that counts no tokens. */
static void hb_tokens_from_atif(struct ctx *c, const cJSON *atif)
{
	const cJSON *fm = json_get(atif, "final_metrics");
	if (!cJSON_IsNumber(json_get(fm, "total_prompt_tokens")) && !cJSON_IsNumber(json_get(fm, "total_completion_tokens")))
		return;
	hb_set_tokens(c, fm, "total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "atif");
	if (!cJSON_IsNumber(json_get(c->t, "cost_usd")))
		tr_set_num_or_null(c->t, "cost_usd", json_get(fm, "total_cost_usd"));
}

/* "tokens" from agent_result when it counts any, the cost, the counts. */
static void hb_usage(struct ctx *c, const cJSON *res)
{
	const cJSON *ar = json_get(res, "agent_result");
	if (cJSON_IsObject(ar) && (cJSON_IsNumber(json_get(ar, "n_input_tokens")) ||
				   cJSON_IsNumber(json_get(ar, "n_output_tokens")))) {
		hb_set_tokens(c, ar, "n_input_tokens", "n_output_tokens", "n_cache_tokens", "agent_result");
	} else {
		json_set(c->t, "tokens", cJSON_CreateNull());
	}
	tr_set_num_or_null(c->t, "cost_usd", json_get(ar, "cost_usd"));
	json_set_num(c->t, "tool_calls", (double)c->tool_events);
	cJSON *tr = cJSON_CreateObject();
	json_set_num(tr, "events", (double)c->events);
	json_set_num(tr, "tool_calls", (double)c->tool_events);
	json_set(c->t, "trajectory", tr);
}

void read_harbor(struct ctx *c, const struct cand *best)
{
	const cJSON *res = best->res;
	char *rp = path_join(best->dir, "result.json");
	tr_check_types(c, rp, res, harbor_keys, ARRAY_LEN(harbor_keys));
	const char *agent = hb_identity(c, res, best->dir);
	enum trial_outcome o = hb_outcome(c, res, best->dir);
	hb_durations(c, res);
	json_set_num(c->t, "retries", 0);
	struct strlist one = STRLIST_INIT;
	strlist_push(&one, path_base(best->dir));
	tr_names_array(c->t, "attempts", &one);
	strlist_free(&one);
	tr_set_file(c, "rollout", best->dir);
	tr_set_file(c, "result", rp);
	free(rp);
	hb_job_summary(c, best->dir);
	cJSON *atif = hb_trajectory(c, best->dir, agent, o != TRIAL_INFRA_ERROR);
	hb_usage(c, res);
	if (json_get(c->t, "tokens")->type == cJSON_NULL)
		hb_tokens_from_atif(c, atif);
	/* a trial skillc wrote in Harbor's layout (make export) gets back
	 * what Harbor's result.json has no key for */
	if (atif_restore(c->t, atif))
		json_set_str(c->t, "schema", "harbor+skillc");
	cJSON_Delete(atif);
}
