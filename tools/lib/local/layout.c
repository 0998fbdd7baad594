#include "local/layout.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/envlist.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/pyjson.h"

void benchflow_time(double t, char out[32])
{
	time_t s = (time_t)t;
	struct tm tm;
	localtime_r(&s, &tm);
	char head[24];
	strftime(head, sizeof head, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(out, 32, "%s.%06d", head, (int)((t - (double)s) * 1e6));
}

double benchflow_round(double x)
{
	return (double)(long long)(x * 10 + 0.5) / 10;
}

static int write_py(const char *path, const cJSON *v, int indent, struct err *e)
{
	struct buf b = BUF_INIT;
	pyjson_print(v, indent, &b);
	int r = fs_write_atomic(path, b.data, b.len, 0644, e);
	buf_free(&b);
	return r;
}

int benchflow_pick_job(struct local_trial *t, struct err *e)
{
	struct rollout_paths *p = &t->paths;
	if (fs_mkdirs(t->o->jobs_dir, e) < 0)
		return -1;
	char real[PATH_MAX];
	if (!realpath(t->o->jobs_dir, real))
		return err_set(e, ERR_WORK, "cannot resolve '%s':", t->o->jobs_dir);
	p->jobs = xstrdup(real); /* binds need absolute paths */
	/* like bench: an existing job folder is resumed (the alphabetically last) */
	struct strlist names = STRLIST_INIT;
	if (fs_list_names(p->jobs, &names, e) < 0)
		return -1;
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		char *full = path_join(p->jobs, n);
		if (strlen(n) == 20 && n[10] == '_' && fs_is_dir(full)) {
			free(p->job_name);
			p->job_name = xstrdup(n);
		}
		free(full);
	}
	strlist_free(&names);
	if (!p->job_name) {
		char name[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(name, sizeof name, "%Y-%m-%d__%H-%M-%S", &tm);
		p->job_name = xstrdup(name);
	}
	p->job_dir = path_join(p->jobs, p->job_name);
	return fs_mkdirs(p->job_dir, e);
}

/* A result that bench would not run again: scored, or its verifier errored. */
static bool result_is_final(const char *path)
{
	struct err e;
	cJSON *res = json_read_file(path, &e);
	cJSON *rw = json_get(res, "rewards");
	bool final = (rw && !cJSON_IsNull(rw)) || json_str(res, "verifier_error");
	cJSON_Delete(res);
	return final;
}

char *benchflow_completed_rollout(const struct local_trial *t)
{
	struct strlist names = STRLIST_INIT;
	struct err e;
	char *found = NULL;
	if (fs_list_names(t->paths.job_dir, &names, &e) < 0)
		return NULL;
	size_t n = strlen(t->task.name);
	for (size_t i = 0; i < names.n && !found; i++) {
		const char *r = names.v[i];
		if (strncmp(r, t->task.name, n) || strncmp(r + n, "__", 2) || strlen(r) != n + 10)
			continue;
		char *f = xasprintf("%s/%s/result.json", t->paths.job_dir, r);
		if (fs_exists(f) && result_is_final(f))
			found = xstrdup(r);
		free(f);
	}
	strlist_free(&names);
	return found;
}

int benchflow_make_rollout(struct local_trial *t, struct err *e)
{
	struct rollout_paths *p = &t->paths;
	uint32_t rnd = 0;
	if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		rnd = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	p->rollout = xasprintf("%s__%08x", t->task.name, rnd);
	p->dir = path_join(p->job_dir, p->rollout);
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
	char *hidden = path_join(p->jobs, ".skillc-local");
	int r = fs_mkdirs(hidden, e);
	p->scratch = path_join(hidden, p->rollout);
	free(hidden);
	return r;
}

static cJSON *scenes(const struct local_trial *t)
{
	cJSON *list = cJSON_CreateArray();
	cJSON *sc = cJSON_CreateObject();
	cJSON_AddItemToArray(list, sc);
	cJSON_AddStringToObject(sc, "name", "default");
	cJSON_AddNullToObject(sc, "skills_dir");
	cJSON *roles = cJSON_AddArrayToObject(sc, "roles");
	cJSON *role = cJSON_CreateObject();
	cJSON_AddItemToArray(roles, role);
	cJSON_AddStringToObject(role, "name", "agent");
	cJSON_AddStringToObject(role, "agent", t->h.name);
	cJSON_AddStringToObject(role, "model", t->o->model);
	cJSON_AddNullToObject(role, "reasoning_effort");
	cJSON_AddNullToObject(role, "timeout_sec");
	cJSON_AddNullToObject(role, "idle_timeout_sec");
	cJSON_AddNullToObject(role, "skills_dir");
	cJSON_AddNullToObject(role, "capabilities");
	cJSON_AddArrayToObject(role, "env_keys");
	cJSON *turns = cJSON_AddArrayToObject(sc, "turns");
	cJSON *turn = cJSON_CreateObject();
	cJSON_AddItemToArray(turns, turn);
	cJSON_AddStringToObject(turn, "role", "agent");
	cJSON_AddBoolToObject(turn, "has_prompt", false);
	return list;
}

static void add_skill_keys(const struct local_trial *t, cJSON *o)
{
	bool with = !strcmp(t->o->skill_mode, "with-skill");
	cJSON_AddStringToObject(o, "skill_mode", t->o->skill_mode);
	cJSON_AddStringToObject(o, "skill_source", t->box.skill_source);
	json_set_str(o, "requested_skills_dir", t->o->skills_dir);
	json_set_str(o, "effective_skills_dir", t->box.effective_skills);
	json_set_str(o, "skills_sandbox_dir", with ? "/skills" : NULL);
	cJSON_AddBoolToObject(o, "include_task_skills", !strcmp(t->box.skill_source, "task_bundled"));
}

static void add_idle_timeout(cJSON *o, const struct local_opts *opt)
{
	if (opt->idle_timeout > 0)
		cJSON_AddNumberToObject(o, "agent_idle_timeout_sec", opt->idle_timeout);
	else
		cJSON_AddNullToObject(o, "agent_idle_timeout_sec");
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

static cJSON *config_override(const cJSON *override)
{
	cJSON *co = cJSON_CreateObject();
	cJSON *keys = cJSON_AddArrayToObject(co, "keys");
	for (const cJSON *k = override->child; k; k = k->next)
		cJSON_AddItemToArray(keys, cJSON_CreateString(k->string));
	cJSON_AddItemToObject(co, "patch", cJSON_Duplicate(override, true));
	return co;
}

/* What only this runner knows (extra keys; BenchFlow readers ignore them). */
static cJSON *local_keys(const struct local_trial *t)
{
	cJSON *l = cJSON_CreateObject();
	static const char *const names[] = { [SANDBOX_BWRAP] = "bubblewrap", [SANDBOX_NONE] = "none" };
	cJSON_AddStringToObject(l, "sandbox", t->box.mode == SANDBOX_CONTAINER ? t->box.engine->name : names[t->box.mode]);
	/* whether the trial ran in the task's own environment (docker) or one missing its RUN/ENV steps */
	cJSON_AddStringToObject(l, "environment", t->box.unreproduced.n ? "not_reproduced" : "reproduced");
	cJSON *unrep = cJSON_AddArrayToObject(l, "dockerfile_not_reproduced");
	for (size_t i = 0; i < t->box.unreproduced.n; i++)
		cJSON_AddItemToArray(unrep, cJSON_CreateString(t->box.unreproduced.v[i]));
	json_set_str(l, "image", t->box.image_tag);
	json_set_str(l, "image_id", t->box.image);
	cJSON_AddStringToObject(l, "agent_network", !t->box.share_net ? "none+model-relay"
						    : t->box.mode == SANDBOX_CONTAINER ? "default+model-relay" : "host");
	cJSON_AddStringToObject(l, "verifier_network", t->box.mode == SANDBOX_CONTAINER ? "the agent's container"
						       : t->task.verifier_network ? "host" : "none");
	cJSON_AddStringToObject(l, "workdir", t->task.workdir);
	cJSON_AddStringToObject(l, "harness_file", t->h.file);
	cJSON *cmd = cJSON_AddArrayToObject(l, "acp_command");
	for (size_t i = 0; i < t->h.argv.n; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(t->h.argv.v[i]));
	json_set_str(l, "harness_program", t->box.program);
	cJSON_AddNumberToObject(l, "verifier_timeout_sec", t->task.verifier_timeout);
	cJSON_AddNumberToObject(l, "dockerfile_copies", (double)t->task.ncopies);
	cJSON_AddNumberToObject(l, "dockerfile_skill_copies_dropped", t->task.skill_copies_dropped);
	cJSON *ign = cJSON_AddArrayToObject(l, "dockerfile_ignored");
	for (size_t i = 0; t->box.mode != SANDBOX_CONTAINER && i < t->task.ignored.n; i++)
		cJSON_AddItemToArray(ign, cJSON_CreateString(t->task.ignored.v[i]));
	return l;
}

int benchflow_write_config(const struct local_trial *t, struct err *e)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "task_path", t->task.name);
	cJSON_AddStringToObject(c, "agent", t->h.name);
	cJSON_AddStringToObject(c, "model", t->o->model);
	cJSON_AddNullToObject(c, "reasoning_effort");
	cJSON_AddStringToObject(c, "environment", "local");
	cJSON_AddStringToObject(c, "acp_transport", "stdio");
	cJSON_AddNullToObject(c, "environment_manifest");
	add_skill_keys(t, c);
	cJSON_AddStringToObject(c, "sandbox_user", "root");
	cJSON_AddNullToObject(c, "sandbox_locked_paths");
	cJSON_AddNullToObject(c, "sandbox_setup_timeout");
	cJSON_AddBoolToObject(c, "skip_install", true);
	cJSON_AddNullToObject(c, "agent_install_timeout");
	cJSON_AddNullToObject(c, "context_root");
	cJSON_AddNullToObject(c, "base_image_override");
	cJSON_AddNumberToObject(c, "timeout_sec", t->task.agent_timeout);
	cJSON_AddNumberToObject(c, "concurrency", 1);
	add_idle_timeout(c, t->o);
	cJSON_AddStringToObject(c, "started_at", t->clock.started_at);
	cJSON_AddItemToObject(c, "agent_env", agent_env_keys(t->o));
	cJSON_AddItemToObject(c, "scenes", scenes(t));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "loop"), "strategy", "single-shot");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "usage_tracking"), "requested", "auto");
	if (t->o->override)
		cJSON_AddItemToObject(c, "config_override", config_override(t->o->override));
	cJSON_AddItemToObject(c, "local", local_keys(t));
	char *p = path_join(t->paths.dir, "config.json");
	int r = write_py(p, c, 2, e);
	free(p);
	cJSON_Delete(c);
	return r;
}

