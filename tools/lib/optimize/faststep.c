/* The fast stage's four steps (fast.h). */
#include "optimize/fast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/versions.h"
#include "compile/guard.h"
#include "optimize/ask.h"
#include "optimize/deepfiles.h"
#include "optimize/leakload.h"
#include "optimize/map.h"
#include "optimize/patch.h"
#include "optimize/reduce.h"
#include "optimize/score.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"

static int need(const char *v, const char *flag, struct err *e)
{
	return v && *v ? 0 : err_set(e, ERR_INPUT, "%s is required (see --help)", flag);
}

static int need_model(const struct fast_opts *o, struct err *e)
{
	if (!o->model || !*o->model)
		return err_set(e, ERR_INPUT,
			       "the fast stage asks the compiler's model: set EXTERNAL_MODEL=provider/model-id (or --model)");
	return 0;
}

/* The task's instruction.md, or "" without --task; NULL with e set. */
static char *read_instruction(const char *task, struct err *e)
{
	if (!task)
		return xstrdup("");
	char *p = path_join(task, "instruction.md");
	struct buf b = BUF_INIT;
	struct err r = { 0 };
	int rc = fs_read_limited(p, &b, &r);
	free(p);
	if (rc < 0) {
		buf_free(&b);
		err_set(e, ERR_INPUT, "%s (--task must be a task folder holding instruction.md)", r.msg);
		return NULL;
	}
	return buf_detach(&b);
}

/* The body budget: --budget, the profile's, or 5000 tokens. */
static int budget_of(const struct fast_opts *o, long *budget, struct err *e)
{
	*budget = o->budget;
	return o->budget ? 0 : deep_budget(o->profile, budget, e);
}

char *fast_map_path(const char *dir, int unit)
{
	return xasprintf("%s/map/%03d.json", dir, unit);
}

/* The traces under o->traces of the set (count: exactly test-001..N,
 * 0: every one). */
static int load_traces(const struct fast_opts *o, int count, const struct pkgset *set, struct trace_set *ts,
		       struct err *e)
{
	struct strlist names = STRLIST_INIT;
	pkgset_names(set, &names);
	struct trace_opts to = { count, &names };
	int rc = traces_load(o->traces, &to, ts, e);
	for (size_t i = 0; rc == 0 && i < o->pool_traces.n; i++) {
		/* traces/<task>/static: named <task>/test-NNN */
		char *up = path_dir(o->pool_traces.v[i]);
		rc = traces_load_more(o->pool_traces.v[i], path_base(up), &to, ts, e);
		free(up);
	}
	strlist_free(&names);
	return rc;
}

/* ---------------------------------------------------------------- score */

/* The length of a pooled trace's task name ("<task>/test-NNN"), 0 for the run's own. */
static size_t pool_prefix(const struct trace *t)
{
	const char *slash = t ? strchr(t->name, '/') : NULL;
	return slash ? (size_t)(slash - t->name) : 0;
}

/* The folder of the task trace t ran in: a pooled trace's is its
 * --pool-task of that name (a train task, never a held-out one), any
 * other trace's --task; NULL when not given. */
static const char *task_of(const struct fast_opts *o, const struct trace *t)
{
	size_t n = pool_prefix(t);
	if (!n)
		return o->task;
	for (size_t i = 0; i < o->pool_tasks.n; i++) {
		const char *base = path_base(o->pool_tasks.v[i]);
		if (strlen(base) == n && !strncmp(base, t->name, n))
			return o->pool_tasks.v[i];
	}
	return NULL;
}

/* The instruction of the task trace t ran in; "" when its folder is not
 * given (never another task's). */
static char *instruction_of(const struct fast_opts *o, const struct trace *t, struct err *e)
{
	return read_instruction(task_of(o, t), e);
}

/* What to do when there are too few traces, for the error. Caller frees. */
static char *more_traces_hint(const struct fast_opts *o, int have)
{
	if (!o->trials)
		return xasprintf("add traces to %s or lower --min-traces", o->traces);
	return xasprintf("static-eval ran %d trials; raise REPEAT above %d to schedule more (make task=<task> fast REPEAT=%d), or look at the excluded trials under %s",
			 o->trials, o->trials, o->trials + (o->min_traces > have ? o->min_traces - have : 1), o->traces);
}

