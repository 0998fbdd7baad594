/* pooled.h — the Deep rule over several tasks at once (a skill run's
 * pooled train tasks, docs/statistics.md): decide.h's rule — its level,
 * grey zone, sequential extension, ties rejected, the reward only buying
 * a tie more trials — with the exact stratified test of across.h (tasks
 * as strata) as its test. With one task it is decide.h's Fisher rule.
 *
 * The rule's false-accept rate and power, and so its calibration, are
 * Monte Carlo over seeded draws (the same figures every time): the
 * stratified test over several looks has too many outcomes to enumerate.
 * One set of draws serves every level, since at a given level the rule
 * accepts exactly when the smallest p-value before it stops extending is
 * at most that level. */
#ifndef SKILLC_REPORT_POOLED_H
#define SKILLC_REPORT_POOLED_H

#include <cJSON.h>

#include "base/util.h"
#include "report/across.h"
#include "report/decide.h"

/* Draws the figures take unless told otherwise. */
#define POOLED_DRAWS 4000L

struct pooled_result {
	enum decide_verdict verdict;
	double p; /* the stratified one-sided p-value */
	long next_base_n,
		next_cand_n; /* after DECIDE_EXTEND: trials each arm of every task should have */
	char why[224];
};

/* Judges k tasks' counts by the rule (its test must be fisher or barnard:
 * either way the pooled test is the stratified one). The look is the last
 * when a task's candidate has r->max trials. Rewards: the candidate's and
 * the baseline's mean over every task (NAN when unknown). */
int pooled_verdict(const struct decide_rule *r, const struct across_task *t, size_t k,
                   double base_reward, double cand_reward, struct pooled_result *out,
                   struct err *e);

struct pooled_oc {
	double accept,
		se; /* ties before the last look extended: the most the tie-break can accept */
	double mean_cand_trials; /* per task, at the decision */
	long draws;
};
/* The rule over k tasks whose baseline passes with p_base and candidate
 * with p_cand, from base_first baseline and r->first candidate trials. */
int pooled_oc(const struct decide_rule *r, size_t k, long base_first, double p_base, double p_cand,
              long draws, struct pooled_oc *out, struct err *e);

/* The largest false-accept rate over a common pass rate .05 .. .95. */
double pooled_worst(const struct decide_rule *r, size_t k, long base_first, long draws, double *at,
                    struct err *e);

/* As decide_calibrate: r->level becomes the largest level <= alpha (to
 * within alpha / 2^20) whose worst false-accept rate over these draws is
 * at most alpha. */
int pooled_calibrate(struct decide_rule *r, size_t k, long base_first, long draws, struct err *e);

/* The decision record: { rule (as decide_json's, test "stratified"),
 * strata: [{task, baseline: {passed, trials}, candidate: {...}}],
 * rewards: {baseline, candidate}, verdict, p_value, why, next (extend only),
 * false_accept: {worst, worst_at, baseline_trials, tasks, draws},
 * operating: [{p_base, p_cand, kind, accept, se, mean_candidate_trials}] }
 * for the effects (decide_table_effects when n is 0). Caller frees. */
cJSON *pooled_json(const struct decide_rule *r, const struct across_task *t, size_t k,
                   double base_reward, double cand_reward, long base_first, long draws,
                   const struct decide_effect *effects, size_t n, struct err *e);

#endif
