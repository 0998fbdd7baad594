#include "report/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/across.h"
#include "report/exact.h"
#include "report/pagebits.h"
#include "report/stats.h"

/* The pass@k columns of the csv and md tables. */
static const long table_k[] = { 1, 3, 5, 10 };

/* Rounded for the files: 4 decimals for rates, 2 for the rest, 6 for money. */
static double r4(double v)
{
	return isnan(v) ? v : round_to(v, 4);
}
static double r2(double v)
{
	return isnan(v) ? v : round_to(v, 2);
}
static double r6(double v)
{
	return isnan(v) ? v : round_to(v, 6);
}

static double ratio_vs_raw(const struct results_group *g, double sum, long n, double rsum, long rn)
{
	double a = results_mean(sum, n), b = g->raw ? results_mean(rsum, rn) : NAN;
	return isnan(a) || isnan(b) || b == 0 ? NAN : a / b;
}

/* Every number of a row, by its csv/json name. */
struct cols {
	double lo, hi, dlo, dhi, nlo, nhi;
	bool has_delta_ci, has_noskill_ci;
};

static void row_cols(const struct results_group *g, struct cols *c)
{
	stats_wilson(g->passed, g->scored, STATS_Z95, &c->lo, &c->hi);
	c->has_delta_ci = results_delta_ci(g, &c->dlo, &c->dhi);
	c->has_noskill_ci = results_delta_ci_vs(g, g->noskill, &c->nlo, &c->nhi);
}

static double delta_reward(const struct results_group *g)
{
	if (!g->raw)
		return NAN;
	return results_mean(g->reward_sum, g->reward_n) - results_mean(g->raw->reward_sum, g->raw->reward_n);
}

static double tokens_ratio(const struct results_group *g)
{
	return ratio_vs_raw(g, g->tok_sum, g->tok_n, g->raw ? g->raw->tok_sum : 0, g->raw ? g->raw->tok_n : 0);
}

static double seconds_ratio(const struct results_group *g)
{
	return ratio_vs_raw(g, g->sec_sum, g->sec_n, g->raw ? g->raw->sec_sum : 0, g->raw ? g->raw->sec_n : 0);
}

/* The row's known LLM money; NAN when it had calls and none was priced. */
static double llm_usd(const struct results_group *g)
{
	return g->llm_calls && g->llm_unknown == g->llm_calls ? NAN : round_to(g->llm_usd, 6);
}

static void set_maybe(cJSON *o, const char *k, double v)
{
	if (isnan(v))
		json_set(o, k, cJSON_CreateNull());
	else
		json_set_num(o, k, v);
}

static cJSON *pair_or_null(bool have, double a, double b)
{
	if (!have)
		return cJSON_CreateNull();
	cJSON *v = cJSON_CreateArray();
	cJSON_AddItemToArray(v, cJSON_CreateNumber(a));
	cJSON_AddItemToArray(v, cJSON_CreateNumber(b));
	return v;
}

