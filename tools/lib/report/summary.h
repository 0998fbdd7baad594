/* summary.h — a results table (results.h) written out: summary.md (a
 * Markdown table and notes on how to read it), summary.csv and summary.json
 * (every number, rounded: 4 decimals for rates, 2 for the rest). */
#ifndef SKILLC_REPORT_SUMMARY_H
#define SKILLC_REPORT_SUMMARY_H

#include <cJSON.h>

#include "report/results.h"
#include "base/util.h"

/* The Markdown table alone (no title, no notes), appended to b. */
void summary_md_table(const struct results_table *tb, struct buf *b);
/* { format, runs, groups: [...], by_bench: [...] }; caller frees. */
cJSON *summary_json(const struct results_table *tb);
/* summary.json's by_bench: one entry per bench x harness x model x runner x
 * stage, its tasks' mean pass@1 and, for a stage of 2 or more tasks with
 * raw, "across" (across.h's across_json); caller frees. */
cJSON *summary_by_bench(const struct results_table *tb);

/* Writes out/summary.{json,csv,md} (creating out), each left alone when
 * its bytes are unchanged. */
int summary_write(const char *out, const struct results_table *tb, struct err *e);

#endif
