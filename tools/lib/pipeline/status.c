#include "pipeline/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "pipeline/state.h"

/* The target whose outputs include the run-relative path rel, or NULL. Caller frees. */
static char *maker_of(const struct run *r, const char *rel)
{
	struct stage_ref *refs;
	size_t n = stage_refs(r, &refs);
	char *maker = NULL;
	for (size_t i = 0; i < n && !maker; i++) {
		struct strlist outs = STRLIST_INIT;
		stage_ref_outputs(&refs[i], r, &outs);
		for (size_t k = 0; k < outs.n && !maker; k++)
			if (!strcmp(outs.v[k], rel))
				maker = xstrdup(refs[i].name);
		strlist_free(&outs);
	}
	free(refs);
	return maker;
}

/* Why the recorded state is not "done", or NULL when it is. */
static char *why_state(const struct run *r, const cJSON *st, const char *stale_up)
{
	const char *state = st ? json_str(st, "state") : NULL;
	if (!state)
		return stale_up ? xasprintf("not yet run (waiting for %s)", stale_up) : xstrdup("not yet run");
	if (!strcmp(state, "running"))
		return run_is_locked(r->dir) ? xstrdup("running now")
		                             : xasprintf("cut short (started %s); it will run again", json_str(st, "started"));
	if (strcmp(state, "done")) {
		const char *err = json_str(st, "error");
		return xasprintf("%s: %s", state, err ? err : "no reason recorded");
	}
	return NULL;
}

/* An output missing or newer than the stamp, or the stamp itself missing. */
static char *why_outputs(const struct run *r, const struct stage_ref *ref)
{
	struct strlist outs = STRLIST_INIT;
	stage_ref_outputs(ref, r, &outs);
	char *ok = state_ok_path(r->dir, ref->name);
	char *why = NULL;
	for (size_t i = 0; !why && i < outs.n; i++) {
		char *out = run_path(r, outs.v[i]);
		char *problem = state_output_problem(out, ok);
		free(out);
		if (problem)
			why = !strcmp(problem, "is missing") ? xasprintf("missing output: %s", outs.v[i])
			      : xasprintf("output %s %s", outs.v[i], problem);
		free(problem);
	}
	if (!why && !fs_exists(ok))
		why = xstrdup("not marked done (interrupted before its stamp was written)");
	if (!why) {
		cJSON *st = state_read(r->dir, ref->name);
		char *aside = NULL, *rel = NULL;
		why = state_output_torn(r, ref, st);
		if (!why)
			rel = state_output_edited(r, ref, st, ok, &aside);
		if (rel)
			why = xasprintf("modified by hand: %s", rel);
		free(rel);
		free(aside);
		cJSON_Delete(st);
	}
	free(ok);
	strlist_free(&outs);
	return why;
}

/* The tool or one of the stage's settings changed since it ran. */
static char *why_config(const struct run *r, const struct stage_def *s, const cJSON *st)
{
	cJSON *cfg = stage_config(s, r);
	char *why = NULL;
	const char *was = json_str(st, "tool"), *now = json_str(cfg, "tool");
	if (was && now && strcmp(was, now))
		why = xasprintf("tool changed: %s -> %s", was, now);
	cJSON *set_was = json_get(st, "settings"), *set_now = json_get(cfg, "settings");
	for (cJSON *c = set_now ? set_now->child : NULL; !why && c; c = c->next) {
		const char *a = json_str(set_was, c->string);
		if (!a || strcmp(a, c->valuestring))
			why = xasprintf("setting changed: %s (%s -> %s)", c->string, a ? a : "unset", c->valuestring);
	}
	cJSON_Delete(cfg);
	return why;
}

/* The run's source whose stamp is rel (into *at), or false for a file of the run. */
static bool source_of(const struct run *r, const char *rel, struct source_at *at)
{
	struct source_at *v;
	size_t n = run_sources(r, &v);
	bool found = false;
	for (size_t k = 0; k < n && !found; k++) {
		char *stamp = source_stamp(r, &v[k]);
		if ((found = !strcmp(stamp, rel)))
			*at = v[k];
		free(stamp);
	}
	free(v);
	return found;
}

