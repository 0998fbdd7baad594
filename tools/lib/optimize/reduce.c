#include "optimize/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "compile/passes.h"
#include "optimize/ask.h"
#include "optimize/map.h"
#include "optimize/skillpkg.h"

/* One (skill, section, kind) group of findings. */
struct group {
	size_t skill;       /* index in the set */
	int section;        /* index in the skill's document */
	int kind;           /* index in map_kinds */
	cJSON *findings;    /* [{evidence, suggestion, unit}] (owned) */
	cJSON *units;       /* unit numbers, each once (owned) */
};

struct groups {
	struct group *v;
	size_t n;
	int findings;
};

static struct group *group_of(struct groups *g, size_t skill, int section, int kind)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].skill == skill && g->v[i].section == section && g->v[i].kind == kind)
			return &g->v[i];
	g->v = xrealloc(g->v, (g->n + 1) * sizeof *g->v);
	struct group *x = &g->v[g->n++];
	x->skill = skill;
	x->section = section;
	x->kind = kind;
	x->findings = cJSON_CreateArray();
	x->units = cJSON_CreateArray();
	return x;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->skill != y->skill)
		return x->skill < y->skill ? -1 : 1;
	return x->section != y->section ? x->section - y->section : x->kind - y->kind;
}

static void add_unit(cJSON *units, int u)
{
	for (const cJSON *x = units->child; x; x = x->next)
		if ((int)x->valuedouble == u)
			return;
	cJSON_AddItemToArray(units, cJSON_CreateNumber(u));
}

/* Every kept finding of every map, grouped and sorted (skill, document order, kind). */
static void collect(const struct reduce_input *in, struct groups *g, cJSON *maps_summary)
{
	static const char *const states[] = { "ok", "bad_answer", "no_unit" };
	for (size_t i = 0; i < ARRAY_LEN(states); i++)
		json_set_num(maps_summary, states[i], 0);
	json_set_num(maps_summary, "units", (double)in->nmaps);
	long dropped = 0;
	for (size_t m = 0; m < in->nmaps; m++) {
		const cJSON *doc = in->maps[m];
		const char *st = json_str(doc, "status");
		if (st)
			json_set_num(maps_summary, st, json_num(maps_summary, st, 0) + 1);
		dropped += cJSON_GetArraySize(json_get(doc, "dropped"));
		int unit = (int)json_num(doc, "unit", (double)(m + 1));
		const cJSON *fs = json_get(doc, "findings");
		for (const cJSON *f = cJSON_IsArray(fs) ? fs->child : NULL; f; f = f->next) {
			size_t sk;
			int s = pkgset_lookup(in->skill, json_str(f, "section"), &sk), k = map_kind_index(json_str(f, "kind"));
			if (s < 0 || k < 0)
				continue; /* validated by map against the same skill; a stale map has nothing to say */
			struct group *x = group_of(g, sk, s, k);
			cJSON *c = cJSON_CreateObject();
			json_set_str(c, "evidence", json_str(f, "evidence"));
			json_set_str(c, "suggestion", json_str(f, "suggestion"));
			json_set_num(c, "unit", unit);
			cJSON_AddItemToArray(x->findings, c);
			add_unit(x->units, unit);
			g->findings++;
		}
	}
	json_set_num(maps_summary, "findings", g->findings);
	json_set_num(maps_summary, "dropped", (double)dropped);
	if (g->n)
		qsort(g->v, g->n, sizeof *g->v, cmp_group);
}

static void groups_free(struct groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		cJSON_Delete(g->v[i].findings);
		cJSON_Delete(g->v[i].units);
	}
	free(g->v);
}

