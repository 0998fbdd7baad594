/* fast.h — the fast stage's steps, one make target each: score every
 * trace and pick the groups (fast-score), one map call per unit
 * (fast-map.NNN), reduce into typed patches (fast-reduce), apply them
 * guarded into S_fast (fast-apply); skillc-fast's standalone mode runs
 * them through make too. Every file lives in one folder (dir)
 * under fixed names (docs/fast.md). Each returns 0 when done, or -1 with e
 * set (ERR_INPUT: too few traces, a missing file, bad options; ERR_WORK:
 * AgentRM or the model down). */
#ifndef SKILLC_OPTIMIZE_FAST_H
#define SKILLC_OPTIMIZE_FAST_H

#include <stdbool.h>

#include "base/util.h"

struct fast_opts {
	const char *traces, *skill, *dir, *task, *rm_url, *model, *profile, *hash, *output;
	const char *only; /* SKILLS: the skills of the set map, reduce and apply may change (NULL: every one) */
	int trials, min_traces, top, bottom, unit, units, max_patches, max_parallel;
	long budget; /* 0: the profile's, else 5000 tokens */
	struct strlist leak_tasks; /* apply: more tasks the leakage guard holds out */
	struct strlist pool_traces; /* more tasks' traces folders (traces/<task>/static) */
	struct strlist pool_tasks;  /* score, map: those tasks' folders (their instructions) */
	bool force;
};

/* dir/scores.json and dir/groups.json. */
int fast_step_score(const struct fast_opts *o, struct err *e);
/* dir/map/NNN.json for unit o->unit. */
int fast_step_map(const struct fast_opts *o, struct err *e);
/* dir/reduce.json and dir/patches.json from map/001..o->units. */
int fast_step_reduce(const struct fast_opts *o, struct err *e);
/* dir/S_fast/, its hash (dir/S_fast.hash or o->hash), dir/report.json and report.md. */
int fast_step_apply(const struct fast_opts *o, struct err *e);

/* "<dir>/map/NNN.json"; caller frees. */
char *fast_map_path(const char *dir, int unit);

#endif
