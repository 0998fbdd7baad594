#include "report/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"

static const char *const stage_order[] = { "raw", "static", "fast", "deep", "final" };

static int stage_rank(const char *s)
{
	for (size_t i = 0; i < ARRAY_LEN(stage_order); i++)
		if (!strncmp(s, stage_order[i], strlen(stage_order[i])))
			return (int)i;
	return (int)ARRAY_LEN(stage_order);
}

static int cmp_group(const void *a, const void *b)
{
	const struct results_group *x = a, *y = b;
	int c;
	if ((c = strcmp(x->task, y->task)) || (c = strcmp(x->harness, y->harness)) || (c = strcmp(x->model, y->model)))
		return c;
	if ((c = stage_rank(x->stage) - stage_rank(y->stage)))
		return c;
	return strcmp(x->stage, y->stage);
}

static struct results_group *group_for(struct results_table *tb, const char *task, const char *harness,
				       const char *model, const char *stage)
{
	for (size_t i = 0; i < tb->n; i++) {
		struct results_group *g = &tb->v[i];
		if (!strcmp(g->task, task) && !strcmp(g->harness, harness) && !strcmp(g->model, model) &&
		    !strcmp(g->stage, stage))
			return g;
	}
	if (tb->n == tb->cap) {
		tb->cap = tb->cap ? tb->cap * 2 : 16;
		tb->v = xrealloc(tb->v, tb->cap * sizeof *tb->v);
	}
	struct results_group *g = &tb->v[tb->n++];
	memset(g, 0, sizeof *g);
	g->task = xstrdup(task);
	g->harness = xstrdup(harness);
	g->model = xstrdup(model);
	g->stage = xstrdup(stage);
	g->categories = cJSON_CreateObject();
	g->errors = cJSON_CreateObject();
	return g;
}

void results_free(struct results_table *tb)
{
	for (size_t i = 0; i < tb->n; i++) {
		free(tb->v[i].task);
		free(tb->v[i].harness);
		free(tb->v[i].model);
		free(tb->v[i].stage);
		cJSON_Delete(tb->v[i].categories);
		cJSON_Delete(tb->v[i].errors);
	}
	free(tb->v);
	memset(tb, 0, sizeof *tb);
}

static void count_in(cJSON *obj, const char *name, double by)
{
	cJSON *n = json_get(obj, name);
	if (n)
		cJSON_SetNumberValue(n, n->valuedouble + by);
	else
		json_set_num(obj, name, by);
}

static void add_trial(struct results_table *tb, const cJSON *t, const char *stage)
{
	const char *task = json_str(t, "task"), *harness = json_str(t, "harness"), *model = json_str(t, "model");
	struct results_group *g = group_for(tb, task ? task : "?", harness ? harness : "?", model ? model : "?",
					    json_str(t, "stage") ? json_str(t, "stage") : stage);
	g->trials++;
	const char *outcome = json_str(t, "outcome");
	bool infra = outcome && !strcmp(outcome, "infra_error");
	bool verr = outcome && !strcmp(outcome, "verifier_error");
	if (infra || verr) {
		/* no score: reported, never counted as a failure */
		g->infra += infra;
		g->verr += verr;
		count_in(g->errors, outcome, 1);
	} else {
		g->scored++;
		g->passed += json_bool(t, "passed", false);
		const cJSON *r = json_get(t, "reward");
		if (cJSON_IsNumber(r)) {
			g->reward_sum += r->valuedouble;
			g->reward_n++;
		}
		if (outcome && !strcmp(outcome, "timeout")) {
			g->timeouts++;
			count_in(g->errors, "timeout", 1);
		}
	}
	const char *cat = json_str(t, "error_category");
	if (cat)
		count_in(g->categories, cat, 1);
	const cJSON *env = json_get(t, "environment");
	g->env_not_reproduced += cJSON_IsObject(env) && !json_bool(env, "reproduced", true);
	const cJSON *sk = json_get(t, "skill");
	if (cJSON_GetArraySize(json_get(sk, "injected")) > 0 && !infra) {
		g->skill_den++;
		g->invoked += json_bool(sk, "invoked", false);
		g->read += json_bool(sk, "read", false);
	}
	const cJSON *tok = json_get(json_get(t, "tokens"), "total");
	if (cJSON_IsNumber(tok)) {
		g->tok_sum += tok->valuedouble;
		g->tok_n++;
	}
	const cJSON *cost = json_get(t, "cost_usd");
	if (cJSON_IsNumber(cost)) {
		g->cost_sum += cost->valuedouble;
		g->cost_n++;
	}
	const cJSON *du = json_get(t, "durations");
	const cJSON *tot = json_get(du, "total"), *ag = json_get(du, "agent_execution");
	if (cJSON_IsNumber(tot)) {
		g->sec_sum += tot->valuedouble;
		g->sec_n++;
	}
	if (cJSON_IsNumber(ag)) {
		g->agent_sec_sum += ag->valuedouble;
		g->agent_sec_n++;
	}
}

/* Feeds every complete trial of one stage folder to tb. */
static void scan_stage(const char *dir, const char *stage, struct results_table *tb)
{
	struct strlist tests = STRLIST_INIT;
	if (fs_is_dir(dir))
		fs_list_names(dir, &tests, NULL);
	for (size_t k = 0; k < tests.n; k++) {
		if (strncmp(tests.v[k], "test-", 5))
			continue;
		char *tp = xasprintf("%s/%s/trial.json", dir, tests.v[k]);
		struct err e;
		cJSON *t = fs_exists(tp) ? json_read_file(tp, &e) : NULL;
		if (t && json_bool(t, "complete", false))
			add_trial(tb, t, stage);
		cJSON_Delete(t);
		free(tp);
	}
	strlist_free(&tests);
}

