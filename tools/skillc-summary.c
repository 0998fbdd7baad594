/* skillc-summary — the results table of one run or of a whole results
 * folder: per task x harness x model x stage, from every complete trial
 * (traces/<task>/<stage>/test-NNN/trial.json), written as summary.md,
 * summary.csv and summary.json; --watch prints the table live until every
 * due trial is done. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "json.h"
#include "log.h"
#include "stats.h"
#include "trial.h"
#include "versions.h"

#define VERSION V_SUMMARY

static const char usage[] =
	"usage: skillc-summary [--out DIR] PATH...\n"
	"       skillc-summary --watch [--timeout S] [--interval S] PATH...\n"
	"\n"
	"PATH is a run folder (holding traces/) or a results folder holding runs.\n"
	"Writes summary.md, summary.csv and summary.json into --out (default: the\n"
	"only PATH), one row per task x harness x model x stage: trials, scored,\n"
	"passed, pass rate with its 95% Wilson interval, unbiased pass@k, mean\n"
	"reward, skill invocation rate, errors by category, tokens, cost, time, and\n"
	"the change against the raw stage in percentage points. Infra and verifier\n"
	"errors are counted and excluded from pass rates.\n"
	"\n"
	"--watch prints the table every --interval seconds (default 2) until every\n"
	"due trial is complete (exit 0) or --timeout seconds pass (exit 2). Due: the\n"
	"trial targets (<stage>-eval.NNN) the run's manifest.json lists, which the\n"
	"make working on the run keeps current; a run without one is never done.\n";

struct group {
	char *task, *harness, *model, *stage;
	long trials, scored, passed, infra, verr, timeouts, incomplete;
	long skill_den, invoked, read;
	double reward_sum, tok_sum, cost_sum, sec_sum, agent_sec_sum;
	long reward_n, tok_n, cost_n, sec_n, agent_sec_n;
	cJSON *errors;      /* timeout / infra_error / verifier_error -> count */
	cJSON *categories;  /* the runner's error_category -> count */
	struct group *raw;  /* the raw stage of the same task/harness/model */
};

struct table {
	struct group *v;
	size_t n, cap;
	long runs;
};

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
	const struct group *x = a, *y = b;
	int c;
	if ((c = strcmp(x->task, y->task)) || (c = strcmp(x->harness, y->harness)) || (c = strcmp(x->model, y->model)))
		return c;
	if ((c = stage_rank(x->stage) - stage_rank(y->stage)))
		return c;
	return strcmp(x->stage, y->stage);
}

static struct group *group_for(struct table *tb, const char *task, const char *harness, const char *model,
			       const char *stage)
{
	for (size_t i = 0; i < tb->n; i++) {
		struct group *g = &tb->v[i];
		if (!strcmp(g->task, task) && !strcmp(g->harness, harness) && !strcmp(g->model, model) &&
		    !strcmp(g->stage, stage))
			return g;
	}
	if (tb->n == tb->cap) {
		tb->cap = tb->cap ? tb->cap * 2 : 16;
		tb->v = xrealloc(tb->v, tb->cap * sizeof *tb->v);
	}
	struct group *g = &tb->v[tb->n++];
	memset(g, 0, sizeof *g);
	g->task = xstrdup(task);
	g->harness = xstrdup(harness);
	g->model = xstrdup(model);
	g->stage = xstrdup(stage);
	g->categories = cJSON_CreateObject();
	g->errors = cJSON_CreateObject();
	return g;
}

static void table_free(struct table *tb)
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

