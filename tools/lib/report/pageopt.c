#include "report/pageopt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/html.h"
#include "report/pagebits.h"

/* <run>/<rel> parsed; NULL when absent. *bad set when present but unreadable. */
static cJSON *read_rel(const char *run, const char *rel, bool *bad)
{
	char *p = path_join(run, rel);
	struct err e;
	cJSON *v = NULL;
	*bad = false;
	if (fs_exists(p)) {
		v = json_read_file(p, &e);
		*bad = !v;
	}
	free(p);
	return v;
}

/* The same, with a note in b when it is there but not JSON. */
static cJSON *read_noted(struct buf *b, const char *run, const char *rel)
{
	bool bad;
	cJSON *v = read_rel(run, rel, &bad);
	if (bad) {
		buf_adds(b, "<p class=\"note\">Unreadable: <code>");
		html_str(b, rel);
		buf_adds(b, "</code> is not JSON.</p>\n");
	}
	return v;
}

/* A string field as a cell ("–" when absent). */
static void cell_str(struct buf *b, const cJSON *o, const char *k)
{
	const char *s = json_str(o, k);
	html_str(b, s ? s : "–");
}

static void cell_pill(struct buf *b, const char *state)
{
	buf_adds(b, "<span class=\"pill ");
	html_str(b, state ? state : "");
	buf_adds(b, "\">");
	html_str(b, state ? state : "–");
	buf_adds(b, "</span>");
}

/* A link to the stage's own report (its report.md) when the run has it. */
static void own_report(struct buf *b, const char *run, const char *rel)
{
	char *p = path_join(run, rel);
	if (fs_exists(p)) {
		buf_adds(b, "<p class=\"note\">The stage's own report: <a href=\"");
		html_href(b, rel);
		buf_adds(b, "\">");
		html_str(b, rel);
		buf_adds(b, "</a>.</p>\n");
	}
	free(p);
}

/* ------------------------------------------------------------------ fast */

static void fast_groups(struct buf *b, const char *run)
{
	cJSON *g = read_noted(b, run, "artifacts/fast/groups.json");
	if (!g)
		return;
	buf_adds(b, "<h3>Traces and groups</h3>\n<p class=\"note\">Mode <b>");
	cell_str(b, g, "mode");
	buf_adds(b, "</b>: ");
	cell_str(b, g, "reason");
	buf_adds(b, ".</p>\n");
	const cJSON *units = json_get(g, "units");
	if (cJSON_GetArraySize(units) > 0) {
		buf_adds(b, "<div class=\"scroll\"><table>\n<tr><th class=\"n\">Unit</th><th>Kind</th><th>Better</th>"
			    "<th>Worse</th><th>Map answer</th><th class=\"n\">Findings kept</th><th class=\"n\">Dropped</th></tr>\n");
		for (const cJSON *u = units->child; u; u = u->next) {
			long n = (long)json_num(u, "unit", 0);
			char rel[64];
			snprintf(rel, sizeof rel, "artifacts/fast/map/%03ld.json", n);
			bool mbad;
			cJSON *m = read_rel(run, rel, &mbad);
			const cJSON *counts = json_get(m, "counts");
			buf_printf(b, "<tr><td class=\"n\">%ld</td><td>", n);
			cell_str(b, u, "kind");
			buf_adds(b, "</td><td>");
			cell_str(b, u, "better");
			buf_adds(b, "</td><td>");
			cell_str(b, u, "worse");
			buf_adds(b, "</td><td>");
			if (m)
				cell_pill(b, json_str(m, "status"));
			else
				buf_adds(b, mbad ? "unreadable" : "not yet");
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, json_num(counts, "kept", NAN), "%.0f");
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, m ? (double)cJSON_GetArraySize(json_get(m, "dropped")) : NAN, "%.0f");
			buf_adds(b, "</td></tr>\n");
			cJSON_Delete(m);
		}
		buf_adds(b, "</table></div>\n");
	}
	cJSON_Delete(g);
}

