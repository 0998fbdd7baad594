/* static — the deterministic passes and the guard on any SKILL.md, as
 * skillc-static runs them: each pass on a copy of the output, the guard
 * after it, a failing pass rolled back; whatever was kept keeps every
 * frontmatter byte, code block, heading and literal. A tight budget and
 * every preference make each pass act. */
#include "fuzz.h"
#include "compile/guard.h"
#include "compile/passes.h"

static const char profile_text[] =
	"{\"profile\": \"fuzz\", \"context_window\": 100000, \"body_budget\": {\"tokens\": 300, \"lines\": 30},"
	" \"prefers\": [\"explicit_paths\", \"gotchas_first\"], \"weaknesses\": [\"tables\", \"loses_late_instructions\"]}";

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *root = fuzz_fresh("static");
	fuzz_put(root, "demo/SKILL.md", data, size);
	fuzz_put(root, "demo/scripts/run.sh", "echo\n", 5);
	struct skill_src src;
	struct err e;
	if (skill_src_load(root, &src, &e) == 0) {
		cJSON *profile = cJSON_Parse(profile_text);
		struct guard_base g;
		guard_init(&g, &src);
		struct skill_out out;
		skill_out_init(&out, &src);
		struct pass_ctx c = { &src, profile };
		for (size_t i = 0; i < pass_count; i++) {
			struct skill_out trial;
			skill_out_copy(&trial, &out);
			cJSON *notes = cJSON_CreateObject();
			struct err pe = { 0, "" };
			struct guard_fail f;
			int rc = pass_table[i].run(&c, &trial, notes, &pe);
			if (rc == 0 && guard_check(&g, &src, &trial, &f) == 0) {
				skill_out_free(&out);
				out = trial;
				trial = (struct skill_out){ 0 };
			} else if (rc == 0) {
				guard_fail_free(&f);
			}
			skill_out_free(&trial);
			cJSON_Delete(notes);
		}
		struct guard_fail f;
		FUZZ_CHECK(guard_check(&g, &src, &out, &f) == 0);
		skill_out_free(&out);
		guard_free(&g);
		cJSON_Delete(profile);
	}
	skill_src_free(&src);
	free(root);
	return 0;
}
