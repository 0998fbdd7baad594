/* fast — the answers of the fast and deep stages as the compiler's model
 * could give them, on the skill it was asked about. The input is cut at
 * "----" lines into a SKILL.md, the answer's text and the trace text the
 * question showed. The JSON is found in the answer (JSON mode); its
 * findings are validated as the map step does (kept + dropped account for
 * every answered one, at most 8 kept, each naming a section); its patches
 * (the reduce step) and its edit (the deep edit) are checked and each well
 * formed one applied to the set as the stages do: every skill's guard
 * holds after every one. */
#include "fuzz.h"
#include "compile/guard.h"
#include "llm/client.h"
#include "optimize/map.h"
#include "optimize/patch.h"
#include "optimize/reduce.h"
#include "optimize/skillpkg.h"

static void check_findings(const cJSON *answer, const struct pkgset *set, const char *seen)
{
	cJSON *out = cJSON_CreateObject();
	map_validate(answer, set, seen, out);
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(out, "counts");
	int kept = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(out, "findings"));
	int dropped = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(out, "dropped"));
	int answered = cJSON_GetObjectItemCaseSensitive(counts, "answered")->valueint;
	FUZZ_CHECK(kept + dropped == answered && kept <= MAP_MAX_FINDINGS);
	FUZZ_CHECK(cJSON_GetObjectItemCaseSensitive(counts, "kept")->valueint == kept);
	cJSON_Delete(out);
}

static void apply(const struct pkgset *set, const struct guard_base *g, struct skill_out *out,
		  const cJSON *patch)
{
	if (patch_problem(patch, set))
		return; /* dropped with its reason, as reduce does */
	cJSON *step = cJSON_CreateObject();
	patch_apply_set(set, g, out, patch, 300, step);
	const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(step, "status"));
	FUZZ_CHECK(st && (!strcmp(st, "applied") || !strcmp(st, "unchanged") ||
			  !strcmp(st, "rolled_back") || !strcmp(st, "rejected")));
	for (size_t k = 0; k < set->n; k++) { /* a patch that breaks it is rolled back */
		struct guard_fail f;
		FUZZ_CHECK(guard_check(&g[k], &set->v[k], &out[k], &f) == 0);
	}
	cJSON_Delete(step);
}

static void check_patches(const struct pkgset *set, const cJSON *answer)
{
	struct guard_base *g = xcalloc(set->n, sizeof(*g));
	struct skill_out *out = xcalloc(set->n, sizeof(*out));
	for (size_t k = 0; k < set->n; k++) {
		guard_init(&g[k], &set->v[k]);
		skill_out_init(&out[k], &set->v[k]);
	}
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(answer, "patches");
	for (const cJSON *p = cJSON_IsArray(list) ? list->child : NULL; p; p = p->next)
		apply(set, g, out, p);
	const cJSON *edit = cJSON_GetObjectItemCaseSensitive(answer, "edit");
	if (cJSON_IsObject(edit))
		apply(set, g, out, edit);
	for (size_t k = 0; k < set->n; k++) {
		skill_out_free(&out[k]);
		guard_free(&g[k]);
	}
	free(out);
	free(g);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *part[3];
	size_t len[3];
	fuzz_parts((const char *)data, size, part, len, 3);
	char *root = fuzz_skill_root("fast", part[0], len[0]);
	struct pkgset set = { 0 };
	struct err e;
	char *answer = xstrndup(part[1], len[1]), *seen = xstrndup(part[2], len[2]);
	if (pkgset_load(root, NULL, &set, &e) == 0) {
		cJSON *a = llm_extract_json(answer);
		if (a) {
			check_findings(a, &set, seen);
			check_patches(&set, a);
		}
		cJSON_Delete(a);
	}
	pkgset_free(&set);
	free(answer);
	free(seen);
	free(root);
	return 0;
}
