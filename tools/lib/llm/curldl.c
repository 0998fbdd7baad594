#define SKILLC_CURLDL_IMPL 1
#include "llm/curldl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The library's soname (libcurl's ABI has been .so.4 since 2006), then the
 * development link for systems that name it differently. */
static const char *const names[] = { "libcurl.so.4", "libcurl.so" };

/* Process-wide like libcurl's own global state: filled once, never freed. */
static struct curldl api;
static int loaded; /* 0 not tried, 1 loaded, -1 failed */
static char why[256];

/* slot is the address of one of api's function pointers; memcpy, as POSIX
 * says dlsym's void * converts to a function pointer of the same size */
static int resolve(void *h, void *slot, const char *sym)
{
	void *p = dlsym(h, sym);
	memcpy(slot, &p, sizeof p);
	if (p)
		return 0;
	snprintf(why, sizeof why, "libcurl lacks %s: install libcurl4 7.85 or newer", sym);
	return -1;
}

static int bind_all(void *h)
{
	struct { void *slot; const char *sym; } t[] = {
		{ &api.global_init, "curl_global_init" },
		{ &api.global_cleanup, "curl_global_cleanup" },
		{ &api.easy_init, "curl_easy_init" },
		{ &api.easy_setopt, "curl_easy_setopt" },
		{ &api.easy_perform, "curl_easy_perform" },
		{ &api.easy_getinfo, "curl_easy_getinfo" },
		{ &api.easy_cleanup, "curl_easy_cleanup" },
		{ &api.easy_reset, "curl_easy_reset" },
		{ &api.easy_strerror, "curl_easy_strerror" },
		{ &api.getdate, "curl_getdate" },
		{ &api.slist_append, "curl_slist_append" },
		{ &api.slist_free_all, "curl_slist_free_all" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (resolve(h, t[i].slot, t[i].sym) < 0)
			return -1;
	return 0;
}

/* Loads libcurl once; NULL when it cannot (curldl_error() says why). */
static const struct curldl *curldl_load(void)
{
	if (loaded)
		return loaded > 0 ? &api : NULL;
	void *h = NULL;
	for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *d = dlerror();
		snprintf(why, sizeof why, "cannot load libcurl (%s): install libcurl4", d ? d : names[0]);
		loaded = -1;
		return NULL;
	}
	loaded = bind_all(h) == 0 ? 1 : -1;
	if (loaded < 0)
		dlclose(h);
	return loaded > 0 ? &api : NULL;
}

const char *curldl_error(void) { return why[0] ? why : "libcurl is not loaded"; }
const struct curldl *curldl_api(void) { return &api; }

CURLcode curldl_global_init(long flags)
{
	return curldl_load() ? api.global_init(flags) : CURLE_FAILED_INIT;
}

void curldl_global_cleanup(void)
{
	if (loaded > 0)
		api.global_cleanup();
}

CURL *curldl_easy_init(void)
{
	return curldl_load() ? api.easy_init() : NULL;
}
