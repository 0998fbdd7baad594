#include "local/acp.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/proc.h"
#include "base/pyjson.h"

/* ---- trajectory ---- */

void acp_traj_init(struct acp_traj *t)
{
	t->lines = cJSON_CreateArray();
	t->inputs = cJSON_CreateObject();
	t->first = cJSON_CreateObject();
}

void acp_traj_free(struct acp_traj *t)
{
	cJSON_Delete(t->lines);
	cJSON_Delete(t->inputs);
	cJSON_Delete(t->first);
	memset(t, 0, sizeof *t);
}

static cJSON *last_line(const struct acp_traj *t)
{
	cJSON *c = t->lines->child;
	return c ? c->prev : NULL; /* cJSON keeps the last item in child->prev */
}

void acp_traj_user(struct acp_traj *t, const char *text)
{
	cJSON *l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "type", "user_message");
	cJSON_AddStringToObject(l, "text", text);
	cJSON_AddItemToArray(t->lines, l);
}

static void add_text(struct acp_traj *t, const char *type, const cJSON *content)
{
	const char *text = json_str(content, "text");
	if (!text || (json_str(content, "type") && strcmp(json_str(content, "type"), "text")))
		return;
	cJSON *last = last_line(t);
	if (last && !strcmp(json_str(last, "type"), type)) {
		cJSON *old = json_get(last, "text");
		char *joined = xasprintf("%s%s", old->valuestring, text);
		json_set_str(last, "text", joined);
		free(joined);
		return;
	}
	cJSON *l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "type", type);
	cJSON_AddStringToObject(l, "text", text);
	cJSON_AddItemToArray(t->lines, l);
}

static cJSON *find_tool(const struct acp_traj *t, const char *id)
{
	for (cJSON *l = t->lines ? t->lines->child : NULL; l; l = l->next) {
		const char *lid = json_str(l, "tool_call_id");
		if (lid && !strcmp(lid, id) && !strcmp(json_str(l, "type"), "tool_call"))
			return l;
	}
	return NULL;
}

static void tool_update(struct acp_traj *t, const cJSON *u, bool is_new)
{
	const char *id = json_str(u, "toolCallId");
	if (!id)
		return;
	cJSON *l = find_tool(t, id);
	if (!l) {
		l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "type", "tool_call");
		cJSON_AddStringToObject(l, "tool_call_id", id);
		cJSON_AddStringToObject(l, "kind", "other");
		cJSON_AddStringToObject(l, "title", "");
		cJSON_AddStringToObject(l, "status", "pending");
		cJSON_AddItemToObject(l, "content", cJSON_CreateArray());
		cJSON_AddItemToArray(t->lines, l);
	}
	(void)is_new;
	const char *title = json_str(u, "title");
	if (title && !json_get(t->first, id)) {
		cJSON_AddStringToObject(t->first, id, title);
		json_set_str(l, "title", title);
	}
	const char *kind = json_str(u, "kind");
	if (kind && *kind)
		json_set_str(l, "kind", kind);
	const char *status = json_str(u, "status");
	if (status && *status)
		json_set_str(l, "status", status);
	cJSON *content = json_get(u, "content");
	if (cJSON_IsArray(content) && content->child)
		json_set(l, "content", cJSON_Duplicate(content, true));
	cJSON *raw = json_get(u, "rawInput");
	if (cJSON_IsObject(raw) && raw->child)
		json_set(t->inputs, id, cJSON_Duplicate(raw, true));
}

int acp_traj_update(struct acp_traj *t, const cJSON *u)
{
	const char *what = json_str(u, "sessionUpdate");
	if (!what)
		return 0;
	if (!strcmp(what, "agent_message_chunk")) {
		add_text(t, "agent_message", json_get(u, "content"));
		return 1;
	}
	if (!strcmp(what, "agent_thought_chunk")) {
		add_text(t, "agent_thought", json_get(u, "content"));
		return 1;
	}
	if (!strcmp(what, "tool_call") || !strcmp(what, "tool_call_update")) {
		tool_update(t, u, !strcmp(what, "tool_call"));
		return 1;
	}
	return 0; /* plans, commands, modes, echoes of our prompt */
}

