#include "optimize/patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "compile/passes.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"

cJSON *patch_size(const char *md, size_t len)
{
	struct skilldoc *d = sd_parse(md, len);
	struct body_size s = body_measure(d);
	sd_free(d);
	cJSON *j = cJSON_CreateObject();
	json_set_num(j, "lines", (double)s.lines);
	json_set_num(j, "tokens", (double)s.tokens);
	return j;
}

/* The blocks of a section's own text (heading and blank runs excluded). */
static bool own_block(const struct skilldoc *d, const struct sd_section *s, size_t b)
{
	const struct sd_block *k = &d->blocks[b];
	return k->off >= s->content_off && k->off < s->own_end && k->kind != SD_BLANK && k->kind != SD_HEADING;
}

/* The block of section s that find quotes: -1 none, -2 several. */
static int find_block(const struct skilldoc *d, int section, const char *find)
{
	const struct sd_section *s = &d->sections[section];
	struct buf q = BUF_INIT;
	text_squash(find, strlen(find), &q);
	int exact = -1, holds = -1, nholds = 0;
	for (size_t b = 0; b < d->nblocks; b++) {
		if (!own_block(d, s, b))
			continue;
		struct buf t = BUF_INIT;
		text_squash(d->src + d->blocks[b].off, d->blocks[b].len, &t);
		if (q.len && !strcmp(t.data, q.data) && exact < 0)
			exact = (int)b;
		else if (q.len >= 20 && strstr(t.data, q.data)) {
			holds = (int)b;
			nholds++;
		}
		buf_free(&t);
	}
	buf_free(&q);
	return exact >= 0 ? exact : nholds == 1 ? holds : nholds > 1 ? -2 : -1;
}

/* Where the section's own text ends, trailing blank lines excluded; *last
 * gets the kind of its last block (SD_BLANK when it has none). */
static size_t own_text_end(const struct skilldoc *d, int section, enum sd_block_kind *last)
{
	const struct sd_section *s = &d->sections[section];
	size_t end = s->content_off;
	*last = SD_BLANK;
	for (size_t b = 0; b < d->nblocks; b++)
		if (own_block(d, s, b)) {
			end = d->blocks[b].off + d->blocks[b].len;
			*last = d->blocks[b].kind;
		}
	return end;
}

