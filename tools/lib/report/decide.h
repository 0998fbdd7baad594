/* decide.h — should a candidate skill replace the baseline, judged on the
 * pass counts of their trials? An exact one-sided test (exact.h) at a
 * stated level, with sequential extension: a candidate that is ahead but
 * not yet significant (the grey zone) gets more trials, up to a maximum;
 * a tie or a loss is rejected. The mean reward only breaks ties, and only
 * to ask for more trials, never to accept.
 *
 * The rule's operating characteristics — the chance it accepts a useless
 * edit (false accept), a regression, or a real gain (power) — are computed
 * exactly, by enumerating every outcome of every look (a dynamic program
 * over the pass counts, which are all the rule sees). docs/statistics.md
 * explains the rule and gives its figures. */
#ifndef SKILLC_REPORT_DECIDE_H
#define SKILLC_REPORT_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <cJSON.h>

#include "base/util.h"

enum decide_test {
	DECIDE_FISHER,   /* Fisher's exact test (conditional) */
	DECIDE_BARNARD,  /* Barnard's exact test (unconditional, score-ordered) */
	DECIDE_STRICT,   /* a screen, not a test: candidate pass rate > baseline's */
	DECIDE_MARGIN,   /* a screen: candidate passes >= baseline's + margin */
};
const char *decide_test_name(enum decide_test t);  /* "fisher", ... */
int decide_test_from(const char *name);            /* -1 when unknown */

enum decide_verdict { DECIDE_REJECT, DECIDE_ACCEPT, DECIDE_EXTEND };
const char *decide_verdict_name(enum decide_verdict v); /* "reject", ... */

struct decide_rule {
	enum decide_test test;
	double alpha;     /* fisher, barnard: the stated false-accept rate */
	double level;     /* accept at a look when the one-sided p <= level; 0 means
			   * alpha (decide_calibrate lowers it for a sequential rule) */
	double grey;      /* extend while level < p <= grey and the candidate is ahead */
	long margin;      /* margin: passes the candidate needs beyond the baseline's
			   * (scaled by nb/na when the arms differ in size) */
	long first;       /* candidate trials at the first look */
	long max;         /* candidate trials at the last look (max == first: one look) */
	long step;        /* trials each extension adds */
	bool extend_baseline; /* each extension also gives the baseline step more
			       * trials, up to max (never fewer than it has) */
	bool reward_tiebreak; /* a tie before the last look is extended (not
			       * rejected) when the candidate's mean reward is higher */
};

/* The rule with its defaults: grey 0.5, margin 2, one look (max = step =
 * first), baseline not extended, reward tie-break on. */
void decide_rule_init(struct decide_rule *r, enum decide_test t, double alpha, long first);

/* 0, or -1 with e set (ERR_INPUT) naming the field that is out of range:
 * 0 < alpha <= grey <= 1, 0 <= level <= alpha, 1 <= first <= max <= EXACT_MAX_N, step >= 1;
 * strict and margin have no grey zone (max must equal first). */
int decide_rule_check(const struct decide_rule *r, struct err *e);
/* Whether t is a test (fisher, barnard), not a screen; the level a look
 * accepts at (level, else alpha). */
bool decide_is_test(enum decide_test t);
double decide_level(const struct decide_rule *r);

/* What the caller observed: complete, scored trials only (an infra error
 * is not a trial). A mean reward is NAN when unknown. */
struct decide_counts {
	long base_pass, base_n;
	long cand_pass, cand_n;
	double base_reward, cand_reward;
};

struct decide_result {
	enum decide_verdict verdict;
	double p;                       /* one-sided p-value; NAN for the screens */
	long next_base_n, next_cand_n;  /* after DECIDE_EXTEND: trials each arm should then have */
	char why[192];                  /* one line, e.g. "p = 0.030 <= alpha 0.10: accepted" */
};

/* Judges the counts by the rule. The candidate is at its last look when
 * cand_n >= max. Returns -1 with e set (ERR_INPUT) on a bad rule or counts. */
