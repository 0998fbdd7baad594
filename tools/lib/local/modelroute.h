/* modelroute.h — the model route of one local trial: "provider/model-id"
 * looked up in ROUTES (routes.h), its key read from the environment or
 * ENV_FILE (dotenv.h), and its base URL split into the host and port the
 * sandbox's relay connects to. */
#ifndef SKILLC_LOCAL_MODELROUTE_H
#define SKILLC_LOCAL_MODELROUTE_H

#include <stdbool.h>

#include "base/util.h"

struct model_route {
	char *provider, *model, *base_url, *key_env;
	char *key;           /* the secret: for the agent's environment only; NULL: none */
	char *host, *port;   /* from base_url (port defaults to 80 / 443) */
	bool loopback;       /* host is 127.0.0.1, localhost or ::1 */
};

/* Resolves model ("provider/model-id") through ROUTES (default
 * provider_routes.json). A missing key is an error only when the route
 * requires one. Free r with model_route_free, also after an error. */
int model_route_resolve(const char *model, struct model_route *r, struct err *e);
/* Opens (and closes) a TCP connection to the route's host and port within
 * timeout seconds: a model server that is down fails the trial at once as
 * an infra error instead of letting the agent retry until its time limit. */
int model_route_probe(const struct model_route *r, double timeout, struct err *e);
/* A connected TCP socket to the route's host and port, or -1 (a relay's
 * connector: ctx is the struct model_route). */
int model_route_connect(void *route);
/* Frees r, wiping the key. */
void model_route_free(struct model_route *r);

#endif
