#include "optimize/ask.h"

#include <stdlib.h>
#include <string.h>

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
