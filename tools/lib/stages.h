/* stages.h — the stage graph of one run, as data. skillc-rules turns it into
 * rules.mk, skillc-stage runs a stage by name, status and clean-stage walk
 * it. Adding a stage = adding a row here. */
#ifndef SKILLC_STAGES_H
#define SKILLC_STAGES_H

#include "run.h"
#include "util.h"

/* A file make sees change when something outside the run changes: written
 * by skillc-rules at every make, rewritten only when its hash changed. */
struct source_def {
	const char *stamp;  /* run-relative, e.g. "inputs/skill.src.hash" */
	const char *what;   /* task-relative tree it hashes, "" = the whole task */
};

struct stage_def {
	const char *name;
	const char *help;
	const char *tool;         /* the tool doing the work */
	const char *version;      /* its format version (versions.h) */
	const char *after[4];     /* upstream stages */
	const char *inputs[6];    /* run-relative files it reads (stamps, upstream outputs) */
	const char *outputs[6];   /* run-relative outputs, files or directories */
	const char *settings[8];  /* settings it reads: its slice inputs/config/<name>.json */
	/* Appends the command (tool path first) to argv. */
	void (*command)(const struct run *r, const char *bindir, struct strlist *argv);
};

extern const struct source_def source_table[];
extern const size_t source_count;
extern const struct stage_def stage_table[];
extern const size_t stage_count;

const struct stage_def *stage_find(const char *name);
/* True when `up` is `s` or comes before it (transitively). */
int stage_depends_on(const struct stage_def *s, const struct stage_def *up);
/* Is rel one of s's outputs? */
int stage_outputs(const struct stage_def *s, const char *rel);
/* The slice of settings s reads, with the tool's format version. Caller frees. */
cJSON *stage_config(const struct stage_def *s, const struct run *r);
/* "inputs/config/<name>.json"; caller frees. */
char *stage_config_path(const struct stage_def *s);
/* A user goal (ingest, static, eval, final, ...) -> the stages it needs. */
int goal_stages(const char *goal, const struct stage_def **out, size_t max);

/* The current hash of a source (a tree of the task folder; a missing tree
 * hashes as "absent:<path>" so the stage that needs it runs and says so). */
int source_hash(const struct run *r, const struct source_def *src, char out[33], struct err *e);

#endif
