#include "optimize/skillpkg.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "compile/guard.h"

static bool is_skill_folder(const char *dir)
{
	char *md = path_join(dir, "SKILL.md"), *md2 = path_join(dir, "skill.md");
	bool folder = fs_exists(md) || fs_exists(md2);
	free(md);
	free(md2);
	return folder;
}

/* Which skills SKILLS names: every one when only is empty. */
static int mark_editable(const char *dir, const struct strlist *names, const char *only, struct pkgset *p,
			 struct err *e)
{
	p->edit = xcalloc(p->n ? p->n : 1, sizeof *p->edit);
	struct strlist sel = STRLIST_INIT;
	int rc = only && *only ? skill_set_select(dir, names, only, &sel, e) : 0;
	for (size_t k = 0; rc == 0 && k < p->n; k++)
		p->edit[k] = !(only && *only) || strlist_has(&sel, p->v[k].name);
	strlist_free(&sel);
	return rc;
}

int pkgset_load(const char *dir, const char *only, struct pkgset *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	struct strlist names = STRLIST_INIT;
	int rc = 0;
	if (is_skill_folder(dir)) {
		p->v = xcalloc(1, sizeof *p->v);
		p->n = 1;
		rc = skill_src_load_dir(dir, &p->v[0], e);
		strlist_push(&names, p->v[0].name ? p->v[0].name : "");
	} else if ((rc = skill_set_names(dir, &names, e)) == 0) {
		p->v = xcalloc(names.n, sizeof *p->v);
		for (size_t k = 0; rc == 0 && k < names.n; k++) {
			char *sd = path_join(dir, names.v[k]);
			p->n = k + 1;
			rc = skill_src_load_dir(sd, &p->v[k], e);
			free(sd);
		}
	}
	if (rc == 0)
		rc = mark_editable(dir, &names, only, p, e);
	strlist_free(&names);
	return rc;
}

void pkgset_free(struct pkgset *p)
{
	for (size_t k = 0; k < p->n; k++)
		skill_src_free(&p->v[k]);
	free(p->v);
	free(p->edit);
	memset(p, 0, sizeof *p);
}

char *pkgset_id(const struct pkgset *p, size_t k, int section)
{
	const char *id = section_public_id(p->v[k].doc, section);
	return p->n > 1 ? xasprintf("%s:%s", p->v[k].name, id) : xstrdup(id);
}

int pkgset_lookup(const struct pkgset *p, const char *id, size_t *k)
{
	*k = 0;
	if (!id || !p->n || !p->edit)
		return -1;
	if (p->n == 1)
		return p->edit[0] ? section_lookup(p->v[0].doc, id) : -1;
	const char *colon = strchr(id, ':');
	for (size_t i = 0; colon && i < p->n; i++)
		if (strlen(p->v[i].name) == (size_t)(colon - id) && !strncmp(p->v[i].name, id, (size_t)(colon - id))) {
			*k = i;
			return p->edit[i] ? section_lookup(p->v[i].doc, colon + 1) : -1;
		}
	return -1;
}

void pkgset_index_text(const struct pkgset *p, size_t max_text, struct buf *out)
{
	if (p->n == 1) {
		skillpkg_index_text(p->v[0].doc, "", max_text, out);
		return;
	}
	for (size_t k = 0; k < p->n; k++) {
		if (!p->edit[k])
			continue;
		char *prefix = xasprintf("%s:", p->v[k].name);
		buf_printf(out, "### Skill %s\n\n", p->v[k].name);
		skillpkg_index_text(p->v[k].doc, prefix, max_text, out);
		free(prefix);
	}
}

void pkgset_pointed_refs(const struct pkgset *p, struct strlist *out)
{
	for (size_t k = 0; k < p->n; k++)
		skillpkg_pointed_refs(p->v[k].doc, out);
}

char *pkgset_label(const struct pkgset *p)
{
	struct buf b = BUF_INIT;
	for (size_t k = 0; k < p->n; k++)
		buf_printf(&b, "%s%s", k ? ", " : "", p->v[k].name);
	return buf_detach(&b);
}

void pkgset_names(const struct pkgset *p, struct strlist *out)
{
	for (size_t k = 0; k < p->n; k++)
		strlist_push(out, p->v[k].name);
}