/* ---- result.json ---- */

/* What result.json says of the trajectory. */
struct traj_facts {
	int tools, skills;
	bool partial;        /* the agent ran but never answered the prompt */
	const char *source;  /* "acp", "partial_acp", NULL: no lines */
	const char *usage;   /* usage_source */
};

static struct traj_facts traj_facts(const struct local_trial *t)
{
	const struct acp_result *a = &t->agent.acp;
	bool has_lines = a->traj.lines && a->traj.lines->child;
	struct traj_facts f = {
		.tools = acp_traj_tool_calls(&a->traj),
		.skills = acp_traj_skill_calls(&a->traj),
		.partial = t->agent.ran && has_lines && !a->prompt_answered,
		.usage = a->usage_known ? "agent_native_acp" : "unavailable",
	};
	f.source = has_lines ? (f.partial ? "partial_acp" : "acp") : NULL;
	return f;
}

static void count_type(cJSON *counts, const char *key)
{
	json_set_num(counts, key, json_num(counts, key, 0) + 1);
}

static cJSON *trajectory_summary(const struct acp_result *a, const struct traj_facts *f)
{
	int steps = 0, tools = 0, users = 0, msgs = 0, thoughts = 0;
	cJSON *types = cJSON_CreateObject(), *statuses = cJSON_CreateObject();
	for (cJSON *l = a->traj.lines ? a->traj.lines->child : NULL; l; l = l->next) {
		const char *ty = json_str(l, "type");
		steps++;
		tools += !strcmp(ty, "tool_call");
		users += !strcmp(ty, "user_message");
		msgs += !strcmp(ty, "agent_message");
		thoughts += !strcmp(ty, "agent_thought");
		if (!strcmp(ty, "tool_call"))
			count_type(statuses, json_str(l, "status"));
		count_type(types, ty);
	}
	cJSON *s = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "steps", steps);
	cJSON_AddNumberToObject(s, "tool_call_steps", tools);
	cJSON_AddNumberToObject(s, "user_message_steps", users);
	cJSON_AddNumberToObject(s, "agent_message_steps", msgs);
	cJSON_AddNumberToObject(s, "agent_thought_steps", thoughts);
	cJSON_AddNumberToObject(s, "other_steps", steps - tools - users - msgs - thoughts);
	cJSON_AddItemToObject(s, "event_type_counts", types);
	cJSON_AddItemToObject(s, "tool_call_status_counts", statuses);
	cJSON_AddBoolToObject(s, "partial_trajectory", f->partial);
	json_set_str(s, "trajectory_source", f->source);
	return s;
}

