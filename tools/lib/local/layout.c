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

static bool is_secret_name(const char *name)
{
	static const char *const marks[] = { "KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS", "COOKIE",
					     "AUTHORIZATION", "AUTH", "BEARER", "SESSION" };
	char up[256];
	size_t i = 0;
	for (; name[i] && i < sizeof up - 1; i++)
		up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	up[i] = '\0';
	for (size_t k = 0; k < ARRAY_LEN(marks); k++)
		if (strstr(up, marks[k]))
			return true;
	return false;
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
	if (fs_mkdirs(t->o->jobs_dir, e) < 0)
		return -1;
	char real[PATH_MAX];
	if (!realpath(t->o->jobs_dir, real))
		return err_set(e, ERR_WORK, "cannot resolve '%s':", t->o->jobs_dir);
	t->jobs = xstrdup(real); /* binds need absolute paths */
	const char *jobs = t->jobs;
	/* like bench: an existing job folder is resumed (the alphabetically last) */
	struct fs_tree tree = { 0 };
	if (fs_list_tree(jobs, &tree, e) < 0)
		return -1;
	char *last = NULL;
	for (size_t i = 0; i < tree.n; i++) {
		const char *p = tree.v[i].path;
		if (S_ISDIR(tree.v[i].mode) && !strchr(p, '/') && p[0] != '.' && strlen(p) == 20 && p[10] == '_') {
			free(last);
			last = xstrdup(p);
		}
	}
	fs_tree_free(&tree);
	if (!last) {
		char name[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(name, sizeof name, "%Y-%m-%d__%H-%M-%S", &tm);
		last = xstrdup(name);
	}
	t->job_name = last;
	t->job_dir = path_join(jobs, last);
	return fs_mkdirs(t->job_dir, e);
}

char *benchflow_completed_rollout(const struct local_trial *t)
{
	struct fs_tree tree = { 0 };
	struct err e;
	char *found = NULL;
	if (fs_list_tree(t->job_dir, &tree, &e) < 0)
		return NULL;
	size_t n = strlen(t->task.name);
	for (size_t i = 0; i < tree.n && !found; i++) {
		const char *p = tree.v[i].path;
		if (strncmp(p, t->task.name, n) || strncmp(p + n, "__", 2) || strcmp(p + n + 10, "/result.json"))
			continue;
		char *f = path_join(t->job_dir, p);
		cJSON *res = json_read_file(f, &e);
		cJSON *rw = json_get(res, "rewards");
		if ((rw && !cJSON_IsNull(rw)) || json_str(res, "verifier_error"))
			found = xstrndup(p, n + 10);
		cJSON_Delete(res);
		free(f);
	}
	fs_tree_free(&tree);
	return found;
}

int benchflow_make_rollout(struct local_trial *t, struct err *e)
{
	uint32_t rnd = 0;
	if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		rnd = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	t->rollout = xasprintf("%s__%08x", t->task.name, rnd);
	t->dir = path_join(t->job_dir, t->rollout);
	const char *subs[] = { "agent", "verifier", "artifacts", "trajectory" };
	for (size_t i = 0; i < ARRAY_LEN(subs); i++) {
		char *p = path_join(t->dir, subs[i]);
		int r = fs_mkdirs(p, e);
		free(p);
		if (r < 0)
			return -1;
	}
	char *agent_name = xstrdup(t->h.name);
	for (char *s = agent_name; *s; s++)
		if (*s == '-')
			*s = '_';
	char *log = xasprintf("agent/%s.txt", agent_name);
	t->agent_log = path_join(t->dir, log);
	free(log);
	free(agent_name);
	return 0;
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
	cJSON_AddStringToObject(o, "skill_source", t->skill_source);
	json_set_str(o, "requested_skills_dir", t->o->skills_dir);
	json_set_str(o, "effective_skills_dir", t->effective_skills);
	json_set_str(o, "skills_sandbox_dir", with ? "/skills" : NULL);
	cJSON_AddBoolToObject(o, "include_task_skills", !strcmp(t->skill_source, "task_bundled"));
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
	if (t->o->idle_timeout > 0)
		cJSON_AddNumberToObject(c, "agent_idle_timeout_sec", t->o->idle_timeout);
	else
		cJSON_AddNullToObject(c, "agent_idle_timeout_sec");
	cJSON_AddStringToObject(c, "started_at", t->started_at);
	cJSON *env = cJSON_AddObjectToObject(c, "agent_env");
	for (size_t i = 0; i < t->o->agent_env.n; i++) {
		const char *kv = t->o->agent_env.v[i];
		char *name = xstrndup(kv, (size_t)(strchr(kv, '=') - kv));
		if (!is_secret_name(name))
			cJSON_AddStringToObject(env, name, strchr(kv, '=') + 1);
		free(name);
	}
	cJSON_AddItemToObject(c, "scenes", scenes(t));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "loop"), "strategy", "single-shot");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "usage_tracking"), "requested", "auto");
	if (t->o->override) {
		cJSON *co = cJSON_AddObjectToObject(c, "config_override");
		cJSON *keys = cJSON_AddArrayToObject(co, "keys");
		for (const cJSON *k = t->o->override->child; k; k = k->next)
			cJSON_AddItemToArray(keys, cJSON_CreateString(k->string));
		cJSON_AddItemToObject(co, "patch", cJSON_Duplicate(t->o->override, true));
	}
	/* what only this runner knows (extra keys; BenchFlow readers ignore them) */
	cJSON *l = cJSON_AddObjectToObject(c, "local");
	cJSON_AddStringToObject(l, "sandbox", t->mode == SANDBOX_BWRAP ? "bubblewrap" : "none");
	cJSON_AddStringToObject(l, "agent_network", t->share_net ? "host" : "none+model-relay");
	cJSON_AddStringToObject(l, "verifier_network", t->task.verifier_network ? "host" : "none");
	cJSON_AddStringToObject(l, "workdir", t->task.workdir);
	cJSON_AddStringToObject(l, "harness_file", t->h.file);
	cJSON *cmd = cJSON_AddArrayToObject(l, "acp_command");
	for (size_t i = 0; i < t->h.argv.n; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(t->h.argv.v[i]));
	json_set_str(l, "harness_program", t->program);
	cJSON_AddNumberToObject(l, "verifier_timeout_sec", t->task.verifier_timeout);
	cJSON_AddNumberToObject(l, "dockerfile_copies", (double)t->task.ncopies);
	cJSON_AddNumberToObject(l, "dockerfile_skill_copies_dropped", t->task.skill_copies_dropped);
	cJSON *ign = cJSON_AddArrayToObject(l, "dockerfile_ignored");
	for (size_t i = 0; i < t->task.ignored.n; i++)
		cJSON_AddItemToArray(ign, cJSON_CreateString(t->task.ignored.v[i]));
	char *p = path_join(t->dir, "config.json");
	int r = write_py(p, c, 2, e);
	free(p);
	cJSON_Delete(c);
	return r;
}

