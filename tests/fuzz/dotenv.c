/* dotenv — .env files on any bytes: loaded, or an error that names the
 * file and a line and never shows a value. */
#include "fuzz.h"
#include "base/dotenv.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *dir = fuzz_fresh("env");
	fuzz_put(dir, ".env", data, size);
	char *p = path_join(dir, ".env");
	struct dotenv d = DOTENV_INIT;
	struct err e = { 0, "" };
	if (dotenv_load(&d, p, &e) < 0) {
		FUZZ_CHECK(e.code == ERR_INPUT);
	} else {
		for (size_t i = 0; i < d.names.n; i++) {
			FUZZ_CHECK(dotenv_name_ok(d.names.v[i]));
			(void)dotenv_get(&d, d.names.v[i], NULL);
		}
	}
	dotenv_free(&d);
	free(p);
	free(dir);
	return 0;
}
