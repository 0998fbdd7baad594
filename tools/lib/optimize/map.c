#include "optimize/map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "optimize/ask.h"
#include "optimize/skillpkg.h"

const char *const map_kinds[] = { "missing", "wrong", "unclear", "unused", "too_long", NULL };

int map_kind_index(const char *kind)
{
	for (int i = 0; kind && map_kinds[i]; i++)
		if (!strcmp(kind, map_kinds[i]))
			return i;
	return -1;
}

static const char system_text[] =
	"You review how an AI agent used a skill (the instructions in its SKILL.md) on one task, to find what in\n"
	"the skill should change so the agent does better. Reply with one JSON object and nothing else:\n"
	"{\"findings\": [{\"section\": \"<a section id from the index>\", \"kind\": \"missing|wrong|unclear|unused|too_long\",\n"
	"  \"evidence\": \"<text copied exactly from a trace or its verifier output>\", \"suggestion\": \"<the change to make in that section>\"}]}\n"
	"Kinds: missing = the skill lacks what the agent needed; wrong = it says something false for this task;\n"
	"unclear = the agent misread or could not follow it; unused = it applied but the agent never used it;\n"
	"too_long = it cost tokens and time without helping.\n"
	"Rules: name only section ids listed in the index (root is the text before the first heading); the\n"
	"evidence must be copied word for word from the traces or verifier output shown (tool calls, errors,\n"
	"failing tests), never from the skill; at most 8 findings, the most important first; compact, concrete\n"
	"suggestions (commands, paths, checks) beat long ones; no findings when nothing in the skill is to blame.\n";

static const char *analysis_of(const char *kind)
{
	if (!strcmp(kind, "contrast"))
		return "Contrast: trace A passed and trace B did not. Find what in the skill made the difference or would\n"
		       "have prevented B's failure.";
	if (!strcmp(kind, "efficiency"))
		return "Efficiency: every trace of this skill passed (no failure to learn from). Compare how much each\n"
		       "spent (tokens, time, steps): find what in the skill made the agent waste effort, or what it\n"
		       "could state so the agent finishes sooner.";
	return "Failure: no trace of this skill passed. Find what the skill is missing or gets wrong that made the\n"
	       "agent fail, using the failing tests and errors.";
}

static void trace_head(struct buf *out, const char *label, const struct trace *t, const struct trace_facts *f,
		       const struct pkgset *set)
{
	const cJSON *rw = json_get(t->trial, "reward");
	buf_printf(out, "## Trace %s: %s, %s", label, t->name, json_str(t->trial, "outcome") ? json_str(t->trial, "outcome") : "?");
	if (cJSON_IsNumber(rw))
		buf_printf(out, ", reward %g", rw->valuedouble);
	if (f->tokens >= 0)
		buf_printf(out, ", %.0f tokens", f->tokens);
	if (f->seconds >= 0)
		buf_printf(out, ", %.1f s", f->seconds);
	buf_printf(out, ", %ld tool calls (%ld failed, %ld repeated), ", f->steps, f->failed_calls, f->repeats);
	if (set->n > 1) { /* which skill of the set it used, so the used ones are looked at first */
		struct strlist names = STRLIST_INIT;
		pkgset_names(set, &names);
		trace_skills_text(t, &names, out);
		buf_addc(out, '\n');
		strlist_free(&names);
	} else {
		buf_printf(out, "skill %s\n", f->skill_invoked ? "invoked" : f->skill_read ? "read" : "not used");
	}
	if (f->refs_read.n) {
		buf_adds(out, "References read:");
		for (size_t i = 0; i < f->refs_read.n; i++)
			buf_printf(out, " %s", f->refs_read.v[i]);
		buf_addc(out, '\n');
	}
}

static void trace_body(struct buf *out, struct buf *seen, const struct trace_facts *f)
{
	struct buf v = BUF_INIT;
	trace_verifier_text(f->verifier, &v);
	buf_adds(out, "Trajectory:\n");
	buf_adds(out, f->text.data);
	buf_adds(out, v.data);
	buf_addc(out, '\n');
	buf_adds(seen, f->text.data);
	buf_addc(seen, '\n');
	buf_adds(seen, v.data);
	buf_addc(seen, '\n');
	buf_free(&v);
}

/* The two messages of the unit's question and the squashed text of the
 * traces they show (what quotes are checked against). Callers free all three. */
static void map_prompt(const struct map_input *in, const struct trace_facts *better,
		       const struct trace_facts *worse, char **system, char **user, char **seen)
{
	struct buf u = BUF_INIT, s = BUF_INIT;
	const char *kind = json_str(in->unit, "kind") ? json_str(in->unit, "kind") : "failure";
	/* what every map call of the stage shares comes first (the skill, then
	 * the task), what differs last (the kind of analysis, the traces), so a
	 * provider's prompt cache serves the longest prefix */
	buf_adds(&u, "## Skill sections (id, heading, text)\n");
	pkgset_index_text(in->skill, 1500, &u);
	const char *a = in->instruction && *in->instruction ? in->instruction : "(not given)";
	const char *b = in->worse_instruction;
	if (worse && b) /* the traces ran in two tasks (pooled): each its own */
		buf_printf(&u, "\n## Task instruction of trace A\n%s\n\n"
			   "## Task instruction of trace B\n%s\n\n%s\n\n",
			   a, *b ? b : "(not given)", analysis_of(kind));
	else
		buf_printf(&u, "\n## Task instruction\n%s\n\n%s\n\n", a, analysis_of(kind));
	trace_head(&u, worse ? "A (better)" : "A", in->better, better, in->skill);
	trace_body(&u, &s, better);
	if (worse) {
		trace_head(&u, "B (worse)", in->worse, worse, in->skill);
		trace_body(&u, &s, worse);
	}
	buf_adds(&u, "Reply with the JSON object.\n");
	struct buf sq = BUF_INIT;
	text_squash(s.data, s.len, &sq);
	*system = xstrdup(system_text);
	*user = buf_detach(&u);
	*seen = buf_detach(&sq);
	buf_free(&s);
}

