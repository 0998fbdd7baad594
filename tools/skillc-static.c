/* skillc-static — the static compile: turns the ingested skill into S_static
 * for the target model's profile. Deterministic mode runs the passes the
 * profile selects (passes.h); hybrid mode first asks the planning model for
 * one typed plan (plan.h) and applies its steps. The guard (guard.h) runs
 * after every pass and step; a failing one is rolled back and reported.
 * Outputs are built beside their targets and swapped in whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "skill/validate.h"
#include "base/fs.h"
#include "compile/guard.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "compile/passes.h"
#include "compile/plan.h"
#include "compile/profile.h"
#include "compile/specfix.h"
#include "compile/package.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-static --skill DIR --profile FILE --out DIR [--hash FILE]\n"
	"                     [--report FILE] [--report-md FILE] [--plan FILE] [--only NAMES]\n"
	"                     [--mode deterministic|hybrid|copy] [--external-model ID]\n"
	"                     [--dry-run] [--timings]\n"
	"\n"
	"Compiles every skill under --skill (a skill set root such as inputs/skill/), each\n"
	"on its own, for the model profile in --profile (skillc-profile's profile.json) into\n"
	"--out/<skill>/; --only (SKILLS: skill folders, space or comma separated) compiles\n"
	"those alone and copies the others byte for byte.\n"
	"--mode deterministic (default) runs the passes the profile selects; hybrid\n"
	"(needs --external-model, default $EXTERNAL_MODEL) first asks that model for one\n"
	"plan through the LLM client (routes, .env, cache: see docs/llm.md) and applies\n"
	"its steps. After every pass and step a guard checks that the frontmatter bytes,\n"
	"every code block, heading and protected literal survive; a step that fails is\n"
	"rolled back. --hash gets the output's tree hash (rewritten only when it changes);\n"
	"--report a JSON report, --report-md a readable one, --plan the plans (hybrid),\n"
	"a part a skill ({\"skills\": [...]}).\n"
	"--mode copy compiles nothing: every skill is copied byte for byte (STATIC_MODE=copy,\n"
	"skillc-fast's standalone mode).\n"
	"--dry-run (hybrid) prints the plan and writes nothing; it never calls the model:\n"
	"when the plan is not cached it says so. --timings prints each phase's time (load,\n"
	"plan, lint, every pass and step, write) on stderr.\n"
	"Exit 0 done (rollbacks included), 1 the work failed (e.g. the model could not be\n"
	"reached), 2 bad usage or input.\n";

struct opts {
	const char *skill, *profile, *out, *hash, *report, *report_md, *plan_out, *mode, *model;
	const char *only; /* --only: the skills to compile (SKILLS), NULL: all */
	bool dry_run, timings;
};

/* One skill of the set being compiled. */
struct compile {
	const struct opts *o;
	struct skill_src src;
	const cJSON *resolution;  /* profile.json (the set's) */
	const cJSON *profile;     /* its "profile" */
	struct guard_base guard;
	struct skill_out out;
	struct body_size size;    /* out's body, measured once a change: */
	bool sized;               /* false until measured, again when out changes */
	cJSON *steps, *rollbacks;
	double mark;              /* --timings: when the phase being timed began */
};

/* --timings: the time since the last mark, on stderr (never in the report,
 * whose bytes must not depend on the machine's speed). */
static void timing_line(const struct opts *o, const char *phase, double since)
{
	if (o->timings)
		fprintf(stderr, "skillc-static: timing: %-28s %8.3f ms\n", phase, (now_mono() - since) * 1000);
}

static void timing(struct compile *c, const char *phase)
{
	timing_line(c->o, phase, c->mark);
	c->mark = now_mono();
}

static struct opts opt = { .mode = "deterministic" };
static const struct opt rows[] = {
	OPT_STRING("skill", &opt.skill, "DIR", "the skill set root (e.g. inputs/skill/)"),
	OPT_STRING("profile", &opt.profile, "FILE", "skillc-profile's profile.json"),
	OPT_STRING("out", &opt.out, "DIR", "where the compiled set goes"),
	OPT_STRING("hash", &opt.hash, "FILE", "the output's tree hash"),
	OPT_STRING("report", &opt.report, "FILE", "a JSON report"),
	OPT_STRING("report-md", &opt.report_md, "FILE", "a readable report"),
	OPT_STRING("plan", &opt.plan_out, "FILE", "the plans (hybrid)"),
	OPT_STRING("only", &opt.only, "NAMES", "compile these skills alone, copy the others"),
	OPT_STRING("mode", &opt.mode, "deterministic|hybrid|copy", "how (deterministic)"),
	OPT_STRING("external-model", &opt.model, "ID", "hybrid's planning model ($EXTERNAL_MODEL)"),
	OPT_BOOL("dry-run", &opt.dry_run, "(hybrid) print the plan, write nothing"),
	OPT_BOOL("timings", &opt.timings, "each phase's time on stderr"),
	OPT_END,
};

