/* rollout.h — one trial of the local runner (skillc-local): its
 * options, the task, harness, route and sandbox, its folders, timings and
 * outcome. The runner's modules fill it in turn: setup.h builds the
 * sandbox, agent.h runs the agent, verifier.h scores it, and
 * layout.h writes it in BenchFlow's layout. */
#ifndef SKILLC_LOCAL_ROLLOUT_H
#define SKILLC_LOCAL_ROLLOUT_H

#include <stdbool.h>
#include <cJSON.h>

#include "local/acp.h"
#include "local/launch.h"
#include "local/modelroute.h"
#include "local/relay.h"
#include "local/sandbox.h"
#include "local/task.h"
#include "base/util.h"

/* The PATH of every process in the sandbox: the host's system folders. */
extern const char local_sandbox_path[];

/* The `bench eval run` flags skillc-local takes. */
struct local_opts {
	const char *tasks_dir, *agent, *model, *jobs_dir, *skills_dir;
	const char *skill_mode;   /* "no-skill" or "with-skill" */
	cJSON *override;          /* merged --config-override values */
	struct strlist agent_env; /* --agent-env KEY=VALUE */
	double idle_timeout;      /* 0: none */
	bool quiet;
};

struct local_trial {
	const struct local_opts *o;
	struct task task;
	struct launch h;
	struct model_route route;
	enum sandbox_mode mode;
	char *bwrap;
	struct sandbox sb;
	char *jobs, *job_dir, *job_name, *rollout, *dir; /* dir = job_dir/rollout; jobs: --jobs-dir, absolute */
	char *scratch;          /* the sandbox's host side: jobs/.skillc-local/rollout */
	char *agent_log;        /* dir/agent/<harness>.txt */
	char *skill_source, *effective_skills;
	bool share_net;         /* the agent uses the host's network */
	char *program;          /* the harness program, resolved */
	struct strlist agent_argv; /* the supervisor's command line before the harness's */
	struct strlist agent_env;  /* holds the model key */
	struct relay *relay;
	double t_start, t_env, t_verifier; /* now_mono() at the start; seconds */
	char started_at[32];
	/* outcome */
	struct acp_result acp;
	bool ran_agent;
	char *error, *error_category;
	cJSON *sandbox_info, *transport_info;
	cJSON *rewards;
	char *verifier_error, *verifier_category;
	cJSON *verifier_timeout_info;
};

/* Records the trial's error (BenchFlow's error and error_category); the
 * first one recorded stays. */
void local_trial_error(struct local_trial *t, const char *category, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records a sandbox_setup error with BenchFlow's sandbox_startup_info. */
void local_trial_sandbox_failure(struct local_trial *t, const char *msg);

/* Replaces the model key wherever it occurs in the trial folder's files and
 * names (an agent can print its environment into its output, log,
 * artifacts or a file name): base/redact.h. */
int local_trial_redact(const struct local_trial *t, struct err *e);

void local_trial_free(struct local_trial *t);

#endif