static cJSON *trajectory_summary(const struct local_trial *t, bool partial, const char *source)
{
	cJSON *s = cJSON_CreateObject();
	int steps = 0, tools = 0, users = 0, msgs = 0, thoughts = 0, other = 0;
	cJSON *types = cJSON_CreateObject(), *statuses = cJSON_CreateObject();
	for (cJSON *l = t->acp.traj.lines ? t->acp.traj.lines->child : NULL; l; l = l->next) {
		const char *ty = json_str(l, "type");
		steps++;
		if (!strcmp(ty, "tool_call")) {
			tools++;
			const char *st = json_str(l, "status");
			json_set_num(statuses, st, json_num(statuses, st, 0) + 1);
		} else if (!strcmp(ty, "user_message")) {
			users++;
		} else if (!strcmp(ty, "agent_message")) {
			msgs++;
		} else if (!strcmp(ty, "agent_thought")) {
			thoughts++;
		} else {
			other++;
		}
		json_set_num(types, ty, json_num(types, ty, 0) + 1);
	}
	cJSON_AddNumberToObject(s, "steps", steps);
	cJSON_AddNumberToObject(s, "tool_call_steps", tools);
	cJSON_AddNumberToObject(s, "user_message_steps", users);
	cJSON_AddNumberToObject(s, "agent_message_steps", msgs);
	cJSON_AddNumberToObject(s, "agent_thought_steps", thoughts);
	cJSON_AddNumberToObject(s, "other_steps", other);
	cJSON_AddItemToObject(s, "event_type_counts", types);
	cJSON_AddItemToObject(s, "tool_call_status_counts", statuses);
	cJSON_AddBoolToObject(s, "partial_trajectory", partial);
	json_set_str(s, "trajectory_source", source);
	return s;
}

