/* audit.h — what `make audit` prints about a run (issue 23.3): per stage,
 * the leakage guard's findings (Fast's artifacts/fast/report.json, each
 * Deep round's artifacts/deep/round-K/edit.json: what was copied from
 * where, and rolled back), the share of the stage's counted trials in
 * which the agent invoked or read each skill of the set (trial.json's
 * skill.invoked_names / read_names), and whether the final skill is one
 * the agent used at all. docs/leakage.md#make-audit says how to read it. */
#ifndef SKILLC_REPORT_AUDIT_H
#define SKILLC_REPORT_AUDIT_H

#include "base/util.h"

/* What the runs audited so far hold, for the closing line. */
struct audit_totals {
	long runs, leaks, warnings;
};

/* Appends the audit of one run folder (holding traces/) to out and adds
 * to tot. Warnings are lines of out that start with "warning: ". */
void audit_run(const char *run, struct buf *out, struct audit_totals *tot);

#endif