static void add_trial(struct table *tb, const cJSON *t, const char *stage)
{
	const char *task = json_str(t, "task"), *harness = json_str(t, "harness"), *model = json_str(t, "model");
	struct group *g = group_for(tb, task ? task : "?", harness ? harness : "?", model ? model : "?",
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

static void list_dir(const char *dir, struct strlist *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strlist_push(out, de->d_name);
	closedir(d);
	strlist_sort(out);
}

/* Feeds every complete trial of one run to tb. */
static void scan_run(const char *run, struct table *tb)
{
	char *traces = path_join(run, "traces");
	struct strlist tasks = STRLIST_INIT;
	list_dir(traces, &tasks);
	for (size_t i = 0; i < tasks.n; i++) {
		char *td = path_join(traces, tasks.v[i]);
		struct strlist stages = STRLIST_INIT;
		list_dir(td, &stages);
		for (size_t s = 0; s < stages.n; s++) {
			char *sd = path_join(td, stages.v[s]);
			struct strlist tests = STRLIST_INIT;
			if (fs_is_dir(sd))
				list_dir(sd, &tests);
			for (size_t k = 0; k < tests.n; k++) {
				if (strncmp(tests.v[k], "test-", 5))
					continue;
				char *tp = xasprintf("%s/%s/trial.json", sd, tests.v[k]);
				struct err e;
				cJSON *t = fs_exists(tp) ? json_read_file(tp, &e) : NULL;
				if (t && json_bool(t, "complete", false))
					add_trial(tb, t, stages.v[s]);
				cJSON_Delete(t);
				free(tp);
			}
			strlist_free(&tests);
			free(sd);
		}
		strlist_free(&stages);
		free(td);
	}
	strlist_free(&tasks);
	free(traces);
	if (!tb)
		return;
	/* attempts cut short or failing the checks, per stage of this run */
	char *inc = path_join(run, ".incomplete");
	struct strlist stages = STRLIST_INIT;
	list_dir(inc, &stages);
	for (size_t s = 0; s < stages.n; s++) {
		char *sd = path_join(inc, stages.v[s]);
		struct strlist items = STRLIST_INIT;
		list_dir(sd, &items);
		for (size_t i = 0; i < tb->n; i++)
			if (!strcmp(tb->v[i].stage, stages.v[s]))
				tb->v[i].incomplete += (long)items.n;
		strlist_free(&items);
		free(sd);
	}
	strlist_free(&stages);
	free(inc);
}

/* Run folders under path: path itself when it holds traces/, else its
 * children and grandchildren that do. */
static void find_runs(const char *path, int depth, struct strlist *runs)
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
	list_dir(path, &kids);
	for (size_t i = 0; i < kids.n; i++) {
		char *k = path_join(path, kids.v[i]);
		if (fs_is_dir(k))
			find_runs(k, depth - 1, runs);
		free(k);
	}
	strlist_free(&kids);
}

static void build(struct table *tb, const struct strlist *runs)
{
	for (size_t i = 0; i < runs->n; i++) {
		/* groups of earlier runs must not collect this run's .incomplete */
		struct table one = { 0 };
		scan_run(runs->v[i], &one);
		for (size_t k = 0; k < one.n; k++) {
			struct group *src = &one.v[k];
			struct group *g = group_for(tb, src->task, src->harness, src->model, src->stage);
			g->trials += src->trials;
			g->scored += src->scored;
			g->passed += src->passed;
			g->infra += src->infra;
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
		table_free(&one);
	}
	tb->runs = (long)runs->n;
	qsort(tb->v, tb->n, sizeof *tb->v, cmp_group);
	for (size_t i = 0; i < tb->n; i++) {
		struct group *g = &tb->v[i];
		g->raw = NULL;
		for (size_t k = 0; k < tb->n; k++) {
			struct group *r = &tb->v[k];
			if (r != g && !strcmp(r->stage, "raw") && !strcmp(r->task, g->task) &&
			    !strcmp(r->harness, g->harness) && !strcmp(r->model, g->model))
				g->raw = r;
		}
	}
}

static double rate(const struct group *g)
{
	return g->scored ? (double)g->passed / (double)g->scored : NAN;
}

static void set_maybe(cJSON *o, const char *k, double v)
{
	if (isnan(v))
		json_set(o, k, cJSON_CreateNull());
	else
		json_set_num(o, k, v);
}

/* Rounded for the files: 4 decimals for rates, 2 for the rest. */
static double r4(double v)
{
	return isnan(v) ? v : round(v * 1e4) / 1e4;
}
static double r2(double v)
{
	return isnan(v) ? v : round(v * 100) / 100;
}
static double mean(double sum, long n)
{
	return n ? sum / (double)n : NAN;
}
static double delta_pp(const struct group *g)
{
	if (!g->raw)
		return NAN;
	return (rate(g) - rate(g->raw)) * 100;
}

static cJSON *group_json(const struct group *g)
{
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "task", g->task);
	json_set_str(o, "harness", g->harness);
	json_set_str(o, "model", g->model);
	json_set_str(o, "stage", g->stage);
	json_set_num(o, "trials", (double)g->trials);
	json_set_num(o, "scored", (double)g->scored);
	json_set_num(o, "passed", (double)g->passed);
	json_set_num(o, "infra_errors", (double)g->infra);
	json_set_num(o, "verifier_errors", (double)g->verr);
	json_set_num(o, "timeouts", (double)g->timeouts);
	json_set_num(o, "incomplete_attempts", (double)g->incomplete);
	set_maybe(o, "pass_rate", r4(rate(g)));
	double lo, hi;
	stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
	cJSON *ci = cJSON_CreateArray();
	if (g->scored) {
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r4(lo)));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r4(hi)));
	}
	json_set(o, "pass_rate_ci95", g->scored ? ci : (cJSON_Delete(ci), cJSON_CreateNull()));
	cJSON *pk = cJSON_CreateObject();
	for (long k = 1; k <= g->scored; k++) {
		char key[24];
		snprintf(key, sizeof key, "%ld", k);
		json_set_num(pk, key, r4(stats_pass_at_k(g->passed, g->scored, k)));
	}
	json_set(o, "pass_at_k", pk);
	set_maybe(o, "mean_reward", r4(mean(g->reward_sum, g->reward_n)));
	set_maybe(o, "skill_invocation_rate", r4(g->skill_den ? (double)g->invoked / (double)g->skill_den : NAN));
	set_maybe(o, "skill_read_rate", r4(g->skill_den ? (double)g->read / (double)g->skill_den : NAN));
	json_set(o, "errors", cJSON_Duplicate(g->errors, true));
	json_set(o, "error_categories", cJSON_Duplicate(g->categories, true));
	set_maybe(o, "mean_tokens", r2(mean(g->tok_sum, g->tok_n)));
	set_maybe(o, "total_tokens", g->tok_n ? g->tok_sum : NAN);
	set_maybe(o, "mean_cost_usd", g->cost_n ? round(mean(g->cost_sum, g->cost_n) * 1e6) / 1e6 : NAN);
	set_maybe(o, "total_cost_usd", g->cost_n ? round(g->cost_sum * 1e6) / 1e6 : NAN);
	set_maybe(o, "mean_seconds", r2(mean(g->sec_sum, g->sec_n)));
	set_maybe(o, "mean_agent_seconds", r2(mean(g->agent_sec_sum, g->agent_sec_n)));
	set_maybe(o, "delta_pp_vs_raw", r2(delta_pp(g)));
	return o;
}