static cJSON *timing(const struct local_trial *t)
{
	cJSON *o = cJSON_CreateObject();
	pyjson_add_float(o, "environment_setup", benchflow_round(t->clock.env));
	if (t->agent.ran) {
		pyjson_add_float(o, "agent_setup", benchflow_round(t->agent.acp.setup_sec));
		pyjson_add_float(o, "agent_execution", benchflow_round(t->agent.acp.exec_sec));
	}
	if (t->verdict.ran)
		pyjson_add_float(o, "verifier", benchflow_round(t->verdict.seconds));
	pyjson_add_float(o, "total", benchflow_round(now_mono() - t->clock.start));
	return o;
}

static cJSON *agent_result(const struct acp_result *a, const struct traj_facts *f)
{
	cJSON *ar = cJSON_CreateObject();
	cJSON_AddNumberToObject(ar, "n_tool_calls", f->tools);
	cJSON_AddNumberToObject(ar, "n_skill_invocations", f->skills);
	cJSON_AddNumberToObject(ar, "n_prompts", a->handshake_done ? 1 : 0);
	cJSON_AddNumberToObject(ar, "n_input_tokens", a->in_tokens);
	cJSON_AddNumberToObject(ar, "n_output_tokens", a->out_tokens);
	cJSON_AddNumberToObject(ar, "n_cache_read_tokens", a->cache_read_tokens);
	cJSON_AddNumberToObject(ar, "n_cache_creation_tokens", a->cache_write_tokens);
	cJSON_AddNumberToObject(ar, "total_tokens", a->total_tokens);
	cJSON_AddNullToObject(ar, "cost_usd");
	cJSON_AddStringToObject(ar, "usage_source", f->usage);
	cJSON_AddNullToObject(ar, "price_source");
	return ar;
}

