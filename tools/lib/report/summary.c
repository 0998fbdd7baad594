#include "report/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/stats.h"

/* The pass@k columns of the csv and md tables. */
static const long table_k[] = { 1, 3, 5, 10 };

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

static cJSON *group_json(const struct results_group *g)
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
	json_set_num(o, "environment_not_reproduced", (double)g->env_not_reproduced);
	set_maybe(o, "pass_rate", r4(results_pass_rate(g)));
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
	set_maybe(o, "mean_reward", r4(results_mean(g->reward_sum, g->reward_n)));
	set_maybe(o, "skill_invocation_rate", r4(results_skill_rate(g, g->invoked)));
	set_maybe(o, "skill_read_rate", r4(results_skill_rate(g, g->read)));
	json_set(o, "errors", cJSON_Duplicate(g->errors, true));
	json_set(o, "error_categories", cJSON_Duplicate(g->categories, true));
	set_maybe(o, "mean_tokens", r2(results_mean(g->tok_sum, g->tok_n)));
	set_maybe(o, "total_tokens", g->tok_n ? g->tok_sum : NAN);
	set_maybe(o, "mean_cost_usd", g->cost_n ? round(results_mean(g->cost_sum, g->cost_n) * 1e6) / 1e6 : NAN);
	set_maybe(o, "total_cost_usd", g->cost_n ? round(g->cost_sum * 1e6) / 1e6 : NAN);
	set_maybe(o, "mean_seconds", r2(results_mean(g->sec_sum, g->sec_n)));
	set_maybe(o, "mean_agent_seconds", r2(results_mean(g->agent_sec_sum, g->agent_sec_n)));
	set_maybe(o, "delta_pp_vs_raw", r2(results_delta_pp(g)));
	return o;
}

cJSON *summary_json(const struct results_table *tb)
{
	cJSON *doc = cJSON_CreateObject();
	json_set_num(doc, "format", 1);
	json_set_num(doc, "runs", (double)tb->runs);
	cJSON *groups = cJSON_CreateArray();
	for (size_t i = 0; i < tb->n; i++)
		cJSON_AddItemToArray(groups, group_json(&tb->v[i]));
	json_set(doc, "groups", groups);
	return doc;
}

/* v in fmt, or nothing when NAN (an empty csv cell). */
static void fmt_num(struct buf *b, double v, const char *fmt)
{
	if (isnan(v))
		buf_adds(b, "");
	else
		buf_printf(b, fmt, v);
}

void summary_csv(const struct results_table *tb, struct buf *b)
{
	buf_adds(b, "task,harness,model,stage,trials,scored,passed,pass_rate,ci95_low,ci95_high");
	for (size_t i = 0; i < ARRAY_LEN(table_k); i++)
		buf_printf(b, ",pass@%ld", table_k[i]);
	buf_adds(b, ",mean_reward,skill_invocation_rate,skill_read_rate,timeouts,infra_errors,verifier_errors,"
		 "incomplete_attempts,mean_tokens,total_tokens,mean_cost_usd,total_cost_usd,mean_seconds,"
		 "mean_agent_seconds,delta_pp_vs_raw\n");
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i];
		double lo, hi;
		stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
		buf_printf(b, "%s,%s,%s,%s,%ld,%ld,%ld,", g->task, g->harness, g->model, g->stage, g->trials, g->scored,
			   g->passed);
		fmt_num(b, results_pass_rate(g), "%.4f");
		buf_addc(b, ',');
		fmt_num(b, g->scored ? lo : NAN, "%.4f");
		buf_addc(b, ',');
		fmt_num(b, g->scored ? hi : NAN, "%.4f");
		for (size_t k = 0; k < ARRAY_LEN(table_k); k++) {
			buf_addc(b, ',');
			fmt_num(b, table_k[k] <= g->scored ? stats_pass_at_k(g->passed, g->scored, table_k[k]) : NAN, "%.4f");
		}
		buf_addc(b, ',');
		fmt_num(b, results_mean(g->reward_sum, g->reward_n), "%.4f");
		buf_addc(b, ',');
		fmt_num(b, results_skill_rate(g, g->invoked), "%.4f");
		buf_addc(b, ',');
		fmt_num(b, results_skill_rate(g, g->read), "%.4f");
		buf_printf(b, ",%ld,%ld,%ld,%ld,", g->timeouts, g->infra, g->verr, g->incomplete);
		fmt_num(b, results_mean(g->tok_sum, g->tok_n), "%.1f");
		buf_addc(b, ',');
		fmt_num(b, g->tok_n ? g->tok_sum : NAN, "%.0f");
		buf_addc(b, ',');
		fmt_num(b, results_mean(g->cost_sum, g->cost_n), "%.6f");
		buf_addc(b, ',');
		fmt_num(b, g->cost_n ? g->cost_sum : NAN, "%.6f");
		buf_addc(b, ',');
		fmt_num(b, results_mean(g->sec_sum, g->sec_n), "%.1f");
		buf_addc(b, ',');
		fmt_num(b, results_mean(g->agent_sec_sum, g->agent_sec_n), "%.1f");
		buf_addc(b, ',');
		fmt_num(b, results_delta_pp(g), "%+.1f");
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

