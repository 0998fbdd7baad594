#include "llm/cache.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/slots.h"

static const char *const mode_names[] = { "use", "refresh", "off", "only" };

int llmcache_mode_parse(const char *s, enum llm_cache_mode *m, struct err *e)
{
	for (size_t i = 0; i < ARRAY_LEN(mode_names); i++) {
		if (s && !strcmp(s, mode_names[i])) {
			*m = (enum llm_cache_mode)i;
			return 0;
		}
	}
	return err_set(e, ERR_INPUT, "bad LLM_CACHE '%s': use use, refresh, off or only", s ? s : "");
}

const char *llmcache_mode_name(enum llm_cache_mode m)
{
	return mode_names[m];
}

static char *entry_dir(const char *cache_dir, const char *key)
{
	return xasprintf("%s/llm/%.2s", cache_dir, key);
}

char *llmcache_path(const char *cache_dir, const char *key)
{
	return xasprintf("%s/llm/%.2s/%s.json", cache_dir, key, key);
}

cJSON *llmcache_get(const char *cache_dir, const char *key)
{
	char *path = llmcache_path(cache_dir, key);
	cJSON *doc = json_read_opt(path);
	free(path);
	cJSON *resp = NULL;
	const char *k = json_str(doc, "key");
	if (doc && k && !strcmp(k, key) && json_num(doc, "format", 0) == LLMCACHE_FORMAT &&
	    cJSON_IsObject(json_get(doc, "response")))
		resp = cJSON_DetachItemFromObjectCaseSensitive(doc, "response");
	cJSON_Delete(doc);
	return resp;
}

int llmcache_put(const char *cache_dir, const char *key, const cJSON *request,
		 const cJSON *response, double latency, struct err *e)
{
	char *dir = entry_dir(cache_dir, key);
	int rc = fs_mkdirs(dir, e);
	free(dir);
	if (rc < 0)
		return -1;
	char when[32];
	iso_time(now_wall(), when);
	cJSON *doc = cJSON_CreateObject();
	json_set_num(doc, "format", LLMCACHE_FORMAT);
	json_set_str(doc, "key", key);
	json_set_str(doc, "created", when);
	json_set_num(doc, "latency_s", (double)(long)(latency * 1000) / 1000);
	json_set(doc, "request", cJSON_Duplicate(request, true));
	json_set(doc, "response", cJSON_Duplicate(response, true));
	char *path = llmcache_path(cache_dir, key);
	rc = json_write_file(path, doc, e);
	free(path);
	cJSON_Delete(doc);
	return rc;
}

static char *lock_path(const char *cache_dir, const char *key)
{
	return xasprintf("%s/llm/%.2s/%s.lock", cache_dir, key, key);
}

int llmcache_lock(const char *cache_dir, const char *key, struct err *e)
{
	char *dir = entry_dir(cache_dir, key);
	int rc = fs_mkdirs(dir, e);
	free(dir);
	if (rc < 0)
		return -1;
	char *p = lock_path(cache_dir, key);
	int fd = lockfile_take(p, e);
	free(p);
	return fd;
}

void llmcache_unlock(const char *cache_dir, const char *key, int fd)
{
	if (fd < 0)
		return;
	char *p = lock_path(cache_dir, key);
	unlink(p);
	free(p);
	close(fd);
}
