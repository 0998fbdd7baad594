#include "report/page.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/versions.h"
#include "report/cost.h"
#include "report/diff.h"
#include "report/html.h"
#include "report/pagebits.h"
#include "report/pageopt.h"
#include "report/paired.h"
#include "report/results.h"
#include "report/runinfo.h"
#include "report/stats.h"
#include "report/svg.h"

/* One run's page being built. */
struct run_page {
	const char *dir;
	struct runinfo ri;
	struct results_table tb;
	struct cost_calls calls;
	const char *task, *harness, *model, *runner;
	struct page_charts charts;
	struct buf html;
};

static const struct results_group *group_of(const struct run_page *p, const char *stage)
{
	for (size_t i = 0; i < p->tb.n; i++)
		if (!strcmp(p->tb.v[i].stage, stage))
			return &p->tb.v[i];
	return NULL;
}

/* ------------------------------------------------------------- numbers */

/* Mean of a trial field over the counted trials, with its 95% t interval. */
static double field_mean(const struct results_group *g, size_t off, double *lo, double *hi)
{
	double sum = 0, sq = 0;
	long n = 0;
	for (size_t i = 0; i < g->nt; i++) {
		double v = *(const double *)((const char *)&g->t[i] + off);
		if (g->t[i].stale || isnan(v))
			continue;
		sum += v;
		sq += v * v;
		n++;
	}
	*lo = *hi = NAN;
	if (!n)
		return NAN;
	double m = sum / (double)n;
	if (n > 1) {
		double var = (sq - (double)n * m * m) / (double)(n - 1), half = stats_t95(n - 1) * sqrt(var > 0 ? var : 0) / sqrt((double)n);
		*lo = m - half < 0 ? 0 : m - half;
		*hi = m + half;
	}
	return m;
}

/* A field of the counted trials by index (NAN where none); *n values. */
static double *by_index(const struct results_group *g, size_t off, size_t *n)
{
	long top = 0;
	for (size_t i = 0; i < g->nt; i++)
		if (!g->t[i].stale && g->t[i].index > top)
			top = g->t[i].index;
	double *v = xcalloc((size_t)top + 1, sizeof *v);
	for (long i = 0; i < top; i++)
		v[i] = NAN;
	for (size_t i = 0; i < g->nt; i++)
		if (!g->t[i].stale)
			v[g->t[i].index - 1] = *(const double *)((const char *)&g->t[i] + off);
	*n = (size_t)top;
	return v;
}

/* The median over trial indexes both stages counted of stage / raw for a
 * field (report/paired.h); NAN when no pair. */
static double paired_median_ratio(const struct results_group *g, size_t off, long *pairs)
{
	*pairs = 0;
	if (!g->raw || g == g->raw)
		return NAN;
	size_t nb, nc;
	double *base = by_index(g->raw, off, &nb), *cand = by_index(g, off, &nc);
	struct paired_ratio r;
	paired_ratio(base, nb, cand, nc, &r);
	free(base);
	free(cand);
	*pairs = (long)r.pairs;
	return r.median;
}

/* -------------------------------------------------------------- header */

static void header(struct run_page *p)
{
	struct buf *b = &p->html;
	buf_adds(b, "<header class=\"top\"><div class=\"wrap\">\n<div class=\"eyebrow\">skillc report");
	if (*p->ri.bench) {
		buf_adds(b, " · ");
		html_str(b, p->ri.bench);
	}
	buf_adds(b, "</div>\n<h1>");
	html_str(b, p->task);
	buf_adds(b, "</h1>\n<p class=\"who\">harness <b>");
	html_str(b, p->harness);
	buf_adds(b, "</b> · model <b>");
	html_str(b, p->model);
	buf_adds(b, "</b> · runner <b>");
	html_str(b, p->runner);
	buf_adds(b, "</b></p>\n</div></header>\n<main class=\"wrap\">\n");
}

/* The last stage with scored trials (the deliverable's, once final runs). */
static const struct results_group *latest(const struct run_page *p)
{
	const struct results_group *last = NULL;
	for (size_t i = 0; i < p->tb.n; i++)
		if (p->tb.v[i].scored && strcmp(p->tb.v[i].stage, "noskill"))
			last = &p->tb.v[i];
	return last;
}

