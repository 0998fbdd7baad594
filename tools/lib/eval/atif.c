/* atif.c — ACP trajectory + trial.json -> ATIF (atif.h). One ATIF step
 * is one agent turn: its thought, its tool calls with their observations,
 * then its message; a user message is a step of its own. */
#include "eval/atif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "eval/trial.h"

/* The trial's keys the report reads, kept in extra.skillc.trial. */
static const char *const kept_keys[] = {
	"key", "task", "task_hash", "skill_hash", "harness", "model", "runner", "stage", "index", "test",
	"agent", "skill_mode", "outcome", "passed", "reward", "verifier_reward", "error", "error_category",
	"verifier_error", "verifier_error_category", "skill", "tool_calls", "trajectory", "tokens", "cost_usd",
	"durations", "started_at", "finished_at", "retries", "environment", "reused", "selection_reuse",
	"reused_from", "require_skill",
};

/* Put back on import: what Harbor's result.json cannot say. The outcome,
 * reward, cost, task and model come from Harbor's own keys. */
static const char *const restored_keys[] = {
	"key", "task_hash", "skill_hash", "harness", "runner", "stage", "index", "test", "skill_mode",
	"error", "error_category", "verifier_error", "verifier_error_category", "verifier_reward", "skill", "tool_calls",
	"trajectory", "tokens", "durations", "started_at", "finished_at", "retries", "environment", "reused",
	"selection_reuse", "reused_from", "require_skill",
};

struct steps {
	cJSON *arr;
	cJSON *cur;  /* the open agent step, or NULL */
	long other;  /* events of kinds ATIF has no place for */
};

static cJSON *new_step(struct steps *s, const char *source)
{
	cJSON *st = cJSON_CreateObject();
	json_set_num(st, "step_id", (double)(cJSON_GetArraySize(s->arr) + 1));
	json_set_str(st, "source", source);
	json_set_str(st, "message", "");
	cJSON_AddItemToArray(s->arr, st);
	s->cur = !strcmp(source, "agent") ? st : NULL;
	return st;
}

static void append_str(cJSON *obj, const char *key, const char *text)
{
	const char *old = json_str(obj, key);
	char *joined = xasprintf("%s%s", old ? old : "", text);
	json_set_str(obj, key, joined);
	free(joined);
}

/* "skill {\"name\": \"x\"}" is the tool skill with those arguments; any
 * other title (a shell command) is the ACP kind with {"title": ...}. */
static void split_title(const char *title, const char *kind, char **fn, cJSON **args)
{
	const char *sp = strchr(title, ' ');
	if (sp && sp > title && sp[1] == '{') {
		cJSON *o = cJSON_ParseWithOpts(sp + 1, NULL, 1);
		if (cJSON_IsObject(o)) {
			*fn = xstrndup(title, (size_t)(sp - title));
			*args = o;
			return;
		}
		cJSON_Delete(o);
	}
	*fn = xstrdup(kind && *kind ? kind : "tool");
	*args = cJSON_CreateObject();
	json_set_str(*args, "title", title);
}

/* The texts of an ACP tool call's content blocks, joined. */
static char *tool_output(const cJSON *ev)
{
	struct buf b = BUF_INIT;
	const cJSON *content = json_get(ev, "content");
	for (const cJSON *blk = cJSON_IsArray(content) ? content->child : NULL; blk; blk = blk->next) {
		const char *text = json_str(json_get(blk, "content"), "text");
		if (text)
			buf_adds(&b, text);
	}
	return buf_detach(&b);
}

static void add_tool_call(struct steps *s, const cJSON *ev)
{
	if (!s->cur || *json_str(s->cur, "message"))
		new_step(s, "agent");
	cJSON *calls = json_get(s->cur, "tool_calls");
	if (!calls)
		calls = json_set(s->cur, "tool_calls", cJSON_CreateArray());
	const char *id = json_str(ev, "tool_call_id"), *title = json_str(ev, "title");
	char *own_id = id ? xstrdup(id) : xasprintf("call-%d-%d", (int)json_num(s->cur, "step_id", 0),
						       cJSON_GetArraySize(calls) + 1);
	char *fn;
	cJSON *args;
	split_title(title ? title : "", json_str(ev, "kind"), &fn, &args);
	cJSON *tc = cJSON_CreateObject();
	json_set_str(tc, "tool_call_id", own_id);
	json_set_str(tc, "function_name", fn);
	json_set(tc, "arguments", args);
	cJSON_AddItemToArray(calls, tc);
	cJSON *obs = json_get(s->cur, "observation");
	if (!obs) {
		obs = json_set(s->cur, "observation", cJSON_CreateObject());
		json_set(obs, "results", cJSON_CreateArray());
	}
	cJSON *r = cJSON_CreateObject();
	char *out = tool_output(ev);
	json_set_str(r, "source_call_id", own_id);
	json_set_str(r, "content", out);
	cJSON_AddItemToArray(json_get(obs, "results"), r);
	free(out);
	free(fn);
	free(own_id);
}

