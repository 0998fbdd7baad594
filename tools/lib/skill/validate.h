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
#include "skill/skilldoc.h"

enum { CHECK_VALID = 0, CHECK_INVALID = 1, CHECK_UNUSABLE = 2 };

/* The version of the report format (text and JSON); skillc-check --version. */
#define CHECK_FORMAT_VERSION "1"

/* Lint thresholds (documented in docs/check.md). */
#define CHECK_BODY_LINES_MAX 500
#define CHECK_BODY_TOKENS_MAX 5000
#define CHECK_DESC_BUDGET 512
#define CHECK_DESC_MIN 50

struct check_finding {
	const char *rule;  /* static rule id, e.g. "name-lowercase", "ref-dangling" */
	char *message;
	char *file;        /* the file the finding is about */
	int line, col;     /* 1-based; 0 when it concerns the whole file */
	char *fix;         /* a suggested fix, or NULL */
};

struct check_report {
	int verdict;
	char *path;        /* as given */
	char *dir;         /* the skill directory, or NULL */
	char *file;        /* its SKILL.md (or skill.md), or NULL */
	char *name;        /* NFKC(strip(name)) when name is a string, else NULL */
	char *description; /* when a string, else NULL */
	struct check_finding *errors;
	size_t nerrors, errors_cap;
	struct check_finding *warnings;
	size_t nwarnings, warnings_cap;
	/* measured when the file could be read: */
	long body_lines, body_tokens, description_chars; /* -1 when unknown */
	bool frontmatter_parsed; /* the frontmatter is a YAML mapping (else verdict != valid) */
	char *first_error; /* check_first_error's line */
	cJSON *properties; /* skills-ref read-properties: string fields + metadata, or NULL */
};

/* A file of the skill the caller has parsed already (path relative to the
 * skill folder, e.g. "SKILL.md"): the check uses its bytes and model
 * instead of reading and parsing the file again. */
struct check_doc {
	const char *rel;
	const struct skilldoc *doc;
};

struct check_options {
	bool lint;                   /* add warnings (default true) */
	const struct check_doc *docs; /* may be NULL */
	size_t ndocs;
};

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
