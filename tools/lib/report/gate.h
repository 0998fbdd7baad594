/* gate.h — the regression gate of `make gate`: does each run's gated stage
 * (final, by default) beat raw, and optionally the no-skill baseline, by
 * the rule's margin? Judged per run (bench x task x harness x model x
 * runner of a results table) on the intervals the summary prints: the 95%
 * Newcombe interval of the pass-rate change, rounded as summary.json holds
 * it, so a gain inside the noise is not a pass unless the margin allows it.
 * docs/ci.md explains the rule. */
#ifndef SKILLC_REPORT_GATE_H
#define SKILLC_REPORT_GATE_H

#include <stdbool.h>

#include "base/util.h"
#include "report/results.h"

/* The one-sided level of the stratified test a gain across tasks must pass. */
#define GATE_STRAT_ALPHA 0.05

struct gate_rule {
	const char *stage;    /* the stage judged ("final") */
	bool gain;            /* false (the default, "no-regression"): a run fails
			       * only on evidence of a loss, the interval's upper
			       * end below 0; true ("gain"): it passes only when the
			       * lower end is at least min_delta */
	double min_delta;     /* points: the interval's lower bound of stage - raw
			       * (and stage - noskill) must be >= this; -100 turns it off */
	long max_regressed;   /* runs whose stage is below raw allowed (gain: the
			       * summary's regressed flag; no-regression: with
			       * evidence, the upper end below 0) */
	bool vs_noskill;      /* also judge stage - noskill */
	bool across;          /* with 2 or more runs, the verdict is the across-task
			       * one (across.h): the 95% interval of the mean per-run
			       * change, clustered by task, judged as above (a gain
			       * with min_delta >= 0 also needs the stratified exact
			       * p <= GATE_STRAT_ALPHA); each run's line is then
			       * information (Holm-adjusted p) */
	const char *unit;     /* what a line judges, "run" when NULL ("test task":
			       * a skill run's held-out gate, report/skillgate.h) */
};

/* The rule's settings as given on the command line or to make (NULL or ""
 * take the default): --stage GATE_STAGE, --rule GATE_RULE, ... */
struct gate_args {
	const char *stage, *rule, *min_delta, *max_regressed, *vs, *across;
};

/* r from a: -1 with e (ERR_INPUT, naming the option and the setting) on a
 * malformed value. */
int gate_rule_parse(const struct gate_args *a, struct gate_rule *r, struct err *e);

/* What gate_judge found, run by run. */
enum gate_state { GATE_PASS, GATE_FAIL, GATE_UNJUDGED };

struct gate_counts {
	long runs, passed, failed, unjudged, regressed;
};

/* Judges every run of tb. Appends one line per run to out ("ok ...",
 * "FAIL ...: why", "ERROR ...: why it cannot be judged"), with 2 or more
 * judged runs a line "across N runs: ..." (the across-task figures), and a
 * last line with the verdict and the rule. Returns 0 when every run passes and at
 * most max_regressed regressed, 2 when some run cannot be judged (no
 * scored trials in raw or the stage — an infra-only run —, no such stage,
 * no noskill stage with vs_noskill) or tb has no run, else 1. */
int gate_judge(const struct results_table *tb, const struct gate_rule *r, struct buf *out);

/* "4/5 = 80.0% [37.6%, 96.4%]" (Wilson 95%), or "no scored trials (N infra
 * errors, M verifier errors)". */
void gate_rate_text(const struct results_group *g, struct buf *b);

/* The change g - base in points and its 95% Newcombe interval, rounded to
 * 2 decimals as summary.json holds them; false when either has nothing
 * scored. */
bool gate_delta(const struct results_group *g, const struct results_group *base, double *d, double *lo,
		double *hi);

/* "task (harness, model, runner)", with the bench when it is not empty. */
void gate_run_name(const struct results_group *g, struct buf *b);

#endif
