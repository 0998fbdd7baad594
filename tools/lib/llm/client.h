/* client.h — the LLM client every stage uses: routes + .env + libcurl, a
 * content-addressed cache, retries with backoff, a cap on requests in
 * flight per provider across processes, JSON-object answers with bounded
 * repair, and one usage record per request. See docs/llm.md.
 *
 * A client is used by one thread at a time. Keys stay in memory; they
 * never reach the cache, the usage records or an error message. */
#ifndef SKILLC_LLM_CLIENT_H
#define SKILLC_LLM_CLIENT_H

#include <stdbool.h>
#include <cJSON.h>

#include "llm/cache.h"
#include "llm/routes.h"
#include "base/util.h"

/* Settings; each NULL field falls back to its environment variable, then
 * to the default: routes $ROUTES (routes_locate), env_file $ENV_FILE
 * (.env), cache_dir $CACHE_DIR (results/.cache), cache_mode $LLM_CACHE
 * (use), usage_file $SKILLC_USAGE_FILE (none). */
struct llm_options {
	const char *routes;
	const char *env_file;
	const char *cache_dir;
	const char *cache_mode;
	const char *usage_file;
};

struct llm_client;

/* Reads the routes and the .env file; ERR_INPUT for a malformed file or a
 * bad setting. Returns NULL with e set on error; free with llm_close. */
struct llm_client *llm_open(const struct llm_options *o, struct err *e);
void llm_close(struct llm_client *c);

const struct routes *llm_routes(const struct llm_client *c);
const char *llm_cache_dir(const struct llm_client *c);
enum llm_cache_mode llm_cache_mode(const struct llm_client *c);
const char *llm_env_file(const struct llm_client *c); /* as given, read or not */

/* Where the route's key comes from, for messages that must not show it:
 * "environment", "ENV_FILE" (see llm_env_file), "not set" or "not needed". */
const char *llm_key_source(const struct llm_client *c, const struct route *rt);

struct llm_msg {
	const char *role;    /* "system", "user", "assistant" */
	const char *content;
};

/* A caller's check of a JSON answer: 0 when usable, else -1 with a short
 * reason in why (it is shown to the model in the repair request). */
typedef int (*llm_json_check)(const cJSON *obj, void *arg, struct buf *why);

struct llm_request {
	const char *model;           /* "provider/model-id" */
	const struct llm_msg *msgs;
	size_t n_msgs;
	bool has_temperature;        /* temperature is sent only when set */
	double temperature;
	int max_tokens;              /* 0: not sent */
	const cJSON *params;         /* more body fields (top_p, seed, ...); borrowed */
	const char *template;        /* the caller's prompt-template version (cache key) */
	const char *label;           /* free text for the usage record */
	/* JSON-object mode: the answer must hold one JSON object that has
	 * every key in json_keys and passes json_check; otherwise the model
	 * is asked to correct it, at most json_repairs times (< 0: 2). */
	bool json;
	const char *const *json_keys; /* NULL-terminated, or NULL */
	llm_json_check json_check;
	void *json_arg;
	int json_repairs;
};

struct llm_result {
	char *text;           /* the answer's text; owned */
	cJSON *json;          /* JSON mode: the object; owned */
	char *finish_reason;  /* "stop", "length", ...; owned, may be NULL */
	long tokens_in, tokens_out; /* summed over repair requests */
	long tokens_cached;   /* of tokens_in, served by the provider's prompt cache */
	double cost;          /* USD of requests made now; < 0 when the route has no price */
	int requests;         /* requests answered by the provider (0: all cached) */
	int cache_hits;
	int repairs;          /* repair requests made */
	bool uncached;        /* LLM_CACHE=only and the call failed for want of a cached answer */
	bool unusable;        /* JSON mode: the model answered, but no answer was usable (text: the last) */
	char key[33];         /* cache key of the last request */
};

/* One call. Errors: ERR_INPUT for what retrying cannot fix (unknown
 * provider, missing key, 400/401/403/404, a miss in "only" mode), ERR_WORK
 * when retries ran out or the answer stayed unusable. out is freed with
 * llm_result_free even on error. */
int llm_call(struct llm_client *c, const struct llm_request *req, struct llm_result *out,
	     struct err *e);
void llm_result_free(struct llm_result *r);

/* Lists the provider's model ids (GET <base_url>/models, one attempt, no
 * tokens spent). model is "provider/model-id" or "provider/". */
int llm_list_models(struct llm_client *c, const char *model, struct strlist *ids, struct err *e);

/* The first JSON object in text: the whole text, else a ``` fence, else
 * the first '{' that starts a complete object. Caller frees; NULL if none. */
cJSON *llm_extract_json(const char *text);

#endif