/* One input against its recorded hash: not made yet, or changed. */
static char *why_input(const struct run *r, const char *rel, const char *recorded)
{
	struct source_at at;
	const struct source_at *src = source_of(r, rel, &at) ? &at : NULL;
	hash_hex cur;
	struct err e;
	if (!src)
		state_input_hash(r->dir, rel, cur);
	else if (source_hash(r, src, false, cur, &e) < 0) /* status only reads */
		snprintf(cur, sizeof cur, "unreadable");
	if (!src && !strcmp(cur, "absent")) {
		/* an input that does not exist yet: the target making it has not run */
		char *maker = maker_of(r, rel);
		char *why = maker ? xasprintf("waiting for %s (not yet run)", maker) : xasprintf("input missing: %s", rel);
		free(maker);
		return why;
	}
	if (recorded && !strcmp(recorded, cur))
		return NULL;
	char *path = src ? source_path(r, src) : NULL;
	char *why = xasprintf("input changed: %s", path ? path : rel);
	free(path);
	return why;
}

static char *why_inputs(const struct run *r, const struct stage_ref *ref, const cJSON *st)
{
	struct strlist ins = STRLIST_INIT;
	stage_ref_inputs(ref, r, &ins);
	cJSON *inputs = json_get(st, "inputs");
	char *why = NULL;
	for (size_t i = 0; !why && i < ins.n; i++)
		why = why_input(r, ins.v[i], json_str(inputs, ins.v[i]));
	strlist_free(&ins);
	return why;
}

/* Why a target is not up to date (a malloc'd sentence), or NULL when it is;
 * stale_up names a stale target it comes after (or NULL). */
static char *status_reason(const struct run *r, const struct stage_ref *ref, const char *stale_up)
{
	cJSON *st = state_read(r->dir, ref->name);
	char *why = why_state(r, st, stale_up);
	if (!why)
		why = why_outputs(r, ref);
	if (!why)
		why = why_config(r, ref->def, st);
	if (!why)
		why = why_inputs(r, ref, st);
	if (!why && stale_up)
		why = xasprintf("upstream stage is stale: %s", stale_up);
	cJSON_Delete(st);
	return why;
}

int status_of(const struct run *r, const char *goal, struct stage_ref **refs, char ***why)
{
	int n = goal_refs(r, goal, refs);
	*why = NULL;
	if (n < 0)
		return -1;
	char **w = xcalloc((size_t)n + 1, sizeof *w);
	for (int i = 0; i < n; i++) {
		const char *up = NULL; /* the first stale target this one comes after */
		for (int j = 0; j < i && !up; j++)
			if (w[j] && stage_ref_after(&(*refs)[i], &(*refs)[j]))
				up = (*refs)[j].name;
		w[i] = status_reason(r, &(*refs)[i], up);
	}
	*why = w;
	return n;
}

void status_free(struct stage_ref *refs, char **why, int n)
{
	for (int i = 0; why && i < n; i++)
		free(why[i]);
	free(why);
	free(refs);
}

/* A trial target's task and stage: "raw-eval-pool.tr-b.003" is tr-b's raw,
 * "deep-1-eval.002" own's deep-1. False for any other target. */
static bool trial_of(const char *target, const char *own, char **task, char **stage)
{
	const char *dot = strchr(target, '.'), *last = strrchr(target, '.');
	if (!dot || !last[1] || last[1 + strspn(last + 1, "0123456789")])
		return false;
	size_t n = (size_t)(dot - target), cut = 0;
	if (n > 10 && !strncmp(target + n - 10, "-eval-pool", 10))
		cut = 10;
	else if (n > 5 && !strncmp(target + n - 5, "-eval", 5))
		cut = 5;
	if (!cut || (cut == 10) != (last != dot))
		return false;
	*stage = xstrndup(target, n - cut);
	*task = last != dot ? xstrndup(dot + 1, (size_t)(last - dot - 1)) : xstrdup(own);
	return true;
}

