/* skillc-fast — the fast stage: traces of a skill -> scores and groups ->
 * one map call per top/bottom unit -> reduce into typed patches -> S_fast.
 * make runs one subcommand per target (fast-score, fast-map.NNN,
 * fast-reduce, fast-apply); without a subcommand it runs every step on a
 * folder of traces, as the seed's `python -m scripts.dynamic_compile.fast`
 * did. Every file it writes lives in one folder (--dir) under fixed names;
 * see docs/fast.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/versions.h"
#include "compile/guard.h"
#include "compile/package.h"
#include "compile/profile.h"
#include "optimize/ask.h"
#include "optimize/map.h"
#include "optimize/patch.h"
#include "optimize/reduce.h"
#include "optimize/score.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"

static const char usage[] =
	"usage: skillc-fast --traces DIR --skill DIR --model M [--output DIR] [--score-output FILE]\n"
	"                   [--max-parallel N] [--rm-api-url URL] [--task DIR] [--profile FILE]\n"
	"                   [--force] [step options]\n"
	"       skillc-fast score  --traces DIR --skill DIR --dir DIR [--trials N] [--task DIR]\n"
	"                          [--rm-api-url URL] [--min-traces N] [--top N] [--bottom N]\n"
	"       skillc-fast map    --unit N --traces DIR --skill DIR --dir DIR --model M [--task DIR]\n"
	"       skillc-fast reduce --units N --skill DIR --dir DIR --model M [--max-patches N]\n"
	"                          [--profile FILE | --budget TOKENS]\n"
	"       skillc-fast apply  --skill DIR --dir DIR [--profile FILE | --budget TOKENS] [--hash FILE]\n"
	"\n"
	"score   scores every trace under --traces (test-NNN/trial.json folders, or\n"
	"        BenchFlow runs) of the skill --skill (a skill folder, or a root holding\n"
	"        one): DIR/scores.json and DIR/groups.json. --trials N takes exactly\n"
	"        test-001..test-N (make); --task DIR gives the instruction.\n"
	"map     asks --model (the compiler's model) about unit N of DIR/groups.json:\n"
	"        DIR/map/NNN.json (typed findings, validated).\n"
	"reduce  groups the findings of DIR/map/001..N.json and merges them into at most\n"
	"        --max-patches typed patches: DIR/reduce.json, DIR/patches.json.\n"
	"apply   applies DIR/patches.json through the document model, each checked by the\n"
	"        static guard and rolled back when it fails: DIR/S_fast/<skill>/, its tree\n"
	"        hash (DIR/S_fast.hash or --hash), DIR/report.json, DIR/report.md.\n"
	"Without a step: all four on a folder of traces into --output (default\n"
	"fast-<skill>), map calls --max-parallel at a time (default 3). It does nothing\n"
	"when the output's record (fast-run.json) says the same inputs, settings and\n"
	"version made the files that are there; --force runs again and asks the models\n"
	"again (LLM_CACHE=refresh).\n"
	"Defaults: $RM_API_URL, $EXTERNAL_MODEL, $FAST_MIN_TRACES (6), $FAST_TOP (3),\n"
	"$FAST_BOTTOM (3), $FAST_MAX_PATCHES (4); the budget: the profile's, else 5000.\n"
	"\n"
	"Exit 0 done, 1 the work failed (AgentRM or the model down), 2 bad usage or\n"
	"input (too few traces, a missing file). See docs/fast.md.\n";

struct opts {
	const char *traces, *skill, *dir, *task, *rm_url, *model, *profile, *hash, *output, *score_output;
	int trials, min_traces, top, bottom, unit, units, max_patches, max_parallel;
	long budget;
	bool force;
};

static int env_int(const char *name, int fallback)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : fallback;
}

static long int_arg(const char *flag, const char *v, long min, long max)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < min || n > max)
		die(2, "%s wants a whole number from %ld to %ld, not '%s'", flag, min, max, v);
	return n;
}

static void defaults(struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->rm_url = getenv("RM_API_URL");
	o->model = getenv("EXTERNAL_MODEL");
	o->min_traces = env_int("FAST_MIN_TRACES", 6);
	o->top = env_int("FAST_TOP", 3);
	o->bottom = env_int("FAST_BOTTOM", 3);
	o->max_patches = env_int("FAST_MAX_PATCHES", 4);
	o->max_parallel = 3;
}

static const char **string_slot(struct opts *o, const char *a)
{
	return !strcmp(a, "--traces")         ? &o->traces
	       : !strcmp(a, "--skill")        ? &o->skill
	       : !strcmp(a, "--dir")          ? &o->dir
	       : !strcmp(a, "--task")         ? &o->task
	       : !strcmp(a, "--rm-api-url")   ? &o->rm_url
	       : !strcmp(a, "--model")        ? &o->model
	       : !strcmp(a, "--profile")      ? &o->profile
	       : !strcmp(a, "--hash")         ? &o->hash
	       : !strcmp(a, "--output")       ? &o->output
	       : !strcmp(a, "--score-output") ? &o->score_output
					      : NULL;
}

static void parse(int argc, char **argv, int from, struct opts *o)
{
	defaults(o);
	for (int i = from; i < argc; i++) {
		const char *a = argv[i];
		const char **s = string_slot(o, a);
		if (s) {
			*s = std_option_value(argc, argv, &i);
			continue;
		}
		if (!strcmp(a, "--force")) {
			o->force = true;
			continue;
		}
		struct { const char *flag; int *slot; long min, max; } ints[] = {
			{ "--trials", &o->trials, 1, 100000 },     { "--min-traces", &o->min_traces, 1, 100000 },
			{ "--top", &o->top, 1, 100 },              { "--bottom", &o->bottom, 1, 100 },
			{ "--unit", &o->unit, 1, 1000 },           { "--units", &o->units, 1, 1000 },
			{ "--max-patches", &o->max_patches, 0, 100 }, { "--max-parallel", &o->max_parallel, 1, 64 },
		};
		size_t k = 0;
		while (k < ARRAY_LEN(ints) && strcmp(a, ints[k].flag))
			k++;
		if (k < ARRAY_LEN(ints))
			*ints[k].slot = (int)int_arg(a, std_option_value(argc, argv, &i), ints[k].min, ints[k].max);
		else if (!strcmp(a, "--budget"))
			o->budget = int_arg(a, std_option_value(argc, argv, &i), 1, 100000000);
		else
			die(2, "unknown option '%s' (see --help)", a);
	}
}

static void need(const char *v, const char *flag)
{
	if (!v || !*v)
		die(2, "%s is required (see --help)", flag);
}

static void need_model(const struct opts *o)
{
	if (!o->model || !*o->model)
		die(2, "the fast stage asks the compiler's model: set EXTERNAL_MODEL=provider/model-id (or --model)");
}

static char *in_dir(const char *dir, const char *name)
{
	return path_join(dir, name);
}

static void write_json(const char *path, const cJSON *v)
{
	struct err e = { 0 };
	char *parent = path_dir(path);
	if (fs_mkdirs(parent, &e) < 0 || json_write_if_changed(path, v, &e) < 0)
		die_err(&e);
	free(parent);
}

static cJSON *read_json(const char *path, const char *what)
{
	struct err e = { 0 };
	cJSON *v = json_read_file(path, &e);
	if (!v)
		die(2, "%s (%s)", e.msg, what);
	return v;
}

static void load_skill(const char *dir, struct skill_src *s)
{
	struct err e = { 0 };
	if (skillpkg_load(dir, s, &e) < 0)
		die_err(&e);
}

/* The task's instruction.md, or NULL without --task. Caller frees. */
static char *read_instruction(const char *task)
{
	if (!task)
		return NULL;
	char *p = path_join(task, "instruction.md");
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	if (fs_read(p, 1 << 20, &b, &e) < 0)
		die(2, "%s (--task must be a task folder holding instruction.md)", e.msg);
	free(p);
	return b.data ? buf_detach(&b) : xstrdup("");
}

