#include "skill/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool has_skill_md(const char *dir)
{
	char *a = path_join(dir, "SKILL.md"), *b = path_join(dir, "skill.md");
	bool yes = fs_exists(a) || fs_exists(b); /* skill.md too, as skills-ref accepts */
	free(a);
	free(b);
	return yes;
}

/* The names of root's top-level folders holding a SKILL.md; a symlinked
 * skill folder is refused (its bytes live outside the root). */
static int skill_folders(const char *root, struct strlist *found, struct err *e)
{
	struct strlist names = STRLIST_INIT;
	if (fs_list_names(root, &names, e) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		char *full = path_join(root, names.v[i]);
		struct stat st;
		if (lstat(full, &st) == 0 && S_ISLNK(st.st_mode) && has_skill_md(full))
			rc = err_set(e, ERR_INPUT, "skill folder '%s' is a symlink; copy the skill in instead", full);
		else if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode) && has_skill_md(full))
			strlist_push(found, names.v[i]);
		free(full);
	}
	strlist_free(&names);
	return rc;
}

/* Every entry must stay inside the skill and under the size cap. */
static int vet_tree(const char *skill, const struct fs_tree *t, long max_mb, struct err *e)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct fs_entry *en = &t->v[i];
		if (S_ISLNK(en->mode)) {
			const char *slash = strrchr(en->path, '/');
			char *rel = slash ? xasprintf("%.*s/%s", (int)(slash - en->path), en->path, en->link) : xstrdup(en->link);
			char *norm = en->link[0] == '/' ? NULL : path_normalize_rel(rel);
			free(rel);
			if (!norm || !*norm) {
				free(norm);
				return err_set(e, ERR_INPUT, "symlink '%s/%s' points outside the skill folder (-> %s); replace it with the file it points to", skill, en->path, en->link);
			}
			free(norm);
			/* a link to nothing, or a loop, would ship a broken skill */
			char *full = xasprintf("%s/%s", skill, en->path);
			struct stat st;
			int bad = stat(full, &st) < 0 ? errno : 0;
			free(full);
			if (bad)
				return err_set(e, ERR_INPUT, "symlink '%s/%s' leads nowhere (-> %s: %s); remove it or point it at a file of the skill",
					       skill, en->path, en->link, bad == ELOOP ? "a loop of links" : strerror(bad));
		} else if (S_ISREG(en->mode)) {
			if (max_mb > 0 && en->size > (off_t)max_mb * 1024 * 1024)
				return err_set(e, ERR_INPUT, "'%s/%s' is %.1f MB, over the %ld MB cap (MAX_FILE_MB); move it out of the skill or raise MAX_FILE_MB", skill, en->path, (double)en->size / (1024.0 * 1024.0), max_mb);
		} else if (!S_ISDIR(en->mode)) {
			return err_set(e, ERR_INPUT, "'%s/%s' is not a regular file, folder or symlink; remove it from the skill", skill, en->path);
		}
	}
	return 0;
}

/* root itself as the skill: its real folder's name must be a safe name. */
static int open_as_skill(const char *root, struct skill_source *s, struct err *e)
{
	char *real = fs_real_path(root);
	s->name = xstrdup(path_base(real ? real : root));
	free(real);
	if (!name_is_safe(s->name))
		return err_set(e, ERR_INPUT, "skill folder '%s' is named '%s': use letters, digits, '.', '_' and '-', starting with a letter or digit", root, s->name);
	s->dir = xstrdup(root);
	return 0;
}

static int open_in_root(const char *root, struct skill_source *s, struct err *e)
{
	struct strlist found = STRLIST_INIT;
	int rc = skill_folders(root, &found, e);
	if (rc == 0 && found.n == 0) {
		rc = err_set(e, ERR_INPUT, "no skill: no folder in '%s' holds a SKILL.md; add %s/<name>/SKILL.md", root, root);
	} else if (rc == 0 && found.n > 1) {
		struct buf names = BUF_INIT;
		for (size_t i = 0; i < found.n; i++)
			buf_printf(&names, "%s%s", i ? ", " : "", found.v[i]);
		rc = err_set(e, ERR_INPUT, "%zu skills in '%s' (%s); skillc compiles one skill per task: keep one", found.n, root, names.data);
		buf_free(&names);
	} else if (rc == 0) {
		s->name = xstrdup(found.v[0]);
		s->dir = path_join(root, s->name);
	}
	strlist_free(&found);
	return rc;
}

int skill_source_open(const char *root, bool is_skill_ok, long max_mb, struct skill_source *s, struct err *e)
{
	memset(s, 0, sizeof *s);
	int rc;
	if (!fs_is_dir(root))
		rc = err_set(e, ERR_INPUT, "no skill: '%s' is missing or not a folder", root);
	else if (is_skill_ok && has_skill_md(root))
		rc = open_as_skill(root, s, e);
	else
		rc = open_in_root(root, s, e);
	if (rc == 0 && (fs_list_tree(s->dir, &s->tree, e) < 0 || vet_tree(s->dir, &s->tree, max_mb, e) < 0))
		rc = -1;
	if (rc < 0)
		skill_source_free(s);
	return rc;
}

void skill_source_free(struct skill_source *s)
{
	free(s->dir);
	free(s->name);
	fs_tree_free(&s->tree);
	memset(s, 0, sizeof *s);
}

char *skill_source_tag(const char *root, struct err *e)
{
	struct skill_source s;
	hash_hex h;
	if (skill_source_open(root, true, 0, &s, e) < 0 || hash_tree(s.dir, h, e) < 0) {
		skill_source_free(&s);
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		return err_set(e, e->code, "SKILL_SOURCE: %s", why), NULL;
	}
	char *tag = xasprintf("src-%s-%.10s", s.name, h);
	skill_source_free(&s);
	return tag;
}
