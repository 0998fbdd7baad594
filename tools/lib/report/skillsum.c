#include "report/skillsum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/across.h"
#include "report/cost.h"

/* One arm of a task: its stage's trials as traces/<task>/<stage>/index.json
 * counts them (passed, failed and timeout are scored; infra is not). */
struct arm {
	long passed, scored, trials, reused, infra, verr;
	bool have;
};

static void arm_load(const cJSON *where, const char *task, struct arm *a)
{
	memset(a, 0, sizeof *a);
	const char *run = json_str(where, "run"), *stage = json_str(where, "stage");
	if (!run || !stage)
		return;
	char *p = xasprintf("%s/traces/%s/%s/index.json", run, task, stage);
	cJSON *idx = json_read_opt(p);
	free(p);
	if (!idx)
		return;
	const cJSON *c = json_get(idx, "counts");
	a->passed = (long)json_num(c, "passed", 0);
	a->scored = a->passed + (long)json_num(c, "failed", 0) + (long)json_num(c, "timeout", 0);
	a->trials = (long)json_num(c, "trials", 0);
	a->infra = (long)json_num(c, "infra_error", 0);
	a->verr = (long)json_num(c, "verifier_error", 0);
	const cJSON *t;
	cJSON_ArrayForEach(t, json_get(idx, "trials")) a->reused +=
		json_bool(t, "reused", false) || cJSON_IsTrue(json_get(t, "selection_reuse"));
	a->have = true;
	cJSON_Delete(idx);
}

static cJSON *arm_json(const struct arm *a, const cJSON *where)
{
	if (!a->have)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "run", json_str(where, "run"));
	json_set_str(o, "stage", json_str(where, "stage"));
	json_set_num(o, "passed", (double)a->passed);
	json_set_num(o, "scored", (double)a->scored);
	json_set_num(o, "trials", (double)a->trials);
	json_set_num(o, "reused_trials", (double)a->reused);
	json_set_num(o, "infra_errors", (double)a->infra);
	json_set_num(o, "verifier_errors", (double)a->verr);
	json_set(o, "pass_rate",
	         a->scored ? cJSON_CreateNumber(round(1e4 * a->passed / a->scored) / 1e4)
	                   : cJSON_CreateNull());
	return o;
}

/* The pooled figures of one role: across.h over its tasks with both arms. */
static cJSON *pooled(const struct across_task *t, size_t k, struct err *e)
{
	if (!k)
		return cJSON_CreateNull();
	return across_json(t, k, 0.05, e);
}

/* LLM calls and tokens of every stage family of every member run. */
static cJSON *spend_json(const cJSON *record)
{
	cJSON *a = cJSON_CreateArray(), *seen = cJSON_CreateObject();
	const cJSON *t;
	cJSON_ArrayForEach(t, json_get(record, "tasks")) {
		const char *runs[] = { json_str(json_get(t, "raw"), "run"),
			               json_str(json_get(t, "final"), "run") };
		for (size_t i = 0; i < 2; i++) {
			if (!runs[i] || json_get(seen, runs[i]))
				continue;
			json_set_bool(seen, runs[i], true);
			struct cost_calls c;
			cost_calls_load(&c, runs[i], NULL);
			for (size_t f = 0; f < c.n; f++) {
				cJSON *o = cJSON_CreateObject();
				json_set_str(o, "run", runs[i]);
				json_set_str(o, "stage", c.v[f].name);
				json_set_num(o, "calls", (double)c.v[f].calls);
				json_set_num(o, "cache_hits", (double)c.v[f].hits);
				json_set_num(o, "tokens_in", c.v[f].tokens_in);
				json_set_num(o, "tokens_out", c.v[f].tokens_out);
				cJSON_AddItemToArray(a, o);
			}
			cost_calls_free(&c);
		}
	}
	cJSON_Delete(seen);
	return a;
}

/* The train gain minus a held-out gain: what the tuning did not carry over. */
static cJSON *gap_json(const cJSON *train, const cJSON *test)
{
	return across_num6(json_num(train, "mean_delta", NAN) - json_num(test, "mean_delta", NAN));
}

/* A task's row (summary.json's tasks[]): its arms, loaded into raw and fin. */
static cJSON *task_row(const cJSON *t, struct arm *raw, struct arm *fin)
{
	const char *task = json_str(t, "task");
	arm_load(json_get(t, "raw"), task, raw);
	arm_load(json_get(t, "final"), task, fin);
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "task", task);
	json_set_str(o, "role", json_str(t, "role"));
	json_set(o, "raw", arm_json(raw, json_get(t, "raw")));
	json_set(o, "final", arm_json(fin, json_get(t, "final")));
	bool both = raw->scored && fin->scored;
	double d = both ? (double)fin->passed / fin->scored - (double)raw->passed / raw->scored : 0;
	json_set(o, "delta", both ? cJSON_CreateNumber(round_to(d, 4)) : cJSON_CreateNull());
	return o;
}

