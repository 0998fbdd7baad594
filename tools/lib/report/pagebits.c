#include "report/pagebits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/html.h"
#include "report/stats.h"

/* ---------------------------------------------------------------- charts */

static struct page_chart *new_chart(struct page_charts *cs, const char *id)
{
	cs->v = xrealloc(cs->v, (cs->n + 1) * sizeof *cs->v);
	struct page_chart *c = &cs->v[cs->n++];
	memset(c, 0, sizeof *c);
	snprintf(c->id, sizeof c->id, "%s", id);
	return c;
}

void page_chart(struct page_charts *cs, struct buf *out, const struct svg_chart *c)
{
	struct page_chart *pc = new_chart(cs, c->id);
	svg_bar_chart(&pc->svg, c, false);
	svg_bar_chart(&pc->file, c, true);
	if (out)
		buf_add(out, pc->svg.data, pc->svg.len);
}

void page_forest(struct page_charts *cs, struct buf *out, const struct svg_forest *f)
{
	struct page_chart *pc = new_chart(cs, f->id);
	svg_forest_plot(&pc->svg, f, false);
	svg_forest_plot(&pc->file, f, true);
	if (out)
		buf_add(out, pc->svg.data, pc->svg.len);
}

void page_charts_free(struct page_charts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		buf_free(&cs->v[i].svg);
		buf_free(&cs->v[i].file);
	}
	free(cs->v);
	memset(cs, 0, sizeof *cs);
}

static int write_counted(const char *path, const struct buf *b, int *changed, struct err *e)
{
	int r = fs_write_if_changed(path, b->data, b->len, e);
	if (r > 0 && changed)
		(*changed)++;
	return r < 0 ? -1 : 0;
}

int page_write_files(const char *dir, const char *name, const struct buf *page, const struct page_charts *cs,
		     int *changed, struct err *e)
{
	int rc = 0;
	if (cs->n) {
		char *cd = path_join(dir, "charts");
		rc = fs_mkdirs(cd, e);
		for (size_t i = 0; i < cs->n && rc == 0; i++) {
			char *file = xasprintf("%s/%s.svg", cd, cs->v[i].id);
			rc = write_counted(file, &cs->v[i].file, changed, e);
			free(file);
		}
		free(cd);
	}
	if (rc == 0) {
		char *p = path_join(dir, name);
		rc = write_counted(p, page, changed, e);
		free(p);
	}
	return rc;
}

/* ---------------------------------------------------------------- cells */

const char *page_stage_color(const char *stage)
{
	static const struct {
		const char *name, *color;
	} colors[] = {
		{ "noskill", "#b8bec8" }, { "raw", "#8d99ae" }, { "static", "#4c78a8" },
		{ "fast", "#2a9d8f" },    { "final", "#e76f51" },
	};
	for (size_t i = 0; i < ARRAY_LEN(colors); i++)
		if (!strcmp(stage, colors[i].name))
			return colors[i].color;
	if (!strncmp(stage, "deep-", 5)) {
		static const char *const deep[] = { "#7b61ff", "#9c7cf4", "#b197fc", "#6741d9" };
		long k = strtol(stage + 5, NULL, 10);
		return deep[(k > 0 ? k - 1 : 0) % 4];
	}
	return "#c9a227";
}

void page_stage_name(struct buf *b, const char *stage)
{
	buf_printf(b, "<span class=\"stage\" style=\"background:%s\"></span>", page_stage_color(stage));
	html_str(b, stage);
}

void page_num(struct buf *b, double v, const char *fmt)
{
	if (isnan(v))
		buf_adds(b, "–");
	else
		buf_printf(b, fmt, v);
}

void page_pct(struct buf *b, double v)
{
	page_num(b, v * 100, "%.1f%%");
}

void page_rate_ci(struct buf *b, const struct results_group *g)
{
	if (!g || !g->scored) {
		buf_adds(b, "–");
		return;
	}
	double lo, hi;
	stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
	buf_printf(b, "<b>%.1f%%</b><br><span class=\"muted small\">%ld/%ld [%.1f, %.1f]</span>",
		   results_pass_rate(g) * 100, g->passed, g->scored, lo * 100, hi * 100);
}