/* A title that is just a tool's name ("read", "bash", "skill"). */
static bool bare_name(const char *s)
{
	if (!*s || strlen(s) > 40)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && *s != '_' && *s != '-' && !isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A copy with object keys sorted at every level (json.dumps sort_keys). */
static cJSON *sorted(const cJSON *v)
{
	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return cJSON_Duplicate(v, true);
	cJSON *out = cJSON_IsObject(v) ? cJSON_CreateObject() : cJSON_CreateArray();
	size_t n = 0;
	for (const cJSON *c = v->child; c; c = c->next)
		n++;
	const cJSON **kids = xcalloc(n ? n : 1, sizeof *kids);
	n = 0;
	for (const cJSON *c = v->child; c; c = c->next)
		kids[n++] = c;
	if (cJSON_IsObject(v)) {
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && strcmp(kids[j - 1]->string, kids[j]->string) > 0; j--) {
				const cJSON *tmp = kids[j];
				kids[j] = kids[j - 1];
				kids[j - 1] = tmp;
			}
	}
	for (size_t i = 0; i < n; i++) {
		if (cJSON_IsObject(v))
			cJSON_AddItemToObject(out, kids[i]->string, sorted(kids[i]));
		else
			cJSON_AddItemToArray(out, sorted(kids[i]));
	}
	free(kids);
	return out;
}

static bool starts_skill_envelope(const cJSON *content)
{
	for (const cJSON *c = content ? content->child : NULL; c; c = c->next) {
		const char *text = json_str(json_get(c, "content"), "text");
		if (!text)
			continue;
		while (isspace((unsigned char)*text))
			text++;
		if (!strncmp(text, "<skill_content", 14) || !strncmp(text, "## Skill:", 9) ||
		    !strncmp(text, "Launching skill:", 16))
			return true;
	}
	return false;
}

void acp_traj_finish(struct acp_traj *t)
{
	for (cJSON *l = t->lines ? t->lines->child : NULL; l; l = l->next) {
		if (strcmp(json_str(l, "type"), "tool_call"))
			continue;
		const char *id = json_str(l, "tool_call_id");
		const char *first = json_str(t->first, id);
		const char *kind = json_str(l, "kind");
		char *base = xstrdup(first ? first : "");
		/* BenchFlow's canonical skill kind for unclassified calls */
		if ((!*kind || !strcmp(kind, "other") || !strcmp(kind, "tool")) &&
		    (!strcmp(base, "skill") || starts_skill_envelope(json_get(l, "content"))))
			json_set_str(l, "kind", "skill");
		cJSON *input = json_get(t->inputs, id);
		if (bare_name(base) && input) {
			const char *cmd = json_str(input, "command");
			if (!strcmp(json_str(l, "kind"), "execute") && cmd) {
				json_set_str(l, "title", cmd);
			} else {
				struct buf b = BUF_INIT;
				cJSON *s = sorted(input);
				buf_printf(&b, "%s ", base);
				pyjson_print(s, -1, &b);
				cJSON_Delete(s);
				json_set_str(l, "title", b.data);
				buf_free(&b);
			}
		}
		free(base);
	}
}

cJSON *acp_traj_pending(const struct acp_traj *t)
{
	cJSON *ids = cJSON_CreateArray();
	for (cJSON *l = t->lines ? t->lines->child : NULL; l; l = l->next) {
		const char *st = json_str(l, "status");
		if (!strcmp(json_str(l, "type"), "tool_call") && st &&
		    (!strcmp(st, "pending") || !strcmp(st, "in_progress")))
			cJSON_AddItemToArray(ids, cJSON_CreateString(json_str(l, "tool_call_id")));
	}
	return ids;
}

