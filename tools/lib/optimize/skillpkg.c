#include "optimize/skillpkg.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/hash.h"
#include "compile/guard.h"

int skillpkg_load(const char *dir, struct skill_src *s, struct err *e)
{
	char *md = path_join(dir, "SKILL.md"), *md2 = path_join(dir, "skill.md");
	bool folder = fs_exists(md) || fs_exists(md2);
	free(md);
	free(md2);
	return folder ? skill_src_load_dir(dir, s, e) : skill_src_load(dir, s, e);
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

void skillpkg_index_text(const struct skilldoc *d, size_t max_text, struct buf *out)
{
	for (size_t i = 0; i < d->nsections; i++) {
		const struct sd_section *s = &d->sections[i];
		size_t from, to;
		section_own_text(d, i, &from, &to);
		if (i == 0 && from == to)
			continue; /* no text before the first heading */
		if (s->heading >= 0) {
			const struct sd_block *h = &d->blocks[s->heading];
			buf_printf(out, "[%s] %.*s\n", section_public_id(d, (int)i), (int)h->text.len, d->src + h->text.off);
		} else {
			buf_printf(out, "[%s] (text before the first heading)\n", SECTION_ROOT_ID);
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
		const char *path = p.data ? p.data : "";
		bool known = false;
		for (size_t k = 0; k < out->n && !known; k++)
			known = !strcmp(out->v[k], path);
		if (!known && !strncmp(path, "references/", 11) && path[11])
			strlist_push(out, path);
		buf_free(&p);
	}
}

int skillpkg_publish(const struct skill_src *src, const struct skill_out *out, const char *target,
		     const char *hash_file, struct err *e)
{
	char *parent = path_dir(target);
	char *tmp = fs_temp_beside(target);
	int rc = 0;
	if (fs_mkdirs(parent, e) < 0 || fs_mkdirs(tmp, e) < 0 || skill_out_write(src, out, tmp, e) < 0 ||
	    fs_publish_dir(tmp, target, e) < 0) {
		struct err ignore;
		if (fs_exists(tmp))
			fs_remove_tree(tmp, &ignore);
		rc = -1;
	}
	hash_hex h;
	if (rc == 0 && (hash_tree(target, h, e) < 0 || stamp_write(hash_file, h, e) < 0))
		rc = -1;
	free(tmp);
	free(parent);
	return rc;
}
