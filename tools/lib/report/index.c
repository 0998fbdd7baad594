/* index.html: every run of a results folder, one row per task x harness x
 * model (x bench, runner), with its latest stage's change against raw (and
 * against the no-skill baseline where a run has one). */
#include "report/page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/versions.h"
#include "report/html.h"
#include "report/pagebits.h"
#include "report/results.h"
#include "report/stats.h"

/* One row: a cell of one run. */
struct cell {
	char *rel;                      /* the run folder, relative to the index */
	const struct results_group *raw, *noskill, *last;
	long trials, stale;
	double seconds;
	double usd;       /* what its run spent (known), unknown: items without a price */
	long unknown;
};

struct index_page {
	struct results_table *tables;   /* one per run */
	size_t nruns;
	struct cell *cells;
	size_t n;
	struct page_charts charts;
	struct buf html;
};

static char *rel_to(const char *dir, const char *run)
{
	size_t n = strlen(dir);
	if (!strncmp(run, dir, n) && run[n] == '/')
		return xstrdup(run + n + 1);
	return xstrdup(run);
}

static void add_cells(struct index_page *p, const struct results_table *tb, const char *rel)
{
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i];
		struct cell *c = p->n ? &p->cells[p->n - 1] : NULL;
		if (!c || strcmp(c->rel, rel) || !c->last || !results_same_cell(c->last, g)) {
			p->cells = xrealloc(p->cells, (p->n + 1) * sizeof *p->cells);
			c = &p->cells[p->n++];
			memset(c, 0, sizeof *c);
			c->rel = xstrdup(rel);
		}
		c->trials += g->trials;
		c->stale += g->stale;
		c->seconds += g->sec_sum;
		if (!strcmp(g->stage, "raw"))
			c->raw = g;
		if (!strcmp(g->stage, "noskill"))
			c->noskill = g;
		if (!c->last || (strcmp(g->stage, "noskill") && g->scored))
			c->last = g;
	}
}

static int cmp_cell(const void *a, const void *b)
{
	const struct results_group *x = ((const struct cell *)a)->last, *y = ((const struct cell *)b)->last;
	int c;
	if ((c = strcmp(x->task, y->task)) || (c = strcmp(x->harness, y->harness)) || (c = strcmp(x->model, y->model)) ||
	    (c = strcmp(x->bench, y->bench)) || (c = strcmp(x->runner, y->runner)))
		return c;
	return strcmp(((const struct cell *)a)->rel, ((const struct cell *)b)->rel);
}

static bool regressed(const struct cell *c)
{
	return c->last && c->last != c->raw && results_regressed(c->last);
}

/* Whether any run has the no-skill baseline (then its columns are shown). */
static bool any_noskill(const struct index_page *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->cells[i].noskill)
			return true;
	return false;
}

/* The cells whose latest stage is below the no-skill baseline, of those compared. */
static long worse_than_noskill(const struct index_page *p, long *compared)
{
	long worse = 0;
	*compared = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct results_group *g = p->cells[i].last;
		if (g && g != p->cells[i].noskill && !isnan(results_delta_pp_vs(g, p->cells[i].noskill))) {
			(*compared)++;
			worse += results_worse_than_noskill(g);
		}
	}
	return worse;
}

static void kpis(struct index_page *p)
{
	struct buf *b = &p->html;
	long trials = 0, stale = 0, reg = 0, compared = 0, better = 0;
	double secs = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct cell *c = &p->cells[i];
		trials += c->trials;
		stale += c->stale;
		secs += c->seconds;
		if (c->last && c->last != c->raw && !isnan(results_delta_pp(c->last))) {
			compared++;
			reg += regressed(c);
			better += results_delta_pp(c->last) > 0;
		}
	}
	char v[48], s[96];
	buf_adds(b, "<section class=\"kpis\">\n");
	snprintf(v, sizeof v, "%zu", p->nruns);
	snprintf(s, sizeof s, "%zu task × harness × model cell%s", p->n, p->n == 1 ? "" : "s");
	page_kpi(b, "Runs", v, s, NULL);
	snprintf(v, sizeof v, "%ld of %ld", better, compared);
	page_kpi(b, "Improved vs raw", v, "latest stage above raw's pass rate", better ? "good" : NULL);
	snprintf(v, sizeof v, "%ld of %ld", reg, compared);
	page_kpi(b, "Regressed vs raw", v, "latest stage below raw's pass rate", reg ? "bad" : NULL);
	if (any_noskill(p)) {
		long ncompared, worse = worse_than_noskill(p, &ncompared);
		snprintf(v, sizeof v, "%ld of %ld", worse, ncompared);
		page_kpi(b, "Worse than no skill", v, "latest stage below the no-skill pass rate", worse ? "bad" : NULL);
	}
	snprintf(v, sizeof v, "%ld", trials);
	snprintf(s, sizeof s, "%ld stale, not counted", stale);
	page_kpi(b, "Trials counted", v, s, NULL);
	page_fmt_seconds(v, sizeof v, secs);
	page_kpi(b, "Trial time", v, "sum over counted trials", NULL);
	double usd = 0;
	long unknown = 0;
	for (size_t i = 0; i < p->n; i++) {
		usd += p->cells[i].usd;
		unknown += p->cells[i].unknown;
	}
	page_fmt_usd(v, sizeof v, usd == 0 && unknown ? NAN : usd);
	snprintf(s, sizeof s, unknown ? "+ %ld item%s of unknown price" : "LLM calls and trials, every run", unknown,
		 unknown == 1 ? "" : "s");
	page_kpi(b, "Spent", v, s, NULL);
	buf_adds(b, "</section>\n");
}

