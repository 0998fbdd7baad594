#include "llm/routes.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/dotenv.h"
#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"

static const char *const route_fields[] = {
	"base_url", "api", "key_env", "key_required", "headers", "timeout", "connect_timeout",
	"max_concurrency", "response_format", "retry", "prices", "low_speed_bytes", "low_speed_time", NULL,
};
static const char *const retry_fields[] = { "attempts", "base_delay", "max_delay", "total", NULL };

static bool field_known(const char *const *list, const char *k)
{
	if (k[0] == '_')
		return true; /* "_comment" and the like document the file */
	for (; *list; list++)
		if (!strcmp(*list, k))
			return true;
	return false;
}

static int check_fields(const cJSON *obj, const char *const *list, const char *path,
			const char *where, struct err *e)
{
	for (const cJSON *c = obj->child; c; c = c->next)
		if (!field_known(list, c->string))
			return err_set(e, ERR_INPUT, "routes '%s': %s: unknown field '%s' (see docs/llm.md)",
				       path, where, c->string);
	return 0;
}

/* A number field in [min, max]; absent keeps *out. */
static int get_num(const cJSON *obj, const char *k, double min, double max, double *out,
		   const char *path, const char *where, struct err *e)
{
	const cJSON *v = json_get(obj, k);
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < min || v->valuedouble > max)
		return err_set(e, ERR_INPUT, "routes '%s': %s: '%s' must be a number from %g to %g",
			       path, where, k, min, max);
	*out = v->valuedouble;
	return 0;
}

static int get_bool(const cJSON *obj, const char *k, bool *out, const char *path,
		    const char *where, struct err *e)
{
	const cJSON *v = json_get(obj, k);
	if (!v)
		return 0;
	if (!cJSON_IsBool(v))
		return err_set(e, ERR_INPUT, "routes '%s': %s: '%s' must be true or false", path, where, k);
	*out = cJSON_IsTrue(v);
	return 0;
}

static bool url_ok(const char *u)
{
	if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8))
		return false;
	const char *host = strstr(u, "://") + 3;
	if (!*host || strchr("/?#:@", *host))
		return false; /* no host: nothing to connect to */
	for (const char *p = u; *p; p++)
		if (*p <= ' ' || *p == '"' || *p == '\'' || *p == '\\' || *p == 0x7f)
			return false;
	return true;
}

static bool header_ok(const char *name, const char *value)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
			return false;
	for (const char *p = value; *p; p++)
		if (*p == '\r' || *p == '\n')
			return false;
	return true;
}

static int parse_headers(struct route *rt, const cJSON *h, const char *path, const char *where,
			 struct err *e)
{
	if (!h)
		return 0;
	if (!cJSON_IsObject(h))
		return err_set(e, ERR_INPUT, "routes '%s': %s: 'headers' must be an object of strings",
			       path, where);
	for (const cJSON *c = h->child; c; c = c->next) {
		if (!cJSON_IsString(c) || !header_ok(c->string, c->valuestring))
			return err_set(e, ERR_INPUT, "routes '%s': %s: header '%s' must be a name of letters, digits and '-' with a one-line string value",
				       path, where, c->string);
		if (!strcasecmp(c->string, "Authorization"))
			return err_set(e, ERR_INPUT, "routes '%s': %s: keys never go in 'headers': name the variable in 'key_env'",
				       path, where);
		strlist_push_owned(&rt->headers, xasprintf("%s: %s", c->string, c->valuestring));
	}
	return 0;
}

