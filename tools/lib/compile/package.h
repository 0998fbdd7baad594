/* package.h — a skill package as the static compile sees it: the source
 * folder (read once, never modified) and the output being built in memory
 * (SKILL.md bytes plus the files the compile adds, e.g. references/x.md).
 * Every other file of the source is carried over unchanged when the output
 * is written. Passes change only a struct skill_out, so a step is rolled
 * back by restoring a copy. */
#ifndef SKILLC_COMPILE_PACKAGE_H
#define SKILLC_COMPILE_PACKAGE_H

#include <stdbool.h>

#include "base/fs.h"
#include "base/strmap.h"
#include "skill/skilldoc.h"
#include "base/util.h"

/* The source: <root>/<name>/ holding SKILL.md (or skill.md). */
struct skill_src {
	char *name;          /* the skill folder's name */
	char *dir;           /* <root>/<name> */
	char *md_name;       /* "SKILL.md" or "skill.md" */
	struct fs_tree tree; /* every entry of the folder, skill-relative, sorted */
	struct buf md;       /* the SKILL.md bytes */
	struct skilldoc *doc;  /* their model, parsed once at load */
	struct strmap entries; /* every path of tree (skill_path_taken) */
};

/* A text of the output with its model, parsed when first asked for and
 * dropped when the text changes: each version of a text is parsed once. */
struct pkg_file {
	char *path;          /* skill-relative, e.g. "references/setup.md" */
	struct buf data;
	struct skilldoc *doc;  /* model of data, or NULL until asked for */
};

/* The output: SKILL.md and the files added to the source. */
struct skill_out {
	struct buf md;
	struct skilldoc *doc;  /* model of md, or NULL until asked for */
	struct pkg_file *files;
	size_t n, cap;
	struct strmap paths;   /* each added file (value: index + 1) and its folders (0) */
	struct strmap suffixes; /* "<dir>/<slug><ext>" -> the next free "-k" (skill_free_name) */
};

/* Loads the one skill folder under root (a skills root of one skill).
 * ERR_INPUT when root holds no skill folder, or several (a set: the fast
 * and deep stages load sets with optimize/skillpkg.h). Free with
 * skill_src_free. */
int skill_src_load(const char *root, struct skill_src *s, struct err *e);
/* The skill folders of a set root (inputs/skill/, S_static/, ...), sorted.
 * ERR_INPUT when it holds none. */
int skill_set_names(const char *root, struct strlist *names, struct err *e);
/* The names in only (SKILLS: separated by spaces or commas, each once) into
 * out; ERR_INPUT naming the set's skills when one is not in names, or
 * when only names none. */
int skill_set_select(const char *root, const struct strlist *names, const char *only, struct strlist *out,
                     struct err *e);
/* Loads the skill folder dir itself (its name is dir's last part). */
int skill_src_load_dir(const char *dir, struct skill_src *s, struct err *e);
void skill_src_free(struct skill_src *s);

void skill_out_init(struct skill_out *o, const struct skill_src *s); /* = the source */
void skill_out_copy(struct skill_out *dst, const struct skill_out *src); /* dst uninitialized */
void skill_out_free(struct skill_out *o);
/* The model of o's SKILL.md, or of an added file (borrowed; parsed once
 * per version of the text). */
const struct skilldoc *skill_out_model(struct skill_out *o);
const struct skilldoc *pkg_file_model(struct pkg_file *f);
/* Replaces o's SKILL.md with b's bytes (taking them; b is left empty). */
void skill_out_set_md(struct skill_out *o, struct buf *b);
/* Replaces an added file's bytes the same way. */
void pkg_file_set(struct pkg_file *f, struct buf *b);
/* Adds a file (the caller made sure path is free: skill_path_taken). */
void skill_out_add(struct skill_out *o, const char *path, const char *data, size_t n);
/* The added file at path, or NULL. */
struct pkg_file *skill_out_find(const struct skill_out *o, const char *path);

/* True when the skill-relative path names an entry of the source or an
 * added file; "dir/" (or "dir") also matches a folder holding entries.
 * Looks only at the lists (hash maps: O(1)), never at the disk. */
bool skill_path_taken(const struct skill_src *s, const struct skill_out *o, const char *path);

/* A free name "references/<slug>.md", "references/<slug>-2.md", ...; caller frees. */
char *skill_free_name(const struct skill_src *s, struct skill_out *o, const char *dir,
		      const char *slug, const char *ext);

/* Writes <root>/<name>/ (root must not exist): the source's entries with
 * SKILL.md and the added files from o. Symlinks are copied as links. root
 * is a temp folder whose publication makes the files durable: none is
 * fsynced here. synced: that publication fsyncs them (fs_publish_tree):
 * each file's writeback starts as it is written; false for a rebuildable
 * one, which never syncs. */
int skill_out_write(const struct skill_src *s, const struct skill_out *o, const char *root,
		    bool synced, struct err *e);

#endif