/* Counts target (a trial, "raw-eval.001", "raw-eval-pool.tr-b.001", of a
 * run of task own) in its task's stage; any other target is left out. */
static void trial_tally_add(struct trial_tally *t, const char *target, const char *own,
			    enum trial_state state)
{
	char *task, *stage;
	if (!trial_of(target, own, &task, &stage))
		return;
	char *key = xasprintf("%s\t%s", task, stage);
	size_t k = 0;
	while (k < t->keys.n && strcmp(t->keys.v[k], key))
		k++;
	if (k == t->keys.n) {
		strlist_push(&t->keys, key);
		t->n = xrealloc(t->n, t->keys.n * sizeof *t->n);
		memset(t->n[k], 0, sizeof t->n[k]);
	}
	t->n[k][state]++;
	free(key);
	free(task);
	free(stage);
}

/* Where a trials' stage ("raw", "deep-2") comes in the pipeline: its row's
 * place in the stage table, then its round. */
static long stage_rank(const char *stage)
{
	const char *dash = strrchr(stage, '-');
	long round = dash && dash[1] && !dash[1 + strspn(dash + 1, "0123456789")]
	                     ? strtol(dash + 1, NULL, 10) : 0;
	char *row = xasprintf("%.*s-eval", round ? (int)(dash - stage) : (int)strlen(stage), stage);
	const struct stage_def *d = stage_find(row);
	free(row);
	return (d ? (long)(d - stage_table) : (long)stage_count) * 100000 + round;
}

/* "raw: 3 done, 0 running, 0 due; static: ..." for task (nothing without
 * its trials); returns how many stages. */
static int trial_tally_text(const struct trial_tally *t, const char *task, struct buf *out)
{
	size_t n = strlen(task);
	int stages = 0;
	long last = -1;
	for (;;) { /* the task's stages in pipeline order */
		size_t pick = t->keys.n;
		long best = 0;
		for (size_t k = 0; k < t->keys.n; k++) {
			if (strncmp(t->keys.v[k], task, n) || t->keys.v[k][n] != '\t')
				continue;
			long rank = stage_rank(t->keys.v[k] + n + 1);
			if (rank > last && (pick == t->keys.n || rank < best))
				pick = k, best = rank;
		}
		if (pick == t->keys.n)
			return stages;
		last = best;
		buf_printf(out, "%s%s: %ld done, %ld running, %ld due", stages++ ? "; " : "",
		           t->keys.v[pick] + n + 1, t->n[pick][TRIAL_DONE],
		           t->n[pick][TRIAL_RUNNING], t->n[pick][TRIAL_DUE]);
	}
}

static void trial_tally_free(struct trial_tally *t)
{
	strlist_free(&t->keys);
	free(t->n);
	memset(t, 0, sizeof *t);
}

char *status_trials_text(const char *run, const char *task)
{
	cJSON *m = json_read_rel(run, "manifest.json");
	struct trial_tally t = { 0 };
	const char *own = json_str(m, "task") ? json_str(m, "task") : "";
	const cJSON *targets = json_get(m, "targets");
	for (const cJSON *x = targets ? targets->child : NULL; x; x = x->next)
		if (cJSON_IsString(x))
			trial_tally_add(&t, x->string, own,
			                !strcmp(x->valuestring, "done")      ? TRIAL_DONE
			                : !strcmp(x->valuestring, "running") ? TRIAL_RUNNING
			                                                     : TRIAL_DUE);
	struct buf b = BUF_INIT;
	buf_adds(&b, "");
	trial_tally_text(&t, task, &b);
	trial_tally_free(&t);
	cJSON_Delete(m);
	return buf_detach(&b);
}

/* With POOL_TASKS: a line per task, its trials by stage (the run's own,
 * then each pooled task's), from the targets' reasons. */
