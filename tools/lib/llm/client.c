#include "llm/client.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/dotenv.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "llm/cache.h"
#include "llm/http.h"
#include "base/log.h"
#include "base/redact.h"
#include "base/slots.h"
#include "llm/usage.h"

#define LLM_MAX_BODY (64u << 20)
#define LLM_DETAIL_MAX 240

struct llm_client {
	struct routes routes;
	struct dotenv env;
	char *env_file;
	char *cache_dir;
	enum llm_cache_mode mode;
	char *usage_file;
	CURL *curl;
	unsigned seed;  /* jitter and slot spreading */
	/* every key value known here (routes' key_env, .env, the environment's
	 * key and token variables) and the name it came from: taken out of every
	 * answer before it is parsed, cached or used */
	struct strlist secrets, secret_names;
};

static void add_secret(struct llm_client *c, const char *name, const char *value)
{
	if (!value || strlen(value) < REDACT_MIN || strlist_has(&c->secrets, value))
		return;
	strlist_push(&c->secrets, value);
	strlist_push(&c->secret_names, name);
}

static void collect_secrets(struct llm_client *c)
{
	for (size_t i = 0; i < c->routes.n; i++) {
		const struct route *rt = &c->routes.v[i];
		enum dotenv_source src;
		if (rt->key_env)
			add_secret(c, rt->key_env, dotenv_get(&c->env, rt->key_env, &src));
	}
	for (size_t i = 0; i < c->env.values.n; i++)
		add_secret(c, c->env.names.v[i], c->env.values.v[i]);
	struct strlist more = STRLIST_INIT;
	redact_secrets_of_env(NULL, &more);
	for (size_t i = 0; i < more.n; i++)
		add_secret(c, "a key of the environment", more.v[i]);
	redact_wipe(&more);
}

static const char *pick(const char *given, const char *var, const char *fallback)
{
	if (given && *given)
		return given;
	const char *v = getenv(var);
	return v && *v ? v : fallback;
}

struct llm_client *llm_open(const struct llm_options *o, struct err *e)
{
	static const struct llm_options none;
	if (!o)
		o = &none;
	struct llm_client *c = xcalloc(1, sizeof *c);
	c->env = (struct dotenv)DOTENV_INIT;
	c->env_file = xstrdup(pick(o->env_file, "ENV_FILE", ".env"));
	c->cache_dir = xstrdup(pick(o->cache_dir, "CACHE_DIR", CACHE_DIR_DEFAULT));
	const char *u = pick(o->usage_file, "SKILLC_USAGE_FILE", NULL);
	c->usage_file = u ? xstrdup(u) : NULL;
	c->seed = (unsigned)getpid() ^ (unsigned)(now_wall() * 1e6);
	char *routes = routes_locate(o->routes);
	int rc = llmcache_mode_parse(pick(o->cache_mode, "LLM_CACHE", "use"), &c->mode, e);
	if (rc == 0)
		rc = routes_load(&c->routes, routes, e);
	if (rc == 0)
		rc = dotenv_load(&c->env, c->env_file, e);
	if (rc == 0)
		collect_secrets(c);
	free(routes);
	if (rc < 0) {
		llm_close(c);
		return NULL;
	}
	return c;
}

void llm_close(struct llm_client *c)
{
	if (!c)
		return;
	http_close(c->curl);
	routes_free(&c->routes);
	dotenv_free(&c->env);
	redact_wipe(&c->secrets);
	strlist_free(&c->secret_names);
	free(c->env_file);
	free(c->cache_dir);
	free(c->usage_file);
	free(c);
}

const struct routes *llm_routes(const struct llm_client *c) { return &c->routes; }
const char *llm_cache_dir(const struct llm_client *c) { return c->cache_dir; }
enum llm_cache_mode llm_cache_mode(const struct llm_client *c) { return c->mode; }
const char *llm_env_file(const struct llm_client *c) { return c->env_file; }

static const char *route_key(const struct llm_client *c, const struct route *rt,
			     enum dotenv_source *src)
{
	if (!rt->key_env) {
		*src = DOTENV_MISSING;
		return NULL;
	}
	return dotenv_get(&c->env, rt->key_env, src);
}

const char *llm_key_source(const struct llm_client *c, const struct route *rt)
{
	enum dotenv_source src;
	const char *key = route_key(c, rt, &src);
	if (!rt->key_env || (!key && !rt->key_required))
		return "not needed";
	switch (src) {
	case DOTENV_ENVIRON: return "environment";
	case DOTENV_FILE: return c->env.path ? "ENV_FILE" : "not set";
	default: return "not set";
	}
}

