#include "local/record.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/envlist.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/pyjson.h"
#include "eval/trial.h"

void record_time(double t, char out[32])
{
	time_t s = (time_t)t;
	struct tm tm;
	localtime_r(&s, &tm);
	char head[24];
	strftime(head, sizeof head, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(out, 32, "%s.%06d", head, (int)((t - (double)s) * 1e6));
}

double record_round(double x)
{
	return (double)(long long)(x * 10 + 0.5) / 10;
}

/* A record that is not run again: scored, or its verifier errored. */
static bool record_is_final(const char *path)
{
	struct err e;
	cJSON *rec = json_read_file(path, &e);
	cJSON *rw = json_get(rec, "rewards");
	bool final = (rw && !cJSON_IsNull(rw)) || json_str(rec, "verifier_error");
	cJSON_Delete(rec);
	return final;
}

/* OUT, absolute (binds need it), created; 1 when it holds a final
 * record, -1 when it holds anything else. */
static int claim_out(struct local_trial *t, struct err *e)
{
	if (fs_mkdirs(t->o->out, e) < 0)
		return -1;
	char real[PATH_MAX];
	if (!realpath(t->o->out, real))
		return err_set(e, ERR_WORK, "cannot resolve '%s':", t->o->out);
	t->paths.dir = xstrdup(real);
	char *rec = path_join(real, "trial.json");
	bool final = fs_exists(rec) && record_is_final(rec);
	free(rec);
	if (final)
		return 1;
	struct strlist names = STRLIST_INIT;
	int r = fs_list_names(real, &names, e);
	if (r == 0 && names.n)
		r = err_set(e, ERR_INPUT, "'%s' is not empty and holds no finished trial: give "
			    "--out a new or empty folder (or remove this one)", real);
	strlist_free(&names);
	return r;
}

int record_open(struct local_trial *t, bool *done, struct err *e)
{
	struct rollout_paths *p = &t->paths;
	int claimed = claim_out(t, e);
	*done = claimed == 1;
	if (claimed != 0)
		return claimed < 0 ? -1 : 0;
	uint32_t rnd = 0;
	if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		rnd = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	p->rollout = xasprintf("%s__%08x", t->task.name, rnd);
	const char *subs[] = { "agent", "verifier", "artifacts", "trajectory" };
	for (size_t i = 0; i < ARRAY_LEN(subs); i++) {
		char *d = path_join(p->dir, subs[i]);
		int r = fs_mkdirs(d, e);
		free(d);
		if (r < 0)
			return -1;
	}
	char *agent_name = xstrdup(t->h.name);
	for (char *s = agent_name; *s; s++)
		if (*s == '-')
			*s = '_';
	char *log = xasprintf("agent/%s.txt", agent_name);
	p->agent_log = path_join(p->dir, log);
	free(log);
	free(agent_name);
	char *hidden = path_join(p->dir, ".skillc-local");
	int r = fs_mkdirs(hidden, e);
	p->scratch = path_join(hidden, p->rollout);
	free(hidden);
	return r;
}

/* ---- trial.json ---- */

static void add_skill_keys(const struct local_trial *t, cJSON *o)
{
	bool with = !strcmp(t->o->skill_mode, "with-skill");
	cJSON_AddStringToObject(o, "skill_source", t->box.skill_source);
	json_set_str(o, "requested_skills_dir", t->o->skills_dir);
	json_set_str(o, "effective_skills_dir", t->box.effective_skills);
	json_set_str(o, "skills_sandbox_dir", with ? "/skills" : NULL);
}

/* --agent-env, without the values whose names look secret. */
static cJSON *agent_env_keys(const struct local_opts *opt)
{
	cJSON *env = cJSON_CreateObject();
	for (size_t i = 0; i < opt->agent_env.n; i++) {
		const char *kv = opt->agent_env.v[i];
		char *name = xstrndup(kv, (size_t)(strchr(kv, '=') - kv));
		if (!envlist_secret_name(name))
			cJSON_AddStringToObject(env, name, strchr(kv, '=') + 1);
		free(name);
	}
	return env;
}

static cJSON *strlist_json(const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; l && i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
	return a;
}

static const char *sandbox_name(const struct local_trial *t)
{
	static const char *const names[] = {
		[SANDBOX_BWRAP] = "bubblewrap", [SANDBOX_NONE] = "none",
	};
	return t->box.mode == SANDBOX_CONTAINER ? t->box.engine->name : names[t->box.mode];
}

/* How the sandbox was made: what only this runner knows. */
static cJSON *local_keys(const struct local_trial *t)
{
	cJSON *l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "sandbox", sandbox_name(t));
	json_set_str(l, "image_id", t->box.image);
	bool container = t->box.mode == SANDBOX_CONTAINER;
	cJSON_AddStringToObject(l, "agent_network", !t->box.share_net ? "none+model-relay"
				: container ? "default+model-relay" : "host");
	cJSON_AddStringToObject(l, "verifier_network", container ? "the agent's container"
				: t->task.verifier_network ? "host" : "none");
	cJSON_AddStringToObject(l, "workdir", t->task.workdir);
	cJSON_AddStringToObject(l, "harness_file", t->h.file);
	cJSON_AddItemToObject(l, "acp_command", strlist_json(&t->h.argv));
	json_set_str(l, "harness_program", t->box.program);
	add_skill_keys(t, l);
	cJSON_AddNumberToObject(l, "timeout_sec", t->task.agent_timeout);
	if (t->o->idle_timeout > 0)
		cJSON_AddNumberToObject(l, "agent_idle_timeout_sec", t->o->idle_timeout);
	else
		cJSON_AddNullToObject(l, "agent_idle_timeout_sec");
	cJSON_AddNumberToObject(l, "verifier_timeout_sec", t->task.verifier_timeout);
	cJSON_AddItemToObject(l, "agent_env", agent_env_keys(t->o));
	if (t->o->override)
		cJSON_AddItemToObject(l, "config_override", cJSON_Duplicate(t->o->override, true));
	cJSON_AddNumberToObject(l, "dockerfile_copies", (double)t->task.ncopies);
	cJSON_AddNumberToObject(l, "dockerfile_skill_copies_dropped", t->task.skill_copies_dropped);
	cJSON *ign = cJSON_AddArrayToObject(l, "dockerfile_ignored");
	for (size_t i = 0; t->box.mode != SANDBOX_CONTAINER && i < t->task.ignored.n; i++)
		cJSON_AddItemToArray(ign, cJSON_CreateString(t->task.ignored.v[i]));
	return l;
}