static cJSON *stale_json(const struct results_group *g)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < g->nt; i++) {
		if (!g->t[i].stale)
			continue;
		cJSON *o = cJSON_CreateObject();
		json_set_str(o, "test", g->t[i].test);
		json_set_str(o, "why", g->t[i].stale);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *group_json(const struct results_group *g)
{
	struct cols c;
	row_cols(g, &c);
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "bench", g->bench);
	json_set_str(o, "task", g->task);
	json_set_str(o, "harness", g->harness);
	json_set_str(o, "model", g->model);
	json_set_str(o, "runner", g->runner);
	json_set_str(o, "stage", g->stage);
	json_set_str(o, "skill_source", *g->source ? g->source : NULL);
	json_set_num(o, "trials", (double)g->trials);
	json_set_num(o, "stale_trials", (double)g->stale);
	json_set(o, "stale", stale_json(g));
	json_set_num(o, "scored", (double)g->scored);
	json_set_num(o, "passed", (double)g->passed);
	json_set_num(o, "infra_errors", (double)g->infra);
	json_set_num(o, "verifier_errors", (double)g->verr);
	json_set_num(o, "timeouts", (double)g->timeouts);
	json_set_num(o, "incomplete_attempts", (double)g->incomplete);
	json_set_num(o, "environment_not_reproduced", (double)g->env_not_reproduced);
	json_set_num(o, "reused_trials", (double)g->reused);
	json_set_num(o, "selection_trials_reused", (double)g->selection);
	set_maybe(o, "pass_rate", r4(results_pass_rate(g)));
	json_set(o, "pass_rate_ci95", pair_or_null(g->scored > 0, r4(c.lo), r4(c.hi)));
	cJSON *pk = cJSON_CreateObject();
	for (long k = 1; k <= g->scored; k++) {
		char key[24];
		snprintf(key, sizeof key, "%ld", k);
		json_set_num(pk, key, r4(stats_pass_at_k(g->passed, g->scored, k)));
	}
	json_set(o, "pass_at_k", pk);
	set_maybe(o, "mean_reward", r4(results_mean(g->reward_sum, g->reward_n)));
	set_maybe(o, "skill_invocation_rate", r4(results_skill_rate(g, g->invoked)));
	set_maybe(o, "skill_read_rate", r4(results_skill_rate(g, g->read)));
	json_set(o, "errors", cJSON_Duplicate(g->errors, true));
	json_set(o, "error_categories", cJSON_Duplicate(g->categories, true));
	set_maybe(o, "mean_tokens", r2(results_mean(g->tok_sum, g->tok_n)));
	set_maybe(o, "total_tokens", g->tok_n ? g->tok_sum : NAN);
	set_maybe(o, "mean_tool_calls", r2(results_mean(g->calls_sum, g->calls_n)));
	set_maybe(o, "mean_seconds", r2(results_mean(g->sec_sum, g->sec_n)));
	set_maybe(o, "mean_agent_seconds", r2(results_mean(g->agent_sec_sum, g->agent_sec_n)));
	set_maybe(o, "mean_cost_usd", r6(results_mean(g->cost_sum, g->cost_n)));
	set_maybe(o, "total_cost_usd", g->cost_n ? r6(g->cost_sum) : NAN);
	json_set_num(o, "cost_unknown_trials", (double)g->cost_unknown);
	json_set_num(o, "llm_calls", (double)g->llm_calls);
	json_set_num(o, "llm_tokens_in", g->llm_tokens_in);
	json_set_num(o, "llm_tokens_out", g->llm_tokens_out);
	json_set_str(o, "external_model", g->external && *g->external ? g->external : NULL);
	set_maybe(o, "llm_cost_usd", llm_usd(g));
	json_set_num(o, "llm_cost_unknown_calls", (double)g->llm_unknown);
	json_set_num(o, "trials_run_here", (double)g->ran);
	set_maybe(o, "stage_cost_usd", r6(results_stage_usd(g)));
	json_set_num(o, "stage_cost_unknown_items", (double)(g->llm_unknown + g->spent_unknown));
	set_maybe(o, "delta_pp_vs_raw", r2(results_delta_pp(g)));
	json_set(o, "delta_pp_ci95", pair_or_null(c.has_delta_ci, r2(c.dlo), r2(c.dhi)));
	set_maybe(o, "delta_reward_vs_raw", r4(delta_reward(g)));
	set_maybe(o, "tokens_ratio_vs_raw", r4(tokens_ratio(g)));
	set_maybe(o, "seconds_ratio_vs_raw", r4(seconds_ratio(g)));
	json_set_bool(o, "regressed", results_regressed(g));
	set_maybe(o, "delta_pp_vs_noskill", r2(results_delta_pp_vs(g, g->noskill)));
	json_set(o, "delta_pp_vs_noskill_ci95", pair_or_null(c.has_noskill_ci, r2(c.nlo), r2(c.nhi)));
	json_set_bool(o, "worse_than_noskill", results_worse_than_noskill(g));
	return o;
}

/* --------------------------------------------------------- across tasks */

/* One bench x harness x model x runner x stage: its tasks' pass@1 averaged
 * (every task weighs the same, as SkillsBench reports it). */
struct agg {
	const struct results_group *first;
	long tasks, scored_tasks, regressed, with_raw;
	long worse_than_noskill, with_noskill;
	double pass_sum;
};

static bool same_agg(const struct results_group *a, const struct results_group *b)
{
	return !strcmp(a->bench, b->bench) && !strcmp(a->harness, b->harness) && !strcmp(a->model, b->model) &&
	       !strcmp(a->runner, b->runner) && !strcmp(a->stage, b->stage);
}