static int score_write(const struct fast_opts *o, const cJSON *scores, const cJSON *groups, struct err *e)
{
	char *sp = path_join(o->dir, "scores.json");
	char *gp = path_join(o->dir, "groups.json");
	int rc = deep_write(sp, scores, e) < 0 || deep_write(gp, groups, e) < 0 ? -1 : 0;
	free(sp);
	free(gp);
	return rc;
}

int fast_step_score(const struct fast_opts *o, struct err *e)
{
	if (need(o->traces, "--traces", e) < 0 || need(o->skill, "--skill", e) < 0 || need(o->dir, "--dir", e) < 0)
		return -1;
	struct pkgset src = { 0 };
	struct trace_set ts = { 0 };
	char *more = NULL;
	cJSON *scores = NULL, *groups = NULL;
	int rc = pkgset_load(o->skill, o->only, &src, e) < 0 ||
			 load_traces(o, o->trials, &src, &ts, e) < 0 ? -1 : 0;
	/* AgentRM's instruction: each trace's own task's, else its first prompt */
	for (size_t i = 0; rc == 0 && i < ts.n; i++) {
		const char *task = task_of(o, &ts.v[i]);
		if (task && !(ts.v[i].instruction = read_instruction(task, e)))
			rc = -1;
	}
	if (rc == 0) {
		more = more_traces_hint(o, (int)traces_scorable(&ts));
		struct score_opts so = { o->rm_url, o->min_traces, o->top, o->bottom, more };
		rc = fast_score(&ts, &src, &so, &scores, &groups, e) < 0 || score_write(o, scores, groups, e) < 0 ? -1 : 0;
	}
	if (rc == 0)
		printf("scored %d trace(s) (%d excluded)%s; groups: %s, %d unit(s)\n",
		       cJSON_GetArraySize(json_get(scores, "traces")), cJSON_GetArraySize(json_get(scores, "excluded")),
		       cJSON_IsObject(json_get(scores, "agentrm")) ? " with AgentRM" : " without AgentRM (RM_API_URL unset)",
		       json_str(groups, "mode"), cJSON_GetArraySize(json_get(groups, "units")));
	cJSON_Delete(scores);
	cJSON_Delete(groups);
	free(more);
	traces_free(&ts);
	pkgset_free(&src);
	return rc;
}

/* ---------------------------------------------------------------- map */

/* The unit's map document: asked unless the unit does not exist. */
static cJSON *map_unit(const struct fast_opts *o, const struct pkgset *src, const cJSON *unit,
		       const struct trace_set *ts, struct err *e)
{
	const struct trace *better = unit ? traces_find(ts, json_str(unit, "better")) : NULL;
	const struct trace *worse = unit ? traces_find(ts, json_str(unit, "worse")) : NULL;
	if (unit && (!better || (json_str(unit, "worse") && !worse))) {
		err_set(e, ERR_INPUT, "unit %d names a trace that is not under '%s': score again (make clean-stage STAGE=fast-score)",
			o->unit, o->traces);
		return NULL;
	}
	/* trace B's own instruction when it ran in another task than A */
	size_t na = pool_prefix(better), nb = pool_prefix(worse);
	bool other = worse && (na != nb || strncmp(better->name, worse->name, na));
	char *ia = instruction_of(o, better, e);
	char *ib = ia && other ? instruction_of(o, worse, e) : NULL;
	struct llm_client *c = ia && (!other || ib) && unit ? ask_open(e) : NULL;
	cJSON *m = NULL;
	if (ia && (!other || ib) && (!unit || c)) {
		struct map_input in = { src, ia, ib, unit, o->unit, better, worse, o->model };
		m = map_run(c, &in, e);
	}
	llm_close(c);
	free(ia);
	free(ib);
	return m;
}