/* A signed number of points, never "-0.0". */
static double tidy1(double v)
{
	v = round_to(v, 1);
	return v == 0 ? 0 : v;
}

void page_delta(struct buf *b, const struct results_group *g, const struct results_group *base)
{
	double d = results_delta_pp_vs(g, base), lo, hi;
	if (isnan(d)) {
		buf_adds(b, "–");
		return;
	}
	buf_printf(b, "<span class=\"%s\">%+.1f pp</span>", d > 0 ? "pos" : d < 0 ? "neg" : "muted", tidy1(d));
	if (results_delta_ci_vs(g, base, &lo, &hi))
		buf_printf(b, "<br><span class=\"muted small\">[%+.1f, %+.1f]</span>", tidy1(lo), tidy1(hi));
}

void page_fmt_seconds(char *out, size_t size, double s)
{
	if (isnan(s))
		snprintf(out, size, "–");
	else if (s >= 3600)
		snprintf(out, size, "%ldh %02ldm", (long)(s / 3600), ((long)s % 3600) / 60);
	else if (s >= 120)
		snprintf(out, size, "%ldm %02lds", (long)(s / 60), (long)s % 60);
	else if (s < 1) /* "0.2 s" rounds a sub-second trial away */
		snprintf(out, size, "%.0f ms", s * 1000);
	else
		snprintf(out, size, "%.1f s", s);
}

void page_fmt_usd(char *out, size_t size, double usd)
{
	if (isnan(usd))
		snprintf(out, size, "unknown");
	else if (usd >= 100)
		snprintf(out, size, "$%.0f", usd);
	else if (usd >= 1)
		snprintf(out, size, "$%.2f", usd);
	else
		snprintf(out, size, "$%.4f", usd);
}

void page_usd_cell(struct buf *b, double usd, long unknown)
{
	char s[48];
	if (usd == 0 && unknown)
		usd = NAN; /* nothing known to add the unknown to: never "$0" */
	page_fmt_usd(s, sizeof s, usd);
	if (isnan(usd))
		buf_adds(b, "<span class=\"muted\">unknown</span>");
	else
		html_str(b, s);
	if (unknown && !isnan(usd))
		buf_printf(b, " <span class=\"muted small\">+ %ld unknown</span>", unknown);
}

/* ----------------------------------------------------------------- kpis */

void page_kpi(struct buf *b, const char *key, const char *value, const char *sub, const char *cls)
{
	buf_adds(b, "<div class=\"kpi");
	if (cls) {
		buf_addc(b, ' ');
		html_str(b, cls);
	}
	buf_adds(b, "\"><div class=\"k\">");
	html_str(b, key);
	buf_adds(b, "</div><div class=\"v\">");
	html_str(b, value);
	buf_adds(b, "</div><div class=\"s\">");
	html_str(b, sub);
	buf_adds(b, "</div></div>\n");
}

void page_kpi_rate(struct buf *b, const char *key, const struct results_group *g)
{
	char v[32] = "–", s[96] = "no scored trials";
	if (g && g->scored) {
		double lo, hi;
		stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
		snprintf(v, sizeof v, "%.0f%%", results_pass_rate(g) * 100);
		snprintf(s, sizeof s, "%ld/%ld passed · 95%% CI %.0f–%.0f%%", g->passed, g->scored, lo * 100, hi * 100);
	}
	page_kpi(b, key, v, s, NULL);
}

void page_kpi_delta(struct buf *b, const struct results_group *g, const struct results_group *base, const char *name)
{
	double d = results_delta_pp_vs(g, base), lo, hi;
	char v[32] = "–", s[96], k[64];
	snprintf(s, sizeof s, "no %s trials to compare", name);
	snprintf(k, sizeof k, "Change vs %s", name);
	if (!isnan(d)) {
		snprintf(v, sizeof v, "%+.0f pp", tidy1(d));
		if (results_delta_ci_vs(g, base, &lo, &hi))
			snprintf(s, sizeof s, "%s vs %s · 95%% CI %+.0f to %+.0f", g->stage, name, tidy1(lo), tidy1(hi));
	}
	page_kpi(b, k, v, s, isnan(d) || d == 0 ? NULL : d > 0 ? "good" : "bad");
}

/* ------------------------------------------------------------- pipeline */

