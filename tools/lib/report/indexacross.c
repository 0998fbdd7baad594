/* The index's "Across tasks" section: for each harness x model x stage of
 * two or more tasks with raw, the figures summary.json's by_bench[].across
 * holds (across.h), read from there so the page and the summary never
 * disagree: the per-task paired deltas with their one-sided Fisher p and
 * Holm's adjustment, the mean change with its 95% interval clustered by
 * task, the normalized gain, the sign test, the stratified exact test, and
 * whether the run was too small to show its own gain. */
#include "report/pagebits.h"

#include <math.h>
#include <string.h>

#include "base/json.h"
#include "report/html.h"
#include "report/summary.h"

/* "0.0156", "< 0.0001", "–". */
static void p_cell(struct buf *b, double p)
{
	if (!isfinite(p))
		buf_adds(b, "–");
	else if (p < 0.0001)
		buf_adds(b, "&lt; 0.0001");
	else
		buf_printf(b, "%.3g", p);
}

static void pp_cell(struct buf *b, double d)
{
	double v = round(d * 1000) / 10;
	buf_printf(b, "<span class=\"%s\">%+.1f pp</span>",
	           v > 0           ? "pos"
	                   : v < 0 ? "neg"
	                           : "muted",
	           v == 0 ? 0 : v);
}

static void task_rows(struct buf *b, const cJSON *a, const char *stage)
{
	buf_printf(
		b,
		"<div class=\"scroll\"><table>\n<tr><th>Task</th><th class=\"n\">Raw</th><th "
			"class=\"n\">%s</th>"
		"<th class=\"n\">Δ</th><th class=\"n\">p (one task)</th><th class=\"n\">p, "
			"Holm-adjusted</th></tr>\n",
		stage);
	for (const cJSON *t = json_get(a, "per_task") ? json_get(a, "per_task")->child : NULL; t;
	     t = t->next) {
		const cJSON *r = json_get(t, "baseline"), *c = json_get(t, "candidate");
		buf_adds(b, "<tr><td>");
		html_str(b, json_str(t, "task") ? json_str(t, "task") : "");
		buf_printf(
			b,
			"</td><td class=\"n\">%.0f/%.0f</td><td class=\"n\">%.0f/%.0f</td><td "
				"class=\"n\">",
			json_num(r, "passed", 0), json_num(r, "trials", 0),
			json_num(c, "passed", 0), json_num(c, "trials", 0));
		pp_cell(b, json_num(t, "delta", 0));
		buf_adds(b, "</td><td class=\"n\">");
		p_cell(b, json_num(t, "p", NAN));
		buf_adds(b, "</td><td class=\"n\">");
		p_cell(b, json_num(t, "p_holm", NAN));
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table></div>\n");
}

void page_across_figures(struct buf *b, const cJSON *a, const char *stage)
{
	const cJSON *ci = json_get(a, "ci95"), *s = json_get(a, "sign_test");
	buf_adds(b, "<p>Mean change ");
	pp_cell(b, json_num(a, "mean_delta", 0));
	if (cJSON_GetArraySize(ci) == 2 && cJSON_IsNumber(ci->child) &&
	    cJSON_IsNumber(ci->child->next))
		buf_printf(b, " [%+.1f, %+.1f] (95%%, clustered by task)",
		           100 * ci->child->valuedouble, 100 * ci->child->next->valuedouble);
	buf_adds(b, "; normalized gain ");
	page_num(b, json_num(a, "normalized_gain", NAN), "%.2f");
	buf_printf(b, "; sign test %.0f up, %.0f down, %.0f tied, p = ", json_num(s, "wins", 0),
	           json_num(s, "losses", 0), json_num(s, "ties", 0));
	p_cell(b, json_num(s, "p", NAN));
	buf_adds(b, "; stratified exact p = ");
	p_cell(b, json_num(json_get(a, "stratified"), "p", NAN));
	buf_printf(b, " (%s at α = %.2g).</p>\n",
	           json_str(a, "verdict") ? json_str(a, "verdict") : "?",
	           json_num(a, "alpha", 0.05));
	double power = json_num(a, "power_at_observed", NAN);
	if (json_bool(a, "too_small", false))
		buf_printf(
			b,
			"<p class=\"neg\">Too small to show its own gain: the stratified test "
				"would accept a gain "
			"this large with a chance of only %.2f at this run's size (skillc-stats "
				"plan says how many "
			"trials or tasks it needs).</p>\n",
			power);
	else if (isfinite(power))
		buf_printf(b, "<p class=\"muted small\">Power at the observed gain: %.2f.</p>\n",
		           power);
	else
		buf_adds(b, "<p class=\"muted small\">No gain observed.</p>\n");
	task_rows(b, a, stage);
}

/* The figures of one stage across its tasks, then its task table. */
static void one_stage(struct buf *b, const cJSON *agg, const cJSON *a)
{
	const char *stage = json_str(agg, "stage");
	buf_adds(b, "<h3>");
	page_stage_name(b, stage);
	buf_adds(b, " vs raw · ");
	html_str(b, json_str(agg, "harness"));
	buf_adds(b, " · ");
	html_str(b, json_str(agg, "model"));
	buf_printf(b, " · %.0f tasks</h3>\n", json_num(a, "tasks", 0));
	page_across_figures(b, a, stage);
}

void page_index_across(struct buf *b, const struct results_table *all)
{
	cJSON *by = summary_by_bench(all);
	bool head = false;
	for (const cJSON *agg = by->child; agg; agg = agg->next) {
		const cJSON *a = json_get(agg, "across");
		if (!cJSON_IsObject(a))
			continue;
		if (!head)
			buf_adds(
				b,
				"<section class=\"card\" id=\"across\">\n<h2>Across "
					"tasks</h2>\n<p class=\"lead\">The task "
				"is the unit: each task's pass-rate change against raw, their "
					"mean with a 95% t "
				"interval across tasks, SkillsBench's normalized gain (stage − "
					"raw) / (1 − raw), an "
				"exact sign test over tasks and the exact stratified test (tasks "
					"as strata), all "
				"one-sided; each task's own Fisher p-value is Holm-adjusted for "
					"the number of tasks "
				"judged at once (docs/statistics.md).</p>\n");
		head = true;
		one_stage(b, agg, a);
	}
	if (head)
		buf_adds(b, "</section>\n");
	cJSON_Delete(by);
}
