/* toml — the task.toml subset on any text: a table, or an error naming
 * the file and a line. */
#include "fuzz.h"
#include "base/toml.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct err e = { 0, "" };
	char *text = xstrndup((const char *)data, size); /* the parser wants a NUL after len bytes */
	cJSON *t = toml_parse(text, size, "task.toml", &e);
	if (!t)
		FUZZ_CHECK(e.code == ERR_INPUT && !strncmp(e.msg, "task.toml", 9));
	else
		FUZZ_CHECK(cJSON_IsObject(t));
	cJSON_Delete(t);
	free(text);
	return 0;
}