static void parse_args(int argc, char **argv, const struct opts *o)
{
	opt.model = getenv("EXTERNAL_MODEL");
	opts_parse_or_die(rows, argc, argv, 1, NULL);
	if (!o->skill || !o->profile || (!o->out && !o->dry_run))
		die(2, "--skill, --profile and --out are required (see --help)");
	if (strcmp(o->mode, "deterministic") && strcmp(o->mode, "hybrid") &&
	    strcmp(o->mode, "copy"))
		die(2, "bad --mode '%s': deterministic, hybrid or copy (STATIC_MODE)", o->mode);
	if (!strcmp(o->mode, "hybrid") && (!o->model || !*o->model))
		die(2, "STATIC_MODE=hybrid needs EXTERNAL_MODEL (the planning model, provider/model-id)");
	if (o->dry_run && strcmp(o->mode, "hybrid"))
		die(2, "--dry-run prints a hybrid plan: use it with --mode hybrid");
}

/* The output's body size (a step's before is the last one's after). */
static struct body_size out_size(struct compile *c)
{
	if (!c->sized)
		c->size = body_measure(skill_out_model(&c->out));
	c->sized = true;
	return c->size;
}

static cJSON *size_json(struct compile *c)
{
	struct body_size s = out_size(c);
	cJSON *j = cJSON_CreateObject();
	json_set_num(j, "lines", (double)s.lines);
	json_set_num(j, "tokens", (double)s.tokens);
	return j;
}

static bool same_out(const struct skill_out *a, const struct skill_out *b)
{
	if (a->md.len != b->md.len || memcmp(a->md.data, b->md.data, a->md.len) || a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->files[i].path, b->files[i].path) || a->files[i].data.len != b->files[i].data.len ||
		    memcmp(a->files[i].data.data, b->files[i].data.data, a->files[i].data.len))
			return false;
	return true;
}

/* A pass or a plan step: 0 done, 1 rejected (e says why), -1 broken. */
typedef int (*step_fn)(const cJSON *profile, const struct skill_src *src, struct skill_out *o,
		       const void *arg, cJSON *notes, struct err *e);

/* Runs one pass or plan step on a copy of the output and keeps the copy
 * only when the guard passes. */
static void run_step(struct compile *c, cJSON *step, step_fn fn, const void *arg)
{
	struct skill_out trial;
	skill_out_copy(&trial, &c->out);
	json_set(step, "before", size_json(c));
	cJSON *notes = cJSON_CreateObject();
	struct err e = { 0 };
	int rc = fn(c->profile, &c->src, &trial, arg, notes, &e);
	json_set(step, "notes", notes);
	const char *status;
	if (rc < 0) {
		status = "rolled_back";
		cJSON *g = cJSON_CreateObject();
		json_set_str(g, "check", "error");
		json_set_str(g, "item", e.msg);
		json_set(step, "guard", g);
	} else if (rc > 0) {
		status = "rejected";
		json_set_str(step, "reason", e.msg);
	} else {
		struct guard_fail f;
		if (guard_check(&c->guard, &c->src, &trial, &f)) {
			status = "rolled_back";
			cJSON *g = cJSON_CreateObject();
			json_set_str(g, "check", f.check);
			json_set_str(g, "item", f.item);
			json_set_num(g, "want", f.want);
			json_set_num(g, "have", f.have);
			json_set(step, "guard", g);
			guard_fail_free(&f);
		} else {
			bool same = same_out(&trial, &c->out);
			status = same ? "unchanged" : "applied";
			c->sized = c->sized && same; /* the same bytes measure the same */
			skill_out_free(&c->out);
			c->out = trial;
			trial = (struct skill_out){ 0 };
		}
	}
	skill_out_free(&trial);
	json_set_str(step, "status", status);
	json_set(step, "after", size_json(c));
	if (json_get(step, "guard")) {
		cJSON *r = cJSON_CreateObject();
		json_set_str(r, "step", json_str(step, "step"));
		json_set(r, "guard", cJSON_Duplicate(json_get(step, "guard"), 1));
		cJSON_AddItemToArray(c->rollbacks, r);
	}
	timing(c, json_str(step, "step"));
	cJSON_AddItemToArray(c->steps, step);
}

