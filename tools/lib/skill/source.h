/* source.h — where a run's skill comes from, vetted: the one skill of a
 * skills root (a task's environment/skills/, or SKILL_SOURCE) or, when
 * allowed, a skill folder itself (SKILL_SOURCE=<dir> with SKILL.md at its
 * top). Refused: no skill or several, a skill folder that is a symlink, a
 * symlink inside that leaves the skill, a special file, a file over the
 * size cap. Folders without SKILL.md (licenses/ and the like) are not
 * skills. */
#ifndef SKILLC_SKILL_SOURCE_H
#define SKILLC_SKILL_SOURCE_H

#include <stdbool.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/util.h"

struct skill_source {
	char *dir;           /* the skill folder: root itself, or root/<name> */
	char *name;          /* the folder's name, what inputs/skill/<name>/ is called */
	struct fs_tree tree; /* its entries, vetted */
};

/* Finds and vets the one skill of root. is_skill_ok: root may itself be the
 * skill folder (SKILL.md at its top). max_mb: the size cap of one file
 * (0: none). On error s is left empty (skill_source_free is still fine). */
int skill_source_open(const char *root, bool is_skill_ok, long max_mb, struct skill_source *s, struct err *e);
void skill_source_free(struct skill_source *s);

/* The name a run folder gets for SKILL_SOURCE=root: "src-<name>-<hash>",
 * the hash being the first 10 hex digits of the skill's tree hash, so
 * another source (or the same one edited) is another run, and the same
 * bytes find the same run again. Errors name SKILL_SOURCE. Caller frees. */
char *skill_source_tag(const char *root, struct err *e);

#endif