static cJSON *final_metrics(const struct acp_result *a)
{
	cJSON *fm = cJSON_CreateObject();
	cJSON_AddNumberToObject(fm, "total_prompt_tokens", a->in_tokens);
	cJSON_AddNumberToObject(fm, "total_completion_tokens", a->out_tokens);
	cJSON_AddNumberToObject(fm, "total_cached_tokens", a->cache_read_tokens);
	cJSON_AddNullToObject(fm, "total_cost_usd");
	return fm;
}

static cJSON *usage_tracking(const struct acp_result *a, const struct traj_facts *f)
{
	cJSON *ut = cJSON_CreateObject();
	cJSON_AddStringToObject(ut, "requested", "auto");
	cJSON_AddStringToObject(ut, "status", a->usage_known ? "enabled" : "unavailable");
	cJSON_AddStringToObject(ut, "environment", "local");
	cJSON_AddStringToObject(ut, "endpoint_kind", a->usage_known ? "agent_native" : "none");
	cJSON_AddStringToObject(ut, "usage_source", f->usage);
	return ut;
}

static cJSON *idle_timeout_info(const struct local_trial *t, const struct traj_facts *f)
{
	const struct acp_result *a = &t->agent.acp;
	if (!t->agent.ran || a->status != ACP_IDLE)
		return cJSON_CreateNull();
	cJSON *idle = cJSON_CreateObject();
	cJSON_AddStringToObject(idle, "reason", "idle_timeout");
	pyjson_add_float(idle, "idle_timeout_sec", t->o->idle_timeout);
	pyjson_add_float(idle, "idle_duration_sec", benchflow_round(a->idle_sec));
	pyjson_add_float(idle, "wall_clock_elapsed_sec", benchflow_round(a->exec_sec));
	cJSON_AddNumberToObject(idle, "n_tool_calls", f->tools);
	return idle;
}

