#include "report/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "report/results.h"

/* ---------------------------------------------------------------- skill use */

/* One skill's use in one stage's counted trials. */
struct use {
	char *name;
	long den;      /* trials that had the skill, the agent ran and the use was checked */
	long invoked, read, either;
};

struct uses {
	struct use *v;
	size_t n;
	long unchecked;  /* trials with skills whose harness could not tell */
};

static struct use *use_of(struct uses *u, const char *name)
{
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].name, name))
			return &u->v[i];
	u->v = xrealloc(u->v, (u->n + 1) * sizeof *u->v);
	u->v[u->n] = (struct use){ xstrdup(name), 0, 0, 0, 0 };
	return &u->v[u->n++];
}

/* One trial's skill record. A set of one may be detected without a name
 * (the harness saw "a skill" used): then the one skill it had. */
static void use_add(struct uses *u, const cJSON *trial)
{
	const cJSON *sk = json_get(trial, "skill"), *inj = json_get(sk, "injected");
	const char *outcome = json_str(trial, "outcome");
	if (!cJSON_GetArraySize(inj) || (outcome && !strcmp(outcome, "infra_error")))
		return;
	if (!json_bool(sk, "checked", true)) {
		u->unchecked++;
		return;
	}
	bool one = cJSON_GetArraySize(inj) == 1;
	for (const cJSON *x = inj->child; x; x = x->next) {
		if (!cJSON_IsString(x))
			continue;
		struct use *s = use_of(u, x->valuestring);
		bool inv = json_has_str(json_get(sk, "invoked_names"), s->name) ||
			(one && json_bool(sk, "invoked", false));
		bool rd = json_has_str(json_get(sk, "read_names"), s->name) ||
			(one && json_bool(sk, "read", false));
		s->den++;
		s->invoked += inv;
		s->read += rd;
		s->either += inv || rd;
	}
}

static void uses_free(struct uses *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i].name);
	free(u->v);
	memset(u, 0, sizeof *u);
}

/* The counted trials of a row (stale ones are not the stage's). */
static void uses_of_group(const struct results_group *g, struct uses *u)
{
	for (size_t i = 0; i < g->nt; i++) {
		if (g->t[i].stale)
			continue;
		cJSON *j = json_read_rel(g->t[i].dir, "trial.json");
		if (j)
			use_add(u, j);
		cJSON_Delete(j);
	}
}

static void pct_of(struct buf *b, long k, long n)
{
	buf_printf(b, "%ld/%ld (%.0f%%)", k, n, n ? 100.0 * (double)k / (double)n : 0.0);
}

static void uses_line(struct buf *b, const struct uses *u)
{
	for (size_t i = 0; i < u->n; i++) {
		const struct use *s = &u->v[i];
		buf_printf(b, "%s%s invoked ", i ? "; " : "; skill ", s->name);
		pct_of(b, s->invoked, s->den);
		buf_adds(b, ", read ");
		pct_of(b, s->read, s->den);
		buf_adds(b, ", either ");
		pct_of(b, s->either, s->den);
	}
	if (u->unchecked)
		buf_printf(b, "; %ld trial%s not checked (the harness has no skill-use patterns)",
		           u->unchecked, u->unchecked == 1 ? "" : "s");
}

/* ---------------------------------------------------------------- leakage */

/* Text from a file of the task, one line, no control bytes. */
static void add_clean(struct buf *b, const char *s)
{
	for (; s && *s; s++)
		buf_addc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
}

/* The leakage findings of one stage (Fast's report.json: its patches;
 * a Deep round's edit.json: its attempts): a line each into lines; the
 * count. */
static long leak_findings(const cJSON *doc, const char *list, const char *what, struct buf *lines)
{
	long n = 0, i = 0;
	for (const cJSON *x = json_get(doc, list) ? json_get(doc, list)->child : NULL; x;
	     x = x->next, i++) {
		const cJSON *gd = json_get(x, "guard");
		if (!json_str(gd, "check") || strcmp(json_str(gd, "check"), "leak"))
			continue;
		n++;
		const cJSON *p = json_get(x, "patch");
		const char *where = p ? json_str(p, "section") : json_str(x, "unit");
		buf_printf(lines, "    leak: %s %ld", what, i + 1);
		if (where) {
			buf_adds(lines, " (");
			add_clean(lines, where);
			buf_adds(lines, ")");
		}
		buf_adds(lines, " rolled back: ");
		add_clean(lines, json_str(gd, "item") ? json_str(gd, "item") : "?");
		buf_adds(lines, "\n");
	}
	return n;
}

/* The stage's artifact that records its leakage guard: fast or deep-K. */
static char *leak_file(const char *run, const char *stage)
{
	if (!strcmp(stage, "fast"))
		return path_join(run, "artifacts/fast/report.json");
	int k;
	char end;
	if (sscanf(stage, "deep-%d%c", &k, &end) == 1 && k > 0) {
		char *rel = xasprintf("artifacts/deep/round-%d/edit.json", k);
		char *p = path_join(run, rel);
		free(rel);
		return p;
	}
	return NULL;
}

/* "; leakage guard: N rolled back" and the findings' lines, for a stage
 * whose artifact exists; the findings counted into tot. */