static int cmp_agg(const void *x, const void *y)
{
	const struct results_group *a = ((const struct agg *)x)->first, *b = ((const struct agg *)y)->first;
	int c;
	if ((c = strcmp(a->bench, b->bench)) || (c = strcmp(a->harness, b->harness)) ||
	    (c = strcmp(a->model, b->model)) || (c = strcmp(a->runner, b->runner)))
		return c;
	return results_stage_cmp(a->stage, b->stage);
}

/* The aggregates, sorted; *n of them; caller frees. */
static struct agg *aggregates(const struct results_table *tb, size_t *n)
{
	struct agg *v = xcalloc(tb->n ? tb->n : 1, sizeof *v);
	*n = 0;
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i];
		struct agg *a = NULL;
		for (size_t k = 0; k < *n && !a; k++)
			if (same_agg(v[k].first, g))
				a = &v[k];
		if (!a) {
			a = &v[(*n)++];
			a->first = g;
		}
		a->tasks++;
		if (g->scored) {
			a->scored_tasks++;
			a->pass_sum += results_pass_rate(g);
		}
		if (!isnan(results_delta_pp(g)) && strcmp(g->stage, "noskill")) {
			a->with_raw++;
			a->regressed += results_regressed(g);
		}
		if (!isnan(results_delta_pp_vs(g, g->noskill))) {
			a->with_noskill++;
			a->worse_than_noskill += results_worse_than_noskill(g);
		}
	}
	qsort(v, *n, sizeof *v, cmp_agg);
	return v;
}

/* The across-task figures (across.h) of one aggregate's stage against raw,
 * task by task; NULL below 2 tasks with both scored (or counts too large
 * for the exact tests). */
static cJSON *agg_across(const struct results_table *tb, const struct results_group *first)
{
	if (!strcmp(first->stage, "raw") || !strcmp(first->stage, "noskill"))
		return NULL;
	struct across_task *t = xcalloc(tb->n + 1, sizeof *t);
	size_t k = 0;
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i], *r = g->raw;
		if (same_agg(first, g) && r && r->scored && g->scored && r->scored <= EXACT_MAX_N && g->scored <= EXACT_MAX_N)
			t[k++] = (struct across_task){ g->task, r->passed, r->scored, g->passed, g->scored };
	}
	struct err e = { 0 };
	cJSON *o = k >= 2 ? across_json(t, k, 0.05, &e) : NULL;
	free(t);
	return o;
}

cJSON *summary_by_bench(const struct results_table *tb)
{
	size_t n;
	struct agg *v = aggregates(tb, &n);
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		const struct results_group *g = v[i].first;
		cJSON *o = cJSON_CreateObject();
		json_set_str(o, "bench", g->bench);
		json_set_str(o, "harness", g->harness);
		json_set_str(o, "model", g->model);
		json_set_str(o, "runner", g->runner);
		json_set_str(o, "stage", g->stage);
		json_set_num(o, "tasks", (double)v[i].tasks);
		set_maybe(o, "mean_pass_at_1", v[i].scored_tasks ? r4(v[i].pass_sum / (double)v[i].scored_tasks) : NAN);
		json_set_num(o, "tasks_with_raw", (double)v[i].with_raw);
		json_set_num(o, "regressed_tasks", (double)v[i].regressed);
		json_set_num(o, "tasks_with_noskill", (double)v[i].with_noskill);
		json_set_num(o, "worse_than_noskill_tasks", (double)v[i].worse_than_noskill);
		cJSON *across = agg_across(tb, g);
		if (across)
			json_set(o, "across", across);
		cJSON_AddItemToArray(arr, o);
	}
	free(v);
	return arr;
}

