/* svg.h — the report's charts as SVG: a bar chart with 95% interval
 * whiskers (pass rate per stage, reward, tokens, time, cost) and a forest
 * plot (a change with its interval per row, across runs). The same markup
 * is inlined in the HTML page and written standalone as charts/<id>.svg
 * (with the XML declaration): no script, no external font or image. Every
 * bar and point carries its numbers as data-* attributes (data-key,
 * data-value, data-lo, data-hi, unscaled) and a <title>, so a test or a
 * reader can check them against summary.json. */
#ifndef SKILLC_REPORT_SVG_H
#define SKILLC_REPORT_SVG_H

#include <stdbool.h>

#include "base/util.h"

struct svg_bar {
	const char *key;    /* data-key, e.g. the stage */
	const char *label;  /* under the bar */
	const char *sub;    /* a second, smaller line under it (may be NULL): UTF-8, wrapped at " · " to fit */
	double value;       /* NAN: no bar, "n/a" */
	double lo, hi;      /* the whisker; NAN: none */
	const char *color;  /* fill, e.g. "#4c78a8" */
	const char *title;  /* the tooltip (may be NULL) */
};

struct svg_chart {
	const char *id;        /* names the chart (data-chart, charts/<id>.svg) */
	const char *title, *subtitle;
	const char *note;      /* a legend line under the plot (may be NULL) */
	int w, h;              /* size; 0: 720 x 400 */
	const char *fmt;       /* printf format of a displayed value (after scale), e.g. "%.0f%%" */
	double scale;          /* displayed = value * scale (100 for rates) */
	double ymax;           /* top of the axis in value units; NAN: from the data */
	double ref;            /* a dashed reference line (e.g. raw's value); NAN: none */
	const char *ref_label;
	const struct svg_bar *bars;
	size_t n;
};

/* Appends the chart. standalone: with the XML declaration (a .svg file). */
void svg_bar_chart(struct buf *b, const struct svg_chart *c, bool standalone);

struct svg_point {
	const char *key;     /* data-key */
	const char *label;   /* the row's name, left of the axis */
	const char *sublabel; /* a smaller second line under it (may be NULL) */
	double value, lo, hi; /* NAN value: "n/a" row */
	const char *note;    /* right of the plot, e.g. "+20.0 pp" (may be NULL) */
};

struct svg_forest {
	const char *id, *title, *subtitle;
	const char *axis;    /* the x axis' name */
	double min, max;     /* the x range in value units */
	double scale;        /* displayed = value * scale */
	const char *fmt;
	const struct svg_point *rows;
	size_t n;
};

/* Appends a forest plot: one row per point, a zero line, interval lines. */
void svg_forest_plot(struct buf *b, const struct svg_forest *f, bool standalone);

#endif