int fast_step_map(const struct fast_opts *o, struct err *e)
{
	if (need(o->traces, "--traces", e) < 0 || need(o->skill, "--skill", e) < 0 || need(o->dir, "--dir", e) < 0)
		return -1;
	if (!o->unit)
		return err_set(e, ERR_INPUT, "--unit N is required (see --help)");
	if (need_model(o, e) < 0)
		return -1;
	struct pkgset src = { 0 };
	struct trace_set ts = { 0 };
	char *gp = path_join(o->dir, "groups.json"), *mp = fast_map_path(o->dir, o->unit);
	cJSON *groups = NULL, *m = NULL;
	int rc = pkgset_load(o->skill, o->only, &src, e) < 0 ||
			 !(groups = deep_read(gp, "run the score step first", e))
		 ? -1 : 0;
	const cJSON *unit = groups_unit(groups, o->unit);
	if (rc == 0 && unit) /* a unit the groups do not have is answered without traces */
		rc = load_traces(o, 0, &src, &ts, e);
	if (rc == 0 && (!(m = map_unit(o, &src, unit, &ts, e)) || deep_write(mp, m, e) < 0))
		rc = -1;
	if (rc == 0)
		printf("unit %d: %s; %ld finding(s) kept, %d dropped\n", o->unit, json_str(m, "status"),
		       (long)json_num(json_get(m, "counts"), "kept", 0), cJSON_GetArraySize(json_get(m, "dropped")));
	cJSON_Delete(m);
	free(mp);
	traces_free(&ts);
	cJSON_Delete(groups);
	free(gp);
	pkgset_free(&src);
	return rc;
}

/* ---------------------------------------------------------------- reduce */

static int reduce_write(const struct fast_opts *o, const cJSON *reduce, const cJSON *patches, struct err *e)
{
	char *rp = path_join(o->dir, "reduce.json"), *pp = path_join(o->dir, "patches.json");
	int rc = deep_write(rp, reduce, e) < 0 || deep_write(pp, patches, e) < 0 ? -1 : 0;
	free(rp);
	free(pp);
	return rc;
}

int fast_step_reduce(const struct fast_opts *o, struct err *e)
{
	if (need(o->skill, "--skill", e) < 0 || need(o->dir, "--dir", e) < 0)
		return -1;
	if (!o->units)
		return err_set(e, ERR_INPUT, "--units N is required (see --help)");
	if (need_model(o, e) < 0)
		return -1;
	struct pkgset src = { 0 };
	cJSON **maps = xcalloc((size_t)o->units, sizeof *maps), *reduce = NULL, *patches = NULL;
	long budget = 0;
	int rc = pkgset_load(o->skill, o->only, &src, e) < 0 || budget_of(o, &budget, e) < 0 ? -1 : 0;
	for (int i = 0; rc == 0 && i < o->units; i++) {
		char *p = fast_map_path(o->dir, i + 1);
		if (!(maps[i] = deep_read(p, "run the map step for every unit first", e)))
			rc = -1;
		free(p);
	}
	struct ask_tally maps_t = { 0 }, calls_t = { 0 };
	for (int i = 0; rc == 0 && i < o->units; i++)
		ask_tally_add(&maps_t, maps[i]);
	if (rc == 0 && ask_tally_check(&maps_t, "fast-map", o->model, e) < 0)
		rc = -1;
	struct llm_client *c = rc == 0 ? ask_open(e) : NULL;
	struct reduce_input in = { &src, maps, (size_t)o->units, o->max_patches, budget, o->model };
	if (c && reduce_run(c, &in, &reduce, &patches, e) == 0)
		ask_tally_array(&calls_t, json_get(reduce, "calls"));
	if (!c || !reduce || ask_tally_check(&calls_t, "fast-reduce", o->model, e) < 0 ||
	    reduce_write(o, reduce, patches, e) < 0)
		rc = -1;
	const cJSON *cnt = json_get(reduce, "counts");
	if (rc == 0)
		printf("%ld finding(s) in %d group(s), %d call(s): %ld patch(es) kept of %ld (%ld invalid, %ld over FAST_MAX_PATCHES=%d)\n",
		       (long)json_num(json_get(reduce, "maps"), "findings", 0), cJSON_GetArraySize(json_get(reduce, "groups")),
		       cJSON_GetArraySize(json_get(reduce, "calls")), (long)json_num(cnt, "kept", 0),
		       (long)json_num(cnt, "answered", 0), (long)json_num(cnt, "invalid", 0), (long)json_num(cnt, "over_limit", 0),
		       o->max_patches);
	cJSON_Delete(reduce);
	cJSON_Delete(patches);
	llm_close(c);
	for (int i = 0; i < o->units; i++)
		cJSON_Delete(maps[i]);
	free(maps);
	pkgset_free(&src);
	return rc;
}

/* ---------------------------------------------------------------- apply */

