/* job.h — one evaluation trial as skillc-eval sees it: what was asked
 * (struct eval_opts, from the command line), what that resolves to
 * (absolute folders, checked names, the harness, content hashes and the
 * trial-store key), and its "[i/N] task stage test-NNN ..." progress lines. */
#ifndef SKILLC_EVAL_JOB_H
#define SKILLC_EVAL_JOB_H

#include <stdbool.h>
#include <cJSON.h>

#include "eval/harness.h"
#include "base/util.h"

/* What was asked; strings are borrowed (argv). */
struct eval_opts {
	const char *task, *harness, *model, *runner, *out, *stage, *incomplete, *cache, *env_file, *rules;
	const char *sandbox;
	const char *image;     /* local runner, docker sandbox: the trial image (NULL: the runner builds it) */
	const char *split;     /* a namespace in the trial's key (e.g. "final"): never a store hit for another split */
	struct strlist skills; /* skill folders */
	bool no_skill, no_cache, require_skill;
	long index, of, attempts;
	double agent_timeout, deadline;  /* seconds; 0: not given */
	double handshake_timeout;        /* local runner; 0: its default; not in the key */
};

/* Everything one trial needs once the options are checked. */
struct eval_job {
	struct eval_opts *o;
	char *task_dir, *task, *out, *stage, *test, *incomplete, *rules_dir;
	struct strlist skill_names;  /* skill_names.v[i] names o->skills.v[i] */
	struct harness h;
	char task_hash[33], skill_hash[33], key[33];
	cJSON *identity;   /* what key hashes (store.h) */
	double start;      /* now_mono() at setup */
	char prefix[256];  /* "[i/N] task stage test-NNN" */
};

/* Appends every child folder of root holding a SKILL.md, in name order
 * (--skills-root). ERR_INPUT when root cannot be read or holds none. */
int eval_add_skills_root(struct strlist *skills, const char *root, struct err *e);

/* Checks o against the disk and fills j: o->index defaults to the NNN of
 * test-NNN, the out folder's parent is created. ERR_INPUT for a task
 * without tests/test.sh, a bad name, a skill without SKILL.md or an
 * unknown harness. j is freed with eval_job_free even on error. */
int eval_job_setup(struct eval_job *j, struct eval_opts *o, struct err *e);
void eval_job_free(struct eval_job *j);

/* The trial's task, its hashes, harness, model and runner into o: the
 * identity the key is made of and trial.json both carry them. */
void eval_job_set_who(const struct eval_job *j, cJSON *o);

/* The hard limit of the whole trial in seconds: --deadline, else
 * 2 * agent timeout + 900, else 14400. */
double eval_deadline(const struct eval_opts *o);

/* "<prefix> <message>" on stdout, in one write so the lines of parallel
 * trials stay whole. */
void eval_progress(const struct eval_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
