#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unicode.h"
#include "report/html.h"

#define FONT "font-family=\"Inter, 'Helvetica Neue', Helvetica, Arial, sans-serif\""

enum { W = 720, H = 400, LEFT = 70, RIGHT = 24, TOP = 84 };

/* The plot area of a bar chart. */
struct frame {
	int width, height, left, right, top, bottom;
};

static struct frame frame_of(const struct svg_chart *c)
{
	struct frame f = { c->w ? c->w : W, c->h ? c->h : H, LEFT, isnan(c->ref) ? RIGHT : 76, TOP, c->note ? 88 : 70 };
	if (f.width < 560)
		f.left = 56;
	return f;
}

static void open_svg(struct buf *b, const char *id, int w, int h, bool standalone)
{
	if (standalone)
		buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_printf(b,
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" class=\"chart\" data-chart=\"",
		   w, h, w, h);
	html_str(b, id);
	buf_printf(b, "\" " FONT ">\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
}

static void heading(struct buf *b, const char *title, const char *subtitle)
{
	buf_adds(b, "<title>");
	html_str(b, title);
	buf_adds(b, "</title>\n<text x=\"24\" y=\"34\" font-size=\"18\" font-weight=\"700\" fill=\"#14213d\">");
	html_str(b, title);
	buf_adds(b, "</text>\n");
	if (subtitle) {
		buf_adds(b, "<text x=\"24\" y=\"56\" font-size=\"12.5\" fill=\"#5c6370\">");
		html_str(b, subtitle);
		buf_adds(b, "</text>\n");
	}
}

/* A data-* attribute holding a number ("" when unknown). */
static void data_num(struct buf *b, const char *name, double v)
{
	if (isnan(v))
		buf_printf(b, " data-%s=\"\"", name);
	else
		buf_printf(b, " data-%s=\"%.6g\"", name, v);
}

static void shown(struct buf *b, const char *fmt, double v, double scale)
{
	char s[64];
	if (isnan(v))
		snprintf(s, sizeof s, "n/a");
	else
		snprintf(s, sizeof s, fmt, v * scale);
	html_str(b, s);
}

/* A round step for about five ticks up to top. */
static double nice_step(double top)
{
	double raw = top / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
	double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
	return nice * mag;
}

static double chart_top(const struct svg_chart *c)
{
	if (!isnan(c->ymax) && c->ymax > 0)
		return c->ymax;
	double top = 0;
	for (size_t i = 0; i < c->n; i++) {
		double v = isnan(c->bars[i].hi) ? c->bars[i].value : c->bars[i].hi;
		if (!isnan(v) && v > top)
			top = v;
	}
	if (!isnan(c->ref) && c->ref > top)
		top = c->ref;
	if (top <= 0)
		return 1;
	double step = nice_step(top * 1.1);
	return ceil(top * 1.1 / step) * step;
}

static void y_axis(struct buf *b, const struct svg_chart *c, const struct frame *f, double top)
{
	double step = nice_step(top);
	int plot_h = f->height - f->top - f->bottom;
	for (double v = 0; v <= top * 1.0001; v += step) {
		double y = f->height - f->bottom - v / top * plot_h;
		buf_printf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n", f->left,
			   f->width - f->right, y, y, v == 0 ? "#9aa0a6" : "#e8eaed");
		buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"11.5\" fill=\"#5c6370\" text-anchor=\"end\">", f->left - 8,
			   y + 4);
		shown(b, c->fmt, v, c->scale);
		buf_adds(b, "</text>\n");
	}
}

/* How many characters of a text of this font size fit in px (an average
 * glyph is about 0.56 em wide in the sans-serif faces the charts name). */
static size_t fits(double px, double font_size)
{
	double n = px / (font_size * 0.56);
	return n < 3 ? 3 : (size_t)n;
}

/* A bar's second line, centred under it in a slot px wide: as many of its
 * " · " parts as fit, the rest on a line below, each cut (with "…") where
 * it would run into the neighbouring bar's text. */