/* The profile's body budget, --budget, or 5000 tokens. */
static long budget_of(const struct opts *o)
{
	if (o->budget)
		return o->budget;
	if (!o->profile)
		return 5000;
	cJSON *res = read_json(o->profile, "--profile is skillc-profile's profile.json");
	long b = profile_budget_tokens(json_get(res, "profile"));
	cJSON_Delete(res);
	return b;
}

/* ---------------------------------------------------------------- score */

static int cmd_score(const struct opts *o)
{
	need(o->traces, "--traces");
	need(o->skill, "--skill");
	need(o->dir, "--dir");
	struct err e = { 0 };
	struct skill_src src;
	load_skill(o->skill, &src);
	struct strlist names = STRLIST_INIT;
	strlist_push(&names, src.name);
	struct trace_opts to = { o->trials, &names };
	struct trace_set ts;
	if (traces_load(o->traces, &to, &ts, &e) < 0)
		die_err(&e);
	int have = (int)traces_scorable(&ts);
	char *more = o->trials
		? xasprintf("static-eval ran %d trials; raise REPEAT above %d to schedule more (make task=<task> fast REPEAT=%d), or look at the excluded trials under %s",
			    o->trials, o->trials, o->trials + (o->min_traces > have ? o->min_traces - have : 1), o->traces)
		: xasprintf("add traces to %s or lower --min-traces", o->traces);
	char *instruction = read_instruction(o->task);
	struct score_opts so = { o->rm_url, instruction, o->min_traces, o->top, o->bottom, more };
	cJSON *scores, *groups;
	if (fast_score(&ts, &src, &so, &scores, &groups, &e) < 0)
		die_err(&e);
	char *sp = o->score_output ? xstrdup(o->score_output) : in_dir(o->dir, "scores.json");
	char *gp = in_dir(o->dir, "groups.json");
	write_json(sp, scores);
	write_json(gp, groups);
	printf("scored %d trace(s) (%d excluded)%s; groups: %s, %d unit(s)\n", cJSON_GetArraySize(json_get(scores, "traces")),
	       cJSON_GetArraySize(json_get(scores, "excluded")),
	       cJSON_IsObject(json_get(scores, "agentrm")) ? " with AgentRM" : " without AgentRM (RM_API_URL unset)",
	       json_str(groups, "mode"), cJSON_GetArraySize(json_get(groups, "units")));
	free(sp);
	free(gp);
	cJSON_Delete(scores);
	cJSON_Delete(groups);
	free(instruction);
	free(more);
	traces_free(&ts);
	strlist_free(&names);
	skill_src_free(&src);
	return 0;
}

