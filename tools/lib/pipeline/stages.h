/* stages.h — the stage graph of one run, as data. skillc-rules turns it into
 * rules.mk, skillc-stage runs a stage by name, status and clean-stage walk
 * it. Adding a stage = adding a row here. */
#ifndef SKILLC_PIPELINE_STAGES_H
#define SKILLC_PIPELINE_STAGES_H

#include <stdbool.h>

#include "pipeline/settings.h"
#include "base/util.h"

/* A file make sees change when something outside the run changes: written
 * by skillc-rules at every make, rewritten only when its hash changed. */
enum source_root {
	SRC_TASK,     /* the task folder (TASKS_DIR/<task>) */
	SRC_RULES,    /* the rules data folder (SKILLC_RULES, exported by make) */
	SRC_SETTING,  /* the folder named by the setting `what` (e.g. PROFILES_DIR) */
	SRC_HARNESS,  /* the folder holding the harness file of setting `what` (HARNESS_PATH first) */
	SRC_SKILL,    /* the run's skill source: SKILL_SOURCE, else the task's `what` */
	SRC_POOL,     /* each task of POOL_TASKS (TASKS_DIR/<task>): one source a task */
};
struct source_def {
	const char *stamp;  /* run-relative, e.g. "inputs/skill.src.hash" (SRC_POOL:
	                       %t is the pooled task's name) */
	enum source_root root;
	const char *what;   /* tree it hashes, relative to root ("" = root itself);
	                       for SRC_SETTING, the setting's name */
};

/* A row of the graph. Paths are run-relative templates: %T is the task's
 * name, %H the harness's, %N the instance number (001, 002, ...), %K the round (1, 2, ...),
 * %P the round before it (0 for round 1), %R the last round (DEEP_ROUNDS). */
struct stage_ref;
struct stage_def {
	const char *name;
	const char *help;
	const char *tool;         /* the tool doing the work */
	const char *version;      /* its format version (versions.h) */
	const char *after[4];     /* upstream stages */
	const char *inputs[8];    /* files it reads (stamps, upstream outputs) */
	const char *outputs[6];   /* files or directories it writes */
	const char *settings[8];  /* settings it reads: its slice inputs/config/<name>.json */
	/* Settings it cannot run without (make doctor checks them): "MODEL",
	 * or "EXTERNAL_MODEL if STATIC_MODE=hybrid" for a need that depends on
	 * another setting's value. */
	const char *needs[4];
	/* A repeated stage (e.g. one evaluation trial) has as many instances as
	 * this setting says, named "<name>.001"...: one make target each, so
	 * make -jN runs N at once. */
	const char *repeat;
	/* Instead of repeat: the number of instances worked out from several
	 * settings (e.g. max(REPEAT, FAST_MIN_TRACES)). */
	int (*count)(const struct run *r);
	/* In a stage that is not repeated, an input holding %N stands for
	 * instances 1..(this setting) of a repeated upstream stage. */
	const char *gather;
	/* Instead of gather: that number worked out from several settings. */
	int (*gather_count)(const struct run *r);
	/* Trace-driven optimization starts here (model calls): `make eval`
	 * leaves this stage and what follows it alone. */
	bool optimizer;
	/* Its tool publishes without fsync (fs.h FS_PUB_REBUILDABLE): cheap,
	 * deterministic outputs. Its record holds the boot and every output's
	 * hash; after a restart they are checked and a torn one runs it again
	 * (docs/internals/durability.md). */
	bool rebuildable;
	/* A stage of every round: as many copies as this setting says, named
	 * "<first word>-K-<rest>" ("deep-score" -> "deep-2-score"). The rows
	 * of one round are contiguous; round K+1's first row comes after round
	 * K's last. */
	const char *rounds;
	/* Inputs worked out per target, beyond `inputs` (e.g. the look that
	 * decides whether an extension trial runs). */
	void (*more_inputs)(const struct stage_ref *ref, const struct run *r, struct strlist *out);
	/* Outputs the stage writes only in some cases: never required, removed
	 * by clean-stage (e.g. the trial folder of a trial that was needed). */
	const char *side_outputs[2];
	/* A 0/1 setting: the stage is part of goals eval and final only when it
	 * is 1 (BASELINE for the no-skill trials, FAST_STAGE for fast); its own
	 * goal always works. */
	const char *wanted_if;
	/* The setting holding its time limit in seconds (default STAGE_TIMEOUT). */
	const char *timeout;
	/* "SETTING=value[|value]..." conditions: the stage is in a run only
	 * where all hold (e.g. the images of SANDBOX=docker|podman); an input
	 * made by a stage the run lacks is dropped. */
	const char *when[2];
	/* May run on another machine (LAUNCHER=srun, launcher.h): it reads and
	 * writes only the run folder and the shared caches (a trial, an LLM call). */
	bool remote;
	/* The command line after the tool's path, as a template: each entry
	 * is words; "$NAME" is a setting's value, "#name" a value worked out
	 * for the target (stages.c template_values: a number from several
	 * settings, a trial's image tag or deadline, ...), "@path" a path in
	 * the run folder, "^path" one in the rules folder, "+tool" a tool
	 * beside skillc-stage (a second command after "--"), and the
	 * %-placeholders above also %I (the plain instance number), %D (the
	 * task folder), %F (the run folder). An entry "if NAME ..." counts
	 * only when the setting is set (not empty; a number: not 0) or the
	 * value "#name" is not empty, "if NAME=a|b ..." when the setting is
	 * one of those. A first entry "if NAME +tool ..." whose condition
	 * holds is the whole command, in place of the tool and the rest
	 * (TRACES: static-eval imports; PROFILE: profile reads a file). */
	const char *args[20];
	/* One copy per task of POOL_TASKS (a skill run's other train tasks),
	 * named "<name>.<task>.NNN": in its paths %t is that task's name, %d
	 * its folder, %s its skill set (SKILL_SOURCE's sibling folder of that
	 * name). An args word "*name" is several words (stages.c pool_words). */
	bool pooled;
};