static cJSON *agent_timeout_info(const struct local_trial *t, const struct traj_facts *f)
{
	const struct acp_result *a = &t->agent.acp;
	if (!t->agent.ran || a->status != ACP_TIMEOUT)
		return cJSON_CreateNull();
	cJSON *timeout = cJSON_CreateObject();
	cJSON_AddStringToObject(timeout, "reason", "wall_clock_timeout");
	pyjson_add_float(timeout, "timeout_sec", t->task.agent_timeout);
	cJSON_AddNumberToObject(timeout, "n_tool_calls", f->tools);
	cJSON_AddItemToObject(timeout, "pending_tool_call_ids", acp_traj_pending(&a->traj));
	cJSON_AddStringToObject(timeout, "endpoint_kind", a->usage_known ? "agent_native" : "none");
	cJSON_AddStringToObject(timeout, "usage_source", f->usage);
	return timeout;
}

static cJSON *copy_or_null(const cJSON *v)
{
	return v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
}

/* The outcome keys: rewards, errors and their diagnostics. */
static void add_outcome(cJSON *r, const struct local_trial *t, const struct traj_facts *f)
{
	json_set_str(r, "error", t->agent.error);
	json_set_str(r, "error_category", t->agent.category);
	json_set_str(r, "verifier_error", t->verdict.error);
	json_set_str(r, "verifier_error_category", t->verdict.category);
	cJSON_AddNullToObject(r, "export_error");
	cJSON_AddItemToObject(r, "idle_timeout_info", idle_timeout_info(t, f));
	cJSON_AddItemToObject(r, "agent_timeout_info", agent_timeout_info(t, f));
	cJSON_AddItemToObject(r, "sandbox_startup_info", copy_or_null(t->agent.sandbox_info));
	cJSON_AddItemToObject(r, "transport_error_info", copy_or_null(t->agent.transport_info));
	cJSON_AddItemToObject(r, "verifier_timeout_info", copy_or_null(t->verdict.timeout_info));
	cJSON_AddNullToObject(r, "api_error_info");
	cJSON_AddNullToObject(r, "suspected_api_error_info");
}

