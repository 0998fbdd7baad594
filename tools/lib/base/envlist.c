#include "base/envlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void envlist_set(struct strlist *env, const char *name, const char *value)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = xasprintf("%s=%s", name, value);
			return;
		}
	}
	strlist_push_owned(env, xasprintf("%s=%s", name, value));
}

void envlist_add_table(struct strlist *env, const cJSON *table)
{
	for (const cJSON *c = table ? table->child : NULL; c; c = c->next) {
		char num[64];
		const char *v = c->valuestring;
		if (cJSON_IsNumber(c)) {
			snprintf(num, sizeof num, "%g", c->valuedouble);
			v = num;
		} else if (cJSON_IsBool(c)) {
			v = cJSON_IsTrue(c) ? "true" : "false";
		}
		struct buf b = BUF_INIT;
		buf_add(&b, "", 0);
		for (const char *s = v; *s;) {
			const char *open = strstr(s, "${");
			const char *close = open ? strchr(open, '}') : NULL;
			if (!close) {
				buf_adds(&b, s);
				break;
			}
			buf_add(&b, s, (size_t)(open - s));
			char *inner = xstrndup(open + 2, (size_t)(close - open - 2));
			char *dflt = strstr(inner, ":-");
			if (dflt) {
				*dflt = '\0';
				dflt += 2;
			}
			const char *got = getenv(inner);
			buf_adds(&b, got && *got ? got : dflt ? dflt : "");
			free(inner);
			s = close + 1;
		}
		envlist_set(env, c->string, b.data);
		buf_free(&b);
	}
}

void envlist_add_proxies(struct strlist *env)
{
	static const char *const pass[] = { "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY" };
	for (size_t i = 0; i < ARRAY_LEN(pass); i++)
		if (getenv(pass[i]))
			envlist_set(env, pass[i], getenv(pass[i]));
}

const char *envlist_get(const struct strlist *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

bool envlist_secret_name(const char *name)
{
	static const char *const marks[] = { "KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS", "COOKIE",
					     "AUTHORIZATION", "AUTH", "BEARER", "SESSION" };
	char up[256];
	size_t i = 0;
	for (; name[i] && i < sizeof up - 1; i++)
		up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	up[i] = '\0';
	for (size_t k = 0; k < ARRAY_LEN(marks); k++)
		if (strstr(up, marks[k]))
			return true;
	return false;
}
