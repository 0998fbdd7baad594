/* fakellm — a scripted loopback HTTP server standing in for an
 * OpenAI-compatible LLM API (and for AgentRM) in tests. It listens on
 * 127.0.0.1, answers from a script file, logs every request as one JSON
 * line (never an Authorization value: only whether one came and its hash)
 * and records the peak number of requests in flight. See usage below and
 * docs/llm.md#the-fake-server-tests. */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"

static const char usage[] =
	"usage: fakellm [--script FILE] [--log FILE] [--stats FILE] [--port-file FILE] [--port N]\n"
	"\n"
	"Serves on 127.0.0.1:N (0: any free port, written to --port-file):\n"
	"  POST /v1/chat/completions, /chat/completions   script \"chat\" (stream: true -> SSE)\n"
	"  GET  /v1/models, /models                       script \"models\"\n"
	"  POST /score, /v1/score                         script \"score\"\n"
	"  GET  /health                                   script \"health\" (default 200)\n"
	"  GET  /_fake/stats                              counters (not logged, not counted)\n"
	"--log appends one JSON line per request; --stats is rewritten after each one\n"
	"with {\"requests\", \"in_flight\", \"peak_in_flight\"}. With \"prefix_cache\": true in\n"
	"the script, chat answers report as cached_tokens the longest prefix (4 bytes a\n"
	"token) a request's messages share with any earlier request's. See docs/llm.md.\n";

enum endpoint { EP_CHAT, EP_MODELS, EP_SCORE, EP_HEALTH, EP_N };
static const char *const ep_names[EP_N] = { "chat", "models", "score", "health" };

/* Everything the connection threads share; guarded by mu. */
struct server {
	pthread_mutex_t mu;
	cJSON *script;
	const cJSON *steps[EP_N];
	bool cycle;
	const char *require_key;
	const cJSON *rules;  /* steps chosen by a substring of the request body */
	unsigned next[EP_N];
	long seq;
	int in_flight, peak;
	long done;
	const char *log_path;
	const char *stats_path;
	bool prefix_cache;
	struct strlist prompts; /* every chat request's messages, for prefix_cache */
};