static void drop(cJSON *dropped, const cJSON *f, const char *why, cJSON *counts, const char *counter)
{
	cJSON *x = cJSON_CreateObject();
	json_set(x, "finding", cJSON_Duplicate(f, true));
	json_set_str(x, "why", why);
	cJSON_AddItemToArray(dropped, x);
	json_set_num(counts, counter, json_num(counts, counter, 0) + 1);
}

void map_validate(const cJSON *answer, const struct pkgset *set, const char *seen, cJSON *out)
{
	cJSON *kept = json_set(out, "findings", cJSON_CreateArray());
	cJSON *dropped = json_set(out, "dropped", cJSON_CreateArray());
	cJSON *counts = json_set(out, "counts", cJSON_CreateObject());
	static const char *const counters[] = { "answered", "kept", "no_section", "no_quote", "bad_kind", "bad_shape", "over_limit" };
	for (size_t i = 0; i < ARRAY_LEN(counters); i++)
		json_set_num(counts, counters[i], 0);
	const cJSON *list = json_get(answer, "findings");
	for (const cJSON *f = cJSON_IsArray(list) ? list->child : NULL; f; f = f->next) {
		json_set_num(counts, "answered", json_num(counts, "answered", 0) + 1);
		const char *sec = json_str(f, "section"), *kind = json_str(f, "kind"), *ev = json_str(f, "evidence"),
			   *sug = json_str(f, "suggestion");
		size_t k;
		int s = pkgset_lookup(set, sec, &k);
		if (!cJSON_IsObject(f) || !sec || !ev || !sug)
			drop(dropped, f, "not a finding: it needs section, kind, evidence and suggestion strings", counts, "bad_shape");
		else if (s < 0)
			drop(dropped, f, set->n > 1 ? "names no section of a skill of the set the stage may edit" : "names no section of the skill",
			     counts, "no_section");
		else if (map_kind_index(kind) < 0)
			drop(dropped, f, "kind is not missing, wrong, unclear, unused or too_long", counts, "bad_kind");
		else if (!text_quotes(seen, ev))
			drop(dropped, f, "its evidence quotes nothing from the traces", counts, "no_quote");
		else if (cJSON_GetArraySize(kept) >= MAP_MAX_FINDINGS)
			drop(dropped, f, "more than 8 findings", counts, "over_limit");
		else {
			cJSON *kx = cJSON_CreateObject();
			char *id = pkgset_id(set, k, s); /* "a/b" -> "a/b#1" */
			json_set_str(kx, "section", id);
			free(id);
			json_set_str(kx, "kind", kind);
			json_set_str(kx, "evidence", ev);
			json_set_str(kx, "suggestion", sug);
			cJSON_AddItemToArray(kept, kx);
			json_set_num(counts, "kept", json_num(counts, "kept", 0) + 1);
		}
	}
}

static cJSON *map_doc(const struct map_input *in)
{
	cJSON *m = cJSON_CreateObject();
	json_set_num(m, "format", MAP_FORMAT);
	json_set_num(m, "unit", in->number);
	json_set_str(m, "kind", json_str(in->unit, "kind"));
	json_set_str(m, "better", in->better ? in->better->name : NULL);
	json_set_str(m, "worse", in->worse ? in->worse->name : NULL);
	json_set_str(m, "model", in->model);
	json_set_str(m, "template", MAP_TEMPLATE);
	return m;
}

cJSON *map_run(struct llm_client *c, const struct map_input *in, struct err *e)
{
	cJSON *m = map_doc(in);
	if (!in->unit || !in->better) {
		json_set_str(m, "status", "no_unit");
		json_set_str(m, "note", "groups.json has no such unit (fewer traces than FAST_TOP/FAST_BOTTOM): nothing to ask");
		json_set(m, "findings", cJSON_CreateArray());
		return m;
	}
	struct strlist pointed = STRLIST_INIT;
	pkgset_pointed_refs(in->skill, &pointed);
	struct trace_facts fb, fw;
	trace_facts_read(in->better, &pointed, &fb);
	if (in->worse)
		trace_facts_read(in->worse, &pointed, &fw);
	char *system, *user, *seen;
	map_prompt(in, &fb, in->worse ? &fw : NULL, &system, &user, &seen);
	char *label = xasprintf("fast-map %03d", in->number);
	static const char *const keys[] = { "findings", NULL };
	struct ask q = { in->model, MAP_TEMPLATE, label, system, user, keys, ask_check_list,
			 "findings" };
	struct ask_answer a;
	int rc = ask_json(c, &q, &a, e);
	if (rc == 0) {
		json_set_str(m, "cache_key", a.key);
		if (a.unusable) {
			json_set_str(m, "status", "bad_answer");
			json_set_str(m, "error", a.why);
			map_validate(NULL, in->skill, seen, m);
		} else {
			json_set_str(m, "status", "ok");
			map_validate(a.json, in->skill, seen, m);
		}
	}
	ask_answer_free(&a);
	free(label);
	free(system);
	free(user);
	free(seen);
	trace_facts_free(&fb);
	if (in->worse)
		trace_facts_free(&fw);
	strlist_free(&pointed);
	if (rc < 0) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}
