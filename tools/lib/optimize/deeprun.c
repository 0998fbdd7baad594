/* deep_run (deep.h): every step of the deep stage outside make, the
 * seed's `deep run`, and its resume. */
#include "optimize/deep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"
#include "eval/store.h"
#include "optimize/deepfiles.h"
#include "optimize/skillpkg.h"

/* Trace i of ts copied to the run folder's dir (trial folders are
 * hard-linked; a BenchFlow run gets its normalized trial.json). */
static int copy_trace(const struct trace *t, const char *d, struct err *e)
{
	char *tmp = fs_temp_beside(d), *parent = path_dir(d), *tj = path_join(tmp, "trial.json");
	int rc = 0;
	if (fs_mkdirs(parent, e) < 0 || tree_copy(t->dir, tmp, true, e) < 0 || json_write_file(tj, t->trial, e) < 0)
		rc = err_set(e, ERR_WORK, "cannot copy the trace '%s' to '%s': %.900s", t->dir, d, e->msg);
	else if (rename(tmp, d) < 0)
		rc = err_set(e, ERR_WORK, "cannot copy the trace '%s' to '%s':", t->dir, d);
	free(tmp);
	free(parent);
	free(tj);
	return rc;
}

/* The skill and its traces into the run folder (artifacts/start/,
 * traces/<task>/start/test-NNN); *n gets how many traces. */
static int stage_inputs(const struct deep_opts *o, const char *task, long *n, struct err *e)
{
	struct pkgset s = { 0 };
	struct trace_set ts = { 0 };
	struct strlist names = STRLIST_INIT;
	char *root = deep_at(o, "artifacts/start");
	int rc = pkgset_load(o->skill_dir, o->only, &s, e);
	for (size_t k = 0; rc == 0 && k < s.n; k++) { /* every skill of the set */
		char *dst = path_join(root, s.v[k].name);
		if (!fs_exists(dst) && (fs_mkdirs(root, e) < 0 || tree_copy(s.v[k].dir, dst, false, e) < 0))
			rc = -1;
		strlist_push(&names, s.v[k].name);
		free(dst);
	}
	struct trace_opts to = { 0, &names };
	if (rc == 0 && traces_load(o->traces, &to, &ts, e) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < ts.n; i++) {
		char t[TRIAL_NAME_MAX];
		char *rel = xasprintf("traces/%s/start/%s", task, trial_name((long)i + 1, t));
		char *d = deep_at(o, rel);
		if (!fs_exists(d))
			rc = copy_trace(&ts.v[i], d, e);
		free(d);
		free(rel);
	}
	*n = (long)ts.n;
	traces_free(&ts);
	strlist_free(&names);
	free(root);
	pkgset_free(&s);
	return rc;
}

/* Candidate trial i of round k by skillc-eval, through the trial step. */
static int run_trial(struct deep_opts *o, const char *task, int k, int i, struct err *e)
{
	char t[TRIAL_NAME_MAX];
	char *dir = xasprintf("%s/traces/%s/deep-%d/%s", o->run, task, k, trial_name(i, t));
	char *cand = xasprintf("%s/artifacts/deep/round-%d/candidate", o->run, k);
	char *stage = xasprintf("deep-%d", k), *index = xasprintf("%d", i), *of = xasprintf("%ld", o->rule.max);
	char *inc = path_join(o->run, ".incomplete");
	char *tdir = tool_dir(), *eval = path_join(tdir, "skillc-eval");
	char *cmd[] = { eval, "--task", (char *)o->task, "--skills-root", cand, "--harness", (char *)o->harness,
			"--model", (char *)o->target, "--runner", (char *)o->runner, "--out", dir, "--stage", stage,
			"--index", index, "--of", of, "--incomplete", inc, NULL };
	o->round = k;
	o->index = i;
	o->trial = dir;
	o->command = cmd;
	int rc = deep_step_trial(o, e);
	o->trial = NULL;
	o->command = NULL;
	free(tdir);
	free(eval);
	free(inc);
	free(dir);
	free(cand);
	free(stage);
	free(index);
	free(of);
	return rc;
}

/* One round: score, edit, the candidate trials batch by batch with a look
 * after each batch but the last, the decision. */