static void print_trials(const struct run *r, const struct stage_ref *need, char **why, int n,
                         struct buf *out)
{
	const char *pool = run_get(r, "POOL_TASKS");
	if (!*pool)
		return;
	struct trial_tally t = { 0 };
	for (int i = 0; i < n; i++)
		trial_tally_add(&t, need[i].name, r->task,
		                !why[i]                           ? TRIAL_DONE
		                : !strcmp(why[i], "running now") ? TRIAL_RUNNING
		                                                  : TRIAL_DUE);
	buf_printf(out, "  trials of %s (tuned here): ", r->task);
	if (!trial_tally_text(&t, r->task, out))
		buf_adds(out, "none");
	char *list = xstrdup(pool), *save = NULL;
	for (char *w = strtok_r(list, " ,", &save); w; w = strtok_r(NULL, " ,", &save)) {
		buf_printf(out, "\n  trials of %s (pooled): ", w);
		if (!trial_tally_text(&t, w, out))
			buf_adds(out, "none");
	}
	buf_addc(out, '\n');
	free(list);
	trial_tally_free(&t);
}

int status_print(const struct run *r, const char *goal, struct buf *out)
{
	struct stage_ref *need;
	char **why;
	int n = status_of(r, goal, &need, &why);
	if (n < 0)
		return -1;
	buf_printf(out, "run %s (task %s)\n", r->dir, r->task);
	if (!fs_is_dir(r->task_dir))
		buf_printf(out, "  its task is gone: no folder %s (TASKS_DIR=%s): put it back or remove the run\n",
			   r->task_dir, run_get(r, "TASKS_DIR"));
	int width = 0; /* the longest target name sets the column */
	for (int i = 0; i < n; i++)
		if ((int)strlen(need[i].name) > width)
			width = (int)strlen(need[i].name);
	int stale = 0;
	for (int i = 0; i < n; i++) {
		buf_printf(out, "  %-*s  %s\n", width, need[i].name, why[i] ? why[i] : "up to date");
		stale += why[i] != NULL;
	}
	print_trials(r, need, why, n, out);
	char *cmd = run_command(r, goal);
	if (stale)
		buf_printf(out, "%d of %d stages need work; run: %s\n", stale, n, cmd);
	else
		buf_adds(out, "up to date\n");
	free(cmd);
	status_free(need, why, n);
	return stale;
}

int status_line(const struct run *r, const char *goal, struct buf *out)
{
	struct stage_ref *need;
	char **why;
	int n = status_of(r, goal, &need, &why);
	if (n < 0)
		return -1;
	const char *reached = NULL, *failed = NULL, *failed_why = NULL;
	int stale = 0, trials = 0;
	for (int i = 0; i < n; i++) {
		/* a stage is reached when all its targets are up to date */
		int whole = 1;
		for (int j = 0; j < n; j++)
			if (need[j].def == need[i].def && why[j])
				whole = 0;
		if (whole)
			reached = need[i].def->name;
		if (!why[i])
			continue;
		stale++;
		trials += need[i].def->repeat != NULL;
		if (!failed && !strncmp(why[i], "failed: ", 8)) {
			failed = need[i].name;
			failed_why = why[i] + 8;
		}
	}
	buf_printf(out, "%s  ", path_base(r->dir));
	if (!stale) {
		buf_printf(out, "up to date (%s)", goal);
	} else {
		buf_printf(out, "reached %s; %d of %d due", reached ? reached : "nothing yet", stale, n);
		if (trials)
			buf_printf(out, " (%d trial%s)", trials, trials == 1 ? "" : "s");
		if (failed)
			buf_printf(out, "; failed: %s: %s", failed, failed_why);
	}
	if (!fs_is_dir(r->task_dir)) /* nothing can run until it is back */
		buf_printf(out, "; its task is gone: no folder %s", r->task_dir);
	buf_addc(out, '\n');
	status_free(need, why, n);
	return stale;
}