cJSON *summary_json(const struct results_table *tb)
{
	cJSON *doc = cJSON_CreateObject();
	json_set_num(doc, "format", 2);
	json_set_num(doc, "runs", (double)tb->runs);
	cJSON *groups = cJSON_CreateArray();
	long regressed = 0, worse = 0;
	for (size_t i = 0; i < tb->n; i++) {
		cJSON_AddItemToArray(groups, group_json(&tb->v[i]));
		regressed += results_regressed(&tb->v[i]);
		worse += results_worse_than_noskill(&tb->v[i]);
	}
	json_set(doc, "groups", groups);
	json_set(doc, "by_bench", summary_by_bench(tb));
	json_set_num(doc, "regressed_rows", (double)regressed);
	json_set_num(doc, "worse_than_noskill_rows", (double)worse);
	long unknown;
	double spent = results_spent(tb, &unknown);
	cJSON *cost = cJSON_CreateObject();
	set_maybe(cost, "spent_usd", spent == 0 && unknown ? NAN : r6(spent));
	json_set_num(cost, "unknown_items", (double)unknown);
	json_set_num(cost, "llm_calls", (double)tb->llm_calls);
	json_set_num(cost, "llm_usd", r6(tb->llm_usd));
	json_set_num(cost, "trial_usd", r6(tb->trial_usd));
	json_set(doc, "cost", cost);
	return doc;
}

/* ------------------------------------------------------------------ csv */

/* A csv field, quoted as RFC 4180 says when it holds a comma, a quote or a
 * line break (a quote inside is doubled). */
static void csv_field(struct buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		buf_adds(b, s);
		return;
	}
	buf_addc(b, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			buf_addc(b, '"');
		buf_addc(b, *p);
	}
	buf_addc(b, '"');
}

/* v in fmt, or nothing when NAN (an empty csv cell). */
static void fmt_num(struct buf *b, double v, const char *fmt)
{
	if (!isnan(v))
		buf_printf(b, fmt, v);
}

static const char csv_header[] =
	"bench,task,harness,model,runner,stage,trials,stale,scored,passed,pass_rate,ci95_low,ci95_high,"
	"pass@1,pass@3,pass@5,pass@10,mean_reward,skill_invocation_rate,skill_read_rate,timeouts,infra_errors,"
	"verifier_errors,incomplete_attempts,reused,selection_reused,mean_tokens,total_tokens,mean_tool_calls,mean_seconds,"
	"mean_agent_seconds,mean_cost_usd,total_cost_usd,cost_unknown,llm_calls,llm_cost_usd,llm_cost_unknown,"
	"stage_cost_usd,stage_cost_unknown,delta_pp_vs_raw,delta_ci95_low,"
	"delta_ci95_high,delta_reward_vs_raw,tokens_ratio_vs_raw,seconds_ratio_vs_raw,regressed,"
	"delta_pp_vs_noskill,delta_noskill_ci95_low,delta_noskill_ci95_high,worse_than_noskill,skill_source\r\n";

