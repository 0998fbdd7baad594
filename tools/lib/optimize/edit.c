#include "optimize/edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "compile/guard.h"
#include "optimize/ask.h"
#include "optimize/patch.h"
#include "optimize/sections.h"
#include "optimize/skillpkg.h"

static const char system_text[] =
	"You make one local edit to a skill (its SKILL.md) so an AI agent does better on a task: you get the\n"
	"skill's weakest unit, its scores with evidence from the agent's traces, and the traces. Reply with one\n"
	"JSON object and nothing else:\n"
	"{\"edit\": {\"op\": \"update|add|delete\", \"find\": \"<the paragraph or list item to change, copied exactly from the unit>\",\n"
	"  \"text\": \"<the new Markdown text (update, add)>\", \"why\": \"<what it fixes, from the traces>\"}}\n"
	"update replaces the quoted block with text (without find: the unit's whole text); add appends text to\n"
	"the unit's section; delete removes the quoted block. Rules: change only the unit given; keep every code\n"
	"block, command, path, flag, number, placeholder and heading it has (an edit that loses one is rolled\n"
	"back); stay compact; never propose again an edit listed as rejected.\n";

struct cand {
	const cJSON *unit;  /* scores.json entry */
	bool unused;        /* a skill of the set no trace invoked or read */
	double score;
	int order;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->unused != y->unused)
		return x->unused ? 1 : -1;
	return x->score != y->score ? (x->score < y->score ? -1 : 1) : x->order - y->order;
}

/* Whether a trace invoked or read skill k (a set of one counts as used). */
static bool skill_used(const struct pkgset *p, size_t k, const struct trace_set *ts)
{
	if (p->n == 1)
		return true;
	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(trace_skill_use(&ts->v[i], p->v[k].name), "not used"))
			return true;
	return false;
}

static bool rejected_unit(const cJSON *rejected, const char *id)
{
	for (const cJSON *r = rejected ? rejected->child : NULL; r; r = r->next)
		if (json_str(r, "unit") && !strcmp(json_str(r, "unit"), id))
			return true;
	return false;
}

static const struct unit *find_unit(const struct unit *u, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(u[i].id, id))
			return &u[i];
	return NULL;
}

static char *user_text(const struct edit_input *in, const struct unit *u, const cJSON *entry, const cJSON *attempts,
		       const char *traces)
{
	const struct skilldoc *d = in->skill->v[u->skill].doc;
	struct buf b = BUF_INIT;
	buf_printf(&b, "## Task instruction\n%s\n\n", in->instruction && *in->instruction ? in->instruction : "(not given)");
	buf_printf(&b, "## The unit to edit: [%s] (mean score %.2f)\n", u->id, json_num(entry, "score", 0));
	const cJSON *dims = json_get(entry, "dims");
	for (const cJSON *x = dims ? dims->child : NULL; x; x = x->next)
		if (cJSON_IsNumber(json_get(x, "score")))
			buf_printf(&b, "- %s %g: %s\n", x->string, json_num(x, "score", 0), json_str(x, "evidence") ? json_str(x, "evidence") : "");
	buf_printf(&b, "\n%.*s\n\n", (int)u->len, d->src + u->off);
	if (u->block >= 0) {
		struct buf s = BUF_INIT;
		sd_section_text(d, u->section, &s);
		buf_printf(&b, "## Its section (for context; change only the unit)\n%.*s\n\n", (int)(s.len > 3000 ? 3000 : s.len), s.data);
		buf_free(&s);
	}
	if (cJSON_GetArraySize(in->rejected)) {
		buf_adds(&b, "## Rejected edits of earlier rounds (do not propose these again)\n");
		for (const cJSON *r = in->rejected->child; r; r = r->next) {
			const cJSON *ed = json_get(r, "edit");
			buf_printf(&b, "- round %ld, [%s] %s: %s (%s)\n", (long)json_num(r, "round", 0), json_str(r, "unit"),
				   json_str(ed, "op"), json_str(ed, "text") ? json_str(ed, "text") : "(delete)", json_str(r, "why"));
		}
		buf_addc(&b, '\n');
	}
	if (cJSON_GetArraySize(attempts)) {
		buf_adds(&b, "## Edits already tried this round and rolled back\n");
		for (const cJSON *a = attempts->child; a; a = a->next)
			buf_printf(&b, "- [%s]: %s\n", json_str(a, "unit"), json_str(a, "why"));
		buf_addc(&b, '\n');
	}
	buf_printf(&b, "The body must stay within %ld tokens.\n\n", in->budget_tokens);
	buf_adds(&b, traces);
	buf_adds(&b, "Reply with the JSON object.\n");
	return buf_detach(&b);
}

