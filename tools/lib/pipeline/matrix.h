/* matrix.h — which runs a command is about: one (task=, HARNESS=, MODEL=),
 * a matrix of lists (tasks= × harnesses= × models=), a MATRIX=file.yaml
 * (the same lists, or a Harbor job config's agents × datasets), narrowed by
 * TASK_FILTER (substrings), HARNESS_FILTER and MODEL_FILTER (exact names).
 * Every combination is one run with its own folder:
 * RESULTS/<task>--<harness>--<model-slug>, or RUN_DIR for a single run;
 * with SKILL_SOURCE the name ends in --src-<skill>-<hash> (skill/source.h). */
#ifndef SKILLC_PIPELINE_MATRIX_H
#define SKILLC_PIPELINE_MATRIX_H

#include <cJSON.h>

#include "base/util.h"

struct run_spec {
	char *task;
	char *tasks_dir; /* from a Harbor dataset path; NULL: the command's TASKS_DIR */
	char *harness;
	char *model;     /* "" for none */
	char *dir;       /* the run folder */
};

struct matrix {
	struct run_spec *v;
	size_t n, cap;
	char *repeat;    /* a Harbor config's n_attempts, NULL when none */
};

/* Maps a Harbor agent name (claude-code) to a harness (claude-agent-acp);
 * NULL when none does. Caller frees. */
typedef char *(*matrix_agent_fn)(const char *agent, void *arg);

/* Expands the command's settings (name -> string, checked) into runs, in a
 * stable order (task, harness, model). No task at all gives no runs. */
int matrix_expand(const cJSON *values, matrix_agent_fn agent, void *arg, struct matrix *m, struct err *e);
/* Every run folder under results (a folder holding settings.json), sorted. */
int matrix_find_runs(const char *results, struct matrix *m, struct err *e);
void matrix_free(struct matrix *m);

/* "vllm/Qwen/Q:1@x" -> "vllm_Qwen_Q_1_x" ("no-model" for ""); caller frees. */
char *model_slug(const char *model);

#endif