static void fast_patches(struct buf *b, const char *run)
{
	cJSON *r = read_noted(b, run, "artifacts/fast/report.json");
	const cJSON *patches = json_get(r, "patches");
	if (!r || !cJSON_IsArray(patches)) {
		cJSON_Delete(r);
		return;
	}
	const cJSON *c = json_get(r, "counts");
	buf_printf(b, "<h3>Patches</h3>\n<p class=\"note\">%.0f applied, %.0f unchanged, %.0f rolled back by the guard, "
		      "%.0f rejected.</p>\n",
		   json_num(c, "applied", 0), json_num(c, "unchanged", 0), json_num(c, "rolled_back", 0),
		   json_num(c, "rejected", 0));
	if (cJSON_GetArraySize(patches) > 0) {
		buf_adds(b, "<div class=\"scroll\"><table>\n<tr><th class=\"n\">#</th><th>Op</th><th>Section</th>"
			    "<th>Status</th><th>Text</th><th>Why / what failed</th></tr>\n");
		for (const cJSON *x = patches->child; x; x = x->next) {
			const cJSON *p = json_get(x, "patch"), *guard = json_get(x, "guard");
			buf_printf(b, "<tr><td class=\"n\">%.0f</td><td>", json_num(p, "n", NAN));
			cell_str(b, p, "op");
			buf_adds(b, "</td><td><code>");
			cell_str(b, p, "section");
			buf_adds(b, "</code></td><td>");
			const char *st = json_str(x, "status");
			cell_pill(b, st && !strcmp(st, "rolled_back") ? "rolled-back" : st);
			buf_adds(b, "</td><td class=\"msg\">");
			if (json_str(p, "text"))
				html_str_cut(b, json_str(p, "text"), 160);
			else if (json_str(p, "find")) { /* a delete: what it removes */
				buf_adds(b, "<del>");
				html_str_cut(b, json_str(p, "find"), 160);
				buf_adds(b, "</del>");
			}
			buf_adds(b, "</td><td class=\"msg\">");
			if (guard) {
				buf_adds(b, "guard: ");
				cell_str(b, guard, "check");
				buf_adds(b, " — ");
				html_str_cut(b, json_str(guard, "item"), 120);
			} else {
				html_str_cut(b, json_str(x, "reason") ? json_str(x, "reason") : json_str(p, "why"), 200);
			}
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</table></div>\n");
	}
	cJSON_Delete(r);
}

static void fast_scores(struct buf *b, const char *run)
{
	cJSON *s = read_noted(b, run, "artifacts/fast/scores.json");
	const cJSON *traces = json_get(s, "traces");
	if (cJSON_GetArraySize(traces) > 0) {
		buf_adds(b, "<details class=\"file\"><summary>The ranking of the traces (scores.json: ");
		cell_str(b, s, "order_by");
		buf_adds(b, ")</summary>\n<div class=\"scroll\"><table>\n<tr><th class=\"n\">Rank</th><th>Trace</th>"
			    "<th>Outcome</th><th class=\"n\">Credit</th><th class=\"n\">AgentRM</th><th class=\"n\">Pre-score</th></tr>\n");
		for (const cJSON *t = traces->child; t; t = t->next) {
			buf_printf(b, "<tr><td class=\"n\">%.0f</td><td>", json_num(t, "rank", NAN));
			cell_str(b, t, "trace");
			buf_adds(b, "</td><td>");
			cell_pill(b, json_str(t, "outcome"));
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, json_num(json_get(t, "credit"), "value", NAN), "%.2f");
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, json_num(json_get(t, "agentrm"), "score", NAN), "%.2f");
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, json_num(json_get(t, "prescore"), "score", NAN), "%.0f");
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</table></div></details>\n");
	}
	cJSON_Delete(s);
}

void pageopt_fast(struct buf *b, const char *run)
{
	char *dir = path_join(run, "artifacts/fast");
	bool there = fs_is_dir(dir);
	free(dir);
	if (!there)
		return;
	buf_adds(b, "<section class=\"card\" id=\"fast\">\n<h2>Fast: from traces to patches</h2>\n<p class=\"lead\">The "
		    "traces of the static skill ranked (verifier first, AgentRM within an outcome, then the structural "
		    "pre-score), paired top against bottom, one map question per pair, the findings reduced to typed "
		    "patches, each applied through the guard.</p>\n");
	own_report(b, run, "artifacts/fast/report.md");
	fast_groups(b, run);
	fast_patches(b, run);
	fast_scores(b, run);
	buf_adds(b, "</section>\n");
}