static int check_shape(const cJSON *obj, void *arg, struct buf *why)
{
	(void)arg;
	const cJSON *ed = json_get(obj, "edit");
	if (!cJSON_IsObject(ed) || !json_str(ed, "op")) {
		buf_adds(why, "\"edit\" must be an object with \"op\"");
		return -1;
	}
	return 0;
}

/* The patch an edit of unit u stands for (caller frees). */
static cJSON *patch_of(const struct skilldoc *d, const struct unit *u, const cJSON *ed)
{
	cJSON *p = cJSON_CreateObject();
	const char *op = json_str(ed, "op"), *text = json_str(ed, "text"), *find = json_str(ed, "find");
	json_set_str(p, "section", section_public_id(d, u->section));
	if (u->block >= 0) {
		char *para = xstrndup(d->src + u->off, u->len);
		if (op && !strcmp(op, "add")) {
			/* added to a paragraph: it follows that paragraph */
			char *t = xasprintf("%.*s\n\n%s", (int)(u->len && para[u->len - 1] == '\n' ? u->len - 1 : u->len), para,
					    text ? text : "");
			json_set_str(p, "op", "update");
			json_set_str(p, "text", t);
			free(t);
		} else {
			json_set_str(p, "op", op);
			json_set_str(p, "text", text);
		}
		json_set_str(p, "find", para);
		free(para);
	} else {
		json_set_str(p, "op", op);
		json_set_str(p, "find", find);
		json_set_str(p, "text", text);
	}
	return p;
}

/* The held edit's record in edit.json. */
static void held_edit(const struct edit_input *in, const struct unit *u, const cJSON *p, const cJSON *ed,
		      const cJSON *entry, const cJSON *step, cJSON *doc)
{
	cJSON *x = json_set(doc, "edit", cJSON_CreateObject());
	json_set_str(x, "unit", u->id);
	char *id = pkgset_id(in->skill, u->skill, u->section);
	json_set_str(x, "section", id);
	free(id);
	if (in->skill->n > 1)
		json_set_str(x, "skill", in->skill->v[u->skill].name);
	json_set_str(x, "op", json_str(p, "op"));
	json_set_str(x, "find", json_str(p, "find"));
	json_set_str(x, "text", json_str(p, "text"));
	json_set_str(x, "why", json_str(ed, "why"));
	json_set(x, "score", cJSON_Duplicate(entry, true));
	json_set(doc, "size", cJSON_Duplicate(json_get(step, "after"), true));
}

/* One attempt on unit u; true (and o changed: only the unit's skill) when
 * the edit holds. */
static bool attempt(struct llm_client *c, const struct edit_input *in, const struct unit *u, const cJSON *entry,
		    const struct guard_base *g, struct skill_out *o, const char *traces, cJSON *attempts, cJSON *doc,
		    int *rc, struct err *e)
{
	const struct skilldoc *d = in->skill->v[u->skill].doc;
	char *user = user_text(in, u, entry, attempts, traces);
	char *label = xasprintf("deep-%d-edit %s", in->round, u->id);
	static const char *const keys[] = { "edit", NULL };
	struct ask q = { in->model, EDIT_TEMPLATE, label, system_text, user, keys, check_shape, NULL };
	struct ask_answer a;
	*rc = ask_json(c, &q, &a, e);
	free(user);
	free(label);
	if (*rc < 0) {
		ask_answer_free(&a);
		return false;
	}
	cJSON *at = cJSON_CreateObject();
	json_set_str(at, "unit", u->id);
	json_set_str(at, "cache_key", a.key);
	bool held = false;
	if (a.unusable) {
		json_set_str(at, "status", "bad_answer");
		json_set_str(at, "why", a.why);
	} else {
		const cJSON *ed = json_get(a.json, "edit");
		json_set(at, "edit", cJSON_Duplicate(ed, true));
		cJSON *p = patch_of(d, u, ed);
		const char *problem = NULL;
		if (!json_str(ed, "op") || (strcmp(json_str(ed, "op"), "delete") && !json_str(ed, "text")))
			problem = "the edit needs op, and text unless it deletes";
		cJSON *step = cJSON_CreateObject();
		if (problem) {
			json_set_str(step, "status", "rejected");
			json_set_str(step, "reason", problem);
		} else {
			patch_apply(&in->skill->v[u->skill], &g[u->skill], &o[u->skill], p, in->budget_tokens, step);
		}
		const char *st = json_str(step, "status");
		json_set_str(at, "status", st);
		const cJSON *gd = json_get(step, "guard");
		if (gd) {
			json_set(at, "guard", cJSON_Duplicate(gd, true));
			bool leak = !strcmp(json_str(gd, "check"), "leak");
			char *why = leak ? xasprintf("rolled back by the leakage guard: %s", json_str(gd, "item"))
					 : xasprintf("rolled back: guard %s lost %s", json_str(gd, "check"), json_str(gd, "item"));
			if (leak)
				json_set_num(doc, "leaks", json_num(doc, "leaks", 0) + 1);
			json_set_str(at, "why", why);
			free(why);
		} else if (json_str(step, "reason")) {
			json_set_str(at, "why", json_str(step, "reason"));
		} else if (!strcmp(st, "unchanged")) {
			json_set_str(at, "why", "the edit changes nothing");
		}
		held = !strcmp(st, "applied");
		if (held)
			held_edit(in, u, p, ed, entry, step, doc);
		cJSON_Delete(step);
		cJSON_Delete(p);
	}
	cJSON_AddItemToArray(attempts, at);
	ask_answer_free(&a);
	return held;
}

