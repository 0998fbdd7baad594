#include "compile/package.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int skill_src_load(const char *root, struct skill_src *s, struct err *e)
{
	memset(s, 0, sizeof *s);
	struct fs_tree top = { 0 };
	if (fs_list_tree(root, &top, e) < 0) {
		fs_tree_free(&top);
		return -1;
	}
	int found = 0;
	struct buf names = BUF_INIT;
	for (size_t i = 0; i < top.n; i++) {
		if (strchr(top.v[i].path, '/') || !S_ISDIR(top.v[i].mode))
			continue;
		buf_printf(&names, "%s%s", found ? ", " : "", top.v[i].path);
		if (!found++)
			s->name = xstrdup(top.v[i].path);
	}
	fs_tree_free(&top);
	if (found > 1) /* a set: optimize/skillpkg.h's pkgset_load takes it */
		err_set(e, ERR_INPUT, "'%s' holds a set of %d skills (%s), not one skill folder", root, found, names.data);
	else if (found != 1)
		err_set(e, ERR_INPUT, "'%s' holds no skill folder: run make task=<t> ingest", root);
	buf_free(&names);
	if (found != 1)
		return -1;
	char *dir = path_join(root, s->name);
	free(s->name);
	s->name = NULL;
	int rc = skill_src_load_dir(dir, s, e);
	free(dir);
	return rc;
}

int skill_set_names(const char *root, struct strlist *names, struct err *e)
{
	struct strlist all = STRLIST_INIT;
	if (fs_list_names(root, &all, e) < 0)
		return -1;
	for (size_t i = 0; i < all.n; i++) {
		char *dir = path_join(root, all.v[i]);
		if (fs_is_dir(dir))
			strlist_push(names, all.v[i]);
		free(dir);
	}
	strlist_free(&all);
	strlist_sort(names);
	if (!names->n)
		return err_set(e, ERR_INPUT, "'%s' holds no skill folder: run make task=<t> ingest", root);
	return 0;
}

int skill_set_select(const char *root, const struct strlist *names, const char *only, struct strlist *out,
                     struct err *e)
{
	for (const char *p = only; *p;) {
		size_t n = strcspn(p, " ,\t\n");
		char *one = xstrndup(p, n);
		p += n + strspn(p + n, " ,\t\n");
		if (!*one || strlist_has(out, one)) {
			free(one);
			continue;
		}
		if (!strlist_has(names, one)) {
			struct buf have = BUF_INIT;
			for (size_t i = 0; i < names->n; i++)
				buf_printf(&have, "%s%s", i ? ", " : "", names->v[i]);
			err_set(e, ERR_INPUT, "SKILLS names '%s', which the skill set in '%s' lacks (it holds %s): name skill folders of the set",
			        one, root, have.data);
			buf_free(&have);
			free(one);
			return -1;
		}
		strlist_push_owned(out, one);
	}
	if (!out->n)
		return err_set(e, ERR_INPUT, "SKILLS is given but names no skill: name skill folders of the set, or leave it out");
	return 0;
}

int skill_src_load_dir(const char *dir, struct skill_src *s, struct err *e)
{
	memset(s, 0, sizeof *s);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	s->dir = xstrndup(dir, n);
	s->name = xstrdup(path_base(s->dir));
	if (fs_list_tree(s->dir, &s->tree, e) < 0)
		return -1;
	for (size_t i = 0; i < s->tree.n && !s->md_name; i++)
		if (!strcmp(s->tree.v[i].path, "SKILL.md") && S_ISREG(s->tree.v[i].mode))
			s->md_name = xstrdup("SKILL.md");
	for (size_t i = 0; i < s->tree.n && !s->md_name; i++)
		if (!strcmp(s->tree.v[i].path, "skill.md") && S_ISREG(s->tree.v[i].mode))
			s->md_name = xstrdup("skill.md");
	if (!s->md_name)
		return err_set(e, ERR_INPUT, "'%s' has no SKILL.md", s->dir);
	char *md = path_join(s->dir, s->md_name);
	int rc = fs_read(md, 0, &s->md, e);
	free(md);
	if (rc == 0 && !s->md.cap)
		buf_adds(&s->md, "");
	if (rc == 0)
		s->doc = sd_parse(s->md.data, s->md.len);
	/* the tree lists folders too: a folder "holding entries" is an entry */
	for (size_t i = 0; i < s->tree.n; i++)
		strmap_put(&s->entries, s->tree.v[i].path, NULL);
	return rc;
}

void skill_src_free(struct skill_src *s)
{
	free(s->name);
	free(s->dir);
	free(s->md_name);
	fs_tree_free(&s->tree);
	buf_free(&s->md);
	sd_free(s->doc);
	strmap_free(&s->entries);
	memset(s, 0, sizeof *s);
}

void skill_out_init(struct skill_out *o, const struct skill_src *s)
{
	memset(o, 0, sizeof *o);
	buf_add(&o->md, s->md.data, s->md.len);
	buf_adds(&o->md, "");
	o->doc = sd_share(s->doc);
}

const struct skilldoc *skill_out_model(struct skill_out *o)
{
	if (!o->doc)
		o->doc = sd_parse(o->md.data, o->md.len);
	return o->doc;
}

const struct skilldoc *pkg_file_model(struct pkg_file *f)
{
	if (!f->doc)
		f->doc = sd_parse(f->data.data, f->data.len);
	return f->doc;
}

static void take_text(struct buf *dst, struct skilldoc **doc, struct buf *b)
{
	if (b->len == dst->len && (!b->len || !memcmp(b->data, dst->data, b->len))) {
		buf_free(b); /* the same bytes: their model stands (not parsed again) */
		return;
	}
	buf_free(dst);
	*dst = *b;
	*b = (struct buf)BUF_INIT;
	if (!dst->cap)
		buf_adds(dst, "");
	sd_free(*doc);
	*doc = NULL;
}