static int run_round(struct deep_opts *o, const char *task, int k, struct err *e)
{
	o->round = k;
	int rc = deep_step_score(o, e);
	if (rc == 0)
		rc = deep_step_edit(o, e);
	int looks = deep_looks(&o->rule);
	for (int j = 1; rc == 0 && j <= looks; j++) {
		for (long i = j == 1 ? 1 : deep_look_trials(&o->rule, j - 1) + 1; rc == 0 && i <= deep_look_trials(&o->rule, j); i++)
			rc = run_trial(o, task, k, (int)i, e);
		o->round = k;
		o->look = j;
		if (rc == 0 && j < looks)
			rc = deep_step_look(o, e);
	}
	o->round = k;
	return rc ? rc : deep_step_decide(o, e);
}

static int drive(struct deep_opts *o, struct err *e)
{
	char *task = xstrdup(path_base(o->task));
	char *trials = xasprintf("traces/%s/start", task);
	long n = 0;
	int rc = stage_inputs(o, task, &n, e);
	o->src[0] = "start";
	o->skill[0] = "artifacts/start";
	o->trials[0] = trials;
	o->count[0] = n;
	if (rc == 0)
		rc = deep_step_start(o, e);
	for (int k = 1; rc == 0 && k <= o->rounds; k++)
		rc = run_round(o, task, k, e);
	if (rc == 0)
		rc = deep_step_final(o, e);
	o->trials[0] = NULL;
	free(trials);
	free(task);
	return rc;
}

static cJSON *run_settings(const struct deep_opts *o)
{
	cJSON *s = cJSON_CreateObject();
	json_set_num(s, "format", 1);
	char *abs_skill = fs_real_path(o->skill_dir), *abs_traces = fs_real_path(o->traces), *abs_task = fs_real_path(o->task);
	json_set_str(s, "skill", abs_skill);
	json_set_str(s, "traces", abs_traces);
	json_set_str(s, "task", abs_task);
	free(abs_skill);
	free(abs_traces);
	free(abs_task);
	json_set_str(s, "model", o->model);
	json_set_str(s, "target_model", o->target);
	json_set_str(s, "harness", o->harness);
	json_set_str(s, "runner", o->runner);
	json_set_num(s, "rounds", o->rounds);
	json_set_num(s, "first", (double)o->rule.first);
	json_set_num(s, "max", (double)o->rule.max);
	json_set_num(s, "alpha", o->rule.alpha);
	json_set_num(s, "tolerance", o->rule.tolerance);
	json_set_str(s, "test", decide_test_name(o->rule.test));
	return s;
}

/* The settings of deep-run.json back into o; the strings stay in keep. */
static void resume_settings(struct deep_opts *o, const cJSON *s, struct strlist *keep)
{
	static const char *const keys[] = { "skill", "traces", "task", "model", "target_model", "harness", "runner" };
	const char **slots[] = { &o->skill_dir, &o->traces, &o->task, &o->model, &o->target, &o->harness, &o->runner };
	for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
		*slots[i] = NULL;
		if (json_str(s, keys[i])) {
			strlist_push(keep, json_str(s, keys[i]));
			*slots[i] = keep->v[keep->n - 1];
		}
	}
	o->rounds = (int)json_num(s, "rounds", 3);
	o->rule.first = (long)json_num(s, "first", 3);
	o->rule.max = (long)json_num(s, "max", 6);
	o->rule.step = o->rule.first;
	o->rule.alpha = json_num(s, "alpha", 0.10);
	o->rule.tolerance = json_num(s, "tolerance", 1.10);
	o->rule.test = decide_test_from(json_str(s, "test") ? json_str(s, "test") : "barnard");
}

int deep_run(struct deep_opts *o, bool resume, struct err *e)
{
	char *rec = deep_at(o, "deep-run.json");
	struct strlist keep = STRLIST_INIT;
	int rc = 0;
	if (resume) {
		cJSON *s = deep_read(rec, "resume --run DIR needs a folder made by skillc-deep run", e);
		if (s)
			resume_settings(o, s, &keep);
		rc = s ? 0 : -1;
		cJSON_Delete(s);
	} else if (!o->skill_dir || !o->traces || !o->task || !o->target) {
		rc = err_set(e, ERR_INPUT, "run needs --skill, --traces, --output, --task and --target-model (see --help)");
	} else {
		o->harness = o->harness ? o->harness : "opencode";
		o->runner = o->runner ? o->runner : "local";
		cJSON *s = run_settings(o);
		rc = deep_write(rec, s, e);
		cJSON_Delete(s);
	}
	free(rec);
	if (rc == 0)
		rc = deep_need_model(o, e);
	if (rc == 0)
		rc = drive(o, e);
	strlist_free(&keep);
	return rc;
}
