#include "optimize/score.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "optimize/agentrm.h"
#include "optimize/skillpkg.h"

/* One trace being scored. */
struct scored {
	const struct trace *t;
	struct trace_facts f;
	int cls;          /* 0 passed, 1 failed, 2 timeout */
	double credit;
	bool has_rm;
	double rm;
	double pre;
	cJSON *rec;       /* its record in scores.json (owned until added) */
};

static const char *const class_names[] = { "passed", "failed", "timeout" };

static double round2(double x)
{
	return round(x * 100) / 100;
}

static int class_of(const cJSON *trial)
{
	if (json_bool(trial, "passed", false))
		return 0;
	const char *o = json_str(trial, "outcome");
	return o && !strcmp(o, "timeout") ? 2 : 1;
}

/* The median of the known (>= 0) values; -1 when none. */
static double median(const double *v, size_t n)
{
	double *k = xcalloc(n ? n : 1, sizeof *k);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0)
			k[m++] = v[i];
	qsort(k, m, sizeof *k, cmp_double);
	double r = !m ? -1 : m % 2 ? k[m / 2] : (k[m / 2 - 1] + k[m / 2]) / 2;
	free(k);
	return r;
}

struct medians {
	double tokens, seconds, steps;
};

static cJSON *ratio_part(double value, double med, double *points)
{
	cJSON *p = cJSON_CreateObject();
	json_set(p, "value", value >= 0 ? cJSON_CreateNumber(round2(value)) : cJSON_CreateNull());
	json_set(p, "median", med >= 0 ? cJSON_CreateNumber(round2(med)) : cJSON_CreateNull());
	double pts = 0;
	if (value >= 0 && med > 0) {
		double ratio = value / med;
		json_set_num(p, "ratio", round2(ratio));
		pts = -fmin(20, fmax(0, 10 * (ratio - 1)));
	}
	json_set_num(p, "points", round2(pts));
	*points += pts;
	return p;
}

/* The pre-score of one trace and its parts (see score.h). */
static cJSON *prescore(const struct trace_facts *f, const struct strlist *pointed, const struct medians *m,
		       bool injected, const struct strlist *set, const struct trace *t, double *score)
{
	cJSON *parts = cJSON_CreateObject();
	double s = 100;
	cJSON *p = json_set(parts, "failed_calls", cJSON_CreateObject());
	double pts = -fmin(40, 8.0 * (double)f->failed_calls);
	json_set_num(p, "count", (double)f->failed_calls);
	json_set_num(p, "points", pts);
	s += pts;
	p = json_set(parts, "repeats", cJSON_CreateObject());
	pts = -fmin(25, 5.0 * (double)f->repeats);
	json_set_num(p, "count", (double)f->repeats);
	json_set_num(p, "points", pts);
	s += pts;
	p = json_set(parts, "skill", cJSON_CreateObject());
	json_set_bool(p, "invoked", f->skill_invoked);
	json_set_bool(p, "read", f->skill_read);
	pts = injected && !f->skill_invoked && !f->skill_read ? -20 : 0;
	json_set_num(p, "points", pts);
	if (set->n > 1) { /* a set: how each of its skills was used */
		cJSON *each = json_set(p, "skills", cJSON_CreateObject());
		for (size_t i = 0; i < set->n; i++)
			json_set_str(each, set->v[i], trace_skill_use(t, set->v[i]));
	}
	s += pts;
	p = json_set(parts, "references", cJSON_CreateObject());
	cJSON *pl = json_set(p, "pointed", cJSON_CreateArray()), *rl = json_set(p, "read", cJSON_CreateArray());
	for (size_t i = 0; i < pointed->n; i++)
		cJSON_AddItemToArray(pl, cJSON_CreateString(pointed->v[i]));
	for (size_t i = 0; i < f->refs_read.n; i++)
		cJSON_AddItemToArray(rl, cJSON_CreateString(f->refs_read.v[i]));
	pts = f->refs_read.n ? 5 : 0;
	json_set_num(p, "points", pts);
	s += pts;
	double eff = 0;
	json_set(parts, "tokens", ratio_part(f->tokens, m->tokens, &eff));
	json_set(parts, "seconds", ratio_part(f->seconds, m->seconds, &eff));
	json_set(parts, "steps", ratio_part((double)f->steps, m->steps, &eff));
	s += eff;
	*score = round2(fmin(100, fmax(0, s)));
	cJSON *out = cJSON_CreateObject();
	json_set_num(out, "score", *score);
	json_set(out, "parts", parts);
	return out;
}