static cJSON *timing(const struct local_trial *t)
{
	cJSON *o = cJSON_CreateObject();
	pyjson_add_float(o, "environment_setup", benchflow_round(t->t_env));
	if (t->ran_agent) {
		pyjson_add_float(o, "agent_setup", benchflow_round(t->acp.setup_sec));
		pyjson_add_float(o, "agent_execution", benchflow_round(t->acp.exec_sec));
	}
	if (t->t_verifier > 0)
		pyjson_add_float(o, "verifier", benchflow_round(t->t_verifier));
	pyjson_add_float(o, "total", benchflow_round(now_mono() - t->t_start));
	return o;
}

int benchflow_write_result(struct local_trial *t, struct err *e)
{
	const struct acp_result *a = &t->acp;
	int ntools = acp_traj_tool_calls(&a->traj), nskills = acp_traj_skill_calls(&a->traj);
	bool has_lines = a->traj.lines && a->traj.lines->child;
	bool partial = t->ran_agent && has_lines && !a->prompt_answered;
	const char *source = has_lines ? (partial ? "partial_acp" : "acp") : NULL;
	/* an agent timeout still gets the verifier's word; no reward then counts as 0 */
	if (!t->rewards && !t->verifier_error && t->error_category &&
	    (!strcmp(t->error_category, "timeout") || !strcmp(t->error_category, "idle_timeout")) && t->t_verifier > 0) {
		t->rewards = cJSON_CreateObject();
		pyjson_add_float(t->rewards, "reward", 0.0);
	}
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "task_name", t->task.name);
	cJSON_AddStringToObject(r, "rollout_name", t->rollout);
	cJSON_AddItemToObject(r, "rewards", t->rewards ? cJSON_Duplicate(t->rewards, true) : cJSON_CreateNull());
	cJSON_AddStringToObject(r, "agent", t->h.name);
	cJSON_AddStringToObject(r, "agent_name", a->agent_name ? a->agent_name : "");
	cJSON_AddStringToObject(r, "model", t->o->model);
	add_skill_keys(t, r);
	cJSON_AddNumberToObject(r, "n_tool_calls", ntools);
	cJSON_AddNumberToObject(r, "n_skill_invocations", nskills);
	cJSON_AddNumberToObject(r, "n_prompts", a->handshake_done ? 1 : 0);
	const char *usrc = a->usage_known ? "agent_native_acp" : "unavailable";
	cJSON *ar = cJSON_AddObjectToObject(r, "agent_result");
	cJSON_AddNumberToObject(ar, "n_tool_calls", ntools);
	cJSON_AddNumberToObject(ar, "n_skill_invocations", nskills);
	cJSON_AddNumberToObject(ar, "n_prompts", a->handshake_done ? 1 : 0);
	cJSON_AddNumberToObject(ar, "n_input_tokens", a->in_tokens);
	cJSON_AddNumberToObject(ar, "n_output_tokens", a->out_tokens);
	cJSON_AddNumberToObject(ar, "n_cache_read_tokens", a->cache_read_tokens);
	cJSON_AddNumberToObject(ar, "n_cache_creation_tokens", a->cache_write_tokens);
	cJSON_AddNumberToObject(ar, "total_tokens", a->total_tokens);
	cJSON_AddNullToObject(ar, "cost_usd");
	cJSON_AddStringToObject(ar, "usage_source", usrc);
	cJSON_AddNullToObject(ar, "price_source");
	cJSON *fm = cJSON_AddObjectToObject(r, "final_metrics");
	cJSON_AddNumberToObject(fm, "total_prompt_tokens", a->in_tokens);
	cJSON_AddNumberToObject(fm, "total_completion_tokens", a->out_tokens);
	cJSON_AddNumberToObject(fm, "total_cached_tokens", a->cache_read_tokens);
	cJSON_AddNullToObject(fm, "total_cost_usd");
	cJSON_AddItemToObject(r, "trajectory_summary", trajectory_summary(t, partial, source));
	cJSON *ut = cJSON_AddObjectToObject(r, "usage_tracking");
	cJSON_AddStringToObject(ut, "requested", "auto");
	cJSON_AddStringToObject(ut, "status", a->usage_known ? "enabled" : "unavailable");
	cJSON_AddStringToObject(ut, "environment", "local");
	cJSON_AddStringToObject(ut, "endpoint_kind", a->usage_known ? "agent_native" : "none");
	cJSON_AddStringToObject(ut, "usage_source", usrc);
	json_set_str(r, "error", t->error);
	json_set_str(r, "error_category", t->error_category);
	json_set_str(r, "verifier_error", t->verifier_error);
	json_set_str(r, "verifier_error_category", t->verifier_category);
	cJSON_AddNullToObject(r, "export_error");
	cJSON *idle = cJSON_CreateNull(), *timeout = cJSON_CreateNull();
	if (t->ran_agent && a->status == ACP_IDLE) {
		cJSON_Delete(idle);
		idle = cJSON_CreateObject();
		cJSON_AddStringToObject(idle, "reason", "idle_timeout");
		pyjson_add_float(idle, "idle_timeout_sec", t->o->idle_timeout);
		pyjson_add_float(idle, "idle_duration_sec", benchflow_round(a->idle_sec));
		pyjson_add_float(idle, "wall_clock_elapsed_sec", benchflow_round(a->exec_sec));
		cJSON_AddNumberToObject(idle, "n_tool_calls", ntools);
	}
	if (t->ran_agent && a->status == ACP_TIMEOUT) {
		cJSON_Delete(timeout);
		timeout = cJSON_CreateObject();
		cJSON_AddStringToObject(timeout, "reason", "wall_clock_timeout");
		pyjson_add_float(timeout, "timeout_sec", t->task.agent_timeout);
		cJSON_AddNumberToObject(timeout, "n_tool_calls", ntools);
		cJSON_AddItemToObject(timeout, "pending_tool_call_ids", acp_traj_pending(&a->traj));
		cJSON_AddStringToObject(timeout, "endpoint_kind", a->usage_known ? "agent_native" : "none");
		cJSON_AddStringToObject(timeout, "usage_source", usrc);
	}
	cJSON_AddItemToObject(r, "idle_timeout_info", idle);
	cJSON_AddItemToObject(r, "agent_timeout_info", timeout);
	cJSON_AddItemToObject(r, "sandbox_startup_info", t->sandbox_info ? cJSON_Duplicate(t->sandbox_info, true) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "transport_error_info", t->transport_info ? cJSON_Duplicate(t->transport_info, true) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "verifier_timeout_info",
			      t->verifier_timeout_info ? cJSON_Duplicate(t->verifier_timeout_info, true) : cJSON_CreateNull());
	cJSON_AddNullToObject(r, "api_error_info");
	cJSON_AddNullToObject(r, "suspected_api_error_info");
	cJSON_AddBoolToObject(r, "partial_trajectory", partial);
	json_set_str(r, "trajectory_source", source);
	cJSON_AddStringToObject(r, "started_at", t->started_at);
	char fin[32];
	benchflow_time(now_wall(), fin);
	cJSON_AddStringToObject(r, "finished_at", fin);
	cJSON *tm = timing(t);
	cJSON_AddItemToObject(r, "timing", cJSON_Duplicate(tm, true));
	cJSON_AddItemToObject(r, "scenes", scenes(t));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "loop"), "strategy", "single-shot");
	cJSON_AddNullToObject(r, "sandbox_id");

	int rc = 0;
	struct buf b = BUF_INIT;
	acp_traj_text(&a->traj, &b);
	char *p = path_join(t->dir, "trajectory/acp_trajectory.jsonl");
	rc = fs_write_atomic(p, b.data, b.len, 0644, e);
	free(p);
	if (rc == 0 && b.len) {
		buf_addc(&b, '\n');
		p = path_join(t->dir, "agent/acp_trajectory.jsonl");
		rc = fs_write_atomic(p, b.data, b.len, 0644, e);
		free(p);
	}
	buf_free(&b);
	if (rc == 0) {
		cJSON *prompts = cJSON_CreateArray();
		if (a->handshake_done)
			cJSON_AddItemToArray(prompts, cJSON_CreateString(t->task.instruction));
		p = path_join(t->dir, "prompts.json");
		rc = write_py(p, prompts, -1, e);
		free(p);
		cJSON_Delete(prompts);
	}
	if (rc == 0 && t->rewards) {
		char ts[32];
		iso_time(now_wall(), ts);
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "ts", ts);
		cJSON_AddStringToObject(ev, "type", "terminal");
		cJSON_AddStringToObject(ev, "source", "verifier");
		cJSON_AddItemToObject(ev, "value", cJSON_Duplicate(json_get(t->rewards, "reward"), true));
		cJSON_AddStringToObject(ev, "tag", "reward");
		cJSON_AddNullToObject(ev, "step_index");
		cJSON_AddStringToObject(ev, "space", "output");
		cJSON_AddStringToObject(ev, "granularity", "terminal");
		cJSON_AddObjectToObject(ev, "meta");
		struct buf lb = BUF_INIT;
		pyjson_print(ev, -1, &lb);
		buf_addc(&lb, '\n');
		p = path_join(t->dir, "rewards.jsonl");
		rc = fs_write_atomic(p, lb.data, lb.len, 0644, e);
		free(p);
		buf_free(&lb);
		cJSON_Delete(ev);
	}
	if (rc == 0) {
		p = path_join(t->dir, "timing.json");
		rc = write_py(p, tm, 2, e);
		free(p);
	}
	if (rc == 0) {
		p = path_join(t->dir, "result.json");
		rc = write_py(p, r, 2, e);
		free(p);
	}
	cJSON_Delete(tm);
	cJSON_Delete(r);
	return rc;
}