static void kpis(struct run_page *p)
{
	struct buf *b = &p->html;
	const struct results_group *raw = group_of(p, "raw"), *last = latest(p);
	long trials = 0, stale = 0;
	double secs = 0;
	for (size_t i = 0; i < p->tb.n; i++) {
		trials += p->tb.v[i].trials;
		stale += p->tb.v[i].stale;
		secs += p->tb.v[i].sec_sum;
	}
	buf_adds(b, "<section class=\"kpis\">\n");
	const struct results_group *noskill = group_of(p, "noskill");
	if (noskill)
		page_kpi_rate(b, "No skill", noskill);
	page_kpi_rate(b, "Raw skill", raw);
	if (last && last != raw) {
		char k[96];
		snprintf(k, sizeof k, "Latest: %s", last->stage);
		page_kpi_rate(b, k, last);
		page_kpi_delta(b, last, last->raw, "raw");
	}
	if (last && noskill)
		page_kpi_delta(b, last, noskill, "no-skill");
	char v[64], s[96];
	snprintf(v, sizeof v, "%ld", trials);
	snprintf(s, sizeof s, "%ld stale, not counted", stale);
	page_kpi(b, "Trials counted", v, stale ? s : "every trial current", NULL);
	page_fmt_seconds(v, sizeof v, secs);
	page_kpi(b, "Trial time", v, "sum over counted trials", NULL);
	long unknown;
	double spent = results_spent(&p->tb, &unknown);
	page_fmt_usd(v, sizeof v, spent == 0 && unknown ? NAN : spent);
	if (unknown)
		snprintf(s, sizeof s, "+ %ld item%s of unknown price", unknown, unknown == 1 ? "" : "s");
	else
		snprintf(s, sizeof s, "%ld LLM call%s and the trials run", p->tb.llm_calls, p->tb.llm_calls == 1 ? "" : "s");
	page_kpi(b, "Spent", v, s, NULL);
	buf_adds(b, "</section>\n");
}

/* -------------------------------------------------------------- charts */

static void pass_chart(struct run_page *p)
{
	size_t n = p->tb.n;
	struct svg_bar *bars = xcalloc(n + 1, sizeof *bars);
	char (*sub)[48] = xcalloc(n + 1, sizeof *sub), (*title)[160] = xcalloc(n + 1, sizeof *title);
	const struct results_group *raw = group_of(p, "raw");
	for (size_t i = 0; i < n; i++) {
		const struct results_group *g = &p->tb.v[i];
		double lo, hi;
		stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
		snprintf(sub[i], sizeof sub[i], "%ld/%ld passed", g->passed, g->scored);
		snprintf(title[i], sizeof title[i], "%s: %ld of %ld scored trials passed, 95%% Wilson interval [%.1f%%, %.1f%%]",
			 g->stage, g->passed, g->scored, lo * 100, hi * 100);
		bars[i] = (struct svg_bar){ .key = g->stage, .label = g->stage, .sub = sub[i],
					    .value = results_pass_rate(g), .lo = g->scored ? lo : NAN,
					    .hi = g->scored ? hi : NAN, .color = page_stage_color(g->stage),
					    .title = title[i] };
	}
	char ref[48] = "";
	if (raw && raw->scored)
		snprintf(ref, sizeof ref, "raw %.0f%%", results_pass_rate(raw) * 100);
	char subtitle[256];
	snprintf(subtitle, sizeof subtitle, "%s · %s · %s", p->task, p->harness, p->model);
	struct svg_chart c = { .id = "pass-rate", .title = "Pass rate by stage", .subtitle = subtitle,
			       .w = n > 7 ? 150 + 80 * (int)n : 0, .h = 0, /* room under each bar for "12/20 passed" */
			       .note = "Bars: passed / scored trials. Whiskers: 95% Wilson interval. Dashed line: raw.",
			       .fmt = "%.0f%%",
			       .scale = 100, .ymax = 1, .ref = raw && raw->scored ? results_pass_rate(raw) : NAN,
			       .ref_label = ref, .bars = bars, .n = n };
	page_chart(&p->charts, &p->html, &c);
	free(bars);
	free(sub);
	free(title);
}