static void fmt_num(struct buf *b, double v, const char *fmt)
{
	if (isnan(v))
		buf_adds(b, "");
	else
		buf_printf(b, fmt, v);
}

static const long csv_k[] = { 1, 3, 5, 10 };

static void render_csv(const struct table *tb, struct buf *b)
{
	buf_adds(b, "task,harness,model,stage,trials,scored,passed,pass_rate,ci95_low,ci95_high");
	for (size_t i = 0; i < ARRAY_LEN(csv_k); i++)
		buf_printf(b, ",pass@%ld", csv_k[i]);
	buf_adds(b, ",mean_reward,skill_invocation_rate,skill_read_rate,timeouts,infra_errors,verifier_errors,"
		 "incomplete_attempts,mean_tokens,total_tokens,mean_cost_usd,total_cost_usd,mean_seconds,"
		 "mean_agent_seconds,delta_pp_vs_raw\n");
	for (size_t i = 0; i < tb->n; i++) {
		const struct group *g = &tb->v[i];
		double lo, hi;
		stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
		buf_printf(b, "%s,%s,%s,%s,%ld,%ld,%ld,", g->task, g->harness, g->model, g->stage, g->trials, g->scored,
			   g->passed);
		fmt_num(b, rate(g), "%.4f");
		buf_addc(b, ',');
		fmt_num(b, g->scored ? lo : NAN, "%.4f");
		buf_addc(b, ',');
		fmt_num(b, g->scored ? hi : NAN, "%.4f");
		for (size_t k = 0; k < ARRAY_LEN(csv_k); k++) {
			buf_addc(b, ',');
			fmt_num(b, csv_k[k] <= g->scored ? stats_pass_at_k(g->passed, g->scored, csv_k[k]) : NAN, "%.4f");
		}
		buf_addc(b, ',');
		fmt_num(b, mean(g->reward_sum, g->reward_n), "%.4f");
		buf_addc(b, ',');
		fmt_num(b, g->skill_den ? (double)g->invoked / (double)g->skill_den : NAN, "%.4f");
		buf_addc(b, ',');
		fmt_num(b, g->skill_den ? (double)g->read / (double)g->skill_den : NAN, "%.4f");
		buf_printf(b, ",%ld,%ld,%ld,%ld,", g->timeouts, g->infra, g->verr, g->incomplete);
		fmt_num(b, mean(g->tok_sum, g->tok_n), "%.1f");
		buf_addc(b, ',');
		fmt_num(b, g->tok_n ? g->tok_sum : NAN, "%.0f");
		buf_addc(b, ',');
		fmt_num(b, mean(g->cost_sum, g->cost_n), "%.6f");
		buf_addc(b, ',');
		fmt_num(b, g->cost_n ? g->cost_sum : NAN, "%.6f");
		buf_addc(b, ',');
		fmt_num(b, mean(g->sec_sum, g->sec_n), "%.1f");
		buf_addc(b, ',');
		fmt_num(b, mean(g->agent_sec_sum, g->agent_sec_n), "%.1f");
		buf_addc(b, ',');
		fmt_num(b, delta_pp(g), "%+.1f");
		buf_addc(b, '\n');
	}
}