/* ------------------------------------------------------------------ deep */

static void arm(struct buf *b, const cJSON *a)
{
	if (!a) {
		buf_adds(b, "–");
		return;
	}
	double p = json_num(a, "passed", NAN), n = json_num(a, "trials", NAN);
	buf_printf(b, "%.0f/%.0f", p, n);
	if (n > 0)
		buf_printf(b, " <span class=\"muted small\">%.0f%%</span>", p / n * 100);
}

/* Runtime: its verdict, and every member of decision.json's "runtime"
 * holding a median ratio. */
static void runtime(struct buf *b, const cJSON *rt)
{
	bool any = false;
	if (json_str(rt, "verdict")) {
		html_str(b, json_str(rt, "verdict"));
		buf_adds(b, ": ");
	}
	for (const cJSON *m = rt ? rt->child : NULL; m; m = m->next) {
		const cJSON *med = cJSON_IsNumber(m) ? m : json_get(m, "median");
		if (!cJSON_IsNumber(med) || !m->string)
			continue;
		buf_adds(b, any ? ", " : "");
		html_str(b, m->string);
		buf_printf(b, " ×%.2f", med->valuedouble);
		any = true;
	}
	if (!any)
		buf_adds(b, "–");
}

/* The stage name of a decision's baseline or candidate: a string (round 0
 * names them) or an object's "source"; dflt when neither. */
static const char *arm_source(const cJSON *d, const char *arm, const char *dflt)
{
	const cJSON *a = json_get(d, arm);
	const char *s = cJSON_IsString(a) ? a->valuestring : json_str(a, "source");
	return s ? s : dflt;
}

/* The rule's power at these trial counts: its chance of accepting each real
 * gain of "operating" (report/decide.h's enumeration), "p→q N%" a line. */
static void power(struct buf *b, const cJSON *operating)
{
	bool any = false;
	for (const cJSON *o = cJSON_IsArray(operating) ? operating->child : NULL; o; o = o->next) {
		const char *kind = json_str(o, "kind");
		double a = json_num(o, "accept", NAN);
		if (!kind || strcmp(kind, "gain") || isnan(a))
			continue;
		buf_printf(b, "%s<span class=\"nw\">%.1f→%.1f: %.0f%%</span>", any ? "<br>" : "", json_num(o, "p_base", NAN),
			   json_num(o, "p_cand", NAN), a * 100);
		any = true;
	}
	if (!any)
		buf_adds(b, "–");
}

/* K of "round-K"; -1 when the name is not a round. */
static int round_number(const char *name)
{
	if (strncmp(name, "round-", 6) || name[6] < '0' || name[6] > '9')
		return -1;
	char *end;
	long k = strtol(name + 6, &end, 10);
	return *end ? -1 : (int)k;
}

static int cmp_round(const void *a, const void *b)
{
	return round_number(*(char *const *)a) - round_number(*(char *const *)b);
}