struct prow {
	char *name;
	long n, done, failed, running, pending, other;
	double seconds;
	char *error;
};

static struct prow *prow_for(struct prow **v, size_t *n, const char *target)
{
	const char *dot = strrchr(target, '.');
	size_t len = dot && dot[1] >= '0' && dot[1] <= '9' ? (size_t)(dot - target) : strlen(target);
	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i].name) == len && !strncmp((*v)[i].name, target, len))
			return &(*v)[i];
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	struct prow *r = &(*v)[(*n)++];
	memset(r, 0, sizeof *r);
	r->name = xstrndup(target, len);
	return r;
}

static void prow_state(struct prow *r, const char *state)
{
	r->n++;
	if (!state || !strcmp(state, "pending"))
		r->pending++;
	else if (!strcmp(state, "done"))
		r->done++;
	else if (!strcmp(state, "failed"))
		r->failed++;
	else if (!strcmp(state, "running"))
		r->running++;
	else
		r->other++;
}

/* Pipeline order of a row name, whatever order the manifest lists them in:
 * ingest, profile, then the stage families (noskill, raw, static, fast,
 * deep-start, deep-K by K, deep-final, final), each family's steps in the
 * order they run; anything else last, by name. */
struct prow_key {
	int family;
	long round;
	int step;
};

static struct prow_key prow_key(const char *name)
{
	static const char *const lead[] = { "ingest", "profile" };
	static const char *const families[] = { "noskill", "raw", "static", "fast", "deep-start", "deep-", "deep-final",
						 "final" };
	static const char *const steps[] = { "", "score", "map", "reduce", "apply", "edit", "eval", "look", "index",
					     "decide" };
	struct prow_key k = { (int)ARRAY_LEN(lead) + (int)ARRAY_LEN(families), 0, (int)ARRAY_LEN(steps) };
	for (size_t i = 0; i < ARRAY_LEN(lead); i++)
		if (!strcmp(name, lead[i]))
			return (struct prow_key){ (int)i, 0, 0 };
	const char *rest = NULL;
	for (size_t i = 0; i < ARRAY_LEN(families) && !rest; i++) {
		size_t len = strlen(families[i]);
		if (strncmp(name, families[i], len) || (name[len] && name[len] != '-' && families[i][len - 1] != '-'))
			continue;
		rest = name + len;
		if (families[i][len - 1] == '-') { /* deep-K[-step] */
			char *end;
			k.round = strtol(rest, &end, 10);
			if (end == rest || (*end && *end != '-')) {
				rest = NULL;
				continue;
			}
			rest = end;
		}
		k.family = (int)(ARRAY_LEN(lead) + i);
	}
	if (!rest)
		return k;
	if (*rest == '-')
		rest++;
	for (size_t i = 0; i < ARRAY_LEN(steps); i++)
		if (!strcmp(rest, steps[i]))
			k.step = (int)i;
	return k;
}

