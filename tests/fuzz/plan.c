/* plan — a hybrid plan as the planning model could answer it, on the skill
 * it was asked about. The input is cut at a "----" line into a SKILL.md and
 * the answer's text: the JSON is found in the answer (JSON mode), checked
 * for the plan's shape, and each step applied as skillc-static does (on a
 * copy, the guard after it); an applied step keeps everything the guard
 * protects. */
#include "fuzz.h"
#include "compile/guard.h"
#include "compile/plan.h"
#include "llm/client.h"

static void apply(const struct skill_src *src, const struct guard_base *g, const cJSON *plan)
{
	cJSON *profile = cJSON_Parse("{\"profile\": \"fuzz\", \"body_budget\": {\"tokens\": 200, \"lines\": 20}}");
	struct skill_out out;
	skill_out_init(&out, src);
	const cJSON *ops = cJSON_GetObjectItemCaseSensitive(plan, "operations");
	for (const cJSON *op = ops ? ops->child : NULL; op; op = op->next) {
		struct skill_out trial;
		skill_out_copy(&trial, &out);
		cJSON *notes = cJSON_CreateObject();
		struct err e = { 0, "" };
		int rc = plan_step(profile, src, &trial, op, notes, &e);
		struct guard_fail f;
		if (rc == 0 && guard_check(g, src, &trial, &f) == 0) {
			skill_out_free(&out);
			out = trial;
			trial = (struct skill_out){ 0 };
		} else if (rc == 0) {
			guard_fail_free(&f);
		} else {
			FUZZ_CHECK(e.msg[0]); /* a rejected or failed step says why */
		}
		skill_out_free(&trial);
		cJSON_Delete(notes);
	}
	struct guard_fail f;
	FUZZ_CHECK(guard_check(g, src, &out, &f) == 0);
	skill_out_free(&out);
	cJSON_Delete(profile);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *part[2];
	size_t len[2];
	fuzz_parts((const char *)data, size, part, len, 2);
	char *root = fuzz_skill_root("plan", part[0], len[0]);
	struct skill_src src;
	struct err e;
	char *answer = xstrndup(part[1], len[1]);
	if (skill_src_load(root, &src, &e) == 0) {
		cJSON *plan = llm_extract_json(answer);
		struct buf why = BUF_INIT;
		if (plan && plan_check_shape(plan, NULL, &why) == 0) {
			struct guard_base g;
			guard_init(&g, &src);
			apply(&src, &g, plan);
			guard_free(&g);
		}
		buf_free(&why);
		cJSON_Delete(plan);
	}
	skill_src_free(&src);
	free(answer);
	free(root);
	return 0;
}