static void csv_row(const struct results_group *g, struct buf *b)
{
	struct cols c;
	row_cols(g, &c);
	const char *names[] = { g->bench, g->task, g->harness, g->model, g->runner, g->stage };
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		csv_field(b, names[i]);
		buf_addc(b, ',');
	}
	buf_printf(b, "%ld,%ld,%ld,%ld,", g->trials, g->stale, g->scored, g->passed);
	const double rates[] = { results_pass_rate(g), g->scored ? c.lo : NAN, g->scored ? c.hi : NAN };
	for (size_t i = 0; i < ARRAY_LEN(rates); i++) {
		fmt_num(b, rates[i], "%.4f");
		buf_addc(b, ',');
	}
	for (size_t k = 0; k < ARRAY_LEN(table_k); k++) {
		fmt_num(b, table_k[k] <= g->scored ? stats_pass_at_k(g->passed, g->scored, table_k[k]) : NAN, "%.4f");
		buf_addc(b, ',');
	}
	fmt_num(b, results_mean(g->reward_sum, g->reward_n), "%.4f");
	buf_addc(b, ',');
	fmt_num(b, results_skill_rate(g, g->invoked), "%.4f");
	buf_addc(b, ',');
	fmt_num(b, results_skill_rate(g, g->read), "%.4f");
	buf_printf(b, ",%ld,%ld,%ld,%ld,%ld,%ld,", g->timeouts, g->infra, g->verr, g->incomplete, g->reused,
		   g->selection);
	const struct {
		double v;
		const char *fmt;
	} rest[] = {
		{ results_mean(g->tok_sum, g->tok_n), "%.1f" },
		{ g->tok_n ? g->tok_sum : NAN, "%.0f" },
		{ results_mean(g->calls_sum, g->calls_n), "%.2f" },
		{ results_mean(g->sec_sum, g->sec_n), "%.1f" },
		{ results_mean(g->agent_sec_sum, g->agent_sec_n), "%.1f" },
		{ results_mean(g->cost_sum, g->cost_n), "%.6f" },
		{ g->cost_n ? g->cost_sum : NAN, "%.6f" },
		{ (double)g->cost_unknown, "%.0f" },
		{ (double)g->llm_calls, "%.0f" },
		{ llm_usd(g), "%.6f" },
		{ (double)g->llm_unknown, "%.0f" },
		{ results_stage_usd(g), "%.6f" },
		{ (double)(g->llm_unknown + g->spent_unknown), "%.0f" },
		{ results_delta_pp(g), "%+.1f" },
		{ c.has_delta_ci ? c.dlo : NAN, "%+.1f" },
		{ c.has_delta_ci ? c.dhi : NAN, "%+.1f" },
		{ delta_reward(g), "%+.4f" },
		{ tokens_ratio(g), "%.4f" },
		{ seconds_ratio(g), "%.4f" },
	};
	for (size_t i = 0; i < ARRAY_LEN(rest); i++) {
		fmt_num(b, rest[i].v, rest[i].fmt);
		buf_addc(b, ',');
	}
	if (g->raw && strcmp(g->stage, "raw") && strcmp(g->stage, "noskill") && !isnan(results_delta_pp(g)))
		buf_adds(b, results_regressed(g) ? "1" : "0");
	double vs_noskill[] = { results_delta_pp_vs(g, g->noskill), c.has_noskill_ci ? c.nlo : NAN,
				c.has_noskill_ci ? c.nhi : NAN };
	for (size_t i = 0; i < ARRAY_LEN(vs_noskill); i++) {
		buf_addc(b, ',');
		fmt_num(b, vs_noskill[i], "%+.1f");
	}
	buf_addc(b, ',');
	if (!isnan(vs_noskill[0]))
		buf_adds(b, results_worse_than_noskill(g) ? "1" : "0");
	buf_addc(b, ',');
	csv_field(b, g->source);
	buf_adds(b, "\r\n");
}

static void summary_csv(const struct results_table *tb, struct buf *b)
{
	buf_adds(b, csv_header);
	for (size_t i = 0; i < tb->n; i++)
		csv_row(&tb->v[i], b);
}

/* ------------------------------------------------------------------- md */

/* A name in a table cell: '|' would end the cell. */
static void md_cell(struct buf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			buf_addc(b, '\\');
		buf_addc(b, *p == '\n' ? ' ' : *p);
	}
}

static void md_pass_rate(struct buf *b, const struct results_group *g)
{
	if (!g->scored) {
		buf_adds(b, "–");
		return;
	}
	double lo, hi;
	stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
	buf_printf(b, "%ld/%ld = ", g->passed, g->scored);
	page_pct(b, results_pass_rate(g));
	buf_adds(b, " [");
	page_pct(b, lo);
	buf_adds(b, ", ");
	page_pct(b, hi);
	buf_adds(b, "]");
}

static void md_pass_at_k(struct buf *b, const struct results_group *g)
{
	bool any = false;
	for (size_t k = 0; k < ARRAY_LEN(table_k); k++) {
		if (table_k[k] > g->scored)
			continue;
		buf_printf(b, "%s@%ld %.2f", any ? ", " : "", table_k[k], stats_pass_at_k(g->passed, g->scored, table_k[k]));
		any = true;
	}
	if (!any)
		buf_adds(b, "–");
}

/* The change against base (raw, or the no-skill baseline) with its interval. */
static void md_delta(struct buf *b, const struct results_group *g, const struct results_group *base)
{
	double d = results_delta_pp_vs(g, base), lo, hi;
	if (isnan(d)) {
		buf_adds(b, "–");
		return;
	}
	buf_printf(b, "%+.1f pp", d);
	if (results_delta_ci_vs(g, base, &lo, &hi))
		buf_printf(b, " [%+.1f, %+.1f]", lo, hi);
}

