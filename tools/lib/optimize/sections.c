#include "optimize/sections.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "optimize/ask.h"
#include "optimize/skillpkg.h"

const char *const section_dimensions[] = { "relevance", "correctness", "actionability", "economy", "findability", NULL };

static void push_unit(struct unit **v, size_t *n, char *id, int section, int block, size_t off, size_t len)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = (struct unit){ id, 0, section, block, off, len };
}

static bool prose_block(enum sd_block_kind k)
{
	return k == SD_PARAGRAPH || k == SD_LIST_ITEM || k == SD_TABLE || k == SD_QUOTE;
}

/* The units of a document in order; free with units_free. */
static size_t units_of(const struct skilldoc *d, struct unit **out)
{
	struct unit *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < d->nsections; i++) {
		const struct sd_section *s = &d->sections[i];
		size_t from, to;
		section_own_text(d, i, &from, &to);
		if (from == to)
			continue;
		const char *id = section_public_id(d, (int)i);
		if (to - from <= SECTIONS_LONG) {
			push_unit(&v, &n, xstrdup(id), (int)i, -1, from, to - from);
			continue;
		}
		int k = 0;
		for (size_t b = 0; b < d->nblocks; b++) {
			const struct sd_block *bl = &d->blocks[b];
			if (bl->off >= s->content_off && bl->off < s->own_end && prose_block(bl->kind))
				push_unit(&v, &n, xasprintf("%s/p%d", id, ++k), (int)i, (int)b, bl->off, bl->len);
		}
	}
	*out = v;
	return n;
}

size_t units_of_set(const struct pkgset *p, struct unit **out)
{
	struct unit *v = NULL;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++) {
		if (!p->edit[k])
			continue;
		struct unit *one;
		size_t m = units_of(p->v[k].doc, &one);
		v = xrealloc(v, (n + m + 1) * sizeof *v);
		for (size_t i = 0; i < m; i++) {
			v[n] = one[i];
			v[n].skill = k;
			if (p->n > 1) {
				v[n].id = xasprintf("%s:%s", p->v[k].name, one[i].id);
				free(one[i].id);
			}
			n++;
		}
		free(one);
	}
	*out = v;
	return n;
}

void units_free(struct unit *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].id);
	free(v);
}

static int cmp_trace(const void *a, const void *b)
{
	const struct trace *x = *(const struct trace *const *)a, *y = *(const struct trace *const *)b;
	bool px = json_bool(x->trial, "passed", false), py = json_bool(y->trial, "passed", false);
	return px != py ? (int)px - (int)py : x->index - y->index;
}

char *deep_traces_text(const struct trace_set *ts, const struct pkgset *set, char **seen)
{
	const struct trace **v = xcalloc(ts->n ? ts->n : 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < ts->n; i++)
		if (ts->v[i].scorable)
			v[n++] = &ts->v[i];
	qsort(v, n, sizeof *v, cmp_trace);
	struct buf t = BUF_INIT, s = BUF_INIT;
	struct strlist names = STRLIST_INIT;
	pkgset_names(set, &names);
	for (size_t i = 0; i < n && i < SECTIONS_TRACES; i++) {
		struct trace_facts f;
		trace_facts_read(v[i], NULL, &f);
		struct buf ver = BUF_INIT;
		trace_verifier_text(f.verifier, &ver);
		buf_printf(&t, "## Trace %s: %s, %ld tool calls (%ld failed, %ld repeated), ", v[i]->name,
			   json_str(v[i]->trial, "outcome"), f.steps, f.failed_calls, f.repeats);
		if (set->n > 1) /* which skill of the set it used: the used ones matter first */
			trace_skills_text(v[i], &names, &t);
		else
			buf_printf(&t, "skill %s", f.skill_invoked ? "invoked" : f.skill_read ? "read" : "not used");
		buf_addc(&t, '\n');
		buf_printf(&t, "%s%s\n", f.text.data, ver.data);
		buf_printf(&s, "%s\n%s\n", f.text.data, ver.data);
		buf_free(&ver);
		trace_facts_free(&f);
	}
	if (!n)
		buf_adds(&t, "(no scored trace)\n");
	struct buf sq = BUF_INIT;
	text_squash(s.data, s.len, &sq);
	*seen = buf_detach(&sq);
	buf_free(&s);
	strlist_free(&names);
	free(v);
	return buf_detach(&t);
}

