/* acpagent — a scripted ACP agent for the local runner's tests. It speaks
 * ACP over stdio like a real harness (initialize, session/new,
 * session/prompt, session/update notifications, requests to the client)
 * and, on the prompt, plays the steps of a JSON script:
 *
 *   {"agent_name": "Scripted", "init": "ok|error|hang|garbage",
 *    "stop_reason": "end_turn", "usage": {"inputTokens": 10, ...},
 *    "usage_file": "/tmp/usage.json"   (optional: usage written by the steps, read after them)
 *    "steps": [
 *      {"message": "text"}            agent_message_chunk (sent in two chunks)
 *      {"thought": "text"}            agent_thought_chunk
 *      {"skill": "name"}              reads ~/.opencode/skills/<name>/SKILL.md, reports a skill tool call
 *      {"read": "/path"}              reads a file itself, reports a read tool call
 *      {"write": {"path": p, "content": c}}   writes a file itself (edit tool call; failed if it cannot)
 *      {"exec": "shell command"}      runs sh -c, reports an execute tool call with the output
 *      {"fs_write": {"path": p, "content": c}} / {"fs_read": p}   asks the client (fs requests)
 *      {"permission": "title"}        asks session/request_permission, reports the outcome
 *      {"sleep": seconds}
 *      {"spawn": "command"}           starts a detached background process (setsid)
 *      {"hang": true}                 ignores SIGTERM and sleeps forever
 *      {"crash": code}                exits with code at once
 *      {"garbage": "text"}            writes a raw non-JSON line on stdout
 *      {"close_stdout": true}         closes stdout and sleeps forever
 *    ]}
 *
 * Usage: acpagent SCRIPT.json */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

static cJSON *script;
static char session_id[] = "sess_scripted_1";
static int next_id = 100;
static int tool_no;

static void send_json(cJSON *m)
{
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	char *s = cJSON_PrintUnformatted(m);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	cJSON_Delete(m);
}

static char *read_line(void)
{
	static char *line;
	static size_t cap;
	ssize_t n = getline(&line, &cap, stdin);
	if (n < 0)
		return NULL;
	return line;
}

static void update(cJSON *u)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "method", "session/update");
	cJSON *p = cJSON_AddObjectToObject(m, "params");
	cJSON_AddStringToObject(p, "sessionId", session_id);
	cJSON_AddItemToObject(p, "update", u);
	send_json(m);
}

static void chunk(const char *kind, const char *text)
{
	cJSON *u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "sessionUpdate", kind);
	cJSON *c = cJSON_AddObjectToObject(u, "content");
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	update(u);
}

static void text(const char *kind, const char *s)
{
	size_t half = strlen(s) / 2;
	char *a = strndup(s, half);
	chunk(kind, a);
	chunk(kind, s + half);
	free(a);
}

/* Reports one tool call: pending, in progress with its input, then done. */
static void tool(const char *title, const char *kind, cJSON *input, const char *status, const char *output)
{
	char id[32];
	snprintf(id, sizeof id, "call_%02d", tool_no++);
	cJSON *u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "sessionUpdate", "tool_call");
	cJSON_AddStringToObject(u, "toolCallId", id);
	cJSON_AddStringToObject(u, "title", title);
	cJSON_AddStringToObject(u, "kind", kind);
	cJSON_AddStringToObject(u, "status", "pending");
	cJSON_AddItemToObject(u, "rawInput", cJSON_CreateObject());
	update(u);
	u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "sessionUpdate", "tool_call_update");
	cJSON_AddStringToObject(u, "toolCallId", id);
	cJSON_AddStringToObject(u, "status", "in_progress");
	cJSON_AddItemToObject(u, "rawInput", input);
	update(u);
	u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "sessionUpdate", "tool_call_update");
	cJSON_AddStringToObject(u, "toolCallId", id);
	cJSON_AddStringToObject(u, "status", status);
	cJSON *content = cJSON_AddArrayToObject(u, "content");
	cJSON *block = cJSON_CreateObject();
	cJSON_AddStringToObject(block, "type", "content");
	cJSON *inner = cJSON_AddObjectToObject(block, "content");
	cJSON_AddStringToObject(inner, "type", "text");
	cJSON_AddStringToObject(inner, "text", output);
	cJSON_AddItemToArray(content, block);
	update(u);
}

/* Sends a request to the client and waits for its answer. */
static cJSON *call(const char *method, cJSON *params)
{
	int id = next_id++;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "id", id);
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params);
	send_json(m);
	for (;;) {
		char *l = read_line();
		if (!l)
			exit(0);
		cJSON *r = cJSON_Parse(l);
		cJSON *rid = cJSON_GetObjectItem(r, "id");
		if (cJSON_IsNumber(rid) && rid->valueint == id && !cJSON_GetObjectItem(r, "method"))
			return r;
		cJSON_Delete(r); /* notifications (session/cancel) are not awaited here */
	}
}

