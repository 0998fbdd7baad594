#include "eval/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
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

int tree_copy(const char *src, const char *dst, bool link_ok, struct err *e)
{
	struct fs_tree t = { 0 };
	if (fs_list_tree(src, &t, e) < 0) {
		fs_tree_free(&t);
		return -1;
	}
	int r = 0;
	if (mkdir(dst, 0755) < 0)
		r = err_set(e, ERR_WORK, "cannot create '%s':", dst);
	for (size_t i = 0; r == 0 && i < t.n; i++) {
		const struct fs_entry *en = &t.v[i];
		char *from = path_join(src, en->path), *to = path_join(dst, en->path);
		if (S_ISDIR(en->mode)) {
			if (mkdir(to, 0755) < 0)
				r = err_set(e, ERR_WORK, "cannot create '%s':", to);
		} else if (S_ISLNK(en->mode)) {
			if (symlink(en->link, to) < 0)
				r = err_set(e, ERR_WORK, "cannot create '%s':", to);
		} else if (S_ISREG(en->mode)) {
			if (!link_ok || link(from, to) < 0)
				r = fs_copy_file(from, to, en->mode & 07777, e);
		}
		free(from);
		free(to);
	}
	fs_tree_free(&t);
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
	if (r == 0 && rename(tmp, final) < 0 && errno != EEXIST && errno != ENOTEMPTY)
		r = err_set(e, ERR_WORK, "cannot file the trial as '%s':", final);
	struct err ignore;
	if (fs_exists(tmp))
		fs_remove_tree(tmp, &ignore); /* failed, or another writer was first */
	free(tmp);
out:
	free(parent);
	free(final);
	return r;
}

int trialstore_get(const char *cache, const char *key, const char *dst, struct err *e)
{
	char *p = trialstore_path(cache, key);
	int r = tree_copy(p, dst, true, e);
	free(p);
	return r;
}