static const char system_text[] =
	"You score parts (units) of a skill (its SKILL.md) by how they served an AI agent on one task, judged\n"
	"from the agent's traces. Reply with one JSON object and nothing else:\n"
	"{\"scores\": [{\"unit\": \"<unit id>\", \"relevance\": {\"score\": 1, \"evidence\": \"<quote>\"},\n"
	"  \"correctness\": {...}, \"actionability\": {...}, \"economy\": {...}, \"findability\": {...}}]}\n"
	"Scores are whole numbers, 1 worst to 5 best:\n"
	"- relevance: how much of the unit the task needed;\n"
	"- correctness: whether it was right, judged by what the agent and the verifier saw;\n"
	"- actionability: concrete commands, paths and checks the agent could run;\n"
	"- economy: its tokens against how much it was used;\n"
	"- findability: whether the agent found and used it when it mattered.\n"
	"Every evidence is text copied word for word from the traces or the verifier output below (tool calls,\n"
	"errors, failing tests), never from the skill. Score every unit listed.\n";

static char *batch_user(const struct score_input *in, const struct unit *u, size_t n, const char *traces)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "## Task instruction\n%s\n\n## Units to score (id, section, text)\n",
		   in->instruction && *in->instruction ? in->instruction : "(not given)");
	for (size_t i = 0; i < n; i++) {
		const struct skilldoc *d = in->skill->v[u[i].skill].doc;
		const struct sd_section *s = &d->sections[u[i].section];
		size_t len = u[i].len > 1500 ? 1500 : u[i].len;
		while (len > 0 && len < u[i].len && ((unsigned char)d->src[u[i].off + len] & 0xC0) == 0x80)
			len--;
		buf_printf(&b, "[%s] in \"%.*s\"\n%.*s%s\n\n", u[i].id, s->heading >= 0 ? (int)d->blocks[s->heading].text.len : 4,
			   s->heading >= 0 ? d->src + d->blocks[s->heading].text.off : "root", (int)len, d->src + u[i].off,
			   len < u[i].len ? "\n..." : "");
	}
	buf_adds(&b, traces);
	buf_adds(&b, "Reply with the JSON object.\n");
	return buf_detach(&b);
}

static const struct unit *unit_named(const struct unit *u, size_t n, const char *id)
{
	for (size_t i = 0; id && i < n; i++)
		if (!strcmp(u[i].id, id))
			return &u[i];
	return NULL;
}

/* Validates one batch's answer into units (kept) and dropped. */
static void validate(const cJSON *answer, const struct unit *u, size_t n, const char *seen, cJSON *kept,
		     cJSON *dropped, cJSON *counts)
{
	const cJSON *list = json_get(answer, "scores");
	for (const cJSON *x = cJSON_IsArray(list) ? list->child : NULL; x; x = x->next) {
		json_set_num(counts, "answered", json_num(counts, "answered", 0) + 1);
		const struct unit *un = unit_named(u, n, json_str(x, "unit"));
		const char *why = NULL;
		cJSON *dims = cJSON_CreateObject();
		int counted = 0;
		double sum = 0;
		for (int k = 0; un && section_dimensions[k]; k++) {
			const cJSON *dim = json_get(x, section_dimensions[k]);
			const cJSON *sc = json_get(dim, "score");
			const char *ev = json_str(dim, "evidence");
			bool ok_score = cJSON_IsNumber(sc) && sc->valuedouble >= 1 && sc->valuedouble <= 5 &&
					sc->valuedouble == floor(sc->valuedouble);
			bool quoted = ev && text_quotes(seen, ev);
			cJSON *o = json_set(dims, section_dimensions[k], cJSON_CreateObject());
			json_set(o, "score", ok_score ? cJSON_CreateNumber(sc->valuedouble) : cJSON_CreateNull());
			json_set_str(o, "evidence", ev);
			json_set_bool(o, "quoted", quoted);
			if (ok_score && quoted) {
				counted++;
				sum += sc->valuedouble;
			}
		}
		if (!un)
			why = "names no unit of the batch";
		else if (!counted)
			why = "quotes nothing from the traces (or no score from 1 to 5)";
		if (why) {
			cJSON *d = cJSON_CreateObject();
			json_set(d, "entry", cJSON_Duplicate(x, true));
			json_set_str(d, "why", why);
			cJSON_AddItemToArray(dropped, d);
			json_set_num(counts, un ? "no_quote" : "no_unit", json_num(counts, un ? "no_quote" : "no_unit", 0) + 1);
			cJSON_Delete(dims);
			continue;
		}
		cJSON *k = cJSON_CreateObject();
		json_set_str(k, "unit", un->id);
		json_set_num(k, "score", round(sum / counted * 100) / 100);
		json_set_num(k, "dimensions_counted", counted);
		json_set(k, "dims", dims);
		cJSON_AddItemToArray(kept, k);
	}
}