/* trial.json's "environment": whether the trial ran in the task's own
 * environment (a container of its image) or one missing its RUN/ENV steps. */
static cJSON *environment(const struct local_trial *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "sandbox", sandbox_name(t));
	cJSON_AddBoolToObject(o, "reproduced", t->box.unreproduced.n == 0);
	cJSON_AddItemToObject(o, "not_reproduced", strlist_json(&t->box.unreproduced));
	json_set_str(o, "image", t->box.image_tag);
	return o;
}

static void add_seconds(cJSON *o, const char *key, bool known, double s)
{
	if (known)
		pyjson_add_float(o, key, record_round(s));
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *durations(const struct local_trial *t)
{
	cJSON *o = cJSON_CreateObject();
	add_seconds(o, "environment_setup", true, t->clock.env);
	add_seconds(o, "agent_setup", t->agent.ran, t->agent.acp.setup_sec);
	add_seconds(o, "agent_execution", t->agent.ran, t->agent.acp.exec_sec);
	add_seconds(o, "verifier", t->verdict.ran, t->verdict.seconds);
	add_seconds(o, "total", true, now_mono() - t->clock.start);
	return o;
}

/* The tokens of the ACP prompt response; null when the agent said none. */
static cJSON *tokens(const struct acp_result *a)
{
	if (!a->usage_known)
		return cJSON_CreateNull();
	cJSON *tk = cJSON_CreateObject();
	cJSON_AddNumberToObject(tk, "input", a->in_tokens);
	cJSON_AddNumberToObject(tk, "output", a->out_tokens);
	cJSON_AddNumberToObject(tk, "cache_read", a->cache_read_tokens);
	cJSON_AddNumberToObject(tk, "cache_write", a->cache_write_tokens);
	/* some providers report only the total (in/out stay 0): prefer it */
	double total = a->total_tokens > 0 ? a->total_tokens : a->in_tokens + a->out_tokens;
	cJSON_AddNumberToObject(tk, "total", total);
	cJSON_AddStringToObject(tk, "source", "acp");
	return tk;
}

static cJSON *copy_or_null(const cJSON *v)
{
	return v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
}

static cJSON *idle_timeout_info(const struct local_trial *t, int tools)
{
	const struct acp_result *a = &t->agent.acp;
	if (!t->agent.ran || a->status != ACP_IDLE)
		return cJSON_CreateNull();
	cJSON *idle = cJSON_CreateObject();
	cJSON_AddStringToObject(idle, "reason", "idle_timeout");
	pyjson_add_float(idle, "idle_timeout_sec", t->o->idle_timeout);
	pyjson_add_float(idle, "idle_duration_sec", record_round(a->idle_sec));
	pyjson_add_float(idle, "wall_clock_elapsed_sec", record_round(a->exec_sec));
	cJSON_AddNumberToObject(idle, "n_tool_calls", tools);
	return idle;
}

static cJSON *agent_timeout_info(const struct local_trial *t, int tools)
{
	const struct acp_result *a = &t->agent.acp;
	if (!t->agent.ran || a->status != ACP_TIMEOUT)
		return cJSON_CreateNull();
	cJSON *timeout = cJSON_CreateObject();
	cJSON_AddStringToObject(timeout, "reason", "wall_clock_timeout");
	pyjson_add_float(timeout, "timeout_sec", t->task.agent_timeout);
	cJSON_AddNumberToObject(timeout, "n_tool_calls", tools);
	cJSON_AddItemToObject(timeout, "pending_tool_call_ids", acp_traj_pending(&a->traj));
	return timeout;
}

/* The outcome: its name by eval's rule, the errors and their diagnostics. */
static void add_outcome(cJSON *r, const struct local_trial *t, int tools)
{
	const cJSON *reward = json_get(t->verdict.rewards, "reward");
	/* reward is a node that prints as a float: the rule wants a number */
	cJSON *value = reward ? cJSON_CreateNumber(pyjson_number(reward)) : NULL;
	enum trial_outcome o = trial_outcome_of(value, t->agent.category, t->agent.error,
						t->verdict.error != NULL);
	cJSON_Delete(value);
	cJSON_AddStringToObject(r, "outcome", trial_outcome_name(o));
	cJSON_AddBoolToObject(r, "passed", reward && pyjson_number(reward) == 1.0);
	cJSON_AddItemToObject(r, "reward", copy_or_null(reward));
	cJSON_AddItemToObject(r, "rewards", copy_or_null(t->verdict.rewards));
	json_set_str(r, "error", t->agent.error);
	json_set_str(r, "error_category", t->agent.category);
	json_set_str(r, "verifier_error", t->verdict.error);
	json_set_str(r, "verifier_error_category", t->verdict.category);
	cJSON *info = cJSON_AddObjectToObject(r, "error_info");
	cJSON_AddItemToObject(info, "idle_timeout", idle_timeout_info(t, tools));
	cJSON_AddItemToObject(info, "agent_timeout", agent_timeout_info(t, tools));
	cJSON_AddItemToObject(info, "sandbox_startup", copy_or_null(t->agent.sandbox_info));
	cJSON_AddItemToObject(info, "transport", copy_or_null(t->agent.transport_info));
	cJSON_AddItemToObject(info, "verifier_timeout", copy_or_null(t->verdict.timeout_info));
}

static cJSON *record_json(const struct local_trial *t)
{
	const struct acp_result *a = &t->agent.acp;
	int tools = acp_traj_tool_calls(&a->traj);
	bool has_lines = a->traj.lines && a->traj.lines->child;
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "format", TRIAL_FORMAT);
	cJSON_AddStringToObject(r, "schema", "local");
	cJSON_AddStringToObject(r, "task", t->task.name);
	cJSON_AddStringToObject(r, "rollout", t->paths.rollout);
	cJSON_AddStringToObject(r, "agent", t->h.name);
	cJSON_AddStringToObject(r, "agent_name", a->agent_name ? a->agent_name : "");
	cJSON_AddStringToObject(r, "model", t->o->model);
	cJSON_AddStringToObject(r, "skill_mode", t->o->skill_mode);
	add_outcome(r, t, tools);
	cJSON_AddNumberToObject(r, "tool_calls", tools);
	cJSON_AddNumberToObject(r, "skill_invocations", acp_traj_skill_calls(&a->traj));
	cJSON_AddNumberToObject(r, "prompts", a->handshake_done ? 1 : 0);
	bool partial = t->agent.ran && has_lines && !a->prompt_answered;
	cJSON_AddBoolToObject(r, "partial_trajectory", partial);
	cJSON_AddItemToObject(r, "tokens", tokens(a));
	cJSON_AddNullToObject(r, "cost_usd");
	cJSON_AddItemToObject(r, "durations", durations(t));
	cJSON_AddStringToObject(r, "started_at", t->clock.started_at);
	char fin[32];
	record_time(now_wall(), fin);
	cJSON_AddStringToObject(r, "finished_at", fin);
	cJSON_AddItemToObject(r, "environment", environment(t));
	cJSON *files = cJSON_AddObjectToObject(r, "files");
	cJSON_AddStringToObject(files, "acp_trajectory", "trajectory/acp_trajectory.jsonl");
	char *log = xstrdup(t->paths.agent_log + strlen(t->paths.dir) + 1);
	cJSON_AddStringToObject(files, "agent_log", log);
	free(log);
	cJSON_AddItemToObject(r, "local", local_keys(t));
	return r;
}

