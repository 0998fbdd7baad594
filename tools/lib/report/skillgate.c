#include "report/skillgate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

/* A row of gate.h's table from one arm of summary.json's tasks[] (its
 * strings borrowed from sum: the rows are never results_free'd). */
static void row_of(const cJSON *arm, const char *task, const char *stage, const cJSON *st,
		   struct results_group *g)
{
	memset(g, 0, sizeof *g);
	g->bench = g->source = (char *)"";
	g->task = (char *)task;
	g->stage = (char *)stage;
	g->harness = (char *)(json_str(st, "HARNESS") ? json_str(st, "HARNESS") : "");
	g->model = (char *)(json_str(st, "MODEL") ? json_str(st, "MODEL") : "");
	g->runner = (char *)(json_str(st, "RUNNER") ? json_str(st, "RUNNER") : "");
	g->passed = (long)json_num(arm, "passed", 0);
	g->scored = (long)json_num(arm, "scored", 0);
	g->trials = (long)json_num(arm, "trials", 0);
	g->infra = (long)json_num(arm, "infra_errors", 0);
	g->verr = (long)json_num(arm, "verifier_errors", 0);
}

static bool is_test(const cJSON *t)
{
	return !strcmp(json_str(t, "role") ? json_str(t, "role") : "", "test");
}

/* One line when the skill run cannot be judged at all: the rule asks for
 * what a skill run has not, or a test task has no final trials yet. */
static bool refused(const cJSON *sum, const struct gate_rule *r, struct buf *out)
{
	const char *name = json_str(json_get(sum, "skill"), "name");
	if (strcmp(r->stage, "final")) {
		buf_printf(out, "skill run %s: GATE_STAGE=%s: a skill run's gate judges "
			   "S_final on the held-out test tasks (final); skillc-gate --stage %s "
			   "%s judges the tuned run's stages\n",
			   name, r->stage, r->stage, json_str(sum, "tuned_run"));
		return true;
	}
	if (r->vs_noskill) {
		buf_printf(out, "skill run %s: GATE_VS=noskill: the test tasks have no "
			   "no-skill trials (a skill run evaluates the raw skill and S_final): "
			   "use GATE_VS=none\n", name);
		return true;
	}
	struct buf due = BUF_INIT;
	const cJSON *t;
	cJSON_ArrayForEach(t, json_get(sum, "tasks")) if (is_test(t) &&
							!cJSON_IsObject(json_get(t, "final")))
		buf_printf(&due, " %s", json_str(t, "task"));
	if (due.len)
		buf_printf(out, "skill run %s: no final trials yet on the test task%s%s "
			   "(S_final and its held-out trials are made by make final): run make "
			   "final with the same settings first, then make gate\n",
			   name, strchr(due.data + 1, ' ') ? "s" : "", due.data);
	bool any = due.len > 0;
	buf_free(&due);
	return any;
}

/* The train tasks' figures and the gap, beside the verdict. */
static void train_lines(const cJSON *sum, struct buf *out)
{
	const cJSON *st = json_get(sum, "settings"), *t;
	cJSON_ArrayForEach(t, json_get(sum, "tasks")) {
		const cJSON *raw = json_get(t, "raw"), *fin = json_get(t, "final");
		if (is_test(t) || !cJSON_IsObject(raw) || !cJSON_IsObject(fin))
			continue;
		struct results_group gr, gf;
		row_of(raw, json_str(t, "task"), "raw", st, &gr);
		row_of(fin, json_str(t, "task"), "final", st, &gf);
		buf_printf(out, "train task %s (tuned here; beside the verdict, "
			   "not part of it): final ", json_str(t, "task"));
		gate_rate_text(&gf, out);
		buf_adds(out, " vs raw ");
		gate_rate_text(&gr, out);
		double d, lo, hi;
		if (gate_delta(&gf, &gr, &d, &lo, &hi))
			buf_printf(out, "; final - raw %+.1f pp [%+.1f, %+.1f]", d, lo, hi);
		if (json_num(fin, "reused_trials", 0) > 0)
			buf_adds(out, " (final reuses the selection trials: optimistic)");
		buf_addc(out, '\n');
	}
	double tr = json_num(json_get(sum, "train"), "mean_delta", NAN),
	       te = json_num(json_get(sum, "test"), "mean_delta", NAN),
	       gap = json_num(sum, "gap", NAN);
	if (isfinite(gap))
		buf_printf(out, "train gain %+.1f pp, held-out gain %+.1f pp: gap %+.1f pp "
			   "(what the tuning did not carry over)\n", 100 * tr, 100 * te, 100 * gap);
}

/* Each transfer target's held-out figures, beside the verdict. */
static void transfer_lines(const cJSON *sum, struct buf *out)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, json_get(sum, "transfer")) {
		const cJSON *p = json_get(x, "test"), *ci = json_get(p, "ci95");
		buf_printf(out, "transfer, %s (beside the verdict): ", json_str(x, "label"));
		if (!cJSON_IsObject(p)) {
			buf_adds(out, "no test task with both arms yet\n");
			continue;
		}
		buf_printf(out, "held-out gain %+.1f pp", 100 * json_num(p, "mean_delta", NAN));
		if (cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)))
			buf_printf(out, " [%+.1f, %+.1f]",
				   100 * cJSON_GetArrayItem(ci, 0)->valuedouble,
				   100 * cJSON_GetArrayItem(ci, 1)->valuedouble);
		buf_printf(out, " over %.0f test task%s; gap %+.1f pp\n", json_num(p, "tasks", 0),
			   json_num(p, "tasks", 0) == 1 ? "" : "s", 100 * json_num(x, "gap", NAN));
	}
}

int skillgate_judge(const cJSON *sum, const struct gate_rule *r, struct buf *out)
{
	if (refused(sum, r, out))
		return 2;
	const cJSON *st = json_get(sum, "settings"), *tasks = json_get(sum, "tasks"), *t;
	buf_printf(out, "skill run %s, %s: the verdict is the held-out test tasks' final (S_final) "
		   "against raw, paired by task\n", json_str(json_get(sum, "skill"), "name"),
		   json_str(sum, "label"));
	train_lines(sum, out);
	transfer_lines(sum, out);
	/* the test tasks as gate.h's runs: raw and final rows, linked */
	size_t n = (size_t)cJSON_GetArraySize(tasks);
	struct results_table tb = { .v = xcalloc(2 * n + 1, sizeof *tb.v) };
	cJSON_ArrayForEach(t, tasks) {
		const cJSON *raw = json_get(t, "raw"), *fin = json_get(t, "final");
		if (!is_test(t))
			continue;
		struct results_group *gr = cJSON_IsObject(raw) ? &tb.v[tb.n++] : NULL;
		if (gr)
			row_of(raw, json_str(t, "task"), "raw", st, gr);
		row_of(fin, json_str(t, "task"), "final", st, &tb.v[tb.n]);
		tb.v[tb.n++].raw = gr;
	}
	struct gate_rule held = *r;
	held.across = true;
	held.unit = "test task";
	int rc = gate_judge(&tb, &held, out);
	free(tb.v);
	return rc;
}
