/* pagebits.h — the pieces the report pages share: number cells, stage
 * names and colours, KPI cards, the chart list (each chart inline and as a
 * standalone file), the pipeline and trial tables, and writing a page with
 * its charts only where bytes changed. */
#ifndef SKILLC_REPORT_PAGEBITS_H
#define SKILLC_REPORT_PAGEBITS_H

#include <cJSON.h>

#include "base/util.h"
#include "report/results.h"
#include "report/svg.h"

struct page_chart {
	char id[64];
	struct buf svg;   /* inline in the page */
	struct buf file;  /* charts/<id>.svg */
};
struct page_charts {
	struct page_chart *v;
	size_t n;
};

/* Renders a chart into the list; appends the inline markup to out when given. */
void page_chart(struct page_charts *cs, struct buf *out, const struct svg_chart *c);
void page_forest(struct page_charts *cs, struct buf *out, const struct svg_forest *f);
void page_charts_free(struct page_charts *cs);
/* Writes <dir>/<name> (the page) and <dir>/charts/<id>.svg, each when its
 * bytes changed; adds the number rewritten to *changed (may be NULL). */
int page_write_files(const char *dir, const char *name, const struct buf *page, const struct page_charts *cs,
		     int *changed, struct err *e);

/* The fill of a stage's bars. */
const char *page_stage_color(const char *stage);
/* The stage's name with its colour swatch. */
void page_stage_name(struct buf *b, const char *stage);

/* Cells: v in fmt, "–" when NAN; a rate as "80.0%"; "4/5 = 80.0% [..]". */
void page_num(struct buf *b, double v, const char *fmt);
void page_pct(struct buf *b, double v);
void page_rate_ci(struct buf *b, const struct results_group *g); /* "–" for no row (NULL) */
/* g's change against base (g->raw, g->noskill): "+60.0 pp [−0.0, +83.2]"
 * coloured by sign, "–" without base (raw has no raw). */
void page_delta(struct buf *b, const struct results_group *g, const struct results_group *base);
/* "1h 02m", "3m 05s", "12.3 s". */
void page_fmt_seconds(char *out, size_t size, double s);
/* A money figure: "$0.0213", "unknown" for NAN. */
void page_fmt_usd(char *out, size_t size, double usd);

/* A stage's money cell: "$0.0042", "$0.0042 + 2 unknown", "unknown". */
void page_usd_cell(struct buf *b, double usd, long unknown);

/* KPI cards: a free one (cls: NULL, "good" or "bad"), a stage's pass rate,
 * a stage's change against base (raw or no-skill, named by name). */
void page_kpi(struct buf *b, const char *key, const char *value, const char *sub, const char *cls);
void page_kpi_rate(struct buf *b, const char *key, const struct results_group *g);
void page_kpi_delta(struct buf *b, const struct results_group *g, const struct results_group *base, const char *name);

/* Per-stage money of a run: a column of the pipeline table, its cell
 * text by stage. NULL: no cost column. */
struct page_cost_col {
	const char *(*cell)(void *ctx, const char *stage, char *buf, size_t size);
	void *ctx;
};
/* The pipeline table from a run's manifest (targets in graph order,
 * repeated stages folded into one row). */
void page_pipeline_table(struct buf *b, const cJSON *manifest, const char *run, const struct page_cost_col *cost);
/* The trials of a group, linked relative to the run's own page. */
void page_trial_table(struct buf *b, const struct results_group *g);

/* The figures of across.h's JSON a (mean change and its interval,
 * normalized gain, sign and stratified tests, whether too small to show
 * its own gain), then its per-task table, `stage` naming the column. */
void page_across_figures(struct buf *b, const cJSON *a, const char *stage);
/* The index's "Across tasks" section over the table of all its runs
 * (nothing when no stage has 2 or more tasks with raw). */
void page_index_across(struct buf *b, const struct results_table *all);

#endif
