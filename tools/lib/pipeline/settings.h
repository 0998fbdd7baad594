/* settings.h — the settings table, and one run: its folder, its task and
 * its settings. make hands a command's settings to skillc-rules as NAME=VALUE
 * arguments, checked against the table before any work; each run records its
 * own (settings.json), which the stage tools read back (run_open_dir). */
#ifndef SKILLC_PIPELINE_SETTINGS_H
#define SKILLC_PIPELINE_SETTINGS_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

enum setting_kind {
	SET_NAME,   /* [A-Za-z0-9][A-Za-z0-9._-]* (empty when the default is) */
	SET_MODEL,  /* provider/model-id: name chars plus '/', ':' and '@' */
	SET_PATH,   /* a path: no spaces, quotes, '$' or other shell/make metacharacters */
	SET_URL,    /* empty or http(s)://... without spaces or quotes */
	SET_INT,    /* a decimal integer in [min, max] */
	SET_ENUM,   /* one of `choices` (space-separated) */
	SET_NAMES,  /* a list of names, separated by spaces */
	SET_MODELS, /* a list of provider/model-ids, separated by spaces */
	SET_DECIMAL, /* a decimal number (digits, one optional '.') in [min, max] */
	SET_USD,    /* an amount of US dollars >= 0 (2, 0.50; empty when the default is) */
	SET_ARGS,   /* command-line options: name chars plus = , : / + @ % ~ [ ] and spaces */
	SET_IMAGE,  /* a docker image reference: name chars plus '/', ':' and '@' (empty when the default is) */
};

/* What a setting belongs to. */
enum setting_scope {
	SCOPE_RUN,      /* the run remembers it (settings.json); a command may change it */
	SCOPE_CALL,     /* this command only: caches, keys, how to report */
	SCOPE_IDENTITY, /* picks the run: its folder (task, harness, model, RESULTS, RUN_DIR) */
};

/* A row of the one settings table. Everything else is generated from it:
 * mk/defaults.mk (the make defaults and `make help`'s settings text) and
 * the table in docs/settings.md (build/gen/settings, run by `make`). */
struct setting_def {
	const char *name;
	enum setting_kind kind;
	const char *def;       /* the default */
	const char *choices;   /* SET_ENUM */
	long min, max;         /* SET_INT, SET_DECIMAL */
	bool result;           /* changes results: part of inputs/config.json */
	const char *help;      /* one line for `make help` and docs/settings.md */
	enum setting_scope scope;
};

extern const struct setting_def settings_table[];
extern const size_t settings_count;
const struct setting_def *setting_find(const char *name);
/* Validates one value; on error names the setting and what is allowed. */
int setting_check(const struct setting_def *s, const char *value, struct err *e);
/* Checks NAME=VALUE arguments against the table (every NAME must be a
 * setting). Stops at the first bad one. */
int settings_check_args(int argc, char **argv, struct err *e);
/* Names given on make's command line that are no setting: the first that
 * looks like one is refused ("REPAET is not a setting: did you mean
 * REPEAT?"); others are the caller's own variables. */
int settings_check_strays(const char *names, struct err *e);

struct run {
	char *dir;       /* the run directory */
	char *task;      /* the task's name */
	char *task_dir;  /* the task folder */
	char *rules_dir; /* the rules data (datadir.h rules_dir) */
	cJSON *values;   /* setting name -> string, every setting in settings_table */
	cJSON *recorded; /* settings.json's "settings" (NULL: a new run); owned */
	struct strlist given; /* settings this command gave explicitly */
	/* goal_refs's answers, a goal each, and stage_refs's (goal ""): they
	 * follow from the settings alone (filled by pipeline/stages.c, freed
	 * by run_free) */
	struct run_goal_memo {
		char *goal;
		void *refs; /* struct stage_ref[n] */
		int n;
	} *goal_memo;
	size_t goal_memo_n;
};

/* The command's values: every setting from its NAME=VALUE arguments,
 * checked, the rest at their defaults. Caller frees. */
int settings_from_args(int argc, char **argv, cJSON **values, struct err *e);

/* Only r->values, every setting from the environment (make exports them),
 * checked: for a tool that needs the settings but no run folder
 * (skillc-doctor); freed with run_free. */
int run_load_settings(struct run *r, struct err *e);

/* One run of a command, in folder dir: the command's values (cmd, every
 * setting) and the names it gave explicitly (given: on make's command line,
 * in local.mk or the environment; the matrix adds task, HARNESS, MODEL). A
 * run remembers its settings (settings.json, written by run_record): one
 * the command did not give takes the recorded value, all but the
 * SCOPE_CALL ones. rules: the rules data folder (NULL: rules_dir()). r is
 * freed with run_free even on error. */
int run_open(struct run *r, const char *dir, const cJSON *cmd, const struct strlist *given, const char *rules,
             struct err *e);
/* The run in dir as its recipes see it (skillc-stage): every setting as
 * recorded, the SCOPE_CALL ones from the environment. */
int run_open_dir(struct run *r, const char *dir, struct err *e);
/* The recorded value of a setting (NULL: none recorded). */
const char *run_recorded(const struct run *r, const char *name);
/* Writes settings.json when the run is new or an explicit value changed a
 * recorded one. Appends "NAME old -> new" to changes for each change.
 * Returns 1 when it wrote, 0 when nothing changed, -1 on error. */
int run_record(struct run *r, struct strlist *changes, struct err *e);
/* "make task=T MODEL=m ... GOAL": a command that reaches this run again with
 * the settings this one used (the ones that name the run, and any given here
 * that the run does not remember), to paste back. Caller frees. */
char *run_command(const struct run *r, const char *goal);
void run_free(struct run *r);
const char *run_get(const struct run *r, const char *name);
long run_get_int(const struct run *r, const char *name);
/* dir + "/" + rel; caller frees. */
char *run_path(const struct run *r, const char *rel);
/* Every result-changing setting plus the task name: inputs/config.json. Caller frees. */
cJSON *run_config(const struct run *r);

#endif