/* ---------------------------------------------------------------- map */

static char *map_path(const char *dir, int unit)
{
	return xasprintf("%s/map/%03d.json", dir, unit);
}

static int cmd_map(const struct opts *o)
{
	need(o->traces, "--traces");
	need(o->skill, "--skill");
	need(o->dir, "--dir");
	if (!o->unit)
		die(2, "--unit N is required (see --help)");
	need_model(o);
	struct skill_src src;
	load_skill(o->skill, &src);
	char *gp = in_dir(o->dir, "groups.json");
	cJSON *groups = read_json(gp, "run the score step first");
	const cJSON *unit = groups_unit(groups, o->unit);
	struct err e = { 0 };
	struct trace_set ts = { 0 };
	struct strlist names = STRLIST_INIT;
	strlist_push(&names, src.name);
	struct trace_opts to = { 0, &names };
	if (unit && traces_load(o->traces, &to, &ts, &e) < 0)
		die_err(&e);
	const struct trace *better = unit ? traces_find(&ts, json_str(unit, "better")) : NULL;
	const struct trace *worse = unit ? traces_find(&ts, json_str(unit, "worse")) : NULL;
	if (unit && (!better || (json_str(unit, "worse") && !worse)))
		die(2, "unit %d names a trace that is not under '%s': score again (make clean-stage STAGE=fast-score)", o->unit,
		    o->traces);
	char *instruction = read_instruction(o->task);
	struct llm_client *c = unit ? ask_open(&e) : NULL;
	if (unit && !c)
		die_err(&e);
	struct map_input in = { &src, instruction ? instruction : "", unit, o->unit, better, worse, o->model };
	cJSON *m = map_run(c, &in, &e);
	if (!m)
		die_err(&e);
	char *mp = map_path(o->dir, o->unit);
	write_json(mp, m);
	const cJSON *cnt = json_get(m, "counts");
	printf("unit %d: %s; %ld finding(s) kept, %d dropped\n", o->unit, json_str(m, "status"),
	       (long)json_num(cnt, "kept", 0), cJSON_GetArraySize(json_get(m, "dropped")));
	free(mp);
	cJSON_Delete(m);
	llm_close(c);
	free(instruction);
	traces_free(&ts);
	strlist_free(&names);
	cJSON_Delete(groups);
	free(gp);
	skill_src_free(&src);
	return 0;
}

/* ---------------------------------------------------------------- reduce */