static char *slurp(const char *path, int *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = errno;
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunkbuf[4096];
	size_t n;
	while ((n = fread(chunkbuf, 1, sizeof chunkbuf, f)) > 0)
		fwrite(chunkbuf, 1, n, m);
	fclose(f);
	fclose(m);
	*err = 0;
	return buf;
}

static void step_skill(const char *name)
{
	const char *home = getenv("HOME");
	char path[4096];
	snprintf(path, sizeof path, "%s/.opencode/skills/%s/SKILL.md", home ? home : "/root", name);
	int err;
	char *body = slurp(path, &err);
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "name", name);
	if (!body) {
		char msg[4200];
		snprintf(msg, sizeof msg, "skill %s not found: %s", name, strerror(err));
		tool("skill", "other", in, "failed", msg);
		return;
	}
	size_t n = strlen(body) + strlen(name) + 64;
	char *out = malloc(n);
	snprintf(out, n, "<skill_content name=\"%s\">\n%s</skill_content>", name, body);
	tool("skill", "other", in, "completed", out);
	free(out);
	free(body);
}

static void step_read(const char *path)
{
	int err;
	char *body = slurp(path, &err);
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "filePath", path);
	tool("read", "read", in, body ? "completed" : "failed", body ? body : strerror(err));
	free(body);
}

static void step_write(const cJSON *w)
{
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(w, "path"));
	const char *content = cJSON_GetStringValue(cJSON_GetObjectItem(w, "content"));
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "content", content);
	cJSON_AddStringToObject(in, "filePath", path);
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(content, f) >= 0;
	char msg[512];
	snprintf(msg, sizeof msg, "%s", ok ? "Wrote file successfully." : strerror(errno));
	if (f && fclose(f) != 0)
		ok = false;
	tool("write", "edit", in, ok ? "completed" : "failed", msg);
}

static void step_exec(const char *cmd)
{
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "command", cmd);
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	char b[4096];
	size_t n;
	while (p && (n = fread(b, 1, sizeof b, p)) > 0)
		fwrite(b, 1, n, m);
	int st = p ? pclose(p) : -1;
	fclose(m);
	tool("bash", "execute", in, st == 0 ? "completed" : "failed", out);
	free(out);
}

static void step_fs(const cJSON *s, bool write)
{
	cJSON *params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "sessionId", session_id);
	const char *path;
	if (write) {
		path = cJSON_GetStringValue(cJSON_GetObjectItem(s, "path"));
		cJSON_AddStringToObject(params, "path", path);
		cJSON_AddStringToObject(params, "content", cJSON_GetStringValue(cJSON_GetObjectItem(s, "content")));
	} else {
		path = cJSON_GetStringValue(s);
		cJSON_AddStringToObject(params, "path", path);
	}
	cJSON *r = call(write ? "fs/write_text_file" : "fs/read_text_file", params);
	cJSON *err = cJSON_GetObjectItem(r, "error");
	const char *out = err ? cJSON_GetStringValue(cJSON_GetObjectItem(err, "message"))
			      : write ? "written" : cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "content"));
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "path", path);
	tool(write ? "fs_write" : "fs_read", write ? "edit" : "read", in, err ? "failed" : "completed", out ? out : "");
	cJSON_Delete(r);
}

static void step_permission(const char *title)
{
	cJSON *params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "sessionId", session_id);
	cJSON *tc = cJSON_AddObjectToObject(params, "toolCall");
	cJSON_AddStringToObject(tc, "toolCallId", "perm_1");
	cJSON_AddStringToObject(tc, "title", title);
	cJSON *opts = cJSON_AddArrayToObject(params, "options");
	const char *kinds[][2] = { { "reject", "reject_once" }, { "once", "allow_once" }, { "always", "allow_always" } };
	for (int i = 0; i < 3; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "optionId", kinds[i][0]);
		cJSON_AddStringToObject(o, "name", kinds[i][0]);
		cJSON_AddStringToObject(o, "kind", kinds[i][1]);
		cJSON_AddItemToArray(opts, o);
	}
	cJSON *r = call("session/request_permission", params);
	cJSON *outcome = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "outcome");
	const char *picked = cJSON_GetStringValue(cJSON_GetObjectItem(outcome, "optionId"));
	char msg[128];
	snprintf(msg, sizeof msg, "permission: %s", picked ? picked : "none");
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "title", title);
	tool("permission", "other", in, "completed", msg);
	cJSON_Delete(r);
}

