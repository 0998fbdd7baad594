/* profile — a model profile file on any bytes, resolved for a model id next
 * to the built-in profiles: a resolution with a checked profile, or an error
 * naming the file. Run from the repository root (rules/profiles). */
#include "fuzz.h"
#include "base/json.h"
#include "compile/profile.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *dir = fuzz_fresh("profiles");
	fuzz_put(dir, "mine.json", data, size);
	struct err e = { 0, "" };
	cJSON *res = profile_resolve("vllm/Qwen/Qwen3.5-27B", dir, "rules/profiles", &e);
	if (!res) {
		FUZZ_CHECK(e.code == ERR_INPUT);
	} else {
		const cJSON *p = json_get(res, "profile");
		struct err e2;
		FUZZ_CHECK(profile_check(p, "resolved", &e2) == 0);
		(void)profile_budget_tokens(p);
		(void)profile_has(p, "prefers", "explicit_paths");
	}
	cJSON_Delete(res);
	free(dir);
	return 0;
}