static void on_event(const cJSON *ev, long line, void *arg)
{
	(void)line;
	struct steps *s = arg;
	const char *type = json_str(ev, "type"), *text = json_str(ev, "text");
	if (type && !strcmp(type, "user_message") && text) {
		json_set_str(new_step(s, "user"), "message", text);
	} else if (type && !strcmp(type, "agent_thought") && text) {
		if (!s->cur || *json_str(s->cur, "message") || json_get(s->cur, "tool_calls"))
			new_step(s, "agent");
		append_str(s->cur, "reasoning_content", text);
	} else if (type && !strcmp(type, "agent_message") && text) {
		if (!s->cur || *json_str(s->cur, "message"))
			new_step(s, "agent");
		append_str(s->cur, "message", text);
	} else if (type && !strcmp(type, "tool_call")) {
		add_tool_call(s, ev);
	} else {
		s->other++;
	}
}

static void set_int_of(cJSON *obj, const char *key, const cJSON *v)
{
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
		json_set_num(obj, key, floor(v->valuedouble));
}

/* final_metrics from the trial's tokens and cost. */
static cJSON *final_metrics(const cJSON *t, int nsteps)
{
	cJSON *m = cJSON_CreateObject();
	const cJSON *tk = json_get(t, "tokens");
	set_int_of(m, "total_prompt_tokens", json_get(tk, "input"));
	set_int_of(m, "total_completion_tokens", json_get(tk, "output"));
	set_int_of(m, "total_cached_tokens", json_get(tk, "cache_read"));
	if (cJSON_IsNumber(json_get(t, "cost_usd")))
		json_set_num(m, "total_cost_usd", json_get(t, "cost_usd")->valuedouble);
	json_set_num(m, "total_steps", nsteps);
	if (cJSON_IsNumber(json_get(tk, "total"))) {
		cJSON *x = json_set(m, "extra", cJSON_CreateObject());
		json_set_num(x, "total_tokens", json_get(tk, "total")->valuedouble);
	}
	return m;
}

static cJSON *skillc_extra(const cJSON *t)
{
	cJSON *x = cJSON_CreateObject(), *sk = json_set(x, "skillc", cJSON_CreateObject());
	json_set_num(sk, "format", TRIAL_FORMAT);
	cJSON *kept = json_set(sk, "trial", cJSON_CreateObject());
	for (size_t i = 0; i < ARRAY_LEN(kept_keys); i++) {
		const cJSON *v = json_get(t, kept_keys[i]);
		if (v)
			json_set(kept, kept_keys[i], cJSON_Duplicate(v, true));
	}
	return x;
}

cJSON *atif_from_trial(const cJSON *t, const char *acp_path, struct err *e)
{
	struct steps s = { cJSON_CreateArray(), NULL, 0 };
	long bad = 0;
	if (acp_path && fs_exists(acp_path) && (trial_jsonl_each(acp_path, on_event, &s, &bad) < 0 || bad)) {
		if (bad)
			err_set(e, ERR_INPUT, "%s line %ld is not JSON", acp_path, bad);
		else
			err_set(e, ERR_INPUT, "cannot read '%s':", acp_path);
		cJSON_Delete(s.arr);
		return NULL;
	}
	const char *harness = json_str(t, "harness"), *agent = json_str(t, "agent");
	const char *key = json_str(t, "key"), *test = json_str(t, "test");
	cJSON *a = cJSON_CreateObject(), *ag = cJSON_CreateObject();
	json_set_str(a, "schema_version", ATIF_VERSION);
	char *sid = xasprintf("%s%s%s", key ? key : "trial", test ? "-" : "", test ? test : "");
	json_set_str(a, "session_id", sid);
	free(sid);
	json_set_str(ag, "name", harness ? harness : agent ? agent : "unknown");
	json_set_str(ag, "version", "unknown"); /* the runners do not report it */
	if (json_str(t, "model"))
		json_set_str(ag, "model_name", json_str(t, "model"));
	json_set(a, "agent", ag);
	int n = cJSON_GetArraySize(s.arr);
	json_set(a, "steps", s.arr);
	if (s.other) {
		char *note = xasprintf("%ld trajectory events of kinds ATIF has no step for are left out "
				       "(the ACP trajectory beside this file has them)", s.other);
		json_set_str(a, "notes", note);
		free(note);
	}
	json_set(a, "final_metrics", final_metrics(t, n));
	json_set(a, "extra", skillc_extra(t));
	return a;
}