static const char system_text[] =
	"You turn findings about a skill (its SKILL.md) into a few local patches. Reply with one JSON object:\n"
	"{\"patches\": [{\"op\": \"add|update|delete\", \"section\": \"<section id>\",\n"
	"  \"find\": \"<for update/delete: one paragraph or list item of that section, copied exactly>\",\n"
	"  \"text\": \"<for add/update: the new Markdown text>\", \"why\": \"<the findings it answers>\"}]}\n"
	"add appends text at the end of the section's own text; update replaces the quoted block (or, without\n"
	"find, the section's own text) with text; delete removes the quoted block. Rules: one patch per\n"
	"problem, the best supported first; keep every code block, command, path, flag, number, placeholder\n"
	"and heading the skill has (a patch that loses one is rolled back); stay inside the section; compact\n"
	"beats comprehensive: the whole body must stay within the token budget given.\n";

static void group_text(struct buf *u, const struct pkgset *set, const struct group *x)
{
	char *id = pkgset_id(set, x->skill, x->section);
	buf_printf(u, "### [%s] %s (%d finding%s)\n", id, map_kinds[x->kind],
		   cJSON_GetArraySize(x->findings), cJSON_GetArraySize(x->findings) == 1 ? "" : "s");
	free(id);
	for (const cJSON *f = x->findings->child; f; f = f->next)
		buf_printf(u, "- evidence: %s\n  suggestion: %s\n", json_str(f, "evidence"), json_str(f, "suggestion"));
	buf_addc(u, '\n');
}

/* The bodies' sizes against the budget: one skill's, or each editable one's. */
static void budget_text(struct buf *u, const struct reduce_input *in, long body_tokens, int limit)
{
	if (in->skill->n == 1) {
		buf_printf(u, "At most %d patches. The body is about %ld tokens; the budget is %ld tokens.\n\n", limit,
			   body_tokens, in->budget_tokens);
		return;
	}
	buf_printf(u, "At most %d patches, each inside one skill. Each skill's body has a budget of %ld tokens; now:", limit,
		   in->budget_tokens);
	for (size_t k = 0, first = 1; k < in->skill->n; k++)
		if (in->skill->edit[k]) {
			buf_printf(u, "%s %s about %ld", first ? "" : ",", in->skill->v[k].name, body_measure(in->skill->v[k].doc).tokens);
			first = 0;
		}
	buf_adds(u, ".\n\n");
}

static char *user_text(const struct reduce_input *in, const struct groups *g, const size_t *which, size_t nwhich,
		       long body_tokens, int limit)
{
	struct buf u = BUF_INIT;
	budget_text(&u, in, body_tokens, limit);
	buf_adds(&u, "## Skill sections (id, heading, text)\n");
	pkgset_index_text(in->skill, 3000, &u);
	buf_adds(&u, "## Findings, by section and kind\n");
	for (size_t i = 0; i < nwhich; i++)
		group_text(&u, in->skill, &g->v[which[i]]);
	buf_adds(&u, "Reply with the JSON object.\n");
	return buf_detach(&u);
}

const char *patch_problem(const cJSON *p, const struct pkgset *set)
{
	const char *op = json_str(p, "op");
	if (!cJSON_IsObject(p) || !op)
		return "not a patch: it needs op and section";
	if (strcmp(op, "add") && strcmp(op, "update") && strcmp(op, "delete"))
		return "op is not add, update or delete";
	size_t k;
	if (pkgset_lookup(set, json_str(p, "section"), &k) < 0)
		return set->n > 1 ? "names no section of a skill of the set the stage may edit" : "names no section of the skill";
	const cJSON *find = json_get(p, "find"), *text = json_get(p, "text");
	if (find && !cJSON_IsString(find) && !cJSON_IsNull(find))
		return "find is not a string";
	if (strcmp(op, "delete") && (!cJSON_IsString(text) || !*text->valuestring))
		return "add and update need text";
	return NULL;
}

/* The support of a section: findings about it in every group. */
static int support_of(const struct groups *g, size_t skill, int section)
{
	int n = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].skill == skill && g->v[i].section == section)
			n += cJSON_GetArraySize(g->v[i].findings);
	return n;
}

struct cand {
	cJSON *patch;   /* borrowed from the answers */
	int support, order;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	return x->support != y->support ? y->support - x->support : x->order - y->order;
}