/* What the map and reduce steps counted, for the report. */
static void upstream_counts(const char *dir, cJSON *rep)
{
	char *rp = path_join(dir, "reduce.json");
	cJSON *r = json_read_opt(rp);
	if (r) {
		json_set(rep, "maps", cJSON_Duplicate(json_get(r, "maps"), true));
		json_set(rep, "reduce", cJSON_Duplicate(json_get(r, "counts"), true));
		json_set(rep, "reduce_calls", cJSON_Duplicate(json_get(r, "calls"), true));
	}
	cJSON_Delete(r);
	free(rp);
	/* findings dropped by map, by reason */
	cJSON *drops = cJSON_CreateObject();
	for (int u = 1;; u++) {
		char *mp = fast_map_path(dir, u);
		cJSON *m = json_read_opt(mp);
		free(mp);
		if (!m)
			break;
		for (const cJSON *c = json_get(m, "counts") ? json_get(m, "counts")->child : NULL; c; c = c->next)
			if (cJSON_IsNumber(c))
				json_set_num(drops, c->string, json_num(drops, c->string, 0) + c->valuedouble);
		cJSON_Delete(m);
	}
	json_set(rep, "findings", drops);
}

static long num(const cJSON *o, const char *a, const char *b)
{
	return (long)json_num(json_get(o, a), b, 0);
}

static void report_counts_md(const cJSON *rep, struct buf *md)
{
	const cJSON *m = json_get(rep, "maps"), *f = json_get(rep, "findings"), *r = json_get(rep, "reduce");
	if (m)
		buf_printf(md, "- Map: %ld unit(s): %ld answered, %ld bad answer(s), %ld without a unit.\n",
			   (long)json_num(m, "units", 0), (long)json_num(m, "ok", 0), (long)json_num(m, "bad_answer", 0),
			   (long)json_num(m, "no_unit", 0));
	if (f)
		buf_printf(md, "- Findings: %ld kept of %ld; dropped: %ld naming no section, %ld quoting nothing from the traces, %ld with a bad kind, %ld malformed, %ld over the limit.\n",
			   (long)json_num(f, "kept", 0), (long)json_num(f, "answered", 0), (long)json_num(f, "no_section", 0),
			   (long)json_num(f, "no_quote", 0), (long)json_num(f, "bad_kind", 0), (long)json_num(f, "bad_shape", 0),
			   (long)json_num(f, "over_limit", 0));
	if (r)
		buf_printf(md, "- Reduce: %ld patch(es) proposed, %ld kept; dropped: %ld invalid, %ld duplicate, %ld over FAST_MAX_PATCHES.\n",
			   (long)json_num(r, "answered", 0), (long)json_num(r, "kept", 0), (long)json_num(r, "invalid", 0),
			   (long)json_num(r, "duplicate", 0), (long)json_num(r, "over_limit", 0));
	const cJSON *c = json_get(rep, "counts");
	if (json_bool(rep, "leak_guard", false))
		buf_printf(md, "- Leakage guard: %ld patch(es) rolled back for copying the task's tests, solution, expected files or verifier output.\n",
			   (long)json_num(c, "leaks", 0));
	buf_printf(md, "- Body: %ld -> %ld lines, ~%ld -> ~%ld tokens (budget %ld).\n\n", num(rep, "before", "lines"),
		   num(rep, "after", "lines"), num(rep, "before", "tokens"), num(rep, "after", "tokens"),
		   (long)json_num(rep, "budget_tokens", 0));
}

static void report_skills_md(const cJSON *rep, struct buf *md);

static void report_md(const cJSON *rep, struct buf *md)
{
	buf_printf(md, "# Fast patches of %s\n\n", json_str(rep, "skill"));
	report_counts_md(rep, md);
	report_skills_md(rep, md);
	buf_adds(md, "| # | op | section | status | tokens | why |\n|---|---|---|---|---|---|\n");
	for (const cJSON *s = json_get(rep, "patches")->child; s; s = s->next) {
		const cJSON *p = json_get(s, "patch"), *g = json_get(s, "guard");
		char *why = g ? xasprintf("guard %s: %s", json_str(g, "check"), json_str(g, "item"))
		          : json_str(s, "reason") ? xasprintf("%s", json_str(s, "reason"))
		                                   : xstrdup(json_str(p, "why") ? json_str(p, "why") : "");
		for (char *c = why; *c; c++)
			if (*c == '\n' || *c == '|')
				*c = ' ';
		buf_printf(md, "| %ld | %s | `%s` | %s | %ld -> %ld | %s |\n", (long)json_num(p, "n", 0), json_str(p, "op"),
			   json_str(p, "section"), json_str(s, "status"), num(s, "before", "tokens"), num(s, "after", "tokens"), why);
		free(why);
	}
	if (!cJSON_GetArraySize(json_get(rep, "patches")))
		buf_adds(md, "| | | | no patch | | |\n");
}