static void step_spawn(const char *cmd)
{
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		if (fork() == 0) {
			int null = open("/dev/null", O_RDWR);
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void forever(void)
{
	signal(SIGTERM, SIG_IGN);
	for (;;)
		pause();
}

static void run_steps(void)
{
	cJSON *steps = cJSON_GetObjectItem(script, "steps");
	for (cJSON *s = steps ? steps->child : NULL; s; s = s->next) {
		cJSON *v;
		if ((v = cJSON_GetObjectItem(s, "message")))
			text("agent_message_chunk", v->valuestring);
		else if ((v = cJSON_GetObjectItem(s, "thought")))
			text("agent_thought_chunk", v->valuestring);
		else if ((v = cJSON_GetObjectItem(s, "skill")))
			step_skill(v->valuestring);
		else if ((v = cJSON_GetObjectItem(s, "read")))
			step_read(v->valuestring);
		else if ((v = cJSON_GetObjectItem(s, "write")))
			step_write(v);
		else if ((v = cJSON_GetObjectItem(s, "exec")))
			step_exec(v->valuestring);
		else if ((v = cJSON_GetObjectItem(s, "fs_write")))
			step_fs(v, true);
		else if ((v = cJSON_GetObjectItem(s, "fs_read")))
			step_fs(v, false);
		else if ((v = cJSON_GetObjectItem(s, "permission")))
			step_permission(v->valuestring);
		else if ((v = cJSON_GetObjectItem(s, "sleep"))) {
			struct timespec ts = { (time_t)v->valuedouble, (long)((v->valuedouble - (time_t)v->valuedouble) * 1e9) };
			nanosleep(&ts, NULL);
		} else if ((v = cJSON_GetObjectItem(s, "spawn")))
			step_spawn(v->valuestring);
		else if (cJSON_GetObjectItem(s, "hang"))
			forever();
		else if ((v = cJSON_GetObjectItem(s, "crash")))
			_exit(v->valueint);
		else if ((v = cJSON_GetObjectItem(s, "garbage"))) {
			printf("%s\n", v->valuestring);
			fflush(stdout);
		} else if (cJSON_GetObjectItem(s, "close_stdout")) {
			fclose(stdout);
			forever();
		}
	}
}

/* The prompt's token counts: the JSON object the steps wrote to the
 * script's "usage_file" (an agent whose counts depend on what it read),
 * else the script's "usage"; NULL for none. The caller owns it. */
static cJSON *steps_usage(void)
{
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(script, "usage_file"));
	if (path) {
		int err = 0;
		char *body = slurp(path, &err);
		cJSON *u = body ? cJSON_Parse(body) : NULL;
		free(body);
		if (cJSON_IsObject(u))
			return u;
		cJSON_Delete(u);
	}
	cJSON *usage = cJSON_GetObjectItem(script, "usage");
	return usage ? cJSON_Duplicate(usage, true) : NULL;
}

static void respond(const cJSON *id, cJSON *result)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, true));
	cJSON_AddItemToObject(m, "result", result);
	send_json(m);
}

static void respond_error(const cJSON *id, int code, const char *message)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, true));
	cJSON *err = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", message);
	send_json(m);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: acpagent SCRIPT.json\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		fprintf(stderr, "acpagent: cannot read %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	script = cJSON_Parse(buf);
	if (!script) {
		fprintf(stderr, "acpagent: %s is not JSON\n", argv[1]);
		return 2;
	}
	fprintf(stderr, "acpagent: started with %s\n", argv[1]);
	const char *init = cJSON_GetStringValue(cJSON_GetObjectItem(script, "init"));
	char *l;
	while ((l = read_line())) {
		cJSON *m = cJSON_Parse(l);
		const char *method = cJSON_GetStringValue(cJSON_GetObjectItem(m, "method"));
		cJSON *id = cJSON_GetObjectItem(m, "id");
		if (!method || !id) {
			cJSON_Delete(m);
			continue;
		}
		if (!strcmp(method, "initialize")) {
			if (init && !strcmp(init, "hang"))
				forever();
			if (init && !strcmp(init, "garbage")) {
				for (int i = 0; i < 200; i++)
					printf("this is not json %d\n", i);
				fflush(stdout);
				forever();
			}
			if (init && !strcmp(init, "error")) {
				respond_error(id, -32000, "scripted init failure");
				cJSON_Delete(m);
				continue;
			}
			cJSON *r = cJSON_CreateObject();
			cJSON_AddNumberToObject(r, "protocolVersion", 1);
			cJSON_AddObjectToObject(r, "agentCapabilities");
			cJSON *info = cJSON_AddObjectToObject(r, "agentInfo");
			const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(script, "agent_name"));
			cJSON_AddStringToObject(info, "name", name ? name : "Scripted");
			cJSON_AddStringToObject(info, "version", "1.0");
			respond(id, r);
		} else if (!strcmp(method, "session/new")) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddStringToObject(r, "sessionId", session_id);
			respond(id, r);
		} else if (!strcmp(method, "session/prompt")) {
			cJSON *user = cJSON_CreateObject();
			cJSON_AddStringToObject(user, "sessionUpdate", "user_message_chunk");
			cJSON_AddObjectToObject(user, "content");
			update(user);
			run_steps();
			cJSON *r = cJSON_CreateObject();
			const char *stop = cJSON_GetStringValue(cJSON_GetObjectItem(script, "stop_reason"));
			cJSON_AddStringToObject(r, "stopReason", stop ? stop : "end_turn");
			cJSON *usage = steps_usage();
			if (usage)
				cJSON_AddItemToObject(r, "usage", usage);
			respond(id, r);
		} else {
			respond_error(id, -32601, "Method not found");
		}
		cJSON_Delete(m);
	}
	cJSON_Delete(script);
	return 0;
}
