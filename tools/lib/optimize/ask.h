/* ask.h — one typed question to the compiler's model (EXTERNAL_MODEL)
 * through the LLM client: cached by content, one usage record per request,
 * the provider's concurrency cap, JSON answers checked for shape with one
 * repair request. An answer that stays unusable is a result the stage
 * records and counts, not a failure; a model that cannot be reached is. */
#ifndef SKILLC_OPTIMIZE_ASK_H
#define SKILLC_OPTIMIZE_ASK_H

#include <stdbool.h>
#include <cJSON.h>

#include "llm/client.h"
#include "base/util.h"

struct ask {
	const char *model;
	const char *template;        /* prompt-template version: part of the cache key */
	const char *label;           /* for the usage record */
	const char *system, *user;
	const char *const *keys;     /* keys the object must have (NULL-terminated) */
	llm_json_check check;        /* its shape; NULL: none */
	void *check_arg;
};

/* An llm_json_check for struct ask: the object's key check_arg (a string)
 * must hold a list. */
int ask_check_list(const cJSON *obj, void *key, struct buf *why);

struct ask_answer {
	cJSON *json;     /* the object (owned), NULL when unusable */
	bool unusable;   /* the model answered, but not with a usable object */
	char *why;       /* unusable: the client's reason (owned) */
	char key[33];    /* the cache key of the last request */
};

/* Opens the client from the environment (ROUTES, ENV_FILE, CACHE_DIR,
 * LLM_CACHE, SKILLC_USAGE_FILE). NULL with e set. */
struct llm_client *ask_open(struct err *e);

/* 0 with a->json, or 0 with a->unusable; -1 with e set when the model
 * could not be asked (unknown provider, missing key, down). */
int ask_json(struct llm_client *c, const struct ask *q, struct ask_answer *a, struct err *e);
void ask_answer_free(struct ask_answer *a);

/* A stage's answers, counted from the records it keeps (each with
 * "cache_key" when the model was asked, "status" "bad_answer" when the
 * answer was unusable, and the reason in "error" or "why"). */
struct ask_tally {
	int asked, bad;
	const cJSON *last_bad; /* borrowed */
};
void ask_tally_add(struct ask_tally *t, const cJSON *rec);
void ask_tally_array(struct ask_tally *t, const cJSON *recs);

/* -1 (ERR_WORK) when the model was asked and every answer was unusable: a
 * stage that carried on would deliver its input as if nothing were wrong.
 * The answers are cached, so the message names a key and LLM_CACHE=refresh. */
int ask_tally_check(const struct ask_tally *t, const char *what, const char *model, struct err *e);

#endif
