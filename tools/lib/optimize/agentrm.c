#include "optimize/agentrm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/log.h"
#include "llm/http.h"
#include "llm/usage.h"
#include "skill/skilldoc.h"

#define RM_MAX_BODY (4 << 20)

struct reply {
	struct buf body;
	long status;
	CURLcode cc;
	char errbuf[CURL_ERROR_SIZE];
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	if (r->body.len + size * n > RM_MAX_BODY)
		return 0;
	buf_add(&r->body, p, size * n);
	return size * n;
}

/* One request; body NULL: GET. */
static void http(CURL *k, const char *url, const char *body, long timeout_ms, struct reply *r)
{
	struct curl_slist *h = http_json_headers(body != NULL);
	struct http_json q = { .url = url, .agent = "skillc-agentrm/1", .body = body,
			       .connect_ms = 5000, .timeout_ms = timeout_ms,
			       .on_body = on_body, .ctx = r, .errbuf = r->errbuf };
	http_json_setup(k, &q, h);
	r->cc = http_json_perform(k, &r->status);
	curl_slist_free_all(h);
}

static const char *why_failed(const struct reply *r)
{
	return r->errbuf[0] ? r->errbuf : curl_easy_strerror(r->cc);
}

static char *base_url(const char *url)
{
	size_t n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	return xstrndup(url, n);
}

static int health_with(CURL *k, const char *url, cJSON **health, struct err *e)
{
	*health = NULL;
	char *base = base_url(url);
	char *u = xasprintf("%s/health", base);
	struct reply r = { BUF_INIT, 0, CURLE_OK, "" };
	http(k, u, NULL, 10000, &r);
	int rc = 0;
	cJSON *doc = r.body.len ? cJSON_Parse(r.body.data) : NULL;
	if (r.cc != CURLE_OK)
		rc = err_set(e, ERR_WORK, "AgentRM at RM_API_URL '%s' is down: %s (start the service or its tunnel)", base,
			     why_failed(&r));
	else if (r.status != 200)
		rc = err_set(e, ERR_WORK, "AgentRM at RM_API_URL '%s' answered HTTP %ld to GET /health", base, r.status);
	else if (!json_str(doc, "status") || strcmp(json_str(doc, "status"), "ok"))
		rc = err_set(e, ERR_WORK, "AgentRM at RM_API_URL '%s' is not ready: /health says status '%s' (wait for the model to load)",
			     base, json_str(doc, "status") ? json_str(doc, "status") : "?");
	if (rc == 0) {
		*health = doc;
		doc = NULL;
	}
	cJSON_Delete(doc);
	buf_free(&r.body);
	free(u);
	free(base);
	return rc;
}

int agentrm_health(const char *url, cJSON **health, struct err *e)
{
	CURL *k = http_open();
	int rc = k ? health_with(k, url, health, e) : err_set(e, ERR_WORK, "cannot initialize libcurl: %s", curldl_error());
	http_close(k);
	return rc;
}

int agentrm_open(struct agentrm *rm, const char *url, const char *cache_dir, struct err *e)
{
	memset(rm, 0, sizeof *rm);
	rm->url = base_url(url);
	const char *cd = cache_dir ? cache_dir : getenv("CACHE_DIR");
	rm->cache_dir = xstrdup(cd && *cd ? cd : "results/.cache");
	const char *uf = getenv("SKILLC_USAGE_FILE");
	rm->usage_file = uf && *uf ? xstrdup(uf) : NULL;
	const char *mode = getenv("LLM_CACHE");
	if (llmcache_mode_parse(mode && *mode ? mode : "use", &rm->mode, e) < 0)
		return -1;
	if (!(rm->curl = http_open()))
		return err_set(e, ERR_WORK, "cannot initialize libcurl: %s", curldl_error());
	if (health_with(rm->curl, rm->url, &rm->health, e) < 0) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		return err_set(e, ERR_WORK, "%s; make doctor checks it", why);
	}
	const cJSON *ml = json_get(rm->health, "max_length");
	rm->max_length_given = cJSON_IsNumber(ml) && ml->valuedouble >= 2 * AGENTRM_RESERVE;
	rm->max_length = rm->max_length_given ? (long)ml->valuedouble : AGENTRM_DEFAULT_MAX_LENGTH;
	return 0;
}

void agentrm_close(struct agentrm *rm)
{
	http_close(rm->curl);
	cJSON_Delete(rm->health);
	free(rm->url);
	free(rm->cache_dir);
	free(rm->usage_file);
	memset(rm, 0, sizeof *rm);
}