int acp_traj_tool_calls(const struct acp_traj *t)
{
	int n = 0;
	for (cJSON *l = t->lines ? t->lines->child : NULL; l; l = l->next)
		n += !strcmp(json_str(l, "type"), "tool_call");
	return n;
}

int acp_traj_skill_calls(const struct acp_traj *t)
{
	int n = 0;
	for (cJSON *l = t->lines ? t->lines->child : NULL; l; l = l->next)
		n += !strcmp(json_str(l, "type"), "tool_call") && !strcmp(json_str(l, "kind"), "skill");
	return n;
}

void acp_traj_text(const struct acp_traj *t, struct buf *out)
{
	for (cJSON *l = t->lines ? t->lines->child : NULL; l; l = l->next) {
		if (l != t->lines->child)
			buf_addc(out, '\n');
		pyjson_print(l, -1, out);
	}
	buf_add(out, "", 0);
}

/* ---- the client ---- */

#define ACP_MAX_LINE (32u << 20)
#define ACP_MAX_GARBAGE 100
#define ACP_MAX_FILE (16u << 20)

enum { ST_INIT, ST_SESSION, ST_PROMPT, ST_ANSWERED };

struct conn {
	const struct acp_spec *s;
	struct acp_result *r;
	pid_t pid;
	int to_agent, from_agent;  /* our pipe ends, non-blocking */
	struct buf in, out;
	size_t in_scanned;         /* bytes of in known to hold no '\n' (acp_frame) */
	int state;
	char *session;
	double start, prompt_at, last_activity;
	bool stopping, reaped;
	double term_at, kill_at;
	int status;                /* from waitpid */
};

static void send_msg(struct conn *c, cJSON *msg)
{
	cJSON_AddItemToObject(msg, "jsonrpc", cJSON_CreateString("2.0"));
	/* keep "jsonrpc" first, as every client does */
	cJSON *j = cJSON_DetachItemFromObject(msg, "jsonrpc");
	cJSON_AddItemToObject(msg, "jsonrpc", j);
	char *text = cJSON_PrintUnformatted(msg);
	buf_adds(&c->out, text);
	buf_addc(&c->out, '\n');
	free(text);
	cJSON_Delete(msg);
}

static cJSON *request(int id, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "id", id);
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params);
	return m;
}

static void reply(struct conn *c, const cJSON *id, cJSON *result)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, true));
	cJSON_AddItemToObject(m, "result", result);
	send_msg(c, m);
}

static void reply_error(struct conn *c, const cJSON *id, int code, const char *msg)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, true));
	cJSON *err = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", msg);
	send_msg(c, m);
}

/* The first decision wins; later events only add detail. */
static void stop(struct conn *c, enum acp_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void stop(struct conn *c, enum acp_status st, const char *fmt, ...)
{
	if (c->stopping)
		return;
	c->stopping = true;
	c->r->status = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->r->message, sizeof c->r->message, fmt, ap);
	va_end(ap);
	double now = now_mono();
	double grace = c->s->grace > 0 ? c->s->grace : 2;
	bool at_once = st == ACP_PROTOCOL || st == ACP_INTERRUPTED;
	c->term_at = at_once ? now : now + grace;
	c->kill_at = c->term_at + 2;
	if ((st == ACP_TIMEOUT || st == ACP_IDLE) && c->session) {
		cJSON *m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "method", "session/cancel");
		cJSON *p = cJSON_AddObjectToObject(m, "params");
		cJSON_AddStringToObject(p, "sessionId", c->session);
		send_msg(c, m);
	}
}

