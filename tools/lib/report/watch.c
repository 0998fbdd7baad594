#include "report/watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "report/results.h"
#include "report/summary.h"

/* A trial: a target named NAME.NNN (an instance of a repeated stage). */
static bool is_trial(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot || !dot[1])
		return false;
	for (const char *p = dot + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool in_words(const char *words, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = words; (p = strstr(p, name)); p += n)
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Due, done and running trials over the run folders. */
static void watch_count(const struct strlist *runs, watch_due_fn due_fn, struct watch_counts *c)
{
	memset(c, 0, sizeof *c);
	double *times = NULL;
	size_t nt = 0;
	for (size_t i = 0; i < runs->n; i++) {
		char *due = due_fn ? due_fn(runs->v[i]) : NULL;
		cJSON *m = json_read_rel(runs->v[i], "manifest.json");
		c->busy += due != NULL;
		const cJSON *targets = json_get(m, "targets"), *stages = json_get(m, "stages");
		for (const cJSON *t = targets ? targets->child : NULL; t; t = t->next) {
			if (!is_trial(t->string) || !cJSON_IsString(t))
				continue;
			bool done = !strcmp(t->valuestring, "done");
			/* due: what the running make brings up to date; else what is done already */
			if (!(due ? in_words(due, t->string) : done))
				continue;
			c->due++;
			c->done += done;
			c->running += !strcmp(t->valuestring, "running");
			const cJSON *secs = json_get(json_get(stages, t->string), "seconds");
			if (done && cJSON_IsNumber(secs)) {
				times = xrealloc(times, (nt + 1) * sizeof *times);
				times[nt++] = secs->valuedouble;
			}
		}
		cJSON_Delete(m);
		free(due);
	}
	if (nt) {
		qsort(times, nt, sizeof *times, cmp_double);
		c->median = nt % 2 ? times[nt / 2] : (times[nt / 2 - 1] + times[nt / 2]) / 2;
	}
	free(times);
}

/* Run folders (a manifest.json; a run without trials yet counts too) under
 * path, depth levels down. */
static void find_runs(const char *path, int depth, struct strlist *runs)
{
	char *m = path_join(path, "manifest.json");
	bool is_run = fs_exists(m);
	free(m);
	if (is_run) {
		strlist_push(runs, path);
		return;
	}
	struct strlist kids = STRLIST_INIT;
	struct err e;
	if (depth > 0 && fs_list_names(path, &kids, &e) == 0)
		for (size_t i = 0; i < kids.n; i++) {
			char *k = path_join(path, kids.v[i]);
			if (fs_is_dir(k))
				find_runs(k, depth - 1, runs);
			free(k);
		}
	strlist_free(&kids);
}

static void table_of(const struct strlist *runs, struct buf *b)
{
	struct results_table tb = { 0 };
	results_build(&tb, runs, NULL);
	summary_md_table(&tb, b);
	results_free(&tb);
}

/* The table of the runs under the paths, or with labels one per path under
 * its label; every run folder into all (for the counts). */
static void tables(const struct watch_spec *w, struct strlist *all, struct buf *b)
{
	struct strlist runs = STRLIST_INIT;
	for (size_t i = 0; i < w->paths->n; i++) {
		const char *path = w->paths->v[i];
		struct strlist found = STRLIST_INIT;
		if (*path) {
			results_find_runs(path, 2, &runs);
			find_runs(path, 2, &found);
		}
		/* two labels may name one run: counted once */
		for (size_t k = 0; k < found.n; k++)
			strlist_push_new(all, found.v[k]);
		strlist_free(&found);
		if (!w->labels)
			continue;
		buf_printf(b, "%s## %s\n\n", i ? "\n" : "", w->labels->v[i]);
		if (runs.n)
			table_of(&runs, b);
		else
			buf_adds(b, *path ? "(no trials yet)\n" : "(not planned yet)\n");
		char *trials = *path && w->tasks && w->trials_fn
		                       ? w->trials_fn(path, w->tasks->v[i]) : NULL;
		if (trials && *trials)
			buf_printf(b, "\nTrials of %s: %s\n", w->tasks->v[i], trials);
		free(trials);
		strlist_free(&runs);
	}
	if (!w->labels)
		table_of(&runs, b);
	strlist_free(&runs);
}

/* One screen: the tables and the counts line; into c the counts. */
static void frame(const struct watch_spec *w, struct buf *b, struct watch_counts *c, bool *held)
{
	struct strlist all = STRLIST_INIT;
	tables(w, &all, b);
	watch_count(&all, w->due_fn, c);
	strlist_free(&all);
	char *h = w->holder && w->due_fn ? w->due_fn(w->holder) : NULL;
	*held = h != NULL;
	free(h);
	buf_printf(b, "%s%ld of %ld due trials complete", w->labels ? "\n" : "", c->done, c->due);
	if (c->running)
		buf_printf(b, ", %ld running", c->running);
	if (c->due > c->done && c->median > 0) {
		/* what is left, as many at a time as run now */
		long left = c->due - c->done, width = c->running > 0 ? c->running : 1;
		double secs = c->median * (double)((left + width - 1) / width);
		buf_printf(b, ", about %.0f s left", secs);
	}
	buf_printf(b, "%s\n", c->busy || *held ? "" : " (no make is working on these runs)");
}

int watch_table(const struct watch_spec *w)
{
	double start = now_mono();
	bool tty = isatty(1);
	char *last = NULL;
	for (;;) {
		struct buf b = BUF_INIT;
		struct watch_counts c;
		bool held;
		frame(w, &b, &c, &held);
		if (!last || strcmp(last, b.data)) {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			fputs(b.data, stdout);
			fflush(stdout);
			free(last);
			last = buf_detach(&b);
		}
		buf_free(&b);
		if (c.done >= c.due && !held) {
			free(last);
			return 0;
		}
		if (w->timeout > 0 && now_mono() - start >= w->timeout) {
			free(last);
			warnf("timed out after %.0fs with %ld of %ld due trials complete",
			      w->timeout, c.done, c.due);
			return 2;
		}
		usleep((useconds_t)(w->interval * 1e6));
	}
}