static int parse_prices(struct route *rt, const cJSON *p, const char *path, const char *where,
			struct err *e)
{
	if (!p)
		return 0;
	if (!cJSON_IsObject(p))
		return err_set(e, ERR_INPUT, "routes '%s': %s: 'prices' must map model ids to {\"input\": N, \"output\": N}",
			       path, where);
	rt->prices = xcalloc((size_t)cJSON_GetArraySize(p) + 1, sizeof *rt->prices);
	for (const cJSON *c = p->child; c; c = c->next) {
		if (c->string[0] == '_')
			continue;
		double in = -1, out = -1, cached = -1;
		char *w = xasprintf("%s: price of '%s'", where, c->string);
		int rc = cJSON_IsObject(c) ? 0 : err_set(e, ERR_INPUT, "routes '%s': %s must be an object", path, w);
		if (rc == 0)
			rc = get_num(c, "input", 0, 1e6, &in, path, w, e);
		if (rc == 0)
			rc = get_num(c, "output", 0, 1e6, &out, path, w, e);
		if (rc == 0)
			rc = get_num(c, "cached_input", 0, 1e6, &cached, path, w, e);
		if (rc == 0 && (in < 0 || out < 0))
			rc = err_set(e, ERR_INPUT, "routes '%s': %s needs both 'input' and 'output' (USD per million tokens)",
				     path, w);
		free(w);
		if (rc < 0)
			return -1;
		struct route_price *pr = &rt->prices[rt->n_prices++];
		pr->model = xstrdup(c->string);
		pr->input = in;
		pr->output = out;
		pr->cached_input = cached < 0 ? in : cached;
	}
	return 0;
}

static int parse_retry(struct route *rt, const cJSON *r, const char *path, const char *where,
		       struct err *e)
{
	rt->retry = (struct route_retry){ 6, 1.0, 60.0, 900.0 };
	if (!r)
		return 0;
	char *w = xasprintf("%s: retry", where);
	double attempts = rt->retry.attempts;
	int rc = cJSON_IsObject(r) ? 0 : err_set(e, ERR_INPUT, "routes '%s': %s must be an object", path, w);
	if (rc == 0)
		rc = check_fields(r, retry_fields, path, w, e);
	if (rc == 0)
		rc = get_num(r, "attempts", 1, 100, &attempts, path, w, e);
	if (rc == 0)
		rc = get_num(r, "base_delay", 0, 3600, &rt->retry.base_delay, path, w, e);
	if (rc == 0)
		rc = get_num(r, "max_delay", 0, 3600, &rt->retry.max_delay, path, w, e);
	if (rc == 0)
		rc = get_num(r, "total", 0, 86400, &rt->retry.total, path, w, e);
	rt->retry.attempts = (int)attempts;
	free(w);
	return rc;
}

static int parse_route(struct route *rt, const cJSON *o, const char *path, struct err *e)
{
	char *where = xasprintf("provider '%s'", rt->provider);
	int rc = -1;
	const cJSON *kv;
	double conc = 0;
	rt->timeout = 600;
	rt->connect_timeout = 10;
	rt->low_speed_bytes = 1024;
	rt->low_speed_time = 30;
	rt->response_format = true;
	rt->key_required = true;
	rt->api = xstrdup("openai");
	if (!cJSON_IsObject(o)) {
		err_set(e, ERR_INPUT, "routes '%s': %s must be an object", path, where);
		goto out;
	}
	if (check_fields(o, route_fields, path, where, e) < 0)
		goto out;
	const char *url = json_str(o, "base_url");
	if (!url || !url_ok(url)) {
		err_set(e, ERR_INPUT, "routes '%s': %s: 'base_url' must be an http:// or https:// URL with a host", path, where);
		goto out;
	}
	rt->base_url = xstrdup(url);
	for (size_t n = strlen(rt->base_url); n && rt->base_url[n - 1] == '/'; n--)
		rt->base_url[n - 1] = '\0';
	const cJSON *api = json_get(o, "api");
	if (api && (!cJSON_IsString(api) || strcmp(api->valuestring, "openai"))) {
		err_set(e, ERR_INPUT, "routes '%s': %s: api '%s' is not supported (supported: openai)", path,
			where, cJSON_IsString(api) ? api->valuestring : "?");
		goto out;
	}
	kv = json_get(o, "key_env");
	if (kv && !cJSON_IsNull(kv)) {
		if (!cJSON_IsString(kv) || !dotenv_name_ok(kv->valuestring)) {
			err_set(e, ERR_INPUT, "routes '%s': %s: 'key_env' must name a variable (letters, digits, '_') or be null",
				path, where);
			goto out;
		}
		rt->key_env = xstrdup(kv->valuestring);
	}
	if (get_bool(o, "key_required", &rt->key_required, path, where, e) < 0 ||
	    get_bool(o, "response_format", &rt->response_format, path, where, e) < 0 ||
	    get_num(o, "timeout", 0.001, 86400, &rt->timeout, path, where, e) < 0 ||
	    get_num(o, "connect_timeout", 0.001, 3600, &rt->connect_timeout, path, where, e) < 0 ||
	    get_num(o, "low_speed_bytes", 0, 1e9, &rt->low_speed_bytes, path, where, e) < 0 ||
	    get_num(o, "low_speed_time", 1, 86400, &rt->low_speed_time, path, where, e) < 0 ||
	    get_num(o, "max_concurrency", 0, 1024, &conc, path, where, e) < 0 ||
	    parse_headers(rt, json_get(o, "headers"), path, where, e) < 0 ||
	    parse_retry(rt, json_get(o, "retry"), path, where, e) < 0 ||
	    parse_prices(rt, json_get(o, "prices"), path, where, e) < 0)
		goto out;
	if (!rt->key_env)
		rt->key_required = false;
	rt->max_concurrency = (int)conc;
	rc = 0;
out:
	free(where);
	return rc;
}

