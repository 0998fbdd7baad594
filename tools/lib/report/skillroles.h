/* skillroles.h — a skill run's member runs by role (docs/skill-runs.md), as
 * make status and make watch name them: "train task tr-a, tuned here (raw
 * to final)", "test task te-b, raw trials", "test task te-b, final trials
 * (S_final)" (or "...: waiting for the tuned run's S_final"), a transfer
 * target's prefixed "transfer, tuned for X, evaluated on Y: ". */
#ifndef SKILLC_REPORT_SKILLROLES_H
#define SKILLC_REPORT_SKILLROLES_H

#include <stdbool.h>

#include <cJSON.h>

#include "base/util.h"

/* The role of t (an entry of skillrun.json's tasks[]) in the member run of
 * its raw arm, or of its final arm (final: a test task's S_final trials).
 * Caller frees. */
char *skillrun_role(const cJSON *t, bool final);

/* Every member run of record (skillrun.json) in make status's order: the
 * line naming its role into labels, its folder into runs ("" when it is
 * not planned yet: a test task waiting for S_final), its task into tasks
 * (a pooled train task's run is the tuned run). */
void skillrun_members(const cJSON *record, struct strlist *labels, struct strlist *runs,
                      struct strlist *tasks);

#endif