/* The rows of tasks (into rows) and their pooled figures, per role when
 * by_role (0 train, 1 test), else all in out[0]. NULL entries of out: no
 * figures (e set when the statistics refused). */
static int rows_pooled(const cJSON *tasks, bool by_role, cJSON *rows, long *reused, cJSON *out[2],
                       struct err *e)
{
	size_t n = (size_t)cJSON_GetArraySize(tasks), k[2] = { 0, 0 };
	struct across_task *at[2] = { xcalloc(n + 1, sizeof **at), xcalloc(n + 1, sizeof **at) };
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks) {
		struct arm raw, fin;
		cJSON_AddItemToArray(rows, task_row(t, &raw, &fin));
		*reused += raw.reused + fin.reused;
		int r = by_role && strcmp(json_str(t, "role"), "train") != 0;
		if (raw.scored && fin.scored)
			at[r][k[r]++] = (struct across_task){ json_str(t, "task"), raw.passed,
				                              raw.scored, fin.passed, fin.scored };
	}
	out[0] = pooled(at[0], k[0], e);
	out[1] = out[0] && by_role ? pooled(at[1], k[1], e) : NULL;
	free(at[0]);
	free(at[1]);
	if (!out[0] || (by_role && !out[1])) {
		cJSON_Delete(out[0]);
		return -1;
	}
	return 0;
}

/* summary.json's transfer[]: per target its label, the test tasks' rows,
 * their pooled figures and the gap from the train gain. */
static cJSON *transfer_json(const cJSON *record, const cJSON *train, long *reused, struct err *e)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *x;
	cJSON_ArrayForEach(x, json_get(record, "transfer")) {
		cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateArray(), *p[2];
		cJSON_AddItemToArray(a, o);
		json_set_str(o, "label", json_str(x, "label"));
		json_set_str(o, "harness", json_str(x, "harness"));
		json_set_str(o, "model", json_str(x, "model"));
		json_set(o, "tasks", rows);
		if (rows_pooled(json_get(x, "tasks"), false, rows, reused, p, e) < 0) {
			cJSON_Delete(a);
			return NULL;
		}
		json_set(o, "gap", gap_json(train, p[0]));
		json_set(o, "test", p[0]);
	}
	return a;
}

cJSON *skillsum_json(const cJSON *record, struct err *e)
{
	cJSON *doc = cJSON_CreateObject(), *rows = cJSON_CreateArray(), *p[2], *xf;
	json_set_num(doc, "format", 1);
	json_set(doc, "skill", cJSON_Duplicate(json_get(record, "skill"), true));
	json_set(doc, "split", cJSON_Duplicate(json_get(record, "split"), true));
	json_set(doc, "settings", cJSON_Duplicate(json_get(record, "settings"), true));
	json_set_str(doc, "tuned_run", json_str(record, "tuned_run"));
	const cJSON *st = json_get(record, "settings");
	const char *h = json_str(st, "HARNESS"), *m = json_str(st, "MODEL");
	char *label = xasprintf("tuned for %s %s, evaluated on %s %s", h ? h : "", m ? m : "",
	                        h ? h : "", m ? m : "");
	json_set_str(doc, "label", label);
	free(label);
	json_set(doc, "tasks", rows);
	long reused = 0;
	if (rows_pooled(json_get(record, "tasks"), true, rows, &reused, p, e) < 0) {
		cJSON_Delete(doc);
		return NULL;
	}
	if (!(xf = transfer_json(record, p[0], &reused, e))) {
		cJSON_Delete(p[0]);
		cJSON_Delete(p[1]);
		cJSON_Delete(doc);
		return NULL;
	}
	json_set(doc, "train", p[0]);
	json_set(doc, "test", p[1]);
	json_set(doc, "gap", gap_json(p[0], p[1]));
	json_set(doc, "transfer", xf);
	json_set_num(doc, "reused_trials", (double)reused);
	json_set(doc, "llm", spend_json(record));
	return doc;
}

static void pct(struct buf *b, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		buf_printf(b, "%+.1f pp", 100 * v->valuedouble);
	else
		buf_adds(b, "n/a");
}

static void arm_md(struct buf *b, const cJSON *a)
{
	if (cJSON_IsNull(a) || !a)
		buf_adds(b, " not yet |");
	else
		buf_printf(b, " %.0f/%.0f%s |", json_num(a, "passed", 0), json_num(a, "scored", 0),
			   json_num(a, "reused_trials", 0) > 0 ? " (reused)" : "");
}