static int pass_step(const cJSON *profile, const struct skill_src *src, struct skill_out *o,
		     const void *arg, cJSON *notes, struct err *e)
{
	const struct pass_def *p = arg;
	struct pass_ctx ctx = { src, profile };
	return p->run(&ctx, o, notes, e);
}

static void run_passes(struct compile *c)
{
	for (size_t i = 0; i < pass_count; i++) {
		const struct pass_def *p = &pass_table[i];
		char *why;
		bool on = pass_selected(p, c->profile, &why);
		cJSON *step = cJSON_CreateObject();
		char *name = xasprintf("pass %s", p->name);
		json_set_str(step, "step", name);
		free(name);
		json_set_str(step, "kind", "pass");
		json_set_str(step, "name", p->name);
		json_set_str(step, "what", p->what);
		json_set_str(step, "why", why);
		free(why);
		if (!on) {
			json_set_str(step, "status", "skipped");
			cJSON_AddItemToArray(c->steps, step);
			continue;
		}
		run_step(c, step, pass_step, p);
	}
}

/* Lint of a skill folder: every error and warning of the validator, with
 * paths relative to the skill folder so reports do not name temp dirs.
 * docs: the models of its Markdown files we hold (never parsed twice). */
static cJSON *lint(const char *dir, const struct check_doc *docs, size_t ndocs)
{
	struct check_report *r;
	struct check_options o = { true, docs, ndocs };
	check_skill_opts(dir, &o, &r);
	cJSON *j = cJSON_CreateObject();
	json_set_str(j, "verdict", check_verdict_name(r->verdict));
	cJSON *list = cJSON_AddArrayToObject(j, "findings");
	size_t dl = strlen(dir);
	for (int pass = 0; pass < 2; pass++) {
		struct check_finding *v = pass ? r->warnings : r->errors;
		size_t n = pass ? r->nwarnings : r->nerrors;
		for (size_t i = 0; i < n; i++) {
			cJSON *f = cJSON_CreateObject();
			json_set_str(f, "severity", pass ? "warning" : "error");
			json_set_str(f, "rule", v[i].rule);
			const char *file = v[i].file;
			if (!strncmp(file, dir, dl) && file[dl] == '/')
				file += dl + 1;
			json_set_str(f, "file", file);
			json_set_num(f, "line", v[i].line);
			/* messages may quote the folder's path: keep them portable */
			struct buf m = BUF_INIT;
			for (const char *p = v[i].message; *p;) {
				if (!strncmp(p, dir, dl)) {
					buf_adds(&m, "<skill>");
					p += dl;
				} else {
					buf_addc(&m, *p++);
				}
			}
			json_set_str(f, "message", m.data);
			buf_free(&m);
			cJSON_AddItemToArray(list, f);
		}
	}
	json_set_num(j, "count", cJSON_GetArraySize(list));
	check_report_free(r);
	return j;
}

static void mkparent(const char *path)
{
	struct err e = { 0 };
	if (fs_mkdirs_parent(path, &e) < 0)
		die_err(&e);
}

/* The written tree must hold exactly the source's entries, SKILL.md and
 * the added files: nothing else, nothing outside. */
static int verify_written(const struct compile *c, const char *root, struct err *e)
{
	struct fs_tree t = { 0 };
	char *dir = path_join(root, c->src.name);
	int rc = fs_list_tree(dir, &t, e);
	for (size_t i = 0; rc == 0 && i < t.n; i++) {
		const char *p = t.v[i].path;
		bool known = skill_path_taken(&c->src, &c->out, p);
		if (!known)
			rc = err_set(e, ERR_WORK, "guard: '%s/%s' was written but belongs to no source or added file", dir, p);
	}
	fs_tree_free(&t);
	free(dir);
	return rc;
}

static void report_md(const struct compile *c, const cJSON *rep, struct buf *md);

/* The first error of the output's check whose rule the source's check did
 * not break, or NULL. An error the source had (ingest took it with a
 * warning; skillc-check names it) is the author's to fix: the compile
 * mends what it can (specfix) and must not add one. */
static const cJSON *new_error(const cJSON *before, const cJSON *after)
{
	for (const cJSON *f = json_get(after, "findings")->child; f; f = f->next) {
		if (strcmp(json_str(f, "severity"), "error"))
			continue;
		bool had = false;
		for (const cJSON *b = json_get(before, "findings")->child; b && !had; b = b->next)
			had = !strcmp(json_str(b, "severity"), "error") && !strcmp(json_str(b, "rule"), json_str(f, "rule"));
		if (!had)
			return f;
	}
	return NULL;
}

