#include "local/modelroute.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/dotenv.h"
#include "llm/routes.h"

void model_route_free(struct model_route *r)
{
	free(r->provider);
	free(r->model);
	free(r->base_url);
	free(r->key_env);
	if (r->key) {
		memset(r->key, 0, strlen(r->key));
		free(r->key);
	}
	free(r->host);
	free(r->port);
}

static int url_split(struct model_route *r, struct err *e)
{
	const char *u = r->base_url;
	bool https = !strncmp(u, "https://", 8);
	if (!https && strncmp(u, "http://", 7))
		return err_set(e, ERR_INPUT, "route '%s': base URL '%s' is not http:// or https://", r->provider, u);
	const char *h = u + (https ? 8 : 7);
	const char *end = h + strcspn(h, "/?#");
	const char *colon = NULL;
	if (*h == '[') {
		const char *close = memchr(h, ']', (size_t)(end - h));
		if (!close)
			return err_set(e, ERR_INPUT, "route '%s': bad host in '%s'", r->provider, u);
		r->host = xstrndup(h + 1, (size_t)(close - h - 1));
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
		r->host = xstrndup(h, (size_t)((colon ? colon : end) - h));
	}
	r->port = colon ? xstrndup(colon + 1, (size_t)(end - colon - 1)) : xstrdup(https ? "443" : "80");
	r->loopback = !strcmp(r->host, "127.0.0.1") || !strcmp(r->host, "localhost") || !strcmp(r->host, "::1");
	return 0;
}

/* One non-blocking connect; 0 when it completes within ms. */
static int connect_within(const struct addrinfo *a, int ms)
{
	int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
	if (fd < 0)
		return -1;
	int rc = connect(fd, a->ai_addr, a->ai_addrlen);
	if (rc < 0 && errno == EINPROGRESS) {
		struct pollfd p = { fd, POLLOUT, 0 };
		int soerr = 0;
		socklen_t len = sizeof soerr;
		if (poll(&p, 1, ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && !soerr)
			rc = 0;
		else
			errno = soerr ? soerr : ETIMEDOUT;
	}
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int model_route_probe(const struct model_route *r, double timeout, struct err *e)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	int gai = getaddrinfo(r->host, r->port, &hints, &res);
	if (gai)
		return err_set(e, ERR_WORK, "model route '%s' (%s): cannot resolve '%s': %s", r->provider, r->base_url,
			       r->host, gai_strerror(gai));
	int rc = -1;
	for (const struct addrinfo *a = res; a && rc < 0; a = a->ai_next)
		rc = connect_within(a, (int)(timeout * 1000));
	freeaddrinfo(res);
	if (rc < 0)
		return err_set(e, ERR_WORK, "model route '%s' (%s) is unreachable:", r->provider, r->base_url);
	return 0;
}

int model_route_connect(void *route)
{
	const struct model_route *r = route;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	if (getaddrinfo(r->host, r->port, &hints, &ai) != 0)
		return -1;
	int fd = -1;
	for (const struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	return fd;
}

/* MODEL "provider/model-id" through ROUTES; the key from the environment or ENV_FILE. */
int model_route_resolve(const char *model, struct model_route *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	char *path = routes_locate(NULL);
	struct routes rs = ROUTES_INIT;
	struct dotenv env = DOTENV_INIT;
	char *mid = NULL;
	int rc = routes_load(&rs, path, e);
	const struct route *rt = rc == 0 ? routes_resolve(&rs, model, &mid, e) : NULL;
	if (!rt) {
		rc = -1;
		goto out;
	}
	r->provider = xstrdup(rt->provider);
	r->model = mid;
	mid = NULL;
	r->base_url = xstrdup(rt->base_url);
	if (rt->key_env) {
		const char *envf = getenv("ENV_FILE");
		if (dotenv_load(&env, envf && *envf ? envf : ".env", e) < 0) {
			rc = -1;
			goto out;
		}
		enum dotenv_source src;
		const char *v = dotenv_get(&env, rt->key_env, &src);
		r->key_env = xstrdup(rt->key_env);
		if (v && *v)
			r->key = xstrdup(v);
		else if (rt->key_required) {
			rc = err_set(e, ERR_INPUT, "%s required for model '%s' but not set (export it or put it in ENV_FILE)",
				     rt->key_env, model);
			goto out;
		}
	}
	rc = url_split(r, e);
out:
	free(mid);
	dotenv_free(&env);
	routes_free(&rs);
	free(path);
	return rc;
}
