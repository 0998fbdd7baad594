/* check — the validator and its lint on any SKILL.md (written into a
 * skill folder of the scratch folder, with a references/ file it may
 * point at): a verdict, a first error exactly when not valid, and reports
 * as text and JSON. */
#include "fuzz.h"
#include "base/json.h"
#include "skill/validate.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *dir = fuzz_fresh("x");
	fuzz_put(dir, "SKILL.md", data, size);
	fuzz_put(dir, "references/guide.md", "See [more](deeper.md) and scripts/a.sh.\n", 40);
	struct check_report *r;
	int v = check_skill(dir, &r);
	FUZZ_CHECK(v == CHECK_VALID || v == CHECK_INVALID || v == CHECK_UNUSABLE);
	FUZZ_CHECK((v == CHECK_VALID) == (check_first_error(r) == NULL));
	struct buf text = BUF_INIT;
	check_report_text(r, &text);
	cJSON *j = check_report_json(r);
	struct buf canon = BUF_INIT;
	json_canon(j, false, &canon);
	cJSON *back = cJSON_ParseWithLength(canon.data, canon.len);
	FUZZ_CHECK(back != NULL); /* the report is JSON, whatever the skill holds */
	cJSON_Delete(back);
	buf_free(&canon);
	cJSON_Delete(j);
	buf_free(&text);
	check_report_free(r);
	free(dir);
	return 0;
}
