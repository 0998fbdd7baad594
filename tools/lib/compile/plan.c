#include "compile/plan.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/guard.h"
#include "base/json.h"
#include "llm/client.h"
#include "compile/passes.h"
#include "compile/profile.h"
#include "skill/skilldoc.h"

static const struct {
	const char *op;
	const char *fields[3];
} op_shapes[] = {
	{ "reorder", { "section", "before" } },
	{ "move_to_reference", { "section", "when" } },
	{ "split", { "section", "at", "heading" } },
	{ "rewrite", { "section", "paragraph", "text" } },
};

int plan_check_shape(const cJSON *obj, void *arg, struct buf *why)
{
	(void)arg;
	const cJSON *ops = json_get(obj, "operations");
	if (!cJSON_IsArray(ops)) {
		buf_adds(why, "\"operations\" must be a list");
		return -1;
	}
	if (cJSON_GetArraySize(ops) > PLAN_MAX_OPS) {
		buf_printf(why, "at most %d operations", PLAN_MAX_OPS);
		return -1;
	}
	int i = 0;
	for (const cJSON *op = ops->child; op; op = op->next, i++) {
		const char *name = json_str(op, "op");
		size_t k = 0;
		while (name && k < ARRAY_LEN(op_shapes) && strcmp(op_shapes[k].op, name))
			k++;
		if (!name || k == ARRAY_LEN(op_shapes)) {
			buf_printf(why, "operation %d: \"op\" must be reorder, move_to_reference, split or rewrite", i + 1);
			return -1;
		}
		for (size_t f = 0; f < 3 && op_shapes[k].fields[f]; f++)
			if (!json_str(op, op_shapes[k].fields[f])) {
				buf_printf(why, "operation %d (%s) needs the string field \"%s\"", i + 1, name, op_shapes[k].fields[f]);
				return -1;
			}
	}
	return 0;
}

/* ---- the prompt ------------------------------------------------------------ */

static const char system_text[] =
	"You plan edits to an Agent Skill (a SKILL.md file) so that a target model follows it better. "
	"You never rewrite the skill yourself: you answer with one JSON object {\"operations\": [...]} "
	"listing at most 20 operations, applied in order, each one of:\n"
	"{\"op\": \"reorder\", \"section\": ID, \"before\": ID}  move a section (with its subsections) before another;\n"
	"{\"op\": \"move_to_reference\", \"section\": ID, \"when\": TEXT}  move a low-value section's content to "
	"references/<name>.md, leaving its heading and the line \"Read references/<name>.md when TEXT.\";\n"
	"{\"op\": \"split\", \"section\": ID, \"at\": QUOTE, \"heading\": TEXT}  start a new subsection at the "
	"paragraph that begins with QUOTE;\n"
	"{\"op\": \"rewrite\", \"section\": ID, \"paragraph\": QUOTE, \"text\": TEXT}  replace one paragraph or list "
	"item with a clearer one.\n"
	"Rules: ID is a section id exactly as listed in the outline. QUOTE is copied exactly from the skill: the whole "
	"paragraph or list item for rewrite (list items with their marker), its first 20 or more characters for split. "
	"A rewrite stays one paragraph, at most 25% longer, and keeps every path, flag, number, URL and `code` of the "
	"old paragraph while adding none. Never touch the frontmatter or code blocks; never drop information: move "
	"it instead. Prefer few, safe operations; an empty list is a fine answer.";

static void outline(const struct skilldoc *d, struct buf *out)
{
	for (size_t s = 1; s < d->nsections; s++) {
		const struct sd_section *sec = &d->sections[s];
		const struct sd_block *h = &d->blocks[sec->heading];
		size_t lines = 0;
		for (size_t i = sec->off; i < sec->end; i++)
			lines += d->src[i] == '\n';
		buf_printf(out, "- id \"%s\" (H%d, %zu lines, ~%zu tokens): %.*s\n", sec->id, sec->level, lines,
			   sd_estimate_tokens(d->src + sec->off, sec->end - sec->off), (int)h->text.len, d->src + h->text.off);
	}
}

/* What each profile term asks of the planner. */
static const char *const term_hints[][2] = {
	{ "numbered_steps", "procedures read best as numbered steps" },
	{ "explicit_paths", "file paths are best written from the skill root" },
	{ "gotchas_first", "gotchas and critical notes should come early" },
	{ "loses_late_instructions", "instructions late in a long body get lost" },
	{ "tables", "wide tables are followed poorly" },
	{ "long_prose", "instructions in long paragraphs and long sections get lost: split long sections, tighten long paragraphs" },
};

