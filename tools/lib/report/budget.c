#include "report/budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/fs.h"
#include "llm/routes.h"
#include "report/results.h"

int budget_check(const char *run, const char *budget, struct err *e)
{
	if (!budget || !*budget)
		return 0;
	char *end;
	double limit = strtod(budget, &end);
	if (*end || end == budget || !(limit >= 0) || isinf(limit))
		return err_set(e, ERR_INPUT, "bad BUDGET_USD '%s': a number of US dollars, e.g. 2.50 (empty: no budget)",
			       budget);
	struct routes routes = ROUTES_INIT;
	bool priced = routes_load_prices(&routes, false);
	struct results_table tb = { 0 };
	results_build_run(&tb, run, priced ? &routes : NULL);
	long unknown, trials = 0;
	double spent = results_spent(&tb, &unknown);
	for (size_t i = 0; i < tb.n; i++)
		trials += tb.v[i].ran;
	int rc = 0;
	if (spent >= limit) {
		char more[64] = "";
		if (unknown)
			snprintf(more, sizeof more, "; %ld of unknown price not counted", unknown);
		rc = err_set(e, ERR_WORK,
			     "BUDGET_USD=%s is spent: the run has paid $%.4f (%ld LLM call%s, %ld trial%s run here%s); "
			     "raise BUDGET_USD to go on",
			     budget, spent, tb.llm_calls, tb.llm_calls == 1 ? "" : "s", trials, trials == 1 ? "" : "s", more);
	}
	results_free(&tb);
	routes_free(&routes);
	return rc;
}