/* True when text starts with a list item marker ("- ", "* ", "+ ", "1. "). */
static bool starts_list(const char *t)
{
	if ((t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ')
		return true;
	size_t i = 0;
	while (t[i] >= '0' && t[i] <= '9')
		i++;
	return i > 0 && (t[i] == '.' || t[i] == ')') && t[i + 1] == ' ';
}

static char *with_newline(const char *text)
{
	size_t n = strlen(text);
	return n && text[n - 1] == '\n' ? xstrdup(text) : xasprintf("%s\n", text);
}

/* Builds the edits of one patch; 1 with why set when it cannot apply. */
static int build_edits(const struct skilldoc *d, const cJSON *patch, struct sd_edits *ed, const char **why)
{
	const char *op = json_str(patch, "op"), *find = json_str(patch, "find"), *text = json_str(patch, "text");
	int s = section_lookup(d, json_str(patch, "section"));
	if (s < 0 || !op) {
		*why = "names no section of the skill";
		return 1;
	}
	if (find && !*find)
		find = NULL;
	int b = -1;
	if (find && strcmp(op, "add")) {
		b = find_block(d, s, find);
		if (b < 0) {
			*why = b == -2 ? "find quotes several blocks of the section" : "find quotes no block of the section";
			return 1;
		}
	}
	char *t = text ? with_newline(text) : NULL;
	enum sd_block_kind last;
	if (!strcmp(op, "add")) {
		size_t at = own_text_end(d, s, &last);
		/* a list item joins the list it follows; anything else is its own block */
		bool join = last == SD_LIST_ITEM && starts_list(t);
		char *ins = xasprintf("%s%s%s", join ? "" : "\n", t, at < d->len && d->src[at] != '\n' ? "\n" : "");
		sd_edits_insert(ed, at, ins, strlen(ins));
		free(ins);
	} else if (!strcmp(op, "update") && b >= 0) {
		sd_edit_replace_block(ed, d, b, t, strlen(t));
	} else if (!strcmp(op, "update")) {
		size_t from = d->sections[s].content_off, to = own_text_end(d, s, &last);
		char *rep = xasprintf("%s%s", from < to || s == 0 ? "" : "\n", t);
		if (from < to) {
			/* keep the blank line after the heading */
			while (from < to && d->src[from] == '\n')
				from++;
		}
		sd_edits_replace(ed, from, to - from, rep, strlen(rep));
		free(rep);
	} else if (!strcmp(op, "delete") && b >= 0) {
		size_t off = d->blocks[b].off, len = d->blocks[b].len;
		if ((size_t)b + 1 < d->nblocks && d->blocks[b + 1].kind == SD_BLANK)
			len += d->blocks[b + 1].len;
		sd_edits_delete(ed, off, len);
	} else if (!strcmp(op, "delete")) {
		sd_edit_remove_section(ed, d, s);
	} else {
		free(t);
		*why = "op is not add, update or delete";
		return 1;
	}
	free(t);
	return 0;
}

static bool has_id(const struct skilldoc *d, const char *id)
{
	for (size_t i = 0; i < d->nsections; i++)
		if (!strcmp(d->sections[i].id, id))
			return true;
	return false;
}

/* The section check (patch.h); NULL when it passes, else the lost or
 * misplaced section id (borrowed from before or after). */
static const char *section_check(const struct skilldoc *before, const struct skilldoc *after, int patched,
				 bool whole_delete)
{
	const struct sd_section *p = &before->sections[patched];
	for (size_t i = 0; i < before->nsections; i++) {
		const struct sd_section *s = &before->sections[i];
		bool removed = whole_delete && s->off >= p->off && s->off < p->end && patched > 0;
		if (!removed && !has_id(after, s->id))
			return s->id;
	}
	for (size_t i = 0; i < after->nsections; i++) {
		if (has_id(before, after->sections[i].id))
			continue;
		int up = after->sections[i].parent;
		while (up > 0 && strcmp(after->sections[up].id, p->id))
			up = after->sections[up].parent;
		if (up < 0 || (up == 0 && patched != 0))
			return after->sections[i].id;
	}
	return NULL;
}

static void fail_guard(cJSON *step, const char *check, const char *item, int want, int have)
{
	cJSON *g = cJSON_CreateObject();
	json_set_str(g, "check", check);
	json_set_str(g, "item", item);
	json_set_num(g, "want", want);
	json_set_num(g, "have", have);
	json_set(step, "guard", g);
	json_set_str(step, "status", "rolled_back");
}

int patch_apply(const struct skill_src *base, const struct guard_base *g, struct skill_out *o, const cJSON *patch,
		long budget_tokens, cJSON *step)
{
	json_set(step, "before", patch_size(o->md.data, o->md.len));
	struct skilldoc *d = sd_parse(o->md.data, o->md.len);
	struct sd_edits ed = SD_EDITS_INIT;
	const char *why = NULL;
	struct err e = { 0 };
	int changed = 0;
	struct skilldoc *after = NULL;
	if (build_edits(d, patch, &ed, &why)) {
		json_set_str(step, "status", "rejected");
		json_set_str(step, "reason", why);
	} else if (!(after = sd_edit(d, &ed, &e))) {
		json_set_str(step, "status", "rejected");
		json_set_str(step, "reason", e.msg);
	} else {
		struct skill_out trial;
		skill_out_copy(&trial, o);
		struct buf nb = BUF_INIT;
		buf_add(&nb, after->src, after->len);
		buf_adds(&nb, "");
		skill_out_set_md(&trial, &nb); /* drops the model of the old text */
		struct guard_fail f;
		bool whole = !strcmp(json_str(patch, "op"), "delete") && !(json_str(patch, "find") && *json_str(patch, "find"));
		const char *lost;
		long before_t = body_measure(d).tokens, after_t = body_measure(after).tokens;
		if (guard_check(g, base, &trial, &f)) {
			fail_guard(step, f.check, f.item, f.want, f.have);
			guard_fail_free(&f);
		} else if ((lost = section_check(d, after, section_lookup(d, json_str(patch, "section")), whole))) {
			fail_guard(step, "section", lost, 1, 0);
		} else if (after_t > budget_tokens && after_t > before_t) {
			char item[96];
			snprintf(item, sizeof item, "body ~%ld tokens, budget %ld", after_t, budget_tokens);
			fail_guard(step, "budget", item, (int)budget_tokens, (int)after_t);
		} else if (trial.md.len == o->md.len && !memcmp(trial.md.data, o->md.data, o->md.len)) {
			json_set_str(step, "status", "unchanged");
		} else {
			skill_out_free(o);
			*o = trial;
			trial = (struct skill_out){ 0 };
			json_set_str(step, "status", "applied");
			changed = 1;
		}
		skill_out_free(&trial);
	}
	json_set(step, "after", patch_size(o->md.data, o->md.len));
	sd_free(after);
	sd_free(d);
	sd_edits_free(&ed);
	return changed ? 0 : -1;
}

int patch_apply_set(const struct pkgset *p, const struct guard_base *g, struct skill_out *out, const cJSON *patch,
		    long budget_tokens, cJSON *step)
{
	if (p->n == 1)
		return patch_apply(&p->v[0], &g[0], &out[0], patch, budget_tokens, step);
	size_t k;
	int s = pkgset_lookup(p, json_str(patch, "section"), &k);
	if (s < 0) {
		json_set_str(step, "status", "rejected");
		json_set_str(step, "reason", "names no section of a skill of the set the stage may edit");
		return -1;
	}
	/* the skill's own id: patch_apply looks it up in that skill alone */
	cJSON *local = cJSON_Duplicate(patch, true);
	json_set_str(local, "section", section_public_id(p->v[k].doc, s));
	json_set_str(step, "skill", p->v[k].name);
	int rc = patch_apply(&p->v[k], &g[k], &out[k], local, budget_tokens, step);
	cJSON_Delete(local);
	return rc;
}