static void pooled_md(struct buf *b, const char *label, const cJSON *p)
{
	buf_printf(b, "| %s | ", label);
	if (!cJSON_IsObject(p)) {
		buf_adds(b, "no task with both arms | | |\n");
		return;
	}
	buf_printf(b, "%.0f | ", json_num(p, "tasks", 0));
	pct(b, json_get(p, "mean_delta"));
	const cJSON *ci = json_get(p, "ci95");
	buf_adds(b, " | ");
	if (cJSON_IsNumber(cJSON_GetArrayItem(ci, 0))) {
		buf_adds(b, "[");
		pct(b, cJSON_GetArrayItem(ci, 0));
		buf_adds(b, ", ");
		pct(b, cJSON_GetArrayItem(ci, 1));
		buf_adds(b, "]");
	} else {
		buf_adds(b, "n/a (one task)");
	}
	buf_printf(b, " | %.4g |\n", json_num(json_get(p, "stratified"), "p", NAN));
}

/* The per-task table: task, role, raw, final, delta. */
static void tasks_md(struct buf *b, const cJSON *tasks)
{
	buf_printf(b, "| task | role | raw | final | delta |\n|---|---|---|---|---|\n");
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks) {
		buf_printf(b, "| %s | %s |", json_str(t, "task"), json_str(t, "role"));
		arm_md(b, json_get(t, "raw"));
		arm_md(b, json_get(t, "final"));
		buf_adds(b, " ");
		pct(b, json_get(t, "delta"));
		buf_adds(b, " |\n");
	}
}

static const char pooled_head[] = "| pooled | tasks | raw -> final | 95% CI across tasks | "
                                  "stratified p |\n|---|---|---|---|---|\n";

/* A transfer target: the same skills on the test tasks, another harness or model. */
static void transfer_md(struct buf *b, const cJSON *x)
{
	buf_printf(b, "\n## Transfer: %s\n\n", json_str(x, "label"));
	tasks_md(b, json_get(x, "tasks"));
	buf_printf(b, "\n%s", pooled_head);
	pooled_md(b, "test (held out)", json_get(x, "test"));
	buf_adds(b, "\nGap (train gain - this held-out gain): ");
	pct(b, json_get(x, "gap"));
	buf_adds(b, "\n");
}

char *skillsum_md(const cJSON *sum)
{
	struct buf b = BUF_INIT;
	const cJSON *sk = json_get(sum, "skill"), *sp = json_get(sum, "split"),
		    *st = json_get(sum, "settings"), *t;
	buf_printf(&b, "# Skill run: %s\n\n", json_str(sk, "name"));
	buf_printf(
		&b,
		"Tuned on the train tasks, judged on held-out test tasks (docs/skill-runs.md): "
			"%s.\n\n",
		json_str(sum, "label"));
	tasks_md(&b, json_get(sum, "tasks"));
	buf_printf(&b, "\n%s", pooled_head);
	pooled_md(&b, "train", json_get(sum, "train"));
	pooled_md(&b, "test (held out)", json_get(sum, "test"));
	buf_adds(&b, "\nGap (train gain - held-out gain: what the tuning did not carry over): ");
	pct(&b, json_get(sum, "gap"));
	buf_adds(&b, "\n");
	cJSON_ArrayForEach(t, json_get(sum, "transfer")) transfer_md(&b, t);
	buf_adds(&b, "\n## Disclosure\n\n");
	buf_printf(&b, "- Optimizer model (EXTERNAL_MODEL): %s\n",
	           json_str(st, "EXTERNAL_MODEL") && *json_str(st, "EXTERNAL_MODEL")
	                   ? json_str(st, "EXTERNAL_MODEL")
	                   : "none");
	buf_printf(&b, "- Target model %s, harness %s, runner %s\n", json_str(st, "MODEL"),
	           json_str(st, "HARNESS"), json_str(st, "RUNNER"));
	buf_printf(&b, "- Split: %s", json_str(sp, "how"));
	if (cJSON_IsNumber(json_get(sp, "seed")))
		buf_printf(&b, " from tasks= with SPLIT=%g, SPLIT_SEED=%.0f",
		           json_num(sp, "fraction", 0), json_num(sp, "seed", 0));
	buf_adds(&b, "\n");
	if (json_str(sk, "choice"))
		buf_printf(&b, "- %s\n", json_str(sk, "choice"));
	buf_printf(&b, "- Trials reused rather than run fresh: %.0f (marked \"(reused)\" above)\n",
		   json_num(sum, "reused_trials", 0));
	buf_adds(
		&b,
		"- LLM calls and tokens by stage:\n\n| stage | calls | cache hits | tokens in | "
			"tokens out |\n|---|---|---|---|---|\n");
	cJSON_ArrayForEach(t, json_get(sum, "llm"))
		buf_printf(&b, "| %s | %.0f | %.0f | %.0f | %.0f |\n", json_str(t, "stage"),
	                   json_num(t, "calls", 0), json_num(t, "cache_hits", 0),
	                   json_num(t, "tokens_in", 0), json_num(t, "tokens_out", 0));
	return buf_detach(&b);
}
