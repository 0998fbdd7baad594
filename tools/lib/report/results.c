#include "report/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/cost.h"
#include "report/runinfo.h"
#include "report/stats.h"

/* Pipeline order: noskill, raw, static, fast, deep-K by K, final, others. */
static int stage_rank(const char *s, long *k)
{
	static const char *const order[] = { "noskill", "raw", "static", "fast" };
	*k = 0;
	for (size_t i = 0; i < ARRAY_LEN(order); i++)
		if (!strcmp(s, order[i]))
			return (int)i;
	char *end;
	if (!strncmp(s, "deep-", 5) && s[5] >= '0' && s[5] <= '9') {
		*k = strtol(s + 5, &end, 10);
		if (!*end)
			return 4;
	}
	if (!strcmp(s, "final"))
		return 5;
	return 6;
}

int results_stage_cmp(const char *a, const char *b)
{
	long ka, kb;
	int ra = stage_rank(a, &ka), rb = stage_rank(b, &kb);
	if (ra != rb)
		return ra - rb;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_group(const void *a, const void *b)
{
	const struct results_group *x = a, *y = b;
	int c;
	if ((c = strcmp(x->bench, y->bench)) || (c = strcmp(x->task, y->task)) || (c = strcmp(x->harness, y->harness)) ||
	    (c = strcmp(x->model, y->model)) || (c = strcmp(x->runner, y->runner)) || (c = strcmp(x->source, y->source)))
		return c;
	return results_stage_cmp(x->stage, y->stage);
}

bool results_same_cell(const struct results_group *g, const struct results_group *h)
{
	return !strcmp(g->bench, h->bench) && !strcmp(g->task, h->task) && !strcmp(g->harness, h->harness) &&
	       !strcmp(g->model, h->model) && !strcmp(g->runner, h->runner) && !strcmp(g->source, h->source);
}

static struct results_group *group_for(struct results_table *tb, const struct results_group *key)
{
	for (size_t i = 0; i < tb->n; i++)
		if (results_same_cell(&tb->v[i], key) && !strcmp(tb->v[i].stage, key->stage))
			return &tb->v[i];
	GROW(tb->v, tb->n, tb->cap);
	struct results_group *g = &tb->v[tb->n++];
	memset(g, 0, sizeof *g);
	g->bench = xstrdup(key->bench);
	g->task = xstrdup(key->task);
	g->harness = xstrdup(key->harness);
	g->model = xstrdup(key->model);
	g->runner = xstrdup(key->runner);
	g->stage = xstrdup(key->stage);
	g->source = xstrdup(key->source ? key->source : "");
	g->categories = cJSON_CreateObject();
	g->errors = cJSON_CreateObject();
	return g;
}

static void trial_free(struct results_trial *t)
{
	free(t->dir);
	free(t->rel);
	free(t->test);
	free(t->error);
	free(t->rollout);
	free(t->reused_from);
	free(t->stale);
	free(t->outcome);
}

void results_free(struct results_table *tb)
{
	for (size_t i = 0; i < tb->n; i++) {
		struct results_group *g = &tb->v[i];
		free(g->bench);
		free(g->task);
		free(g->harness);
		free(g->model);
		free(g->runner);
		free(g->source);
		free(g->external);
		free(g->stage);
		cJSON_Delete(g->categories);
		cJSON_Delete(g->errors);
		for (size_t k = 0; k < g->nt; k++)
			trial_free(&g->t[k]);
		free(g->t);
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

static void add_to(double v, double *sum, long *n)
{
	if (!isnan(v)) {
		*sum += v;
		(*n)++;
	}
}

/* The trial's money: the runner's figure, else its tokens at the route's
 * prices for its model, else unknown. */
static void price_trial(struct results_trial *t, const cJSON *j, const struct routes *routes)
{
	t->cost = json_num(j, "cost_usd", NAN);
	if (isnan(t->cost))
		t->cost = cost_price(routes, json_str(j, "model"), t->tokens_in, t->tokens_out);
}

/* The money a trial folder cost this run (reused ones cost nothing here). */
static void count_spent(struct results_group *g, const struct results_trial *t)
{
	if (t->reused)
		return;
	g->ran++;
	if (isnan(t->cost))
		g->spent_unknown++;
	else
		g->spent += t->cost;
}

/* The facts of one trial.json the table needs. */
static void read_trial(struct results_trial *t, const cJSON *j, const struct routes *routes)
{
	const char *outcome = json_str(j, "outcome");
	t->outcome = xstrdup(outcome ? outcome : "?");
	t->passed = json_bool(j, "passed", false);
	const char *err = json_str(j, "error"), *rollout = json_str(json_get(j, "files"), "rollout");
	t->error = err ? xstrdup(err) : NULL;
	t->rollout = rollout ? xstrdup(rollout) : NULL;
	t->reused = json_bool(j, "reused", false);
	t->selection = json_bool(j, "selection_reuse", false);
	const char *from = json_str(json_get(j, "reused_from"), "trial");
	t->reused_from = t->selection && from ? xstrdup(from) : NULL;
	t->invoked = json_bool(json_get(j, "skill"), "invoked", false);
	t->reward = json_num(j, "reward", NAN);
	const cJSON *tok = json_get(j, "tokens");
	t->tokens = json_num(tok, "total", NAN);
	t->tokens_in = json_num(tok, "input", NAN);
	t->tokens_out = json_num(tok, "output", NAN);
	t->tool_calls = json_num(j, "tool_calls", NAN);
	if (isnan(t->tool_calls))
		t->tool_calls = json_num(json_get(j, "trajectory"), "tool_calls", NAN);
	const cJSON *du = json_get(j, "durations");
	t->seconds = json_num(du, "total", NAN);
	t->agent_seconds = json_num(du, "agent_execution", NAN);
	price_trial(t, j, routes);
}

/* Adds a counted trial's numbers to its group. */
static void count_trial(struct results_group *g, const struct results_trial *t, const cJSON *j)
{
	g->trials++;
	bool infra = !strcmp(t->outcome, "infra_error"), verr = !strcmp(t->outcome, "verifier_error");
	if (infra || verr) {
		/* no score: reported, never counted as a failure */
		g->infra += infra;
		g->verr += verr;
		count_in(g->errors, t->outcome, 1);
	} else {
		g->scored++;
		g->passed += t->passed;
		add_to(t->reward, &g->reward_sum, &g->reward_n);
		if (!strcmp(t->outcome, "timeout")) {
			g->timeouts++;
			count_in(g->errors, "timeout", 1);
		}
	}
	const char *cat = json_str(j, "error_category");
	if (cat)
		count_in(g->categories, cat, 1);
	const cJSON *env = json_get(j, "environment");
	g->env_not_reproduced += cJSON_IsObject(env) && !json_bool(env, "reproduced", true);
	const cJSON *sk = json_get(j, "skill");
	if (cJSON_GetArraySize(json_get(sk, "injected")) > 0 && !infra) {
		g->skill_den++;
		g->invoked += t->invoked;
		g->read += json_bool(sk, "read", false);
	}
	add_to(t->tokens, &g->tok_sum, &g->tok_n);
	add_to(t->tool_calls, &g->calls_sum, &g->calls_n);
	add_to(t->seconds, &g->sec_sum, &g->sec_n);
	add_to(t->agent_seconds, &g->agent_sec_sum, &g->agent_sec_n);
	add_to(t->cost, &g->cost_sum, &g->cost_n);
	g->cost_unknown += isnan(t->cost);
	g->reused += t->reused;
	g->selection += t->selection;
}

/* Why a complete trial is not one of the stage's current ones; NULL if it is. */
static char *stale_reason(const struct runinfo_stage *s, long index, const cJSON *j)
{
	if (!runinfo_due(s, index)) {
		long due = runinfo_due_count(s);
		return xasprintf("index %ld is %s the %ld trial%s due", index,
				 index > due ? "beyond" : "not among", due, due == 1 ? "" : "s");
	}
	const char *h = json_str(j, "skill_hash");
	if (s->skill[0] && (!h || strcmp(h, s->skill)))
		return xasprintf("trial of an earlier skill (skill_hash %s; the stage's skill is %s)", h ? h : "none",
				 s->skill);
	return NULL;
}

static void push_trial(struct results_group *g, struct results_trial *t)
{
	GROW(g->t, g->nt, g->tcap);
	g->t[g->nt++] = *t;
}

/* Feeds every complete trial of one stage folder to tb. */
static void scan_stage(const struct runinfo *ri, const struct runinfo_stage *s, struct results_table *tb,
		       const struct routes *routes)
{
	char *dir = xasprintf("%s/traces/%s/%s", ri->dir, s->task, s->name);
	struct strlist tests = STRLIST_INIT;
	struct err e;
	fs_list_names(dir, &tests, &e);
	for (size_t k = 0; k < tests.n; k++) {
		long index = trial_index(tests.v[k]);
		if (index < 1)
			continue;
		char *tdir = path_join(dir, tests.v[k]);
		cJSON *j = json_read_rel(tdir, "trial.json");
		if (!j || !json_bool(j, "complete", false)) {
			cJSON_Delete(j);
			free(tdir);
			continue;
		}
		const char *harness = json_str(j, "harness"), *model = json_str(j, "model"), *runner = json_str(j, "runner");
		const char *bench = *ri->bench ? ri->bench : json_str(j, "bench");
		struct results_group key = { .bench = (char *)(bench ? bench : ""), .task = s->task,
					     .harness = (char *)(harness ? harness : "?"),
					     .model = (char *)(model ? model : "?"),
					     .runner = (char *)(runner ? runner : "?"), .stage = s->name,
					     .source = ri->source };
		struct results_group *g = group_for(tb, &key);
		/* the optimizer that made this stage's skill (docs/skill-runs.md, disclosure) */
		if (!g->external)
			g->external = xstrdup(json_str(ri->config, "EXTERNAL_MODEL")
			                              ? json_str(ri->config, "EXTERNAL_MODEL")
			                              : "");
		struct results_trial t = { .dir = tdir, .test = xstrdup(tests.v[k]), .index = index,
					   .rel = xasprintf("traces/%s/%s/%s", s->task, s->name, tests.v[k]) };
		read_trial(&t, j, routes);
		t.stale = stale_reason(s, index, j);
		if (t.stale)
			g->stale++;
		else
			count_trial(g, &t, j);
		count_spent(g, &t);
		push_trial(g, &t);
		cJSON_Delete(j);
	}
	strlist_free(&tests);
	free(dir);
}

/* Adds the attempts kept in <run>/.incomplete/<stage>/ to the rows of that stage. */
static void count_incomplete(const char *run, struct results_table *tb)
{
	char *inc = path_join(run, ".incomplete");
	struct strlist stages = STRLIST_INIT;
	struct err e;
	fs_list_names(inc, &stages, &e);
	for (size_t s = 0; s < stages.n; s++) {
		char *sd = path_join(inc, stages.v[s]);
		struct strlist items = STRLIST_INIT;
		fs_list_names(sd, &items, &e);
		for (size_t i = 0; i < tb->n; i++)
			if (!strcmp(tb->v[i].stage, stages.v[s]))
				tb->v[i].incomplete += (long)items.n;
		strlist_free(&items);
		free(sd);
	}
	strlist_free(&stages);
	free(inc);
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
	struct err e;
	fs_list_names(path, &kids, &e);
	for (size_t i = 0; i < kids.n; i++) {
		char *k = path_join(path, kids.v[i]);
		if (fs_is_dir(k))
			results_find_runs(k, depth - 1, runs);
		free(k);
	}
	strlist_free(&kids);
}

int results_runs_under(const struct strlist *paths, struct strlist *runs, struct err *e)
{
	if (!paths->n)
		return err_set(e, ERR_INPUT, "give a run folder or a results folder (see --help)");
	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];
		if (!fs_is_dir(p))
			return err_set(e, ERR_INPUT, "'%s' is not a folder: %s", p,
				       "give a run folder or a results folder");
		size_t before = runs->n;
		results_find_runs(p, 2, runs);
		if (runs->n == before)
			return err_set(e, ERR_INPUT, "no runs under %s: %s", p,
				       "no traces/ folder found (run make eval first)");
	}
	return 0;
}

static int cmp_trial(const void *a, const void *b)
{
	const struct results_trial *x = a, *y = b;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return strcmp(x->dir, y->dir);
}

/* Moves src's numbers and trials into g (src is left without trials). */
static void group_add(struct results_group *g, struct results_group *src)
{
	g->trials += src->trials;
	g->scored += src->scored;
	g->passed += src->passed;
	g->infra += src->infra;
	g->env_not_reproduced += src->env_not_reproduced;
	g->verr += src->verr;
	g->timeouts += src->timeouts;
	g->incomplete += src->incomplete;
	g->stale += src->stale;
	g->reused += src->reused;
	g->selection += src->selection;
	g->skill_den += src->skill_den;
	g->invoked += src->invoked;
	g->read += src->read;
	g->reward_sum += src->reward_sum;
	g->reward_n += src->reward_n;
	g->tok_sum += src->tok_sum;
	g->tok_n += src->tok_n;
	g->calls_sum += src->calls_sum;
	g->calls_n += src->calls_n;
	g->cost_sum += src->cost_sum;
	g->cost_n += src->cost_n;
	g->cost_unknown += src->cost_unknown;
	g->spent += src->spent;
	g->spent_unknown += src->spent_unknown;
	g->ran += src->ran;
	g->llm_calls += src->llm_calls;
	g->llm_unknown += src->llm_unknown;
	g->llm_usd += src->llm_usd;
	g->llm_tokens_in += src->llm_tokens_in;
	g->llm_tokens_out += src->llm_tokens_out;
	if (!g->external && src->external)
		g->external = xstrdup(src->external);
	g->sec_sum += src->sec_sum;
	g->sec_n += src->sec_n;
	g->agent_sec_sum += src->agent_sec_sum;
	g->agent_sec_n += src->agent_sec_n;
	for (const cJSON *c = src->categories->child; c; c = c->next)
		count_in(g->categories, c->string, c->valuedouble);
	for (const cJSON *c = src->errors->child; c; c = c->next)
		count_in(g->errors, c->string, c->valuedouble);
	for (size_t i = 0; i < src->nt; i++)
		push_trial(g, &src->t[i]);
	src->nt = 0;
}

/* Gives each row of one run the LLM calls of its stage families, and
 * adds every call and every trial that ran to the table's totals. */
static void attribute_calls(struct results_table *tb, struct results_table *one, const char *run,
			    const struct routes *routes)
{
	struct cost_calls c;
	cost_calls_load(&c, run, routes);
	for (size_t f = 0; f < c.n; f++) {
		char row[96];
		cost_row_of(c.v[f].name, row, sizeof row);
		for (size_t k = 0; k < one->n; k++)
			if (!strcmp(one->v[k].stage, row)) {
				one->v[k].llm_calls += c.v[f].calls;
				one->v[k].llm_unknown += c.v[f].unknown;
				one->v[k].llm_usd += c.v[f].usd;
				one->v[k].llm_tokens_in += c.v[f].tokens_in;
				one->v[k].llm_tokens_out += c.v[f].tokens_out;
				break; /* a run holds one task: one row per stage */
			}
	}
	tb->llm_calls += c.calls;
	tb->llm_unknown += c.unknown;
	tb->llm_usd += c.usd;
	for (size_t k = 0; k < one->n; k++) {
		tb->trial_usd += one->v[k].spent;
		tb->trial_unknown += one->v[k].spent_unknown;
	}
	cost_calls_free(&c);
}

void results_build(struct results_table *tb, const struct strlist *runs, const struct routes *routes)
{
	for (size_t i = 0; i < runs->n; i++) {
		/* groups of earlier runs must not collect this run's .incomplete */
		struct results_table one = { 0 };
		struct runinfo ri;
		runinfo_load(&ri, runs->v[i]);
		for (size_t s = 0; s < ri.n; s++)
			scan_stage(&ri, &ri.st[s], &one, routes);
		runinfo_free(&ri);
		count_incomplete(runs->v[i], &one);
		attribute_calls(tb, &one, runs->v[i], routes);
		for (size_t k = 0; k < one.n; k++)
			group_add(group_for(tb, &one.v[k]), &one.v[k]);
		results_free(&one);
	}
	tb->runs = (long)runs->n;
	results_finish(tb);
}

void results_build_run(struct results_table *tb, const char *run, const struct routes *routes)
{
	struct strlist one = STRLIST_INIT;
	strlist_push(&one, run);
	results_build(tb, &one, routes);
	strlist_free(&one);
}

void results_add(struct results_table *tb, const cJSON *j, const char *dir, const struct routes *routes)
{
	const char *f[] = { json_str(j, "bench"), json_str(j, "task"), json_str(j, "harness"), json_str(j, "model"),
			    json_str(j, "runner"), json_str(j, "stage") };
	for (size_t i = 0; i < ARRAY_LEN(f); i++)
		f[i] = f[i] ? f[i] : "?";
	struct results_group key = { .bench = (char *)f[0], .task = (char *)f[1], .harness = (char *)f[2],
				     .model = (char *)f[3], .runner = (char *)f[4], .stage = (char *)f[5], .source = "" };
	struct results_group *g = group_for(tb, &key);
	struct results_trial t = { .dir = xstrdup(dir), .test = xstrdup(path_base(dir)), .index = (long)g->nt + 1 };
	read_trial(&t, j, routes);
	count_trial(g, &t, j);
	push_trial(g, &t);
}

void results_finish(struct results_table *tb)
{
	if (tb->n)
		qsort(tb->v, tb->n, sizeof *tb->v, cmp_group);
	for (size_t i = 0; i < tb->n; i++) {
		struct results_group *g = &tb->v[i];
		if (g->nt)
			qsort(g->t, g->nt, sizeof *g->t, cmp_trial);
		g->raw = g->noskill = NULL;
		for (size_t k = 0; k < tb->n; k++) {
			if (k == i || !results_same_cell(g, &tb->v[k]))
				continue;
			if (!strcmp(tb->v[k].stage, "raw"))
				g->raw = &tb->v[k];
			if (!strcmp(tb->v[k].stage, "noskill"))
				g->noskill = &tb->v[k];
		}
	}
}

double results_pass_rate(const struct results_group *g)
{
	return g->scored ? (double)g->passed / (double)g->scored : NAN;
}

double results_delta_pp_vs(const struct results_group *g, const struct results_group *base)
{
	if (!base)
		return NAN;
	return (results_pass_rate(g) - results_pass_rate(base)) * 100;
}

bool results_delta_ci_vs(const struct results_group *g, const struct results_group *base, double *lo, double *hi)
{
	if (!base || !g->scored || !base->scored)
		return false;
	stats_newcombe(g->passed, g->scored, base->passed, base->scored, STATS_Z95, lo, hi);
	*lo *= 100;
	*hi *= 100;
	return true;
}

double results_delta_pp(const struct results_group *g)
{
	return results_delta_pp_vs(g, g->raw);
}

bool results_delta_ci(const struct results_group *g, double *lo, double *hi)
{
	return results_delta_ci_vs(g, g->raw, lo, hi);
}

double results_stage_usd(const struct results_group *g)
{
	long items = g->llm_calls + g->ran, unknown = g->llm_unknown + g->spent_unknown;
	return items && unknown == items ? NAN : g->spent + g->llm_usd; /* nothing paid: $0, known */
}

double results_spent(const struct results_table *tb, long *unknown)
{
	if (unknown)
		*unknown = tb->llm_unknown + tb->trial_unknown;
	return tb->llm_usd + tb->trial_usd;
}

bool results_regressed(const struct results_group *g)
{
	double d = results_delta_pp(g);
	return strcmp(g->stage, "raw") && strcmp(g->stage, "noskill") && !isnan(d) && d < 0;
}

bool results_worse_than_noskill(const struct results_group *g)
{
	double d = results_delta_pp_vs(g, g->noskill);
	return strcmp(g->stage, "noskill") && !isnan(d) && d < 0;
}

double results_mean(double sum, long n)
{
	return n ? sum / (double)n : NAN;
}

double results_skill_rate(const struct results_group *g, long count)
{
	return g->skill_den ? (double)count / (double)g->skill_den : NAN;
}