void summary_md_table(const struct results_table *tb, struct buf *b)
{
	buf_adds(b, "| Task | Harness | Model | Stage | Trials | Pass rate [95% CI] | pass@k | Δ vs raw | Mean reward "
		 "| Skill invoked | Errors excluded | Timeouts | Tokens/trial | Cost/trial | Time/trial |\n");
	buf_adds(b, "|---|---|---|---|---:|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i];
		double lo, hi;
		stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
		buf_printf(b, "| %s | %s | %s | %s | %ld | ", g->task, g->harness, g->model, g->stage, g->trials);
		if (g->scored) {
			buf_printf(b, "%ld/%ld = ", g->passed, g->scored);
			pct(b, results_pass_rate(g));
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
		for (size_t k = 0; k < ARRAY_LEN(table_k); k++) {
			if (table_k[k] > g->scored)
				continue;
			buf_printf(b, "%s@%ld %.2f", any ? ", " : "", table_k[k],
				   stats_pass_at_k(g->passed, g->scored, table_k[k]));
			any = true;
		}
		if (!any)
			buf_adds(b, "–");
		buf_adds(b, " | ");
		double d = results_delta_pp(g);
		if (isnan(d) || !strcmp(g->stage, "raw"))
			buf_adds(b, "–");
		else
			buf_printf(b, "%+.1f pp", d);
		buf_adds(b, " | ");
		fmt_num(b, results_mean(g->reward_sum, g->reward_n), "%.2f");
		buf_adds(b, " | ");
		pct(b, results_skill_rate(g, g->invoked));
		buf_adds(b, " | ");
		if (g->infra || g->verr)
			buf_printf(b, "%ld infra, %ld verifier", g->infra, g->verr);
		else
			buf_adds(b, "0");
		if (g->incomplete)
			buf_printf(b, " (+%ld incomplete)", g->incomplete);
		buf_printf(b, " | %ld | ", g->timeouts);
		fmt_num(b, results_mean(g->tok_sum, g->tok_n), "%.0f");
		buf_adds(b, " | ");
		double c = results_mean(g->cost_sum, g->cost_n);
		if (isnan(c))
			buf_adds(b, "–");
		else
			buf_printf(b, "$%.4f", c);
		buf_adds(b, " | ");
		double s = results_mean(g->sec_sum, g->sec_n);
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
		buf_adds(&b, md_notes);
		summary_md_environment(tb, &b);
		p = path_join(out, "summary.md");
		r = fs_write_if_changed(p, b.data, b.len, e);
		free(p);
	}
	buf_free(&b);
	return r < 0 ? -1 : 0;
}