/* routes_load on an already parsed document (path is used in messages). */
static int routes_parse(struct routes *r, const cJSON *doc, const char *path, struct err *e)
{
	r->path = xstrdup(path);
	if (!cJSON_IsObject(doc))
		return err_set(e, ERR_INPUT, "routes '%s': expected an object with \"providers\"", path);
	for (const cJSON *c = doc->child; c; c = c->next)
		if (c->string[0] != '_' && strcmp(c->string, "providers") && strcmp(c->string, "version"))
			return err_set(e, ERR_INPUT, "routes '%s': unknown field '%s' (see docs/llm.md)", path, c->string);
	double version = json_num(doc, "version", 1);
	if (version != 1)
		return err_set(e, ERR_INPUT, "routes '%s': version %g is not supported (this skillc reads version 1)",
			       path, version);
	const cJSON *ps = json_get(doc, "providers");
	if (!cJSON_IsObject(ps))
		return err_set(e, ERR_INPUT, "routes '%s': \"providers\" must be an object mapping names to routes", path);
	r->v = xcalloc((size_t)cJSON_GetArraySize(ps) + 1, sizeof *r->v);
	for (const cJSON *c = ps->child; c; c = c->next) {
		if (c->string[0] == '_')
			continue;
		if (!name_is_safe(c->string))
			return err_set(e, ERR_INPUT, "routes '%s': bad provider name '%s' (use letters, digits, '.', '_', '-')",
				       path, c->string);
		if (routes_find(r, c->string))
			return err_set(e, ERR_INPUT, "routes '%s': provider '%s' is defined twice", path, c->string);
		struct route *rt = &r->v[r->n++];
		rt->provider = xstrdup(c->string);
		if (parse_route(rt, c, path, e) < 0)
			return -1;
	}
	return 0;
}

int routes_load(struct routes *r, const char *path, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err sub;
	if (fs_read(path, 4 << 20, &text, &sub) < 0) {
		buf_free(&text);
		r->path = xstrdup(path);
		return err_set(e, ERR_INPUT, "routes '%s' cannot be read (set ROUTES, or copy rules/provider_routes.json): %s",
			       path, sub.msg);
	}
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithOpts(text.data, &end, true);
	if (!doc) {
		int line = 1;
		for (const char *p = text.data; end && p < end; p++)
			line += *p == '\n';
		buf_free(&text);
		r->path = xstrdup(path);
		return err_set(e, ERR_INPUT, "routes '%s' is not valid JSON (near line %d)", path, line);
	}
	/* cJSON ends a string at \u0000: a value would be silently cut short */
	bool nul = strstr(text.data, "\\u0000") != NULL;
	buf_free(&text);
	if (nul) {
		cJSON_Delete(doc);
		r->path = xstrdup(path);
		return err_set(e, ERR_INPUT, "routes '%s' holds \\u0000 (a NUL) in a string: remove it", path);
	}
	int rc = routes_parse(r, doc, path, e);
	cJSON_Delete(doc);
	return rc;
}