/* "$0.0042", "$0.0042 (+2 unknown)", "unknown". */
static void md_usd(struct buf *b, double usd, long unknown)
{
	if (isnan(usd)) {
		buf_adds(b, "unknown");
		return;
	}
	buf_printf(b, "$%.4f", usd);
	if (unknown)
		buf_printf(b, " (+%ld unknown)", unknown);
}

static void md_row(struct buf *b, const struct results_group *g, bool noskill)
{
	const char *names[] = { g->bench, g->task, g->harness, g->model, g->runner, g->stage };
	buf_adds(b, "|");
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		buf_adds(b, " ");
		md_cell(b, *names[i] ? names[i] : "–");
		if (i == 1 && *g->source) { /* a run of SKILL_SOURCE: which skill */
			buf_adds(b, " (");
			md_cell(b, g->source);
			buf_adds(b, ")");
		}
		if (i == ARRAY_LEN(names) - 1 && g->selection)
			buf_adds(b, " (selection trials reused)");
		buf_adds(b, " |");
	}
	buf_printf(b, " %ld", g->trials);
	if (g->stale)
		buf_printf(b, " (+%ld stale)", g->stale);
	buf_adds(b, " | ");
	md_pass_rate(b, g);
	buf_adds(b, " | ");
	md_pass_at_k(b, g);
	buf_adds(b, " | ");
	md_delta(b, g, g->raw);
	buf_adds(b, " | ");
	if (noskill) {
		md_delta(b, g, g->noskill);
		buf_adds(b, " | ");
	}
	page_num(b, results_mean(g->reward_sum, g->reward_n), "%.2f");
	buf_adds(b, " | ");
	page_pct(b, results_skill_rate(g, g->invoked));
	buf_adds(b, " | ");
	if (g->infra || g->verr)
		buf_printf(b, "%ld infra, %ld verifier", g->infra, g->verr);
	else
		buf_adds(b, "0");
	if (g->incomplete)
		buf_printf(b, " (+%ld incomplete)", g->incomplete);
	buf_printf(b, " | %ld | ", g->timeouts);
	page_num(b, results_mean(g->tok_sum, g->tok_n), "%.0f");
	buf_adds(b, " | ");
	page_num(b, results_mean(g->cost_sum, g->cost_n), "$%.4f");
	if (g->cost_unknown)
		buf_printf(b, " (%ld unknown)", g->cost_unknown);
	buf_adds(b, " | ");
	double secs = results_mean(g->sec_sum, g->sec_n);
	if (!isnan(secs) && secs < 1) /* "0s" says nothing of a 300 ms trial */
		buf_printf(b, "%.0fms", secs * 1000);
	else
		page_num(b, secs, "%.0fs");
	buf_adds(b, " | ");
	md_usd(b, results_stage_usd(g), g->llm_unknown + g->spent_unknown);
	buf_adds(b, " |\n");
}

/* Whether any row is the no-skill baseline (then the md tables have its columns). */
static bool has_noskill(const struct results_table *tb)
{
	for (size_t i = 0; i < tb->n; i++)
		if (!strcmp(tb->v[i].stage, "noskill"))
			return true;
	return false;
}

void summary_md_table(const struct results_table *tb, struct buf *b)
{
	bool noskill = has_noskill(tb);
	buf_printf(b, "| Bench | Task | Harness | Model | Runner | Stage | Trials | Pass rate [95%% CI] | pass@k "
		      "| Δ vs raw [95%% CI] |%s Mean reward | Skill invoked | Errors excluded | Timeouts | Tokens/trial "
		      "| Cost/trial | Time/trial | Stage cost |\n",
		   noskill ? " Δ vs no-skill [95% CI] |" : "");
	buf_printf(b, "|---|---|---|---|---|---|---:|---|---|---:|%s---:|---:|---|---:|---:|---:|---:|---:|\n",
		   noskill ? "---:|" : "");
	for (size_t i = 0; i < tb->n; i++)
		md_row(b, &tb->v[i], noskill);
}