/* Writes the compiled skill into the set's temporary root tmp, checks
 * what was written and lints it. */
static void write_skill(struct compile *c, const char *tmp, cJSON *rep)
{
	struct err e = { 0 };
	/* no writeback started: the publication is rebuildable, never synced */
	if (skill_out_write(&c->src, &c->out, tmp, false, &e) < 0 ||
	    verify_written(c, tmp, &e) < 0) {
		struct err e2;
		fs_remove_tree(tmp, &e2);
		die_err(&e);
	}
	char *skill_dir = path_join(tmp, c->src.name);
	struct check_doc *docs = xcalloc(c->out.n + 1, sizeof *docs);
	docs[0] = (struct check_doc){ c->src.md_name, skill_out_model(&c->out) };
	for (size_t i = 0; i < c->out.n; i++)
		docs[i + 1] = (struct check_doc){ c->out.files[i].path, pkg_file_model(&c->out.files[i]) };
	const cJSON *after = json_set(rep, "lint_after", lint(skill_dir, docs, c->out.n + 1));
	free(docs);
	free(skill_dir);
	const cJSON *f = new_error(json_get(rep, "lint_before"), after);
	if (f) { /* never publish a skill the compile made break the spec */
		err_set(&e, ERR_WORK, "the compiled '%s' breaks the Agent Skills spec where its source did not: %s:%d: %s [%s]",
			c->src.name, json_str(f, "file"), (int)json_num(f, "line", 0), json_str(f, "message"),
			json_str(f, "rule"));
		struct err e2;
		fs_remove_tree(tmp, &e2);
		die_err(&e);
	}
	const cJSON *old = cJSON_GetArrayItem(json_get(after, "findings"), 0);
	if (strcmp(json_str(after, "verdict"), "valid") && old)
		warnf("warning: the compiled '%s' still breaks the Agent Skills spec as its source does: %s:%d: %s [%s]; "
		      "fix it in the source skill",
		      c->src.name, json_str(old, "file"), (int)json_num(old, "line", 0), json_str(old, "message"),
		      json_str(old, "rule"));
}

/* Adds path to the publication unless it holds these bytes already. */
static int pub_if_changed(struct fs_pub *p, const char *path, const struct buf *b, struct err *e)
{
	return fs_pub_file_if_changed(p, path, b->data, b->len, e) < 0 ? -1 : 0;
}

static int pub_json(struct fs_pub *p, const char *path, const cJSON *j, struct err *e)
{
	struct buf b = BUF_INIT;
	json_canon(j, true, &b);
	buf_addc(&b, '\n');
	int r = pub_if_changed(p, path, &b, e);
	buf_free(&b);
	return r;
}

/* The set built in tmp, the reports, the plans and the hash stamp go into
 * place as one publication: one fsync round for all, not two a file. */
static void write_set(const struct opts *o, const char *tmp, const cJSON *rep, const cJSON *plans,
                      const struct buf *md)
{
	struct err e = { 0 };
	const char *files[] = { o->report, o->report_md, o->plan_out, o->hash };
	for (size_t i = 0; i < ARRAY_LEN(files); i++)
		if (files[i])
			mkparent(files[i]); /* before any temp exists: a failure here leaves none */
	struct fs_pub p = FS_PUB_REBUILDABLE; /* make rebuilds a torn one (durability.md) */
	hash_hex h;
	int r = o->hash ? hash_tree(tmp, h, &e)
			: 0; /* paths are relative: the same hash as at o->out */
	fs_pub_dir(&p, tmp, o->out);
	if (r == 0 && o->report)
		r = pub_json(&p, o->report, rep, &e);
	if (r == 0 && o->report_md)
		r = pub_if_changed(&p, o->report_md, md, &e);
	if (r == 0 && o->plan_out)
		r = pub_json(&p, o->plan_out, plans, &e);
	if (r == 0 && o->hash) {
		struct buf line = BUF_INIT;
		buf_printf(&line, "%s\n", h);
		r = pub_if_changed(&p, o->hash, &line, &e);
		buf_free(&line);
	}
	if (r < 0) {
		fs_pub_abort(&p);
		fs_pub_free(&p);
		die_err(&e);
	}
	if (fs_pub_commit(&p, &e) < 0)
		die_err(&e);
}