static void start_prompt(struct conn *c)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "sessionId", c->session);
	cJSON *blocks = cJSON_AddArrayToObject(p, "prompt");
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", c->s->prompt);
	cJSON_AddItemToArray(blocks, b);
	send_msg(c, request(3, "session/prompt", p));
	acp_traj_user(&c->r->traj, c->s->prompt);
	c->state = ST_PROMPT;
	c->prompt_at = c->last_activity = now_mono();
	c->r->setup_sec = c->prompt_at - c->start;
	c->r->handshake_done = true;
}

static const char *error_text(const cJSON *msg)
{
	const char *m = json_str(json_get(msg, "error"), "message");
	return m ? m : "(no message)";
}

static void read_usage(struct acp_result *r, const cJSON *u)
{
	if (!cJSON_IsObject(u))
		return;
	r->usage_known = true;
	r->in_tokens = json_num(u, "inputTokens", 0);
	r->out_tokens = json_num(u, "outputTokens", 0);
	r->total_tokens = json_num(u, "totalTokens", r->in_tokens + r->out_tokens);
	r->cache_read_tokens = json_num(u, "cachedReadTokens", 0);
	r->cache_write_tokens = json_num(u, "cachedWriteTokens", 0);
}

static void on_response(struct conn *c, const cJSON *msg, int id)
{
	bool failed = json_get(msg, "error") != NULL;
	cJSON *res = json_get(msg, "result");
	if (id == 1 && c->state == ST_INIT) {
		if (failed) {
			stop(c, ACP_PROTOCOL, "ACP initialize failed: %s", error_text(msg));
			return;
		}
		cJSON *info = json_get(res, "agentInfo");
		if (json_str(info, "name"))
			c->r->agent_name = xstrdup(json_str(info, "name"));
		if (json_str(info, "version"))
			c->r->agent_version = xstrdup(json_str(info, "version"));
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "cwd", c->s->session_cwd);
		cJSON_AddArrayToObject(p, "mcpServers");
		send_msg(c, request(2, "session/new", p));
		c->state = ST_SESSION;
	} else if (id == 2 && c->state == ST_SESSION) {
		const char *sid = json_str(res, "sessionId");
		if (failed || !sid) {
			stop(c, ACP_PROTOCOL, "ACP session/new failed: %s", failed ? error_text(msg) : "no sessionId");
			return;
		}
		c->session = xstrdup(sid);
		start_prompt(c);
	} else if (id == 3 && c->state == ST_PROMPT) {
		c->state = ST_ANSWERED;
		c->r->prompt_answered = true;
		c->r->exec_sec = now_mono() - c->prompt_at;
		if (failed) {
			stop(c, ACP_PROTOCOL, "ACP session/prompt failed: %s", error_text(msg));
			return;
		}
		if (json_str(res, "stopReason"))
			c->r->stop_reason = xstrdup(json_str(res, "stopReason"));
		read_usage(c->r, json_get(res, "usage"));
		stop(c, ACP_DONE, "%s", "");
	}
}

static void permission(struct conn *c, const cJSON *id, const cJSON *params)
{
	const cJSON *pick = NULL;
	const char *prefer[] = { "allow_always", "allow_once" };
	cJSON *opts = json_get(params, "options");
	for (size_t k = 0; k < ARRAY_LEN(prefer) && !pick; k++)
		for (cJSON *o = opts ? opts->child : NULL; o && !pick; o = o->next)
			if (json_str(o, "kind") && !strcmp(json_str(o, "kind"), prefer[k]))
				pick = o;
	cJSON *res = cJSON_CreateObject();
	cJSON *out = cJSON_AddObjectToObject(res, "outcome");
	if (pick && json_str(pick, "optionId")) {
		cJSON_AddStringToObject(out, "outcome", "selected");
		cJSON_AddStringToObject(out, "optionId", json_str(pick, "optionId"));
	} else {
		cJSON_AddStringToObject(out, "outcome", "cancelled");
	}
	reply(c, id, res);
}