/* "the environment" or "ENV_FILE '<path>'", for messages. */
static const char *key_origin(const struct llm_client *c, const struct route *rt, char *out, size_t cap)
{
	const char *src = llm_key_source(c, rt);
	if (!strcmp(src, "ENV_FILE"))
		snprintf(out, cap, "ENV_FILE '%s'", c->env.path);
	else if (!strcmp(src, "environment"))
		snprintf(out, cap, "the environment");
	else
		snprintf(out, cap, "%s", src);
	return out;
}

static void nap(double seconds)
{
	if (seconds <= 0)
		return;
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---------------------------------------------------------------- HTTP */

struct http_reply {
	long status;
	struct buf body;
	double retry_after;  /* seconds, < 0 when the server sent none */
	CURLcode cc;
	char errbuf[CURL_ERROR_SIZE];
	double seconds;
	char why[200];       /* our own reason for aborting the transfer */
	/* the watch on a transfer: progress lines, the low-speed floor */
	const struct route *rt;
	const char *url;
	double t0, said, window_t;
	curl_off_t window_bytes;
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct http_reply *r = arg;
	if (r->body.len + size * n > LLM_MAX_BODY) {
		snprintf(r->why, sizeof r->why, "the answer is over %u MB, the client's limit on one answer",
			 LLM_MAX_BODY >> 20);
		return 0; /* aborts the transfer */
	}
	buf_add(&r->body, p, size * n);
	return size * n;
}

/* Every second of a transfer: a line every LLM_SAY_EVERY seconds while an
 * answer is awaited (no silent waits), and the low-speed floor once the
 * answer has begun (a non-streamed answer may think long before its first
 * byte; the request's timeout bounds that). */
#define LLM_SAY_EVERY 60
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal, (void)ultotal, (void)ulnow;
	struct http_reply *r = arg;
	double now = now_mono();
	if (now - r->said >= LLM_SAY_EVERY) {
		r->said = now;
		warnf("still waiting for %s: %.0f s, %ld bytes of the answer so far", r->url, now - r->t0, (long)dlnow);
	}
	if (dlnow == 0 || r->rt->low_speed_bytes <= 0)
		return 0;
	if (r->window_t == 0) {
		r->window_t = now;
		r->window_bytes = dlnow;
	} else if (now - r->window_t >= r->rt->low_speed_time) {
		if ((double)(dlnow - r->window_bytes) < r->rt->low_speed_bytes) {
			snprintf(r->why, sizeof r->why, "the answer trickled in slower than %.0f bytes in %.0f s "
				 "(low_speed_bytes, low_speed_time of the route)", r->rt->low_speed_bytes, r->rt->low_speed_time);
			return 1; /* aborts the transfer */
		}
		r->window_t = now;
		r->window_bytes = dlnow;
	}
	return 0;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct http_reply *r = arg;
	size_t len = size * n;
	static const char name[] = "retry-after:";
	if (len > sizeof name - 1 && !strncasecmp(p, name, sizeof name - 1)) {
		char *v = xstrndup(p + sizeof name - 1, len - (sizeof name - 1));
		char *s = v;
		while (*s == ' ' || *s == '\t')
			s++;
		s[strcspn(s, "\r\n")] = '\0';
		char *end;
		double d = strtod(s, &end);
		if (end != s && *end == '\0' && d >= 0) {
			r->retry_after = d;
		} else {
			time_t t = curl_getdate(s, NULL); /* an HTTP date */
			if (t > 0)
				r->retry_after = fmax(0, (double)t - now_wall());
		}
		free(v);
	}
	return len;
}

static void wipe_list(struct curl_slist *l)
{
	for (struct curl_slist *s = l; s; s = s->next)
		explicit_bzero(s->data, strlen(s->data));
	curl_slist_free_all(l);
}