static void sub_lines(struct buf *b, double cx, double y, const char *sub, double px)
{
	static const char sep[] = " · ";
	size_t max = fits(px, 11.5);
	const char *p = sub;
	for (int line = 0; line < 2 && *p; line++) {
		size_t take = strlen(p);
		if (line == 0 && utf8_count(p, take) > max) {
			const char *cut = NULL;
			for (const char *s = strstr(p, sep); s && utf8_count(p, (size_t)(s - p)) <= max; s = strstr(s + 1, sep))
				cut = s;
			if (cut)
				take = (size_t)(cut - p);
		}
		char *part = xstrndup(p, take);
		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11.5\" fill=\"#5c6370\" text-anchor=\"middle\">",
			   cx, y + 14 * line);
		html_str_cut(b, part, max);
		buf_adds(b, "</text>\n");
		free(part);
		p += take;
		if (!strncmp(p, sep, sizeof sep - 1))
			p += sizeof sep - 1;
	}
}

static void one_bar(struct buf *b, const struct svg_chart *c, const struct frame *f, const struct svg_bar *bar,
		    double cx, double bw, double slot, double top)
{
	int plot_h = f->height - f->top - f->bottom;
	double base = f->height - f->bottom;
	buf_adds(b, "<g class=\"bar\" data-key=\"");
	html_str(b, bar->key);
	buf_adds(b, "\"");
	data_num(b, "value", bar->value);
	data_num(b, "lo", bar->lo);
	data_num(b, "hi", bar->hi);
	buf_adds(b, ">\n<title>");
	html_str(b, bar->title ? bar->title : bar->label);
	buf_adds(b, "</title>\n");
	double label_y = base - 8;
	if (!isnan(bar->value)) {
		double h = bar->value / top * plot_h;
		buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\" fill=\"", cx - bw / 2,
			   base - h, bw, h);
		html_str(b, bar->color ? bar->color : "#4c78a8");
		buf_adds(b, "\"/>\n");
		label_y = base - h - 8;
	}
	if (!isnan(bar->lo) && !isnan(bar->hi)) {
		double ylo = base - bar->lo / top * plot_h, yhi = base - bar->hi / top * plot_h;
		buf_printf(b,
			   "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"#1f2933\" "
			   "stroke-width=\"1.6\" fill=\"none\"/>\n",
			   cx, ylo, yhi, cx - 7, ylo, cx + 7, cx - 7, yhi, cx + 7);
		if (yhi - 8 < label_y)
			label_y = yhi - 8;
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"700\" fill=\"#14213d\" "
		      "text-anchor=\"middle\">", cx, label_y);
	shown(b, c->fmt, bar->value, c->scale);
	buf_printf(b, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#14213d\" text-anchor=\"middle\">",
		   cx, base + 22);
	html_str_cut(b, bar->label, fits(slot - 4, 13));
	buf_adds(b, "</text>\n");
	if (bar->sub)
		sub_lines(b, cx, base + 38, bar->sub, slot - 6);
	buf_adds(b, "</g>\n");
}

void svg_bar_chart(struct buf *b, const struct svg_chart *c, bool standalone)
{
	struct frame f = frame_of(c);
	open_svg(b, c->id, f.width, f.height, standalone);
	heading(b, c->title, c->subtitle);
	double top = chart_top(c);
	y_axis(b, c, &f, top);
	double slot = (double)(f.width - f.left - f.right) / (double)(c->n ? c->n : 1);
	double bw = slot * 0.58 > 92 ? 92 : slot * 0.58;
	for (size_t i = 0; i < c->n; i++)
		one_bar(b, c, &f, &c->bars[i], f.left + slot * ((double)i + 0.5), bw, slot, top);
	if (!isnan(c->ref)) {
		double y = f.height - f.bottom - c->ref / top * (f.height - f.top - f.bottom);
		buf_printf(b,
			   "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#6b7280\" stroke-width=\"1.2\" "
			   "stroke-dasharray=\"5 4\"/>\n<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#6b7280\" "
			   "text-anchor=\"start\">",
			   f.left, f.width - f.right, y, y, f.width - f.right + 6, y + 4);
		html_str(b, c->ref_label);
		buf_adds(b, "</text>\n");
	}
	if (c->note) {
		buf_printf(b, "<text x=\"24\" y=\"%d\" font-size=\"11\" fill=\"#5c6370\">", f.height - 14);
		html_str(b, c->note);
		buf_adds(b, "</text>\n");
	}
	buf_adds(b, "</svg>\n");
}