static void terms(const cJSON *profile, const char *key, struct buf *out)
{
	const cJSON *a = json_get(profile, key);
	int k = 0;
	for (const cJSON *c = a ? a->child : NULL; c; c = c->next, k++) {
		buf_printf(out, "%s%s", k ? "; " : "", c->valuestring);
		for (size_t i = 0; i < ARRAY_LEN(term_hints); i++)
			if (cJSON_IsString(c) && !strcmp(c->valuestring, term_hints[i][0]))
				buf_printf(out, " (%s)", term_hints[i][1]);
	}
	if (!k)
		buf_adds(out, "none");
}

/* The planning request's two messages (system, user); caller frees both. */
static void plan_prompt(const cJSON *profile, const struct skill_src *src, char **system,
			char **user)
{
	const struct skilldoc *d = src->doc;
	struct body_size size = body_measure(d);
	struct buf u = BUF_INIT;
	buf_printf(&u, "Target model profile: %s. Body budget: %ld tokens and %ld lines (the body now has %ld lines, ~%ld tokens). Prefers: ",
		   json_str(profile, "profile"), profile_budget_tokens(profile), profile_budget_lines(profile),
		   size.lines, size.tokens);
	terms(profile, "prefers", &u);
	buf_adds(&u, ". Weaknesses: ");
	terms(profile, "weaknesses", &u);
	buf_adds(&u, ".\n\nSection outline:\n");
	outline(d, &u);
	buf_printf(&u, "\nThe skill (%s):\n<<<SKILL\n", src->md_name);
	buf_add(&u, src->md.data, src->md.len);
	buf_adds(&u, "\nSKILL>>>\n");
	*system = xstrdup(system_text);
	*user = buf_detach(&u);
}

cJSON *plan_obtain(const char *model, const cJSON *profile, const struct skill_src *src,
		   bool dry_run, struct plan_info *info, struct err *e)
{
	memset(info, 0, sizeof *info);
	struct llm_options lo = { 0 };
	if (dry_run)
		lo.cache_mode = "only";
	struct llm_client *c = llm_open(&lo, e);
	if (!c)
		return NULL;
	char *sys, *usr;
	plan_prompt(profile, src, &sys, &usr);
	struct llm_msg msgs[2] = { { "system", sys }, { "user", usr } };
	static const char *const keys[] = { "operations", NULL };
	struct llm_request req = {
		.model = model,
		.msgs = msgs,
		.n_msgs = 2,
		.has_temperature = true,
		.temperature = 0,
		.max_tokens = 4096,
		.template = PLAN_TEMPLATE,
		.label = "static plan",
		.json = true,
		.json_keys = keys,
		.json_check = plan_check_shape,
		.json_repairs = -1,
	};
	struct llm_result res;
	int rc = llm_call(c, &req, &res, e);
	cJSON *plan = NULL;
	if (rc == 0) {
		plan = cJSON_CreateObject();
		json_set_num(plan, "format", 1);
		json_set_str(plan, "mode", "hybrid");
		json_set_str(plan, "planner", model);
		json_set_str(plan, "template", PLAN_TEMPLATE);
		json_set_str(plan, "cache_key", res.key);
		json_set(plan, "operations", cJSON_Duplicate(json_get(res.json, "operations"), 1));
		info->requests = res.requests;
		info->cache_hits = res.cache_hits;
		info->repairs = res.repairs;
		info->cached = res.requests == 0;
		snprintf(info->key, sizeof info->key, "%s", res.key);
	} else if (dry_run && res.uncached) {
		plan = cJSON_CreateObject();
		json_set_bool(plan, "cached", false);
		json_set_str(plan, "planner", model);
		json_set_str(plan, "cache_key", res.key);
		json_set_num(plan, "prompt_tokens_estimate", (double)(sd_estimate_tokens(sys, strlen(sys)) + sd_estimate_tokens(usr, strlen(usr))));
		json_set_str(plan, "note", "the plan is not cached: a real run asks the planner once; nothing was called or written");
	}
	llm_result_free(&res);
	free(sys);
	free(usr);
	llm_close(c);
	return plan;
}

/* ---- applying one operation ---------------------------------------------- */

/* Whitespace runs as one space, trimmed. */
static char *collapse(const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	bool space = false;
	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i])) {
			space = b.len > 0;
			continue;
		}
		if (space)
			buf_addc(&b, ' ');
		space = false;
		buf_addc(&b, s[i]);
	}
	return buf_detach(&b);
}

