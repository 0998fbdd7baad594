/* rollout.h — one trial of the local runner (skillc-local), as parts that
 * each belong to one concern and are filled by one module:
 *   paths    where its files go            record.h (record_open)
 *   box      what the agent runs in        setup.h, dockersetup.h (box.h)
 *   agent    how the agent's part ended    agent.h (and setup's failures)
 *   verdict  what the verifier said        verifier.h
 *   clock    when things happened          the runner
 * The writer (record.h) only reads a trial: the outcome is decided before. */
#ifndef SKILLC_LOCAL_ROLLOUT_H
#define SKILLC_LOCAL_ROLLOUT_H

#include <stdbool.h>
#include <cJSON.h>

#include "local/acp.h"
#include "local/box.h"
#include "local/launch.h"
#include "local/modelroute.h"
#include "local/relay.h"
#include "local/sandbox.h"
#include "local/task.h"
#include "base/util.h"

/* The PATH of every process in the sandbox: the host's system folders. */
extern const char local_sandbox_path[];
/* HOME, USER, PATH, LANG and TMPDIR of a process in the bubblewrap sandbox
 * (a container has its image's own), as BenchFlow sets them. */
void local_sandbox_env(struct strlist *env);

/* skillc-local's options (docs/local.md#command-line). */
struct local_opts {
	const char *tasks_dir, *agent, *model, *out, *skills_dir;
	const char *skill_mode;   /* "no-skill" or "with-skill" */
	const char *sandbox;      /* --sandbox: "local" (SANDBOX decides) or "docker" */
	const char *image;        /* --image: the trial image for docker; NULL: build it */
	cJSON *override;          /* merged --config-override values */
	struct strlist agent_env; /* --agent-env KEY=VALUE */
	double idle_timeout;      /* 0: none */
	double handshake_timeout; /* --agent-handshake-timeout; 0: BenchFlow's 60 s */
	bool quiet;
};

/* Where a trial's files go (record.h). */
struct rollout_paths {
	char *dir;       /* --out, absolute: the trial's record */
	char *rollout;   /* <task>__<8 hex>: names the sandbox and container */
	char *agent_log; /* dir/agent/<harness>.txt */
	char *scratch;   /* the sandbox's host side: dir/.skillc-local/<rollout> */
};

/* How the agent's part ended: BenchFlow's error and error_category. */
struct agent_outcome {
	struct acp_result acp;
	bool ran;                  /* the agent was started */
	char *error, *category;    /* the first error recorded; NULL: none */
	cJSON *sandbox_info, *transport_info;
};

/* What the verifier said. */
struct verdict {
	bool ran;
	double seconds;
	cJSON *rewards;            /* {"reward": float, ...}; NULL: unscored */
	char *error, *category;    /* verifier_error(_category) */
	cJSON *timeout_info;
};

struct trial_clock {
	double start;              /* now_mono() at the start */
	double env;                /* seconds spent setting up the sandbox */
	char started_at[32];
};

struct local_trial {
	const struct local_opts *o;
	struct task task;
	struct launch h;
	struct model_route route;
	struct rollout_paths paths;
	struct trial_box box;
	struct trial_clock clock;
	struct agent_outcome agent;
	struct verdict verdict;
};

/* Records the trial's error (BenchFlow's error and error_category); the
 * first one recorded stays. */
void agent_outcome_error(struct agent_outcome *a, const char *category, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records a sandbox_setup error with BenchFlow's sandbox_startup_info. */
void agent_outcome_sandbox_failure(struct agent_outcome *a, const char *msg);
/* True when the agent's part ended at a time limit (the verifier still runs). */
bool agent_outcome_timed_out(const struct agent_outcome *a);

/* True when the verifier gave a reward (the trial is scored). */
bool verdict_scored(const struct verdict *v);
/* The first line of the verifier's output (rollout_dir/verifier/test-stdout.txt)
 * holding one of marks, or NULL. Caller frees. */
char *verifier_line(const char *rollout_dir, const char *const *marks, size_t nmarks);

/* Decides what the verifier's word counts for. A trial whose box could
 * not reproduce the task's environment (a sandbox over the host's
 * programs, the Dockerfile's RUN/ENV/... steps dropped) that did not pass
 * and where the environment is to blame (the verifier's output or the
 * agent's tool results say a program or module was not found) is not the
 * agent's failure: it becomes the infra error
 * environment_not_reproduced, saying why, excluded from pass rates. A
 * trial with no such sign keeps its verdict; config.json marks its
 * environment not reproduced either way. Under any sandbox, a trial that
 * did not pass whose verifier could not set itself up (its output says its
 * installer reached no network or its test runner is absent) becomes the
 * infra error verifier_setup, quoting that line. */
void local_trial_judge(struct local_trial *t);

/* Replaces the model key wherever it occurs in the trial folder's files and
 * names (an agent can print its environment into its output, log,
 * artifacts or a file name): base/redact.h. */
int local_trial_redact(const struct local_trial *t, struct err *e);

void local_trial_free(struct local_trial *t);

#endif
