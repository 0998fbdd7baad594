#include "report/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/fs.h"
#include "base/json.h"
#include "llm/routes.h"

/* cost_price with cached of tokens_in priced as cached prompt tokens. */
static double cost_price_cached(const struct routes *routes, const char *model, double tokens_in,
				double cached, double tokens_out)
{
	if (!routes || !model || isnan(tokens_in) || isnan(tokens_out))
		return NAN;
	char *id = NULL;
	struct err e;
	double in, out, cin, usd = NAN;
	const struct route *rt = routes_resolve(routes, model, &id, &e);
	if (rt && route_price(rt, id, &in, &out) && route_cached_price(rt, id, &cin))
		usd = ((tokens_in - cached) * in + cached * cin + tokens_out * out) / 1e6;
	free(id);
	return usd;
}

double cost_price(const struct routes *routes, const char *model, double tokens_in, double tokens_out)
{
	return cost_price_cached(routes, model, tokens_in, 0, tokens_out);
}

void cost_row_of(const char *family, char *out, size_t size)
{
	char *end;
	if (!strncmp(family, "deep-", 5) && family[5] >= '0' && family[5] <= '9') {
		long k = strtol(family + 5, &end, 10);
		snprintf(out, size, "deep-%ld", k);
		return;
	}
	snprintf(out, size, "%.*s", (int)strcspn(family, "-"), family);
}

static struct cost_family *family_for(struct cost_calls *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
	struct cost_family *f = &c->v[c->n++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	return f;
}

static void add_record(struct cost_calls *c, struct cost_family *f, const cJSON *rec, const struct routes *routes)
{
	double in = json_num(rec, "tokens_in", 0), out = json_num(rec, "tokens_out", 0);
	double cached = fmin(in, json_num(rec, "tokens_cached", 0));
	const char *cache = json_str(rec, "cache");
	bool hit = cache && !strcmp(cache, "hit");
	const cJSON *cu = json_get(rec, "cost_usd");
	const char *model = json_str(rec, "model"), *provider = json_str(rec, "provider");
	/* a service that names no provider/model (AgentRM: "agentrm") is priced
	 * by a route of its provider's name when the routes have one */
	char *id = model && !strchr(model, '/') && provider ? xasprintf("%s/%s", provider, model) : NULL;
	double usd = hit ? 0 : cJSON_IsNumber(cu) ? cu->valuedouble : cost_price_cached(routes, id ? id : model, in, cached, out);
	free(id);
	f->calls++;
	c->calls++;
	f->hits += hit;
	f->errors += json_str(rec, "outcome") && !strcmp(json_str(rec, "outcome"), "error");
	f->tokens_in += in;
	f->tokens_out += out;
	if (!hit) {
		f->tokens_sent += in;
		f->tokens_cached += cached;
	}
	if (isnan(usd)) {
		f->unknown++;
		c->unknown++;
	} else {
		f->usd += usd;
		c->usd += usd;
	}
}

static void load_file(struct cost_calls *c, const char *path, const char *family, const struct routes *routes)
{
	struct buf b = BUF_INIT;
	struct err e;
	if (fs_read(path, 256u << 20, &b, &e) < 0) {
		buf_free(&b);
		return;
	}
	struct cost_family *f = family_for(c, family);
	for (char *line = b.data; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		cJSON *rec = nl ? cJSON_ParseWithLength(line, len) : NULL; /* no newline: cut short */
		if (cJSON_IsObject(rec))
			add_record(c, f, rec, routes);
		cJSON_Delete(rec);
		line = nl ? nl + 1 : NULL;
	}
	buf_free(&b);
}

void cost_calls_load(struct cost_calls *c, const char *run, const struct routes *routes)
{
	memset(c, 0, sizeof *c);
	char *status = path_join(run, "status");
	struct strlist names = STRLIST_INIT;
	struct err e;
	fs_list_names(status, &names, &e);
	static const char suffix[] = ".usage.jsonl";
	for (size_t i = 0; i < names.n; i++) {
		size_t n = strlen(names.v[i]);
		if (n <= strlen(suffix) || strcmp(names.v[i] + n - strlen(suffix), suffix))
			continue;
		char *target = xstrndup(names.v[i], n - strlen(suffix));
		char *dot = strrchr(target, '.');
		if (dot && dot[1] >= '0' && dot[1] <= '9')
			*dot = 0;
		char *path = path_join(status, names.v[i]);
		load_file(c, path, target, routes);
		free(path);
		free(target);
	}
	strlist_free(&names);
	free(status);
}

void cost_calls_free(struct cost_calls *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	memset(c, 0, sizeof *c);
}

const struct cost_family *cost_family_find(const struct cost_calls *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}
