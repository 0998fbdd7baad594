/* acp.h — an Agent Client Protocol client: runs an agent's ACP server as a
 * child (in its own process group), speaks JSON-RPC 2.0 over its stdio
 * (initialize, session/new, session/prompt), answers the agent's requests
 * (permission: allow, since everything runs inside the sandbox; fs reads
 * and writes through the caller's sandboxed opener; terminals are not
 * offered), and records every session/update as BenchFlow's
 * acp_trajectory.jsonl lines. Deadlines: handshake, wall clock from the
 * prompt on, and idleness (no message, thought or tool call). Whatever
 * the agent does, acp_run returns with the whole process group ended. */
#ifndef SKILLC_LOCAL_ACP_H
#define SKILLC_LOCAL_ACP_H

#include <stdbool.h>
#include <sys/types.h>
#include <cJSON.h>

#include "local/relay.h"
#include "base/util.h"

/* The trajectory as BenchFlow writes it: one line per user prompt, per
 * merged run of message or thought chunks, per tool call (title from its
 * first notification, repaired from its input when that was the bare tool
 * name; the latest kind, status and content), and agent_timeout. */
struct acp_traj {
	cJSON *lines;   /* array of line objects, in order */
	cJSON *inputs;  /* tool_call_id -> latest rawInput (never written out) */
	cJSON *first;   /* tool_call_id -> first title */
};
void acp_traj_init(struct acp_traj *t);
void acp_traj_free(struct acp_traj *t);
void acp_traj_user(struct acp_traj *t, const char *text);
/* Feeds one session/update "update" object; returns 1 when it was agent
 * activity (message, thought, tool call), else 0. */
int acp_traj_update(struct acp_traj *t, const cJSON *update);
/* Settles titles and kinds (call once, after the last update). */
void acp_traj_finish(struct acp_traj *t);
/* Ids of tool calls still pending or in progress; caller frees the array. */
cJSON *acp_traj_pending(const struct acp_traj *t);
int acp_traj_tool_calls(const struct acp_traj *t);
int acp_traj_skill_calls(const struct acp_traj *t);
/* The JSONL text (lines joined by "\n", none after the last). */
void acp_traj_text(const struct acp_traj *t, struct buf *out);

/* Serves the agent's fs/ requests; NULL: fs is not advertised. */
struct acp_fs {
	void *ctx;
	int (*open)(void *ctx, const char *path, int flags, mode_t mode, struct err *e);
};

struct acp_spec {
	char *const *argv;        /* the ACP server command (argv[0] looked up in PATH) */
	char *const *envp;        /* its whole environment */
	const char *session_cwd;  /* cwd for session/new, as the agent sees it */
	const char *prompt;
	double handshake_timeout; /* initialize + session/new; 0: 60 s */
	double timeout;           /* wall clock from the prompt on; 0: none */
	double idle_timeout;      /* 0: none */
	double grace;             /* after the end: time to exit before SIGTERM/SIGKILL; 0: 2 s */
	int stderr_fd;            /* the agent's stderr (and our notes on its stdout) */
	const struct acp_fs *fs;
	struct relay *relay;      /* serviced while the agent runs; may be NULL */
};

enum acp_status {
	ACP_DONE,         /* the prompt got its response */
	ACP_TIMEOUT,      /* wall clock */
	ACP_IDLE,         /* idle timeout */
	ACP_CLOSED,       /* the agent closed stdout / exited early */
	ACP_PROTOCOL,     /* garbage, error responses, handshake deadline */
	ACP_NOT_STARTED,  /* could not be started at all */
	ACP_INTERRUPTED,  /* we got SIGINT/SIGTERM/SIGHUP */
};

struct acp_result {
	enum acp_status status;
	char message[512];        /* BenchFlow-style error text when not DONE */
	char *agent_name, *agent_version, *stop_reason; /* owned; NULL when unknown */
	bool exited;              /* the agent's exit status is known */
	int exit_code, term_signal;
	int interrupted;          /* the signal we got, for ACP_INTERRUPTED */
	bool usage_known;
	double in_tokens, out_tokens, total_tokens, cache_read_tokens, cache_write_tokens;
	int garbage_lines;
	bool handshake_done, prompt_answered;
	double setup_sec, exec_sec, idle_sec;
	struct acp_traj traj;
};

/* The framing of an agent's stdout: newline-delimited messages arriving in
 * pieces. Appends the n bytes to in and calls fn with every line now
 * complete (NUL-terminated, without its '\n'); the unfinished tail stays in
 * in. *scanned (start at 0) counts the tail's bytes already searched, so a
 * long line arriving in many pieces is searched once: linear in its length. */
typedef void acp_line_fn(void *ctx, char *line, size_t len);
void acp_frame(struct buf *in, size_t *scanned, const char *bytes, size_t n, acp_line_fn *fn, void *ctx);

/* Runs the agent to its end. Returns 0 when it ran (see r->status),
 * -1 only for errors of our own (pipes, fork). Free r with acp_result_free. */
int acp_run(const struct acp_spec *s, struct acp_result *r, struct err *e);
void acp_result_free(struct acp_result *r);

#endif