static void drop(cJSON *dropped, const cJSON *p, const char *why, cJSON *counts, const char *counter)
{
	cJSON *x = cJSON_CreateObject();
	json_set(x, "patch", cJSON_Duplicate(p, true));
	json_set_str(x, "why", why);
	cJSON_AddItemToArray(dropped, x);
	json_set_num(counts, counter, json_num(counts, counter, 0) + 1);
}

/* Validates, ranks and bounds the answers' patches into patches.json. */
static cJSON *select_patches(const struct reduce_input *in, const struct groups *g, cJSON *answers, cJSON *counts)
{
	struct cand *v = NULL;
	size_t n = 0;
	cJSON *out = cJSON_CreateObject();
	json_set_num(out, "format", REDUCE_FORMAT);
	json_set_num(out, "max_patches", in->max_patches);
	cJSON *kept = json_set(out, "patches", cJSON_CreateArray()), *dropped = json_set(out, "dropped", cJSON_CreateArray());
	static const char *const counters[] = { "answered", "invalid", "duplicate", "over_limit", "kept" };
	for (size_t i = 0; i < ARRAY_LEN(counters); i++)
		json_set_num(counts, counters[i], 0);
	int order = 0;
	for (cJSON *a = answers->child; a; a = a->next)
		for (cJSON *p = json_get(a, "patches") ? json_get(a, "patches")->child : NULL; p; p = p->next, order++) {
			json_set_num(counts, "answered", json_num(counts, "answered", 0) + 1);
			const char *why = patch_problem(p, in->skill);
			bool dup = false;
			for (size_t k = 0; !why && k < n && !dup; k++)
				dup = cJSON_Compare(v[k].patch, p, true);
			if (why) {
				drop(dropped, p, why, counts, "invalid");
			} else if (dup) {
				drop(dropped, p, "the same patch again", counts, "duplicate");
			} else {
				v = xrealloc(v, (n + 1) * sizeof *v);
				size_t sk;
				int sec = pkgset_lookup(in->skill, json_str(p, "section"), &sk);
				v[n++] = (struct cand){ p, support_of(g, sk, sec), order };
			}
		}
	if (n)
		qsort(v, n, sizeof *v, cmp_cand);
	for (size_t i = 0; i < n; i++) {
		if ((int)i >= in->max_patches) {
			drop(dropped, v[i].patch, "more patches than FAST_MAX_PATCHES", counts, "over_limit");
			continue;
		}
		const cJSON *p = v[i].patch;
		cJSON *k = cJSON_CreateObject();
		json_set_num(k, "n", (double)(i + 1));
		json_set_str(k, "op", json_str(p, "op"));
		size_t sk;
		int sec = pkgset_lookup(in->skill, json_str(p, "section"), &sk);
		char *id = pkgset_id(in->skill, sk, sec);
		json_set_str(k, "section", id);
		free(id);
		json_set_str(k, "find", json_str(p, "find"));
		json_set_str(k, "text", json_str(p, "text"));
		json_set_str(k, "why", json_str(p, "why"));
		json_set_num(k, "support", v[i].support);
		cJSON_AddItemToArray(kept, k);
		json_set_num(counts, "kept", json_num(counts, "kept", 0) + 1);
	}
	free(v);
	return out;
}

/* One merge question over the groups `which`; its answer (or an empty one
 * when unusable) goes to answers and a record to calls. */
