/* routes — provider_routes.json on any bytes: routes_load (reading, JSON,
 * every field checked) gives routes that resolve, or an error naming the
 * file. */
#include "fuzz.h"
#include "llm/routes.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *dir = fuzz_fresh("routes");
	fuzz_put(dir, "provider_routes.json", data, size);
	char *p = path_join(dir, "provider_routes.json");
	struct routes r = ROUTES_INIT;
	struct err e = { 0, "" };
	if (routes_load(&r, p, &e) < 0) {
		FUZZ_CHECK(e.code == ERR_INPUT && strstr(e.msg, "provider_routes.json"));
	} else {
		for (size_t i = 0; i < r.n; i++) {
			char *id = xasprintf("%s/m-1", r.v[i].provider), *model = NULL;
			struct err e2;
			FUZZ_CHECK(routes_resolve(&r, id, &model, &e2) == routes_find(&r, r.v[i].provider));
			double in, out;
			(void)route_price(&r.v[i], model, &in, &out);
			free(model);
			free(id);
		}
	}
	routes_free(&r);
	free(p);
	free(dir);
	return 0;
}