void svg_forest_plot(struct buf *b, const struct svg_forest *f, bool standalone)
{
	enum { ROW = 42, LABEL_W = 250, NOTE_W = 150 };
	int h = TOP + ROW * (int)(f->n ? f->n : 1) + 56, x0 = LABEL_W, x1 = W - NOTE_W;
	open_svg(b, f->id, W, h, standalone);
	heading(b, f->title, f->subtitle);
	double span = f->max - f->min;
#define XPOS(v) (x0 + ((v) - f->min) / span * (x1 - x0))
	double step = nice_step(span);
	for (double v = ceil(f->min / step) * step; v <= f->max + 1e-9; v += step) {
		if (fabs(v) < step * 1e-9)
			v = 0; /* never "-0" */
		double x = XPOS(v);
		buf_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1\"/>\n", x, x,
			   TOP - 8, h - 48, fabs(v) < 1e-12 ? "#6b7280" : "#e8eaed");
		buf_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"11.5\" fill=\"#5c6370\" text-anchor=\"middle\">", x,
			   h - 30);
		if (v == 0)
			buf_adds(b, "0");
		else
			shown(b, f->fmt, v, f->scale);
		buf_adds(b, "</text>\n");
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" fill=\"#14213d\" text-anchor=\"middle\">",
		   (x0 + x1) / 2.0, h - 10);
	html_str(b, f->axis);
	buf_adds(b, "</text>\n");
	for (size_t i = 0; i < f->n; i++) {
		const struct svg_point *p = &f->rows[i];
		double y = TOP + ROW * ((double)i + 0.5);
		buf_adds(b, "<g class=\"point\" data-key=\"");
		html_str(b, p->key);
		buf_adds(b, "\"");
		data_num(b, "value", p->value);
		data_num(b, "lo", p->lo);
		data_num(b, "hi", p->hi);
		buf_adds(b, ">\n<title>");
		html_str(b, p->label);
		buf_adds(b, "</title>\n");
		buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"13\" font-weight=\"650\" fill=\"#14213d\" "
			      "text-anchor=\"end\">", x0 - 14, p->sublabel ? y - 2 : y + 4);
		html_str_cut(b, p->label, 30);
		buf_adds(b, "</text>\n");
		if (p->sublabel) {
			buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#5c6370\" text-anchor=\"end\">",
				   x0 - 14, y + 13);
			html_str_cut(b, p->sublabel, 40);
			buf_adds(b, "</text>\n");
		}
		if (!isnan(p->lo) && !isnan(p->hi)) {
			double lo = fmax(p->lo, f->min), hi = fmin(p->hi, f->max);
			buf_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#1f2933\" "
				      "stroke-width=\"1.8\"/>\n", XPOS(lo), XPOS(hi), y, y);
		}
		if (!isnan(p->value)) {
			const char *fill = p->value > 0 ? "#2a9d8f" : p->value < 0 ? "#d62839" : "#6b7280";
			buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5.5\" fill=\"%s\"/>\n",
				   XPOS(fmax(fmin(p->value, f->max), f->min)), y, fill);
		}
		buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"12.5\" fill=\"#14213d\">", x1 + 14, y + 4);
		html_str(b, p->note ? p->note : "n/a");
		buf_adds(b, "</text>\n</g>\n");
	}
#undef XPOS
	buf_adds(b, "</svg>\n");
}
