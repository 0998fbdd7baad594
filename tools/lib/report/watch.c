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

void watch_counts(const struct strlist *runs, long *due, long *done)
{
	*due = *done = 0;
	for (size_t i = 0; i < runs->n; i++) {
		char *p = path_join(runs->v[i], "manifest.json");
		struct err e;
		cJSON *m = fs_exists(p) ? json_read_file(p, &e) : NULL;
		free(p);
		const cJSON *targets = json_get(m, "targets");
		if (!cJSON_IsObject(targets) || !targets->child)
			*due += 1; /* nothing known yet: never done */
		for (const cJSON *t = targets ? targets->child : NULL; t; t = t->next) {
			const char *dot = strrchr(t->string, '.');
			if (!dot || dot - t->string < 5 || strncmp(dot - 5, "-eval", 5))
				continue;
			(*due)++;
			if (cJSON_IsString(t) && !strcmp(t->valuestring, "done"))
				(*done)++;
		}
		cJSON_Delete(m);
	}
}

int watch_table(const struct strlist *paths, double timeout, double interval)
{
	double start = now_mono();
	bool tty = isatty(1);
	char *last = NULL;
	for (;;) {
		struct strlist runs = STRLIST_INIT;
		for (size_t i = 0; i < paths->n; i++)
			results_find_runs(paths->v[i], 2, &runs);
		struct results_table tb = { 0 };
		results_build(&tb, &runs, NULL);
		long due, done;
		watch_counts(&runs, &due, &done);
		struct buf b = BUF_INIT;
		summary_md_table(&tb, &b);
		buf_printf(&b, "%ld of %ld due trials complete\n", done, due);
		if (!last || strcmp(last, b.data)) {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			fputs(b.data, stdout);
			fflush(stdout);
			free(last);
			last = buf_detach(&b);
		}
		buf_free(&b);
		results_free(&tb);
		strlist_free(&runs);
		if (due > 0 && done >= due) {
			free(last);
			return 0;
		}
		if (timeout > 0 && now_mono() - start >= timeout) {
			free(last);
			warnf("timed out after %.0fs with %ld of %ld due trials complete", timeout, done, due);
			return 2;
		}
		usleep((useconds_t)(interval * 1e6));
	}
}