static const char *bucket(const cJSON *res)
{
	cJSON *rw = json_get(json_get(res, "rewards"), "reward");
	if (json_str(res, "verifier_error"))
		return "verifier_errored";
	if (cJSON_IsNumber(rw))
		return rw->valuedouble == 1.0 ? "passed" : "failed";
	return "errored";
}

int benchflow_write_summary(const struct local_trial *t, struct err *e)
{
	struct fs_tree tree = { 0 };
	if (fs_list_tree(t->job_dir, &tree, e) < 0)
		return -1;
	/* the newest result per task, as bench counts */
	cJSON *best = cJSON_CreateObject(), *mtimes = cJSON_CreateObject();
	for (size_t i = 0; i < tree.n; i++) {
		const char *p = tree.v[i].path;
		const char *slash = strchr(p, '/');
		if (!slash || strcmp(slash, "/result.json"))
			continue;
		char *f = path_join(t->job_dir, p);
		struct stat st;
		cJSON *res = stat(f, &st) == 0 ? json_read_file(f, e) : NULL;
		const char *task = json_str(res, "task_name");
		double mt = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
		if (task && (!json_get(mtimes, task) || json_num(mtimes, task, 0) <= mt)) {
			json_set(best, task, res);
			json_set_num(mtimes, task, mt);
			res = NULL;
		}
		cJSON_Delete(res);
		free(f);
	}
	fs_tree_free(&tree);
	int total = 0, passed = 0, failed = 0, errored = 0, verrored = 0, idle = 0, skills = 0, tools = 0, maxtools = 0;
	double rsum = 0, rn = 0, tokens_in = 0, tokens_out = 0, tokens = 0, secs = 0;
	cJSON *cats = cJSON_CreateObject(), *vcats = cJSON_CreateObject();
	for (cJSON *res = best->child; res; res = res->next) {
		total++;
		const char *b = bucket(res);
		passed += !strcmp(b, "passed");
		failed += !strcmp(b, "failed");
		errored += !strcmp(b, "errored");
		verrored += !strcmp(b, "verifier_errored");
		cJSON *rw = json_get(json_get(res, "rewards"), "reward");
		if (cJSON_IsNumber(rw)) {
			rsum += rw->valuedouble;
			rn++;
		}
		const char *cat = json_str(res, "error_category"), *vcat = json_str(res, "verifier_error_category");
		if (cat)
			json_set_num(cats, cat, json_num(cats, cat, 0) + 1);
		if (vcat)
			json_set_num(vcats, vcat, json_num(vcats, vcat, 0) + 1);
		idle += cat && !strcmp(cat, "idle_timeout");
		int nt = (int)json_num(res, "n_tool_calls", 0);
		tools += nt;
		maxtools = nt > maxtools ? nt : maxtools;
		skills += (int)json_num(res, "n_skill_invocations", 0);
		if (cJSON_IsNumber(rw) && !json_str(res, "error") && !json_str(res, "verifier_error")) {
			cJSON *ar = json_get(res, "agent_result");
			tokens_in += json_num(ar, "n_input_tokens", 0);
			tokens_out += json_num(ar, "n_output_tokens", 0);
			tokens += json_num(ar, "total_tokens", 0);
		}
		secs += json_num(json_get(res, "timing"), "total", 0);
	}
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "job_name", t->job_name);
	cJSON_AddStringToObject(s, "agent", t->h.name);
	cJSON_AddStringToObject(s, "model", t->o->model);
	cJSON_AddStringToObject(s, "environment", "local");
	cJSON_AddNumberToObject(s, "concurrency", 1);
	if (t->o->idle_timeout > 0)
		cJSON_AddNumberToObject(s, "agent_idle_timeout_sec", t->o->idle_timeout);
	else
		cJSON_AddNullToObject(s, "agent_idle_timeout_sec");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "usage_tracking"), "requested", "auto");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "loop"), "strategy", "single-shot");
	cJSON_AddNumberToObject(s, "total", total);
	cJSON_AddNumberToObject(s, "passed", passed);
	cJSON_AddNumberToObject(s, "failed", failed);
	cJSON_AddNumberToObject(s, "errored", errored);
	cJSON_AddNumberToObject(s, "pass", passed);
	cJSON_AddNumberToObject(s, "fail", failed);
	cJSON_AddNumberToObject(s, "error", errored);
	cJSON_AddNumberToObject(s, "verifier_errored", verrored);
	cJSON_AddNumberToObject(s, "idle_timeout", idle);
	if (cats->child)
		cJSON_AddItemToObject(s, "error_categories", cats);
	else {
		cJSON_Delete(cats);
		cJSON_AddNullToObject(s, "error_categories");
	}
	if (vcats->child)
		cJSON_AddItemToObject(s, "verifier_error_categories", vcats);
	else {
		cJSON_Delete(vcats);
		cJSON_AddNullToObject(s, "verifier_error_categories");
	}
	char pct[32];
	double ratio = total ? (double)passed / total : 0;
	snprintf(pct, sizeof pct, "%.1f%%", ratio * 100);
	cJSON_AddStringToObject(s, "score", pct);
	pyjson_add_float(s, "score_ratio", ratio);
	int scored = total - errored - verrored;
	double ratio_ex = scored > 0 ? (double)passed / scored : 0;
	snprintf(pct, sizeof pct, "%.1f%%", ratio_ex * 100);
	cJSON_AddStringToObject(s, "score_excl_errors", pct);
	pyjson_add_float(s, "score_excl_errors_ratio", ratio_ex);
	if (rn > 0)
		pyjson_add_float(s, "mean_reward", rsum / rn);
	else
		cJSON_AddNullToObject(s, "mean_reward");
	pyjson_add_float(s, "elapsed_sec", benchflow_round(secs));
	cJSON_AddNumberToObject(s, "total_skill_invocations", skills);
	pyjson_add_float(s, "avg_skill_invocations", total ? (double)skills / total : 0);
	cJSON_AddNumberToObject(s, "total_input_tokens", tokens_in);
	cJSON_AddNumberToObject(s, "total_output_tokens", tokens_out);
	cJSON_AddNumberToObject(s, "total_tokens", tokens);
	cJSON_AddNullToObject(s, "total_cost_usd");
	cJSON_AddNumberToObject(s, "total_tool_calls", tools);
	pyjson_add_float(s, "avg_tool_calls_per_task", total ? (double)tools / total : 0);
	cJSON_AddNumberToObject(s, "max_tool_calls_per_task", maxtools);
	pyjson_add_float(s, "total_time_sec", benchflow_round(secs));
	cJSON_Delete(best);
	cJSON_Delete(mtimes);
	char *p = path_join(t->job_dir, "summary.json");
	int rc = write_py(p, s, 2, e);
	free(p);
	if (rc == 0) {
		p = path_join(t->jobs, "summary.json");
		rc = write_py(p, s, 2, e);
		free(p);
	}
	cJSON_Delete(s);
	return rc;
}
