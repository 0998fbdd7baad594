/* skillsum.h — the tables of a skill run (docs/skill-runs.md): per task and
 * pooled, raw -> final on the train tasks and on the held-out test tasks,
 * paired by task, with the 95 % interval across tasks (report/across.h) and
 * the gap between them; and what a reader must know to trust them: the
 * optimizer model, the split and its seed, the trials reused rather than
 * run, the LLM calls and tokens of every stage. */
#ifndef SKILLC_REPORT_SKILLSUM_H
#define SKILLC_REPORT_SKILLSUM_H

#include <cJSON.h>

#include "base/util.h"

/* record: the skill run's skillrun.json ("tasks": [{"task", "role",
 * "raw": {"run", "stage"}, "final": {"run", "stage"} | null}], "tuned_run",
 * "settings", "skill", "split"). Returns summary.json's document; NULL
 * with e set on counts the statistics refuse. Caller frees. */
cJSON *skillsum_json(const cJSON *record, struct err *e);
/* summary.md of that document. Caller frees. */
char *skillsum_md(const cJSON *sum);
/* report.html of that document (report/skillpage.c). Caller frees. */
char *skillsum_html(const cJSON *sum);

#endif