static cJSON *profile_summary(const cJSON *res, const cJSON *p)
{
	cJSON *j = cJSON_CreateObject();
	json_set_str(j, "name", json_str(res, "name"));
	json_set_str(j, "source", json_str(res, "source"));
	json_set_str(j, "file", json_str(res, "file"));
	json_set_str(j, "model", json_str(res, "model"));
	json_set_str(j, "why", json_str(res, "why"));
	json_set(j, "body_budget", cJSON_Duplicate(json_get(p, "body_budget"), 1));
	json_set(j, "prefers", cJSON_Duplicate(json_get(p, "prefers"), 1));
	json_set(j, "weaknesses", cJSON_Duplicate(json_get(p, "weaknesses"), 1));
	return j;
}

static cJSON *load_profile(const struct opts *o)
{
	struct err e = { 0 };
	cJSON *res = json_read_file(o->profile, &e);
	if (!res)
		die(2, "%s (run make task=<t> profile)", e.msg);
	char *what = xasprintf("%s: \"profile\"", o->profile);
	if (profile_check(json_get(res, "profile"), what, &e) < 0)
		die_err(&e);
	free(what);
	return res;
}

static void load(struct compile *c, const struct opts *o, const cJSON *resolution, const char *dir)
{
	struct err e = { 0 };
	memset(c, 0, sizeof *c);
	c->o = o;
	c->resolution = resolution;
	c->profile = json_get(resolution, "profile");
	if (skill_src_load_dir(dir, &c->src, &e) < 0)
		die_err(&e);
	guard_init(&c->guard, &c->src);
	skill_out_init(&c->out, &c->src);
	c->steps = cJSON_CreateArray();
	c->rollbacks = cJSON_CreateArray();
}

static void unload(struct compile *c)
{
	skill_out_free(&c->out);
	guard_free(&c->guard);
	skill_src_free(&c->src);
	cJSON_Delete(c->steps);
	cJSON_Delete(c->rollbacks);
}

/* Hybrid: one plan, each operation a step. NULL (dry run only) when the
 * plan is not cached. */
static cJSON *run_plan(struct compile *c, cJSON *rep)
{
	struct err e = { 0 };
	struct plan_info info;
	cJSON *plan = plan_obtain(c->o->model, c->profile, &c->src, c->o->dry_run, &info, &e);
	if (!plan)
		die_err(&e);
	if (json_get(plan, "cached") && !json_bool(plan, "cached", true))
		return plan; /* dry run, not cached: says so, runs no step */
	/* progress on stdout, unless stdout is --dry-run's JSON */
	fprintf(c->o->dry_run ? stderr : stdout, "plan from %s: %d request(s), %d cache hit(s), %d repair(s), %d operation(s)\n",
		c->o->model, info.requests, info.cache_hits, info.repairs, cJSON_GetArraySize(json_get(plan, "operations")));
	fflush(stdout);
	cJSON *llm = cJSON_CreateObject();
	json_set_str(llm, "planner", c->o->model);
	json_set_str(llm, "cache_key", info.key);
	json_set_bool(llm, "cached", info.cached);
	json_set_num(llm, "requests", info.requests);
	json_set_num(llm, "repairs", info.repairs);
	json_set(rep, "plan", llm);
	const cJSON *ops = json_get(plan, "operations");
	int k = 0;
	for (const cJSON *op = ops ? ops->child : NULL; op; op = op->next) {
		cJSON *step = cJSON_CreateObject();
		char *name = xasprintf("plan %d: %s", ++k, json_str(op, "op") ? json_str(op, "op") : "?");
		json_set_str(step, "step", name);
		free(name);
		json_set_str(step, "kind", "plan");
		json_set(step, "operation", cJSON_Duplicate(op, 1));
		run_step(c, step, plan_step, op);
	}
	return plan;
}

/* Compiles one skill of the set into tmp: its own document, budget, guard
 * and report (appended to skills), its plan to plans, its report.md to md.
 * Dry run: its plan and steps to plans, nothing written. */