/* The table across tasks: mean pass@1 by bench x harness x model x runner x stage. */
static void md_aggregates(const struct results_table *tb, struct buf *b)
{
	size_t n;
	struct agg *v = aggregates(tb, &n);
	bool noskill = has_noskill(tb);
	buf_printf(b, "\n## By bench, harness and model\n\n"
		      "| Bench | Harness | Model | Runner | Stage | Tasks | Mean pass@1 | Regressed vs raw |%s\n"
		      "|---|---|---|---|---|---:|---:|---:|%s\n",
		   noskill ? " Worse than no-skill |" : "", noskill ? "---:|" : "");
	for (size_t i = 0; i < n; i++) {
		const struct results_group *g = v[i].first;
		const char *names[] = { g->bench, g->harness, g->model, g->runner, g->stage };
		buf_adds(b, "|");
		for (size_t k = 0; k < ARRAY_LEN(names); k++) {
			buf_adds(b, " ");
			md_cell(b, *names[k] ? names[k] : "–");
			buf_adds(b, " |");
		}
		buf_printf(b, " %ld | ", v[i].tasks);
		page_pct(b, v[i].scored_tasks ? v[i].pass_sum / (double)v[i].scored_tasks : NAN);
		if (strcmp(g->stage, "raw") && v[i].with_raw)
			buf_printf(b, " | %ld of %ld |", v[i].regressed, v[i].with_raw);
		else
			buf_adds(b, " | – |");
		if (noskill && v[i].with_noskill)
			buf_printf(b, " %ld of %ld |", v[i].worse_than_noskill, v[i].with_noskill);
		else if (noskill)
			buf_adds(b, " – |");
		buf_adds(b, "\n");
	}
	free(v);
}

/* "Across tasks": each aggregate of 2 or more tasks with raw, its mean
 * change and the tests across tasks; nothing when there is none. */
static void md_across(const struct results_table *tb, struct buf *b)
{
	size_t n;
	struct agg *v = aggregates(tb, &n);
	bool head = false;
	for (size_t i = 0; i < n; i++) {
		cJSON *a = agg_across(tb, v[i].first);
		if (!a)
			continue;
		if (!head)
			buf_adds(b, "\n## Across tasks (vs raw, the task is the unit; docs/statistics.md)\n\n"
				    "| Harness | Model | Stage | Tasks | Mean change [95%] | Normalized gain | Sign test p | Stratified p | Power at the observed gain |\n"
				    "|---|---|---|---:|---:|---:|---:|---:|---|\n");
		head = true;
		const cJSON *ci = json_get(a, "ci95");
		buf_adds(b, "| ");
		md_cell(b, v[i].first->harness);
		buf_adds(b, " | ");
		md_cell(b, v[i].first->model);
		buf_printf(b, " | %s | %ld | %+.1f pp [%+.1f, %+.1f] | ", v[i].first->stage, (long)json_num(a, "tasks", 0),
			   100 * json_num(a, "mean_delta", 0), 100 * ci->child->valuedouble, 100 * ci->child->next->valuedouble);
		page_num(b, json_num(a, "normalized_gain", NAN), "%.2f");
		buf_printf(b, " | %.3g | %.3g | ", json_num(json_get(a, "sign_test"), "p", 1),
			   json_num(json_get(a, "stratified"), "p", 1));
		if (json_bool(a, "too_small", false))
			buf_printf(b, "%.2f: too small to show its own gain |\n", json_num(a, "power_at_observed", 0));
		else if (isfinite(json_num(a, "power_at_observed", NAN)))
			buf_printf(b, "%.2f |\n", json_num(a, "power_at_observed", 0));
		else
			buf_adds(b, "no gain observed |\n");
		cJSON_Delete(a);
	}
	free(v);
}

/* The stale trials, one line each, so nobody wonders where they went. */
static void md_stale(const struct results_table *tb, struct buf *b)
{
	bool any = false;
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i];
		for (size_t k = 0; k < g->nt; k++) {
			if (!g->t[k].stale)
				continue;
			if (!any)
				buf_adds(b, "\n## Stale trials (kept, not counted)\n\n");
			any = true;
			buf_adds(b, "- ");
			md_cell(b, g->task);
			buf_printf(b, " %s %s: %s\n", g->stage, g->t[k].test, g->t[k].stale);
		}
	}
}

