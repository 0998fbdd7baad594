/* results.h — the results table of skillc-summary: the complete trials of
 * some run folders (traces/<task>/<stage>/test-NNN/trial.json) grouped by
 * task x harness x model x stage and summed, with the attempts each run kept
 * in .incomplete/<stage>/. Rows are sorted by task, harness and model, then
 * by stage in pipeline order (raw, static, fast, deep, final, others). */
#ifndef SKILLC_REPORT_RESULTS_H
#define SKILLC_REPORT_RESULTS_H

#include <cJSON.h>

#include "base/util.h"

struct results_group {
	char *task, *harness, *model, *stage;
	long trials, scored, passed, infra, verr, timeouts, incomplete;
	long skill_den, invoked, read;  /* skill_den: trials with our skill whose agent ran */
	long env_not_reproduced;        /* trials whose sandbox lacked the task's Dockerfile steps */
	double reward_sum, tok_sum, cost_sum, sec_sum, agent_sec_sum;
	long reward_n, tok_n, cost_n, sec_n, agent_sec_n;
	cJSON *errors;      /* timeout / infra_error / verifier_error -> count */
	cJSON *categories;  /* the runner's error_category -> count */
	struct results_group *raw;  /* the raw stage of the same task/harness/model */
};

struct results_table {
	struct results_group *v;
	size_t n, cap;
	long runs;
};

/* Appends the run folders under path: path itself when it holds traces/,
 * else its descendants down to depth levels that do. */
void results_find_runs(const char *path, int depth, struct strlist *runs);

/* Fills tb (zeroed) from the runs; free with results_free. */
void results_build(struct results_table *tb, const struct strlist *runs);
void results_free(struct results_table *tb);

/* The numbers of a row; NAN when undefined (nothing scored, no raw row...). */
double results_pass_rate(const struct results_group *g);  /* passed / scored */
double results_delta_pp(const struct results_group *g);   /* pass-rate change vs raw, points */
double results_mean(double sum, long n);
double results_skill_rate(const struct results_group *g, long count); /* count / skill_den */

#endif