static void compile_one(const struct opts *o, const cJSON *resolution, const char *dir, const char *tmp,
                        cJSON *skills, cJSON *plans, struct buf *md)
{
	struct compile c;
	double start = now_mono();
	load(&c, o, resolution, dir);
	c.mark = start;
	timing(&c, "load (read, parse, profile)");
	cJSON *rep = cJSON_CreateObject();
	json_set_num(rep, "format", 1);
	json_set_str(rep, "tool", "skillc-static " V_STATIC);
	json_set_str(rep, "mode", o->mode);
	json_set_str(rep, "skill", c.src.name);
	json_set_bool(rep, "compiled", true);
	json_set(rep, "profile", profile_summary(c.resolution, c.profile));
	json_set(rep, "before", size_json(&c));
	cJSON *plan, *entry = cJSON_CreateObject();
	json_set_str(entry, "skill", c.src.name);
	if (!strcmp(o->mode, "hybrid")) {
		timing(&c, "report head");
		plan = run_plan(&c, rep);
	} else {
		plan = cJSON_CreateObject();
		json_set_str(plan, "mode", "deterministic");
		json_set_str(plan, "note", "no plan: STATIC_MODE=deterministic runs only the passes the profile selects");
		json_set(plan, "operations", cJSON_CreateArray());
	}
	json_set(entry, "plan", plan);
	cJSON_AddItemToArray(plans, entry);
	if (o->dry_run) {
		json_set(entry, "steps", c.steps);
		c.steps = NULL;
		cJSON_Delete(rep);
		unload(&c);
		return;
	}
	struct check_doc src_doc = { c.src.md_name, c.src.doc };
	json_set(rep, "lint_before", lint(c.src.dir, &src_doc, 1));
	timing(&c, "lint");
	run_passes(&c);
	cJSON *fix = specfix_description(&c.out);
	if (fix)
		cJSON_AddItemToArray(c.steps, fix);
	c.sized = false;

	struct body_size before = body_measure(c.src.doc), after = out_size(&c);
	json_set(rep, "after", size_json(&c));
	bool within = after.tokens <= profile_budget_tokens(c.profile) && after.lines <= profile_budget_lines(c.profile);
	json_set_bool(rep, "within_budget", within);
	cJSON *added = cJSON_AddArrayToObject(rep, "files_added");
	for (size_t i = 0; i < c.out.n; i++)
		cJSON_AddItemToArray(added, cJSON_CreateString(c.out.files[i].path));
	json_set(rep, "steps", c.steps);
	json_set(rep, "rollbacks", c.rollbacks);
	c.steps = c.rollbacks = NULL;
	timing(&c, "measure");
	if (!within) { /* a skill over its model's budget is not a compiled skill: say what is left */
		if (tmp)
			fs_remove_tree(tmp, &(struct err){ 0 });
		die(1, "'%s' stays over the budget of profile '%s' after every pass: body ~%ld tokens, %ld lines (budget %ld "
		       "tokens, %ld lines); what is left is protected or too small to move: shorten the skill, or raise "
		       "body_budget in a profile of your own (PROFILES_DIR)",
		    c.src.name, json_str(c.resolution, "name"), after.tokens, after.lines, profile_budget_tokens(c.profile),
		    profile_budget_lines(c.profile));
	}

	write_skill(&c, tmp, rep);
	report_md(&c, rep, md);
	timing(&c, "package (files, report.md)");
	printf("%s: body %ld -> %ld lines, ~%ld -> ~%ld tokens (budget %ld tokens, %ld lines: %s); %zu file(s) added; %d rollback(s)\n",
	       c.src.name, before.lines, after.lines, before.tokens, after.tokens, profile_budget_tokens(c.profile),
	       profile_budget_lines(c.profile), within ? "within" : "over", c.out.n,
	       cJSON_GetArraySize(json_get(rep, "rollbacks")));
	cJSON_AddItemToArray(skills, rep);
	unload(&c);
}

/* A skill SKILLS leaves out, or every one in copy mode: copied as it is,
 * byte for byte; why says which. */