static void leak_part(const char *run, const char *stage, struct buf *head, struct buf *lines,
		      struct audit_totals *tot)
{
	char *p = leak_file(run, stage);
	if (!p || !fs_exists(p)) {
		free(p);
		return;
	}
	struct err e = { 0, "" };
	cJSON *doc = json_read_file(p, &e);
	bool fast = !strcmp(stage, "fast");
	if (!doc) {
		buf_printf(head, "; leakage: unreadable (%s)", e.msg);
	} else if (fast && !json_bool(doc, "leak_guard", false)) {
		buf_adds(head, "; leakage guard off (applied by hand without --task)");
	} else {
		long n = leak_findings(doc, fast ? "patches" : "attempts",
		                       fast ? "patch" : "attempt", lines);
		const char *noun =
			fast ? (n == 1 ? "patch" : "patches") : (n == 1 ? "edit" : "edits");
		buf_printf(head, "; leakage guard: %ld %s rolled back", n, noun);
		tot->leaks += n;
	}
	cJSON_Delete(doc);
	free(p);
}

/* ---------------------------------------------------------------- stages */

/* The stages to show: every row's, and Fast and each Deep round that left
 * a record even without trials (an edit rolled back has none). */
static void stage_names(const char *run, const struct results_table *tb, struct strlist *out)
{
	for (size_t i = 0; i < tb->n; i++)
		strlist_push_new(out, tb->v[i].stage);
	bool there = true;
	for (int r = 0; there; r++) {
		char *st = r ? xasprintf("deep-%d", r) : xstrdup("fast"), *p = leak_file(run, st);
		there = fs_exists(p);
		if (there)
			strlist_push_new(out, st);
		there |= !r; /* Fast or not, the rounds are looked for */
		free(p);
		free(st);
	}
}

static int cmp_stage(const void *a, const void *b)
{
	return results_stage_cmp(*(char *const *)a, *(char *const *)b);
}

/* The stage's rows (one per task: a skill run has several). */
static void stage_lines(const char *run, const struct results_table *tb, const char *stage,
                        bool tasks, struct buf *out, struct audit_totals *tot)
{
	struct buf head = BUF_INIT, lines = BUF_INIT;
	bool any = false;
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i];
		if (strcmp(g->stage, stage))
			continue;
		if (any)
			buf_adds(&head, "\n");
		any = true;
		struct uses u = { 0 };
		uses_of_group(g, &u);
		buf_printf(&head, "  %s", stage);
		if (tasks)
			buf_printf(&head, " [%s]", g->task);
		buf_printf(&head, ": %ld trial%s", g->trials, g->trials == 1 ? "" : "s");
		uses_line(&head, &u);
		uses_free(&u);
	}
	if (!any)
		buf_printf(&head, "  %s: no trials", stage);
	/* the leakage part goes on the stage's last line */
	leak_part(run, stage, &head, &lines, tot);
	buf_adds(&head, "\n");
	buf_add(out, head.data, head.len);
	buf_add(out, lines.data, lines.len);
	buf_free(&head);
	buf_free(&lines);
}

/* Whether the agent used the final skill: the final stage's trials, else
 * the latest stage's that has any (named). A warning for each skill of
 * the set that no such trial invoked or read. */
static void final_lines(const char *run, const struct results_table *tb, struct buf *out,
                        struct audit_totals *tot)
{
	const struct results_group *last = NULL;
	for (size_t i = 0; i < tb->n; i++) {
		const struct results_group *g = &tb->v[i];
		if (strcmp(g->stage, "noskill") && g->trials &&
		    (!last || results_stage_cmp(g->stage, last->stage) >= 0))
			last = g;
	}
	if (!last) {
		buf_adds(out, "  final skill: no trials with a skill yet\n");
		return;
	}
	struct uses u = { 0 };
	for (size_t i = 0; i < tb->n; i++)
		if (!strcmp(tb->v[i].stage, last->stage))
			uses_of_group(&tb->v[i], &u);
	const char *which = strcmp(last->stage, "final") ? last->stage : "final";
	for (size_t i = 0; i < u.n; i++) {
		const struct use *s = &u.v[i];
		buf_printf(out,
		           "  final skill: %s used (invoked or read) in %ld of %ld %s trial%s%s\n",
		           s->name, s->either, s->den, which, s->den == 1 ? "" : "s",
		           strcmp(which, "final") ? " (no final trials yet: the latest stage's)"
		                                  : "");
		if (s->den && !s->either) {
			buf_printf(
				out,
				"warning: %s: the agent never invoked or read the skill %s in its "
					"%ld %s trial%s: "
				"a change in pass rate cannot come from that skill's content\n",
				run, s->name, s->den, which, s->den == 1 ? "" : "s");
			tot->warnings++;
		}
	}
	if (!u.n && u.unchecked)
		buf_printf(
			out,
			"  final skill: use not checked in the %s trials (the harness has no "
				"skill-use patterns)\n",
			which);
	uses_free(&u);
}

void audit_run(const char *run, struct buf *out, struct audit_totals *tot)
{
	struct results_table tb = { 0 };
	struct strlist stages = STRLIST_INIT;
	results_build_run(&tb, run, NULL);
	stage_names(run, &tb, &stages);
	qsort(stages.v, stages.n, sizeof *stages.v, cmp_stage);
	bool tasks = false;
	for (size_t i = 1; i < tb.n; i++)
		tasks |= strcmp(tb.v[i].task, tb.v[0].task) != 0;
	buf_printf(out, "%s", run);
	if (tb.n)
		buf_printf(out, " (%s, %s, %s)", tasks ? "several tasks" : tb.v[0].task,
		           tb.v[0].harness, tb.v[0].model);
	buf_adds(out, "\n");
	for (size_t i = 0; i < stages.n; i++)
		stage_lines(run, &tb, stages.v[i], tasks, out, tot);
	final_lines(run, &tb, out, tot);
	tot->runs++;
	strlist_free(&stages);
	results_free(&tb);
}