static int write_in(const struct local_trial *t, const char *rel, const void *data, size_t len,
		    struct err *e)
{
	char *p = path_join(t->paths.dir, rel);
	int r = fs_write_atomic(p, data, len, 0644, e);
	free(p);
	return r;
}

/* trajectory/acp_trajectory.jsonl and its copy for the verifier in agent/. */
static int write_trajectory(const struct local_trial *t, struct err *e)
{
	struct buf b = BUF_INIT;
	acp_traj_text(&t->agent.acp.traj, &b);
	int r = write_in(t, "trajectory/acp_trajectory.jsonl", b.data, b.len, e);
	if (r == 0 && b.len) {
		buf_addc(&b, '\n');
		r = write_in(t, "agent/acp_trajectory.jsonl", b.data, b.len, e);
	}
	buf_free(&b);
	return r;
}

int record_write(const struct local_trial *t, struct err *e)
{
	if (write_trajectory(t, e) < 0)
		return -1;
	cJSON *r = record_json(t);
	struct buf b = BUF_INIT;
	pyjson_print(r, 2, &b); /* rewards stay floats: "1.0" */
	buf_addc(&b, '\n');
	int rc = write_in(t, "trial.json", b.data, b.len, e); /* last: it says the trial is whole */
	buf_free(&b);
	cJSON_Delete(r);
	return rc;
}