static void copy_one(const char *dir, const char *tmp, const char *why, cJSON *skills,
                     struct buf *md)
{
	struct err e = { 0 };
	struct skill_src src;
	struct skill_out out;
	if (skill_src_load_dir(dir, &src, &e) < 0)
		die_err(&e);
	skill_out_init(&out, &src);
	if (skill_out_write(&src, &out, tmp, false, &e) < 0)
		die_err(&e);
	cJSON *rep = cJSON_CreateObject();
	json_set_str(rep, "skill", src.name);
	json_set_bool(rep, "compiled", false);
	json_set_str(rep, "why", why);
	cJSON_AddItemToArray(skills, rep);
	buf_printf(md, "# %s: not compiled\n\n%s.\n\n", src.name, why);
	const char *colon = strchr(why, ':');
	printf("%s: %.*s,%s\n", src.name, (int)(colon - why), why, colon + 1);
	skill_out_free(&out);
	skill_src_free(&src);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_STATIC);
	parse_args(argc, argv, &opt);
	struct opts o = opt;
	struct err e = { 0 };
	double start = now_mono();
	cJSON *resolution = load_profile(&o);
	struct strlist names = STRLIST_INIT, only = STRLIST_INIT;
	if (skill_set_names(o.skill, &names, &e) < 0 || (o.only && skill_set_select(o.skill, &names, o.only, &only, &e) < 0))
		die_err(&e);
	char *tmp = NULL;
	if (!o.dry_run) {
		mkparent(o.out);
		tmp = fs_temp_beside(o.out);
		if (fs_mkdirs(tmp, &e) < 0)
			die_err(&e);
	}
	/* every phase is timed: the lines add up to the total */
	timing_line(&o, "set (profile.json, names, temp)", start);
	cJSON *rep = cJSON_CreateObject(), *plans = cJSON_CreateObject();
	json_set_num(rep, "format", 2);
	json_set_str(rep, "tool", "skillc-static " V_STATIC);
	json_set_str(rep, "mode", o.mode);
	json_set(rep, "profile", profile_summary(resolution, json_get(resolution, "profile")));
	cJSON *skills = cJSON_AddArrayToObject(rep, "skills"), *plan_list = cJSON_AddArrayToObject(plans, "skills");
	struct buf md = BUF_INIT;
	for (size_t i = 0; i < names.n; i++) {
		char *dir = path_join(o.skill, names.v[i]);
		bool copy = !strcmp(o.mode, "copy");
		if (!copy && (!o.only || strlist_has(&only, names.v[i])))
			compile_one(&o, resolution, dir, tmp, skills, plan_list, &md);
		else if (!o.dry_run)
			copy_one(dir, tmp,
			         copy ? "STATIC_MODE=copy: copied unchanged"
			              : "not named in SKILLS: copied unchanged",
			         skills, &md);
		free(dir);
	}
	if (o.dry_run) {
		struct buf b = BUF_INIT;
		json_canon(plans, true, &b);
		printf("%s\n", b.data);
		buf_free(&b);
	} else {
		double mark = now_mono();
		write_set(&o, tmp, rep, plans, &md);
		timing_line(&o, "write (publish, hash, reports)", mark);
		timing_line(&o, "total", start);
	}
	buf_free(&md);
	free(tmp);
	strlist_free(&names);
	strlist_free(&only);
	cJSON_Delete(plans);
	cJSON_Delete(rep);
	cJSON_Delete(resolution);
	return 0;
}

/* ---- report.md ---------------------------------------------------------- */

static long num(const cJSON *o, const char *a, const char *b)
{
	return (long)json_num(json_get(o, a), b, 0);
}

/* report.md, a section each: what ran with which profile and budget. */
static void md_head(const struct compile *c, const cJSON *rep, struct buf *md)
{
	const cJSON *p = json_get(rep, "profile");
	buf_printf(md, "# Static compile of %s\n\n", c->src.name); /* a section a skill of the set */
	const cJSON *plan = json_get(rep, "plan");
	if (plan)
		buf_printf(md, "- Mode: hybrid, planner `%s` (%s)\n", json_str(plan, "planner"),
			   json_bool(plan, "cached", false) ? "plan from the cache" : "plan asked now");
	else
		buf_printf(md, "- Mode: %s\n", json_str(rep, "mode"));
	buf_printf(md, "- Profile: **%s** (%s %s) for model `%s`: %s\n", json_str(p, "name"), json_str(p, "source"),
		   json_str(p, "file"), *json_str(p, "model") ? json_str(p, "model") : "(none)", json_str(p, "why"));
	buf_printf(md, "- Budget: %ld tokens, %ld lines. Body before: %ld lines, ~%ld tokens; after: %ld lines, ~%ld tokens (%s).\n",
		   profile_budget_tokens(c->profile), profile_budget_lines(c->profile), num(rep, "before", "lines"),
		   num(rep, "before", "tokens"), num(rep, "after", "lines"), num(rep, "after", "tokens"),
		   json_bool(rep, "within_budget", false) ? "within budget" : "over budget");
}