/* result.json, in BenchFlow's key order; tm is its timing. */
static cJSON *result_json(const struct local_trial *t, const cJSON *tm)
{
	const struct acp_result *a = &t->agent.acp;
	struct traj_facts f = traj_facts(t);
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "task_name", t->task.name);
	cJSON_AddStringToObject(r, "rollout_name", t->paths.rollout);
	cJSON_AddItemToObject(r, "rewards", copy_or_null(t->verdict.rewards));
	cJSON_AddStringToObject(r, "agent", t->h.name);
	cJSON_AddStringToObject(r, "agent_name", a->agent_name ? a->agent_name : "");
	cJSON_AddStringToObject(r, "model", t->o->model);
	add_skill_keys(t, r);
	cJSON_AddNumberToObject(r, "n_tool_calls", f.tools);
	cJSON_AddNumberToObject(r, "n_skill_invocations", f.skills);
	cJSON_AddNumberToObject(r, "n_prompts", a->handshake_done ? 1 : 0);
	cJSON_AddItemToObject(r, "agent_result", agent_result(a, &f));
	cJSON_AddItemToObject(r, "final_metrics", final_metrics(a));
	cJSON_AddItemToObject(r, "trajectory_summary", trajectory_summary(a, &f));
	cJSON_AddItemToObject(r, "usage_tracking", usage_tracking(a, &f));
	add_outcome(r, t, &f);
	cJSON_AddBoolToObject(r, "partial_trajectory", f.partial);
	json_set_str(r, "trajectory_source", f.source);
	cJSON_AddStringToObject(r, "started_at", t->clock.started_at);
	char fin[32];
	benchflow_time(now_wall(), fin);
	cJSON_AddStringToObject(r, "finished_at", fin);
	cJSON_AddItemToObject(r, "timing", cJSON_Duplicate(tm, true));
	cJSON_AddItemToObject(r, "scenes", scenes(t));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "loop"), "strategy", "single-shot");
	cJSON_AddNullToObject(r, "sandbox_id");
	return r;
}

static int write_in(const struct local_trial *t, const char *rel, const void *data, size_t len, struct err *e)
{
	char *p = path_join(t->paths.dir, rel);
	int r = fs_write_atomic(p, data, len, 0644, e);
	free(p);
	return r;
}

static int write_json_in(const struct local_trial *t, const char *rel, const cJSON *v, int indent, struct err *e)
{
	char *p = path_join(t->paths.dir, rel);
	int r = write_py(p, v, indent, e);
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

static int write_prompts(const struct local_trial *t, struct err *e)
{
	cJSON *prompts = cJSON_CreateArray();
	if (t->agent.acp.handshake_done)
		cJSON_AddItemToArray(prompts, cJSON_CreateString(t->task.instruction));
	int r = write_json_in(t, "prompts.json", prompts, -1, e);
	cJSON_Delete(prompts);
	return r;
}

/* rewards.jsonl: the verifier's terminal reward event (scored trials only). */
static int write_rewards(const struct local_trial *t, struct err *e)
{
	if (!t->verdict.rewards)
		return 0;
	char ts[32];
	iso_time(now_wall(), ts);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "ts", ts);
	cJSON_AddStringToObject(ev, "type", "terminal");
	cJSON_AddStringToObject(ev, "source", "verifier");
	cJSON_AddItemToObject(ev, "value", cJSON_Duplicate(json_get(t->verdict.rewards, "reward"), true));
	cJSON_AddStringToObject(ev, "tag", "reward");
	cJSON_AddNullToObject(ev, "step_index");
	cJSON_AddStringToObject(ev, "space", "output");
	cJSON_AddStringToObject(ev, "granularity", "terminal");
	cJSON_AddObjectToObject(ev, "meta");
	struct buf b = BUF_INIT;
	pyjson_print(ev, -1, &b);
	buf_addc(&b, '\n');
	int r = write_in(t, "rewards.jsonl", b.data, b.len, e);
	buf_free(&b);
	cJSON_Delete(ev);
	return r;
}

int benchflow_write_result(const struct local_trial *t, struct err *e)
{
	cJSON *tm = timing(t);
	cJSON *r = result_json(t, tm);
	int rc = write_trajectory(t, e);
	if (rc == 0)
		rc = write_prompts(t, e);
	if (rc == 0)
		rc = write_rewards(t, e);
	if (rc == 0)
		rc = write_json_in(t, "timing.json", tm, 2, e);
	if (rc == 0)
		rc = write_json_in(t, "result.json", r, 2, e); /* last: it says the rollout is whole */
	cJSON_Delete(tm);
	cJSON_Delete(r);
	return rc;
}