/* {lines, tokens} of the set's bodies, summed. */
static cJSON *set_size(const struct pkgset *p, const struct skill_out *out)
{
	if (p->n == 1)
		return patch_size(out[0].md.data, out[0].md.len);
	double lines = 0, tokens = 0;
	for (size_t k = 0; k < p->n; k++) {
		cJSON *one = patch_size(out[k].md.data, out[k].md.len);
		lines += json_num(one, "lines", 0);
		tokens += json_num(one, "tokens", 0);
		cJSON_Delete(one);
	}
	cJSON *j = cJSON_CreateObject();
	json_set_num(j, "lines", lines);
	json_set_num(j, "tokens", tokens);
	return j;
}

/* In a set of several, the report skill by skill: whether the stage may
 * edit it (SKILLS), its body before and after, the patches applied to it. */
static void report_skills(const struct pkgset *p, const struct skill_out *out, cJSON *rep)
{
	if (p->n == 1)
		return;
	cJSON *list = json_set(rep, "skills", cJSON_CreateArray());
	for (size_t k = 0; k < p->n; k++) {
		cJSON *x = cJSON_CreateObject();
		json_set_str(x, "skill", p->v[k].name);
		json_set_bool(x, "editable", p->edit[k]);
		json_set(x, "before", patch_size(p->v[k].md.data, p->v[k].md.len));
		json_set(x, "after", patch_size(out[k].md.data, out[k].md.len));
		long applied = 0;
		for (const cJSON *s = json_get(rep, "patches")->child; s; s = s->next)
			applied += json_str(s, "skill") && !strcmp(json_str(s, "skill"), p->v[k].name) &&
				   !strcmp(json_str(s, "status"), "applied");
		json_set_num(x, "applied", (double)applied);
		json_set_bool(x, "changed", out[k].md.len != p->v[k].md.len || memcmp(out[k].md.data, p->v[k].md.data, p->v[k].md.len));
		cJSON_AddItemToArray(list, x);
	}
}

static void report_skills_md(const cJSON *rep, struct buf *md)
{
	const cJSON *list = json_get(rep, "skills");
	if (!list)
		return;
	buf_adds(md, "| skill | may edit | patches applied | tokens | changed |\n|---|---|---|---|---|\n");
	for (const cJSON *x = list->child; x; x = x->next)
		buf_printf(md, "| %s | %s | %ld | %ld -> %ld | %s |\n", json_str(x, "skill"), json_bool(x, "editable", false) ? "yes" : "no (SKILLS)",
			   (long)json_num(x, "applied", 0), num(x, "before", "tokens"), num(x, "after", "tokens"),
			   json_bool(x, "changed", false) ? "yes" : "no, byte-identical");
	buf_addc(md, '\n');
}

/* Each patch applied to its skill's out, guarded (lk: the leakage guard
 * too, may be NULL), one step of the report each. */
static cJSON *apply_patches(const struct pkgset *src, const cJSON *patches, long budget,
			    const struct leak_index *lk, struct skill_out *out)
{
	struct guard_base *g = xcalloc(src->n, sizeof *g);
	for (size_t k = 0; k < src->n; k++) {
		guard_init(&g[k], &src->v[k]);
		g[k].leak = lk;
	}
	cJSON *rep = cJSON_CreateObject();
	json_set_num(rep, "format", 1);
	json_set_str(rep, "tool", "skillc-fast " V_FAST);
	char *name = pkgset_label(src);
	json_set_str(rep, "skill", name);
	free(name);
	json_set_num(rep, "budget_tokens", (double)budget);
	json_set(rep, "before", set_size(src, out));
	cJSON *steps = json_set(rep, "patches", cJSON_CreateArray());
	cJSON *counts = json_set(rep, "counts", cJSON_CreateObject());
	static const char *const states[] = { "applied", "unchanged", "rolled_back", "rejected", "leaks" };
	for (size_t i = 0; i < ARRAY_LEN(states); i++)
		json_set_num(counts, states[i], 0);
	for (const cJSON *p = json_get(patches, "patches") ? json_get(patches, "patches")->child : NULL; p; p = p->next) {
		cJSON *step = cJSON_CreateObject();
		json_set(step, "patch", cJSON_Duplicate(p, true));
		patch_apply_set(src, g, out, p, budget, step);
		const char *st = json_str(step, "status");
		json_set_num(counts, st, json_num(counts, st, 0) + 1);
		const char *check = json_str(json_get(step, "guard"), "check");
		if (check && !strcmp(check, "leak"))
			json_set_num(counts, "leaks", json_num(counts, "leaks", 0) + 1);
		cJSON_AddItemToArray(steps, step);
	}
	json_set(rep, "after", set_size(src, out));
	json_set(rep, "leak_guard", cJSON_CreateBool(lk != NULL));
	report_skills(src, out, rep);
	for (size_t k = 0; k < src->n; k++)
		guard_free(&g[k]);
	free(g);
	return rep;
}