/* One row a step: its status, sizes before and after, and why. */
static void md_steps(const cJSON *rep, struct buf *md)
{
	buf_adds(md, "\n## Steps\n\n| step | status | lines | tokens | why / result |\n|---|---|---|---|---|\n");
	for (const cJSON *s = json_get(rep, "steps")->child; s; s = s->next) {
		const char *why = json_str(s, "why");
		if (!why && json_get(s, "operation"))
			why = json_str(json_get(s, "operation"), "section");
		const cJSON *g = json_get(s, "guard");
		char *detail = g ? xasprintf("guard %s lost: %s", json_str(g, "check"), json_str(g, "item"))
		                 : json_str(s, "reason") ? xasprintf("rejected: %s", json_str(s, "reason"))
		                 : xstrdup(why ? why : "");
		if (json_get(s, "before"))
			buf_printf(md, "| %s | %s | %ld -> %ld | %ld -> %ld | %s |\n", json_str(s, "step"), json_str(s, "status"),
				   num(s, "before", "lines"), num(s, "after", "lines"), num(s, "before", "tokens"),
				   num(s, "after", "tokens"), detail);
		else
			buf_printf(md, "| %s | %s | | | %s |\n", json_str(s, "step"), json_str(s, "status"), detail);
		free(detail);
	}
}

/* The sections moved to references/, and the rollbacks of the guard. */
static void md_moved_and_rollbacks(const cJSON *rep, struct buf *md)
{
	const cJSON *added = json_get(rep, "files_added");
	if (cJSON_GetArraySize(added)) {
		buf_adds(md, "\n## Moved to references/\n\n");
		for (const cJSON *s = json_get(rep, "steps")->child; s; s = s->next)
			for (const cJSON *m = json_get(json_get(s, "notes"), "moved") ? json_get(json_get(s, "notes"), "moved")->child : NULL; m; m = m->next)
				buf_printf(md, "- `%s` (%s, score %ld, %ld lines) -> `%s`: read when %s\n", json_str(m, "id"),
					   json_str(m, "class"), (long)json_num(m, "score", 0), (long)json_num(m, "lines", 0),
					   json_str(m, "file"), json_str(m, "when"));
	}
	const cJSON *rb = json_get(rep, "rollbacks");
	buf_printf(md, "\n## Rollbacks\n\n");
	if (!cJSON_GetArraySize(rb))
		buf_adds(md, "None: every step kept the frontmatter, code blocks, headings and literals.\n");
	for (const cJSON *r = rb->child; r; r = r->next) {
		const cJSON *g = json_get(r, "guard");
		buf_printf(md, "- %s: check **%s** failed on `%s`\n", json_str(r, "step"), json_str(g, "check"), json_str(g, "item"));
	}
}

/* File references rewritten, dangling or escaping the skill. */
static void md_refs(const cJSON *rep, struct buf *md)
{
	buf_adds(md, "\n## File references\n\n");
	int refs = 0;
	for (const cJSON *s = json_get(rep, "steps")->child; s; s = s->next) {
		const cJSON *n = json_get(s, "notes");
		for (const cJSON *r = json_get(n, "rewritten") ? json_get(n, "rewritten")->child : NULL; r; r = r->next, refs++)
			buf_printf(md, "- rewritten `%s` -> `%s` (%s line %ld)\n", json_str(r, "from"), json_str(r, "to"),
				   json_str(r, "file"), (long)json_num(r, "line", 0));
		for (const char *k = "dangling"; k; k = !strcmp(k, "dangling") ? "escaping" : NULL)
			for (const cJSON *r = json_get(n, k) ? json_get(n, k)->child : NULL; r; r = r->next)
				buf_printf(md, "- %s reference `%s` (%s line %ld): %s\n", k, json_str(r, "path"), json_str(r, "file"),
					   (long)json_num(r, "line", 0), json_str(r, "why")), refs++;
	}
	if (!refs)
		buf_adds(md, "Nothing to report.\n");
}

/* The lint verdict and findings, before and after. */
static void md_lint(const cJSON *rep, struct buf *md)
{
	buf_adds(md, "\n## Lint\n\n");
	for (const char *k = "lint_before"; k; k = !strcmp(k, "lint_before") ? "lint_after" : NULL) {
		const cJSON *l = json_get(rep, k);
		buf_printf(md, "%s: %s, %ld finding(s)\n", !strcmp(k, "lint_before") ? "Before" : "After",
			   json_str(l, "verdict"), (long)json_num(l, "count", 0));
		for (const cJSON *f = json_get(l, "findings")->child; f; f = f->next)
			buf_printf(md, "- %s %s (%s:%ld): %s\n", json_str(f, "severity"), json_str(f, "rule"), json_str(f, "file"),
				   (long)json_num(f, "line", 0), json_str(f, "message"));
		buf_addc(md, '\n');
	}
}

static void report_md(const struct compile *c, const cJSON *rep, struct buf *md)
{
	md_head(c, rep, md);
	md_steps(rep, md);
	md_moved_and_rollbacks(rep, md);
	md_refs(rep, md);
	md_lint(rep, md);
}
