#include "llm/http.h"

#include <string.h>

CURL *http_open(void)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NULL;
	CURL *k = curl_easy_init();
	if (!k)
		curl_global_cleanup();
	return k;
}

void http_close(CURL *k)
{
	if (!k)
		return;
	curl_easy_cleanup(k);
	curl_global_cleanup();
}

struct curl_slist *http_json_headers(bool post)
{
	struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
	h = curl_slist_append(h, "Expect:"); /* no 100-continue round trip */
	return post ? curl_slist_append(h, "Content-Type: application/json") : h;
}

void http_json_setup(CURL *k, const struct http_json *q, struct curl_slist *h)
{
	curl_easy_reset(k);
	curl_easy_setopt(k, CURLOPT_URL, q->url);
	curl_easy_setopt(k, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(k, CURLOPT_USERAGENT, q->agent);
	curl_easy_setopt(k, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(k, CURLOPT_CONNECTTIMEOUT_MS, q->connect_ms);
	curl_easy_setopt(k, CURLOPT_TIMEOUT_MS, q->timeout_ms);
	curl_easy_setopt(k, CURLOPT_WRITEFUNCTION, q->on_body);
	curl_easy_setopt(k, CURLOPT_WRITEDATA, q->ctx);
	curl_easy_setopt(k, CURLOPT_ERRORBUFFER, q->errbuf);
	curl_easy_setopt(k, CURLOPT_PROTOCOLS_STR, "http,https");
	if (q->body) {
		curl_easy_setopt(k, CURLOPT_POST, 1L);
		curl_easy_setopt(k, CURLOPT_POSTFIELDS, q->body);
		curl_easy_setopt(k, CURLOPT_POSTFIELDSIZE, (long)strlen(q->body));
	}
	q->errbuf[0] = '\0';
}

CURLcode http_json_perform(CURL *k, long *status)
{
	CURLcode cc = curl_easy_perform(k);
	*status = 0;
	curl_easy_getinfo(k, CURLINFO_RESPONSE_CODE, status);
	curl_easy_setopt(k, CURLOPT_HTTPHEADER, NULL);
	return cc;
}