static int apply_write(const struct fast_opts *o, const struct pkgset *src, const struct skill_out *out,
		       const cJSON *rep, struct err *e)
{
	char *target = path_join(o->dir, "S_fast");
	char *hash = o->hash ? xstrdup(o->hash) : path_join(o->dir, "S_fast.hash");
	char *jp = path_join(o->dir, "report.json"), *mp = path_join(o->dir, "report.md");
	struct buf md = BUF_INIT;
	report_md(rep, &md);
	int rc = pkgset_publish(src, out, target, hash, e) < 0 || deep_write(jp, rep, e) < 0 ||
			 fs_write_if_changed(mp, md.data, md.len, e) < 0
		 ? -1 : 0;
	buf_free(&md);
	free(jp);
	free(mp);
	free(target);
	free(hash);
	return rc;
}

/* The leakage guard's index: the task's held-out files, the verifier
 * output of o->traces (when given), the instruction and src as known. */
static struct leak_index *apply_leak_index(const struct fast_opts *o, const struct pkgset *src, struct err *e)
{
	struct trace_set ts = { 0 };
	if (o->traces && load_traces(o, o->trials, src, &ts, e) < 0) {
		traces_free(&ts);
		return NULL;
	}
	struct leak_index *lk =
		leak_load_more(o->task, &o->leak_tasks, o->traces ? &ts : NULL, src, e);
	traces_free(&ts);
	return lk;
}

int fast_step_apply(const struct fast_opts *o, struct err *e)
{
	if (need(o->skill, "--skill", e) < 0 || need(o->dir, "--dir", e) < 0)
		return -1;
	struct pkgset src = { 0 };
	char *pp = path_join(o->dir, "patches.json");
	cJSON *patches = NULL, *rep = NULL;
	long budget = 0;
	int rc = pkgset_load(o->skill, o->only, &src, e) < 0 ||
			 !(patches = deep_read(pp, "run the reduce step first", e)) ||
			 budget_of(o, &budget, e) < 0
		 ? -1 : 0;
	free(pp);
	struct leak_index *lk = NULL;
	if (rc == 0 && o->task && !(lk = apply_leak_index(o, &src, e)))
		rc = -1;
	if (rc == 0) {
		struct skill_out *out = pkgset_outs(&src);
		rep = apply_patches(&src, patches, budget, lk, out);
		upstream_counts(o->dir, rep);
		rc = apply_write(o, &src, out, rep, e);
		pkgset_outs_free(&src, out);
	}
	const cJSON *counts = json_get(rep, "counts");
	if (rc == 0)
		printf("%s: %ld patch(es) applied, %ld rolled back, %ld rejected; body ~%ld -> ~%ld tokens (budget %ld)\n",
		       json_str(rep, "skill"), (long)json_num(counts, "applied", 0), (long)json_num(counts, "rolled_back", 0),
		       (long)json_num(counts, "rejected", 0), (long)json_num(json_get(rep, "before"), "tokens", 0),
		       (long)json_num(json_get(rep, "after"), "tokens", 0), budget);
	if (rc == 0 && json_num(counts, "leaks", 0) > 0)
		printf("%s: the leakage guard rolled back %ld patch(es) that copied the task's held-out files (report.md)\n",
		       json_str(rep, "skill"), (long)json_num(counts, "leaks", 0));
	leak_free(lk);
	cJSON_Delete(rep);
	cJSON_Delete(patches);
	pkgset_free(&src);
	return rc;
}
