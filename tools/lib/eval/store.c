#include "eval/store.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/hash.h"
#include "base/json.h"

void trialstore_key(const cJSON *identity, char out[33])
{
	json_hash(identity, out);
}

const char *trialstore_default_dir(void)
{
	return cache_dir();
}

char *trialstore_path(const char *cache, const char *key)
{
	return xasprintf("%s/trials/%.2s/%s", cache, key, key);
}

bool trialstore_has(const char *cache, const char *key)
{
	char *p = trialstore_path(cache, key);
	char *t = path_join(p, "trial.json");
	bool ok = fs_exists(t);
	free(t);
	free(p);
	return ok;
}

/* trial.json is the file people open and edit: the entry gets a copy, not
 * a link that an edit in the run would write through. */
static int copy_record(const char *dir, const char *tmp, struct err *e)
{
	char *from = path_join(dir, "trial.json"), *to = path_join(tmp, "trial.json");
	int r = 0;
	if (fs_exists(to) && (unlink(to) < 0 || fs_copy_file(from, to, 0644, e) < 0))
		r = e->msg[0] ? -1 : err_set(e, ERR_WORK, "cannot replace '%s':", to);
	free(from);
	free(to);
	return r;
}

/* "<entry>.sum": the entry's tree hash when it was filed. */
static int write_sum(const char *entry, struct err *e)
{
	hash_hex h;
	char *sum = xasprintf("%s.sum", entry);
	int r = hash_tree(entry, h, e) < 0 ? -1 : stamp_write(sum, h, e) < 0 ? -1 : 0;
	free(sum);
	return r;
}

/* An entry whose files changed after it was filed (an edit through one of
 * the hard links a reused trial is made of) is set aside, not reused. */
static int check_sum(const char *cache, const char *key, const char *entry, struct err *e)
{
	char *sum = xasprintf("%s.sum", entry);
	hash_hex want, have;
	struct err ignore;
	int r = 0;
	if (!fs_exists(sum)) {
		/* its writer was killed between filing the entry (renamed whole) and
		 * writing the sum: the sum is taken now, so later edits are caught */
		if (write_sum(entry, &ignore) < 0)
			warnf("%s", ignore.msg);
	} else if (stamp_read(sum, want, &ignore) == 0 && hash_tree(entry, have, e) == 0 && strcmp(want, have)) {
		char *aside_dir = xasprintf("%s/trials/.corrupt", cache);
		char *aside = fs_move_aside_as(entry, aside_dir, key, &ignore);
		unlink(sum);
		r = err_set(e, ERR_WORK, "the stored trial %.12s changed after it was filed (a file edited "
			    "through a hard link?); set aside in %s, it runs again", key, aside ? aside : aside_dir);
		free(aside);
		free(aside_dir);
	}
	free(sum);
	return r;
}

/* A trial is filed before its runner's mark (FS_TEMP_RESUMABLE) leaves its
 * folder (a kill while filing must leave the folder resumable); the mark
 * is not part of the trial. */
static int drop_mark(const char *tmp, struct err *e)
{
	char *mark = path_join(tmp, FS_TEMP_RESUMABLE);
	int r = unlink(mark) < 0 && errno != ENOENT ? err_set(e, ERR_WORK, "cannot remove "
		"'%s':", mark) : 0;
	free(mark);
	return r;
}

int trialstore_put(const char *cache, const char *key, const char *dir, struct err *e)
{
	char *final = trialstore_path(cache, key);
	char *parent = xasprintf("%s/trials/%.2s", cache, key);
	int r = 0;
	if (fs_exists(final))
		goto out;
	if (fs_mkdirs(parent, e) < 0) {
		r = -1;
		goto out;
	}
	char *tmp = fs_temp_beside(final);
	r = tree_copy(dir, tmp, true, e);
	if (r == 0)
		r = copy_record(dir, tmp, e);
	if (r == 0)
		r = drop_mark(tmp, e);
	bool filed = false;
	if (r == 0 && rename(tmp, final) == 0)
		filed = true;
	else if (r == 0 && errno != EEXIST && errno != ENOTEMPTY)
		r = err_set(e, ERR_WORK, "cannot file the trial as '%s':", final);
	if (filed)
		r = write_sum(final, e); /* only the writer whose entry it is */
	struct err ignore;
	if (fs_exists(tmp))
		fs_remove_tree(tmp, &ignore); /* failed, or another writer was first */
	free(tmp);
out:
	free(parent);
	free(final);
	return r;
}

char *trialstore_lock_text(int fd)
{
	return lock_text(fd, 4607);
}

int trialstore_holder_parse(const char *text, struct trial_holder *h)
{
	int used = 0;
	h->where = NULL;
	if (lock_holder_parse(text, "", &h->by, &used) < 0)
		return -1;
	const char *nl = strchr(text + used, '\n');
	if (nl && nl[1] == '/')
		h->where = xstrndup(nl + 1, strcspn(nl + 1, "\n"));
	return 0;
}

void trialstore_lock_claim(int fd, const char *where)
{
	char *post = xasprintf("\n%s%s", where ? where : "", where ? "\n" : "");
	lock_claim(fd, "", post);
	free(post);
}

int trialstore_lock(const char *cache, const char *key, bool wait, char **holder, struct err *e)
{
	*holder = NULL;
	char *parent = xasprintf("%s/trials/%.2s", cache, key);
	char *p = xasprintf("%s/%s.lock", parent, key);
	int fd = -1;
	if (fs_mkdirs(parent, e) == 0 && (fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
		err_set(e, ERR_WORK, "cannot open the trial lock '%s':", p);
	if (fd >= 0 && flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		if (!wait && errno == EWOULDBLOCK)
			*holder = lock_first_line(fd, "another process");
		else
			err_set(e, ERR_WORK, "cannot lock '%s':", p);
		close(fd);
		fd = -1;
	}
	free(p);
	free(parent);
	return fd;
}

void trialstore_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the last descriptor */
}

int trialstore_get(const char *cache, const char *key, const char *dst, struct err *e)
{
	char *p = trialstore_path(cache, key);
	int r = check_sum(cache, key, p, e) < 0 ? -1 : tree_copy(p, dst, true, e);
	free(p);
	return r;
}