/* One request; body NULL means GET. The key is only ever put in a header. */
static void http_do(struct llm_client *c, const struct route *rt, const char *url,
		    const char *body, const char *key, double timeout, struct http_reply *r)
{
	r->errbuf[0] = '\0';
	r->retry_after = -1;
	r->status = 0;
	/* libcurl is loaded by the first request: a run the cache serves never loads it */
	if (!c->curl && !(c->curl = http_open())) {
		r->cc = CURLE_FAILED_INIT;
		snprintf(r->errbuf, sizeof r->errbuf, "%s", curldl_error());
		return;
	}
	struct curl_slist *h = http_json_headers(body != NULL);
	if (key) {
		char *auth = xasprintf("Authorization: Bearer %s", key);
		h = curl_slist_append(h, auth);
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	for (size_t i = 0; i < rt->headers.n; i++)
		h = curl_slist_append(h, rt->headers.v[i]);
	CURL *k = c->curl;
	struct http_json q = { .url = url, .agent = "skillc-llm/1", .body = body,
			       .connect_ms = (long)(rt->connect_timeout * 1000),
			       .timeout_ms = (long)(timeout * 1000),
			       .on_body = on_body, .ctx = r, .errbuf = r->errbuf };
	http_json_setup(k, &q, h);
	curl_easy_setopt(k, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(k, CURLOPT_HEADERDATA, r);
	r->rt = rt;
	r->url = url;
	r->t0 = r->said = now_mono();
	curl_easy_setopt(k, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(k, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(k, CURLOPT_XFERINFODATA, r);
	curl_easy_setopt(k, CURLOPT_ACCEPT_ENCODING, "");
	r->retry_after = -1;
	double t0 = now_mono();
	r->cc = http_json_perform(k, &r->status);
	r->seconds = now_mono() - t0;
	wipe_list(h);
}

/* Replaces every copy of the key in s (a provider may echo it back). */
static void scrub(char *s, const char *key)
{
	size_t kl = key ? strlen(key) : 0;
	if (kl < 5)
		return; /* "[key]" must not be longer than what it replaces */
	for (char *p = strstr(s, key); p; p = strstr(p, key)) {
		memmove(p + 5, p + kl, strlen(p + kl) + 1);
		memcpy(p, "[key]", 5);
	}
}

/* The provider's own words about an error, short, one line, scrubbed. */
static void error_detail(const struct buf *body, const char *key, char *out, size_t cap)
{
	out[0] = '\0';
	cJSON *doc = body->len ? cJSON_Parse(body->data) : NULL;
	const char *msg = NULL;
	if (doc) {
		const cJSON *err = json_get(doc, "error");
		msg = cJSON_IsString(err) ? err->valuestring : json_str(err, "message");
		if (!msg)
			msg = json_str(doc, "message");
		if (!msg)
			msg = json_str(doc, "detail");
	}
	if (msg) {
		snprintf(out, cap, "%s", msg);
		scrub(out, key);
		for (char *p = out; *p; p++)
			if ((unsigned char)*p < ' ')
				*p = ' ';
		if (strlen(msg) >= cap && cap > 4)
			memcpy(out + cap - 4, "...", 4);
	}
	cJSON_Delete(doc);
}

static bool status_retryable(long s)
{
	return s == 408 || s == 409 || s == 425 || s == 429 || s >= 500;
}

static bool curl_retryable(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_ABORTED_BY_CALLBACK: /* the low-speed floor */
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

/* Why a request that cannot succeed failed, in words that say what to do. */
static int fatal_status(const struct llm_client *c, const struct route *rt, const char *model,
			const char *url, const struct http_reply *r, const char *detail, struct err *e)
{
	const char *p = rt->provider;
	char origin[PATH_MAX + 16];
	char more[LLM_DETAIL_MAX + 8] = "";
	if (*detail)
		snprintf(more, sizeof more, ": %s", detail);
	switch (r->status) {
	case 401:
		if (!rt->key_env)
			return err_set(e, ERR_INPUT, "provider '%s' wants a key (HTTP 401) but its route has no key_env: add one to routes '%s'",
				       p, c->routes.path);
		if (!strcmp(llm_key_source(c, rt), "not needed") || !strcmp(llm_key_source(c, rt), "not set"))
			return err_set(e, ERR_INPUT, "provider '%s' wants a key (HTTP 401): set %s in the environment or in ENV_FILE '%s'",
				       p, rt->key_env, c->env_file);
		return err_set(e, ERR_INPUT, "provider '%s' rejected the key in %s (HTTP 401, key from %s): check or replace it",
			       p, rt->key_env, key_origin(c, rt, origin, sizeof origin));
	case 403:
		return err_set(e, ERR_INPUT, "provider '%s' refused model '%s' (HTTP 403) with the key in %s: check the key's permissions and the model's access%s",
			       p, model, rt->key_env ? rt->key_env : "(none)", more);
	case 404:
		return err_set(e, ERR_INPUT, "provider '%s' has no model '%s' or no endpoint %s (HTTP 404): check the model id and base_url%s",
			       p, model, url, more);
	default:
		return err_set(e, ERR_INPUT, "provider '%s' rejected the request for model '%s' (HTTP %ld)%s",
			       p, model, r->status, more);
	}
}

/* ---------------------------------------------------------------- one request */

struct attempt_info {
	int attempts;
	long status;
	double latency;  /* of the answering request */
};

static double backoff(struct llm_client *c, const struct route *rt, int attempt)
{
	/* 2^(attempt-1) by ldexp, not pow: libm.a's pow does not link into skillc-static */
	double d = rt->retry.base_delay * ldexp(1, attempt - 1);
	if (d > rt->retry.max_delay)
		d = rt->retry.max_delay;
	return d * (0.5 + 0.5 * (rand_r(&c->seed) % 1000) / 1000.0); /* jitter spreads retries */
}

/* Only an answer of the expected shape is used and cached: its first
 * choice an object whose message.content (or text) is a string, or a
 * message with tool calls. */
static bool answer_well_formed(const cJSON *doc)
{
	const cJSON *choice = cJSON_GetArrayItem(json_get(doc, "choices"), 0);
	const cJSON *msg = json_get(choice, "message");
	return cJSON_IsObject(choice) &&
	       (cJSON_IsString(json_get(msg, "content")) || cJSON_IsString(json_get(choice, "text")) ||
		cJSON_IsArray(json_get(msg, "tool_calls")));
}

/* One HTTP reply judged: the answer (into *resp), a failure no retry can
 * mend (in e), or one to try again (why says what; *retry false when a
 * transport error will not pass by waiting). */
enum reply_verdict { REPLY_OK, REPLY_FATAL, REPLY_AGAIN };

static enum reply_verdict judge_reply(struct llm_client *c, const struct route *rt, const char *model,
				      const char *url, const char *key, const struct http_reply *r,
				      cJSON **resp, struct attempt_info *ai, char *why, size_t why_size,
				      bool *retry, struct err *e)
{
	char detail[LLM_DETAIL_MAX];
	error_detail(&r->body, key, detail, sizeof detail);
	*retry = true;
	if (r->cc != CURLE_OK) {
		snprintf(why, why_size, "%s: %s", url, r->why[0] ? r->why : r->errbuf[0] ? r->errbuf : curl_easy_strerror(r->cc));
		scrub(why, key);
		*retry = curl_retryable(r->cc);
		return REPLY_AGAIN;
	}
	if (r->status >= 200 && r->status < 300) {
		cJSON *doc = r->body.len ? cJSON_Parse(r->body.data) : NULL;
		if (cJSON_IsArray(json_get(doc, "choices")) && cJSON_GetArraySize(json_get(doc, "choices")) > 0 &&
		    answer_well_formed(doc)) {
			*resp = doc;
			ai->latency = r->seconds;
			return REPLY_OK;
		}
		snprintf(why, why_size, "%s", !doc ? "the answer is not JSON (malformed or cut short)"
			 : *detail ? detail : !cJSON_IsArray(json_get(doc, "choices")) ? "the answer has no \"choices\""
			 : "the answer's first choice holds no text (message.content or text must be a string): "
			   "not cached");
		cJSON_Delete(doc);
		return REPLY_AGAIN;
	}
	if (!status_retryable(r->status)) {
		fatal_status(c, rt, model, url, r, detail, e);
		return REPLY_FATAL;
	}
	snprintf(why, why_size, "HTTP %ld%s%s", r->status, *detail ? ": " : "", detail);
	return REPLY_AGAIN;
}

/* A model may echo a key it saw (in a trace, a skill, a file): every known
 * key value is taken out of the answer's bytes before they are parsed,
 * cached, written or used, and the stage is told which variable's it was. */
static size_t scrub_answer(const struct llm_client *c, const char *provider, const char *model, struct buf *body,
			   const char *whence)
{
	int first;
	size_t n = body->len ? redact_buf(body, &c->secrets, &first) : 0;
	if (!n)
		return 0;
	const char *stage = getenv("SKILLC_STAGE");
	warnf("warning: %s%s%sthe %s of model '%s%s%s' held the value of %s (%zu cop%s): replaced by %s before it is cached or used",
	      stage ? "stage '" : "", stage ? stage : "", stage ? "': " : "", whence, provider ? provider : "",
	      provider ? "/" : "", model,
	      c->secret_names.v[first], n, n == 1 ? "y" : "ies", REDACTED);
	return n;
}

/* Sends body to the route until it answers, a fatal status comes, or the
 * attempts or the time run out. *resp is the parsed answer. */
static int fetch(struct llm_client *c, const struct route *rt, const char *model,
		 const char *body, const char *key, cJSON **resp, struct attempt_info *ai,
		 struct err *e)
{
	char *url = xasprintf("%s/chat/completions", rt->base_url);
	char *slots = path_join(c->cache_dir, "slots");
	char why[LLM_DETAIL_MAX + 160] = "";
	double start = now_mono();
	int rc = -1;
	*resp = NULL;
	for (int attempt = 1;; attempt++) {
		struct http_reply r = { .body = BUF_INIT };
		int slot = -1;
		if (rt->max_concurrency > 0 &&
		    (slot = slot_acquire(slots, rt->provider, rt->max_concurrency, &c->seed, e)) < 0)
			break;
		http_do(c, rt, url, body, key, rt->timeout, &r);
		slot_release(slot);
		scrub_answer(c, rt->provider, model, &r.body, "answer");
		ai->attempts = attempt;
		ai->status = r.status;
		bool retry;
		enum reply_verdict v = judge_reply(c, rt, model, url, key, &r, resp, ai, why, sizeof why, &retry, e);
		buf_free(&r.body);
		if (v != REPLY_AGAIN) {
			rc = v == REPLY_OK ? 0 : -1;
			break;
		}
		double waited = now_mono() - start;
		double delay = r.retry_after >= 0 ? r.retry_after : backoff(c, rt, attempt);
		if (!retry || attempt >= rt->retry.attempts || waited + delay > rt->retry.total) {
			err_set(e, retry ? ERR_WORK : ERR_INPUT,
				"provider '%s' (model '%s') failed after %d attempt%s in %.0f s: %s%s", rt->provider,
				model, attempt, attempt == 1 ? "" : "s", waited, why,
				retry ? " (try again later, or raise retry limits in the routes file)" : "");
			break;
		}
		nap(delay);
	}
	free(slots);
	free(url);
	return rc;
}

/* ---------------------------------------------------------------- answers */

struct answer {
	const char *text;          /* borrowed from the response */
	const char *finish_reason;
	long tokens_in, tokens_out;
	long tokens_cached; /* of tokens_in, what the provider's prompt cache served */
};

/* The provider's count of prompt tokens its prompt cache served: OpenAI
 * (and vLLM) usage.prompt_tokens_details.cached_tokens, DeepSeek
 * prompt_cache_hit_tokens, Anthropic's cache_read_input_tokens. */
static long cached_tokens(const cJSON *u)
{
	const cJSON *d = json_get(u, "prompt_tokens_details");
	double n = json_num(d, "cached_tokens", -1);
	if (n < 0)
		n = json_num(u, "prompt_cache_hit_tokens", -1);
	if (n < 0)
		n = json_num(u, "cache_read_input_tokens", 0);
	return n > 0 ? (long)n : 0;
}

static void read_answer(const cJSON *resp, struct answer *a)
{
	const cJSON *choice = cJSON_GetArrayItem(json_get(resp, "choices"), 0);
	const cJSON *msg = json_get(choice, "message");
	a->text = json_str(msg, "content");
	if (!a->text)
		a->text = json_str(choice, "text");
	if (!a->text)
		a->text = "";
	a->finish_reason = json_str(choice, "finish_reason");
	const cJSON *u = json_get(resp, "usage");
	a->tokens_in = (long)json_num(u, "prompt_tokens", 0);
	a->tokens_out = (long)json_num(u, "completion_tokens", 0);
	a->tokens_cached = cached_tokens(u);
	if (a->tokens_cached > a->tokens_in)
		a->tokens_cached = a->tokens_in;
}

static void usage_record(struct llm_client *c, const struct llm_request *req, const struct route *rt,
			 const char *key, const char *cache, const struct attempt_info *ai,
			 const cJSON *resp, double cost, int repair, double elapsed, const struct err *failed,
			 struct err *e, int *rc)
{
	if (!c->usage_file)
		return;
	char when[32];
	iso_time(now_wall(), when);
	struct answer a = { 0 };
	if (resp)
		read_answer(resp, &a);
	cJSON *rec = cJSON_CreateObject();
	json_set_str(rec, "time", when);
	json_set_str(rec, "tool", log_prog());
	json_set_str(rec, "label", req->label);
	json_set_str(rec, "model", req->model);
	json_set_str(rec, "provider", rt->provider);
	json_set_str(rec, "key", key);
	json_set_str(rec, "cache", cache);
	json_set_num(rec, "attempts", ai->attempts);
	json_set_num(rec, "status", (double)ai->status);
	json_set_str(rec, "outcome", failed ? "error" : "ok");
	if (failed)
		json_set_str(rec, "error", failed->msg);
	json_set_num(rec, "tokens_in", (double)a.tokens_in);
	json_set_num(rec, "tokens_out", (double)a.tokens_out);
	json_set_num(rec, "tokens_cached", (double)a.tokens_cached);
	json_set_num(rec, "latency_s", round_to(ai->latency, 3));
	json_set_num(rec, "elapsed_s", round_to(elapsed, 3));
	if (cost >= 0)
		json_set_num(rec, "cost_usd", cost);
	else
		json_set(rec, "cost_usd", cJSON_CreateNull());
	json_set_num(rec, "repair", repair);
	if (usage_append(c->usage_file, rec, e) < 0 && *rc == 0)
		*rc = -1;
	cJSON_Delete(rec);
}

static double price_of(const struct route *rt, const char *model, const cJSON *resp)
{
	double in, out, cached;
	if (!route_price(rt, model, &in, &out))
		return -1;
	route_cached_price(rt, model, &cached);
	struct answer a;
	read_answer(resp, &a);
	return ((double)(a.tokens_in - a.tokens_cached) * in + (double)a.tokens_cached * cached +
		(double)a.tokens_out * out) / 1e6;
}

/* What the answer is cached under: the format, where it goes and the body
 * (the key is its hash). Caller deletes. */
static cJSON *cache_keyed(const struct llm_request *req, const struct route *rt, const cJSON *body, char key[33])
{
	cJSON *keyed = cJSON_CreateObject();
	json_set_num(keyed, "format", LLMCACHE_FORMAT);
	json_set_str(keyed, "url", rt->base_url);
	json_set_str(keyed, "api", rt->api);
	json_set_str(keyed, "template", req->template ? req->template : "");
	json_set(keyed, "body", cJSON_Duplicate(body, true));
	json_hash(keyed, key);
	return keyed;
}

/* An answer cached before keys were taken out of answers is scrubbed as
 * it is replayed. */
static void scrub_cached(const struct llm_client *c, const char *model, cJSON **resp)
{
	struct buf b = BUF_INIT;
	char *text = cJSON_PrintUnformatted(*resp);
	buf_adds(&b, text);
	free(text);
	if (scrub_answer(c, NULL, model, &b, "cached answer")) {
		cJSON *clean = cJSON_Parse(b.data);
		if (clean) {
			cJSON_Delete(*resp);
			*resp = clean;
		}
	}
	explicit_bzero(b.data, b.len);
	buf_free(&b);
}

/* The cached answer, if the cache mode looks: with LLM_CACHE=use a miss
 * takes the key's lock (*lock) and looks again, since the holder may have
 * answered meanwhile. *cache says hit or miss for the usage record. */
static int cache_look(struct llm_client *c, const struct llm_request *req, const char *key, cJSON **resp,
		      bool *hit, const char **cache, int *lock, struct err *e)
{
	if (c->mode != LLM_CACHE_USE && c->mode != LLM_CACHE_ONLY)
		return 0;
	*resp = llmcache_get(c->cache_dir, key);
	if (!*resp && c->mode == LLM_CACHE_USE) {
		*lock = llmcache_lock(c->cache_dir, key, e);
		if (*lock < 0)
			return -1;
		*resp = llmcache_get(c->cache_dir, key);
	}
	if (*resp) {
		scrub_cached(c, req->model, resp);
		*hit = true;
		*cache = "hit";
		return 0;
	}
	if (c->mode == LLM_CACHE_ONLY)
		return err_set(e, ERR_INPUT, "LLM_CACHE=only: no cached answer for key %s (model '%s', cache '%s'): run once with LLM_CACHE=use to record it",
			       key, req->model, c->cache_dir);
	*cache = "miss";
	return 0;
}

/* The provider asked (with its key), the answer priced and cached. */
static int ask_provider(struct llm_client *c, const struct route *rt, const char *model, const cJSON *body,
			const cJSON *keyed, const char *key, cJSON **resp, double *cost,
			struct attempt_info *ai, struct err *e)
{
	enum dotenv_source src;
	const char *apikey = route_key(c, rt, &src);
	if (!apikey && rt->key_required)
		return err_set(e, ERR_INPUT, "provider '%s' needs a key: set %s in the environment or in ENV_FILE '%s'",
			       rt->provider, rt->key_env, c->env_file);
	char *text = cJSON_PrintUnformatted(body);
	int rc = fetch(c, rt, model, text, apikey, resp, ai, e);
	free(text);
	if (rc < 0)
		return rc;
	*cost = price_of(rt, model, *resp);
	if (c->mode == LLM_CACHE_USE || c->mode == LLM_CACHE_REFRESH)
		return llmcache_put(c->cache_dir, key, keyed, *resp, ai->latency, e);
	return 0;
}

/* Asks (or replays) one request body. On success *resp is the provider's
 * answer (caller frees) and *cost what it cost now (0 on a hit). */
static int request_once(struct llm_client *c, const struct llm_request *req, const struct route *rt,
			const char *model, const cJSON *body, int repair, cJSON **resp, double *cost,
			bool *hit, char key[33], struct err *e)
{
	cJSON *keyed = cache_keyed(req, rt, body, key);
	double t0 = now_mono();
	struct attempt_info ai = { 0 };
	const char *cache = llmcache_mode_name(c->mode);
	int lock = -1;
	*resp = NULL;
	*cost = 0;
	*hit = false;
	int rc = cache_look(c, req, key, resp, hit, &cache, &lock, e);
	if (rc == 0 && !*hit)
		rc = ask_provider(c, rt, model, body, keyed, key, resp, cost, &ai, e);
	llmcache_unlock(c->cache_dir, key, lock);
	struct err failed = { 0 };
	if (rc < 0)
		failed = *e;
	usage_record(c, req, rt, key, cache, &ai, rc == 0 ? *resp : NULL, *cost, repair,
		     now_mono() - t0, rc < 0 ? &failed : NULL, e, &rc);
	if (rc < 0 && *resp) {
		cJSON_Delete(*resp);
		*resp = NULL;
	}
	cJSON_Delete(keyed);
	return rc;
}

/* ---------------------------------------------------------------- JSON mode */

cJSON *llm_extract_json(const char *text)
{
	cJSON *v = cJSON_Parse(text);
	if (cJSON_IsObject(v))
		return v;
	cJSON_Delete(v);
	const char *f = strstr(text, "```");
	while (f) {
		const char *start = strchr(f + 3, '\n');
		const char *close = start ? strstr(start, "```") : NULL;
		if (!close)
			break;
		char *inner = xstrndup(start + 1, (size_t)(close - start - 1));
		v = cJSON_Parse(inner);
		free(inner);
		if (cJSON_IsObject(v))
			return v;
		cJSON_Delete(v);
		f = strstr(close + 3, "```");
	}
	for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
		const char *end = NULL;
		v = cJSON_ParseWithOpts(p, &end, false);
		if (cJSON_IsObject(v))
			return v;
		cJSON_Delete(v);
	}
	return NULL;
}

static bool mentions_json(const struct llm_request *req)
{
	for (size_t i = 0; i < req->n_msgs; i++)
		for (const char *p = req->msgs[i].content; p && *p; p++)
			if (!strncasecmp(p, "json", 4))
				return true;
	return false;
}

static cJSON *json_answer(const struct llm_request *req, const char *text, struct buf *why)
{
	cJSON *v = llm_extract_json(text);
	if (!v) {
		buf_adds(why, "it holds no JSON object");
		return NULL;
	}
	for (const char *const *k = req->json_keys; k && *k; k++) {
		if (!json_get(v, *k)) {
			buf_printf(why, "the object lacks the key \"%s\"", *k);
			cJSON_Delete(v);
			return NULL;
		}
	}
	if (req->json_check && req->json_check(v, req->json_arg, why) < 0) {
		if (!why->len)
			buf_adds(why, "the object does not have the expected shape");
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

static void push_msg(cJSON *msgs, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();
	json_set_str(m, "role", role);
	json_set_str(m, "content", content);
	cJSON_AddItemToArray(msgs, m);
}

static int build_body(const struct llm_request *req, const struct route *rt, const char *model,
		      cJSON **out, struct err *e)
{
	*out = NULL;
	if (!req->n_msgs)
		return err_set(e, ERR_INPUT, "no messages to send to '%s'", req->model);
	cJSON *body = cJSON_CreateObject();
	if (req->params) {
		if (!cJSON_IsObject(req->params)) {
			cJSON_Delete(body);
			return err_set(e, ERR_INPUT, "request parameters must be a JSON object");
		}
		for (const cJSON *p = req->params->child; p; p = p->next)
			json_set(body, p->string, cJSON_Duplicate(p, true));
		if (json_bool(body, "stream", false)) {
			cJSON_Delete(body);
			return err_set(e, ERR_INPUT, "streaming is not supported: drop \"stream\" from the parameters");
		}
	}
	json_set_str(body, "model", model);
	cJSON *msgs = json_set(body, "messages", cJSON_CreateArray());
	if (req->json && !mentions_json(req))
		push_msg(msgs, "system", "Reply with one JSON object and nothing else.");
	for (size_t i = 0; i < req->n_msgs; i++) {
		const struct llm_msg *m = &req->msgs[i];
		if (!m->role || !m->content) {
			cJSON_Delete(body);
			return err_set(e, ERR_INPUT, "message %zu to '%s' has no role or no content", i + 1, req->model);
		}
		push_msg(msgs, m->role, m->content);
	}
	if (req->has_temperature)
		json_set_num(body, "temperature", req->temperature);
	if (req->max_tokens > 0)
		json_set_num(body, "max_tokens", req->max_tokens);
	if (req->json && rt->response_format) {
		cJSON *rf = json_set(body, "response_format", cJSON_CreateObject());
		json_set_str(rf, "type", "json_object");
	}
	*out = body;
	return 0;
}

/* Offline replay that failed: tell a cache miss from the other failures. */
static void note_miss(const struct llm_client *c, struct llm_result *out)
{
	if (c->mode != LLM_CACHE_ONLY)
		return;
	cJSON *cached = llmcache_get(c->cache_dir, out->key);
	out->uncached = !cached;
	cJSON_Delete(cached);
}

/* One answer (freed here) into the result: its tokens, requests and price
 * added up, its text and finish reason kept; *priced goes false for good
 * once an answer has no price. */
static void take_answer(struct llm_result *out, cJSON *resp, double cost, bool hit, int r, bool *priced)
{
	struct answer a;
	read_answer(resp, &a);
	out->tokens_in += a.tokens_in;
	out->tokens_out += a.tokens_out;
	out->tokens_cached += a.tokens_cached;
	out->cache_hits += hit;
	out->requests += !hit;
	out->repairs = r;
	if (cost < 0)
		*priced = false;
	else
		out->cost += cost;
	free(out->text);
	free(out->finish_reason);
	out->text = xstrdup(a.text);
	out->finish_reason = a.finish_reason ? xstrdup(a.finish_reason) : NULL;
	cJSON_Delete(resp);
}

/* The unusable answer and what is wrong with it, added to the conversation,
 * so the next request asks for the corrected object. */
static void ask_repair(cJSON *body, const char *text, const char *why)
{
	cJSON *msgs = json_get(body, "messages");
	push_msg(msgs, "assistant", text);
	char *fix = xasprintf("Your reply could not be used: %s. Reply again with only the corrected JSON object and no other text.",
			      why);
	push_msg(msgs, "user", fix);
	free(fix);
}

int llm_call(struct llm_client *c, const struct llm_request *req, struct llm_result *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	char *model = NULL;
	cJSON *body = NULL;
	const struct route *rt = routes_resolve(&c->routes, req->model, &model, e);
	if (!rt || build_body(req, rt, model, &body, e) < 0) {
		free(model);
		return -1;
	}
	int repairs = req->json_repairs < 0 ? 2 : req->json_repairs;
	int rc = -1;
	bool priced = true;
	for (int r = 0;; r++) {
		cJSON *resp;
		double cost;
		bool hit;
		if (request_once(c, req, rt, model, body, r, &resp, &cost, &hit, out->key, e) < 0) {
			note_miss(c, out);
			break;
		}
		take_answer(out, resp, cost, hit, r, &priced);
		if (!req->json) {
			rc = 0;
			break;
		}
		struct buf why = BUF_INIT;
		out->json = json_answer(req, out->text, &why);
		if (out->json)
			rc = 0;
		else if (r >= repairs) {
			out->unusable = true;
			err_set(e, ERR_WORK, "model '%s' gave no usable JSON object after %d repair%s: %s (cache key %s: the answer is cached; "
				"once the model is fixed, LLM_CACHE=refresh asks again)",
				req->model, r, r == 1 ? "" : "s", why.data, out->key);
		} else
			ask_repair(body, out->text, why.data);
		buf_free(&why);
		if (out->json || r >= repairs)
			break;
	}
	if (!priced && out->requests)
		out->cost = -1;
	cJSON_Delete(body);
	free(model);
	return rc;
}

void llm_result_free(struct llm_result *r)
{
	free(r->text);
	free(r->finish_reason);
	cJSON_Delete(r->json);
	memset(r, 0, sizeof *r);
}

int llm_list_models(struct llm_client *c, const char *model, struct strlist *ids, struct err *e)
{
	char *provider = xstrndup(model, strcspn(model, "/"));
	const struct route *rt = routes_find(&c->routes, provider);
	if (!rt) {
		err_set(e, ERR_INPUT, "unknown provider '%s' in model '%s': add it to routes '%s'", provider, model,
			c->routes.path);
		free(provider);
		return -1;
	}
	free(provider);
	enum dotenv_source src;
	const char *key = route_key(c, rt, &src);
	if (!key && rt->key_required)
		return err_set(e, ERR_INPUT, "provider '%s' needs a key: set %s in the environment or in ENV_FILE '%s'",
			       rt->provider, rt->key_env, c->env_file);
	char *url = xasprintf("%s/models", rt->base_url);
	struct http_reply r = { .body = BUF_INIT };
	http_do(c, rt, url, NULL, key, fmin(rt->timeout, 30), &r);
	int rc = -1;
	char detail[LLM_DETAIL_MAX];
	error_detail(&r.body, key, detail, sizeof detail);
	if (r.cc != CURLE_OK) {
		char why[CURL_ERROR_SIZE + 16];
		snprintf(why, sizeof why, "%s", r.errbuf[0] ? r.errbuf : curl_easy_strerror(r.cc));
		scrub(why, key);
		err_set(e, ERR_WORK, "provider '%s' cannot be reached at %s: %s", rt->provider, url, why);
	} else if (r.status == 401 || r.status == 403) {
		fatal_status(c, rt, model, url, &r, detail, e);
	} else if (r.status != 200) {
		err_set(e, ERR_WORK, "provider '%s' answered HTTP %ld to %s%s%s", rt->provider, r.status, url,
			*detail ? ": " : "", detail);
	} else {
		cJSON *doc = cJSON_Parse(r.body.data);
		const cJSON *data = json_get(doc, "data");
		if (!cJSON_IsArray(data)) {
			err_set(e, ERR_WORK, "provider '%s' answered %s with no model list", rt->provider, url);
		} else {
			for (const cJSON *m = data->child; m; m = m->next)
				if (json_str(m, "id"))
					strlist_push(ids, json_str(m, "id"));
			rc = 0;
		}
		cJSON_Delete(doc);
	}
	buf_free(&r.body);
	free(url);
	return rc;
}