static int prow_cmp(const void *x, const void *y)
{
	const struct prow *a = x, *b = y;
	struct prow_key ka = prow_key(a->name), kb = prow_key(b->name);
	if (ka.family != kb.family)
		return ka.family < kb.family ? -1 : 1;
	if (ka.round != kb.round)
		return ka.round < kb.round ? -1 : 1;
	if (ka.step != kb.step)
		return ka.step < kb.step ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void prow_cell_state(struct buf *b, const struct prow *r)
{
	const struct {
		long n;
		const char *cls;
	} parts[] = { { r->done, "done" }, { r->failed, "failed" }, { r->running, "running" },
		      { r->pending, "pending" }, { r->other, "interrupted" } };
	for (size_t i = 0; i < ARRAY_LEN(parts); i++) {
		if (!parts[i].n)
			continue;
		buf_printf(b, "<span class=\"pill %s\">", parts[i].cls);
		if (r->n > 1)
			buf_printf(b, "%ld ", parts[i].n);
		buf_printf(b, "%s</span> ", parts[i].cls);
	}
}

/* deep-K-eval's trials the rule did not need (artifacts/deep/round-K/
 * trials/NNN.json saying "needed": false: done, but nothing ran). */
static long not_needed(const char *run, const char *name, long targets)
{
	char *end;
	if (strncmp(name, "deep-", 5) || name[5] < '1' || name[5] > '9')
		return 0;
	long k = strtol(name + 5, &end, 10), n = 0;
	if (strcmp(end, "-eval"))
		return 0;
	for (long i = 1; i <= targets; i++) {
		char *rel = xasprintf("artifacts/deep/round-%ld/trials/%03ld.json", k, i);
		cJSON *j = json_read_rel(run, rel);
		n += cJSON_IsFalse(json_get(j, "needed"));
		cJSON_Delete(j);
		free(rel);
	}
	return n;
}

void page_pipeline_table(struct buf *b, const cJSON *manifest, const char *run, const struct page_cost_col *cost)
{
	const cJSON *targets = json_get(manifest, "targets"), *stages = json_get(manifest, "stages");
	struct prow *rows = NULL;
	size_t n = 0;
	for (const cJSON *t = targets ? targets->child : NULL; t; t = t->next)
		prow_state(prow_for(&rows, &n, t->string), cJSON_IsString(t) ? t->valuestring : NULL);
	for (const cJSON *s = stages ? stages->child : NULL; s; s = s->next) {
		struct prow *r = prow_for(&rows, &n, s->string);
		if (!json_get(targets, s->string))
			prow_state(r, json_str(s, "state"));
		double sec = json_num(s, "seconds", NAN);
		if (!isnan(sec))
			r->seconds += sec;
		const char *err = json_str(s, "error");
		if (err && !r->error)
			r->error = xstrdup(err);
	}
	if (!n) {
		buf_adds(b, "<p class=\"note\">No manifest.json in this run folder.</p>\n");
		return;
	}
	qsort(rows, n, sizeof *rows, prow_cmp);
	buf_printf(b, "<div class=\"scroll\"><table>\n<tr><th>Stage</th><th class=\"n\">Targets</th><th>State</th>"
		      "<th class=\"n\">Time</th>%s<th>Error</th><th>Log</th></tr>\n",
		   cost ? "<th class=\"n\">Cost</th>" : "");
	for (size_t i = 0; i < n; i++) {
		struct prow *r = &rows[i];
		char t[32], c[48];
		page_fmt_seconds(t, sizeof t, r->seconds);
		buf_adds(b, "<tr><td><b>");
		html_str(b, r->name);
		buf_printf(b, "</b></td><td class=\"n\">%ld</td><td>", r->n);
		prow_cell_state(b, r);
		long idle = not_needed(run, r->name, r->n);
		if (idle)
			buf_printf(b, " <span class=\"muted small\">%ld not needed by the rule</span>", idle);
		buf_printf(b, "</td><td class=\"n\">%s</td>", r->done + r->failed ? t : "–");
		if (cost) {
			buf_adds(b, "<td class=\"n\">");
			html_str(b, cost->cell(cost->ctx, r->name, c, sizeof c));
			buf_adds(b, "</td>");
		}
		buf_adds(b, "<td class=\"msg\">");
		html_str_cut(b, r->error, 300);
		buf_adds(b, "</td><td class=\"links\">");
		/* a repeated stage's first target's log (deep-1-look.001 even when it is the only one) */
		char *log = xasprintf("logs/%s%s.log", r->name, r->n > 1 ? ".001" : "");
		char *abs = path_join(run, log);
		if (!fs_exists(abs) && r->n == 1) {
			free(log);
			free(abs);
			log = xasprintf("logs/%s.001.log", r->name);
			abs = path_join(run, log);
		}
		if (fs_exists(abs)) {
			buf_adds(b, "<a href=\"");
			html_href(b, log);
			buf_adds(b, "\">log</a>");
		}
		free(abs);
		free(log);
		buf_adds(b, "</td></tr>\n");
		free(r->name);
		free(r->error);
	}
	free(rows);
	buf_adds(b, "</table></div>\n");
}

/* --------------------------------------------------------------- trials */

/* The text of the last agent_message in a trial's ACP trajectory. */
static char *last_message(const char *trial_dir)
{
	char *p = path_join(trial_dir, "trajectory/acp_trajectory.jsonl");
	struct buf b = BUF_INIT;
	struct err e;
	char *msg = NULL;
	if (fs_read(p, 16u << 20, &b, &e) == 0 && b.len) {
		for (char *line = b.data; line && *line;) {
			char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			cJSON *ev = cJSON_ParseWithLength(line, len);
			const char *text = json_str(ev, "text");
			if (text && json_str(ev, "type") && !strcmp(json_str(ev, "type"), "agent_message")) {
				free(msg);
				msg = xstrdup(text);
			}
			cJSON_Delete(ev);
			line = nl ? nl + 1 : NULL;
		}
	}
	buf_free(&b);
	free(p);
	return msg;
}

static void link(struct buf *b, const char *rel, const char *file, const char *label,
		 const char *trial_dir)
{
	char *abs = file ? xasprintf("%s/%s", trial_dir, file) : xstrdup(trial_dir);
	if (fs_exists(abs)) {
		buf_adds(b, "<a href=\"");
		char *href = file ? xasprintf("%s/%s", rel, file) : xasprintf("%s/", rel);
		html_href(b, href);
		free(href);
		buf_adds(b, "\">");
		html_str(b, label);
		buf_adds(b, "</a>");
	}
	free(abs);
}

static void trial_row(struct buf *b, const struct results_trial *t)
{
	char secs[32];
	page_fmt_seconds(secs, sizeof secs, t->seconds);
	buf_printf(b, "<tr%s><td>", t->stale ? " class=\"stale\"" : "");
	html_str(b, t->test);
	buf_adds(b, "</td><td>");
	if (t->stale)
		buf_adds(b, "<span class=\"pill\">stale</span>");
	else {
		buf_adds(b, "<span class=\"pill ");
		html_str(b, t->outcome);
		buf_adds(b, "\">");
		html_str(b, t->outcome);
		buf_adds(b, "</span>");
	}
	if (t->selection) {
		/* the accepted round's own trial, hard-linked: optimistic (the winner's curse) */
		buf_adds(b, " <span class=\"neg small\" title=\"the accepted round's own trial: optimistic\">selection");
		if (t->reused_from) {
			/* traces/<task>/deep-2/test-001: its stage/test is enough */
			const char *s = t->reused_from + strlen(t->reused_from);
			for (int slashes = 0; s > t->reused_from && slashes < 2; s--)
				slashes += s[-1] == '/';
			buf_adds(b, ": ");
			html_str(b, s == t->reused_from ? s : s + 1);
		}
		buf_adds(b, "</span>");
	} else if (t->reused) {
		buf_adds(b, " <span class=\"muted small\">reused</span>");
	}
	buf_adds(b, "</td><td class=\"n\">");
	page_num(b, t->reward, "%.2f");
	buf_adds(b, "</td><td class=\"n\">");
	page_num(b, t->tokens, "%.0f");
	buf_adds(b, "</td><td class=\"n\">");
	page_num(b, t->tool_calls, "%.0f");
	buf_printf(b, "</td><td class=\"n\">%s</td><td>%s</td><td class=\"msg\">", secs, t->invoked ? "invoked" : "–");
	if (t->stale) {
		html_str(b, t->stale);
	} else {
		char *msg = last_message(t->dir);
		html_str_cut(b, msg ? msg : t->error, 240);
		free(msg);
	}
	buf_adds(b, "</td><td class=\"links\">");
	link(b, t->rel, NULL, "folder", t->dir);
	link(b, t->rel, "trial.json", "trial.json", t->dir);
	link(b, t->rel, "trajectory/acp_trajectory.jsonl", "trajectory", t->dir);
	if (t->rollout) {
		char *v = xasprintf("%s/verifier", t->rollout);
		link(b, t->rel, v, "verifier", t->dir);
		free(v);
	}
	link(b, t->rel, "runner.log", "runner.log", t->dir);
	buf_adds(b, "</td></tr>\n");
}

void page_trial_table(struct buf *b, const struct results_group *g)
{
	buf_adds(b, "<div class=\"scroll\"><table>\n<tr><th>Trial</th><th>Outcome</th><th class=\"n\">Reward</th>"
		    "<th class=\"n\">Tokens</th><th class=\"n\">Tool calls</th><th class=\"n\">Time</th><th>Skill</th>"
		    "<th>Message</th><th>Files</th></tr>\n");
	for (size_t i = 0; i < g->nt; i++)
		trial_row(b, &g->t[i]);
	buf_adds(b, "</table></div>\n");
}
