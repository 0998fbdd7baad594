/* pageopt.h — the report's sections on the optimizing stages, read from
 * the artifacts they leave in the run folder (as the fast and deep stages
 * document them):
 *   fast: artifacts/fast/groups.json, map/NNN.json, report.json (the
 *         patches and what became of each), scores.json (the ranking);
 *   deep: artifacts/deep/round-K/decision.json (verdict, counts, p-value,
 *         the rule's false-accept rate, runtime ratios), edit.json, and
 *         artifacts/deep/rejected.json;
 *   final: manifest.json's final_skill and artifacts/deep/S_final.
 * A stage whose files are absent adds nothing; a file that does not parse
 * is named as unreadable. Every value shown is escaped. */
#ifndef SKILLC_REPORT_PAGEOPT_H
#define SKILLC_REPORT_PAGEOPT_H

#include <cJSON.h>

#include "base/util.h"

/* The fast section, when artifacts/fast/ exists. */
void pageopt_fast(struct buf *b, const char *run);
/* The deep rounds and the final skill, when artifacts/deep/ exists or the
 * manifest names a final skill. */
void pageopt_deep(struct buf *b, const char *run, const cJSON *manifest);

/* The stage whose skill a stage's skill was made from, for the skill diffs:
 * deep-K's candidate is the best skill after round K-1 plus one edit
 * (round-(K-1)/best.json's source, else round K's decision baseline), so
 * it is shown against that, not against a rejected deep-(K-1); final is
 * shown against raw (the whole change; *note says whose skill S_final is,
 * from artifacts/deep/report.json, or is NULL). NULL: the stage before it.
 * Caller frees both. */
char *pageopt_diff_base(const char *run, const char *stage, char **note);

#endif