/* The width of a chart of the two-column grid: room for n bars' labels
 * (the page scales it to the column). */
static int small_width(size_t n)
{
	return n > 4 ? 80 + 72 * (int)n : 400;
}

/* A per-stage mean chart of one trial field, with t intervals. */
static void metric_chart(struct run_page *p, const char *id, const char *title, const char *what, size_t off,
			 const char *fmt, double scale, bool unit_range)
{
	size_t n = p->tb.n;
	struct svg_bar *bars = xcalloc(n + 1, sizeof *bars);
	char (*sub)[48] = xcalloc(n + 1, sizeof *sub), (*tip)[160] = xcalloc(n + 1, sizeof *tip);
	for (size_t i = 0; i < n; i++) {
		const struct results_group *g = &p->tb.v[i];
		double lo, hi, m = field_mean(g, off, &lo, &hi);
		if (unit_range && m <= 1 && hi > 1)
			hi = 1; /* rewards live in [0, 1] (unless a task widens it): stop there */
		long pairs;
		double r = unit_range ? NAN : paired_median_ratio(g, off, &pairs); /* a ratio of 0/1 rewards says nothing */
		if (!isnan(r))
			snprintf(sub[i], sizeof sub[i], "×%.2f", r);
		snprintf(tip[i], sizeof tip[i], "%s: mean %s %.4g over %ld counted trials", g->stage, what, m,
			 g->trials);
		bars[i] = (struct svg_bar){ .key = g->stage, .label = g->stage, .sub = sub[i][0] ? sub[i] : NULL,
					    .value = m, .lo = lo, .hi = hi, .color = page_stage_color(g->stage),
					    .title = tip[i] };
	}
	struct svg_chart c = { .id = id, .title = title, .subtitle = p->task, .w = small_width(n), .h = 300,
			       .note = unit_range ? "Mean per trial · whiskers: 95% t interval"
						  : "Mean per trial · whiskers: 95% t interval · ×: median ratio to raw",
			       .fmt = fmt, .scale = scale,
			       .ymax = NAN, .ref = NAN, .bars = bars, .n = n };
	page_chart(&p->charts, NULL, &c);
	free(bars);
	free(sub);
	free(tip);
}

/* What each stage paid: LLM calls plus the trials that ran. */
static void cost_chart(struct run_page *p)
{
	size_t n = p->tb.n;
	struct svg_bar *bars = xcalloc(n + 1, sizeof *bars);
	char (*sub)[64] = xcalloc(n + 1, sizeof *sub), (*tip)[200] = xcalloc(n + 1, sizeof *tip);
	for (size_t i = 0; i < n; i++) {
		const struct results_group *g = &p->tb.v[i];
		double usd = results_stage_usd(g);
		long unknown = g->llm_unknown + g->spent_unknown;
		snprintf(sub[i], sizeof sub[i], "%ld call%s%s · %ld trial%s%s", g->llm_calls, g->llm_calls == 1 ? "" : "s",
			 g->llm_unknown ? " ?" : "", g->ran, g->ran == 1 ? "" : "s", g->spent_unknown ? " ?" : "");
		if (isnan(usd))
			snprintf(tip[i], sizeof tip[i], "%s: price unknown (%ld LLM calls, %ld trials run here)", g->stage,
				 g->llm_calls, g->ran);
		else
			snprintf(tip[i], sizeof tip[i], "%s: $%.6f (%ld LLM calls, %ld trials run here; %ld items of unknown price)",
				 g->stage, usd, g->llm_calls, g->ran, unknown);
		bars[i] = (struct svg_bar){ .key = g->stage, .label = g->stage, .sub = sub[i], .value = usd, .lo = NAN,
					    .hi = NAN, .color = page_stage_color(g->stage), .title = tip[i] };
	}
	struct svg_chart c = { .id = "cost", .title = "Cost per stage (USD)", .subtitle = p->task, .w = small_width(n), .h = 300,
			       .note = "LLM calls + trials run here · n/a, ?: price unknown", .fmt = "$%.3g", .scale = 1,
			       .ymax = NAN, .ref = NAN, .bars = bars, .n = n };
	page_chart(&p->charts, NULL, &c);
	free(bars);
	free(sub);
	free(tip);
}

