/* reader.h — the insides shared by the trial readers (not for other
 * folders): trial.c finds the runner's result.json files and picks one,
 * benchflow.c and harbor.c turn it into trial.json's facts with
 * the helpers of reader.c. */
#ifndef SKILLC_EVAL_READER_H
#define SKILLC_EVAL_READER_H

#include <stdbool.h>
#include <time.h>
#include <cJSON.h>

#include "eval/harness.h"
#include "eval/trialrec.h"

enum cand_kind { C_BENCHFLOW, C_HARBOR, C_FLAT, C_HARBOR_JOB, C_UNKNOWN };

struct cand {
	char *dir;       /* the folder holding result.json */
	cJSON *res;
	enum cand_kind kind;
	struct timespec mtime;
};

/* One parse: the options, the trial being built and its problems. */
struct ctx {
	const struct trial_opts *o;
	const char *base;
	cJSON *t;
	cJSON *problems;
	const struct harness *h;
	struct harness own;
	bool own_loaded;
	struct skill_use use;
	long events, tool_events;
	/* LLM usage summed over exchanges, for results that lack agent_result */
	double llm_in, llm_out, llm_total;
	long llm_usage_lines;
};

/* A key of result.json and the JSON type it must have when present
 * (null is always allowed: "not known"). */
struct typed_key {
	const char *path; /* "rewards.reward": one level of nesting */
	int type;         /* cJSON_String, cJSON_Number, cJSON_Object */
};


/* null when absent or not a number */
const cJSON *tr_num_or_null(const cJSON *v);
void tr_set_num_or_null(cJSON *obj, const char *key, const cJSON *v);
void tr_set_str_or_null(cJSON *obj, const char *key, const char *s);
/* path relative to base; the folder of path; callers free */
char *tr_rel_to(const char *base, const char *path);
char *tr_dir_of(const char *path);
/* The job folder's own file name (BenchFlow's summary.json, Harbor's
 * result.json) of the trial folder dir, as files.summary; a problem when it
 * is missing (the run did not finish) or not JSON. Returns it parsed
 * (caller frees), or NULL. */
cJSON *tr_read_job_file(struct ctx *c, const char *dir, const char *name);
/* A data problem of the trial (it makes the trial incomplete). */
void tr_problem(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* files.<key> = path relative to base, or null */
void tr_set_file(struct ctx *c, const char *key, const char *path);
/* The harness whose patterns detect skill use; a missing one is a problem. */
void tr_find_harness(struct ctx *c, const char *agent);
/* One ACP trajectory line: counted and scanned for skill use. */
void tr_on_acp(const cJSON *v, long line, void *arg);
/* The trajectories: files.acp_trajectory / llm_trajectory set, lines read. */
void tr_read_acp(struct ctx *c, const char *path, bool agent_ran);
void tr_read_llm(struct ctx *c, const char *path);
void tr_names_array(cJSON *obj, const char *key, const struct strlist *l);
/* "skill": what was injected, invoked, read (runner_count: the runner's own count). */
void tr_set_skill(struct ctx *c, const cJSON *runner_count);
/* "outcome" and "passed" by BenchFlow's rules (trial_outcome_of). */
void tr_set_outcome(struct ctx *c, const cJSON *reward, enum trial_outcome o);
/* verifier/reward.json or reward.txt under rollout, compared with reward. */
void tr_read_verifier_reward(struct ctx *c, const char *rollout, const cJSON *reward);
/* "tokens" summed from the LLM trajectory (results without agent_result). */
void tr_set_tokens_from_llm(struct ctx *c);
/* A problem for each key of res (read from file) present with a type
 * other than its own. */
void tr_check_types(struct ctx *c, const char *file, const cJSON *res, const struct typed_key *keys,
		    size_t n);

/* The readers: best is the chosen result.json. */
void read_benchflow(struct ctx *c, const struct cand *best, long retries, const struct strlist *attempts);
void read_harbor(struct ctx *c, const struct cand *best);
/* Our own record (the local runner's): rec is dir/trial.json. */
bool own_record_is(const cJSON *rec);
void read_own(struct ctx *c, const char *dir, const cJSON *rec);

#endif