void pkgset_md_hash(const struct pkgset *p, hash_hex out)
{
	if (p->n == 1) {
		hash_bytes(p->v[0].md.data, p->v[0].md.len, out);
		return;
	}
	cJSON *m = cJSON_CreateObject();
	for (size_t k = 0; k < p->n; k++) {
		hash_hex h;
		hash_bytes(p->v[k].md.data, p->v[k].md.len, h);
		cJSON_AddStringToObject(m, p->v[k].name, h);
	}
	json_hash(m, out);
	cJSON_Delete(m);
}

struct skill_out *pkgset_outs(const struct pkgset *p)
{
	struct skill_out *out = xcalloc(p->n ? p->n : 1, sizeof *out);
	for (size_t k = 0; k < p->n; k++)
		skill_out_init(&out[k], &p->v[k]);
	return out;
}

void pkgset_outs_free(const struct pkgset *p, struct skill_out *out)
{
	for (size_t k = 0; out && k < p->n; k++)
		skill_out_free(&out[k]);
	free(out);
}

const char *section_public_id(const struct skilldoc *d, int section)
{
	const char *id = d->sections[section].id;
	return *id ? id : SECTION_ROOT_ID;
}

int section_lookup(const struct skilldoc *d, const char *id)
{
	if (!id || !*id)
		return -1;
	if (!strcmp(id, SECTION_ROOT_ID))
		return 0;
	return sd_section_find(d, id);
}

void section_own_text(const struct skilldoc *d, size_t i, size_t *from, size_t *to)
{
	const struct sd_section *s = &d->sections[i];
	size_t f = s->content_off, t = s->own_end;
	while (f < t && (d->src[f] == '\n' || d->src[f] == '\r'))
		f++;
	while (t > f && (d->src[t - 1] == '\n' || d->src[t - 1] == '\r' || d->src[t - 1] == ' '))
		t--;
	*from = f;
	*to = t;
}

void skillpkg_index_text(const struct skilldoc *d, const char *prefix, size_t max_text, struct buf *out)
{
	for (size_t i = 0; i < d->nsections; i++) {
		const struct sd_section *s = &d->sections[i];
		size_t from, to;
		section_own_text(d, i, &from, &to);
		if (i == 0 && from == to)
			continue; /* no text before the first heading */
		if (s->heading >= 0) {
			const struct sd_block *h = &d->blocks[s->heading];
			buf_printf(out, "[%s%s] %.*s\n", prefix, section_public_id(d, (int)i), (int)h->text.len, d->src + h->text.off);
		} else {
			buf_printf(out, "[%s%s] (text before the first heading)\n", prefix, SECTION_ROOT_ID);
		}
		size_t n = to - from;
		if (n > max_text) {
			n = max_text;
			while (n > 0 && ((unsigned char)d->src[from + n] & 0xC0) == 0x80)
				n--;
		}
		if (n)
			buf_printf(out, "%.*s%s\n", (int)n, d->src + from, n < to - from ? "\n..." : "");
		buf_addc(out, '\n');
	}
}

void skillpkg_pointed_refs(const struct skilldoc *d, struct strlist *out)
{
	for (size_t i = 0; i < d->nrefs; i++) {
		struct buf p = BUF_INIT;
		guard_path_form(d->refs[i].path, strlen(d->refs[i].path), &p);
		const char *path = p.data;
		if (!strncmp(path, "references/", 11) && path[11])
			strlist_push_new(out, path);
		buf_free(&p);
	}
}

int pkgset_publish(const struct pkgset *p, const struct skill_out *out, const char *target, const char *hash_file,
		   struct err *e)
{
	char *parent = path_dir(target);
	char *tmp = fs_temp_beside(target);
	int rc = fs_mkdirs(parent, e) < 0 || fs_mkdirs(tmp, e) < 0 ? -1 : 0;
	for (size_t k = 0; rc == 0 && k < p->n; k++)
		rc = skill_out_write(&p->v[k], &out[k], tmp, true, e);
	if (rc == 0)
		rc = fs_publish_tree(tmp, target, e); /* skill_out_write synced nothing */
	if (rc < 0) {
		struct err ignore;
		if (fs_exists(tmp))
			fs_remove_tree(tmp, &ignore);
	}
	hash_hex h;
	if (rc == 0 && (hash_tree(target, h, e) < 0 || stamp_write(hash_file, h, e) < 0))
		rc = -1;
	free(tmp);
	free(parent);
	return rc;
}
