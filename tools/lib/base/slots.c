#include "base/slots.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"

static void nap(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int slot_acquire(const char *dir, const char *name, int n, unsigned *seed, struct err *e)
{
	if (fs_mkdirs(dir, e) < 0)
		return -1;
	int *fds = xcalloc((size_t)n, sizeof *fds);
	for (int i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s.%d.lock", dir, name, i);
		fds[i] = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fds[i] < 0) {
			err_set(e, ERR_WORK, "cannot open slot '%s':", p);
			free(p);
			for (int j = 0; j < i; j++)
				close(fds[j]);
			free(fds);
			return -1;
		}
		free(p);
	}
	int got = -1;
	/* Poll: a blocking wait on one slot could sleep while another frees. */
	while (got < 0) {
		int start = (int)(rand_r(seed) % (unsigned)n);
		for (int k = 0; k < n && got < 0; k++) {
			int i = (start + k) % n;
			if (flock(fds[i], LOCK_EX | LOCK_NB) == 0)
				got = i;
		}
		if (got < 0)
			nap(0.005 + (rand_r(seed) % 1000) * 0.00002);
	}
	for (int i = 0; i < n; i++)
		if (i != got)
			close(fds[i]);
	int fd = fds[got];
	free(fds);
	return fd;
}

void slot_release(int fd)
{
	if (fd >= 0)
		close(fd); /* closing the last fd of the open file drops the flock */
}

int lockfile_take(const char *path, struct err *e)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_set(e, ERR_WORK, "cannot open lock '%s':", path);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			err_set(e, ERR_WORK, "cannot lock '%s':", path);
			close(fd);
			return -1;
		}
	}
	return fd;
}

void lock_claim(int fd, const char *pre, const char *post)
{
	char when[32], host[256] = "?";
	iso_time(now_wall(), when);
	gethostname(host, sizeof host - 1);
	char *line = xasprintf("%spid %ld on %s since %s%s", pre, (long)getpid(), host, when, post);
	size_t n = strlen(line);
	/* write, then cut: a reader never sees the file empty */
	if (pwrite(fd, line, n, 0) < 0 || ftruncate(fd, (off_t)n) < 0)
		line[0] = '\0';
	free(line);
}

char *lock_text(int fd, size_t max)
{
	char *text = xmalloc(max + 1);
	ssize_t n = pread(fd, text, max, 0);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

char *lock_first_line(int fd, const char *fallback)
{
	char *text = lock_text(fd, 4096);
	text[strcspn(text, "\n")] = '\0';
	if (*text)
		return text;
	free(text);
	return xstrdup(fallback);
}

int lock_holder_parse(const char *text, const char *pre, struct lock_holder *h, int *end)
{
	memset(h, 0, sizeof *h);
	size_t np = strlen(pre);
	int used = 0;
	if (strncmp(text, pre, np))
		return -1;
	int got = sscanf(text + np, "pid %ld on %255s since %*s%n", &h->pid, h->host, &used);
	if (got < 2 || h->pid <= 0 || !used)
		return -1;
	if (end)
		*end = (int)np + used;
	return 0;
}

bool lock_holder_is_other_here(const struct lock_holder *h)
{
	char host[256] = "?";
	gethostname(host, sizeof host - 1);
	return !strcmp(h->host, host) && h->pid != (long)getpid();
}