static void pass_section(struct run_page *p)
{
	struct buf *b = &p->html;
	buf_adds(b, "<section class=\"card\" id=\"pass-rate\">\n<h2>Pass rate by stage</h2>\n"
		    "<p class=\"lead\">A trial passes when its verifier's reward is exactly 1; infra and verifier "
		    "errors are left out of the rate. Each stage counts the current trials of the skill it evaluates "
		    "(<a href=\"#trials\">stale trials</a> are listed, never counted). Also "
		    "<a href=\"charts/pass-rate.svg\">charts/pass-rate.svg</a>.</p>\n<div class=\"figure\">");
	pass_chart(p);
	buf_adds(b, "</div>\n</section>\n");
}

/* ------------------------------------------------------------- per stage */

static void cell_ratio(struct buf *b, double mean, const char *fmt, double ratio)
{
	buf_adds(b, "<td class=\"n\">");
	page_num(b, mean, fmt);
	if (!isnan(ratio))
		buf_printf(b, " <span class=\"%s small\">×%.2f</span>", ratio > 1.1 ? "neg" : ratio < 0.9 ? "pos" : "muted",
			   ratio);
	buf_adds(b, "</td>");
}

static void stage_table(struct run_page *p)
{
	struct buf *b = &p->html;
	const struct results_group *noskill = group_of(p, "noskill");
	buf_printf(b, "<section class=\"card\" id=\"stages\">\n<h2>Per stage, paired against raw</h2>\n"
		    "<p class=\"lead\">Pass rate with its 95%% Wilson interval; Δ: the change against raw%s in percentage "
		    "points with Newcombe's 95%% interval. Reward, tokens, tool calls and time are means per trial; ×: the "
		    "median over trial indexes both stages ran of this stage's value divided by raw's (green below 0.9, "
		    "red above 1.1). Errors: infra and verifier errors, left out of the rate. Stage cost: what the stage paid "
		    "in this run, its LLM calls and its trials that ran here (trials reused from the trial store cost "
		    "nothing again); an item without a price counts as unknown, never as $0.</p>\n"
		    "<div class=\"scroll\"><table>\n<tr><th>Stage</th>"
		    "<th class=\"n\">Trials</th><th>Pass rate</th><th class=\"n\">Δ vs raw</th>%s"
		    "<th class=\"n\">Reward</th><th class=\"n\">Tokens</th><th class=\"n\">Tool calls</th>"
		    "<th class=\"n\">Time</th><th class=\"n\">Skill used</th><th class=\"n\">Errors</th>"
		    "<th class=\"n\">Stage cost</th></tr>\n",
		   noskill ? " (and against no skill at all, the noskill stage)" : "",
		   noskill ? "<th class=\"n\">Δ vs no-skill</th>" : "");
	for (size_t i = 0; i < p->tb.n; i++) {
		const struct results_group *g = &p->tb.v[i];
		long pairs;
		buf_adds(b, "<tr><td>");
		page_stage_name(b, g->stage);
		buf_printf(b, "</td><td class=\"n\">%ld", g->trials);
		if (g->stale)
			buf_printf(b, " <span class=\"muted small\">+%ld stale</span>", g->stale);
		if (g->selection)
			buf_printf(b, "<br><span class=\"neg small\" title=\"the accepted round's own trials: optimistic\">"
				      "%ld selection reused</span>", g->selection);
		buf_adds(b, "</td><td class=\"nw\">");
		page_rate_ci(b, g);
		buf_adds(b, "</td><td class=\"n\">");
		page_delta(b, g, g->raw);
		if (noskill) {
			buf_adds(b, "</td><td class=\"n\">");
			page_delta(b, g, g->noskill);
		}
		buf_adds(b, "</td><td class=\"n\">");
		page_num(b, results_mean(g->reward_sum, g->reward_n), "%.2f");
		buf_adds(b, "</td>");
		cell_ratio(b, results_mean(g->tok_sum, g->tok_n), "%.0f",
			   paired_median_ratio(g, offsetof(struct results_trial, tokens), &pairs));
		cell_ratio(b, results_mean(g->calls_sum, g->calls_n), "%.1f",
			   paired_median_ratio(g, offsetof(struct results_trial, tool_calls), &pairs));
		double secs = results_mean(g->sec_sum, g->sec_n);
		char t[32];
		page_fmt_seconds(t, sizeof t, secs);
		buf_adds(b, "<td class=\"n\">");
		buf_adds(b, isnan(secs) ? "–" : t);
		double r = paired_median_ratio(g, offsetof(struct results_trial, seconds), &pairs);
		if (!isnan(r))
			buf_printf(b, " <span class=\"%s small\">×%.2f</span>", r > 1.1 ? "neg" : r < 0.9 ? "pos" : "muted", r);
		buf_adds(b, "</td><td class=\"n\">");
		page_pct(b, results_skill_rate(g, g->invoked));
		buf_printf(b, "</td><td class=\"n\">%ld</td><td class=\"n\">", g->infra + g->verr);
		page_usd_cell(b, results_stage_usd(g), g->llm_unknown + g->spent_unknown);
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table></div>\n<div class=\"grid3\">");
	metric_chart(p, "reward", "Mean reward", "reward", offsetof(struct results_trial, reward), "%.2f", 1, true);
	metric_chart(p, "tokens", "Tokens per trial", "tokens", offsetof(struct results_trial, tokens), "%.0f", 1, false);
	/* trials under a second each: an axis of seconds would read 0, 0, 1 */
	double most = 0;
	for (size_t i = 0; i < p->tb.n; i++) {
		double m = results_mean(p->tb.v[i].sec_sum, p->tb.v[i].sec_n);
		if (!isnan(m) && m > most)
			most = m;
	}
	if (most < 1)
		metric_chart(p, "time", "Milliseconds per trial", "seconds", offsetof(struct results_trial, seconds), "%.0f",
			     1000, false);
	else
		metric_chart(p, "time", "Seconds per trial", "seconds", offsetof(struct results_trial, seconds), "%.0f", 1,
			     false);
	cost_chart(p);
	for (size_t i = 0; i < p->charts.n; i++)
		if (strcmp(p->charts.v[i].id, "pass-rate"))
			buf_add(b, p->charts.v[i].svg.data, p->charts.v[i].svg.len);
	buf_adds(b, "</div>\n</section>\n");
}