static void pct(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "–");
	else
		buf_printf(b, "%.1f%%", v * 100);
}

static void render_md(const struct table *tb, struct buf *b)
{
	buf_adds(b, "| Task | Harness | Model | Stage | Trials | Pass rate [95% CI] | pass@k | Δ vs raw | Mean reward "
		 "| Skill invoked | Errors excluded | Timeouts | Tokens/trial | Cost/trial | Time/trial |\n");
	buf_adds(b, "|---|---|---|---|---:|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < tb->n; i++) {
		const struct group *g = &tb->v[i];
		double lo, hi;
		stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
		buf_printf(b, "| %s | %s | %s | %s | %ld | ", g->task, g->harness, g->model, g->stage, g->trials);
		if (g->scored) {
			buf_printf(b, "%ld/%ld = ", g->passed, g->scored);
			pct(b, rate(g));
			buf_adds(b, " [");
			pct(b, lo);
			buf_adds(b, ", ");
			pct(b, hi);
			buf_adds(b, "]");
		} else {
			buf_adds(b, "–");
		}
		buf_adds(b, " | ");
		bool any = false;
		for (size_t k = 0; k < ARRAY_LEN(csv_k); k++) {
			if (csv_k[k] > g->scored)
				continue;
			buf_printf(b, "%s@%ld %.2f", any ? ", " : "", csv_k[k], stats_pass_at_k(g->passed, g->scored, csv_k[k]));
			any = true;
		}
		if (!any)
			buf_adds(b, "–");
		buf_adds(b, " | ");
		double d = delta_pp(g);
		if (isnan(d) || !strcmp(g->stage, "raw"))
			buf_adds(b, "–");
		else
			buf_printf(b, "%+.1f pp", d);
		buf_adds(b, " | ");
		fmt_num(b, mean(g->reward_sum, g->reward_n), "%.2f");
		buf_adds(b, " | ");
		pct(b, g->skill_den ? (double)g->invoked / (double)g->skill_den : NAN);
		buf_adds(b, " | ");
		if (g->infra || g->verr)
			buf_printf(b, "%ld infra, %ld verifier", g->infra, g->verr);
		else
			buf_adds(b, "0");
		if (g->incomplete)
			buf_printf(b, " (+%ld incomplete)", g->incomplete);
		buf_printf(b, " | %ld | ", g->timeouts);
		fmt_num(b, mean(g->tok_sum, g->tok_n), "%.0f");
		buf_adds(b, " | ");
		double c = mean(g->cost_sum, g->cost_n);
		if (isnan(c))
			buf_adds(b, "–");
		else
			buf_printf(b, "$%.4f", c);
		buf_adds(b, " | ");
		double s = mean(g->sec_sum, g->sec_n);
		if (isnan(s))
			buf_adds(b, "–");
		else
			buf_printf(b, "%.0fs", s);
		buf_adds(b, " |\n");
	}
}