static int cmd_reduce(const struct opts *o)
{
	need(o->skill, "--skill");
	need(o->dir, "--dir");
	if (!o->units)
		die(2, "--units N is required (see --help)");
	need_model(o);
	struct skill_src src;
	load_skill(o->skill, &src);
	cJSON **maps = xcalloc((size_t)o->units, sizeof *maps);
	for (int i = 0; i < o->units; i++) {
		char *p = map_path(o->dir, i + 1);
		maps[i] = read_json(p, "run the map step for every unit first");
		free(p);
	}
	struct err e = { 0 };
	struct llm_client *c = ask_open(&e);
	if (!c)
		die_err(&e);
	struct reduce_input in = { &src, maps, (size_t)o->units, o->max_patches, budget_of(o), o->model };
	cJSON *reduce, *patches;
	if (reduce_run(c, &in, &reduce, &patches, &e) < 0)
		die_err(&e);
	char *rp = in_dir(o->dir, "reduce.json"), *pp = in_dir(o->dir, "patches.json");
	write_json(rp, reduce);
	write_json(pp, patches);
	const cJSON *cnt = json_get(reduce, "counts");
	printf("%ld finding(s) in %d group(s), %d call(s): %ld patch(es) kept of %ld (%ld invalid, %ld over FAST_MAX_PATCHES=%d)\n",
	       (long)json_num(json_get(reduce, "maps"), "findings", 0), cJSON_GetArraySize(json_get(reduce, "groups")),
	       cJSON_GetArraySize(json_get(reduce, "calls")), (long)json_num(cnt, "kept", 0), (long)json_num(cnt, "answered", 0),
	       (long)json_num(cnt, "invalid", 0), (long)json_num(cnt, "over_limit", 0), o->max_patches);
	free(rp);
	free(pp);
	cJSON_Delete(reduce);
	cJSON_Delete(patches);
	llm_close(c);
	for (int i = 0; i < o->units; i++)
		cJSON_Delete(maps[i]);
	free(maps);
	skill_src_free(&src);
	return 0;
}

/* ---------------------------------------------------------------- apply */

static void report_md(const cJSON *rep, struct buf *md);

