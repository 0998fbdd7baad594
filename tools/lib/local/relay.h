/* relay.h — byte relays that carry the model route across the sandbox's
 * private network: inside, a listener on the route's loopback address
 * forwards each connection to a Unix socket bound in from the host; on the
 * host, the runner accepts on that socket and connects to the route's real
 * host and port. Only that one destination is reachable. Both ends are
 * driven by the caller's poll loop. */
#ifndef SKILLC_LOCAL_RELAY_H
#define SKILLC_LOCAL_RELAY_H

#include <poll.h>

#include "base/util.h"

struct relay;

/* Opens the upstream connection for one client: a connected socket, or -1. */
typedef int relay_connect_fn(void *ctx);

/* A relay accepting on listen_fd (non-blocking, listening) and connecting
 * each client to the Unix socket at unix_path, or (unix_path NULL) through
 * connect(ctx), e.g. to the model route over TCP. Takes listen_fd. */
struct relay *relay_new(int listen_fd, const char *unix_path, relay_connect_fn *connect, void *ctx);

/* Listening sockets: TCP on addr:port (addr numeric) / Unix at path. -1 with e set.
 * No name lookup here: the supervisor links this statically. */
int relay_listen_tcp(const char *addr, const char *port, struct err *e);
int relay_listen_unix(const char *path, struct err *e);

/* Fills up to max pollfds; returns how many. */
int relay_pollfds(struct relay *r, struct pollfd *p, int max);
/* Services whatever the poll said was ready. */
void relay_service(struct relay *r, const struct pollfd *p, int n);
/* Connections handled so far. */
int relay_count(const struct relay *r);
void relay_free(struct relay *r);

#endif
