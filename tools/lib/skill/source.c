#include "skill/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"

static bool has_skill_md(const char *dir)
{
	char *a = path_join(dir, "SKILL.md"), *b = path_join(dir, "skill.md");
	bool yes = fs_exists(a) || fs_exists(b); /* skill.md too, as skills-ref accepts */
	free(a);
	free(b);
	return yes;
}

/* The names of root's top-level folders holding a SKILL.md, sorted; a
 * symlinked skill folder is refused (its bytes live outside the root), and
 * so is a stray file beside the skills (an agent would see it as a skill
 * folder's neighbour that no stage compiles or hashes). Folders without a
 * SKILL.md (licenses/ and the like) are not skills and are passed over. */
static int skill_folders(const char *root, struct strlist *found, struct err *e)
{
	struct strlist names = STRLIST_INIT;
	if (fs_list_names(root, &names, e) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		char *full = path_join(root, names.v[i]);
		struct stat st;
		if (lstat(full, &st) < 0)
			rc = err_set(e, ERR_INPUT, "cannot read '%s':", full);
		else if (S_ISLNK(st.st_mode) && has_skill_md(full))
			rc = err_set(e, ERR_INPUT, "skill folder '%s' is a symlink; copy the skill in instead", full);
		else if (S_ISDIR(st.st_mode) && has_skill_md(full))
			strlist_push(found, names.v[i]);
		else if (!S_ISDIR(st.st_mode))
			rc = err_set(e, ERR_INPUT, "stray file '%s' beside the skills: a skills folder holds only skill folders; move it into a skill or out", full);
		free(full);
	}
	strlist_free(&names);
	strlist_sort(found);
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

static struct skill_source *set_add(struct skill_set *set)
{
	set->v = xrealloc(set->v, (set->n + 1) * sizeof *set->v);
	struct skill_source *s = &set->v[set->n++];
	memset(s, 0, sizeof *s);
	return s;
}

/* root itself as the skill: its real folder's name must be a safe name. */
static int open_as_skill(const char *root, struct skill_set *set, struct err *e)
{
	struct skill_source *s = set_add(set);
	char *real = fs_real_path(root);
	s->name = xstrdup(path_base(real ? real : root));
	free(real);
	if (!name_is_safe(s->name))
		return err_set(e, ERR_INPUT, "skill folder '%s' is named '%s': use letters, digits, '.', '_' and '-', starting with a letter or digit", root, s->name);
	s->dir = xstrdup(root);
	return 0;
}

static int open_in_root(const char *root, struct skill_set *set, struct err *e)
{
	struct strlist found = STRLIST_INIT;
	int rc = skill_folders(root, &found, e);
	if (rc == 0 && found.n == 0)
		rc = err_set(e, ERR_INPUT, "no skill: no folder in '%s' holds a SKILL.md; add %s/<name>/SKILL.md", root, root);
	for (size_t i = 0; rc == 0 && i < found.n; i++) {
		struct skill_source *s = set_add(set);
		s->name = xstrdup(found.v[i]);
		s->dir = path_join(root, s->name);
		if (!name_is_safe(s->name))
			rc = err_set(e, ERR_INPUT, "skill folder '%s' is named '%s': use letters, digits, '.', '_' and '-', starting with a letter or digit", s->dir, s->name);
	}
	strlist_free(&found);
	return rc;
}

int skill_set_open(const char *root, bool is_skill_ok, long max_mb, struct skill_set *set, struct err *e)
{
	memset(set, 0, sizeof *set);
	int rc;
	if (!fs_is_dir(root))
		rc = err_set(e, ERR_INPUT, "no skill: '%s' is missing or not a folder", root);
	else if (is_skill_ok && has_skill_md(root))
		rc = open_as_skill(root, set, e);
	else
		rc = open_in_root(root, set, e);
	for (size_t i = 0; rc == 0 && i < set->n; i++) {
		struct skill_source *s = &set->v[i];
		if (fs_list_tree(s->dir, &s->tree, e) < 0 || vet_tree(s->dir, &s->tree, max_mb, e) < 0)
			rc = -1;
		else
			check_skill(s->dir, &s->check);
		for (size_t k = 0; rc == 0 && k < i; k++)
			if (s->check->name && set->v[k].check->name && !strcmp(s->check->name, set->v[k].check->name))
				rc = err_set(e, ERR_INPUT, "skills '%s' and '%s' of '%s' are both named '%s': an agent sees one; rename one or remove it",
				             set->v[k].name, s->name, root, s->check->name);
	}
	if (rc < 0)
		skill_set_free(set);
	return rc;
}

void skill_set_free(struct skill_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->v[i].dir);
		free(set->v[i].name);
		fs_tree_free(&set->v[i].tree);
		check_report_free(set->v[i].check);
	}
	free(set->v);
	memset(set, 0, sizeof *set);
}

int skill_set_hash(const struct skill_set *set, hash_hex out, struct err *e)
{
	if (set->n == 1)
		return hash_tree(set->v[0].dir, out, e);
	cJSON *m = cJSON_CreateObject();
	for (size_t i = 0; i < set->n; i++) {
		hash_hex h;
		if (hash_tree(set->v[i].dir, h, e) < 0) {
			cJSON_Delete(m);
			return -1;
		}
		cJSON_AddStringToObject(m, set->v[i].name, h);
	}
	json_hash(m, out);
	cJSON_Delete(m);
	return 0;
}

/* The tag's name part: the one skill's folder name, or for a set the
 * root's own folder name (a safe name, or "set"). */
static char *tag_name(const char *root, const struct skill_set *set)
{
	if (set->n == 1)
		return xstrdup(set->v[0].name);
	char *real = fs_real_path(root);
	char *name = xstrdup(path_base(real ? real : root));
	free(real);
	if (!name_is_safe(name)) {
		free(name);
		name = xstrdup("set");
	}
	return name;
}

char *skill_source_tag(const char *root, struct err *e)
{
	struct skill_set set;
	hash_hex h;
	if (skill_set_open(root, true, 0, &set, e) < 0 || skill_set_hash(&set, h, e) < 0) {
		skill_set_free(&set);
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		return err_set(e, e->code, "SKILL_SOURCE: %s", why), NULL;
	}
	char *name = tag_name(root, &set);
	char *tag = xasprintf("src-%s-%.10s", name, h);
	free(name);
	skill_set_free(&set);
	return tag;
}