int decide_verdict(const struct decide_rule *r, const struct decide_counts *c, struct decide_result *out,
		   struct err *e);

/* The rule at one look, whatever its test: cls is the p-value's class (0
 * at most the level, 1 in the grey zone, 2 above it), last whether this is
 * the last look, cmp the candidate against the baseline (1 ahead, 0 tied,
 * -1 behind), tie_extends whether a tie gets more trials. */
enum decide_verdict decide_step(int cls, bool last, int cmp, bool tie_extends);
/* What such a verdict says, the end of a decision's "why". */
const char *decide_what(enum decide_verdict v, int cmp, bool last);
/* The trials each arm has at the look after one with base_n and cand_n. */
long decide_next_base(const struct decide_rule *r, long base_n);
long decide_next_cand(const struct decide_rule *r, long cand_n);

/* The rule's behaviour when the baseline truly passes with probability
 * p_base and the candidate with p_cand, starting from base_first baseline
 * trials and r->first candidate trials. The reward tie-break depends on
 * data the counts do not hold, so two figures bound what it can do:
 * accept assumes every tie before the last look is extended (the most a
 * tie-break can accept), accept_min that none is (the least). They are
 * equal when reward_tiebreak is off. */
struct decide_oc {
	double p_base, p_cand;
	double accept, accept_min;
	double mean_cand_trials; /* expected trials at the decision (ties extended) */
};
int decide_oc(const struct decide_rule *r, long base_first, double p_base, double p_cand, struct decide_oc *out,
	      struct err *e);

/* The largest false-accept rate over every common pass rate pi (both arms
 * at pi, ties extended): the rule's size. *at (may be NULL) gets that pi. */
double decide_worst_false_accept(const struct decide_rule *r, long base_first, double *at, struct err *e);

/* Makes alpha bound the whole rule's worst false-accept rate: every extra
 * look is one more chance to cross the line by luck, so a sequential rule
 * at level alpha accepts a useless edit more often than alpha. Sets
 * r->level to the largest level <= alpha (to within alpha / 2^20, found by
 * bisection on decide_worst_false_accept) whose rule keeps that rate <=
 * alpha; a one-look rule keeps level = alpha, since an exact test's size
 * is at most its level. The screens are left alone. */
int decide_calibrate(struct decide_rule *r, long base_first, struct err *e);

/* The effect sizes of optimization.md §8's table (p_base -> p_cand):
 * useless .5 -> .5, gains .4 -> .7 and .3 -> .8, regression .6 -> .4. */
struct decide_effect {
	double p_base, p_cand;
};
extern const struct decide_effect decide_table_effects[4];
/* "gain", "regression" or "useless": the kind an operating row names. */
const char *decide_effect_kind(const struct decide_effect *f);

/* decision.json's "rule": test, alpha, level, grey, (margin,) first, max,
 * step, extend_baseline, reward_tiebreak. Caller frees. */
cJSON *decide_rule_json(const struct decide_rule *r);

/* The statistics part of decision.json:
 *   { "rule": {test, alpha, grey, margin, first, max, step, extend_baseline,
 *              reward_tiebreak},
 *     "counts": {baseline: {passed, trials, mean_reward}, candidate: {...}},
 *     "verdict", "p_value", "why", "next": {baseline, candidate} (extend only),
 *     "false_accept": {"worst": x, "worst_at": pi, "baseline_trials": base_first},
 *     "operating": [ {p_base, p_cand, kind: useless|gain|regression,
 *                     accept, accept_min, mean_candidate_trials}, ... ] }
 * for the given effect sizes (decide_table_effects when n is 0). Rounded to
 * 6 decimals. NULL with e set on a bad rule or counts; caller frees. */
cJSON *decide_json(const struct decide_rule *r, const struct decide_counts *c, long base_first,
		   const struct decide_effect *effects, size_t n, struct err *e);

#endif