int atif_write(const char *dir, cJSON *t, struct err *e)
{
	const char *rel = json_str(json_get(t, "files"), "acp_trajectory");
	char *acp = rel ? path_join(dir, rel) : NULL;
	cJSON *a = atif_from_trial(t, acp, e);
	free(acp);
	if (!a)
		return -1;
	char *tdir = path_join(dir, "trajectory"), *p = path_join(dir, ATIF_FILE);
	int rc = fs_mkdirs(tdir, e) < 0 ? -1 : json_write_file(p, a, e);
	if (rc == 0 && cJSON_IsObject(json_get(t, "files")))
		json_set_str(json_get(t, "files"), "atif", ATIF_FILE);
	cJSON_Delete(a);
	free(tdir);
	free(p);
	return rc;
}

/* Harbor's exception for an outcome without a plain score. */
static cJSON *exception_of(const cJSON *t, const char *outcome)
{
	const char *type = !strcmp(outcome, "timeout") ? "AgentTimeoutError"
			   : !strcmp(outcome, "verifier_error") ? "VerifierOutputParseError"
			   : !strcmp(outcome, "infra_error") ? "EnvironmentStartTimeoutError" : NULL;
	if (!type)
		return cJSON_CreateNull();
	cJSON *x = cJSON_CreateObject();
	json_set_str(x, "exception_type", type);
	const char *msg = json_str(t, "error") ? json_str(t, "error") : json_str(t, "verifier_error");
	json_set_str(x, "exception_message", msg ? msg : outcome);
	return x;
}

static cJSON *agent_result_of(const cJSON *t)
{
	const cJSON *tk = json_get(t, "tokens");
	cJSON *r = cJSON_CreateObject();
	json_set(r, "n_input_tokens", cJSON_IsNumber(json_get(tk, "input")) ? cJSON_Duplicate(json_get(tk, "input"), 0)
									      : cJSON_CreateNull());
	json_set(r, "n_cache_tokens", cJSON_IsNumber(json_get(tk, "cache_read"))
					      ? cJSON_Duplicate(json_get(tk, "cache_read"), 0) : cJSON_CreateNull());
	json_set(r, "n_output_tokens", cJSON_IsNumber(json_get(tk, "output")) ? cJSON_Duplicate(json_get(tk, "output"), 0)
										: cJSON_CreateNull());
	json_set(r, "cost_usd", cJSON_IsNumber(json_get(t, "cost_usd")) ? cJSON_Duplicate(json_get(t, "cost_usd"), 0)
									   : cJSON_CreateNull());
	return r;
}

cJSON *atif_harbor_result(const cJSON *t, const char *bench)
{
	cJSON *r = cJSON_CreateObject();
	const char *outcome = json_str(t, "outcome") ? json_str(t, "outcome") : "infra_error";
	json_set_str(r, "id", json_str(t, "key"));
	json_set_str(r, "task_name", json_str(t, "task"));
	json_set_str(r, "trial_name", json_str(t, "test"));
	json_set_str(r, "source", bench);
	json_set_str(r, "task_checksum", json_str(t, "task_hash"));
	cJSON *info = json_set(r, "agent_info", cJSON_CreateObject());
	json_set_str(info, "name", json_str(t, "harness") ? json_str(t, "harness") : json_str(t, "agent"));
	json_set_str(info, "version", "unknown");
	cJSON *mi = json_set(info, "model_info", cJSON_CreateObject());
	json_set_str(mi, "name", json_str(t, "model")); /* "provider/id" whole: read back as it is */
	json_set(mi, "provider", cJSON_CreateNull());
	json_set(r, "agent_result", agent_result_of(t));
	const cJSON *reward = json_get(t, "reward");
	if (cJSON_IsNumber(reward) && strcmp(outcome, "infra_error") && strcmp(outcome, "verifier_error")) {
		cJSON *vr = json_set(r, "verifier_result", cJSON_CreateObject());
		json_set_num(json_set(vr, "rewards", cJSON_CreateObject()), "reward", reward->valuedouble);
	} else {
		json_set(r, "verifier_result", cJSON_CreateNull());
	}
	json_set(r, "exception_info", exception_of(t, outcome));
	json_set_str(r, "started_at", json_str(t, "started_at"));
	json_set_str(r, "finished_at", json_str(t, "finished_at"));
	return r;
}

int atif_restore(cJSON *t, const cJSON *atif)
{
	const cJSON *kept = json_get(json_get(json_get(atif, "extra"), "skillc"), "trial");
	if (!cJSON_IsObject(kept))
		return 0;
	for (size_t i = 0; i < ARRAY_LEN(restored_keys); i++) {
		const cJSON *v = json_get(kept, restored_keys[i]);
		if (v)
			json_set(t, restored_keys[i], cJSON_Duplicate(v, true));
	}
	return 1;
}
