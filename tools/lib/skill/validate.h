/* validate.h — the Agent Skills validator (skillc-check) as a library.
 *
 * The verdict follows the reference validator skills-ref (v0.1.0) rule for
 * rule, message for message (see docs/check.md): INVALID for every skill it
 * reports invalid (its parser's and its validator's refusals), UNUSABLE only
 * for what is not a skill at all. Lint findings (warnings) come on top and
 * never change the verdict. */
#ifndef SKILLC_SKILL_VALIDATE_H
#define SKILLC_SKILL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <cJSON.h>

#include "base/util.h"
#include "skill/findings.h"

enum { CHECK_VALID = 0, CHECK_INVALID = 1, CHECK_UNUSABLE = 2 };

/* The version of the report format (text and JSON); skillc-check --version. */
#define CHECK_FORMAT_VERSION "1"

/* Lint thresholds (documented in docs/check.md). */
#define CHECK_BODY_LINES_MAX 500
#define CHECK_BODY_TOKENS_MAX 5000
#define CHECK_DESC_BUDGET 512
#define CHECK_DESC_MIN 50

/* path: a skill directory or its SKILL.md. Returns the verdict. UNUSABLE =
 * not a skill at all: path missing / not a directory / no SKILL.md /
 * unreadable / not UTF-8. INVALID = a skill that breaks the spec, as
 * skills-ref reports it: no frontmatter, unclosed frontmatter, YAML that
 * does not parse or is not a mapping (the one error, with its line and
 * column; frontmatter_parsed is false), or a spec rule broken.
 * *out is always set; free it with check_report_free. */
int check_skill(const char *path, struct check_report **out);
int check_skill_opts(const char *path, const struct check_options *o, struct check_report **out);

/* One line naming the file ("<file>:<line>:<col>: <message>"), or NULL when
 * there is no error. Owned by the report. */
const char *check_first_error(const struct check_report *r);

/* The report as JSON (schema in docs/check.md); caller frees with cJSON_Delete. */
cJSON *check_report_json(const struct check_report *r);

/* The report as text for people, appended to out. */
void check_report_text(const struct check_report *r, struct buf *out);

void check_report_free(struct check_report *r);

/* "valid", "invalid", "unusable". */
const char *check_verdict_name(int verdict);

#endif