/* The forest plot of each cell's latest stage against raw, or against the
 * no-skill baseline (charts/delta.svg, charts/delta-noskill.svg). */
static void delta_chart(struct index_page *p, bool vs_noskill)
{
	struct svg_point *rows = xcalloc(p->n + 1, sizeof *rows);
	char (*label)[200] = xcalloc(p->n + 1, sizeof *label), (*note)[64] = xcalloc(p->n + 1, sizeof *note);
	char (*sub)[200] = xcalloc(p->n + 1, sizeof *sub);
	char (*key)[300] = xcalloc(p->n + 1, sizeof *key);
	for (size_t i = 0; i < p->n; i++) {
		const struct cell *c = &p->cells[i];
		const struct results_group *g = c->last, *base = vs_noskill ? c->noskill : c->raw;
		double d = g && g != base ? results_delta_pp_vs(g, base) : NAN, lo = NAN, hi = NAN;
		if (!isnan(d) && results_delta_ci_vs(g, base, &lo, &hi)) {
			lo /= 100;
			hi /= 100;
		}
		snprintf(label[i], sizeof label[i], "%s", g->task);
		snprintf(sub[i], sizeof sub[i], "%s · %s", g->harness, g->model);
		snprintf(key[i], sizeof key[i], "%s", c->rel);
		if (!isnan(d))
			snprintf(note[i], sizeof note[i], "%s %+.1f pp", g->stage,
				 round_to(d, 1) == 0 ? 0 : d);
		rows[i] = (struct svg_point){ .key = key[i], .label = label[i], .sublabel = sub[i], .value = isnan(d) ? NAN : d / 100,
					      .lo = lo, .hi = hi, .note = note[i][0] ? note[i] : NULL };
	}
	struct svg_forest f = { .id = vs_noskill ? "delta-noskill" : "delta",
				.title = vs_noskill ? "Change in pass rate against no skill at all"
						    : "Change in pass rate against the raw skill",
				.subtitle = vs_noskill ? "latest stage of each run − no-skill, percentage points; line: Newcombe 95% interval"
						       : "latest stage of each run − raw, percentage points; line: Newcombe 95% interval",
				.axis = "Δ pass rate (pp)", .min = -1, .max = 1, .scale = 100, .fmt = "%+.0f",
				.rows = rows, .n = p->n };
	page_forest(&p->charts, &p->html, &f);
	free(rows);
	free(label);
	free(sub);
	free(note);
	free(key);
}

static void matrix(struct index_page *p)
{
	struct buf *b = &p->html;
	bool noskill = any_noskill(p);
	buf_printf(b, "<section class=\"card\" id=\"matrix\">\n<h2>Task × harness × model</h2>\n<p class=\"lead\">One row "
		      "per run, sorted by task, harness and model. Latest: the last stage with scored trials (final, once "
		      "it runs). Δ: its pass-rate change against raw%s with Newcombe's 95%% interval.</p>\n"
		      "<div class=\"scroll\"><table>\n<tr><th>Task</th><th>Harness · model</th><th>Bench · runner</th>"
		      "%s<th>Raw</th><th>Latest stage</th><th class=\"n\">Δ vs raw</th>%s<th class=\"n\">Trials</th>"
		      "<th class=\"n\">Time</th><th class=\"n\">Spent</th><th>Report</th></tr>\n",
		   noskill ? " (and against no skill at all, the noskill stage)" : "", noskill ? "<th>No skill</th>" : "",
		   noskill ? "<th class=\"n\">Δ vs no-skill</th>" : "");
	for (size_t i = 0; i < p->n; i++) {
		const struct cell *c = &p->cells[i];
		const struct results_group *g = c->last;
		buf_adds(b, "<tr><td><b>");
		html_str(b, g->task);
		buf_adds(b, "</b></td><td>");
		html_str(b, g->harness);
		buf_adds(b, "<br><span class=\"muted small\">");
		html_str(b, g->model);
		buf_adds(b, "</span></td><td>");
		html_str(b, *g->bench ? g->bench : "–");
		buf_adds(b, "<br><span class=\"muted small\">");
		html_str(b, g->runner);
		buf_adds(b, "</span></td>");
		if (noskill) {
			buf_adds(b, "<td class=\"nw\">");
			page_rate_ci(b, c->noskill);
			buf_adds(b, "</td>");
		}
		buf_adds(b, "<td class=\"nw\">");
		page_rate_ci(b, c->raw);
		buf_adds(b, "</td><td class=\"nw\">");
		page_stage_name(b, g->stage);
		buf_adds(b, " ");
		page_rate_ci(b, g);
		if (g->selection) /* the winner's curse: say so where the number is read */
			buf_printf(b, "<br><span class=\"neg small\" title=\"the accepted round's own trials: optimistic\">"
				      "%ld selection reused</span>", g->selection);
		buf_adds(b, "</td><td class=\"n\">");
		page_delta(b, g, g != c->raw ? c->raw : NULL);
		if (noskill) {
			buf_adds(b, "</td><td class=\"n\">");
			page_delta(b, g, g != c->noskill ? c->noskill : NULL);
		}
		char t[32];
		page_fmt_seconds(t, sizeof t, c->seconds);
		buf_printf(b, "</td><td class=\"n\">%ld", c->trials);
		if (c->stale)
			buf_printf(b, " <span class=\"muted small\">+%ld stale</span>", c->stale);
		buf_printf(b, "</td><td class=\"n\">%s</td><td class=\"n\">", t);
		page_usd_cell(b, c->usd, c->unknown);
		buf_adds(b, "</td><td class=\"links\"><a href=\"");
		char *href = xasprintf("%s/report.html", c->rel);
		html_href(b, href);
		free(href);
		buf_adds(b, "\">report</a></td></tr>\n");
	}
	buf_adds(b, "</table></div>\n</section>\n");
}