/* A rejected operation: 1 with the reason in e. */
static int reject(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int reject(struct err *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	e->code = ERR_INPUT;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return 1;
}

/* The section an id names in d, or a rejection. */
static int find_section(const struct skilldoc *d, const cJSON *op, const char *field, int *s, struct err *e)
{
	const char *id = json_str(op, field);
	*s = *id ? sd_section_find(d, id) : -1;
	if (*s <= 0)
		return reject(e, "%s '%s' names no section of the skill", field, id);
	return 0;
}

static bool in_source(const struct skill_src *src, const char *quote)
{
	char *all = collapse(src->md.data, src->md.len), *q = collapse(quote, strlen(quote));
	bool ok = *q && strstr(all, q) != NULL;
	free(all);
	free(q);
	return ok;
}

/* The block of section s (its own content) whose text is quote, or whose
 * text starts with it when prefix is set. -1 when none. */
static int find_block(const struct skilldoc *d, int s, const char *quote, bool prefix)
{
	const struct sd_section *sec = &d->sections[s];
	char *q = collapse(quote, strlen(quote));
	int found = -1;
	for (size_t b = 0; b < d->nblocks && found < 0; b++) {
		const struct sd_block *bl = &d->blocks[b];
		if (bl->off < sec->content_off || bl->off >= sec->own_end || bl->kind == SD_BLANK ||
		    bl->kind == SD_HEADING)
			continue;
		char *t = collapse(d->src + bl->off, bl->len);
		if (prefix ? !strncmp(t, q, strlen(q)) : !strcmp(t, q))
			found = (int)b;
		free(t);
	}
	free(q);
	return found;
}

static bool one_line(const char *s, size_t max)
{
	size_t n = strlen(s);
	return n && n <= max && !strchr(s, '\n') && !strchr(s, '\r');
}

/* The literals of text as guard keys, sorted. */
static void literal_keys(const char *s, size_t n, struct strlist *out)
{
	struct skilldoc *d = sd_parse(s, n);
	for (size_t i = 0; i < d->nliterals; i++) {
		struct buf k = BUF_INIT;
		guard_path_form(d->src + d->literals[i].off, d->literals[i].len, &k);
		strlist_push_owned(out, buf_detach(&k));
	}
	strlist_sort(out);
	sd_free(d);
}

/* The first literal of new that old does not have as often, or NULL. */
static const char *new_literal(const struct strlist *old, const struct strlist *new)
{
	size_t j = 0;
	for (size_t i = 0; i < new->n;) {
		size_t k = i;
		while (k < new->n && !strcmp(new->v[k], new->v[i]))
			k++;
		while (j < old->n && strcmp(old->v[j], new->v[i]) < 0)
			j++;
		size_t h = j;
		while (h < old->n && !strcmp(old->v[h], new->v[i]))
			h++;
		if (k - i > h - j)
			return new->v[i];
		i = k;
		j = h;
	}
	return NULL;
}

static int op_reorder(struct skill_out *o, const struct skilldoc *d, const cJSON *op, cJSON *notes,
		      struct sd_edits *ed, struct err *e)
{
	int s, b;
	if (find_section(d, op, "section", &s, e) || find_section(d, op, "before", &b, e))
		return 1;
	const struct sd_section *sec = &d->sections[s], *dst = &d->sections[b];
	if (s == b || (dst->off >= sec->off && dst->off < sec->end))
		return reject(e, "cannot move section '%s' before '%s', which it holds", sec->id, dst->id);
	(void)o;
	json_set_str(notes, "moved", sec->id);
	json_set_str(notes, "before", dst->id);
	return move_section_before(d, s, dst->off, ed, e);
}

static int op_move(const struct skill_src *src, struct skill_out *o, const struct skilldoc *d,
		   const cJSON *op, cJSON *notes, struct sd_edits *ed, struct err *e)
{
	int s;
	if (find_section(d, op, "section", &s, e))
		return 1;
	const char *when = json_str(op, "when");
	if (!one_line(when, 200) || strchr(when, '`') || strchr(when, '['))
		return reject(e, "\"when\" must be one line of plain text (at most 200 bytes): '%s'", when);
	/* "Read X when when." reads wrong with a final period: drop it */
	char *w = xstrdup(when);
	size_t n = strlen(w);
	while (n && (w[n - 1] == '.' || w[n - 1] == ' '))
		w[--n] = '\0';
	char *file = move_to_reference(src, o, d, s, w, ed);
	json_set_str(notes, "moved", d->sections[s].id);
	json_set_str(notes, "file", file);
	json_set_str(notes, "when", w);
	free(file);
	free(w);
	return 0;
}

static int op_split(const struct skill_src *src, const struct skilldoc *d, const cJSON *op, cJSON *notes,
		    struct sd_edits *ed, struct err *e)
{
	int s;
	if (find_section(d, op, "section", &s, e))
		return 1;
	const char *at = json_str(op, "at"), *heading = json_str(op, "heading");
	char *q = collapse(at, strlen(at));
	bool short_quote = strlen(q) < 20;
	free(q);
	if (short_quote)
		return reject(e, "\"at\" must quote 20 characters or more of a paragraph: '%s'", at);
	if (!in_source(src, at))
		return reject(e, "\"at\" quotes text that is not in the source: '%s'", at);
	int b = find_block(d, s, at, true);
	if (b < 0)
		return reject(e, "\"at\" starts no paragraph of section '%s': '%s'", d->sections[s].id, at);
	if (!one_line(heading, 80) || heading[0] == '#' || strchr(heading, '`'))
		return reject(e, "\"heading\" must be one line of plain text (at most 80 bytes): '%s'", heading);
	int level = d->sections[s].level + 1;
	if (level > 6)
		return reject(e, "section '%s' is already at level 6: cannot split it", d->sections[s].id);
	struct buf h = BUF_INIT;
	for (int k = 0; k < level; k++)
		buf_addc(&h, '#');
	buf_printf(&h, " %s\n\n", heading);
	sd_edits_insert(ed, d->blocks[b].off, h.data, h.len);
	buf_free(&h);
	json_set_str(notes, "split", d->sections[s].id);
	json_set_str(notes, "heading", heading);
	return 0;
}

static int op_rewrite(const struct skill_src *src, const struct skilldoc *d, const cJSON *op, cJSON *notes,
		      struct sd_edits *ed, struct err *e)
{
	int s;
	if (find_section(d, op, "section", &s, e))
		return 1;
	const char *para = json_str(op, "paragraph"), *text = json_str(op, "text");
	if (!in_source(src, para))
		return reject(e, "\"paragraph\" quotes text that is not in the source: '%.200s'", para);
	int b = find_block(d, s, para, false);
	if (b < 0)
		return reject(e, "\"paragraph\" is no whole paragraph of section '%s': '%.200s'", d->sections[s].id, para);
	const struct sd_block *bl = &d->blocks[b];
	if (bl->kind != SD_PARAGRAPH && bl->kind != SD_LIST_ITEM)
		return reject(e, "only a paragraph or a list item can be rewritten, not a %s", sd_block_kind_name(bl->kind));
	size_t n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	if (!n || strstr(text, "\n\n") || strchr("#>|", text[0]) || strstr(text, "```") || strstr(text, "~~~"))
		return reject(e, "\"text\" must be one paragraph: no blank line, heading, quote, table or fence");
	if (n > bl->len + bl->len / 4 + 40)
		return reject(e, "\"text\" is more than 25%% longer than the paragraph it replaces");
	struct strlist had = STRLIST_INIT, has = STRLIST_INIT;
	literal_keys(d->src + bl->off, bl->len, &had);
	literal_keys(text, n, &has);
	const char *extra = new_literal(&had, &has);
	int rc = 0;
	if (extra)
		rc = reject(e, "\"text\" adds the literal '%s', which the paragraph does not have", extra);
	strlist_free(&had);
	strlist_free(&has);
	if (rc)
		return rc;
	struct buf t = BUF_INIT;
	buf_add(&t, text, n);
	buf_addc(&t, '\n');
	sd_edit_replace_block(ed, d, b, t.data, t.len);
	buf_free(&t);
	json_set_str(notes, "rewrote", d->sections[s].id);
	json_set_num(notes, "line", bl->line);
	return 0;
}

int plan_step(const cJSON *profile, const struct skill_src *src, struct skill_out *o,
	      const void *arg, cJSON *notes, struct err *e)
{
	(void)profile;
	const cJSON *op = arg;
	const char *name = json_str(op, "op");
	struct skilldoc *d = sd_share(skill_out_model(o));
	struct sd_edits ed = SD_EDITS_INIT;
	int rc;
	if (!name)
		rc = reject(e, "operation without \"op\"");
	else if (!strcmp(name, "reorder"))
		rc = op_reorder(o, d, op, notes, &ed, e);
	else if (!strcmp(name, "move_to_reference"))
		rc = op_move(src, o, d, op, notes, &ed, e);
	else if (!strcmp(name, "split"))
		rc = op_split(src, d, op, notes, &ed, e);
	else if (!strcmp(name, "rewrite"))
		rc = op_rewrite(src, d, op, notes, &ed, e);
	else
		rc = reject(e, "unknown operation '%s'", name);
	if (rc == 0 && ed.n)
		rc = out_apply(o, d, &ed, e);
	sd_edits_free(&ed);
	sd_free(d);
	return rc;
}
