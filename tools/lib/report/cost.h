/* cost.h — what a run's LLM calls cost: the usage records skillc-stage
 * collects per target (status/<target>.usage.jsonl, llm/usage.h; one line
 * per request or cache replay), summed per stage family ("static",
 * "fast-map", "deep-2-score": the target's name without its .NNN), and the
 * price of a number of tokens on a model's route.
 *
 * A record's money is its cost_usd (0 for a cache hit: nothing was paid);
 * a record with cost_usd null (its route had no price then) is priced from
 * the routes now, else it is counted as unknown, never as $0. */
#ifndef SKILLC_REPORT_COST_H
#define SKILLC_REPORT_COST_H

#include <stddef.h>

#include "base/util.h"

struct routes;

struct cost_family {
	char *name;          /* "static", "fast-map", ... */
	long calls, hits, errors, unknown;
	double tokens_in, tokens_out;
	double tokens_sent;   /* tokens_in of the requests sent (not LLM-cache hits) */
	double tokens_cached; /* of tokens_sent, served by the provider's prompt cache */
	double usd;          /* the known money summed */
};

struct cost_calls {
	struct cost_family *v;  /* in the order first seen (status/ sorted by name) */
	size_t n;
	long calls, unknown;
	double usd;
};

/* Reads every status/<target>.usage.jsonl of the run (a line that is not
 * JSON is skipped: a record is one whole line). routes may be NULL. */
void cost_calls_load(struct cost_calls *c, const char *run, const struct routes *routes);
void cost_calls_free(struct cost_calls *c);
/* The family of that name, or NULL. */
const struct cost_family *cost_family_find(const struct cost_calls *c, const char *name);

/* USD of tokens_in + tokens_out on the route of model ("provider/model-id");
 * NAN when the routes give it no price. */
double cost_price(const struct routes *routes, const char *model, double tokens_in, double tokens_out);

/* The results row a stage family's money belongs to: "static" and
 * "static-eval" to static, "fast-map" to fast, "deep-2-edit" to deep-2,
 * "raw-eval" to raw; written into out. */
void cost_row_of(const char *family, char *out, size_t size);

#endif