int page_write_index(const char *dir, const struct strlist *runs, const struct routes *routes, int *changed,
		     struct err *e)
{
	struct index_page p = { .nruns = runs->n };
	p.tables = xcalloc(runs->n + 1, sizeof *p.tables);
	for (size_t i = 0; i < runs->n; i++) {
		results_build_run(&p.tables[i], runs->v[i], routes);
		char *rel = rel_to(dir, runs->v[i]);
		size_t before = p.n;
		add_cells(&p, &p.tables[i], rel);
		if (p.n > before) /* the run's money goes to its first cell */
			p.cells[before].usd = results_spent(&p.tables[i], &p.cells[before].unknown);
		free(rel);
	}
	if (p.n)
		qsort(p.cells, p.n, sizeof *p.cells, cmp_cell);
	html_page_open(&p.html, "skillc · results");
	buf_adds(&p.html, "<header class=\"top\"><div class=\"wrap\">\n<div class=\"eyebrow\">skillc report</div>\n"
			  "<h1>Results</h1>\n<p class=\"who\"><b>");
	html_str(&p.html, dir);
	buf_printf(&p.html, "</b> · %zu run%s</p>\n</div></header>\n<main class=\"wrap\">\n", runs->n,
		   runs->n == 1 ? "" : "s");
	kpis(&p);
	buf_adds(&p.html, "<section class=\"card\" id=\"delta\">\n<h2>Compiled against raw</h2>\n<p class=\"lead\">Also "
			  "<a href=\"charts/delta.svg\">charts/delta.svg</a>.</p>\n<div class=\"figure\">");
	delta_chart(&p, false);
	buf_adds(&p.html, "</div>\n</section>\n");
	if (any_noskill(&p)) {
		buf_adds(&p.html, "<section class=\"card\" id=\"delta-noskill\">\n<h2>Compiled against no skill</h2>\n"
				  "<p class=\"lead\">The same task, harness and model with no skill at all (the noskill stage). "
				  "Also <a href=\"charts/delta-noskill.svg\">charts/delta-noskill.svg</a>.</p>\n"
				  "<div class=\"figure\">");
		delta_chart(&p, true);
		buf_adds(&p.html, "</div>\n</section>\n");
	}
	matrix(&p);
	struct results_table all = { 0 };
	results_build(&all, runs, routes);
	page_index_across(&p.html, &all);
	results_free(&all);
	buf_adds(&p.html, "<footer>Made by skillc-report " V_REPORT "; every run's own page holds its stages, skill "
			  "changes and trials.</footer>\n</main>\n");
	html_page_close(&p.html);
	int rc = page_write_files(dir, "index.html", &p.html, &p.charts, changed, e);
	char *stale = path_join(dir, "charts/delta-noskill.svg");
	if (rc == 0 && !any_noskill(&p) && fs_exists(stale)) { /* from when a run had the baseline: it would mislead */
		rc = fs_remove_tree(stale, e);
		if (rc == 0 && changed)
			(*changed)++;
	}
	free(stale);
	for (size_t i = 0; i < p.n; i++)
		free(p.cells[i].rel);
	free(p.cells);
	for (size_t i = 0; i < runs->n; i++)
		results_free(&p.tables[i]);
	free(p.tables);
	page_charts_free(&p.charts);
	buf_free(&p.html);
	return rc;
}
