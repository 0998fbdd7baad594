/* fast_run (fast.h): the fast stage's four steps outside make, the seed's
 * standalone module, with its own record of what made the output. */
#include "optimize/fast.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/proc.h"
#include "base/versions.h"
#include "compile/profile.h"
#include "optimize/score.h"
#include "optimize/skillpkg.h"

/* The record of a standalone run: what made the files in the output. */
static cJSON *run_identity(const struct fast_opts *o, const char *skill_dir, struct err *e)
{
	cJSON *id = cJSON_CreateObject();
	hash_hex h;
	json_set_str(id, "version", V_FAST);
	int rc = hash_tree(o->traces, h, e);
	if (rc == 0) {
		json_set_str(id, "traces", h);
		rc = hash_tree(skill_dir, h, e);
	}
	if (rc == 0)
		json_set_str(id, "skill", h);
	if (rc == 0 && o->task) {
		char *p = path_join(o->task, "instruction.md");
		rc = hash_file(p, h, e);
		free(p);
		if (rc == 0)
			json_set_str(id, "instruction", h);
	}
	if (rc < 0) {
		cJSON_Delete(id);
		return NULL;
	}
	cJSON *cfg = json_set(id, "config", cJSON_CreateObject());
	json_set_str(cfg, "model", o->model);
	json_set_str(cfg, "rm_api_url", o->rm_url ? o->rm_url : "");
	json_set_num(cfg, "min_traces", o->min_traces);
	json_set_num(cfg, "top", o->top);
	json_set_num(cfg, "bottom", o->bottom);
	json_set_num(cfg, "max_patches", o->max_patches);
	json_set_num(cfg, "budget_tokens", (double)o->budget);
	if (o->only && *o->only)
		json_set_str(cfg, "skills", o->only);
	return id;
}

static const char *const run_files[] = { "groups.json", "reduce.json", "patches.json", "report.json", "report.md",
					 "S_fast" };