/* What the map and reduce steps counted, for the report. */
static void upstream_counts(const char *dir, cJSON *rep)
{
	char *rp = in_dir(dir, "reduce.json");
	struct err e;
	cJSON *r = fs_exists(rp) ? json_read_file(rp, &e) : NULL;
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
		char *mp = map_path(dir, u);
		cJSON *m = fs_exists(mp) ? json_read_file(mp, &e) : NULL;
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

static void publish(const struct skill_src *src, const struct skill_out *out, const char *target, const char *hash_file)
{
	struct err e = { 0 };
	char *parent = path_dir(target);
	char *tmp = fs_temp_beside(target);
	if (fs_mkdirs(parent, &e) < 0 || fs_mkdirs(tmp, &e) < 0 || skill_out_write(src, out, tmp, &e) < 0 ||
	    fs_publish_dir(tmp, target, &e) < 0) {
		struct err e2;
		fs_remove_tree(tmp, &e2);
		die_err(&e);
	}
	hash_hex h;
	if (hash_tree(target, h, &e) < 0 || stamp_write(hash_file, h, &e) < 0)
		die_err(&e);
	free(tmp);
	free(parent);
}

static int cmd_apply(const struct opts *o)
{
	need(o->skill, "--skill");
	need(o->dir, "--dir");
	struct skill_src src;
	load_skill(o->skill, &src);
	char *pp = in_dir(o->dir, "patches.json");
	cJSON *patches = read_json(pp, "run the reduce step first");
	long budget = budget_of(o);
	struct guard_base g;
	guard_init(&g, &src);
	struct skill_out out;
	skill_out_init(&out, &src);
	cJSON *rep = cJSON_CreateObject();
	json_set_num(rep, "format", 1);
	json_set_str(rep, "tool", "skillc-fast " V_FAST);
	json_set_str(rep, "skill", src.name);
	json_set_num(rep, "budget_tokens", (double)budget);
	json_set(rep, "before", patch_size(out.md.data, out.md.len));
	cJSON *steps = json_set(rep, "patches", cJSON_CreateArray());
	cJSON *counts = json_set(rep, "counts", cJSON_CreateObject());
	static const char *const states[] = { "applied", "unchanged", "rolled_back", "rejected" };
	for (size_t i = 0; i < ARRAY_LEN(states); i++)
		json_set_num(counts, states[i], 0);
	for (const cJSON *p = json_get(patches, "patches") ? json_get(patches, "patches")->child : NULL; p; p = p->next) {
		cJSON *step = cJSON_CreateObject();
		json_set(step, "patch", cJSON_Duplicate(p, true));
		patch_apply(&src, &g, &out, p, budget, step);
		const char *st = json_str(step, "status");
		json_set_num(counts, st, json_num(counts, st, 0) + 1);
		cJSON_AddItemToArray(steps, step);
	}
	json_set(rep, "after", patch_size(out.md.data, out.md.len));
	upstream_counts(o->dir, rep);
	char *target = in_dir(o->dir, "S_fast");
	char *hash = o->hash ? xstrdup(o->hash) : in_dir(o->dir, "S_fast.hash");
	publish(&src, &out, target, hash);
	char *jp = in_dir(o->dir, "report.json"), *mp = in_dir(o->dir, "report.md");
	write_json(jp, rep);
	struct buf md = BUF_INIT;
	report_md(rep, &md);
	struct err e = { 0 };
	if (fs_write_if_changed(mp, md.data, md.len, &e) < 0)
		die_err(&e);
	printf("%s: %ld patch(es) applied, %ld rolled back, %ld rejected; body ~%ld -> ~%ld tokens (budget %ld)\n", src.name,
	       (long)json_num(counts, "applied", 0), (long)json_num(counts, "rolled_back", 0), (long)json_num(counts, "rejected", 0),
	       (long)json_num(json_get(rep, "before"), "tokens", 0), (long)json_num(json_get(rep, "after"), "tokens", 0), budget);
	buf_free(&md);
	free(jp);
	free(mp);
	free(target);
	free(hash);
	cJSON_Delete(rep);
	skill_out_free(&out);
	guard_free(&g);
	cJSON_Delete(patches);
	free(pp);
	skill_src_free(&src);
	return 0;
}

static long num(const cJSON *o, const char *a, const char *b)
{
	return (long)json_num(json_get(o, a), b, 0);
}

static void report_md(const cJSON *rep, struct buf *md)
{
	buf_printf(md, "# Fast patches of %s\n\n", json_str(rep, "skill"));
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
	buf_printf(md, "- Body: %ld -> %ld lines, ~%ld -> ~%ld tokens (budget %ld).\n\n", num(rep, "before", "lines"),
		   num(rep, "after", "lines"), num(rep, "before", "tokens"), num(rep, "after", "tokens"),
		   (long)json_num(rep, "budget_tokens", 0));
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

/* ---------------------------------------------------------------- standalone */

/* The record of a standalone run: what made the files in the output. */
static cJSON *run_identity(const struct opts *o, const struct skill_src *src, long budget)
{
	cJSON *id = cJSON_CreateObject();
	struct err e = { 0 };
	hash_hex h;
	json_set_str(id, "version", V_FAST);
	if (hash_tree(o->traces, h, &e) < 0)
		die_err(&e);
	json_set_str(id, "traces", h);
	if (hash_tree(src->dir, h, &e) < 0)
		die_err(&e);
	json_set_str(id, "skill", h);
	if (o->task) {
		char *p = path_join(o->task, "instruction.md");
		if (hash_file(p, h, &e) < 0)
			die_err(&e);
		json_set_str(id, "instruction", h);
		free(p);
	}
	cJSON *cfg = json_set(id, "config", cJSON_CreateObject());
	json_set_str(cfg, "model", o->model);
	json_set_str(cfg, "rm_api_url", o->rm_url ? o->rm_url : "");
	json_set_num(cfg, "min_traces", o->min_traces);
	json_set_num(cfg, "top", o->top);
	json_set_num(cfg, "bottom", o->bottom);
	json_set_num(cfg, "max_patches", o->max_patches);
	json_set_num(cfg, "budget_tokens", (double)budget);
	return id;
}

static const char *const run_files[] = { "groups.json", "reduce.json", "patches.json", "report.json", "report.md",
					 "S_fast" };

/* Hashes of the files the run made ({name: hash}); NULL when one is missing. */
static cJSON *artifact_hashes(const struct opts *o, int units)
{
	cJSON *a = cJSON_CreateObject();
	struct err e;
	hash_hex h;
	for (size_t i = 0; i <= ARRAY_LEN(run_files) + (size_t)units; i++) {
		char *p = i < ARRAY_LEN(run_files) ? in_dir(o->output, run_files[i])
		        : i == ARRAY_LEN(run_files) ? xstrdup(o->score_output)
		                                    : map_path(o->output, (int)(i - ARRAY_LEN(run_files)));
		bool ok = fs_exists(p) && hash_tree(p, h, &e) == 0;
		if (ok)
			json_set_str(a, p, h);
		free(p);
		if (!ok) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

/* Runs this tool again with argv: a map step in its own process. */
static pid_t spawn_self(char **args, struct err *e)
{
	bool started;
	struct proc_child c = { args, NULL, NULL, { -1, -1, -1 }, SIGTERM };
	return proc_spawn(&c, &started, e);
}

static void run_maps(const struct opts *o, int units, const char *self)
{
	int running = 0, failed = 0, next = 1;
	while (next <= units || running) {
		while (next <= units && running < o->max_parallel) {
			char unit[16];
			snprintf(unit, sizeof unit, "%d", next++);
			char *args[] = { (char *)self, "map", "--unit", unit, "--traces", (char *)o->traces, "--skill",
					 (char *)o->skill, "--dir", (char *)o->output, "--model", (char *)o->model,
					 o->task ? "--task" : NULL, (char *)o->task, NULL };
			struct err e = { 0 };
			if (spawn_self(args, &e) < 0)
				die_err(&e);
			running++;
		}
		int st;
		if (wait(&st) < 0)
			break;
		running--;
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (failed)
		die(1, "%d map call(s) failed (see above); run again to retry only those", failed);
}

static int cmd_standalone(struct opts *o, const char *self)
{
	need(o->traces, "--traces");
	need(o->skill, "--skill");
	need_model(o);
	struct skill_src src;
	load_skill(o->skill, &src);
	char *out_default = xasprintf("fast-%s", src.name);
	if (!o->output)
		o->output = out_default;
	char *score_default = in_dir(o->output, "scores.json");
	if (!o->score_output)
		o->score_output = score_default;
	o->dir = o->output;
	long budget = budget_of(o);
	int units = fast_units(o->top, o->bottom);
	cJSON *id = run_identity(o, &src, budget);
	char *rec = in_dir(o->output, "fast-run.json");
	struct err e = { 0 };
	cJSON *was = !o->force && fs_exists(rec) ? json_read_file(rec, &e) : NULL;
	cJSON *now = was ? artifact_hashes(o, units) : NULL;
	if (was && now && cJSON_Compare(json_get(was, "inputs"), id, true) && cJSON_Compare(json_get(was, "artifacts"), now, true)) {
		printf("%s: up to date (fast-run.json: same traces, skill, settings and version; every file as written)\n", o->output);
	} else {
		if (o->force)
			setenv("LLM_CACHE", "refresh", 1);
		unlink(rec); /* a run cut short leaves no record that could be mistaken for done */
		cmd_score(o);
		run_maps(o, units, self);
		o->units = units;
		cmd_reduce(o);
		o->budget = budget;
		cmd_apply(o);
		cJSON *r = cJSON_CreateObject();
		json_set_num(r, "format", 1);
		json_set(r, "inputs", cJSON_Duplicate(id, true));
		cJSON *art = artifact_hashes(o, units);
		json_set(r, "artifacts", art ? art : cJSON_CreateNull());
		write_json(rec, r);
		cJSON_Delete(r);
		printf("S_fast: %s/S_fast/%s\n", o->output, src.name);
	}
	cJSON_Delete(was);
	cJSON_Delete(now);
	cJSON_Delete(id);
	free(rec);
	free(score_default);
	free(out_default);
	skill_src_free(&src);
	return 0;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_FAST);
	if (argc < 2)
		die(2, "missing arguments: a step (score, map, reduce, apply) or --traces DIR --skill DIR (see --help)");
	struct opts o;
	int rc;
	const char *cmd = argv[1];
	if (cmd[0] == '-') {
		parse(argc, argv, 1, &o);
		char *dir = tool_dir();
		char *self = path_join(dir, "skillc-fast");
		rc = cmd_standalone(&o, self);
		free(self);
		free(dir);
	} else {
		parse(argc, argv, 2, &o);
		rc = !strcmp(cmd, "score")    ? cmd_score(&o)
		     : !strcmp(cmd, "map")    ? cmd_map(&o)
		     : !strcmp(cmd, "reduce") ? cmd_reduce(&o)
		     : !strcmp(cmd, "apply")  ? cmd_apply(&o)
					      : (die(2, "unknown step '%s': score, map, reduce or apply (see --help)", cmd), 2);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
	return rc;
}
