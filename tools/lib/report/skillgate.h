/* skillgate.h — make gate over a skill run (docs/ci.md, docs/skill-runs.md):
 * the verdict is the held-out test tasks' raw -> S_final change, paired by
 * task, judged across them by gate.h's rule (the mean change's 95 %
 * interval clustered by task, the exact stratified test, Holm-adjusted
 * per-task p; one test task: its own interval). It reads the skill run's
 * summary document (skillsum.h), never re-deriving a figure, and prints the
 * train tasks' figures beside the verdict, labelled, never as it. */
#ifndef SKILLC_REPORT_SKILLGATE_H
#define SKILLC_REPORT_SKILLGATE_H

#include <cJSON.h>

#include "base/util.h"
#include "report/gate.h"

/* sum: skillsum_json's document. Appends the lines to out and returns 0
 * the rule holds, 1 it does not, 2 cannot judge; a skill run whose test
 * tasks have no final trials yet, GATE_STAGE other than final or
 * GATE_VS=noskill are refused in one line (2). */
int skillgate_judge(const cJSON *sum, const struct gate_rule *r, struct buf *out);

#endif