static void nap(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ---------------------------------------------------------------- requests */

struct request {
	char method[16];
	char path[1024];
	cJSON *headers;   /* lowercased name -> value, Authorization left out */
	bool auth_present;
	hash_hex auth_hash;
	char *auth;       /* the token, to compare with require_key; wiped */
	bool close;
	struct buf body;
};

static void request_free(struct request *r)
{
	cJSON_Delete(r->headers);
	if (r->auth) {
		explicit_bzero(r->auth, strlen(r->auth));
		free(r->auth);
	}
	buf_free(&r->body);
	memset(r, 0, sizeof *r);
	r->body = (struct buf)BUF_INIT;
}

/* Reads more bytes into in; 0 on EOF or error. */
static ssize_t fill(int fd, struct buf *in)
{
	char chunk[65536];
	ssize_t n;
	do
		n = recv(fd, chunk, sizeof chunk, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		buf_add(in, chunk, (size_t)n);
	return n;
}

static void consume(struct buf *in, size_t n)
{
	memmove(in->data, in->data + n, in->len - n);
	in->len -= n;
	in->data[in->len] = '\0';
}

/* Waits until in holds at least n bytes. */
static int need(int fd, struct buf *in, size_t n)
{
	while (in->len < n)
		if (fill(fd, in) <= 0)
			return -1;
	return 0;
}

static int read_chunked(int fd, struct buf *in, struct buf *body)
{
	for (;;) {
		char *eol;
		while (!in->len || !(eol = strstr(in->data, "\r\n")))
			if (fill(fd, in) <= 0)
				return -1;
		size_t size = strtoul(in->data, NULL, 16);
		consume(in, (size_t)(eol - in->data) + 2);
		if (need(fd, in, size + 2) < 0)
			return -1;
		buf_add(body, in->data, size);
		consume(in, size + 2);
		if (size == 0)
			return 0; /* trailers are not used by our clients */
	}
}

static void parse_header(struct request *r, char *line)
{
	char *colon = strchr(line, ':');
	if (!colon)
		return;
	*colon = '\0';
	char *v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	for (char *p = line; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	if (!strcmp(line, "authorization")) {
		r->auth_present = true;
		const char *tok = strncasecmp(v, "Bearer ", 7) ? v : v + 7;
		hash_bytes(tok, strlen(tok), r->auth_hash);
		r->auth = xstrdup(tok);
		explicit_bzero(v, strlen(v));
		return;
	}
	if (!strcmp(line, "connection") && !strcasecmp(v, "close"))
		r->close = true;
	json_set_str(r->headers, line, v);
}

/* Reads one request; -1 when the client went away. */
static int read_request(int fd, struct buf *in, struct request *r)
{
	char *end;
	while (!in->len || !(end = strstr(in->data, "\r\n\r\n"))) {
		if (in->len > (1 << 20) || fill(fd, in) <= 0)
			return -1;
	}
	size_t head_len = (size_t)(end - in->data) + 4;
	char *head = xstrndup(in->data, head_len - 4);
	consume(in, head_len);
	r->headers = cJSON_CreateObject();
	char *save = NULL;
	char *line = strtok_r(head, "\r\n", &save);
	char version[16] = "";
	if (!line || sscanf(line, "%15s %1023s %15s", r->method, r->path, version) != 3) {
		free(head);
		return -1;
	}
	r->path[strcspn(r->path, "?")] = '\0';
	while ((line = strtok_r(NULL, "\r\n", &save)))
		parse_header(r, line);
	free(head);
	if (!strcmp(version, "HTTP/1.0"))
		r->close = true;
	const char *expect = json_str(r->headers, "expect");
	if (expect && !strcasecmp(expect, "100-continue"))
		send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	const char *te = json_str(r->headers, "transfer-encoding");
	if (te && strstr(te, "chunked"))
		return read_chunked(fd, in, &r->body);
	const char *cl = json_str(r->headers, "content-length");
	size_t len = cl ? strtoul(cl, NULL, 10) : 0;
	if (need(fd, in, len) < 0)
		return -1;
	buf_add(&r->body, in->data, len);
	consume(in, len);
	return 0;
}

/* ---------------------------------------------------------------- responses */

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "Status";
	}
}

static void head_lines(struct buf *out, int status, const cJSON *step, const char *ctype)
{
	buf_printf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n", status, reason(status), ctype);
	for (const cJSON *h = json_get(step, "headers") ? json_get(step, "headers")->child : NULL; h; h = h->next)
		if (cJSON_IsString(h))
			buf_printf(out, "%s: %s\r\n", h->string, h->valuestring);
		else if (cJSON_IsNumber(h))
			buf_printf(out, "%s: %g\r\n", h->string, h->valuedouble);
}

/* Sends status + JSON or text body with Content-Length; truncate sends the
 * headers and half the body, then the caller closes. */
static int send_plain(int fd, int status, const cJSON *step, const char *body, bool keep)
{
	struct buf out = BUF_INIT;
	bool truncate = json_bool(step, "truncate", false);
	size_t len = strlen(body);
	double trickle = json_num(step, "trickle", 0);
	head_lines(&out, status, step, "application/json");
	buf_printf(&out, "Content-Length: %zu\r\n%s\r\n", len, keep && !truncate ? "" : "Connection: close\r\n");
	size_t head = out.len;
	buf_add(&out, body, truncate ? len / 2 : len);
	if (trickle <= 0) {
		int rc = send_all(fd, out.data, out.len);
		buf_free(&out);
		return rc;
	}
	/* the headers, then the body one byte every trickle seconds */
	int rc = send_all(fd, out.data, head);
	for (size_t i = head; rc == 0 && i < out.len; i++) {
		nap(trickle);
		rc = send_all(fd, out.data + i, 1);
	}
	buf_free(&out);
	return rc;
}

static const char *last_user(const cJSON *req)
{
	const char *text = "";
	const cJSON *msgs = json_get(req, "messages");
	for (const cJSON *m = msgs ? msgs->child : NULL; m; m = m->next) {
		const char *role = json_str(m, "role");
		if (role && !strcmp(role, "user") && json_str(m, "content"))
			text = json_str(m, "content");
	}
	return text;
}

/* The assistant's content (NULL when none) per the step. Caller frees. */
static char *step_text(const cJSON *step, const cJSON *req)
{
	if (json_str(step, "text"))
		return xstrdup(json_str(step, "text"));
	if (json_get(step, "json")) {
		struct buf b = BUF_INIT;
		json_canon(json_get(step, "json"), false, &b);
		return buf_detach(&b);
	}
	if (json_bool(step, "echo", false))
		return xstrdup(last_user(req));
	return json_get(step, "tool_calls") ? NULL : xstrdup("");
}

static cJSON *tool_calls(const cJSON *step, long seq)
{
	const cJSON *tc = json_get(step, "tool_calls");
	if (!cJSON_IsArray(tc))
		return NULL;
	cJSON *out = cJSON_CreateArray();
	int i = 0;
	for (const cJSON *t = tc->child; t; t = t->next, i++) {
		cJSON *c = cJSON_CreateObject();
		char id[64];
		snprintf(id, sizeof id, "call_%ld_%d", seq, i);
		json_set_str(c, "id", json_str(t, "id") ? json_str(t, "id") : id);
		json_set_str(c, "type", "function");
		cJSON *f = json_set(c, "function", cJSON_CreateObject());
		json_set_str(f, "name", json_str(t, "name") ? json_str(t, "name") : "tool");
		const cJSON *args = json_get(t, "arguments");
		if (cJSON_IsString(args)) {
			json_set_str(f, "arguments", args->valuestring);
		} else {
			struct buf b = BUF_INIT;
			if (args)
				json_canon(args, false, &b);
			else
				buf_adds(&b, "{}");
			json_set_str(f, "arguments", b.data);
			buf_free(&b);
		}
		cJSON_AddItemToArray(out, c);
	}
	return out;
}

static cJSON *usage_of(const cJSON *step, const struct request *r, const char *text)
{
	const cJSON *u = json_get(step, "usage");
	long in = (long)json_num(u, "prompt_tokens", (double)(r->body.len / 4 + 1));
	long out = (long)json_num(u, "completion_tokens", (double)((text ? strlen(text) : 0) / 4 + 1));
	cJSON *o = cJSON_CreateObject();
	json_set_num(o, "prompt_tokens", (double)in);
	json_set_num(o, "completion_tokens", (double)out);
	json_set_num(o, "total_tokens", (double)(in + out));
	/* the providers' prompt-cache counts, as the script gives them */
	static const char *const cache_keys[] = { "prompt_tokens_details", "prompt_cache_hit_tokens",
						  "cache_read_input_tokens" };
	for (size_t i = 0; i < sizeof cache_keys / sizeof cache_keys[0]; i++)
		if (json_get(u, cache_keys[i]))
			json_set(o, cache_keys[i], cJSON_Duplicate(json_get(u, cache_keys[i]), true));
	return o;
}

/* A chat request's messages as one text, roles included, in order. */
static char *prompt_text(const char *body)
{
	cJSON *req = cJSON_Parse(body ? body : "");
	struct buf b = BUF_INIT;
	const cJSON *msgs = json_get(req, "messages");
	for (const cJSON *m = msgs ? msgs->child : NULL; m; m = m->next) {
		buf_printf(&b, "%s\n", json_str(m, "role") ? json_str(m, "role") : "");
		const cJSON *c = json_get(m, "content");
		if (cJSON_IsString(c))
			buf_adds(&b, c->valuestring);
		for (const cJSON *p = cJSON_IsArray(c) ? c->child : NULL; p; p = p->next)
			if (json_str(p, "text"))
				buf_adds(&b, json_str(p, "text"));
		buf_adds(&b, "\n");
	}
	cJSON_Delete(req);
	char *s = buf_detach(&b);
	return s;
}

/* prefix_cache: what a provider's prompt cache would serve of this request
 * (the longest prefix shared with an earlier one, 4 bytes a token) put in
 * the step's usage as OpenAI's cached_tokens, unless the step gives a count.
 * Under the server's lock. */
static void prefix_cached(struct server *s, const struct request *r, cJSON *step)
{
	char *p = prompt_text(r->body.data);
	size_t best = 0, len = strlen(p);
	for (size_t i = 0; i < s->prompts.n; i++) {
		const char *q = s->prompts.v[i];
		size_t k = 0;
		while (k < len && q[k] == p[k])
			k++;
		if (k > best)
			best = k;
	}
	strlist_push_owned(&s->prompts, p);
	cJSON *u = json_get(step, "usage");
	if (!u)
		u = json_set(step, "usage", cJSON_CreateObject());
	if (!json_get(u, "prompt_tokens"))
		json_set_num(u, "prompt_tokens", (double)(len / 4 + 1));
	if (!json_get(u, "prompt_tokens_details") && !json_get(u, "prompt_cache_hit_tokens") &&
	    !json_get(u, "cache_read_input_tokens")) {
		cJSON *d = json_set(u, "prompt_tokens_details", cJSON_CreateObject());
		json_set_num(d, "cached_tokens", (double)(best / 4));
	}
}

static cJSON *chunk_base(const cJSON *req, long seq)
{
	cJSON *c = cJSON_CreateObject();
	char id[64];
	snprintf(id, sizeof id, "chatcmpl-fake-%ld", seq);
	json_set_str(c, "id", id);
	json_set_str(c, "object", "chat.completion.chunk");
	json_set_num(c, "created", 1700000000);
	json_set_str(c, "model", json_str(req, "model") ? json_str(req, "model") : "fake-model");
	return c;
}

static int send_event(int fd, cJSON *ev, double pause)
{
	struct buf data = BUF_INIT, out = BUF_INIT;
	buf_adds(&data, "data: ");
	if (ev) {
		char *s = cJSON_PrintUnformatted(ev);
		buf_adds(&data, s);
		free(s);
	} else {
		buf_adds(&data, "[DONE]");
	}
	buf_adds(&data, "\n\n");
	buf_printf(&out, "%zx\r\n%s\r\n", data.len, data.data);
	int rc = send_all(fd, out.data, out.len);
	buf_free(&data);
	buf_free(&out);
	cJSON_Delete(ev);
	nap(pause);
	return rc;
}

static cJSON *delta_event(const cJSON *req, long seq, cJSON *delta, const char *finish)
{
	cJSON *ev = chunk_base(req, seq);
	cJSON *ch = cJSON_CreateObject();
	json_set_num(ch, "index", 0);
	json_set(ch, "delta", delta);
	json_set_str(ch, "finish_reason", finish);
	cJSON_AddItemToArray(json_set(ev, "choices", cJSON_CreateArray()), ch);
	return ev;
}

/* Splits s into pieces of about 16 bytes without cutting a UTF-8 sequence. */
static size_t piece_len(const char *s)
{
	size_t n = strlen(s);
	if (n <= 16)
		return n;
	size_t k = 16;
	while (k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
		k++;
	return k;
}

/* OpenAI's streaming format: role, content pieces, tool-call pieces, the
 * finish reason, an optional usage chunk, then [DONE]. */
static int send_stream(int fd, const cJSON *step, const cJSON *req, const struct request *r, long seq,
		       bool keep)
{
	double pause = json_num(step, "chunk_delay", 0);
	struct buf out = BUF_INIT;
	head_lines(&out, 200, step, "text/event-stream");
	buf_printf(&out, "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n%s\r\n",
		   keep ? "" : "Connection: close\r\n");
	int rc = send_all(fd, out.data, out.len);
	buf_free(&out);
	char *text = step_text(step, req);
	cJSON *calls = tool_calls(step, seq);
	cJSON *d = cJSON_CreateObject();
	json_set_str(d, "role", "assistant");
	json_set_str(d, "content", "");
	if (rc == 0)
		rc = send_event(fd, delta_event(req, seq, d, NULL), pause);
	else
		cJSON_Delete(d);
	for (const char *p = text; rc == 0 && p && *p;) {
		size_t n = piece_len(p);
		char *piece = xstrndup(p, n);
		d = cJSON_CreateObject();
		json_set_str(d, "content", piece);
		free(piece);
		rc = send_event(fd, delta_event(req, seq, d, NULL), pause);
		p += n;
		if (json_bool(step, "truncate", false))
			rc = -1; /* cut the stream after its first piece */
	}
	int i = 0;
	for (const cJSON *c = calls ? calls->child : NULL; rc == 0 && c; c = c->next, i++) {
		const cJSON *f = json_get(c, "function");
		cJSON *tc = cJSON_CreateObject();
		json_set_num(tc, "index", i);
		json_set_str(tc, "id", json_str(c, "id"));
		json_set_str(tc, "type", "function");
		cJSON *tf = json_set(tc, "function", cJSON_CreateObject());
		json_set_str(tf, "name", json_str(f, "name"));
		json_set_str(tf, "arguments", "");
		d = cJSON_CreateObject();
		cJSON_AddItemToArray(json_set(d, "tool_calls", cJSON_CreateArray()), tc);
		rc = send_event(fd, delta_event(req, seq, d, NULL), pause);
		for (const char *p = json_str(f, "arguments"); rc == 0 && p && *p;) {
			size_t n = piece_len(p);
			char *piece = xstrndup(p, n);
			tc = cJSON_CreateObject();
			json_set_num(tc, "index", i);
			json_set_str(json_set(tc, "function", cJSON_CreateObject()), "arguments", piece);
			free(piece);
			d = cJSON_CreateObject();
			cJSON_AddItemToArray(json_set(d, "tool_calls", cJSON_CreateArray()), tc);
			rc = send_event(fd, delta_event(req, seq, d, NULL), pause);
			p += n;
		}
	}
	const char *finish = json_str(step, "finish_reason");
	if (!finish)
		finish = calls ? "tool_calls" : "stop";
	if (rc == 0)
		rc = send_event(fd, delta_event(req, seq, cJSON_CreateObject(), finish), pause);
	if (rc == 0 && json_bool(json_get(req, "stream_options"), "include_usage", false)) {
		cJSON *ev = chunk_base(req, seq);
		json_set(ev, "choices", cJSON_CreateArray());
		json_set(ev, "usage", usage_of(step, r, text));
		rc = send_event(fd, ev, pause);
	}
	if (rc == 0)
		rc = send_event(fd, NULL, 0);
	if (rc == 0)
		rc = send_all(fd, "0\r\n\r\n", 5);
	free(text);
	cJSON_Delete(calls);
	return rc;
}

static char *chat_body(const cJSON *step, const cJSON *req, const struct request *r, long seq)
{
	char *text = step_text(step, req);
	cJSON *calls = tool_calls(step, seq);
	cJSON *o = cJSON_CreateObject();
	char id[64];
	snprintf(id, sizeof id, "chatcmpl-fake-%ld", seq);
	json_set_str(o, "id", id);
	json_set_str(o, "object", "chat.completion");
	json_set_num(o, "created", 1700000000);
	json_set_str(o, "model", json_str(req, "model") ? json_str(req, "model") : "fake-model");
	cJSON *ch = cJSON_CreateObject();
	json_set_num(ch, "index", 0);
	cJSON *msg = json_set(ch, "message", cJSON_CreateObject());
	json_set_str(msg, "role", "assistant");
	json_set_str(msg, "content", text);
	const char *finish = json_str(step, "finish_reason");
	if (calls)
		json_set(msg, "tool_calls", calls);
	json_set_str(ch, "finish_reason", finish ? finish : calls ? "tool_calls" : "stop");
	cJSON_AddItemToArray(json_set(o, "choices", cJSON_CreateArray()), ch);
	json_set(o, "usage", usage_of(step, r, text));
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	free(text);
	return s;
}

static char *models_body(const cJSON *step)
{
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "object", "list");
	cJSON *data = json_set(o, "data", cJSON_CreateArray());
	const cJSON *ids = json_get(step, "models");
	for (const cJSON *m = ids ? ids->child : NULL; m; m = m->next) {
		if (!cJSON_IsString(m))
			continue;
		cJSON *e = cJSON_CreateObject();
		json_set_str(e, "id", m->valuestring);
		json_set_str(e, "object", "model");
		json_set_str(e, "owned_by", "fakellm");
		cJSON_AddItemToArray(data, e);
	}
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static char *score_body(const cJSON *step)
{
	cJSON *o = cJSON_CreateObject();
	if (json_get(step, "score"))
		json_set(o, "score", cJSON_Duplicate(json_get(step, "score"), true));
	if (json_get(step, "scores"))
		json_set(o, "scores", cJSON_Duplicate(json_get(step, "scores"), true));
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static char *error_body(int status)
{
	return xasprintf("{\"error\":{\"message\":\"scripted HTTP %d\",\"type\":\"fakellm\",\"code\":%d}}",
			 status, status);
}

/* ---------------------------------------------------------------- bookkeeping */

static void write_stats(struct server *s)
{
	if (!s->stats_path)
		return;
	char *text = xasprintf("{\"requests\":%ld,\"in_flight\":%d,\"peak_in_flight\":%d,\"done\":%ld}\n", s->seq,
			       s->in_flight, s->peak, s->done);
	struct err e;
	fs_write_atomic(s->stats_path, text, strlen(text), 0644, &e);
	free(text);
}

static void log_request(struct server *s, const struct request *r, const char *ep, long seq, int step,
			int rule, int status, int in_flight)
{
	if (!s->log_path)
		return;
	cJSON *o = cJSON_CreateObject();
	json_set_num(o, "seq", (double)seq);
	json_set_num(o, "time", now_wall());
	json_set_str(o, "method", r->method);
	json_set_str(o, "path", r->path);
	json_set_str(o, "endpoint", ep);
	json_set(o, "headers", cJSON_Duplicate(r->headers, true));
	cJSON *auth = json_set(o, "auth", cJSON_CreateObject());
	json_set_bool(auth, "present", r->auth_present);
	json_set_str(auth, "hash", r->auth_present ? r->auth_hash : NULL);
	cJSON *body = r->body.len ? cJSON_Parse(r->body.data) : NULL;
	if (body)
		json_set(o, "body", body);
	else
		json_set_str(o, "body", r->body.len ? r->body.data : NULL);
	if (step >= 0)
		json_set_num(o, "step", step);
	else
		json_set(o, "step", cJSON_CreateNull());
	if (rule >= 0)
		json_set_num(o, "rule", rule);
	json_set_num(o, "status", status);
	json_set_num(o, "in_flight", in_flight);
	struct buf line = BUF_INIT;
	json_canon(o, false, &line);
	buf_addc(&line, '\n');
	FILE *f = fopen(s->log_path, "a");
	if (f) {
		fwrite(line.data, 1, line.len, f);
		fclose(f);
	}
	buf_free(&line);
	cJSON_Delete(o);
}

static int endpoint_of(const struct request *r)
{
	const char *p = r->path;
	bool post = !strcmp(r->method, "POST"), get = !strcmp(r->method, "GET");
	if (post && (!strcmp(p, "/v1/chat/completions") || !strcmp(p, "/chat/completions")))
		return EP_CHAT;
	if (get && (!strcmp(p, "/v1/models") || !strcmp(p, "/models")))
		return EP_MODELS;
	if (post && (!strcmp(p, "/score") || !strcmp(p, "/v1/score")))
		return EP_SCORE;
	if (get && !strcmp(p, "/health"))
		return EP_HEALTH;
	return -1;
}

/* True when the body holds match: a string, or every string of a list. */
static bool body_matches(const cJSON *match, const char *body)
{
	if (!body)
		return false;
	if (cJSON_IsString(match))
		return strstr(body, match->valuestring) != NULL;
	if (!cJSON_IsArray(match) || !match->child)
		return false;
	for (const cJSON *m = match->child; m; m = m->next)
		if (!cJSON_IsString(m) || !strstr(body, m->valuestring))
			return false;
	return true;
}

/* The first rule whose "match" is in the body (and whose "endpoint",
 * default chat, is this one), or -1. */
static int match_rule(const struct server *s, int ep, const struct request *r)
{
	int i = 0;
	for (const cJSON *rule = s->rules ? s->rules->child : NULL; rule; rule = rule->next, i++) {
		const char *want = json_str(rule, "endpoint");
		if (body_matches(json_get(rule, "match"), r->body.data) && !strcmp(want ? want : "chat", ep_names[ep]))
			return i;
	}
	return -1;
}

/* Picks the step for this request under the lock; -1: none scripted. */
static int take_step(struct server *s, int ep)
{
	int n = cJSON_GetArraySize(s->steps[ep]);
	if (n == 0)
		return -1;
	unsigned i = s->next[ep]++;
	return s->cycle ? (int)(i % (unsigned)n) : (int)(i < (unsigned)n ? i : (unsigned)n - 1);
}

static cJSON *default_step(int ep)
{
	switch (ep) {
	case EP_MODELS: return cJSON_Parse("{\"models\":[\"fake-model\"]}");
	case EP_HEALTH: return cJSON_Parse("{\"body\":{\"status\":\"ok\"}}");
	case EP_SCORE: return cJSON_Parse("{\"score\":0.5}");
	default: return cJSON_Parse("{\"text\":\"ok\"}");
	}
}

/* Answers one request; false when the connection must close. */
static bool serve(struct server *s, int fd, struct request *r)
{
	if (!strcmp(r->path, "/_fake/stats")) {
		pthread_mutex_lock(&s->mu);
		char *b = xasprintf("{\"requests\":%ld,\"in_flight\":%d,\"peak_in_flight\":%d,\"done\":%ld}", s->seq,
				    s->in_flight, s->peak, s->done);
		pthread_mutex_unlock(&s->mu);
		send_plain(fd, 200, NULL, b, !r->close);
		free(b);
		return !r->close;
	}
	int ep = endpoint_of(r);
	pthread_mutex_lock(&s->mu);
	long seq = ++s->seq;
	int in_flight = ++s->in_flight;
	if (s->in_flight > s->peak)
		s->peak = s->in_flight;
	bool authed = !s->require_key || (r->auth && !strcmp(r->auth, s->require_key));
	int rule = ep >= 0 && authed ? match_rule(s, ep, r) : -1;
	int idx = ep >= 0 && authed && rule < 0 ? take_step(s, ep) : -1;
	cJSON *step = rule >= 0 ? cJSON_Duplicate(cJSON_GetArrayItem(s->rules, rule), true)
		    : idx >= 0 ? cJSON_Duplicate(cJSON_GetArrayItem(s->steps[ep], idx), true)
		    : ep >= 0 && authed ? default_step(ep) : cJSON_CreateObject();
	int status = ep < 0 ? 404 : !authed ? 401 : (int)json_num(step, "status", 200);
	if (s->prefix_cache && ep == EP_CHAT && status == 200)
		prefix_cached(s, r, step);
	log_request(s, r, ep >= 0 ? ep_names[ep] : "unknown", seq, idx, rule, status, in_flight);
	write_stats(s);
	pthread_mutex_unlock(&s->mu);

	nap(json_num(step, "delay", 0));
	/* answered from here: a client may take its next turn as soon as the
	 * answer arrives, so the request stops counting before it is written */
	pthread_mutex_lock(&s->mu);
	s->in_flight--;
	pthread_mutex_unlock(&s->mu);
	bool keep = !r->close && !json_bool(step, "truncate", false);
	cJSON *req = cJSON_Parse(r->body.data);
	int rc = 0;
	if (json_bool(step, "close", false)) {
		keep = false;
	} else if (json_get(step, "body") && status != 401) {
		const cJSON *b = json_get(step, "body");
		char *text = cJSON_IsString(b) ? xstrdup(b->valuestring) : cJSON_PrintUnformatted(b);
		rc = send_plain(fd, status, step, text, keep);
		free(text);
	} else if (status != 200) {
		char *text = error_body(status);
		rc = send_plain(fd, status, step, text, keep);
		free(text);
	} else if (json_bool(step, "malformed", false)) {
		rc = send_plain(fd, 200, step, "{\"choices\": [ this is not JSON", keep);
	} else if (ep == EP_CHAT && json_bool(req, "stream", false)) {
		rc = send_stream(fd, step, req, r, seq, keep);
		if (json_bool(step, "truncate", false))
			keep = false;
	} else {
		char *text = ep == EP_CHAT ? chat_body(step, req, r, seq)
			   : ep == EP_MODELS ? models_body(step)
			   : ep == EP_SCORE ? score_body(step) : xstrdup("{}");
		rc = send_plain(fd, 200, step, text, keep);
		free(text);
	}
	cJSON_Delete(req);
	cJSON_Delete(step);
	pthread_mutex_lock(&s->mu);
	s->done++;
	write_stats(s);
	pthread_mutex_unlock(&s->mu);
	return keep && rc == 0;
}

struct conn {
	struct server *s;
	int fd;
};

static void *conn_main(void *arg)
{
	struct conn *c = arg;
	struct buf in = BUF_INIT;
	for (;;) {
		struct request r = { .body = BUF_INIT };
		if (read_request(c->fd, &in, &r) < 0) {
			request_free(&r);
			break;
		}
		bool again = serve(c->s, c->fd, &r);
		request_free(&r);
		if (!again)
			break;
	}
	buf_free(&in);
	close(c->fd);
	free(c);
	return NULL;
}

static int load_script(struct server *s, const char *path)
{
	struct err e;
	s->script = path ? json_read_file(path, &e) : cJSON_CreateArray();
	if (!s->script)
		die(2, "%s", e.msg);
	if (cJSON_IsArray(s->script)) {
		s->steps[EP_CHAT] = s->script;
		return 0;
	}
	if (!cJSON_IsObject(s->script))
		die(2, "script '%s' must be a list of steps or an object (see docs/llm.md)", path);
	for (int i = 0; i < EP_N; i++) {
		const cJSON *v = json_get(s->script, ep_names[i]);
		if (v && !cJSON_IsArray(v))
			die(2, "script '%s': \"%s\" must be a list of steps", path, ep_names[i]);
		s->steps[i] = v;
	}
	const char *then = json_str(s->script, "then");
	if (then && strcmp(then, "repeat") && strcmp(then, "cycle"))
		die(2, "script '%s': \"then\" must be \"repeat\" or \"cycle\"", path);
	s->cycle = then && !strcmp(then, "cycle");
	s->require_key = json_str(s->script, "require_key");
	s->rules = json_get(s->script, "rules");
	s->prefix_cache = json_bool(s->script, "prefix_cache", false);
	if (s->rules && !cJSON_IsArray(s->rules))
		die(2, "script '%s': \"rules\" must be a list of steps with \"match\"", path);
	return 0;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	struct server s = { .mu = PTHREAD_MUTEX_INITIALIZER, .prompts = STRLIST_INIT };
	const char *script = NULL, *port_file = NULL;
	int port = 0;
	const struct opt rows[] = {
		OPT_STRING("script", &script, "FILE", "what to answer"),
		OPT_STRING("log", &s.log_path, "FILE", "a JSON line per request"),
		OPT_STRING("stats", &s.stats_path, "FILE", "the counters"),
		OPT_STRING("port-file", &port_file, "FILE", "where the port goes"),
		OPT_SMALL("port", &port, 0, 65535, "N", "the port (0: any free one)"),
		OPT_END,
	};
	opts_std(argc, argv, usage, rows, "1");
	opts_parse_or_die(rows, argc, argv, 1, NULL);
	load_script(&s, script);
	signal(SIGPIPE, SIG_IGN);
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t alen = sizeof a;
	if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 128) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &alen) < 0)
		die(1, "cannot listen on 127.0.0.1:%d: %s", port, strerror(errno));
	write_stats(&s);
	if (port_file) {
		char text[16];
		int n = snprintf(text, sizeof text, "%d\n", ntohs(a.sin_port));
		struct err e;
		if (fs_write_atomic(port_file, text, (size_t)n, 0644, &e) < 0)
			die_err(&e);
	} else {
		printf("%d\n", ntohs(a.sin_port));
		fflush(stdout);
	}
	for (;;) {
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
				continue;
			die(1, "accept: %s", strerror(errno));
		}
		struct conn *c = xmalloc(sizeof *c);
		c->s = &s;
		c->fd = fd;
		pthread_t t;
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, conn_main, c) != 0) {
			close(fd);
			free(c);
		}
		pthread_attr_destroy(&at);
	}
}