/* Partial credit: tests passed / total when the verifier counted tests,
 * else the reward (0 when unscored). */
static cJSON *credit_of(const struct trace_facts *f, const cJSON *trial, double *credit)
{
	cJSON *c = cJSON_CreateObject();
	const cJSON *v = f->verifier;
	double total = json_num(v, "tests_total", 0);
	if (total > 0) {
		*credit = json_num(v, "tests_passed", 0) / total;
		json_set_str(c, "source", "tests");
		json_set_num(c, "tests_passed", json_num(v, "tests_passed", 0));
		json_set_num(c, "tests_total", total);
	} else {
		*credit = json_num(trial, "reward", 0);
		json_set_str(c, "source", "reward");
	}
	*credit = fmin(1, fmax(0, *credit));
	json_set_num(c, "value", round(*credit * 10000) / 10000);
	return c;
}

static int cmp_scored(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls - y->cls;
	if (x->credit != y->credit)
		return x->credit > y->credit ? -1 : 1;
	if (x->has_rm && y->has_rm && x->rm != y->rm)
		return x->rm > y->rm ? -1 : 1;
	if (x->pre != y->pre)
		return x->pre > y->pre ? -1 : 1;
	return x->t->index - y->t->index;
}

/* AgentRM's score of s, given its task's instruction, else its first prompt. */
static int score_rm(struct agentrm *rm, struct scored *s, struct err *e)
{
	char *label = xasprintf("agentrm %s", s->t->name);
	const char *instruction = s->t->instruction ? s->t->instruction : s->f.prompt;
	struct agentrm_score as;
	int rc = agentrm_score(rm, label, instruction, s->f.text.data, &as, e);
	free(label);
	if (rc < 0)
		return -1;
	s->has_rm = true;
	s->rm = as.score;
	cJSON *a = json_set(s->rec, "agentrm", cJSON_CreateObject());
	json_set_num(a, "score", as.score);
	json_set_bool(a, "truncated", as.truncated);
	json_set_num(a, "tokens", (double)as.tokens);
	json_set_num(a, "sent_tokens", (double)as.sent_tokens);
	json_set_str(a, "cache_key", as.key);
	return 0;
}

static void set_medians(const struct scored *v, size_t n, struct medians *m)
{
	double *tok = xcalloc(n ? n : 1, sizeof *tok), *sec = xcalloc(n ? n : 1, sizeof *sec),
	       *st = xcalloc(n ? n : 1, sizeof *st);
	for (size_t i = 0; i < n; i++) {
		tok[i] = v[i].f.tokens;
		sec[i] = v[i].f.seconds;
		st[i] = (double)v[i].f.steps;
	}
	m->tokens = median(tok, n);
	m->seconds = median(sec, n);
	m->steps = median(st, n);
	free(tok);
	free(sec);
	free(st);
}

static cJSON *base_record(const struct trace *t)
{
	cJSON *r = cJSON_CreateObject();
	json_set_str(r, "trace", t->name);
	json_set_num(r, "index", t->index);
	json_set_str(r, "key", json_str(t->trial, "key"));
	json_set_str(r, "outcome", json_str(t->trial, "outcome"));
	return r;
}

int fast_units(int top, int bottom)
{
	return top > bottom ? top : bottom;
}

static const char *unit_kind(const struct scored *a, const struct scored *b)
{
	if (!b)
		return a->cls == 0 ? "efficiency" : "failure";
	if ((a->cls == 0) != (b->cls == 0))
		return "contrast";
	return a->cls == 0 ? "efficiency" : "failure";
}