static cJSON *unit_json(const struct pkgset *p, const struct unit *u)
{
	cJSON *j = cJSON_CreateObject();
	json_set_str(j, "unit", u->id);
	char *id = pkgset_id(p, u->skill, u->section);
	json_set_str(j, "section", id);
	free(id);
	if (p->n > 1)
		json_set_str(j, "skill", p->v[u->skill].name);
	json_set(j, "paragraph", u->block >= 0 ? cJSON_CreateNumber(atoi(strrchr(u->id, 'p') + 1)) : cJSON_CreateNull());
	json_set_num(j, "bytes", (double)u->len);
	return j;
}

/* The last kept entry for a unit wins (a model that answers twice). */
static const cJSON *kept_for(const cJSON *kept, const char *id)
{
	const cJSON *hit = NULL;
	for (const cJSON *k = kept->child; k; k = k->next)
		if (!strcmp(json_str(k, "unit"), id))
			hit = k;
	return hit;
}

cJSON *sections_score(struct llm_client *c, const struct score_input *in, struct err *e)
{
	struct unit *u;
	size_t n = units_of_set(in->skill, &u);
	char *seen;
	char *traces = deep_traces_text(in->traces, in->skill, &seen);
	cJSON *doc = cJSON_CreateObject(), *kept = cJSON_CreateArray();
	json_set_num(doc, "format", 1);
	json_set_num(doc, "round", in->round);
	json_set_str(doc, "model", in->model);
	json_set_str(doc, "template", SECTIONS_TEMPLATE);
	cJSON *dl = json_set(doc, "dimensions", cJSON_CreateArray());
	for (int k = 0; section_dimensions[k]; k++)
		cJSON_AddItemToArray(dl, cJSON_CreateString(section_dimensions[k]));
	cJSON *calls = json_set(doc, "calls", cJSON_CreateArray());
	cJSON *dropped = cJSON_CreateArray(), *counts = cJSON_CreateObject();
	static const char *const counters[] = { "answered", "no_unit", "no_quote" };
	for (size_t i = 0; i < ARRAY_LEN(counters); i++)
		json_set_num(counts, counters[i], 0);
	int rc = 0;
	for (size_t from = 0; rc == 0 && from < n; from += SECTIONS_BATCH) {
		size_t m = n - from < SECTIONS_BATCH ? n - from : SECTIONS_BATCH;
		char *user = batch_user(in, u + from, m, traces);
		char *label = xasprintf("deep-%d-score batch %zu", in->round, from / SECTIONS_BATCH + 1);
		static const char *const keys[] = { "scores", NULL };
		struct ask q = { in->model, SECTIONS_TEMPLATE, label, system_text, user, keys,
				 ask_check_list, "scores" };
		struct ask_answer a;
		rc = ask_json(c, &q, &a, e);
		if (rc == 0) {
			cJSON *call = cJSON_CreateObject();
			json_set_str(call, "first", u[from].id);
			json_set_num(call, "units", (double)m);
			json_set_str(call, "cache_key", a.key);
			json_set_str(call, "status", a.unusable ? "bad_answer" : "ok");
			if (a.unusable)
				json_set_str(call, "error", a.why);
			cJSON_AddItemToArray(calls, call);
			validate(a.json, u + from, m, seen, kept, dropped, counts);
		}
		ask_answer_free(&a);
		free(label);
		free(user);
	}
	cJSON *units = json_set(doc, "units", cJSON_CreateArray()), *unscored = json_set(doc, "unscored", cJSON_CreateArray());
	for (size_t i = 0; i < n; i++) {
		const cJSON *k = kept_for(kept, u[i].id);
		cJSON *j = unit_json(in->skill, &u[i]);
		if (k) {
			json_set_num(j, "score", json_num(k, "score", 0));
			json_set_num(j, "dimensions_counted", json_num(k, "dimensions_counted", 0));
			json_set(j, "dims", cJSON_Duplicate(json_get(k, "dims"), true));
			cJSON_AddItemToArray(units, j);
		} else {
			cJSON_AddItemToArray(unscored, j);
		}
	}
	json_set(doc, "dropped", dropped);
	json_set(doc, "counts", counts);
	cJSON_Delete(kept);
	free(traces);
	free(seen);
	units_free(u, n);
	if (rc < 0) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}
