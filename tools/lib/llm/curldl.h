/* curldl.h — libcurl loaded on first use (dlopen), not at start-up.
 *
 * Linking -lcurl made every tool that holds the LLM client load ~30
 * libraries (TLS, GSSAPI, LDAP, ...) at exec, ~15 ms, even for --version or
 * a run served from the LLM cache. Include this instead of <curl/curl.h>:
 * the same curl_* names, resolved from libcurl.so.4 by the first
 * curl_global_init or curl_easy_init. Every other curl_* call needs a
 * handle one of those returned, so the library is loaded by then. */
#ifndef SKILLC_LLM_CURLDL_H
#define SKILLC_LLM_CURLDL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <time.h>

struct curldl {
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	time_t (*getdate)(const char *, const time_t *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
};

/* Why the last load failed: "libcurl.so.4: cannot open ...; install libcurl4". */
const char *curldl_error(void);
/* The table of a loaded library (only after a successful load). */
const struct curldl *curldl_api(void);

CURLcode curldl_global_init(long flags);
void curldl_global_cleanup(void);
CURL *curldl_easy_init(void);

#ifndef SKILLC_CURLDL_IMPL
/* libcurl's own header makes some of these macros already */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init(f) curldl_global_init(f)
#define curl_global_cleanup() curldl_global_cleanup()
#define curl_easy_init() curldl_easy_init()
#define curl_easy_setopt (curldl_api()->easy_setopt)
#define curl_easy_perform (curldl_api()->easy_perform)
#define curl_easy_getinfo (curldl_api()->easy_getinfo)
#define curl_easy_cleanup (curldl_api()->easy_cleanup)
#define curl_easy_reset (curldl_api()->easy_reset)
#define curl_easy_strerror (curldl_api()->easy_strerror)
#define curl_getdate (curldl_api()->getdate)
#define curl_slist_append (curldl_api()->slist_append)
#define curl_slist_free_all (curldl_api()->slist_free_all)
#endif

#endif
