/* skillrun.h — a skill run (docs/skill-runs.md): one skill tuned on its
 * train tasks and judged on held-out test tasks. This part plans it from
 * the command's settings: which skill (a folder, or a folder name found in
 * the train tasks, the copies that differ listed), which split (train= and
 * test=, or tasks= drawn with SPLIT and SPLIT_SEED), and the skill set each
 * task's trials see (the task's own set with the skill in place of its
 * namesake, or added). skillc-skillrun drives the member runs. */
#ifndef SKILLC_PIPELINE_SKILLRUN_H
#define SKILLC_PIPELINE_SKILLRUN_H

#include <stdbool.h>

#include <cJSON.h>

#include "base/hash.h"
#include "base/util.h"

struct skillrun {
	char *skill;        /* the chosen skill folder (absolute) */
	char *name;         /* its folder name: the namesake it replaces, SKILLS= */
	hash_hex hash;      /* its tree hash */
	cJSON *copies;      /* found by name: [{"hash", "tasks": [...]}], else NULL */
	char *choice;       /* the line saying which copy was taken, or NULL */
	char *tasks_dir;
	struct strlist train, test; /* sorted */
	bool drawn;         /* the split was drawn from tasks= */
	char *split;        /* SPLIT as given, when drawn */
	long seed;          /* SPLIT_SEED, when drawn */
};

/* From the checked settings (name -> string): -1 with e (ERR_INPUT, one
 * line saying what to do) on a bad skill run. */
int skillrun_plan(const cJSON *values, struct skillrun *sr, struct err *e);
void skillrun_free(struct skillrun *sr);

/* The k test tasks drawn from n sorted names by seed: a Fisher-Yates
 * shuffle driven by splitmix64, the first k taken. Fills is_test[n]. */
void skillrun_draw(size_t n, size_t k, long seed, bool *is_test);
/* How many of n tasks a test share of split draws: rounded, at least one
 * and at most n - 1. */
size_t skillrun_test_count(size_t n, double split);

/* The skill run's folder under results: skill-<name>--<harness>--<model
 * slug>--<first 8 hex of the split's hash>. Caller frees. */
char *skillrun_dir(const struct skillrun *sr, const char *results, const char *harness,
                   const char *slug);

/* out = the task's environment/skills with skill (a folder) in place of
 * its namesake `name`, or added; rewritten only when its content changes
 * (built beside it, swapped in). */
int skillrun_compose(const char *task_dir, const char *skill, const char *name, const char *out,
                     struct err *e);

/* The plan as JSON for skillrun.json: skill, copies, split. */
cJSON *skillrun_json(const struct skillrun *sr);

#endif