static int read_fd(int fd, struct buf *b, struct err *e)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(e, ERR_INPUT, "cannot read:");
		if (n == 0)
			return 0;
		if (b->len + (size_t)n > ACP_MAX_FILE)
			return err_set(e, ERR_INPUT, "file is larger than 16 MiB");
		buf_add(b, chunk, (size_t)n);
	}
}

static void fs_read_req(struct conn *c, const cJSON *id, const cJSON *params)
{
	struct err e = { 0 };
	const char *path = json_str(params, "path");
	int fd = path ? c->s->fs->open(c->s->fs->ctx, path, O_RDONLY, 0, &e) : -1;
	if (!path)
		err_set(&e, ERR_INPUT, "missing path");
	struct buf b = BUF_INIT;
	if (fd >= 0) {
		read_fd(fd, &b, &e);
		close(fd);
	}
	if (e.msg[0]) {
		reply_error(c, id, -32002, e.msg);
		buf_free(&b);
		return;
	}
	buf_add(&b, "", 0);
	/* line (1-based) and limit select lines, as ACP defines them */
	double line = json_num(params, "line", 1), limit = json_num(params, "limit", -1);
	const char *s = b.data;
	for (double i = 1; i < line && s; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	const char *end = s;
	for (double i = 0; end && (limit < 0 || i < limit); i++) {
		end = strchr(end, '\n');
		if (end)
			end++;
	}
	cJSON *res = cJSON_CreateObject();
	char *text = xstrndup(s ? s : "", s ? (end ? (size_t)(end - s) : strlen(s)) : 0);
	cJSON_AddStringToObject(res, "content", text);
	free(text);
	buf_free(&b);
	reply(c, id, res);
}

static void fs_write_req(struct conn *c, const cJSON *id, const cJSON *params)
{
	struct err e = { 0 };
	const char *path = json_str(params, "path"), *content = json_str(params, "content");
	if (!path || !content) {
		reply_error(c, id, -32602, "fs/write_text_file needs path and content");
		return;
	}
	int fd = c->s->fs->open(c->s->fs->ctx, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &e);
	if (fd >= 0) {
		if (fs_write_all(fd, content, strlen(content)) < 0)
			err_set(&e, ERR_WORK, "cannot write '%s':", path);
		close(fd);
	}
	if (e.msg[0])
		reply_error(c, id, -32002, e.msg);
	else
		reply(c, id, cJSON_CreateObject());
}

static void on_request(struct conn *c, const char *method, const cJSON *id, const cJSON *params)
{
	c->last_activity = now_mono(); /* waiting on us is not idleness */
	if (!strcmp(method, "session/request_permission")) {
		permission(c, id, params);
	} else if (c->s->fs && !strcmp(method, "fs/read_text_file")) {
		fs_read_req(c, id, params);
	} else if (c->s->fs && !strcmp(method, "fs/write_text_file")) {
		fs_write_req(c, id, params);
	} else {
		char *m = xasprintf("Method not found: %s", method);
		reply_error(c, id, -32601, m);
		free(m);
	}
}

static void garbage(struct conn *c, const char *line, size_t len)
{
	c->r->garbage_lines++;
	if (c->s->stderr_fd >= 0)
		dprintf(c->s->stderr_fd, "[skillc-local] not JSON-RPC on stdout: %.*s\n", (int)(len > 200 ? 200 : len), line);
	if (c->r->garbage_lines > ACP_MAX_GARBAGE)
		stop(c, ACP_PROTOCOL, "Agent wrote more than %d lines on stdout that are not JSON-RPC", ACP_MAX_GARBAGE);
}

static void on_line(struct conn *c, char *line, size_t len)
{
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		line[--len] = '\0';
	if (!len)
		return;
	cJSON *msg = cJSON_ParseWithLength(line, len);
	if (!cJSON_IsObject(msg)) {
		cJSON_Delete(msg);
		garbage(c, line, len);
		return;
	}
	const char *method = json_str(msg, "method");
	cJSON *id = json_get(msg, "id");
	if (method && id) {
		on_request(c, method, id, json_get(msg, "params"));
	} else if (method) {
		if (!strcmp(method, "session/update")) {
			cJSON *u = json_get(json_get(msg, "params"), "update");
			if (acp_traj_update(&c->r->traj, u))
				c->last_activity = now_mono();
		}
	} else if (cJSON_IsNumber(id)) {
		on_response(c, msg, id->valueint);
	} else {
		garbage(c, line, len);
	}
	cJSON_Delete(msg);
}

void acp_frame(struct buf *in, size_t *scanned, const char *bytes, size_t n, acp_line_fn *fn, void *ctx)
{
	buf_add(in, bytes, n);
	size_t off = 0, from = *scanned < in->len ? *scanned : in->len;
	char *nl;
	while ((nl = memchr(in->data + from, '\n', in->len - from))) {
		*nl = '\0';
		fn(ctx, in->data + off, (size_t)(nl - (in->data + off)));
		off = from = (size_t)(nl - in->data) + 1;
	}
	memmove(in->data, in->data + off, in->len - off);
	in->len -= off;
	in->data[in->len] = '\0';
	*scanned = in->len;
}

static void on_agent_line(void *ctx, char *line, size_t len)
{
	on_line(ctx, line, len);
}

static void read_agent(struct conn *c)
{
	char chunk[65536];
	ssize_t n = read(c->from_agent, chunk, sizeof chunk);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(c->from_agent);
		c->from_agent = -1;
		stop(c, ACP_CLOSED, "Agent process closed stdout before the prompt finished");
		return;
	}
	acp_frame(&c->in, &c->in_scanned, chunk, (size_t)n, on_agent_line, c);
	if (c->in.len > ACP_MAX_LINE)
		stop(c, ACP_PROTOCOL, "Agent wrote a line of more than %u bytes on stdout", ACP_MAX_LINE);
}

