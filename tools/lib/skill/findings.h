/* findings.h — a check's report, its findings and options: the types that
 * validate.h's callers read and checker.c fills. Apart from validate.h so
 * that checker.h need not include it: validate.c includes checker.h, and
 * the includes point one way (tools/gen/check-layers). */
#ifndef SKILLC_SKILL_FINDINGS_H
#define SKILLC_SKILL_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <cJSON.h>

struct skilldoc;

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

#endif