static long estimate(const char *s, size_t n)
{
	return (long)sd_estimate_tokens(s, n);
}

/* Where the kept end of text starts so that it fits in budget tokens: at a
 * line start when one is near, never inside a UTF-8 character. */
static size_t keep_tail_from(const char *text, size_t len, long budget)
{
	size_t lo = 0, hi = len; /* invariant: the suffix from hi fits */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (estimate(text + mid, len - mid) <= budget)
			hi = mid;
		else
			lo = mid + 1;
	}
	size_t from = hi;
	const char *nl = memchr(text + from, '\n', len - from);
	if (nl && (size_t)(nl - text) + 1 < len && (size_t)(nl - text) - from < 400)
		from = (size_t)(nl - text) + 1;
	while (from < len && ((unsigned char)text[from] & 0xC0) == 0x80)
		from++;
	return from;
}

cJSON *agentrm_request(long max_length, const char *instruction, const char *trajectory, bool *truncated,
		       long *tokens, long *sent_tokens)
{
	size_t il = strlen(instruction), tl = strlen(trajectory);
	long budget = max_length - AGENTRM_RESERVE;
	*tokens = estimate(instruction, il) + estimate(trajectory, tl);
	*truncated = *tokens > budget;
	cJSON *body = cJSON_CreateObject();
	json_set_str(body, "adapter", AGENTRM_ADAPTER);
	json_set_num(body, "max_length", (double)max_length);
	if (!*truncated) {
		json_set_str(body, "instruction", instruction);
		json_set_str(body, "trajectory", trajectory);
		*sent_tokens = *tokens;
		return body;
	}
	/* the instruction keeps its head, at most half the budget; the trajectory its end */
	size_t ikeep = il;
	if (estimate(instruction, il) > budget / 2) {
		size_t lo = 0, hi = il;
		while (lo < hi) {
			size_t mid = lo + (hi - lo + 1) / 2;
			if (estimate(instruction, mid) <= budget / 2)
				lo = mid;
			else
				hi = mid - 1;
		}
		ikeep = lo;
		while (ikeep > 0 && ((unsigned char)instruction[ikeep] & 0xC0) == 0x80)
			ikeep--;
	}
	char *inst = xstrndup(instruction, ikeep);
	static const char mark[] = "[... earlier steps cut to fit max_length ...]\n";
	long left = budget - estimate(inst, ikeep) - estimate(mark, sizeof mark - 1);
	size_t from = keep_tail_from(trajectory, tl, left > 0 ? left : 0);
	char *tail = xasprintf("%s%s", mark, trajectory + from);
	json_set_str(body, "instruction", inst);
	json_set_str(body, "trajectory", tail);
	*sent_tokens = estimate(inst, ikeep) + estimate(tail, strlen(tail));
	free(inst);
	free(tail);
	return body;
}

static double score_of(const cJSON *doc, bool *ok)
{
	const cJSON *v = json_get(doc, "score");
	if (!cJSON_IsNumber(v) && cJSON_IsArray(json_get(doc, "scores")))
		v = cJSON_GetArrayItem(json_get(doc, "scores"), 0);
	if (!cJSON_IsNumber(v))
		v = json_get(doc, "reward");
	*ok = cJSON_IsNumber(v) && isfinite(v->valuedouble);
	return *ok ? v->valuedouble : 0;
}

static void usage(const struct agentrm *rm, const char *label, const char *key, const char *cache, long tokens,
		  long status, double latency, const char *error)
{
	if (!rm->usage_file)
		return;
	char when[32];
	iso_time(now_wall(), when);
	cJSON *rec = cJSON_CreateObject();
	json_set_str(rec, "time", when);
	json_set_str(rec, "tool", log_prog());
	json_set_str(rec, "label", label);
	json_set_str(rec, "model", "agentrm");
	json_set_str(rec, "provider", "agentrm");
	json_set_str(rec, "key", key);
	json_set_str(rec, "cache", cache);
	json_set_num(rec, "status", (double)status);
	json_set_str(rec, "outcome", error ? "error" : "ok");
	if (error)
		json_set_str(rec, "error", error);
	json_set_num(rec, "tokens_in", (double)tokens);
	json_set_num(rec, "tokens_out", 0);
	json_set_num(rec, "latency_s", round_to(latency, 3));
	json_set(rec, "cost_usd", cJSON_CreateNull());
	struct err e;
	if (usage_append(rm->usage_file, rec, &e) < 0)
		warnf("%s", e.msg);
	cJSON_Delete(rec);
}