/* Adds the attempts kept in <run>/.incomplete/<stage>/ to the rows of that stage. */
static void count_incomplete(const char *run, struct results_table *tb)
{
	char *inc = path_join(run, ".incomplete");
	struct strlist stages = STRLIST_INIT;
	fs_list_names(inc, &stages, NULL);
	for (size_t s = 0; s < stages.n; s++) {
		char *sd = path_join(inc, stages.v[s]);
		struct strlist items = STRLIST_INIT;
		fs_list_names(sd, &items, NULL);
		for (size_t i = 0; i < tb->n; i++)
			if (!strcmp(tb->v[i].stage, stages.v[s]))
				tb->v[i].incomplete += (long)items.n;
		strlist_free(&items);
		free(sd);
	}
	strlist_free(&stages);
	free(inc);
}

/* Feeds every complete trial of one run to tb. */
static void scan_run(const char *run, struct results_table *tb)
{
	char *traces = path_join(run, "traces");
	struct strlist tasks = STRLIST_INIT;
	fs_list_names(traces, &tasks, NULL);
	for (size_t i = 0; i < tasks.n; i++) {
		char *td = path_join(traces, tasks.v[i]);
		struct strlist stages = STRLIST_INIT;
		fs_list_names(td, &stages, NULL);
		for (size_t s = 0; s < stages.n; s++) {
			char *sd = path_join(td, stages.v[s]);
			scan_stage(sd, stages.v[s], tb);
			free(sd);
		}
		strlist_free(&stages);
		free(td);
	}
	strlist_free(&tasks);
	free(traces);
	count_incomplete(run, tb);
}

void results_find_runs(const char *path, int depth, struct strlist *runs)
{
	char *tr = path_join(path, "traces");
	bool is_run = fs_is_dir(tr);
	free(tr);
	if (is_run) {
		strlist_push(runs, path);
		return;
	}
	if (depth == 0)
		return;
	struct strlist kids = STRLIST_INIT;
	fs_list_names(path, &kids, NULL);
	for (size_t i = 0; i < kids.n; i++) {
		char *k = path_join(path, kids.v[i]);
		if (fs_is_dir(k))
			results_find_runs(k, depth - 1, runs);
		free(k);
	}
	strlist_free(&kids);
}

static void group_add(struct results_group *g, const struct results_group *src)
{
	g->trials += src->trials;
	g->scored += src->scored;
	g->passed += src->passed;
	g->infra += src->infra;
	g->env_not_reproduced += src->env_not_reproduced;
	g->verr += src->verr;
	g->timeouts += src->timeouts;
	g->incomplete += src->incomplete;
	g->skill_den += src->skill_den;
	g->invoked += src->invoked;
	g->read += src->read;
	g->reward_sum += src->reward_sum;
	g->reward_n += src->reward_n;
	g->tok_sum += src->tok_sum;
	g->tok_n += src->tok_n;
	g->cost_sum += src->cost_sum;
	g->cost_n += src->cost_n;
	g->sec_sum += src->sec_sum;
	g->sec_n += src->sec_n;
	g->agent_sec_sum += src->agent_sec_sum;
	g->agent_sec_n += src->agent_sec_n;
	for (const cJSON *c = src->categories->child; c; c = c->next)
		count_in(g->categories, c->string, c->valuedouble);
	for (const cJSON *c = src->errors->child; c; c = c->next)
		count_in(g->errors, c->string, c->valuedouble);
}

void results_build(struct results_table *tb, const struct strlist *runs)
{
	for (size_t i = 0; i < runs->n; i++) {
		/* groups of earlier runs must not collect this run's .incomplete */
		struct results_table one = { 0 };
		scan_run(runs->v[i], &one);
		for (size_t k = 0; k < one.n; k++) {
			struct results_group *src = &one.v[k];
			group_add(group_for(tb, src->task, src->harness, src->model, src->stage), src);
		}
		results_free(&one);
	}
	tb->runs = (long)runs->n;
	qsort(tb->v, tb->n, sizeof *tb->v, cmp_group);
	for (size_t i = 0; i < tb->n; i++) {
		struct results_group *g = &tb->v[i];
		g->raw = NULL;
		for (size_t k = 0; k < tb->n; k++) {
			struct results_group *r = &tb->v[k];
			if (r != g && !strcmp(r->stage, "raw") && !strcmp(r->task, g->task) &&
			    !strcmp(r->harness, g->harness) && !strcmp(r->model, g->model))
				g->raw = r;
		}
	}
}

double results_pass_rate(const struct results_group *g)
{
	return g->scored ? (double)g->passed / (double)g->scored : NAN;
}

double results_delta_pp(const struct results_group *g)
{
	if (!g->raw)
		return NAN;
	return (results_pass_rate(g) - results_pass_rate(g->raw)) * 100;
}

double results_mean(double sum, long n)
{
	return n ? sum / (double)n : NAN;
}

double results_skill_rate(const struct results_group *g, long count)
{
	return g->skill_den ? (double)count / (double)g->skill_den : NAN;
}
