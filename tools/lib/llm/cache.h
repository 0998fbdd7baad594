/* cache.h — the content-addressed LLM response cache shared by all
 * runs: one file per key, <cache_dir>/llm/<first 2 hex>/<key>.json, written
 * to a temp name and renamed, so an entry is whole or absent. An entry holds
 * the canonical request (never a key or a header) and the provider's
 * response. */
#ifndef SKILLC_LLM_CACHE_H
#define SKILLC_LLM_CACHE_H

#include <cJSON.h>

#include "base/util.h"

enum llm_cache_mode {
	LLM_CACHE_USE,     /* read, and record misses (the default) */
	LLM_CACHE_REFRESH, /* never read, record every answer */
	LLM_CACHE_OFF,     /* neither read nor record */
	LLM_CACHE_ONLY,    /* offline replay: read; a miss is an error */
};
#define LLMCACHE_FORMAT 1

/* "use" | "refresh" | "off" | "only"; ERR_INPUT naming LLM_CACHE otherwise. */
int llmcache_mode_parse(const char *s, enum llm_cache_mode *m, struct err *e);
const char *llmcache_mode_name(enum llm_cache_mode m);

/* <cache_dir>/llm/<k[0..1]>/<key>.json; caller frees. */
char *llmcache_path(const char *cache_dir, const char *key);

/* The entry's "response" (caller frees), or NULL when absent or unusable
 * (an unreadable entry counts as a miss, never as an answer). */
cJSON *llmcache_get(const char *cache_dir, const char *key);

/* Records request + response under key (whole or not at all). */
int llmcache_put(const char *cache_dir, const char *key, const cJSON *request,
		 const cJSON *response, double latency, struct err *e);

/* The per-key lock that makes concurrent askers of one question pay once:
 * the second waits for the first, then finds its entry. Returns the fd. */
int llmcache_lock(const char *cache_dir, const char *key, struct err *e);
/* Drops the lock and removes the lock file (safe: a waiter that got the
 * unlinked file re-reads the cache before asking). */
void llmcache_unlock(const char *cache_dir, const char *key, int fd);

#endif