static const char md_notes[] =
	"\nPass rate = passed / scored trials; a trial passes when its verifier reward is exactly 1.0\n"
	"(BenchFlow's rule; a timed-out trial with reward 1.0 passes). Infra errors and verifier errors\n"
	"have no score: they are counted under \"Errors excluded\" and left out of the rate; incomplete\n"
	"attempts (kept in .incomplete/) are not trials at all. A stage counts its current trials only:\n"
	"indexes 1..REPEAT (the trials its run has due) of the skill it evaluates now; other trial\n"
	"folders are stale (listed, never counted). 95% CI: Wilson score interval.\n"
	"pass@k: unbiased estimator 1 - C(n-c,k)/C(n,k) over the n scored trials (Chen et al. 2021).\n"
	"Δ vs raw: pass-rate change against the raw stage of the same bench, task, harness, model and\n"
	"runner, in percentage points, with Newcombe's 95% interval for a difference of proportions.\n"
	"A stage regressed when its pass rate is below raw's. Mean pass@1 weighs every task the same.\n"
	"Δ vs no-skill (when the run has the no-skill baseline, stage noskill: the same task, harness and\n"
	"model with no skill at all): the same against it; \"Worse than no-skill\" counts the tasks whose\n"
	"stage passes less often than with no skill.\n"
	"\"selection trials reused\": final trials that are the accepted deep round's own (its SKILL.md\n"
	"equals S_final's): optimistic, as the round was chosen on them; FINAL_FRESH=1 runs fresh ones.\n"
	"Cost/trial: the runner's cost_usd, else the trial's tokens at its route's prices (ROUTES).\n"
	"Stage cost: what the stage paid in its run: its LLM calls (status/<stage>*.usage.jsonl; a\n"
	"cache hit is $0) and its trials that ran there (stale ones too; trials reused from the trial\n"
	"store cost nothing again). An item without a price is counted as unknown, never as $0.\n"
	"Stage job: trials read from Harbor job folders (runner harbor; bench: the trial's dataset,\n"
	"adhoc without one; harness: the agent).\n";

/* A line saying how many trials ran without the task's own environment. */
static void summary_md_environment(const struct results_table *tb, struct buf *b)
{
	long n = 0, trials = 0;
	for (size_t i = 0; i < tb->n; i++) {
		n += tb->v[i].env_not_reproduced;
		trials += tb->v[i].trials;
	}
	if (n)
		buf_printf(b, "\nEnvironment not reproduced: %ld of %ld trials ran in a sandbox over this machine's programs\n"
			   "without the task's Dockerfile RUN/ENV steps (SANDBOX=bwrap); those that did not pass count as\n"
			   "infra errors (environment_not_reproduced), not failures. Run them with SANDBOX=docker.\n", n, trials);
}

int summary_write(const char *out, const struct results_table *tb, struct err *e)
{
	if (fs_mkdirs(out, e) < 0)
		return -1;
	cJSON *doc = summary_json(tb);
	char *p = path_join(out, "summary.json");
	int r = json_write_if_changed(p, doc, e);
	free(p);
	cJSON_Delete(doc);
	struct buf b = BUF_INIT;
	if (r >= 0) {
		summary_csv(tb, &b);
		p = path_join(out, "summary.csv");
		r = fs_write_if_changed(p, b.data, b.len, e);
		free(p);
	}
	if (r >= 0) {
		buf_reset(&b);
		buf_adds(&b, "# skillc results\n\n");
		summary_md_table(tb, &b);
		md_aggregates(tb, &b);
		md_across(tb, &b);
		long unknown;
		double spent = results_spent(tb, &unknown);
		if (spent == 0 && unknown)
			buf_printf(&b, "\nSpent: unknown, on %ld LLM call%s and the trials that ran", tb->llm_calls,
				   tb->llm_calls == 1 ? "" : "s");
		else
			buf_printf(&b, "\nSpent: $%.4f on %ld LLM call%s and the trials that ran", spent, tb->llm_calls,
				   tb->llm_calls == 1 ? "" : "s");
		if (unknown)
			buf_printf(&b, "; %ld item%s of unknown price not counted", unknown, unknown == 1 ? "" : "s");
		buf_adds(&b, ".\n");
		md_stale(tb, &b);
		buf_adds(&b, md_notes);
		summary_md_environment(tb, &b);
		p = path_join(out, "summary.md");
		r = fs_write_if_changed(p, b.data, b.len, e);
		free(p);
	}
	buf_free(&b);
	return r < 0 ? -1 : 0;
}