static int merge(struct llm_client *c, const struct reduce_input *in, const struct groups *g, const size_t *which,
		 size_t nwhich, long body_tokens, cJSON *answers, cJSON *calls, struct err *e)
{
	char *user = user_text(in, g, which, nwhich, body_tokens, in->max_patches);
	char *label = xasprintf("fast-reduce %zu", (size_t)cJSON_GetArraySize(calls) + 1);
	static const char *const keys[] = { "patches", NULL };
	struct ask q = { in->model, REDUCE_TEMPLATE, label, system_text, user, keys,
			 ask_check_list, "patches" };
	struct ask_answer a;
	int rc = ask_json(c, &q, &a, e);
	if (rc == 0) {
		cJSON *call = cJSON_CreateObject();
		cJSON *gl = json_set(call, "groups", cJSON_CreateArray());
		for (size_t i = 0; i < nwhich; i++)
			cJSON_AddItemToArray(gl, cJSON_CreateNumber((double)which[i]));
		json_set_str(call, "cache_key", a.key);
		json_set_str(call, "status", a.unusable ? "bad_answer" : "ok");
		if (a.unusable)
			json_set_str(call, "error", a.why);
		json_set_num(call, "answered", cJSON_GetArraySize(json_get(a.json, "patches")));
		cJSON_AddItemToArray(calls, call);
		cJSON_AddItemToArray(answers, a.json ? a.json : cJSON_CreateObject());
		a.json = NULL;
	}
	ask_answer_free(&a);
	free(label);
	free(user);
	return rc;
}

static cJSON *groups_json(const struct pkgset *set, const struct groups *g)
{
	cJSON *list = cJSON_CreateArray();
	for (size_t i = 0; i < g->n; i++) {
		cJSON *x = cJSON_CreateObject();
		char *id = pkgset_id(set, g->v[i].skill, g->v[i].section);
		json_set_str(x, "section", id);
		free(id);
		json_set_str(x, "kind", map_kinds[g->v[i].kind]);
		json_set_num(x, "findings", cJSON_GetArraySize(g->v[i].findings));
		json_set(x, "units", cJSON_Duplicate(g->v[i].units, true));
		cJSON_AddItemToArray(list, x);
	}
	return list;
}

int reduce_run(struct llm_client *c, const struct reduce_input *in, cJSON **reduce, cJSON **patches, struct err *e)
{
	*reduce = *patches = NULL;
	long body_tokens = 0; /* the set's bodies, summed */
	for (size_t k = 0; k < in->skill->n; k++)
		body_tokens += body_measure(in->skill->v[k].doc).tokens;
	struct groups g = { 0 };
	cJSON *r = cJSON_CreateObject();
	json_set_num(r, "format", REDUCE_FORMAT);
	json_set_str(r, "model", in->model);
	json_set_str(r, "template", REDUCE_TEMPLATE);
	json_set_num(r, "max_patches", in->max_patches);
	json_set_num(r, "budget_tokens", (double)in->budget_tokens);
	json_set_num(r, "body_tokens", (double)body_tokens);
	collect(in, &g, json_set(r, "maps", cJSON_CreateObject()));
	json_set(r, "groups", groups_json(in->skill, &g));
	cJSON *calls = json_set(r, "calls", cJSON_CreateArray());
	cJSON *answers = cJSON_CreateArray();
	int rc = 0;
	size_t *which = xcalloc(g.n ? g.n : 1, sizeof *which);
	if (g.findings && in->max_patches > 0 && g.findings <= REDUCE_ONE_CALL) {
		for (size_t i = 0; i < g.n; i++)
			which[i] = i;
		rc = merge(c, in, &g, which, g.n, body_tokens, answers, calls, e);
	} else if (g.findings && in->max_patches > 0) {
		for (size_t i = 0; rc == 0 && i < g.n; i++) {
			which[0] = i;
			rc = merge(c, in, &g, which, 1, body_tokens, answers, calls, e);
		}
	}
	if (!g.findings)
		json_set_str(r, "note", "no finding survived the map step: no patch to ask for");
	else if (in->max_patches <= 0)
		json_set_str(r, "note", "FAST_MAX_PATCHES=0: no patch asked for");
	if (rc == 0) {
		*patches = select_patches(in, &g, answers, json_set(r, "counts", cJSON_CreateObject()));
		*reduce = r;
		r = NULL;
	}
	free(which);
	cJSON_Delete(answers);
	cJSON_Delete(r);
	groups_free(&g);
	return rc;
}