static cJSON *make_groups(const struct scored *v, size_t n, const struct score_opts *o, const cJSON *excluded)
{
	cJSON *g = cJSON_CreateObject();
	json_set_num(g, "format", SCORES_FORMAT);
	size_t passed = 0;
	for (size_t i = 0; i < n; i++)
		passed += v[i].cls == 0;
	const char *mode = passed == n ? "efficiency" : passed == 0 ? "failure" : "contrast";
	char *reason = passed == n ? xasprintf("all %zu scored traces passed: no pass/fail contrast, so efficiency analysis only (tokens, time, steps)", n)
		     : passed == 0 ? xasprintf("none of the %zu scored traces passed: no pass/fail contrast, so failure analysis only", n)
				   : xasprintf("%zu of %zu scored traces passed: the best are contrasted with the worst", passed, n);
	json_set_str(g, "mode", mode);
	json_set_str(g, "reason", reason);
	free(reason);
	json_set_num(g, "scored", (double)n);
	json_set_num(g, "passed", (double)passed);
	json_set(g, "excluded", cJSON_Duplicate(excluded, true));
	cJSON *order = json_set(g, "order", cJSON_CreateArray());
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(order, cJSON_CreateString(v[i].t->name));
	size_t top = (size_t)o->top < n ? (size_t)o->top : n;
	size_t bottom = (size_t)o->bottom < n - top ? (size_t)o->bottom : n - top;
	cJSON *tl = json_set(g, "top", cJSON_CreateArray()), *bl = json_set(g, "bottom", cJSON_CreateArray());
	for (size_t i = 0; i < top; i++)
		cJSON_AddItemToArray(tl, cJSON_CreateString(v[i].t->name));
	for (size_t i = 0; i < bottom; i++)
		cJSON_AddItemToArray(bl, cJSON_CreateString(v[n - 1 - i].t->name));
	cJSON *units = json_set(g, "units", cJSON_CreateArray());
	size_t nu = top > bottom ? top : bottom;
	for (size_t i = 0; i < nu; i++) {
		const struct scored *a = i < top ? &v[i] : &v[n - 1 - i];
		const struct scored *b = i < top && i < bottom ? &v[n - 1 - i] : NULL;
		cJSON *u = cJSON_CreateObject();
		json_set_num(u, "unit", (double)(i + 1));
		json_set_str(u, "kind", unit_kind(a, b));
		json_set_str(u, "better", a->t->name);
		json_set_str(u, "worse", b ? b->t->name : NULL);
		cJSON_AddItemToArray(units, u);
	}
	json_set_num(g, "map_targets", fast_units(o->top, o->bottom));
	return g;
}

static int too_few(const struct trace_set *ts, size_t scorable, const struct score_opts *o, struct err *e)
{
	size_t complete = 0;
	for (size_t i = 0; i < ts->n; i++)
		complete += json_bool(ts->v[i].trial, "complete", false);
	return err_set(e, ERR_INPUT,
		       "fast needs %d complete scored traces of the skill, but there are %zu (%zu trial%s, %zu excluded as infra or verifier errors): %s",
		       o->min_traces, scorable, ts->n, ts->n == 1 ? "" : "s", complete - scorable,
		       o->how_to_get_more ? o->how_to_get_more : "add more traces");
}

/* scores.json before its traces: the skill, and the AgentRM used (rm) or why none. */
static cJSON *scores_head(const struct pkgset *skill, const struct agentrm *rm)
{
	cJSON *sc = cJSON_CreateObject();
	json_set_num(sc, "format", SCORES_FORMAT);
	char *label = pkgset_label(skill);
	json_set_str(sc, "skill", label);
	free(label);
	if (rm) {
		cJSON *a = json_set(sc, "agentrm", cJSON_CreateObject());
		json_set_str(a, "url", rm->url);
		json_set_str(a, "adapter", AGENTRM_ADAPTER);
		json_set_num(a, "max_length", (double)rm->max_length);
		json_set_str(a, "max_length_source", rm->max_length_given ? "health" : "default");
		json_set(a, "health", cJSON_Duplicate(rm->health, true));
	} else {
		json_set(sc, "agentrm", cJSON_CreateNull());
		json_set_str(sc, "agentrm_note", "RM_API_URL is not set: traces are ordered"
			     " by the verifier and the pre-score alone");
	}
	json_set_str(sc, "order_by", "class, credit, agentrm, prescore, index");
	return sc;
}

