#include "llm/agentrm.h"

#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

/* The body is not needed: only whether the service answers 200. */
static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

int agentrm_ping(const char *base_url, double timeout, struct err *e)
{
	size_t n = strlen(base_url);
	while (n && base_url[n - 1] == '/')
		n--;
	char *url = xasprintf("%.*s/health", (int)n, base_url);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(url);
		return err_set(e, ERR_WORK, "cannot initialize libcurl");
	}
	CURL *k = curl_easy_init();
	int rc = 0;
	if (!k) {
		rc = err_set(e, ERR_WORK, "cannot initialize libcurl");
	} else {
		char errbuf[CURL_ERROR_SIZE] = "";
		curl_easy_setopt(k, CURLOPT_URL, url);
		curl_easy_setopt(k, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(k, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
		curl_easy_setopt(k, CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(k, CURLOPT_ERRORBUFFER, errbuf);
		curl_easy_setopt(k, CURLOPT_PROTOCOLS_STR, "http,https");
		CURLcode cc = curl_easy_perform(k);
		long status = 0;
		curl_easy_getinfo(k, CURLINFO_RESPONSE_CODE, &status);
		if (cc != CURLE_OK)
			rc = err_set(e, ERR_WORK, "%s: %s", url, *errbuf ? errbuf : curl_easy_strerror(cc));
		else if (status != 200)
			rc = err_set(e, ERR_WORK, "%s answered HTTP %ld", url, status);
		curl_easy_cleanup(k);
	}
	curl_global_cleanup();
	free(url);
	return rc;
}