/* ---- summary.json ---- */

static const char *bucket(const cJSON *res)
{
	cJSON *rw = json_get(json_get(res, "rewards"), "reward");
	if (json_str(res, "verifier_error"))
		return "verifier_errored";
	if (cJSON_IsNumber(rw))
		return rw->valuedouble == 1.0 ? "passed" : "failed";
	return "errored";
}

static double mtime_of(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
}

/* The newest result.json of each task in the job, as bench counts them:
 * an object task -> result. */
static cJSON *latest_results(const char *job_dir, struct err *e)
{
	struct strlist names = STRLIST_INIT;
	if (fs_list_names(job_dir, &names, e) < 0)
		return NULL;
	cJSON *best = cJSON_CreateObject(), *mtimes = cJSON_CreateObject();
	for (size_t i = 0; i < names.n; i++) {
		char *f = xasprintf("%s/%s/result.json", job_dir, names.v[i]);
		double mt = mtime_of(f);
		struct err ignore;
		cJSON *res = mt >= 0 ? json_read_file(f, &ignore) : NULL;
		const char *task = json_str(res, "task_name");
		if (task && (!json_get(mtimes, task) || json_num(mtimes, task, 0) <= mt)) {
			json_set_num(mtimes, task, mt);
			json_set(best, task, res);
			res = NULL;
		}
		cJSON_Delete(res);
		free(f);
	}
	strlist_free(&names);
	cJSON_Delete(mtimes);
	return best;
}

/* The job's counts over its latest results. */
struct tally {
	int total, passed, failed, errored, verrored, idle, skills, tools, maxtools;
	double rsum, rn, tokens_in, tokens_out, tokens, secs;
	cJSON *cats, *vcats; /* category -> count */
};

static void tally_one(struct tally *s, const cJSON *res)
{
	s->total++;
	const char *b = bucket(res);
	s->passed += !strcmp(b, "passed");
	s->failed += !strcmp(b, "failed");
	s->errored += !strcmp(b, "errored");
	s->verrored += !strcmp(b, "verifier_errored");
	cJSON *rw = json_get(json_get(res, "rewards"), "reward");
	if (cJSON_IsNumber(rw)) {
		s->rsum += rw->valuedouble;
		s->rn++;
	}
	const char *cat = json_str(res, "error_category"), *vcat = json_str(res, "verifier_error_category");
	if (cat)
		count_type(s->cats, cat);
	if (vcat)
		count_type(s->vcats, vcat);
	s->idle += cat && !strcmp(cat, "idle_timeout");
	int nt = (int)json_num(res, "n_tool_calls", 0);
	s->tools += nt;
	s->maxtools = nt > s->maxtools ? nt : s->maxtools;
	s->skills += (int)json_num(res, "n_skill_invocations", 0);
	if (cJSON_IsNumber(rw) && !json_str(res, "error") && !json_str(res, "verifier_error")) {
		cJSON *ar = json_get(res, "agent_result");
		s->tokens_in += json_num(ar, "n_input_tokens", 0);
		s->tokens_out += json_num(ar, "n_output_tokens", 0);
		s->tokens += json_num(ar, "total_tokens", 0);
	}
	s->secs += json_num(json_get(res, "timing"), "total", 0);
}

/* A category table, or null when empty (as bench writes it); takes counts. */
static void add_categories(cJSON *s, const char *key, cJSON *counts)
{
	if (counts->child) {
		cJSON_AddItemToObject(s, key, counts);
	} else {
		cJSON_Delete(counts);
		cJSON_AddNullToObject(s, key);
	}
}