static void write_agent(struct conn *c)
{
	while (c->out.len && c->to_agent >= 0) {
		ssize_t n = write(c->to_agent, c->out.data, c->out.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			/* the agent stopped reading for good; reading tells the rest */
			c->out.len = 0;
			close(c->to_agent);
			c->to_agent = -1;
			return;
		}
		memmove(c->out.data, c->out.data + n, c->out.len - (size_t)n);
		c->out.len -= (size_t)n;
	}
}

/* Starts the agent; when it cannot run, r says so (NOT_STARTED). */
static int spawn(struct conn *c, struct err *e)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0)
		return err_set(e, ERR_WORK, "cannot create a pipe:");
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return err_set(e, ERR_WORK, "cannot create a pipe:");
	}
	int devnull = c->s->stderr_fd < 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	struct proc_child pc = {
		.argv = c->s->argv, .envp = c->s->envp,
		.fd = { in[0], out[1], c->s->stderr_fd >= 0 ? c->s->stderr_fd : devnull },
		.death_signal = SIGKILL, /* our death ends the agent */
	};
	c->start = now_mono();
	struct err why = { 0 };
	bool started;
	pid_t pid = proc_spawn(&pc, &started, &why);
	close(in[0]);
	close(out[1]);
	if (devnull >= 0)
		close(devnull);
	if (pid < 0) {
		close(in[1]);
		close(out[0]);
		*e = why;
		return -1;
	}
	c->pid = pid;
	c->to_agent = in[1];
	c->from_agent = out[0];
	fcntl(c->to_agent, F_SETFL, O_NONBLOCK);
	fcntl(c->from_agent, F_SETFL, O_NONBLOCK);
	if (!started) {
		waitpid(pid, &c->status, 0);
		c->reaped = true;
		c->stopping = true;
		c->r->status = ACP_NOT_STARTED;
		snprintf(c->r->message, sizeof c->r->message, "%.*s", (int)sizeof c->r->message - 1, why.msg);
	}
	return 0;
}