/* One make target: a stage, or one instance of a repeated stage. */
struct stage_ref {
	const struct stage_def *def;
	int index;       /* 1..count for a repeated stage, else 0 */
	int count;       /* instances of a repeated stage, else 0 */
	int round;       /* 1..DEEP_ROUNDS for a round stage, else 0 */
	int pool;        /* 1..: the task of POOL_TASKS of a pooled stage, else 0 */
	char name[96];   /* "ingest", "raw-eval.003": names status/<name>.json, logs/<name>.log */
};

/* A name for several stages in a row (e.g. "fast" for fast-score ...
 * fast-apply): as a goal it means its last stage (and what that needs), to
 * clean-stage its first stage (and everything after it). */
struct stage_group {
	const char *name, *first, *last;
};
extern const struct stage_group group_table[];
extern const size_t group_count;
const struct stage_group *stage_group_find(const char *name);

extern const struct source_def source_table[];
extern const size_t source_count;
extern const struct stage_def stage_table[];
extern const size_t stage_count;

const struct stage_def *stage_find(const char *name);
/* True when the stage's `when` conditions hold for r. */
bool stage_in_run(const struct stage_def *s, const struct run *r);
/* Every target of the run in graph order; returns how many, *out is the
 * caller's to free. */
size_t stage_refs(const struct run *r, struct stage_ref **out);
/* Looks up "ingest" or "raw-eval.003"; -1 when there is no such target. */
int stage_ref_find(const struct run *r, const char *name, struct stage_ref *out);
/* The expanded input and output paths of a target (run-relative). */
void stage_ref_inputs(const struct stage_ref *ref, const struct run *r, struct strlist *out);
void stage_ref_outputs(const struct stage_ref *ref, const struct run *r, struct strlist *out);
/* True when `up` is `s` or comes before it (transitively). */
int stage_depends_on(const struct stage_def *s, const struct stage_def *up);
/* The same for targets: rounds in order, and no instance of a repeated
 * stage depends on another instance of it. */
bool stage_ref_depends_on(const struct stage_ref *a, const struct stage_ref *up);
/* True when up is a direct upstream target of a (its `after`, or round
 * K-1's last row for round K's first). */
bool stage_ref_after(const struct stage_ref *a, const struct stage_ref *up);
/* The target's command line (its tool's path under bindir first), from its
 * row's args or command. */
void stage_command(const struct stage_ref *ref, const struct run *r, const char *bindir,
                   struct strlist *argv);
/* The side outputs of a target (run-relative). */
void stage_ref_side_outputs(const struct stage_ref *ref, const struct run *r, struct strlist *out);
/* "deep-2" -> the round (2) when name is "<first word of a round row>-K"; else 0. */
int stage_round_of(const char *name);
/* The stage's time limit in seconds. */
long stage_timeout(const struct stage_def *s, const struct run *r);
/* The slice of settings s reads, with the tool's format version. Caller frees. */
cJSON *stage_config(const struct stage_def *s, const struct run *r);
/* "inputs/config/<name>.json"; caller frees. */
char *stage_config_path(const struct stage_def *s);
/* The targets a user goal needs: a stage's name (it and everything upstream
 * of it), "eval" (every evaluation stage, repeated or gathering, and what
 * they need), or "final" (also "all") for every target of the run.
 * Returns how many (-1 for an unknown goal); *out is the caller's to free. */
int goal_refs(const struct run *r, const char *goal, struct stage_ref **out);
/* A stage's name, a group's (fast, deep), "eval", "final" or "all". */
bool goal_known(const char *goal);
/* True when the goal (as goal_known takes it) includes s. */
bool goal_includes(const char *goal, const struct stage_def *s);
/* True when s cannot run without `setting` (its `needs`, evaluated in r). */
bool stage_needs(const struct stage_def *s, const struct run *r, const char *setting);
/* True when a stage the goal takes cannot run without the setting (its row's `needs`). */
bool goal_needs(const char *goal, const struct run *r, const char *setting);

/* Whether goals eval and final take stage s in this run (wanted_if; a
 * pooled row only with POOL_TASKS). */
bool stage_wanted(const struct stage_def *s, const struct run *r);

/* "ingest, raw-eval, ...; with RUNNER=local SANDBOX=docker: l1-image,
 * l2-image": every stage's name, for messages; caller frees. */
char *stage_names(void);

/* Appends the stages a change of the setting makes due again: those that
 * read it (their config slice, their instance count, a source it names) and
 * every stage after them, in table order. */
void stages_affected_by(const char *setting, struct strlist *out);

/* One source of a run: a row of source_table; a SRC_POOL row once per
 * task of POOL_TASKS (pool: its number from 1, else 0). */
struct source_at {
	const struct source_def *def;
	int pool;
};
/* The run's sources in table order; returns how many, *out is the
 * caller's to free. */
size_t run_sources(const struct run *r, struct source_at **out);
/* The source's stamp, run-relative ("inputs/pool/tr-b.src.hash"); caller frees. */
char *source_stamp(const struct run *r, const struct source_at *src);
/* The path a source hashes (as the user would write it); caller frees. */
char *source_path(const struct run *r, const struct source_at *src);
/* The current hash of a source (a tree, hash_tree_cached with its cache
 * beside the stamp, rewritten when update; a missing tree hashes as
 * "absent:<what>" so the stage that needs it runs and says so). */
int source_hash(const struct run *r, const struct source_at *src, bool update, char out[33],
                struct err *e);

#endif
