/* checker.h — the insides shared by the validator's two halves (not for
 * other folders): validate.c reads the skill and applies the spec rules of
 * skills-ref (the verdict); lint.c adds the warnings on top; checker.c holds
 * what both use, so the calls go one way: validate.c -> lint.c -> checker.c. */
#ifndef SKILLC_SKILL_CHECKER_H
#define SKILLC_SKILL_CHECKER_H

#include <stdbool.h>
#include <stdarg.h>

#include "skill/frontmatter.h"
#include "skill/skilldoc.h"
#include "skill/findings.h"

/* A SKILL.md larger than this is not read (skills are a few KB). */
#define CHECK_FILE_MAX (16u << 20)

/* The skill being checked. */
struct skill {
	struct check_report *r;
	const struct check_options *o;
	char *dirname;          /* the directory's name as given (Path.name) */
	struct buf raw;         /* SKILL.md bytes */
	struct buf text;        /* the same with CRLF / CR turned into LF (Python's read_text) */
	struct fm_node *fm;     /* the frontmatter mapping */
	size_t close_at;        /* offset in text of the "---" closing the frontmatter */
	struct skilldoc *doc;   /* the model of raw */
};


/* Findings: the first three record an error or a warning at line:col of the
 * skill's file (0:0: the whole file); set_fix adds a suggested correction. */
struct check_finding *check_add(struct check_finding **v, size_t *n, size_t *cap, const char *rule,
				const char *file, int line, int col, const char *fmt, va_list ap);
struct check_finding *check_error(struct check_report *r, const char *rule, int line, int col,
				  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
struct check_finding *check_warn(struct check_report *r, const char *rule, int line, int col,
				 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void check_set_fix(struct check_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* True for the frontmatter keys the spec defines. */
bool check_key_allowed(const char *key);
/* Those keys as skills-ref lists them, "'allowed-tools', 'compatibility', ...". */
void check_allowed_keys(struct buf *out);
/* The caller's model of the skill-relative file rel (check_options.docs), or NULL. */
const struct skilldoc *check_given_doc(const struct skill *s, const char *rel);

/* lint.c: every warning, on a skill whose frontmatter parsed. */
void lint_skill(struct skill *s);

#endif
