/* rules.h — one run made ready for make, under its lock: the source stamps
 * (the task's trees hashed, rewritten only when the hash changed), the
 * config files (inputs/config.json, inputs/config/<stage>.json), the
 * stamps of targets whose outputs are gone removed, and rules.mk, the run's
 * stage graph as make rules. Nothing is rewritten that did not change, so
 * make sees no new mtimes on a no-op, and nothing walks the run folder
 * unless a stage was cut short (its marker in .inflight/ is left). */
#ifndef SKILLC_PIPELINE_RULES_H
#define SKILLC_PIPELINE_RULES_H

#include "base/strmap.h"
#include "base/util.h"
#include "pipeline/settings.h"

/* Source hashes already taken in this process: a task shared by the runs of
 * a matrix is hashed once. */
struct rules_memo {
	struct strmap index; /* "<path>\n<what>" -> its slot in hashes */
	char (*hashes)[33];
	size_t n;
};
void rules_memo_free(struct rules_memo *m);

/* A judge of outputs only a later layer can see into (an image stamp
 * against the run's container engine): a sentence saying why the output at
 * path, made by a stage of tool in run r, must be made again (caller
 * frees), else NULL. The tool that refreshes sets it (skillc-rules); NULL: none. */
typedef char *rules_output_check(const struct run *r, const char *tool, const char *path);
void rules_set_output_check(rules_output_check *fn);

/* Refreshes r. Returns 1 when rules.mk changed, 0 when not, -1 on error. */
int rules_refresh(const struct run *r, struct rules_memo *memo, struct err *e);
/* ERR_INPUT naming the folder when r's task is not there: checked before
 * anything of the run is written, so a typo leaves no run behind. */
int rules_task_check(const struct run *r, struct err *e);

/* Appends " <target>" for each target of r that user goal brings up to
 * date: a stage's own targets (make pulls in what they need through the
 * rules), or every target eval or final needs. The one make's plan lists
 * them a goal a line: one rule a run appending to a goal would cost make
 * a walk of the goal's whole list each (quadratic over a matrix). */
void rules_goal_targets(const struct run *r, const char *goal, struct buf *out);

/* Appends the rules of the targets goals need in r, each once, in the
 * graph's order: the plan's share of r when no goal is the whole pipeline
 * (make then reads a few rules a run, not every run's whole rules.mk). */
void rules_emit_goals(const struct run *r, const struct strlist *goals, struct buf *mk);

/* The marker a stage leaves in <run>/.inflight/ while it runs. */
int inflight_mark(const char *run, const char *target, struct err *e);
void inflight_clear(const char *run, const char *target);

/* True when the make running us was given -k: MAKEFLAGS starts with its
 * one-letter flags ("ks -j2 ..."), unless it starts with an option. */
int make_keeps_going(void);

#endif