int fast_score(const struct trace_set *ts, const struct pkgset *skill, const struct score_opts *o,
	       cJSON **scores, cJSON **groups, struct err *e)
{
	*scores = *groups = NULL;
	size_t scorable = traces_scorable(ts);
	if (scorable < (size_t)o->min_traces)
		return too_few(ts, scorable, o, e);
	struct strlist pointed = STRLIST_INIT, names = STRLIST_INIT;
	pkgset_pointed_refs(skill, &pointed);
	pkgset_names(skill, &names);
	struct scored *v = xcalloc(scorable, sizeof *v);
	cJSON *excluded = cJSON_CreateArray();
	size_t n = 0;
	for (size_t i = 0; i < ts->n; i++) {
		const struct trace *t = &ts->v[i];
		if (!t->scorable) {
			cJSON *x = base_record(t);
			json_set_str(x, "why", json_bool(t->trial, "complete", false) ? "not scored by the verifier (infra or verifier error)"
										    : "incomplete trial");
			cJSON_AddItemToArray(excluded, x);
			continue;
		}
		struct scored *s = &v[n++];
		s->t = t;
		trace_facts_read(t, &pointed, &s->f);
		s->cls = class_of(t->trial);
		s->rec = base_record(t);
	}
	struct medians m;
	set_medians(v, n, &m);
	struct agentrm rm = { 0 };
	bool use_rm = o->rm_url && *o->rm_url;
	int rc = use_rm ? agentrm_open(&rm, o->rm_url, NULL, e) : 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct scored *s = &v[i];
		json_set_str(s->rec, "class", class_names[s->cls]);
		json_set_bool(s->rec, "passed", s->cls == 0);
		json_set(s->rec, "reward", cJSON_Duplicate(json_get(s->t->trial, "reward"), true));
		json_set(s->rec, "credit", credit_of(&s->f, s->t->trial, &s->credit));
		json_set(s->rec, "verifier", cJSON_Duplicate(s->f.verifier, true));
		const cJSON *inj = json_get(json_get(s->t->trial, "skill"), "injected");
		json_set(s->rec, "prescore", prescore(&s->f, &pointed, &m, cJSON_GetArraySize(inj) > 0, &names, s->t, &s->pre));
		if (use_rm) {
			rc = score_rm(&rm, s, e);
		} else {
			json_set(s->rec, "agentrm", cJSON_CreateNull());
		}
	}
	if (rc == 0) {
		qsort(v, n, sizeof *v, cmp_scored);
		cJSON *sc = scores_head(skill, use_rm ? &rm : NULL);
		cJSON *list = json_set(sc, "traces", cJSON_CreateArray());
		for (size_t i = 0; i < n; i++) {
			json_set_num(v[i].rec, "rank", (double)(i + 1));
			cJSON_AddItemToArray(list, v[i].rec);
			v[i].rec = NULL;
		}
		json_set(sc, "excluded", cJSON_Duplicate(excluded, true));
		*scores = sc;
		*groups = make_groups(v, n, o, excluded);
	}
	for (size_t i = 0; i < n; i++) {
		trace_facts_free(&v[i].f);
		cJSON_Delete(v[i].rec);
	}
	free(v);
	cJSON_Delete(excluded);
	strlist_free(&pointed);
	strlist_free(&names);
	if (use_rm)
		agentrm_close(&rm);
	return rc;
}

const cJSON *groups_unit(const cJSON *groups, int n)
{
	for (const cJSON *u = json_get(groups, "units") ? json_get(groups, "units")->child : NULL; u; u = u->next)
		if ((int)json_num(u, "unit", 0) == n)
			return u;
	return NULL;
}