static void add_score(cJSON *s, const char *key, int passed, int of)
{
	double ratio = of > 0 ? (double)passed / of : 0;
	char pct[32], ratio_key[64];
	snprintf(pct, sizeof pct, "%.1f%%", ratio * 100);
	snprintf(ratio_key, sizeof ratio_key, "%s_ratio", key);
	cJSON_AddStringToObject(s, key, pct);
	pyjson_add_float(s, ratio_key, ratio);
}

static void add_counts(cJSON *s, struct tally *c)
{
	cJSON_AddNumberToObject(s, "total", c->total);
	cJSON_AddNumberToObject(s, "passed", c->passed);
	cJSON_AddNumberToObject(s, "failed", c->failed);
	cJSON_AddNumberToObject(s, "errored", c->errored);
	cJSON_AddNumberToObject(s, "pass", c->passed);
	cJSON_AddNumberToObject(s, "fail", c->failed);
	cJSON_AddNumberToObject(s, "error", c->errored);
	cJSON_AddNumberToObject(s, "verifier_errored", c->verrored);
	cJSON_AddNumberToObject(s, "idle_timeout", c->idle);
	add_categories(s, "error_categories", c->cats);
	add_categories(s, "verifier_error_categories", c->vcats);
	c->cats = c->vcats = NULL;
	add_score(s, "score", c->passed, c->total);
	add_score(s, "score_excl_errors", c->passed, c->total - c->errored - c->verrored);
	if (c->rn > 0)
		pyjson_add_float(s, "mean_reward", c->rsum / c->rn);
	else
		cJSON_AddNullToObject(s, "mean_reward");
}

static void add_usage(cJSON *s, const struct tally *c)
{
	pyjson_add_float(s, "elapsed_sec", benchflow_round(c->secs));
	cJSON_AddNumberToObject(s, "total_skill_invocations", c->skills);
	pyjson_add_float(s, "avg_skill_invocations", c->total ? (double)c->skills / c->total : 0);
	cJSON_AddNumberToObject(s, "total_input_tokens", c->tokens_in);
	cJSON_AddNumberToObject(s, "total_output_tokens", c->tokens_out);
	cJSON_AddNumberToObject(s, "total_tokens", c->tokens);
	cJSON_AddNullToObject(s, "total_cost_usd");
	cJSON_AddNumberToObject(s, "total_tool_calls", c->tools);
	pyjson_add_float(s, "avg_tool_calls_per_task", c->total ? (double)c->tools / c->total : 0);
	cJSON_AddNumberToObject(s, "max_tool_calls_per_task", c->maxtools);
	pyjson_add_float(s, "total_time_sec", benchflow_round(c->secs));
}

static cJSON *summary_json(const struct local_trial *t, struct tally *c)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "job_name", t->paths.job_name);
	cJSON_AddStringToObject(s, "agent", t->h.name);
	cJSON_AddStringToObject(s, "model", t->o->model);
	cJSON_AddStringToObject(s, "environment", "local");
	cJSON_AddNumberToObject(s, "concurrency", 1);
	add_idle_timeout(s, t->o);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "usage_tracking"), "requested", "auto");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "loop"), "strategy", "single-shot");
	add_counts(s, c);
	add_usage(s, c);
	return s;
}

int benchflow_write_summary(const struct local_trial *t, struct err *e)
{
	cJSON *best = latest_results(t->paths.job_dir, e);
	if (!best)
		return -1;
	struct tally c = { .cats = cJSON_CreateObject(), .vcats = cJSON_CreateObject() };
	for (const cJSON *res = best->child; res; res = res->next)
		tally_one(&c, res);
	cJSON_Delete(best);
	cJSON *s = summary_json(t, &c);
	char *p = path_join(t->paths.job_dir, "summary.json");
	int rc = write_py(p, s, 2, e);
	free(p);
	if (rc == 0) {
		p = path_join(t->paths.jobs, "summary.json");
		rc = write_py(p, s, 2, e);
		free(p);
	}
	cJSON_Delete(s);
	return rc;
}
