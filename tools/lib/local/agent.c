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
	if (fs_read(log, 1 << 20, &b, &e) == 0 && b.data) {
		char *save = NULL;
		for (char *l = strtok_r(b.data, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save))
			if (!strncmp(l, "bwrap:", 6) || !strncmp(l, SUPERVISOR_FAILURE, strlen(SUPERVISOR_FAILURE)))
				found = xstrdup(l);
	}
	buf_free(&b);
	return found;
}

void local_agent_run(struct local_trial *t)
{
	struct err e = { 0 };
	int logfd = open(t->agent_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct strlist inner = STRLIST_INIT;
	for (size_t i = 0; i < t->agent_argv.n; i++)
		strlist_push(&inner, t->agent_argv.v[i]);
	strlist_push(&inner, t->program);
	for (size_t i = 1; i < t->h.argv.n; i++)
		strlist_push(&inner, t->h.argv.v[i]);
	struct strlist cmd = STRLIST_INIT;
	struct sandbox_run run = { .share_net = t->share_net, .cwd = t->task.workdir };
	sandbox_command(&t->sb, &run, inner.v, &cmd);
	struct acp_fs fs = { &t->sb, sandbox_fs_open };
	struct acp_spec spec = {
		.argv = cmd.v,
		.envp = t->agent_env.v,
		.session_cwd = t->task.workdir,
		.prompt = t->task.instruction,
		.timeout = t->task.agent_timeout,
		/* BenchFlow allows 60 s for the handshake; never more than the agent's own budget */
		.handshake_timeout = t->task.agent_timeout < 60 ? t->task.agent_timeout : 60,
		.idle_timeout = t->o->idle_timeout,
		.stderr_fd = logfd,
		.fs = &fs,
		.relay = t->relay,
	};
	t->ran_agent = true;
	if (acp_run(&spec, &t->acp, &e) < 0)
		local_trial_error(t, "infra_failure", "%s", e.msg);
	if (logfd >= 0)
		close(logfd);
	strlist_free(&cmd);
	strlist_free(&inner);
	struct acp_result *a = &t->acp;
	char *why = NULL;
	switch (a->status) {
	case ACP_DONE:
		break;
	case ACP_TIMEOUT:
		local_trial_error(t, "timeout", "%s", a->message);
		break;
	case ACP_IDLE:
		local_trial_error(t, "idle_timeout", "%s", a->message);
		break;
	case ACP_CLOSED:
	case ACP_NOT_STARTED:
		why = a->handshake_done ? NULL : startup_failure(t->agent_log);
		if (why || a->status == ACP_NOT_STARTED) {
			local_trial_sandbox_failure(t, why ? why : a->message);
		} else {
			local_trial_error(t, "pipe_closed", "%s", a->message);
			t->transport_info = cJSON_CreateObject();
			cJSON_AddStringToObject(t->transport_info, "reason", "transport_closed");
			cJSON_AddNumberToObject(t->transport_info, "process_exit_code", a->exit_code);
			cJSON_AddStringToObject(t->transport_info, "transport_diagnosis",
						a->term_signal ? "agent process killed by a signal" : "agent process exited");
		}
		free(why);
		break;
	case ACP_PROTOCOL:
		local_trial_error(t, "acp_error", "%s", a->message);
		break;
	case ACP_INTERRUPTED:
		break;
	}
	if (a->status == ACP_TIMEOUT || a->status == ACP_IDLE) {
		cJSON *l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "type", "agent_timeout");
		cJSON_AddStringToObject(l, "reason", a->status == ACP_TIMEOUT ? "wall_clock_timeout" : "idle_timeout");
		cJSON_AddNumberToObject(l, "timeout_sec", a->status == ACP_TIMEOUT ? t->task.agent_timeout : t->o->idle_timeout);
		cJSON_AddItemToObject(l, "pending_tool_call_ids", acp_traj_pending(&a->traj));
		cJSON_AddBoolToObject(l, "terminal_trajectory_complete", a->prompt_answered);
		cJSON_AddItemToArray(a->traj.lines, l);
	}
}