static const char md_notes[] =
	"\nPass rate = passed / scored trials; a trial passes when its verifier reward is exactly 1.0\n"
	"(BenchFlow's rule; a timed-out trial with reward 1.0 passes). Infra errors and verifier errors\n"
	"have no score: they are counted under \"Errors excluded\" and left out of the rate; incomplete\n"
	"attempts (kept in .incomplete/) are not trials at all. 95% CI: Wilson score interval.\n"
	"pass@k: unbiased estimator 1 - C(n-c,k)/C(n,k) over the n scored trials (Chen et al. 2021).\n"
	"Δ vs raw: pass-rate change against the raw stage of the same task, harness and model, in\n"
	"percentage points.\n";

static int write_all(const char *out, const struct table *tb, struct err *e)
{
	if (fs_mkdirs(out, e) < 0)
		return -1;
	cJSON *doc = cJSON_CreateObject();
	json_set_num(doc, "format", 1);
	json_set_num(doc, "runs", (double)tb->runs);
	cJSON *groups = cJSON_CreateArray();
	for (size_t i = 0; i < tb->n; i++)
		cJSON_AddItemToArray(groups, group_json(&tb->v[i]));
	json_set(doc, "groups", groups);
	char *p = path_join(out, "summary.json");
	int r = json_write_if_changed(p, doc, e);
	free(p);
	cJSON_Delete(doc);
	struct buf b = BUF_INIT;
	if (r >= 0) {
		render_csv(tb, &b);
		p = path_join(out, "summary.csv");
		r = fs_write_if_changed(p, b.data, b.len, e);
		free(p);
	}
	if (r >= 0) {
		buf_reset(&b);
		buf_adds(&b, "# skillc results\n\n");
		render_md(tb, &b);
		buf_adds(&b, md_notes);
		p = path_join(out, "summary.md");
		r = fs_write_if_changed(p, b.data, b.len, e);
		free(p);
	}
	buf_free(&b);
	return r < 0 ? -1 : 0;
}

/* Due and done trials over all runs: the trial targets each run's manifest
 * lists (written by the make working on it), and those in state "done". */
static void progress_counts(const struct strlist *runs, long *due, long *done)
{
	*due = *done = 0;
	for (size_t i = 0; i < runs->n; i++) {
		char *p = path_join(runs->v[i], "manifest.json");
		struct err e;
		cJSON *m = fs_exists(p) ? json_read_file(p, &e) : NULL;
		free(p);
		const cJSON *targets = json_get(m, "targets");
		if (!cJSON_IsObject(targets) || !targets->child)
			*due += 1; /* nothing known yet: never done */
		for (const cJSON *t = targets ? targets->child : NULL; t; t = t->next) {
			const char *dot = strrchr(t->string, '.');
			if (!dot || dot - t->string < 5 || strncmp(dot - 5, "-eval", 5))
				continue;
			(*due)++;
			if (cJSON_IsString(t) && !strcmp(t->valuestring, "done"))
				(*done)++;
		}
		cJSON_Delete(m);
	}
}

