/* source.h — where a run's skills come from, vetted: every skill of a
 * skills root (a task's environment/skills/, or SKILL_SOURCE), the task's
 * skill set, or, when allowed, a skill folder itself (SKILL_SOURCE=<dir>
 * with SKILL.md at its top). Refused: no skill, a stray file beside the
 * skills, a skill folder that is a symlink or has an unsafe name, a
 * symlink inside that leaves the skill, a special file, a file over the
 * size cap, two skills of one `name` (an agent would see one). Folders without SKILL.md (licenses/ and the like) are not
 * skills. */
#ifndef SKILLC_SKILL_SOURCE_H
#define SKILLC_SKILL_SOURCE_H

#include <stdbool.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/util.h"
#include "skill/validate.h"

struct skill_source {
	char *dir;           /* the skill folder: root itself, or root/<name> */
	char *name;          /* the folder's name, what inputs/skill/<name>/ is called */
	struct fs_tree tree; /* its entries, vetted */
	struct check_report *check; /* the validator's report on it (owned) */
};

/* A skill set: every skill of a root, sorted by folder name. */
struct skill_set {
	struct skill_source *v;
	size_t n;
};

/* Finds and vets every skill of root. is_skill_ok: root may itself be the
 * skill folder (SKILL.md at its top), a set of one. max_mb: the size cap of
 * one file (0: none). On error set is left empty (skill_set_free is still
 * fine). */
int skill_set_open(const char *root, bool is_skill_ok, long max_mb, struct skill_set *set, struct err *e);
void skill_set_free(struct skill_set *set);
/* The set's identity: the one skill's tree hash, or for several the hash
 * of {folder name: tree hash} (as skillc-eval records a trial's skills). */
int skill_set_hash(const struct skill_set *set, hash_hex out, struct err *e);

/* The name a run folder gets for SKILL_SOURCE=root: "src-<name>-<hash>",
 * name the one skill's folder (for a set, root's own), the hash the first
 * 10 hex digits of skill_set_hash, so
 * another source (or the same one edited) is another run, and the same
 * bytes find the same run again. Errors name SKILL_SOURCE. Caller frees. */
char *skill_source_tag(const char *root, struct err *e);

#endif