static void deep_round(struct buf *b, const char *run, const char *name)
{
	char *drel = xasprintf("artifacts/deep/%s/decision.json", name), *erel = xasprintf("artifacts/deep/%s/edit.json", name);
	bool dbad, ebad;
	cJSON *d = read_rel(run, drel, &dbad), *ed = read_rel(run, erel, &ebad);
	/* the test's numbers are decision.json's "statistics" (report/decide.h) */
	const cJSON *st = json_get(d, "statistics") ? json_get(d, "statistics") : d;
	const cJSON *counts = json_get(st, "counts");
	const char *verdict = json_str(d, "verdict");
	int k = round_number(name);
	if (k == 0)
		buf_adds(b, "<tr class=\"has-why\"><td class=\"n\">start</td><td>");
	else
		buf_printf(b, "<tr class=\"has-why\"><td class=\"n\">%d</td><td>", k);
	/* round 0 picks the start (static or fast); a round K edits a section */
	const cJSON *e = json_get(d, "edit") ? json_get(d, "edit") : json_get(ed, "edit") ? json_get(ed, "edit") : ed;
	const char *sec = json_str(e, "section");
	if (k == 0) {
		buf_adds(b, "the start: ");
		html_str(b, arm_source(d, "candidate", "fast"));
		buf_adds(b, " against ");
		html_str(b, arm_source(d, "baseline", "static"));
	} else if (sec) {
		buf_adds(b, "<code class=\"nw\">");
		html_str(b, sec);
		buf_adds(b, "</code>");
	} else {
		buf_adds(b, ebad ? "(edit.json unreadable)" : "–");
	}
	buf_adds(b, "</td><td>");
	if (d) {
		cell_pill(b, verdict && !strncmp(verdict, "accept", 6) ? "accepted" : verdict && !strncmp(verdict, "reject", 6) ? "rejected" : verdict);
		if (k == 0 && json_str(d, "start")) {
			buf_adds(b, "<br><span class=\"muted small\">starts from ");
			html_str(b, json_str(d, "start"));
			buf_adds(b, "</span>");
		}
	} else
		buf_adds(b, dbad ? "unreadable" : "<span class=\"pill pending\">not decided</span>");
	buf_adds(b, "</td><td class=\"n\">");
	arm(b, json_get(counts, "baseline"));
	buf_adds(b, "</td><td class=\"n\">");
	arm(b, json_get(counts, "candidate"));
	double looks = json_num(d, "decided_at_look", 1);
	if (looks > 1)
		buf_printf(b, "<br><span class=\"muted small\">at look %.0f</span>", looks);
	buf_adds(b, "</td><td class=\"n\">");
	page_num(b, json_num(st, "p_value", NAN), "%.3f");
	buf_adds(b, "</td><td class=\"n\">");
	page_num(b, json_num(json_get(st, "false_accept"), "worst", NAN), "%.3f");
	buf_adds(b, "</td><td class=\"n small\">");
	power(b, json_get(st, "operating"));
	buf_adds(b, "</td><td class=\"small\">");
	runtime(b, json_get(d, "runtime"));
	/* the why is a sentence: its own line under the numbers, the table's width */
	buf_adds(b, "</td></tr>\n<tr class=\"why\"><td></td><td colspan=\"8\" class=\"small muted\">");
	html_str_cut(b, json_str(d, "why"), 400);
	buf_adds(b, "</td></tr>\n");
	cJSON_Delete(d);
	cJSON_Delete(ed);
	free(drel);
	free(erel);
}

static int cmp_unit_score(const void *a, const void *b)
{
	double x = json_num(*(const cJSON *const *)a, "score", 0), y = json_num(*(const cJSON *const *)b, "score", 0);
	return (x > y) - (x < y);
}

/* One round's section scores (round-K/scores.json), weakest first: the
 * units the edit was asked for, in the order it tries them. */
static void round_scores(struct buf *b, const char *run, const char *name)
{
	char *rel = xasprintf("artifacts/deep/%s/scores.json", name);
	bool bad;
	cJSON *sc = read_rel(run, rel, &bad);
	if (bad) { /* a row: this goes inside the scores table */
		buf_printf(b, "<tr><td class=\"n\">%d</td><td colspan=\"4\" class=\"note\">Unreadable: <code>",
			   round_number(name));
		html_str(b, rel);
		buf_adds(b, "</code> is not JSON.</td></tr>\n");
	}
	const cJSON *units = json_get(sc, "units");
	int n = cJSON_GetArraySize(units);
	char *erel = xasprintf("artifacts/deep/%s/edit.json", name);
	cJSON *ed = json_read_rel(run, erel);
	const char *edited = json_str(json_get(ed, "edit"), "unit");
	if (n > 0) {
		const cJSON **v = xcalloc((size_t)n, sizeof *v);
		int k = 0;
		for (const cJSON *u = units->child; u; u = u->next)
			v[k++] = u;
		qsort(v, (size_t)n, sizeof *v, cmp_unit_score);
		for (int i = 0; i < n; i++) {
			buf_printf(b, "<tr><td class=\"n\">%d</td><td><code class=\"nw\">", round_number(name));
			cell_str(b, v[i], "unit");
			buf_adds(b, "</code>");
			if (edited && json_str(v[i], "unit") && !strcmp(edited, json_str(v[i], "unit")))
				buf_adds(b, " <span class=\"pill pending\">edited</span>");
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, json_num(v[i], "score", NAN), "%.2f");
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, json_num(v[i], "dimensions_counted", NAN), "%.0f");
			buf_adds(b, "</td><td class=\"n\">");
			page_num(b, json_num(v[i], "bytes", NAN), "%.0f");
			buf_adds(b, "</td></tr>\n");
		}
		free(v);
		buf_printf(b, "<tr><td class=\"n\">%d</td><td colspan=\"4\" class=\"small muted\">%d unit%s unscored (never "
			      "edited), %d answer%s dropped</td></tr>\n",
			   round_number(name), cJSON_GetArraySize(json_get(sc, "unscored")),
			   cJSON_GetArraySize(json_get(sc, "unscored")) == 1 ? "" : "s", cJSON_GetArraySize(json_get(sc, "dropped")),
			   cJSON_GetArraySize(json_get(sc, "dropped")) == 1 ? "" : "s");
	}
	cJSON_Delete(ed);
	cJSON_Delete(sc);
	free(erel);
	free(rel);
}

