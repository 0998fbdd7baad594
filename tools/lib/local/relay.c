#include "local/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define RELAY_BUF 65536
#define RELAY_MAX 64

struct half {
	char buf[RELAY_BUF];
	size_t len;
	bool eof;     /* the reading side ended */
	bool shut;    /* we passed the end on */
};

struct pair {
	int fd[2];         /* 0: accepted client, 1: upstream */
	struct half h[2];  /* h[i]: bytes read from fd[i], to write to fd[1-i] */
};

struct relay {
	int lfd;
	char *unix_path;
	relay_connect_fn *connect;
	void *ctx;
	struct pair *p[RELAY_MAX];
	int count;
};

struct relay *relay_new(int listen_fd, const char *unix_path, relay_connect_fn *connect, void *ctx)
{
	struct relay *r = xcalloc(1, sizeof *r);
	r->lfd = listen_fd;
	r->unix_path = unix_path ? xstrdup(unix_path) : NULL;
	r->connect = connect;
	r->ctx = ctx;
	return r;
}

/* addr:port as a socket address (numeric only). */
static socklen_t tcp_addr(const char *addr, const char *port, struct sockaddr_storage *ss)
{
	char *end;
	long p = strtol(port, &end, 10);
	if (!*port || *end || p < 0 || p > 65535)
		return 0;
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)p);
		return sizeof *in4;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		return sizeof *in6;
	}
	return 0;
}

int relay_listen_tcp(const char *addr, const char *port, struct err *e)
{
	struct sockaddr_storage ss;
	socklen_t len = tcp_addr(addr, port, &ss);
	if (!len)
		return err_set(e, ERR_INPUT, "'%s' port '%s' is not a numeric address and port", addr, port);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		err_set(e, ERR_WORK, "cannot listen on %s port %s:", addr, port);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	return fd;
}

/* Fills sa for path; a path longer than sun_path holds is reached through
 * its folder as /proc/self/fd/N/name (*dirfd: close it after use). */
static int unix_addr(const char *path, struct sockaddr_un *sa, int *dirfd)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	*dirfd = -1;
	if (strlen(path) < sizeof sa->sun_path) {
		strcpy(sa->sun_path, path);
		return 0;
	}
	const char *slash = strrchr(path, '/');
	if (!slash)
		return -1;
	char *dir = xstrndup(path, (size_t)(slash - path));
	*dirfd = open(*dir ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (*dirfd < 0)
		return -1;
	int n = snprintf(sa->sun_path, sizeof sa->sun_path, "/proc/self/fd/%d/%s", *dirfd, slash + 1);
	if (n < 0 || (size_t)n >= sizeof sa->sun_path) {
		close(*dirfd);
		*dirfd = -1;
		return -1;
	}
	return 0;
}

int relay_listen_unix(const char *path, struct err *e)
{
	struct sockaddr_un sa;
	int dirfd;
	if (unix_addr(path, &sa, &dirfd) < 0)
		return err_set(e, ERR_WORK, "cannot make a socket address of %s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 16) < 0) {
		err_set(e, ERR_WORK, "cannot listen on %s:", path);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (dirfd >= 0)
		close(dirfd);
	return fd;
}

static int connect_upstream(const struct relay *r)
{
	int fd = -1;
	if (r->unix_path) {
		struct sockaddr_un sa;
		int dirfd;
		if (unix_addr(r->unix_path, &sa, &dirfd) < 0)
			return -1;
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
			close(fd);
			fd = -1;
		}
		if (dirfd >= 0)
			close(dirfd);
	} else if (r->connect) {
		fd = r->connect(r->ctx);
	}
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static void accept_one(struct relay *r)
{
	int c = accept4(r->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c < 0)
		return;
	int slot = -1;
	for (int i = 0; i < RELAY_MAX && slot < 0; i++)
		if (!r->p[i])
			slot = i;
	int up = slot < 0 ? -1 : connect_upstream(r);
	if (up < 0) {
		close(c); /* the client sees a closed connection, as with a refused one */
		return;
	}
	struct pair *p = xcalloc(1, sizeof *p);
	p->fd[0] = c;
	p->fd[1] = up;
	r->p[slot] = p;
	r->count++;
}

int relay_pollfds(struct relay *r, struct pollfd *pf, int max)
{
	int n = 0;
	if (n < max)
		pf[n++] = (struct pollfd){ r->lfd, POLLIN, 0 };
	for (int i = 0; i < RELAY_MAX; i++) {
		struct pair *p = r->p[i];
		if (!p)
			continue;
		for (int s = 0; s < 2 && n < max; s++) {
			short ev = 0;
			if (!p->h[s].eof && p->h[s].len < RELAY_BUF)
				ev |= POLLIN;
			if (p->h[1 - s].len)
				ev |= POLLOUT;
			pf[n++] = (struct pollfd){ p->fd[s], ev, 0 };
		}
	}
	return n;
}

static void pair_close(struct relay *r, int i)
{
	close(r->p[i]->fd[0]);
	close(r->p[i]->fd[1]);
	free(r->p[i]);
	r->p[i] = NULL;
}

/* Moves bytes for one pair; returns false when it is finished. */
static bool pair_step(struct pair *p, const struct pollfd *pf, int n)
{
	for (int s = 0; s < 2; s++) {
		short rev = 0;
		for (int k = 0; k < n; k++)
			if (pf[k].fd == p->fd[s])
				rev = pf[k].revents;
		if ((rev & (POLLIN | POLLHUP | POLLERR)) && !p->h[s].eof && p->h[s].len < RELAY_BUF) {
			ssize_t got = read(p->fd[s], p->h[s].buf + p->h[s].len, RELAY_BUF - p->h[s].len);
			if (got > 0)
				p->h[s].len += (size_t)got;
			else if (got == 0 || (errno != EAGAIN && errno != EINTR))
				p->h[s].eof = true;
		}
		struct half *in = &p->h[1 - s]; /* bytes to write to fd[s] */
		if ((rev & POLLOUT) && in->len) {
			ssize_t put = send(p->fd[s], in->buf, in->len, MSG_NOSIGNAL);
			if (put > 0) {
				memmove(in->buf, in->buf + put, in->len - (size_t)put);
				in->len -= (size_t)put;
			} else if (put < 0 && errno != EAGAIN && errno != EINTR) {
				return false;
			}
		}
	}
	for (int s = 0; s < 2; s++) {
		if (p->h[s].eof && !p->h[s].len && !p->h[s].shut) {
			shutdown(p->fd[1 - s], SHUT_WR);
			p->h[s].shut = true;
		}
	}
	return !(p->h[0].shut && p->h[1].shut);
}

void relay_service(struct relay *r, const struct pollfd *pf, int n)
{
	for (int k = 0; k < n; k++)
		if (pf[k].fd == r->lfd && (pf[k].revents & POLLIN))
			accept_one(r);
	for (int i = 0; i < RELAY_MAX; i++)
		if (r->p[i] && !pair_step(r->p[i], pf, n))
			pair_close(r, i);
}

int relay_count(const struct relay *r)
{
	return r->count;
}

void relay_free(struct relay *r)
{
	if (!r)
		return;
	for (int i = 0; i < RELAY_MAX; i++)
		if (r->p[i])
			pair_close(r, i);
	close(r->lfd);
	free(r->unix_path);
	free(r);
}
