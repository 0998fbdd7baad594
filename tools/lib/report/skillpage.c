/* The skill run's report.html (docs/skill-runs.md): the document of
 * skillsum_json as a page, so page and summary.json never disagree. Train
 * and held-out (and each transfer target) side by side in one table, then
 * per role the figures across tasks (pagebits.h, as the index's "Across
 * tasks") with the per-task raw -> final table, and the disclosure. */
#include "report/skillsum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/html.h"
#include "report/pagebits.h"

/* One column of the side-by-side table: a role's name and figures. */
struct col {
	const char *name;
	const cJSON *pooled, *gap;
};

static void pp(struct buf *b, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		buf_printf(b, "%+.1f pp", 100 * v->valuedouble);
	else
		buf_adds(b, "–");
}

static void ci(struct buf *b, const cJSON *p)
{
	const cJSON *c = json_get(p, "ci95");
	if (cJSON_IsNumber(cJSON_GetArrayItem(c, 0)) && cJSON_IsNumber(cJSON_GetArrayItem(c, 1)))
		buf_printf(b, "[%+.1f, %+.1f] pp", 100 * cJSON_GetArrayItem(c, 0)->valuedouble,
		           100 * cJSON_GetArrayItem(c, 1)->valuedouble);
	else
		buf_adds(b, "– (one task)");
}

/* The side-by-side table: a row per figure, a column per role. */
static void side_by_side(struct buf *b, const struct col *cols, size_t n)
{
	buf_adds(b, "<div class=\"scroll\"><table id=\"side\">\n<tr><th></th>");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, "<th class=\"n\">");
		html_str(b, cols[i].name);
		buf_adds(b, "</th>");
	}
	static const char *const rows[] = { "Tasks", "Raw pass rate", "Final pass rate",
		                            "Mean change, raw → final",
		                            "95% interval across tasks", "Gap from the train gain",
		                            "Too small to show its own gain" };
	for (size_t r = 0; r < ARRAY_LEN(rows); r++) {
		buf_printf(b, "</tr>\n<tr><th>%s</th>", rows[r]);
		for (size_t i = 0; i < n; i++) {
			const cJSON *p = cols[i].pooled;
			buf_adds(b, "<td class=\"n\">");
			if (!cJSON_IsObject(p))
				buf_adds(b, "–");
			else if (r == 0)
				buf_printf(b, "%.0f", json_num(p, "tasks", 0));
			else if (r == 1 || r == 2)
				page_pct(b, json_num(p, r == 1 ? "base_rate" : "cand_rate", NAN));
			else if (r == 3)
				pp(b, json_get(p, "mean_delta"));
			else if (r == 4)
				ci(b, p);
			else if (r == 5)
				pp(b, cols[i].gap);
			else
				buf_adds(b, json_bool(p, "too_small", false) ? "yes" : "no");
			buf_adds(b, "</td>");
		}
	}
	buf_adds(b, "</tr>\n</table></div>\n");
}

static void role_section(struct buf *b, const char *id, const char *title, const cJSON *p)
{
	buf_printf(b, "<section class=\"card\" id=\"%s\">\n<h2>", id);
	html_str(b, title);
	buf_adds(b, "</h2>\n");
	if (cJSON_IsObject(p))
		page_across_figures(b, p, "Final");
	else
		buf_adds(b, "<p class=\"muted\">No task with both raw and final trials yet.</p>\n");
	buf_adds(b, "</section>\n");
}

static void li(struct buf *b, const char *key, const char *value)
{
	buf_printf(b, "<li>%s: ", key);
	html_str(b, value && *value ? value : "none");
	buf_adds(b, "</li>\n");
}

