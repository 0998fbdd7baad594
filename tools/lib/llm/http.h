/* http.h — the libcurl set-up every JSON request of skillc shares (the LLM
 * client and AgentRM): one handle per client, the same headers, limits and
 * protocols, so a fix to one (a timeout, a protocol) reaches both. */
#ifndef SKILLC_LLM_HTTP_H
#define SKILLC_LLM_HTTP_H

#include <stdbool.h>

#include "llm/curldl.h"

/* libcurl loaded and a handle made (curl_global_init + curl_easy_init);
 * NULL when it cannot, curldl_error() says why. */
CURL *http_open(void);
/* Ends a handle of http_open; NULL does nothing. */
void http_close(CURL *k);

/* Accept and an empty Expect, plus Content-Type for a POST: the start of
 * every request's header list (the caller may append, then frees it). */
struct curl_slist *http_json_headers(bool post);

struct http_json {
	const char *url, *agent;
	const char *body;                 /* NULL: a GET */
	long connect_ms, timeout_ms;
	size_t (*on_body)(char *, size_t, size_t, void *);
	void *ctx;                        /* on_body's */
	char *errbuf;                     /* CURL_ERROR_SIZE bytes, emptied here */
};
/* Resets k and sets q's options with the header list h. */
void http_json_setup(CURL *k, const struct http_json *q, struct curl_slist *h);
/* Performs the request set up on k; *status is the HTTP status (0 when
 * none came). The header list is unset from k before the caller frees it. */
CURLcode http_json_perform(CURL *k, long *status);

#endif