/* Asks the service, retrying a connection failure or a 5xx twice. */
static int ask(struct agentrm *rm, const char *body_text, cJSON **answer, long *status, struct err *e)
{
	char *u = xasprintf("%s/score", rm->url);
	int rc = -1;
	for (int attempt = 1; attempt <= 3 && rc < 0; attempt++) {
		struct reply r = { BUF_INIT, 0, CURLE_OK, "" };
		http(rm->curl, u, body_text, 120000, &r);
		*status = r.status;
		bool retry = r.cc != CURLE_OK || r.status >= 500;
		if (r.cc != CURLE_OK)
			err_set(e, ERR_WORK, "AgentRM at RM_API_URL '%s' is down: %s (make doctor checks it)", rm->url, why_failed(&r));
		else if (r.status != 200)
			err_set(e, ERR_WORK, "AgentRM at RM_API_URL '%s' answered HTTP %ld to POST /score", rm->url, r.status);
		else if (!(*answer = r.body.len ? cJSON_Parse(r.body.data) : NULL))
			err_set(e, ERR_WORK, "AgentRM at RM_API_URL '%s' answered POST /score with something that is not JSON", rm->url);
		else
			rc = 0;
		buf_free(&r.body);
		if (rc < 0 && retry && attempt < 3) {
			struct timespec ts = { 0, attempt * 400000000L };
			nanosleep(&ts, NULL);
		} else if (rc < 0) {
			break;
		}
	}
	free(u);
	return rc;
}

int agentrm_score(struct agentrm *rm, const char *label, const char *instruction, const char *trajectory,
		  struct agentrm_score *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	cJSON *body = agentrm_request(rm->max_length, instruction, trajectory, &out->truncated, &out->tokens,
				      &out->sent_tokens);
	cJSON *keyed = cJSON_CreateObject();
	json_set_num(keyed, "format", LLMCACHE_FORMAT);
	json_set_str(keyed, "url", rm->url);
	json_set_str(keyed, "api", "agentrm");
	json_set_str(keyed, "template", AGENTRM_ADAPTER);
	json_set(keyed, "body", cJSON_Duplicate(body, true));
	json_hash(keyed, out->key);
	double t0 = now_mono();
	cJSON *answer = NULL;
	int lock = -1, rc = 0;
	long status = 0;
	const char *cache = llmcache_mode_name(rm->mode);
	if (rm->mode == LLM_CACHE_USE || rm->mode == LLM_CACHE_ONLY) {
		answer = llmcache_get(rm->cache_dir, out->key);
		if (!answer && rm->mode == LLM_CACHE_USE && (lock = llmcache_lock(rm->cache_dir, out->key, e)) < 0)
			rc = -1;
		else if (!answer && rm->mode == LLM_CACHE_USE)
			answer = llmcache_get(rm->cache_dir, out->key);
		if (answer)
			cache = "hit";
		else if (rm->mode == LLM_CACHE_ONLY)
			rc = err_set(e, ERR_INPUT, "LLM_CACHE=only: no cached AgentRM score for key %s (run once with LLM_CACHE=use)", out->key);
		else
			cache = "miss";
	}
	out->cached = answer != NULL;
	if (rc == 0 && !answer) {
		char *text = cJSON_PrintUnformatted(body);
		rc = ask(rm, text, &answer, &status, e);
		free(text);
		if (rc == 0 && (rm->mode == LLM_CACHE_USE || rm->mode == LLM_CACHE_REFRESH)) {
			bool ok;
			score_of(answer, &ok);
			if (ok) /* never cache an answer that cannot be used */
				rc = llmcache_put(rm->cache_dir, out->key, keyed, answer, now_mono() - t0, e);
		}
	}
	llmcache_unlock(rm->cache_dir, out->key, lock);
	bool ok = false;
	if (rc == 0) {
		out->score = score_of(answer, &ok);
		if (!ok)
			rc = err_set(e, ERR_WORK, "AgentRM at RM_API_URL '%s' answered without a numeric \"score\"", rm->url);
	}
	usage(rm, label, out->key, cache, out->cached ? 0 : out->sent_tokens, status, now_mono() - t0, rc < 0 ? e->msg : NULL);
	cJSON_Delete(answer);
	cJSON_Delete(keyed);
	cJSON_Delete(body);
	return rc;
}