static void check_deadlines(struct conn *c, double now)
{
	const struct acp_spec *s = c->s;
	double hs = s->handshake_timeout > 0 ? s->handshake_timeout : 60;
	if (c->state < ST_PROMPT && now >= c->start + hs)
		stop(c, ACP_PROTOCOL, "ACP handshake timed out after %gs", hs);
	if (c->state == ST_PROMPT && s->timeout > 0 && now >= c->prompt_at + s->timeout)
		stop(c, ACP_TIMEOUT, "Agent prompt exceeded wall-clock budget %gs", s->timeout);
	if (c->state == ST_PROMPT && s->idle_timeout > 0 && now >= c->last_activity + s->idle_timeout)
		stop(c, ACP_IDLE, "Agent idle for %gs with no new tool call, message, or thought", s->idle_timeout);
}

static double next_deadline(const struct conn *c)
{
	const struct acp_spec *s = c->s;
	double t = 0;
#define EARLIER(x) do { double x_ = (x); if (!t || x_ < t) t = x_; } while (0)
	if (c->stopping) {
		EARLIER(c->term_at);
		EARLIER(c->kill_at);
		return t;
	}
	if (c->state < ST_PROMPT)
		EARLIER(c->start + (s->handshake_timeout > 0 ? s->handshake_timeout : 60));
	if (c->state == ST_PROMPT && s->timeout > 0)
		EARLIER(c->prompt_at + s->timeout);
	if (c->state == ST_PROMPT && s->idle_timeout > 0)
		EARLIER(c->last_activity + s->idle_timeout);
#undef EARLIER
	return t;
}

static void finish_signals(struct conn *c, double now)
{
	if (!c->stopping || c->reaped)
		return;
	if (c->r->status == ACP_DONE && c->to_agent >= 0 && !c->out.len) {
		close(c->to_agent); /* end of input asks a well-behaved agent to exit */
		c->to_agent = -1;
	}
	if (c->term_at && now >= c->term_at) {
		kill(-c->pid, SIGTERM);
		c->term_at = 0;
	}
	if (c->kill_at && now >= c->kill_at) {
		kill(-c->pid, SIGKILL);
		c->kill_at = 0;
	}
}