static void deep_scores(struct buf *b, const char *run, const struct strlist *rounds)
{
	struct buf rows = BUF_INIT;
	for (size_t i = 0; i < rounds->n; i++)
		round_scores(&rows, run, rounds->v[i]);
	if (rows.len) {
		buf_adds(b, "<details class=\"file\"><summary>Section scores by round (scores.json: the mean of the "
			    "counted dimensions, 1–5; the weakest unit not yet rejected is edited)</summary>\n<div "
			    "class=\"scroll\"><table>\n<tr><th class=\"n\">Round</th><th>Unit</th><th class=\"n\">Score</th>"
			    "<th class=\"n\">Dimensions</th><th class=\"n\">Bytes</th></tr>\n");
		buf_add(b, rows.data, rows.len);
		buf_adds(b, "</table></div></details>\n");
	}
	buf_free(&rows);
}

static void deep_rounds(struct buf *b, const char *run)
{
	char *dir = path_join(run, "artifacts/deep");
	struct strlist names = STRLIST_INIT;
	struct err e;
	fs_list_names(dir, &names, &e);
	free(dir);
	size_t k = 0;
	for (size_t i = 0; i < names.n; i++)
		if (round_number(names.v[i]) >= 0)
			names.v[k++] = names.v[i];
		else
			free(names.v[i]);
	names.n = k;
	if (names.n)
		qsort(names.v, names.n, sizeof *names.v, cmp_round);
	if (names.n) {
		buf_adds(b, "<div class=\"scroll\"><table>\n<tr><th class=\"n\">Round</th><th>Section edited</th>"
			    "<th>Decision</th><th class=\"n\">Baseline</th><th class=\"n\">Candidate</th>"
			    "<th class=\"n\">p-value</th><th class=\"n\">False-accept</th><th class=\"n\">Power</th>"
			    "<th>Runtime (paired)</th></tr>\n");
		for (size_t i = 0; i < names.n; i++)
			deep_round(b, run, names.v[i]);
		buf_adds(b, "</table></div>\n");
		deep_scores(b, run, &names);
	}
	strlist_free(&names);
}