void routes_free(struct routes *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct route *rt = &r->v[i];
		free(rt->provider);
		free(rt->base_url);
		free(rt->api);
		free(rt->key_env);
		strlist_free(&rt->headers);
		for (size_t j = 0; j < rt->n_prices; j++)
			free(rt->prices[j].model);
		free(rt->prices);
	}
	free(r->v);
	free(r->path);
	*r = (struct routes)ROUTES_INIT;
}

const struct route *routes_find(const struct routes *r, const char *provider)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].provider && !strcmp(r->v[i].provider, provider))
			return &r->v[i];
	return NULL;
}

static bool model_char(char c)
{
	return isalnum((unsigned char)c) || strchr("._-/:@", c);
}

int routes_split(const char *id, char **provider, char **model, struct err *e)
{
	*provider = *model = NULL;
	const char *slash = id ? strchr(id, '/') : NULL;
	if (!id || !*id)
		return err_set(e, ERR_INPUT, "no model given: set MODEL=provider/model-id (e.g. openai/gpt-4o-mini)");
	if (!slash)
		return err_set(e, ERR_INPUT, "model '%s' has no provider: write provider/model-id (e.g. openai/%s)", id, id);
	char *p = xstrndup(id, (size_t)(slash - id));
	const char *m = slash + 1;
	bool ok = name_is_safe(p) && *m && *m != '/' && m[strlen(m) - 1] != '/' && !strstr(m, "..") &&
		  !strstr(m, "//") && *m != '-';
	for (const char *c = m; ok && *c; c++)
		ok = model_char(*c);
	if (!ok) {
		free(p);
		return err_set(e, ERR_INPUT, "bad model id '%s': write provider/model-id with letters, digits and . _ - / : @",
			       id);
	}
	*provider = p;
	*model = xstrdup(m);
	return 0;
}

const struct route *routes_resolve(const struct routes *r, const char *id, char **model, struct err *e)
{
	char *provider;
	if (routes_split(id, &provider, model, e) < 0)
		return NULL;
	const struct route *rt = routes_find(r, provider);
	if (!rt) {
		struct buf known = BUF_INIT;
		for (size_t i = 0; i < r->n; i++)
			buf_printf(&known, "%s%s", i ? ", " : "", r->v[i].provider);
		err_set(e, ERR_INPUT, "unknown provider '%s' in model '%s': add it to routes '%s' (known: %s)",
			provider, id, r->path, known.len ? known.data : "none");
		buf_free(&known);
		free(*model);
		*model = NULL;
	}
	free(provider);
	return rt;
}

static const struct route_price *price_entry(const struct route *rt, const char *model)
{
	const struct route_price *star = NULL;
	for (size_t i = 0; i < rt->n_prices; i++) {
		if (!strcmp(rt->prices[i].model, model))
			return &rt->prices[i];
		if (!strcmp(rt->prices[i].model, "*"))
			star = &rt->prices[i];
	}
	return star;
}

bool route_price(const struct route *rt, const char *model, double *in, double *out)
{
	const struct route_price *p = price_entry(rt, model);
	if (p) {
		*in = p->input;
		*out = p->output;
	}
	return p != NULL;
}

bool route_cached_price(const struct route *rt, const char *model, double *cached)
{
	const struct route_price *p = price_entry(rt, model);
	*cached = p ? p->cached_input : 0;
	return p != NULL;
}

char *routes_locate(const char *explicit_path)
{
	const char *p = explicit_path && *explicit_path ? explicit_path : getenv("ROUTES");
	if (!p || !*p)
		p = ROUTES_DEFAULT;
	if (!strcmp(p, ROUTES_DEFAULT) && !fs_exists(p)) {
		char *rules = rules_dir(); /* the shipped example */
		char *shipped = rules ? path_join(rules, "provider_routes.json") : NULL;
		free(rules);
		if (shipped && fs_exists(shipped))
			return shipped;
		free(shipped);
	}
	return xstrdup(p);
}

bool routes_load_prices(struct routes *r, bool warn)
{
	struct err e = { 0, "" };
	char *path = routes_locate(NULL);
	bool priced = fs_exists(path) && routes_load(r, path, &e) == 0;
	if (!priced && warn && fs_exists(path))
		warnf("%s; trials without a runner cost are shown as unknown", e.msg);
	free(path);
	return priced;
}
