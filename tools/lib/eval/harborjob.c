#include "eval/harborjob.h"

#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"
#include "eval/trial.h"

/* dir/result.json when it is a Harbor job's (caller frees), else NULL. */
static cJSON *job_result(const char *dir)
{
	char *p = path_join(dir, "result.json");
	cJSON *r = json_read_opt(p);
	free(p);
	if (cJSON_IsObject(r) && (cJSON_IsNumber(json_get(r, "n_total_trials")) || cJSON_IsObject(json_get(r, "stats"))))
		return r;
	cJSON_Delete(r);
	return NULL;
}

size_t harbor_jobs_find(const char *path, struct strlist *jobs)
{
	cJSON *r = job_result(path);
	if (r) {
		cJSON_Delete(r);
		strlist_push(jobs, path);
		return 1;
	}
	size_t found = 0;
	struct strlist kids = STRLIST_INIT;
	struct err e;
	if (fs_is_dir(path))
		fs_list_names(path, &kids, &e);
	strlist_sort(&kids);
	for (size_t i = 0; i < kids.n; i++) {
		char *k = path_join(path, kids.v[i]);
		if (fs_is_dir(k) && (r = job_result(k))) {
			cJSON_Delete(r);
			strlist_push(jobs, k);
			found++;
		}
		free(k);
	}
	strlist_free(&kids);
	return found;
}

/* A string of the trial's own files: result.json's `key`, else config.json's agent.`ckey`. */
static char *trial_fact(const char *dir, const char *key, const char *ckey)
{
	char *rp = path_join(dir, "result.json"), *cp = path_join(dir, "config.json");
	struct err e;
	cJSON *res = key ? json_read_file(rp, &e) : NULL;
	cJSON *cfg = !json_str(res, key) ? json_read_opt(cp) : NULL;
	const char *v = json_str(res, key) ? json_str(res, key) : json_str(json_get(cfg, "agent"), ckey);
	char *out = v ? xstrdup(v) : NULL;
	cJSON_Delete(res);
	cJSON_Delete(cfg);
	free(rp);
	free(cp);
	return out;
}

/* The names the results table groups by, beside the normalized facts. */
static void label(cJSON *t, const char *dir, const char *job)
{
	/* the dataset's name, as Harbor keys its evals ("adhoc" without one) */
	char *bench = trial_fact(dir, "source", NULL);
	json_set_str(t, "bench", bench ? bench : "adhoc");
	free(bench);
	if (!json_str(t, "agent")) {
		char *agent = trial_fact(dir, NULL, "name");
		json_set_str(t, "agent", agent);
		free(agent);
	}
	/* a trial skillc exported (atif.h) keeps its harness, runner and stage */
	if (!json_str(t, "harness"))
		json_set_str(t, "harness", json_str(t, "agent") ? json_str(t, "agent") : "?");
	if (!json_str(t, "model")) {
		char *model = trial_fact(dir, NULL, "model_name");
		json_set_str(t, "model", model ? model : "?");
		free(model);
	}
	if (!json_str(t, "task"))
		json_set_str(t, "task", path_base(dir));
	if (!json_str(t, "runner"))
		json_set_str(t, "runner", "harbor");
	if (!json_str(t, "stage"))
		json_set_str(t, "stage", "job");
	json_set_str(t, "job", job);
	json_set_str(t, "dir", dir);
}

int harbor_job_read(const char *dir, struct harbor_job *j, struct err *e)
{
	memset(j, 0, sizeof *j);
	j->trials = cJSON_CreateArray();
	cJSON *res = job_result(dir);
	if (!res)
		return err_set(e, ERR_INPUT, "'%s' is not a Harbor job folder: no result.json with n_total_trials or stats "
			       "(point at jobs/<job> or at the jobs folder)", dir);
	j->dir = xstrdup(dir);
	j->name = xstrdup(path_base(dir));
	j->finished = json_str(res, "finished_at") != NULL;
	const cJSON *total = json_get(res, "n_total_trials");
	if (!total) /* Harbor <= 0.3 kept the job's total in stats.n_trials */
		total = json_get(json_get(res, "stats"), "n_trials");
	j->planned = cJSON_IsNumber(total) ? (long)total->valuedouble : 0;
	cJSON_Delete(res);

	char *rules = rules_dir();
	struct trial_opts o = { .rules_dir = rules, .runner = "harbor" };
	struct strlist kids = STRLIST_INIT;
	fs_list_names(dir, &kids, e);
	strlist_sort(&kids);
	for (size_t i = 0; i < kids.n; i++) {
		char *k = path_join(dir, kids.v[i]);
		char *rp = path_join(k, "result.json"), *cp = path_join(k, "config.json");
		if (!fs_is_dir(k)) {
			/* job.log, lock.json, ... */
		} else if (!fs_exists(rp)) {
			j->running += fs_exists(cp); /* config.json comes at the start, result.json at the end */
		} else {
			struct err te = { 0 };
			cJSON *t = trial_parse(k, dir, &o, &te);
			if (t) {
				label(t, k, j->name);
				cJSON_AddItemToArray(j->trials, t);
			} else {
				strlist_push_owned(&j->bad, xasprintf("%s: %s", k, te.msg));
			}
		}
		free(rp);
		free(cp);
		free(k);
	}
	strlist_free(&kids);
	free(rules);
	return 0;
}

void harbor_job_free(struct harbor_job *j)
{
	free(j->dir);
	free(j->name);
	cJSON_Delete(j->trials);
	strlist_free(&j->bad);
	memset(j, 0, sizeof *j);
}