/* -------------------------------------------------------------- pipeline */

/* The money of a pipeline row: the family's LLM calls, and for an
 * evaluation (<row>-eval) the trials of its row that ran here. */
static const char *pipeline_cost(void *ctx, const char *family, char *out, size_t size)
{
	const struct run_page *p = ctx;
	const struct cost_family *f = cost_family_find(&p->calls, family);
	double usd = f ? f->usd : 0;
	long items = f ? f->calls : 0, unknown = f ? f->unknown : 0;
	size_t len = strlen(family);
	if (len > 5 && !strcmp(family + len - 5, "-eval")) {
		char row[96];
		cost_row_of(family, row, sizeof row);
		const struct results_group *g = group_of(p, row);
		if (g) {
			usd += g->spent;
			items += g->ran;
			unknown += g->spent_unknown;
		}
	}
	if (!items)
		return "–";
	if (unknown == items)
		return "unknown";
	page_fmt_usd(out, size, usd);
	size_t l = strlen(out);
	if (unknown)
		l += (size_t)snprintf(out + l, size - l, " + %ld unknown", unknown);
	/* what the provider's prompt cache served of the prompts sent */
	if (f && f->tokens_cached > 0 && l < size)
		snprintf(out + l, size - l, " (%.0f%% of prompt tokens cached)", 100 * f->tokens_cached / f->tokens_sent);
	return out;
}

static void pipeline(struct run_page *p)
{
	struct buf *b = &p->html;
	buf_adds(b, "<section class=\"card\" id=\"pipeline\">\n<h2>The pipeline as it ran</h2>\n"
		    "<p class=\"lead\">Every stage of the run, from its manifest.json and status/ records; a repeated "
		    "stage (one target per trial) is one row. Time: the sum over its targets. Cost: its LLM calls "
		    "(status/&lt;stage&gt;.usage.jsonl) and, for an evaluation, its trials that ran here.</p>\n");
	struct page_cost_col col = { pipeline_cost, p };
	page_pipeline_table(b, p->ri.manifest, p->dir, &col);
	buf_adds(b, "</section>\n");
}

