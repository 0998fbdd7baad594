/* budget.h — BUDGET_USD: a run may not start another stage once it has
 * paid its budget. What it paid is what the report calls spent
 * (results.h): every LLM call of status/<target>.usage.jsonl and every trial that
 * ran in the run (not reused from the trial store), priced as the summary
 * prices them (the runner's cost, else tokens at the ROUTES prices). Items
 * of unknown price cannot be counted: the check then works on what is
 * known and says how many were left out. */
#ifndef SKILLC_REPORT_BUDGET_H
#define SKILLC_REPORT_BUDGET_H

#include "base/util.h"

/* 0 when budget (the BUDGET_USD text; empty: no budget) is not yet spent
 * by the run; -1 with e (ERR_WORK, one line naming what was paid) when it
 * is; -1 with ERR_INPUT when budget is not a number >= 0. */
int budget_check(const char *run, const char *budget, struct err *e);

#endif
