/* results.h — the results table of skillc-summary and skillc-report: the
 * trials of some run folders (traces/<task>/<stage>/test-NNN/trial.json)
 * grouped by bench x task x harness x model x runner x stage and summed,
 * with the attempts each run kept in .incomplete/<stage>/.
 *
 * A stage's numbers are its current trials only: the complete trials with
 * an index the run's manifest lists as due (<stage>-eval.NNN) whose
 * skill_hash is the one of the skill the stage evaluates now (runinfo.h).
 * Every other trial folder is kept in the group as stale, with the reason,
 * and never counted. Rows are sorted by bench, task, harness, model and
 * runner, then by stage in pipeline order (noskill, raw, static, fast,
 * deep-1, deep-2, ..., final, others by name). Each row is linked to the
 * raw row and the no-skill row (stage noskill) of its cell. */
#ifndef SKILLC_REPORT_RESULTS_H
#define SKILLC_REPORT_RESULTS_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

struct routes;

/* One trial folder of a stage. Numbers are NAN when unknown. */
struct results_trial {
	char *dir;      /* the trial folder */
	char *rel;      /* the same, relative to its run folder */
	char *test;     /* "test-NNN" */
	char *error;    /* the runner's error text, NULL when none */
	char *rollout;  /* trial-relative folder of the rollout (files.rollout), NULL when none */
	char *reused_from; /* a selection trial's origin (reused_from.trial, run-relative), NULL when none */
	long index;
	char *stale;    /* NULL: counted; else why it is not */
	char *outcome;  /* passed failed timeout infra_error verifier_error */
	bool passed, reused, invoked;
	bool selection; /* a selection trial reused by the final evaluation (optimistic) */
	double reward, tokens, tokens_in, tokens_out, tool_calls, seconds, agent_seconds;
	double cost;    /* USD; NAN when neither the runner nor the route prices it */
};

struct results_group {
	char *bench, *task, *harness, *model, *runner, *stage;
	char *source;  /* the run's SKILL_SOURCE tag (src-<skill>-<hash>), "" for the task's own skill */
	long trials, scored, passed, infra, verr, timeouts, incomplete, stale, reused;
	long selection;  /* counted trials that are reused selection trials (the deep stage's final) */
	long skill_den, invoked, read;  /* skill_den: trials with our skill whose agent ran */
	long env_not_reproduced;        /* trials whose sandbox lacked the task's Dockerfile steps */
	double reward_sum, tok_sum, cost_sum, sec_sum, agent_sec_sum, calls_sum;
	long reward_n, tok_n, cost_n, sec_n, agent_sec_n, calls_n;
	long cost_unknown;   /* counted trials without a money figure */
	/* Money paid in the run for this stage: its trial folders (counted and
	 * stale) that ran here, not reused from the trial store, and the LLM
	 * calls of the stage families that belong to the row (cost.h). */
	double spent;
	long ran;            /* such trials */
	long spent_unknown;  /* of them, without a money figure */
	long llm_calls, llm_unknown;
	double llm_usd;
	double llm_tokens_in, llm_tokens_out; /* of those calls */
	char *external;     /* the run's EXTERNAL_MODEL, the optimizer ("" none) */
	cJSON *errors;      /* timeout / infra_error / verifier_error -> count */
	cJSON *categories;  /* the runner's error_category -> count */
	struct results_trial *t;  /* every trial folder, counted and stale, by index */
	size_t nt, tcap;
	struct results_group *raw;  /* the raw stage of the same bench, task, harness, model and runner */
	struct results_group *noskill;  /* the no-skill baseline of the same (NULL: the run has none) */
};

struct results_table {
	struct results_group *v;
	size_t n, cap;
	long runs;
	/* Every LLM call and every trial that ran in the runs, rows or not:
	 * known money, and how many items had none. */
	long llm_calls;
	double llm_usd, trial_usd;
	long llm_unknown, trial_unknown;
};

/* Appends the run folders under path: path itself when it holds traces/,
 * else its descendants down to depth levels that do. */
void results_find_runs(const char *path, int depth, struct strlist *runs);

/* The runs under each of paths (a run folder or a results folder, two
 * levels down), appended to runs. -1 with e set (ERR_INPUT) when paths is
 * empty, or one is not a folder or holds no run: a tool's arguments. */
int results_runs_under(const struct strlist *paths, struct strlist *runs, struct err *e);

/* Fills tb (zeroed) from the runs; prices from routes (may be NULL) for
 * trials whose runner reported no cost. Free with results_free. */
void results_build(struct results_table *tb, const struct strlist *runs, const struct routes *routes);
/* The same for the one run folder run. */
void results_build_run(struct results_table *tb, const char *run, const struct routes *routes);
/* Adds one trial from elsewhere than a run folder (a Harbor job's, eval/
 * harborjob.h), counted, to the row its bench, task, harness, model, runner
 * and stage name; j holds trial.json's facts. Call results_finish after. */
void results_add(struct results_table *tb, const cJSON *j, const char *dir, const struct routes *routes);
/* Sorts the rows and links each to its raw row (results_build does it). */
void results_finish(struct results_table *tb);
void results_free(struct results_table *tb);

/* Whether two rows are of one cell: bench, task, harness, model, runner
 * and skill source (the stages of one run, or of runs that share all that). */
bool results_same_cell(const struct results_group *a, const struct results_group *b);

/* The rank of a stage name in pipeline order (for sorting). */
int results_stage_cmp(const char *a, const char *b);

/* The numbers of a row; NAN when undefined (nothing scored, no raw row...). */
double results_pass_rate(const struct results_group *g);  /* passed / scored */
double results_delta_pp(const struct results_group *g);   /* pass-rate change vs raw, points */
double results_mean(double sum, long n);
double results_skill_rate(const struct results_group *g, long count); /* count / skill_den */
/* The 95% interval of the pass-rate change vs raw, in points (Newcombe);
 * false when there is no raw row or either has nothing scored. */
bool results_delta_ci(const struct results_group *g, double *lo, double *hi);
/* The same two against another row (the no-skill baseline: g->noskill). */
double results_delta_pp_vs(const struct results_group *g, const struct results_group *base);
bool results_delta_ci_vs(const struct results_group *g, const struct results_group *base, double *lo, double *hi);
/* What the row's stage cost in its run: LLM calls plus trials that ran
 * there; NAN when nothing of it has a known price. */
double results_stage_usd(const struct results_group *g);
/* Everything the table's runs paid (known money); *unknown items without a price. */
double results_spent(const struct results_table *tb, long *unknown);

/* A stage of a skill, not raw, whose pass rate is below raw's (the
 * no-skill baseline is never "regressed"). */
bool results_regressed(const struct results_group *g);
/* A stage that is not noskill and whose pass rate is below the no-skill
 * baseline's (the skill does worse than no skill at all). */
bool results_worse_than_noskill(const struct results_group *g);

#endif