/* The scored units that may be edited, weakest (used first) first; *n set. */
static struct cand *candidates(const struct edit_input *in, const struct unit *u, size_t nu, size_t *n)
{
	const cJSON *scored = json_get(in->scores, "units");
	struct cand *v = xcalloc((size_t)cJSON_GetArraySize(scored) + 1, sizeof *v);
	bool *used = xcalloc(in->skill->n, sizeof *used);
	for (size_t k = 0; k < in->skill->n; k++)
		used[k] = skill_used(in->skill, k, in->traces);
	*n = 0;
	int order = 0;
	for (const cJSON *x = scored ? scored->child : NULL; x; x = x->next, order++) {
		const struct unit *un = json_str(x, "unit") ? find_unit(u, nu, json_str(x, "unit")) : NULL;
		if (un && !rejected_unit(in->rejected, json_str(x, "unit")))
			v[(*n)++] = (struct cand){ x, !used[un->skill], json_num(x, "score", 5), order };
	}
	qsort(v, *n, sizeof *v, cmp_cand);
	free(used);
	return v;
}

int deep_edit(struct llm_client *c, const struct edit_input *in, struct skill_out **outp, cJSON **doc, struct err *e)
{
	struct skill_out *out = *outp = pkgset_outs(in->skill);
	struct unit *u;
	size_t nu = units_of_set(in->skill, &u), n;
	struct cand *v = candidates(in, u, nu, &n);
	*doc = cJSON_CreateObject();
	json_set_num(*doc, "format", 1);
	json_set_num(*doc, "round", in->round);
	json_set_str(*doc, "model", in->model);
	json_set_str(*doc, "template", EDIT_TEMPLATE);
	cJSON *attempts = json_set(*doc, "attempts", cJSON_CreateArray());
	json_set(*doc, "edit", cJSON_CreateNull());
	struct guard_base *g = xcalloc(in->skill->n, sizeof *g);
	for (size_t k = 0; k < in->skill->n; k++)
		guard_init(&g[k], &in->skill->v[k]);
	for (size_t k = 0; k < in->skill->n; k++)
		g[k].leak = in->leak;
	char *seen;
	char *traces = deep_traces_text(in->traces, in->skill, &seen);
	int rc = 0;
	bool held = false;
	for (size_t i = 0; i < n && i < EDIT_TRIES && !held && rc == 0; i++)
		held = attempt(c, in, find_unit(u, nu, json_str(v[i].unit, "unit")), v[i].unit, g, out, traces, attempts, *doc,
			       &rc, e);
	if (!held)
		json_set_str(*doc, "why", !n ? "no scored unit left to edit (every one unscored or rejected before)"
					     : "no edit held: every attempt was rolled back or no edit");
	free(traces);
	free(seen);
	for (size_t k = 0; k < in->skill->n; k++)
		guard_free(&g[k]);
	free(g);
	free(v);
	units_free(u, nu);
	if (rc < 0) {
		cJSON_Delete(*doc);
		*doc = NULL;
		pkgset_outs_free(in->skill, out);
		*outp = NULL;
		return -1;
	}
	return 0;
}