void skill_out_set_md(struct skill_out *o, struct buf *b)
{
	take_text(&o->md, &o->doc, b);
}

void pkg_file_set(struct pkg_file *f, struct buf *b)
{
	take_text(&f->data, &f->doc, b);
}

/* Records path and every folder above it as taken. */
static void take_path(struct skill_out *o, const char *path, size_t index)
{
	*strmap_put(&o->paths, path, NULL) = index + 1;
	char *p = xstrdup(path);
	for (char *slash; (slash = strrchr(p, '/'));) {
		*slash = '\0';
		bool added;
		strmap_put(&o->paths, p, &added);
		if (!added)
			break; /* its folders are in already */
	}
	free(p);
}

void skill_out_add(struct skill_out *o, const char *path, const char *data, size_t n)
{
	GROW(o->files, o->n, o->cap);
	struct pkg_file *f = &o->files[o->n++];
	f->path = xstrdup(path);
	f->doc = NULL;
	memset(&f->data, 0, sizeof f->data);
	buf_add(&f->data, data, n);
	buf_adds(&f->data, "");
	take_path(o, path, o->n - 1);
}

void skill_out_copy(struct skill_out *dst, const struct skill_out *src)
{
	memset(dst, 0, sizeof *dst);
	buf_add(&dst->md, src->md.data, src->md.len);
	buf_adds(&dst->md, "");
	dst->doc = sd_share(src->doc);
	for (size_t i = 0; i < src->n; i++) {
		skill_out_add(dst, src->files[i].path, src->files[i].data.data, src->files[i].data.len);
		dst->files[i].doc = sd_share(src->files[i].doc);
	}
	for (size_t i = 0; i < src->suffixes.cap; i++)
		if (src->suffixes.v[i].key)
			*strmap_put(&dst->suffixes, src->suffixes.v[i].key, NULL) = src->suffixes.v[i].value;
}

void skill_out_free(struct skill_out *o)
{
	buf_free(&o->md);
	sd_free(o->doc);
	for (size_t i = 0; i < o->n; i++) {
		free(o->files[i].path);
		buf_free(&o->files[i].data);
		sd_free(o->files[i].doc);
	}
	free(o->files);
	strmap_free(&o->paths);
	strmap_free(&o->suffixes);
	memset(o, 0, sizeof *o);
}

struct pkg_file *skill_out_find(const struct skill_out *o, const char *path)
{
	const size_t *k = strmap_get(&o->paths, path);
	return k && *k ? &o->files[*k - 1] : NULL;
}

bool skill_path_taken(const struct skill_src *s, const struct skill_out *o, const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (!n)
		return false;
	char *p = xstrndup(path, n);
	bool taken = strmap_get(&s->entries, p) || (o && strmap_get(&o->paths, p));
	free(p);
	return taken;
}

char *skill_free_name(const struct skill_src *s, struct skill_out *o, const char *dir,
		      const char *slug, const char *ext)
{
	char *first = xasprintf("%s/%s%s", dir, slug, ext);
	size_t *next = strmap_put(&o->suffixes, first, NULL); /* where the last search stopped */
	char *p = *next ? xasprintf("%s/%s-%zu%s", dir, slug, *next, ext) : xstrdup(first);
	for (size_t k = *next ? *next + 1 : 2; skill_path_taken(s, o, p); k++) {
		free(p);
		p = xasprintf("%s/%s-%zu%s", dir, slug, k, ext);
		*next = k;
	}
	free(first);
	return p;
}


static int write_entry(const struct skill_src *s, const struct fs_entry *en, const char *to,
		       bool synced, struct err *e)
{
	char *dst = path_join(to, en->path);
	int rc = 0;
	if (S_ISDIR(en->mode)) {
		rc = fs_mkdirs(dst, e);
	} else if (S_ISLNK(en->mode)) {
		if (fs_mkdirs_parent(dst, e) < 0)
			rc = -1;
		else if (symlink(en->link, dst) < 0)
			rc = err_set(e, ERR_WORK, "cannot create link '%s':", dst);
	} else if (S_ISREG(en->mode)) {
		char *src = path_join(s->dir, en->path);
		rc = fs_mkdirs_parent(dst, e);
		if (rc == 0)
			rc = fs_copy_new(src, dst, en->mode & 0777, synced, e);
		free(src);
	}
	free(dst);
	return rc;
}

int skill_out_write(const struct skill_src *s, const struct skill_out *o, const char *root,
		    bool synced, struct err *e)
{
	char *to = path_join(root, s->name);
	int rc = fs_mkdirs(to, e);
	for (size_t i = 0; rc == 0 && i < s->tree.n; i++)
		if (strcmp(s->tree.v[i].path, s->md_name))
			rc = write_entry(s, &s->tree.v[i], to, synced, e);
	char *md = path_join(to, s->md_name);
	mode_t mode = 0644;
	for (size_t i = 0; i < s->tree.n; i++)
		if (!strcmp(s->tree.v[i].path, s->md_name))
			mode = s->tree.v[i].mode & 0777;
	if (rc == 0)
		rc = fs_write_new(md, o->md.data, o->md.len, mode, synced, e);
	free(md);
	for (size_t i = 0; rc == 0 && i < o->n; i++) {
		const struct pkg_file *f = &o->files[i];
		char *p = path_join(to, f->path);
		rc = fs_mkdirs_parent(p, e);
		if (rc == 0)
			rc = fs_write_new(p, f->data.data, f->data.len, 0644, synced, e);
		free(p);
	}
	free(to);
	return rc;
}