/* ---------------------------------------------------------- skill change */

/* One skill's part of the static report: its steps and rollbacks. */
static void static_skill_steps(struct buf *b, const cJSON *r)
{
	const cJSON *steps = json_get(r, "steps");
	if (cJSON_IsArray(steps) && cJSON_GetArraySize(steps) > 0) {
		buf_adds(b, "<h4>Static compile steps: ");
		html_str(b, json_str(r, "skill"));
		buf_adds(b, "</h4>\n<div class=\"scroll\"><table>\n<tr><th>Step</th><th>Status</th>"
			    "<th class=\"n\">Lines</th><th class=\"n\">Tokens</th><th>Why</th></tr>\n");
		for (const cJSON *s = steps->child; s; s = s->next) {
			const cJSON *bf = json_get(s, "before"), *af = json_get(s, "after");
			buf_adds(b, "<tr><td>");
			html_str(b, json_str(s, "step"));
			buf_adds(b, "</td><td><span class=\"pill ");
			html_str(b, json_str(s, "status"));
			buf_adds(b, "\">");
			html_str(b, json_str(s, "status"));
			buf_printf(b, "</span></td><td class=\"n\">%.0f → %.0f</td><td class=\"n\">%.0f → %.0f</td><td class=\"small\">",
				   json_num(bf, "lines", NAN), json_num(af, "lines", NAN), json_num(bf, "tokens", NAN),
				   json_num(af, "tokens", NAN));
			html_str(b, json_str(s, "why"));
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</table></div>\n");
	}
	const cJSON *rb = json_get(r, "rollbacks");
	if (cJSON_GetArraySize(rb) > 0) {
		buf_adds(b, "<h4>Rolled back</h4>\n<ul>\n");
		for (const cJSON *x = rb->child; x; x = x->next) {
			buf_adds(b, "<li>");
			html_str(b, json_str(x, "step"));
			buf_adds(b, ": ");
			html_str(b, json_str(x, "why") ? json_str(x, "why") : json_str(x, "reason"));
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
}

/* The static report, skill by skill (a skill SKILLS left out has no steps). */
static void static_steps(struct buf *b, const char *dir)
{
	cJSON *r = json_read_rel(dir, "artifacts/static/report.json");
	const cJSON *skills = json_get(r, "skills");
	for (const cJSON *k = cJSON_IsArray(skills) ? skills->child : NULL; k; k = k->next)
		static_skill_steps(b, k);
	cJSON_Delete(r);
}

/* The stage of this run named so with a skill; NULL when none. */
static const struct runinfo_stage *skill_stage(const struct run_page *p, const char *name)
{
	const struct runinfo_stage *s = NULL;
	for (size_t k = 0; k < p->ri.n; k++)
		if (!strcmp(p->ri.st[k].name, name) && p->ri.st[k].skill_root)
			s = &p->ri.st[k];
	return s;
}

/* One stage's skill against the one it was made from. */
static void skill_pair(struct run_page *p, const struct runinfo_stage *from, const struct runinfo_stage *s,
		       const struct results_group *g, const char *note)
{
	struct buf *b = &p->html;
	char *old = path_join(p->dir, from->skill_root), *root = path_join(p->dir, s->skill_root);
	struct buf d = BUF_INIT;
	struct diff_counts n;
	diff_skill_html(&d, old, root, &n);
	buf_adds(b, "<h3>");
	page_stage_name(b, from->name);
	buf_adds(b, " → ");
	page_stage_name(b, s->name);
	buf_adds(b, "</h3>\n<p class=\"note\">");
	if (note) {
		html_str(b, note);
		buf_adds(b, "; ");
	}
	if (!strcmp(from->skill, s->skill) && s->skill[0])
		buf_printf(b, "identical skills (same content hash); %ld of its %ld counted trials reused "
			      "from the trial store",
			   g->reused, g->trials);
	else
		buf_printf(b, "%ld section%s changed, %ld added, %ld removed, %ld moved; %ld other file%s; "
			      "+%ld −%ld lines",
			   n.sections_changed, n.sections_changed == 1 ? "" : "s", n.sections_added,
			   n.sections_removed, n.sections_moved, n.files_changed, n.files_changed == 1 ? "" : "s",
			   n.lines_added, n.lines_removed);
	buf_adds(b, "</p>\n");
	if (!strcmp(s->name, "static"))
		static_steps(b, p->dir);
	buf_add(b, d.data, d.len);
	buf_free(&d);
	free(old);
	free(root);
}

static void skill_changes(struct run_page *p)
{
	struct buf *b = &p->html;
	buf_adds(b, "<section class=\"card\" id=\"skill\">\n<h2>How the skill changed</h2>\n"
		    "<p class=\"lead\">Each stage against the skill it was made from (a deep round's candidate against "
		    "the best skill before it; final against raw: the whole change), section by section (sections "
		    "matched by their stable ids). Removed lines are red, added green; a section that moved keeps its "
		    "id.</p>\n");
	const struct runinfo_stage *prev = NULL;
	int pairs = 0;
	for (size_t i = 0; i < p->tb.n; i++) {
		const struct runinfo_stage *s = skill_stage(p, p->tb.v[i].stage);
		if (!s)
			continue;
		char *root = path_join(p->dir, s->skill_root);
		bool there = fs_is_dir(root);
		free(root);
		if (!there)
			continue;
		char *note, *base = pageopt_diff_base(p->dir, s->name, &note);
		const struct runinfo_stage *from = base ? skill_stage(p, base) : NULL;
		char *froot = from ? path_join(p->dir, from->skill_root) : NULL;
		if (!froot || !fs_is_dir(froot))
			from = prev;
		if (from) {
			skill_pair(p, from, s, &p->tb.v[i], note);
			pairs++;
		}
		free(froot);
		free(base);
		free(note);
		prev = s;
	}
	if (!pairs)
		buf_adds(b, "<p class=\"note\">Only one version of the skill so far.</p>\n");
	buf_adds(b, "</section>\n");
}

/* ---------------------------------------------------------------- trials */

static void trials(struct run_page *p)
{
	struct buf *b = &p->html;
	buf_adds(b, "<section class=\"card\" id=\"trials\">\n<h2>Trials</h2>\n<p class=\"lead\">Every trial folder; "
		    "stale ones (an index no longer due, or an earlier skill) are greyed and not counted. Message: the "
		    "agent's last message in its ACP trajectory, else the runner's error.</p>\n");
	for (size_t i = 0; i < p->tb.n; i++) {
		const struct results_group *g = &p->tb.v[i];
		buf_adds(b, "<h3>");
		page_stage_name(b, g->stage);
		buf_printf(b, " <span class=\"muted small\">%ld counted", g->trials);
		if (g->stale)
			buf_printf(b, ", %ld stale", g->stale);
		if (g->reused - g->selection > 0)
			buf_printf(b, ", %ld reused from the trial store", g->reused - g->selection);
		if (g->selection)
			buf_printf(b, ", %ld selection trial%s of the accepted round reused", g->selection,
				   g->selection == 1 ? "" : "s");
		buf_adds(b, "</span></h3>\n");
		page_trial_table(b, g);
	}
	buf_adds(b, "</section>\n");
}

/* -------------------------------------------------------------- settings */

static void settings(struct run_page *p)
{
	struct buf *b = &p->html;
	buf_adds(b, "<section class=\"card\" id=\"settings\">\n<h2>Settings</h2>\n<p class=\"lead\">The settings that "
		    "change results, as this run recorded them (inputs/config.json).</p>\n");
	if (!cJSON_IsObject(p->ri.config) || !p->ri.config->child) {
		buf_adds(b, "<p class=\"note\">The run has no inputs/config.json.</p>\n");
	} else {
		buf_adds(b, "<dl class=\"kv\">\n");
		for (const cJSON *c = p->ri.config->child; c; c = c->next) {
			buf_adds(b, "<dt>");
			html_str(b, c->string);
			buf_adds(b, "</dt><dd>");
			if (cJSON_IsString(c))
				html_str(b, *c->valuestring ? c->valuestring : "(empty)");
			else
				buf_adds(b, "(not a string)");
			buf_adds(b, "</dd>\n");
		}
		buf_adds(b, "</dl>\n");
	}
	buf_adds(b, "</section>\n");
}

/* dataset.json: where the run's task came from (pipeline/pin.h). */
static void dataset(struct run_page *p)
{
	struct buf *b = &p->html;
	cJSON *d = json_read_rel(p->dir, "dataset.json");
	buf_adds(b, "<section class=\"card\" id=\"dataset\">\n<h2>Task tree</h2>\n");
	if (!d) {
		buf_adds(b, "<p class=\"note\">The run has no dataset.json (made before runs recorded it).</p>\n</section>\n");
		return;
	}
	const cJSON *g = json_get(d, "git");
	buf_adds(b, "<dl class=\"kv\">\n<dt>TASKS_DIR</dt><dd>");
	html_str(b, json_str(d, "tasks_dir") ? json_str(d, "tasks_dir") : "?");
	buf_adds(b, "</dd>\n<dt>git</dt><dd>");
	if (json_str(g, "commit")) {
		html_str(b, json_str(g, "commit"));
		buf_adds(b, json_bool(g, "dirty", false) ? " (with changes not committed)" : " (clean)");
	} else {
		buf_adds(b, "not in a git work tree");
	}
	buf_adds(b, "</dd>\n");
	for (const cJSON *t = json_get(d, "tasks") ? json_get(d, "tasks")->child : NULL; t; t = t->next) {
		buf_adds(b, "<dt>");
		html_str(b, t->string);
		buf_adds(b, "</dt><dd>digest <code>");
		html_str(b, cJSON_IsString(t) ? t->valuestring : "?");
		buf_adds(b, "</code></dd>\n");
	}
	buf_adds(b, "<dt>DATASET_PIN</dt><dd>");
	html_str(b, json_str(d, "pin") ? json_str(d, "pin") : "(none: not checked)");
	buf_adds(b, "</dd>\n</dl>\n</section>\n");
	cJSON_Delete(d);
}

static void footer(struct run_page *p)
{
	struct buf *b = &p->html;
	buf_adds(b, "<footer>Made by skillc-report " V_REPORT " from the run folder <code>");
	html_str(b, p->dir);
	buf_adds(b, "</code> · <a href=\"manifest.json\">manifest.json</a> · <a href=\"inputs/config.json\">"
		    "config.json</a> · <a href=\"summary.md\">summary.md</a> (when made) · "
		    "<a href=\"charts/\">charts/</a></footer>\n</main>\n");
}

/* ------------------------------------------------------------------ run */

static void identity(struct run_page *p)
{
	const cJSON *id = json_get(p->ri.manifest, "identity");
	const struct results_group *g = p->tb.n ? &p->tb.v[0] : NULL;
	const char *task = json_str(p->ri.manifest, "task");
	p->task = task ? task : g ? g->task : path_base(p->dir);
	p->harness = json_str(id, "HARNESS") ? json_str(id, "HARNESS") : g ? g->harness : "?";
	p->model = json_str(id, "MODEL") ? json_str(id, "MODEL") : g ? g->model : "?";
	p->runner = json_str(id, "RUNNER") ? json_str(id, "RUNNER") : g ? g->runner : "?";
}

int page_write_run(const char *run, const struct routes *routes, int *changed, struct err *e)
{
	struct run_page p = { .dir = run };
	runinfo_load(&p.ri, run);
	results_build_run(&p.tb, run, routes);
	cost_calls_load(&p.calls, run, routes);
	identity(&p);
	char title[512];
	snprintf(title, sizeof title, "skillc · %s · %s · %s", p.task, p.harness, p.model);
	html_page_open(&p.html, title);
	header(&p);
	kpis(&p);
	pass_section(&p);
	stage_table(&p);
	pipeline(&p);
	pageopt_fast(&p.html, run);
	pageopt_deep(&p.html, run, p.ri.manifest);
	skill_changes(&p);
	trials(&p);
	settings(&p);
	dataset(&p);
	footer(&p);
	html_page_close(&p.html);
	int rc = page_write_files(run, "report.html", &p.html, &p.charts, changed, e);
	page_charts_free(&p.charts);
	buf_free(&p.html);
	results_free(&p.tb);
	cost_calls_free(&p.calls);
	runinfo_free(&p.ri);
	return rc;
}
