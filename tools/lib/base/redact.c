#include "base/redact.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"

extern char **environ;

/* s[0..n) with every secret replaced, into out; false when none occurs. */
static bool replace_all(const char *s, size_t n, const struct strlist *secrets, struct buf *out)
{
	struct buf cur = BUF_INIT;
	buf_add(&cur, s, n);
	bool any = false;
	for (size_t k = 0; k < secrets->n; k++) {
		const char *sec = secrets->v[k];
		size_t sn = strlen(sec);
		if (sn < REDACT_MIN || !memmem(cur.data, cur.len, sec, sn))
			continue;
		struct buf next = BUF_INIT;
		const char *p = cur.data, *end = cur.data + cur.len;
		for (const char *hit; (hit = memmem(p, (size_t)(end - p), sec, sn)); p = hit + sn) {
			buf_add(&next, p, (size_t)(hit - p));
			buf_adds(&next, REDACTED);
		}
		buf_add(&next, p, (size_t)(end - p));
		explicit_bzero(cur.data, cur.len);
		buf_free(&cur);
		cur = next;
		any = true;
	}
	if (any)
		*out = cur;
	else {
		explicit_bzero(cur.data, cur.len);
		buf_free(&cur);
	}
	return any;
}

static int redact_file(const char *path, mode_t mode, const struct strlist *secrets, struct err *e)
{
	struct buf b = BUF_INIT, out = BUF_INIT;
	int r = fs_read(path, 0, &b, e);
	if (r == 0 && replace_all(b.data, b.len, secrets, &out))
		r = fs_write_atomic(path, out.data, out.len, mode & 07777, e);
	explicit_bzero(b.data, b.len);
	buf_free(&b);
	buf_free(&out);
	return r;
}

static int redact_link(const char *path, const char *target, const struct strlist *secrets, struct err *e)
{
	struct buf out = BUF_INIT;
	int r = 0;
	if (replace_all(target, strlen(target), secrets, &out) && (unlink(path) < 0 || symlink(out.data, path) < 0))
		r = err_set(e, ERR_WORK, "cannot rewrite the link '%s':", path);
	buf_free(&out);
	return r;
}

/* Renames dir/rel when its last part holds a secret. */
static int redact_name(const char *dir, const char *rel, const struct strlist *secrets, struct err *e)
{
	const char *base = path_base(rel);
	struct buf nb = BUF_INIT;
	if (!replace_all(base, strlen(base), secrets, &nb))
		return 0;
	char *from = path_join(dir, rel);
	char *parent = path_dir(from);
	char *to = path_join(parent, nb.data);
	for (int i = 2; fs_exists(to); i++) {
		free(to);
		to = xasprintf("%s/%s.%d", parent, nb.data, i);
	}
	int r = rename(from, to) < 0 ? err_set(e, ERR_WORK, "cannot rename '%s' (its name holds a secret):",
					       parent) : 0;
	free(to);
	free(parent);
	free(from);
	buf_free(&nb);
	return r;
}

static int longer_first(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);
	return x < y ? 1 : x > y ? -1 : 0;
}

static size_t count_of(const char *s, size_t n, const char *sec, size_t sn)
{
	size_t k = 0;
	for (const char *p = s, *end = s + n, *hit; (hit = memmem(p, (size_t)(end - p), sec, sn)); p = hit + sn)
		k++;
	return k;
}

size_t redact_buf(struct buf *b, const struct strlist *secrets, int *first)
{
	size_t hits = 0;
	if (first)
		*first = -1;
	if (!b->len || !secrets->n)
		return 0;
	/* a secret holding another is replaced first */
	size_t *order = xmalloc(secrets->n * sizeof *order);
	for (size_t i = 0; i < secrets->n; i++)
		order[i] = i;
	for (size_t i = 1; i < secrets->n; i++)
		for (size_t j = i; j > 0 && strlen(secrets->v[order[j]]) > strlen(secrets->v[order[j - 1]]); j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t i = 0; i < secrets->n; i++) {
		const char *sec = secrets->v[order[i]];
		size_t sn = strlen(sec), k;
		struct strlist one = { (char **)&sec, 1, 1 };
		struct buf out = BUF_INIT;
		if (sn < REDACT_MIN || !(k = count_of(b->data, b->len, sec, sn)) || !replace_all(b->data, b->len, &one, &out))
			continue;
		explicit_bzero(b->data, b->len);
		buf_free(b);
		*b = out;
		hits += k;
		if (first && *first < 0)
			*first = (int)order[i];
	}
	free(order);
	return hits;
}

int redact_tree(const char *dir, const struct strlist *given, struct err *e)
{
	if (!given->n)
		return 0;
	/* a secret holding another is replaced first */
	struct strlist sorted = { (char **)xmalloc(given->n * sizeof(char *)), given->n, given->n };
	memcpy(sorted.v, given->v, given->n * sizeof(char *));
	qsort(sorted.v, sorted.n, sizeof(char *), longer_first);
	const struct strlist *secrets = &sorted;
	struct fs_tree t = { 0 };
	if (fs_list_tree(dir, &t, e) < 0) {
		fs_tree_free(&t);
		free(sorted.v);
		return -1;
	}
	int r = 0;
	for (size_t i = 0; i < t.n && r == 0; i++) {
		char *p = path_join(dir, t.v[i].path);
		if (S_ISREG(t.v[i].mode))
			r = redact_file(p, t.v[i].mode, secrets, e);
		else if (S_ISLNK(t.v[i].mode))
			r = redact_link(p, t.v[i].link, secrets, e);
		free(p);
	}
	/* deepest first: a folder is renamed after what it holds */
	for (size_t i = t.n; r == 0 && i-- > 0;)
		r = redact_name(dir, t.v[i].path, secrets, e);
	fs_tree_free(&t);
	free(sorted.v);
	return r;
}

static bool secret_name(const char *name, size_t n)
{
	static const char *const words[] = { "KEY", "TOKEN", "SECRET", "PASSWORD" };
	for (size_t i = 0; i < ARRAY_LEN(words); i++) {
		size_t k = strlen(words[i]);
		for (size_t j = 0; j + k <= n; j++)
			if (!strncasecmp(name + j, words[i], k))
				return true;
	}
	return false;
}

void redact_secrets_of_env(const struct strlist *env_extra, struct strlist *out)
{
	for (size_t i = 0; env_extra && i < env_extra->n; i++) {
		const char *eq = strchr(env_extra->v[i], '=');
		if (eq && strlen(eq + 1) >= REDACT_MIN)
			strlist_push(out, eq + 1);
	}
	for (char **v = environ; *v; v++) {
		const char *eq = strchr(*v, '=');
		if (eq && secret_name(*v, (size_t)(eq - *v)) && strlen(eq + 1) >= REDACT_MIN)
			strlist_push(out, eq + 1);
	}
}

void redact_wipe(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		explicit_bzero(l->v[i], strlen(l->v[i]));
	strlist_free(l);
}
