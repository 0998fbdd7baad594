#include "optimize/deepfiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/proc.h"
#include "compile/profile.h"
#include "optimize/skillpkg.h"

char *deep_at(const struct deep_opts *o, const char *rel)
{
	return path_join(o->run, rel);
}

char *deep_round_file(const struct deep_opts *o, int round, const char *name)
{
	char *rel = xasprintf("artifacts/deep/round-%d/%s", round, name);
	char *p = deep_at(o, rel);
	free(rel);
	return p;
}

char *deep_look_path(const struct deep_opts *o, int round, int look)
{
	char name[32];
	snprintf(name, sizeof name, "look-%03d.json", look);
	return deep_round_file(o, round, name);
}

cJSON *deep_read(const char *path, const char *hint, struct err *e)
{
	struct err r = { 0 };
	cJSON *v = json_read_file(path, &r);
	if (!v)
		err_set(e, ERR_INPUT, "%s (%s)", r.msg, hint);
	return v;
}

int deep_write(const char *path, const cJSON *v, struct err *e)
{
	return fs_mkdirs_parent(path, e) < 0 || json_write_if_changed(path, v, e) < 0 ? -1 : 0;
}

int deep_budget(const char *profile, long *budget, struct err *e)
{
	*budget = 5000;
	if (!profile)
		return 0;
	cJSON *res = deep_read(profile, "--profile is skillc-profile's profile.json", e);
	if (!res)
		return -1;
	*budget = profile_budget_tokens(json_get(res, "profile"));
	cJSON_Delete(res);
	return 0;
}

cJSON *deep_read_best(const struct deep_opts *o, int round, struct err *e)
{
	char *p = deep_round_file(o, round, "best.json");
	cJSON *b = deep_read(p, "the round before has not been decided: run make", e);
	free(p);
	return b;
}

char *deep_instruction(const struct deep_opts *o, struct err *e)
{
	if (!o->task)
		return xstrdup("");
	char *p = path_join(o->task, "instruction.md");
	struct buf b = BUF_INIT;
	int rc = fs_read_limited(p, &b, e);
	free(p);
	if (rc < 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}

int deep_skill_hashes(const struct deep_opts *o, const char *root_rel, hash_hex tree, hash_hex md, struct err *e)
{
	char *root = deep_at(o, root_rel);
	struct pkgset s = { 0 };
	int rc = pkgset_load(root, NULL, &s, e) < 0 || hash_tree(root, tree, e) < 0 ? -1 : 0;
	if (rc == 0)
		pkgset_md_hash(&s, md);
	pkgset_free(&s);
	free(root);
	return rc;
}

cJSON *deep_records(const struct deep_opts *o, const char *dir_rel, long n, struct err *e)
{
	cJSON *list = cJSON_CreateArray();
	for (long i = 1; i <= n && list; i++) {
		char t[TRIAL_NAME_MAX];
		char *rel = xasprintf("%s/%s", dir_rel, trial_name(i, t));
		char *dir = deep_at(o, rel);
		cJSON *r = record_load(dir, rel, (int)i);
		if (r) {
			cJSON_AddItemToArray(list, r);
		} else {
			err_set(e, ERR_INPUT, "trial '%s' has no trial.json: its evaluation has not run (make runs it)", dir);
			cJSON_Delete(list);
			list = NULL;
		}
		free(dir);
		free(rel);
	}
	return list;
}

cJSON *deep_best_doc(const struct deep_opts *o, int round, const char *source, const char *skill_rel, cJSON *trials,
		     int accepted_round, struct err *e)
{
	hash_hex tree, md;
	if (deep_skill_hashes(o, skill_rel, tree, md, e) < 0) {
		cJSON_Delete(trials);
		return NULL;
	}
	cJSON *b = cJSON_CreateObject();
	json_set_num(b, "format", 1);
	json_set_num(b, "round", round);
	json_set_str(b, "source", source);
	json_set_str(b, "skill", skill_rel);
	json_set_str(b, "skill_hash", tree);
	json_set_str(b, "skill_md_hash", md);
	json_set(b, "accepted_round", accepted_round ? cJSON_CreateNumber(accepted_round) : cJSON_CreateNull());
	json_set(b, "trials", trials);
	return b;
}

int deep_best_traces(const struct deep_opts *o, const cJSON *best, struct trace_set *ts, struct err *e)
{
	memset(ts, 0, sizeof *ts);
	const cJSON *list = json_get(best, "trials");
	for (const cJSON *r = list ? list->child : NULL; r; r = r->next) {
		if (!json_bool(r, "needed", false))
			continue;
		char *dir = deep_at(o, json_str(r, "trial"));
		char *p = path_join(dir, "trial.json");
		cJSON *t = deep_read(p, "a trial of the best skill is missing: make clean-stage its stage and run make", e);
		free(p);
		if (!t) {
			free(dir);
			return -1;
		}
		ts->v = xrealloc(ts->v, (ts->n + 1) * sizeof *ts->v);
		ts->v[ts->n++] = (struct trace){ .name = xstrdup(path_base(dir)), .dir = dir,
						  .trial = t, .index = (int)json_num(r, "index", 0),
						  .scorable = json_bool(r, "scored", false) };
	}
	return 0;
}

int deep_need_model(const struct deep_opts *o, struct err *e)
{
	if (!o->model || !*o->model)
		return err_set(e, ERR_INPUT,
			       "the deep stage asks the compiler's model: set EXTERNAL_MODEL=provider/model-id (or --model)");
	return 0;
}

int deep_run_command(char **cmd, struct err *e)
{
	struct proc_spec spec = { .argv = cmd, .stdin_fd = -1, .tee = { -1, -1 } };
	struct proc_result res;
	if (proc_run(&spec, &res, e) < 0)
		return -1;
	return res.interrupted ? 128 + res.interrupted : res.exit_code;
}
