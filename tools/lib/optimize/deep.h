/* deep.h — the deep stage's steps, one make target each: round 1's start,
 * then per round the section scores, one local edit, the candidate trials
 * and the looks between their batches, the decision; then S_final and the
 * final evaluation's trials (`skillc-deep run` hands them to make too).
 * Every file is under <run>/artifacts/deep/, with
 * run-relative paths inside (docs/deep.md). Each step returns 0 when done,
 * -1 with e set (ERR_INPUT: a missing input, bad options; ERR_WORK: the
 * work failed), or for a step running a command, that command's non-zero
 * exit status. */
#ifndef SKILLC_OPTIMIZE_DEEP_H
#define SKILLC_OPTIMIZE_DEEP_H

#include <stdbool.h>

#include "optimize/decision.h"
#include "base/util.h"

struct deep_opts {
	const char *run, *model, *task, *profile, *trial;
	const char *only; /* SKILLS: the skills of the set score and edit may change (NULL: every one) */
	const char *src[2], *skill[2], *trials[2]; /* start: base, candidate */
	long count[2];
	int round, rounds, index, look;
	bool fresh;
	struct strlist leak_tasks; /* edit: more tasks the leakage guard holds out */
	/* Pooled over several tasks (a skill run's train tasks): the other
	 * tasks' names (look, decide: their candidate trials are
	 * round-K/trials/<task>/III.json) and (start) their trial folders. */
	struct strlist pool_tasks, pool_trials[2];
	const char *of_task; /* trial: the pooled task it is of (its record in trials/<task>/) */
	struct deep_rule rule;
	char **command; /* trial, final-trial: the skillc-eval to run */
};

/* round-0/: the better of the base and the candidate skill by the rule. */
int deep_step_start(const struct deep_opts *o, struct err *e);
/* round-K/scores.json: every unit of the best skill scored by o->model. */
int deep_step_score(const struct deep_opts *o, struct err *e);
/* round-K/edit.json, candidate/, candidate.hash: one guarded edit. */
int deep_step_edit(const struct deep_opts *o, struct err *e);
/* round-K/trials/III.json: runs the command only when the trial is needed. */
int deep_step_trial(const struct deep_opts *o, struct err *e);
/* round-K/look-JJJ.json: the rule after look J (accept, reject, extend). */
int deep_step_look(const struct deep_opts *o, struct err *e);
/* round-K/decision.json, best.json, rejected.json. */
int deep_step_decide(const struct deep_opts *o, struct err *e);
/* S_final/, S_final.hash, rejected.json, report.json, report.md. */
int deep_step_final(const struct deep_opts *o, struct err *e);
/* The final evaluation's trial o->index: the last accepted round's trial
 * copied when S_final is its candidate (unless o->fresh), else the command. */
int deep_step_final_trial(const struct deep_opts *o, struct err *e);

#endif