static void disclosure(struct buf *b, const cJSON *sum)
{
	const cJSON *st = json_get(sum, "settings"), *sp = json_get(sum, "split"), *t;
	buf_adds(b, "<section class=\"card\" id=\"disclosure\">\n<h2>Disclosure</h2>\n<ul>\n");
	li(b, "Optimizer model (EXTERNAL_MODEL)", json_str(st, "EXTERNAL_MODEL"));
	li(b, "Target model", json_str(st, "MODEL"));
	li(b, "Harness", json_str(st, "HARNESS"));
	li(b, "Runner", json_str(st, "RUNNER"));
	li(b, "Split", json_str(sp, "how"));
	if (cJSON_IsNumber(json_get(sp, "seed")))
		buf_printf(b, "<li>Drawn from tasks= with SPLIT=%g, SPLIT_SEED=%.0f</li>\n",
		           json_num(sp, "fraction", 0), json_num(sp, "seed", 0));
	if (json_str(json_get(sum, "skill"), "choice"))
		li(b, "Copy of the skill", json_str(json_get(sum, "skill"), "choice"));
	buf_printf(b, "<li>Trials reused rather than run fresh: %.0f</li>\n</ul>\n",
	           json_num(sum, "reused_trials", 0));
	buf_adds(b, "<h3>LLM calls and tokens by stage</h3>\n<div class=\"scroll\"><table "
	            "id=\"llm\">\n<tr><th>Run</th><th>Stage</th><th class=\"n\">Calls</th><th "
	            "class=\"n\">Cache hits</th><th class=\"n\">Tokens in</th><th "
	            "class=\"n\">Tokens out</th></tr>\n");
	cJSON_ArrayForEach(t, json_get(sum, "llm")) {
		const char *run = json_str(t, "run"), *slash = run ? strrchr(run, '/') : NULL;
		buf_adds(b, "<tr><td>");
		html_str(b, slash ? slash + 1 : run);
		buf_adds(b, "</td><td>");
		html_str(b, json_str(t, "stage"));
		buf_printf(b,
		           "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td "
		           "class=\"n\">%.0f</td><td class=\"n\">%.0f</td></tr>\n",
		           json_num(t, "calls", 0), json_num(t, "cache_hits", 0),
		           json_num(t, "tokens_in", 0), json_num(t, "tokens_out", 0));
	}
	buf_adds(b, "</table></div>\n</section>\n");
}

char *skillsum_html(const cJSON *sum)
{
	struct buf b = BUF_INIT;
	const char *name = json_str(json_get(sum, "skill"), "name");
	char *title = xasprintf("Skill run: %s", name ? name : "");
	html_page_open(&b, title);
	buf_adds(&b, "<h1>");
	html_str(&b, title);
	free(title);
	buf_adds(&b, "</h1>\n<p class=\"lead\">Tuned on the train tasks, judged on held-out test "
	             "tasks the tuning never saw (docs/skill-runs.md): ");
	html_str(&b, json_str(sum, "label"));
	buf_adds(&b, ". Train figures are the tuning's own (optimistic); the gap is the train "
	             "gain minus a held-out gain: what the tuning did not carry over.</p>\n");
	size_t nx = (size_t)cJSON_GetArraySize(json_get(sum, "transfer"));
	struct col *cols = xcalloc(nx + 2, sizeof *cols);
	cols[0] = (struct col){ "Train", json_get(sum, "train"), NULL };
	cols[1] = (struct col){ "Held out", json_get(sum, "test"), json_get(sum, "gap") };
	size_t n = 2;
	const cJSON *x;
	struct strlist heads = STRLIST_INIT; /* a transfer column: where it was evaluated */
	cJSON_ArrayForEach(x, json_get(sum, "transfer")) {
		strlist_push_owned(&heads, xasprintf("Held out, on %s %s", json_str(x, "harness"),
		                                     json_str(x, "model")));
		cols[n++] = (struct col){ heads.v[heads.n - 1], json_get(x, "test"),
			                  json_get(x, "gap") };
	}
	buf_adds(&b, "<section class=\"card\" id=\"summary\">\n<h2>Train and held out, side by "
	             "side</h2>\n");
	side_by_side(&b, cols, n);
	buf_adds(&b, "</section>\n");
	strlist_free(&heads);
	free(cols);
	role_section(&b, "train", "Train tasks (tuned on)", json_get(sum, "train"));
	role_section(&b, "heldout", "Held-out test tasks", json_get(sum, "test"));
	size_t i = 0;
	cJSON_ArrayForEach(x, json_get(sum, "transfer")) {
		char id[32];
		snprintf(id, sizeof id, "transfer-%zu", ++i);
		char *t = xasprintf("Transfer: %s", json_str(x, "label"));
		role_section(&b, id, t, json_get(x, "test"));
		free(t);
	}
	disclosure(&b, sum);
	html_page_close(&b);
	return buf_detach(&b);
}