static void rejected(struct buf *b, const char *run)
{
	cJSON *r = read_noted(b, run, "artifacts/deep/rejected.json");
	const cJSON *list = cJSON_IsArray(r) ? r : json_get(r, "rejected");
	if (cJSON_GetArraySize(list) > 0) {
		buf_printf(b, "<h3>Rejected edits</h3>\n<p class=\"note\">Remembered and shown to the next edit request, so "
			      "they are not proposed again (%d).</p>\n<div class=\"scroll\"><table>\n<tr><th class=\"n\">Round</th>"
			      "<th>Section</th><th>Edit</th><th>Why</th></tr>\n",
			   cJSON_GetArraySize(list));
		for (const cJSON *x = list->child; x; x = x->next) {
			const cJSON *ed = json_get(x, "edit");
			buf_adds(b, "<tr><td class=\"n\">");
			page_num(b, json_num(x, "round", NAN), "%.0f");
			buf_adds(b, "</td><td><code>");
			cell_str(b, json_str(x, "section") ? x : ed, "section");
			buf_adds(b, "</code></td><td class=\"msg\">");
			html_str_cut(b, cJSON_IsString(ed) ? ed->valuestring : json_str(ed, "text"), 200);
			buf_adds(b, "</td><td class=\"msg\">");
			html_str_cut(b, json_str(x, "why") ? json_str(x, "why") : json_str(x, "reason"), 240);
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</table></div>\n");
	}
	cJSON_Delete(r);
}

static char *rel_str(const char *run, const char *rel, const char *arm, const char *key);

static void final_skill(struct buf *b, const char *run, const cJSON *manifest)
{
	const cJSON *f = json_get(manifest, "final_skill");
	if (!f || cJSON_IsNull(f))
		return;
	buf_adds(b, "<h3>The deliverable</h3>\n<p class=\"note\">S_final: <code>");
	html_str(b, cJSON_IsString(f) ? f->valuestring : json_str(f, "path"));
	buf_adds(b, "</code>");
	if (json_str(f, "hash")) {
		buf_adds(b, " (hash <code>");
		html_str(b, json_str(f, "hash"));
		buf_adds(b, "</code>)");
	}
	char *from = json_str(f, "from") ? xstrdup(json_str(f, "from"))
					 : rel_str(run, "artifacts/deep/report.json", NULL, "final_source");
	if (from) {
		buf_adds(b, ", the skill of ");
		html_str(b, from);
		free(from);
	}
	buf_adds(b, ".</p>\n");
}

/* A string field of <run>/<rel>, copied; NULL when absent or unreadable. */
static char *rel_str(const char *run, const char *rel, const char *arm, const char *key)
{
	cJSON *j = json_read_rel(run, rel);
	const cJSON *o = arm ? json_get(j, arm) : j;
	const char *v = cJSON_IsString(o) && arm ? o->valuestring : json_str(o, key);
	char *out = v && *v ? xstrdup(v) : NULL;
	cJSON_Delete(j);
	return out;
}

char *pageopt_diff_base(const char *run, const char *stage, char **note)
{
	*note = NULL;
	if (!strcmp(stage, "final")) {
		char *from = rel_str(run, "artifacts/deep/report.json", NULL, "final_source");
		if (from) {
			*note = xasprintf("S_final is the skill of %s", from);
			free(from);
		}
		return xstrdup("raw");
	}
	char *end;
	if (strncmp(stage, "deep-", 5) || stage[5] < '1' || stage[5] > '9')
		return NULL;
	long k = strtol(stage + 5, &end, 10);
	if (*end)
		return NULL;
	char *rel = xasprintf("artifacts/deep/round-%ld/best.json", k - 1);
	char *from = rel_str(run, rel, NULL, "source");
	free(rel);
	if (!from) {
		rel = xasprintf("artifacts/deep/round-%ld/decision.json", k);
		from = rel_str(run, rel, "baseline", "source");
		free(rel);
	}
	if (from)
		*note = xasprintf("round %ld's candidate: %s's skill with one edit", k, from);
	return from;
}

void pageopt_deep(struct buf *b, const char *run, const cJSON *manifest)
{
	char *dir = path_join(run, "artifacts/deep");
	bool there = fs_is_dir(dir);
	free(dir);
	const cJSON *f = json_get(manifest, "final_skill");
	if (!there && (!f || cJSON_IsNull(f)))
		return;
	buf_adds(b, "<section class=\"card\" id=\"deep\">\n<h2>Deep: the rounds and their decisions</h2>\n<p class=\"lead\">"
		    "Each round edits the weakest section, runs the candidate, and accepts it only when an exact "
		    "one-sided test on the pass counts says so at the rule's level with no runtime regression "
		    "(docs/statistics.md). False-accept: the rule's worst chance of accepting a useless edit at these "
		    "trial counts, by enumeration; power: its chance of accepting a real gain of that size (pass rate "
		    "p→q), so a rejection with low power says little. Runtime: median paired ratios candidate / "
		    "baseline.</p>\n");
	own_report(b, run, "artifacts/deep/report.md");
	deep_rounds(b, run);
	rejected(b, run);
	final_skill(b, run, manifest);
	buf_adds(b, "</section>\n");
}
