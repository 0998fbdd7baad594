#include "local/agent.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "local/supervisor.h"

static int sandbox_fs_open(void *ctx, const char *path, int flags, mode_t mode, struct err *e)
{
	return sandbox_open(ctx, path, flags, mode, e);
}

/* What the agent's stderr says when bwrap or our supervisor could not start. */
static char *startup_failure(const char *log)
{
	struct buf b = BUF_INIT;
	struct err e;
	char *found = NULL;
	if (fs_read(log, 1 << 20, &b, &e) == 0 && b.len) {
		char *save = NULL;
		for (char *l = strtok_r(b.data, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save))
			if (!strncmp(l, "bwrap:", 6) || !strncmp(l, SUPERVISOR_FAILURE, strlen(SUPERVISOR_FAILURE)))
				found = xstrdup(l);
	}
	buf_free(&b);
	return found;
}

/* The harness under its supervisor, as a command line of the box. */
static void agent_command(const struct local_trial *t, struct strlist *cmd, struct strlist *env)
{
	struct strlist inner = STRLIST_INIT;
	for (size_t i = 0; i < t->box.agent_argv.n; i++)
		strlist_push(&inner, t->box.agent_argv.v[i]);
	strlist_push(&inner, t->box.program);
	for (size_t i = 1; i < t->h.argv.n; i++)
		strlist_push(&inner, t->h.argv.v[i]);
	struct box_run run = { .share_net = t->box.share_net, .cwd = t->task.workdir, .interactive = true };
	box_command(&t->box, &run, inner.v, &t->box.agent_env, cmd, env);
	strlist_free(&inner);
}

/* An agent that closed its pipe: a sandbox that never started, or BenchFlow's pipe_closed. */
static void record_closed(struct agent_outcome *out, const char *agent_log)
{
	const struct acp_result *a = &out->acp;
	char *why = a->handshake_done ? NULL : startup_failure(agent_log);
	if (why || a->status == ACP_NOT_STARTED) {
		agent_outcome_sandbox_failure(out, why ? why : a->message);
		free(why);
		return;
	}
	agent_outcome_error(out, "pipe_closed", "%s", a->message);
	out->transport_info = cJSON_CreateObject();
	cJSON_AddStringToObject(out->transport_info, "reason", "transport_closed");
	cJSON_AddNumberToObject(out->transport_info, "process_exit_code", a->exit_code);
	cJSON_AddStringToObject(out->transport_info, "transport_diagnosis",
				a->term_signal ? "agent process killed by a signal" : "agent process exited");
}

/* How the agent ended, as BenchFlow names it. */
static void record_end(struct agent_outcome *out, const char *agent_log)
{
	const struct acp_result *a = &out->acp;
	switch (a->status) {
	case ACP_DONE:
	case ACP_INTERRUPTED:
		break;
	case ACP_TIMEOUT:
		agent_outcome_error(out, "timeout", "%s", a->message);
		break;
	case ACP_IDLE:
		agent_outcome_error(out, "idle_timeout", "%s", a->message);
		break;
	case ACP_CLOSED:
	case ACP_NOT_STARTED:
		record_closed(out, agent_log);
		break;
	case ACP_PROTOCOL:
		agent_outcome_error(out, "acp_error", "%s", a->message);
		break;
	}
}

/* BenchFlow's agent_timeout trajectory line. */
static void add_timeout_line(struct acp_result *a, double timeout_sec)
{
	cJSON *l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "type", "agent_timeout");
	cJSON_AddStringToObject(l, "reason", a->status == ACP_TIMEOUT ? "wall_clock_timeout" : "idle_timeout");
	cJSON_AddNumberToObject(l, "timeout_sec", timeout_sec);
	cJSON_AddItemToObject(l, "pending_tool_call_ids", acp_traj_pending(&a->traj));
	cJSON_AddBoolToObject(l, "terminal_trajectory_complete", a->prompt_answered);
	cJSON_AddItemToArray(a->traj.lines, l);
}

void local_agent_run(struct local_trial *t)
{
	struct err e = { 0 };
	int logfd = open(t->paths.agent_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct strlist cmd = STRLIST_INIT, env = STRLIST_INIT;
	agent_command(t, &cmd, &env);
	/* a container's files are not ours to serve: the agent uses its own tools */
	struct acp_fs fs = { &t->box.sb, sandbox_fs_open };
	/* BenchFlow allows 60 s for the handshake (--agent-handshake-timeout: more where a loaded
	 * machine starts the agent slowly); never more than the agent's own budget */
	double hs = t->o->handshake_timeout > 0 ? t->o->handshake_timeout : 60;
	struct acp_spec spec = {
		.argv = cmd.v,
		.envp = env.v,
		.session_cwd = t->task.workdir,
		.prompt = t->task.instruction,
		.timeout = t->task.agent_timeout,
		.handshake_timeout = t->task.agent_timeout < hs ? t->task.agent_timeout : hs,
		.idle_timeout = t->o->idle_timeout,
		.stderr_fd = logfd,
		.fs = t->box.mode == SANDBOX_CONTAINER ? NULL : &fs,
		.relay = t->box.relay,
	};
	struct agent_outcome *out = &t->agent;
	out->ran = true;
	if (acp_run(&spec, &out->acp, &e) < 0)
		agent_outcome_error(out, "infra_failure", "%s", e.msg);
	if (logfd >= 0)
		close(logfd);
	strlist_free(&cmd);
	for (size_t i = 0; i < env.n; i++)
		memset(env.v[i], 0, strlen(env.v[i])); /* it holds the key */
	strlist_free(&env);
	record_end(out, t->paths.agent_log);
	if (out->acp.status == ACP_TIMEOUT)
		add_timeout_line(&out->acp, t->task.agent_timeout);
	else if (out->acp.status == ACP_IDLE)
		add_timeout_line(&out->acp, t->o->idle_timeout);
}