static int watch(const struct strlist *paths, double timeout, double interval)
{
	double start = now_mono();
	bool tty = isatty(1);
	char *last = NULL;
	for (;;) {
		struct strlist runs = STRLIST_INIT;
		for (size_t i = 0; i < paths->n; i++)
			find_runs(paths->v[i], 2, &runs);
		struct table tb = { 0 };
		build(&tb, &runs);
		long due, done;
		progress_counts(&runs, &due, &done);
		struct buf b = BUF_INIT;
		render_md(&tb, &b);
		buf_printf(&b, "%ld of %ld due trials complete\n", done, due);
		if (!last || strcmp(last, b.data)) {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			fputs(b.data, stdout);
			fflush(stdout);
			free(last);
			last = buf_detach(&b);
		}
		buf_free(&b);
		table_free(&tb);
		strlist_free(&runs);
		if (due > 0 && done >= due) {
			free(last);
			return 0;
		}
		if (timeout > 0 && now_mono() - start >= timeout) {
			free(last);
			warnf("timed out after %.0fs with %ld of %ld due trials complete", timeout, done, due);
			return 2;
		}
		usleep((useconds_t)(interval * 1e6));
	}
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		die(2, "%s needs a value (see --help)", argv[*i]);
	return argv[++*i];
}

static double parse_pos(const char *flag, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || end == s || !(v > 0))
		die(2, "%s wants a positive number, not '%s'", flag, s);
	return v;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, VERSION);
	const char *out = NULL;
	bool watching = false;
	double timeout = 0, interval = 2;
	struct strlist paths = STRLIST_INIT;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out"))
			out = need_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "--watch"))
			watching = true;
		else if (!strcmp(argv[i], "--timeout"))
			timeout = parse_pos(argv[i], need_arg(argc, argv, &i));
		else if (!strcmp(argv[i], "--interval"))
			interval = parse_pos(argv[i], need_arg(argc, argv, &i));
		else if (argv[i][0] == '-')
			die(2, "unknown option '%s' (see --help)", argv[i]);
		else
			strlist_push(&paths, argv[i]);
	}
	if (!paths.n)
		die(2, "give a run folder or a results folder (see --help)");
	for (size_t i = 0; i < paths.n; i++)
		if (!fs_is_dir(paths.v[i]))
			die(2, "'%s' is not a folder: give a run folder or a results folder", paths.v[i]);
	if (watching) {
		int rc = watch(&paths, timeout, interval);
		strlist_free(&paths);
		return rc;
	}
	struct strlist runs = STRLIST_INIT;
	for (size_t i = 0; i < paths.n; i++)
		find_runs(paths.v[i], 2, &runs);
	if (!runs.n)
		die(2, "no runs under %s%s: no traces/ folder found (run make eval first)", paths.v[0],
		    paths.n > 1 ? " ..." : "");
	if (!out && paths.n > 1)
		die(2, "several folders given: say where the summary goes with --out DIR");
	struct table tb = { 0 };
	build(&tb, &runs);
	struct err e = { 0, "" };
	if (write_all(out ? out : paths.v[0], &tb, &e) < 0)
		die_err(&e);
	printf("%s: %zu row%s from %zu run%s -> %s/summary.{md,csv,json}\n", log_prog(), tb.n, tb.n == 1 ? "" : "s",
	       runs.n, runs.n == 1 ? "" : "s", out ? out : paths.v[0]);
	table_free(&tb);
	strlist_free(&runs);
	strlist_free(&paths);
	return 0;
}
