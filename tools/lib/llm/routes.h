/* routes.h — provider_routes.json: how to reach each provider (base URL,
 * API style, key variable, headers, timeouts, concurrency, retries,
 * prices) and how a model id "provider/model-id" splits. */
#ifndef SKILLC_LLM_ROUTES_H
#define SKILLC_LLM_ROUTES_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

#define ROUTES_DEFAULT "provider_routes.json"

struct route_retry {
	int attempts;       /* requests at most, the first included */
	double base_delay;  /* seconds before the 2nd attempt; doubles after */
	double max_delay;   /* cap on one backoff delay */
	double total;       /* cap on the whole call, seconds */
};

struct route_price {
	char *model;        /* model id, or "*" for every other model */
	double input, output; /* USD per million tokens */
	double cached_input;  /* USD per million prompt tokens the provider's cache served */
};

struct route {
	char *provider;
	char *base_url;     /* no trailing '/' */
	char *api;          /* "openai" (/chat/completions, /models) */
	char *key_env;      /* variable holding the key; NULL: no key at all */
	bool key_required;  /* false: send the key when set, else none */
	struct strlist headers; /* "Name: value" lines */
	double timeout;     /* seconds for one request */
	double connect_timeout;
	/* once an answer has begun, every low_speed_time seconds must bring
	 * low_speed_bytes more, else the attempt fails (a trickling answer) */
	double low_speed_bytes, low_speed_time;
	int max_concurrency; /* 0: unlimited */
	bool response_format; /* supports {"type":"json_object"} */
	struct route_retry retry;
	struct route_price *prices;
	size_t n_prices;
};

struct routes {
	char *path;
	struct route *v;
	size_t n;
};
#define ROUTES_INIT { NULL, NULL, 0 }

/* Parses and validates the file; ERR_INPUT naming the file, the provider
 * and the field when anything is wrong. r is freed with routes_free even
 * on error. */
int routes_load(struct routes *r, const char *path, struct err *e);
void routes_free(struct routes *r);

/* The route of a provider, or NULL. Borrowed from r. */
const struct route *routes_find(const struct routes *r, const char *provider);

/* Splits "provider/model-id" at the first '/' (the model id may hold more
 * slashes) and checks both parts; ERR_INPUT when malformed. *provider and
 * *model are malloc'd; the caller frees them. */
int routes_split(const char *id, char **provider, char **model, struct err *e);

/* Splits and finds the route: ERR_INPUT naming the routes file when the
 * provider is unknown. *model is malloc'd; the route is borrowed. */
const struct route *routes_resolve(const struct routes *r, const char *id, char **model,
				   struct err *e);

/* The price of a model on a route; false when the route has none. */
bool route_price(const struct route *rt, const char *model, double *in, double *out);
/* The price of a cached prompt token ("cached_input", else the input
 * price); false when the route has no price for model. */
bool route_cached_price(const struct route *rt, const char *model, double *cached);

/* Which routes file to read: explicit (a flag) if non-NULL, else $ROUTES,
 * else "provider_routes.json". When that is the default name and no such
 * file exists, the example shipped with skillc is used instead
 * (<bindir>/../rules/ or <bindir>/../share/skillc/rules/). Caller frees. */
char *routes_locate(const char *explicit_path);

/* Loads the routes file routes_locate(NULL) names, for prices: true when it
 * exists and loads. When it exists but does not load and warn is set, a
 * warning names why (trials without a runner cost are then unknown). */
bool routes_load_prices(struct routes *r, bool warn);

#endif