/* Hashes of the files the run made ({name: hash}); NULL when one is missing. */
static cJSON *artifact_hashes(const struct fast_opts *o, int units)
{
	cJSON *a = cJSON_CreateObject();
	struct err e;
	hash_hex h;
	for (size_t i = 0; i <= ARRAY_LEN(run_files) + (size_t)units; i++) {
		char *p = i < ARRAY_LEN(run_files) ? path_join(o->output, run_files[i])
		        : i == ARRAY_LEN(run_files) ? xstrdup(o->score_output)
		                                    : fast_map_path(o->output, (int)(i - ARRAY_LEN(run_files)));
		bool ok = fs_exists(p) && hash_tree(p, h, &e) == 0;
		if (ok)
			json_set_str(a, p, h);
		free(p);
		if (!ok) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

/* The map calls, each `self map --unit N ...` in its own process, at most
 * o->max_parallel at once. */
static int run_maps(const struct fast_opts *o, int units, const char *self, struct err *e)
{
	int running = 0, failed = 0, next = 1, rc = 0;
	while ((next <= units && rc == 0) || running) {
		while (next <= units && rc == 0 && running < o->max_parallel) {
			char unit[16];
			snprintf(unit, sizeof unit, "%d", next++);
			char *args[18] = { (char *)self, "map", "--unit", unit, "--traces", (char *)o->traces, "--skill",
					   (char *)o->skill, "--dir", (char *)o->output, "--model", (char *)o->model };
			size_t na = 12;
			if (o->task) {
				args[na++] = "--task";
				args[na++] = (char *)o->task;
			}
			if (o->only && *o->only) {
				args[na++] = "--only";
				args[na++] = (char *)o->only;
			}
			bool started;
			struct proc_child c = { args, NULL, NULL, { -1, -1, -1 }, SIGTERM };
			if (proc_spawn(&c, &started, e) < 0)
				rc = -1;
			else
				running++;
		}
		int st;
		if (!running || wait(&st) < 0)
			break;
		running--;
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (rc == 0 && failed)
		rc = err_set(e, ERR_WORK, "%d map call(s) failed (see above); run again to retry only those", failed);
	return rc;
}

/* The four steps, then the record (written last: a run cut short leaves none). */
static int run_steps(struct fast_opts *o, const cJSON *id, int units, const char *self, const char *rec,
		     struct err *e)
{
	if (o->force)
		setenv("LLM_CACHE", "refresh", 1);
	unlink(rec);
	o->units = units;
	if (fast_step_score(o, e) < 0 || run_maps(o, units, self, e) < 0 || fast_step_reduce(o, e) < 0 ||
	    fast_step_apply(o, e) < 0)
		return -1;
	cJSON *r = cJSON_CreateObject();
	json_set_num(r, "format", 1);
	json_set(r, "inputs", cJSON_Duplicate(id, true));
	cJSON *art = artifact_hashes(o, units);
	json_set(r, "artifacts", art ? art : cJSON_CreateNull());
	int rc = json_write_if_changed(rec, r, e) < 0 ? -1 : 0;
	cJSON_Delete(r);
	return rc;
}

/* The body budget the run records and the steps use: --budget, the profile's, or 5000. */
static int run_budget(struct fast_opts *o, struct err *e)
{
	if (o->budget || !o->profile) {
		o->budget = o->budget ? o->budget : 5000;
		return 0;
	}
	struct err r = { 0 };
	cJSON *res = json_read_file(o->profile, &r);
	if (!res)
		return err_set(e, ERR_INPUT, "%s (--profile is skillc-profile's profile.json)", r.msg);
	o->budget = profile_budget_tokens(json_get(res, "profile"));
	cJSON_Delete(res);
	return 0;
}

int fast_run(struct fast_opts *o, const char *self, struct err *e)
{
	if (!o->traces || !*o->traces || !o->skill || !*o->skill)
		return err_set(e, ERR_INPUT, "%s is required (see --help)", !o->traces || !*o->traces ? "--traces" : "--skill");
	if (!o->model || !*o->model)
		return err_set(e, ERR_INPUT,
			       "the fast stage asks the compiler's model: set EXTERNAL_MODEL=provider/model-id (or --model)");
	struct pkgset src = { 0 };
	if (pkgset_load(o->skill, o->only, &src, e) < 0 || run_budget(o, e) < 0) {
		pkgset_free(&src);
		return -1;
	}
	/* a set of one is named by its skill, a set by its root */
	const char *name = src.n == 1 ? src.v[0].name : path_base(o->skill);
	char *out_default = xasprintf("fast-%s", name);
	o->output = o->output ? o->output : out_default;
	char *score_default = path_join(o->output, "scores.json"), *rec = path_join(o->output, "fast-run.json");
	o->score_output = o->score_output ? o->score_output : score_default;
	o->dir = o->output;
	int units = fast_units(o->top, o->bottom);
	cJSON *id = run_identity(o, src.n == 1 ? src.v[0].dir : o->skill, e);
	struct err ignore;
	cJSON *was = id && !o->force && fs_exists(rec) ? json_read_file(rec, &ignore) : NULL;
	cJSON *now = was ? artifact_hashes(o, units) : NULL;
	int rc = id ? 0 : -1;
	if (rc == 0 && was && now && cJSON_Compare(json_get(was, "inputs"), id, true) &&
	    cJSON_Compare(json_get(was, "artifacts"), now, true))
		printf("%s: up to date (fast-run.json: same traces, skill, settings and version; every file as written)\n",
		       o->output);
	else if (rc == 0 && (rc = run_steps(o, id, units, self, rec, e)) == 0)
		printf("S_fast: %s/S_fast%s%s\n", o->output, src.n == 1 ? "/" : "", src.n == 1 ? name : "");
	cJSON_Delete(was);
	cJSON_Delete(now);
	cJSON_Delete(id);
	/* the defaults die here: o names none of them after */
	if (o->output == out_default)
		o->output = o->dir = NULL;
	if (o->score_output == score_default)
		o->score_output = NULL;
	free(rec);
	free(score_default);
	free(out_default);
	pkgset_free(&src);
	return rc;
}
