#include "optimize/ask.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"

struct llm_client *ask_open(struct err *e)
{
	struct llm_options o = { 0 };
	return llm_open(&o, e);
}

int ask_json(struct llm_client *c, const struct ask *q, struct ask_answer *a, struct err *e)
{
	memset(a, 0, sizeof *a);
	struct llm_msg msgs[2] = { { "system", q->system }, { "user", q->user } };
	struct llm_request req = {
		.model = q->model,
		.msgs = msgs,
		.n_msgs = 2,
		.has_temperature = true,
		.temperature = 0,
		.template = q->template,
		.label = q->label,
		.json = true,
		.json_keys = q->keys,
		.json_check = q->check,
		.json_arg = q->check_arg,
		.json_repairs = 1,
	};
	struct llm_result r;
	int rc = llm_call(c, &req, &r, e);
	memcpy(a->key, r.key, sizeof a->key);
	if (rc == 0) {
		a->json = r.json;
		r.json = NULL;
	} else if (r.unusable) {
		a->unusable = true;
		a->why = xstrdup(e->msg);
		rc = 0;
	}
	llm_result_free(&r);
	return rc;
}

void ask_answer_free(struct ask_answer *a)
{
	cJSON_Delete(a->json);
	free(a->why);
	memset(a, 0, sizeof *a);
}

void ask_tally_add(struct ask_tally *t, const cJSON *rec)
{
	if (!json_str(rec, "cache_key"))
		return;
	t->asked++;
	const char *st = json_str(rec, "status");
	if (st && !strcmp(st, "bad_answer")) {
		t->bad++;
		t->last_bad = rec;
	}
}

void ask_tally_array(struct ask_tally *t, const cJSON *recs)
{
	for (const cJSON *r = cJSON_IsArray(recs) ? recs->child : NULL; r; r = r->next)
		ask_tally_add(t, r);
}

int ask_tally_check(const struct ask_tally *t, const char *what, const char *model, struct err *e)
{
	if (!t->asked || t->bad < t->asked)
		return 0;
	const char *why = json_str(t->last_bad, "error") ? json_str(t->last_bad, "error") : json_str(t->last_bad, "why");
	if (why && strstr(why, "LLM_CACHE=refresh")) /* the client's reason names key and cure */
		return err_set(e, ERR_WORK, "%s: all %d answer%s of EXTERNAL_MODEL '%s' unusable; the last: %.600s", what,
			       t->asked, t->asked == 1 ? "" : "s", model ? model : "?", why);
	return err_set(e, ERR_WORK,
		       "%s: all %d answer%s of EXTERNAL_MODEL '%s' unusable (the last: %.300s): fix the model or its route, "
		       "then run again with LLM_CACHE=refresh (the bad answers are cached, key %s)",
		       what, t->asked, t->asked == 1 ? "" : "s", model ? model : "?", why ? why : "no reason recorded",
		       json_str(t->last_bad, "cache_key"));
}

int ask_check_list(const cJSON *obj, void *key, struct buf *why)
{
	if (!cJSON_IsArray(json_get(obj, key))) {
		buf_printf(why, "\"%s\" must be a list of objects", (const char *)key);
		return -1;
	}
	return 0;
}