static void loop(struct conn *c, int sfd)
{
	struct pollfd pf[3 + 2 * 64 + 2];
	while (!c->reaped) {
		double now = now_mono();
		if (!c->stopping)
			check_deadlines(c, now);
		finish_signals(c, now);
		int n = 0;
		pf[n++] = (struct pollfd){ sfd, POLLIN, 0 };
		int ia = -1, oa = -1;
		if (c->from_agent >= 0) {
			ia = n;
			pf[n++] = (struct pollfd){ c->from_agent, POLLIN, 0 };
		}
		if (c->to_agent >= 0 && c->out.len) {
			oa = n;
			pf[n++] = (struct pollfd){ c->to_agent, POLLOUT, 0 };
		}
		int nrelay = c->s->relay ? relay_pollfds(c->s->relay, pf + n, (int)ARRAY_LEN(pf) - n) : 0;
		double next = next_deadline(c);
		int ms = next ? (int)((next - now) * 1000) + 1 : -1;
		if (ms < 0 && next)
			ms = 0;
		if (c->stopping && c->r->status == ACP_DONE && (ms < 0 || ms > 100))
			ms = 100; /* re-check the closing of stdin */
		int got = poll(pf, (nfds_t)(n + nrelay), ms);
		if (got < 0 && errno != EINTR)
			break;
		if (got <= 0)
			continue;
		if (c->s->relay)
			relay_service(c->s->relay, pf + n, nrelay);
		if (oa >= 0 && pf[oa].revents)
			write_agent(c);
		if (ia >= 0 && pf[ia].revents)
			read_agent(c);
		if (pf[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
				if (si.ssi_signo == SIGCHLD)
					continue;
				c->r->interrupted = (int)si.ssi_signo;
				stop(c, ACP_INTERRUPTED, "interrupted by signal %d", (int)si.ssi_signo);
				c->r->status = ACP_INTERRUPTED;
				kill(-c->pid, SIGTERM);
			}
			if (waitpid(c->pid, &c->status, WNOHANG) == c->pid)
				c->reaped = true;
		}
		if (c->to_agent >= 0 && c->out.len && !c->stopping)
			write_agent(c);
	}
	if (!c->reaped) {
		kill(-c->pid, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->reaped = true;
	}
	kill(-c->pid, SIGKILL); /* anything of the group that outlived the leader */
	/* what the agent wrote just before it ended is still in the pipe */
	while (c->from_agent >= 0) {
		struct pollfd p = { c->from_agent, POLLIN, 0 };
		if (poll(&p, 1, 0) <= 0)
			break;
		read_agent(c);
	}
	if (!c->stopping)
		stop(c, ACP_CLOSED, "Agent process exited before the prompt finished");
}

int acp_run(const struct acp_spec *s, struct acp_result *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	acp_traj_init(&r->traj);
	struct conn c = { .s = s, .r = r, .to_agent = -1, .from_agent = -1 };
	sigset_t old;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldpipe;
	sigaction(SIGPIPE, &ign, &oldpipe);
	int sfd = proc_signals_begin(&old, SFD_NONBLOCK, e);
	int rc = 0;
	if (sfd < 0) {
		rc = -1;
		goto out;
	}
	if (spawn(&c, e) < 0) {
		rc = -1;
		goto out;
	}
	if (!c.reaped) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "protocolVersion", 1);
		cJSON *caps = cJSON_AddObjectToObject(p, "clientCapabilities");
		cJSON *fs = cJSON_AddObjectToObject(caps, "fs");
		cJSON_AddBoolToObject(fs, "readTextFile", s->fs != NULL);
		cJSON_AddBoolToObject(fs, "writeTextFile", s->fs != NULL);
		cJSON_AddBoolToObject(caps, "terminal", false);
		cJSON *info = cJSON_AddObjectToObject(p, "clientInfo");
		cJSON_AddStringToObject(info, "name", "skillc-local");
		cJSON_AddStringToObject(info, "version", "1");
		send_msg(&c, request(1, "initialize", p));
		loop(&c, sfd);
	}
	r->exited = true;
	if (WIFEXITED(c.status)) {
		r->exit_code = WEXITSTATUS(c.status);
	} else if (WIFSIGNALED(c.status)) {
		r->term_signal = WTERMSIG(c.status);
		r->exit_code = 128 + r->term_signal;
	}
	if (r->status == ACP_CLOSED) {
		size_t n = strlen(r->message);
		if (r->term_signal)
			snprintf(r->message + n, sizeof r->message - n, " (killed by signal %d)", r->term_signal);
		else
			snprintf(r->message + n, sizeof r->message - n, " (exit code %d)", r->exit_code);
	}
	if (c.state == ST_PROMPT && !r->exec_sec)
		r->exec_sec = now_mono() - c.prompt_at;
	if (c.state >= ST_PROMPT)
		r->idle_sec = now_mono() - c.last_activity;
	acp_traj_finish(&r->traj);
out:
	if (c.to_agent >= 0)
		close(c.to_agent);
	if (c.from_agent >= 0)
		close(c.from_agent);
	proc_signals_end(sfd, &old);
	sigaction(SIGPIPE, &oldpipe, NULL);
	buf_free(&c.in);
	buf_free(&c.out);
	free(c.session);
	return rc;
}

void acp_result_free(struct acp_result *r)
{
	free(r->agent_name);
	free(r->agent_version);
	free(r->stop_reason);
	acp_traj_free(&r->traj);
	memset(r, 0, sizeof *r);
}
