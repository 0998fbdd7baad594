/* skillc-deep — the deep stage: rounds of section scoring, one local edit,
 * candidate trials and a decision, keeping the best validated skill; then
 * S_final and its final evaluation. make runs one step per target
 * (deep-start, deep-K-score, deep-K-edit, deep-K-eval.NNN, deep-K-look.NNN,
 * deep-K-decide, deep-final, final-eval.NNN); `skillc-deep run` drives the
 * same steps outside make. Files live under <run>/artifacts/deep/ with
 * run-relative paths inside; see docs/deep.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/versions.h"
#include "compile/package.h"
#include "compile/profile.h"
#include "eval/store.h"
#include "optimize/ask.h"
#include "optimize/decision.h"
#include "optimize/edit.h"
#include "optimize/patch.h"
#include "optimize/sections.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"

static const char usage[] =
	"usage: skillc-deep start  --run DIR --base-source S --base-skill DIR --base-trials DIR --base-count N\n"
	"                          [--cand-source S --cand-skill DIR --cand-trials DIR --cand-count N] RULE\n"
	"       skillc-deep score  --run DIR --round K --model M [--task DIR]\n"
	"       skillc-deep edit   --run DIR --round K --model M [--task DIR] [--profile FILE]\n"
	"       skillc-deep trial  --run DIR --round K --index I --trial DIR RULE -- COMMAND...\n"
	"       skillc-deep look   --run DIR --round K --look J RULE\n"
	"       skillc-deep decide --run DIR --round K RULE\n"
	"       skillc-deep final  --run DIR --rounds R\n"
	"       skillc-deep final-trial --run DIR --rounds R --index I --trial DIR [--fresh] -- COMMAND...\n"
	"       skillc-deep run    --skill DIR --traces DIR --output DIR --model M --task DIR\n"
	"                          --target-model M [--harness H] [--runner R] [--rounds N] [RULE]\n"
	"       skillc-deep resume --run DIR\n"
	"RULE:  --first N --max N --alpha A --tolerance T [--test barnard|fisher]\n"
	"\n"
	"Paths inside the files are relative to --run; every file is under\n"
	"<run>/artifacts/deep/. start: round-0/ (the better of the base and the\n"
	"candidate skill by the decision rule). score: round-K/scores.json. edit:\n"
	"round-K/edit.json, candidate/, candidate.hash. trial: round-K/trials/III.json,\n"
	"running COMMAND (a skillc-eval) only when the trial is needed. look: the\n"
	"decision after look J, round-K/look-JJJ.json. decide: round-K/decision.json,\n"
	"best.json, rejected.json. final: S_final/, S_final.hash, rejected.json,\n"
	"report.json, report.md. final-trial: the final evaluation's trial I, the last\n"
	"accepted round's trial I copied when S_final is that round's candidate\n"
	"(unless --fresh), else COMMAND.\n"
	"run: every step outside make, the seed's `deep run`: the skill and its traces\n"
	"(trial folders or BenchFlow runs) into --output, --rounds rounds (default 3),\n"
	"candidate trials by skillc-eval (--target-model, --harness opencode, --runner\n"
	"local), then S_final; the settings go to <output>/deep-run.json. resume: the\n"
	"same again from that file; what was done is answered by the caches.\n"
	"\n"
	"Exit 0 done, 1 the work failed, 2 bad usage or input. See docs/deep.md.\n";

struct opts {
	const char *run, *model, *task, *profile, *trial;
	const char *skill_dir, *traces, *target, *harness, *runner; /* run / resume */
	const char *src[2], *skill[2], *trials[2];
	long count[2];
	int round, rounds, index, look;
	bool fresh, rounds_set;
	struct deep_rule rule;
	char **command;
};

static long int_arg(const char *flag, const char *v, long min, long max)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < min || n > max)
		die(2, "%s wants a whole number from %ld to %ld, not '%s'", flag, min, max, v);
	return n;
}

static double num_arg(const char *flag, const char *v, double min, double max)
{
	char *end;
	double x = strtod(v, &end);
	if (!*v || *end || !(x >= min && x <= max))
		die(2, "%s wants a number from %g to %g, not '%s'", flag, min, max, v);
	return x;
}

static void parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->rule = (struct deep_rule){ 3, 6, 3, 0.10, 1.10, DECIDE_BARNARD };
	o->model = getenv("EXTERNAL_MODEL");
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			o->command = argv + i + 1;
			break;
		}
		const char **s = !strcmp(a, "--run")           ? &o->run
			       : !strcmp(a, "--model")         ? &o->model
			       : !strcmp(a, "--task")          ? &o->task
			       : !strcmp(a, "--profile")       ? &o->profile
			       : !strcmp(a, "--trial")         ? &o->trial
			       : !strcmp(a, "--output")        ? &o->run
			       : !strcmp(a, "--skill")         ? &o->skill_dir
			       : !strcmp(a, "--traces")        ? &o->traces
			       : !strcmp(a, "--target-model")  ? &o->target
			       : !strcmp(a, "--harness")       ? &o->harness
			       : !strcmp(a, "--runner")        ? &o->runner
			       : !strcmp(a, "--base-source")   ? &o->src[0]
			       : !strcmp(a, "--cand-source")   ? &o->src[1]
			       : !strcmp(a, "--base-skill")    ? &o->skill[0]
			       : !strcmp(a, "--cand-skill")    ? &o->skill[1]
			       : !strcmp(a, "--base-trials")   ? &o->trials[0]
			       : !strcmp(a, "--cand-trials")   ? &o->trials[1]
							       : NULL;
		if (s) {
			*s = std_option_value(argc, argv, &i);
			continue;
		}
		if (!strcmp(a, "--fresh")) {
			o->fresh = true;
			continue;
		}
		const char *v = std_option_value(argc, argv, &i);
		if (!strcmp(a, "--base-count") || !strcmp(a, "--cand-count"))
			o->count[a[2] == 'c'] = int_arg(a, v, 0, 100000);
		else if (!strcmp(a, "--round"))
			o->round = (int)int_arg(a, v, 1, 100);
		else if (!strcmp(a, "--rounds")) {
			o->rounds = (int)int_arg(a, v, 0, 100);
			o->rounds_set = true;
		}
		else if (!strcmp(a, "--index"))
			o->index = (int)int_arg(a, v, 1, 100000);
		else if (!strcmp(a, "--look"))
			o->look = (int)int_arg(a, v, 1, 1000);
		else if (!strcmp(a, "--first"))
			o->rule.first = int_arg(a, v, 1, 200);
		else if (!strcmp(a, "--max"))
			o->rule.max = int_arg(a, v, 1, 200);
		else if (!strcmp(a, "--alpha"))
			o->rule.alpha = num_arg(a, v, 1e-9, 1);
		else if (!strcmp(a, "--tolerance"))
			o->rule.tolerance = num_arg(a, v, 1, 100);
		else if (!strcmp(a, "--test")) {
			if (strcmp(v, "barnard") && strcmp(v, "fisher"))
				die(2, "--test wants barnard or fisher, not '%s'", v);
			o->rule.test = decide_test_from(v);
		}
		else
			die(2, "unknown option '%s' (see --help)", a);
	}
	if (o->rule.max < o->rule.first)
		o->rule.max = o->rule.first;
	o->rule.step = o->rule.first;
	if (!o->run)
		die(2, "--run DIR (run, resume: --output DIR) is required (see --help)");
}

/* ---------------------------------------------------------------- files */

static char *at(const struct opts *o, const char *rel)
{
	return path_join(o->run, rel);
}

static char *round_file(const struct opts *o, int round, const char *name)
{
	char *rel = xasprintf("artifacts/deep/round-%d/%s", round, name);
	char *p = at(o, rel);
	free(rel);
	return p;
}

static cJSON *read_json(const char *path, const char *hint)
{
	struct err e = { 0 };
	cJSON *v = json_read_file(path, &e);
	if (!v)
		die(2, "%s (%s)", e.msg, hint);
	return v;
}

static void write_json(const char *path, const cJSON *v)
{
	struct err e = { 0 };
	char *dir = path_dir(path);
	if (fs_mkdirs(dir, &e) < 0 || json_write_if_changed(path, v, &e) < 0)
		die_err(&e);
	free(dir);
}

static cJSON *read_best(const struct opts *o, int round)
{
	char *p = round_file(o, round, "best.json");
	cJSON *b = read_json(p, "the round before has not been decided: run make");
	free(p);
	return b;
}

static char *read_text(const char *path)
{
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	if (fs_read(path, 1 << 20, &b, &e) < 0)
		die(2, "%s", e.msg);
	return b.data ? buf_detach(&b) : xstrdup("");
}

static char *instruction_of(const struct opts *o)
{
	if (!o->task)
		return xstrdup("");
	char *p = path_join(o->task, "instruction.md");
	char *t = read_text(p);
	free(p);
	return t;
}

static void hash_of(const char *path, hash_hex h)
{
	struct err e = { 0 };
	if (hash_tree(path, h, &e) < 0)
		die_err(&e);
}

/* The skill under a skills root (run-relative) and the hash of its SKILL.md. */
static void skill_hashes(const struct opts *o, const char *root_rel, hash_hex tree, hash_hex md)
{
	char *root = at(o, root_rel);
	struct skill_src s;
	struct err e = { 0 };
	if (skillpkg_load(root, &s, &e) < 0)
		die_err(&e);
	hash_of(root, tree);
	hash_bytes(s.md.data, s.md.len, md);
	skill_src_free(&s);
	free(root);
}

/* Records of trials dir/test-001 .. test-N (run-relative dir). */
static cJSON *records_of(const struct opts *o, const char *dir_rel, long n)
{
	cJSON *list = cJSON_CreateArray();
	for (long i = 1; i <= n; i++) {
		char *rel = xasprintf("%s/test-%03ld", dir_rel, i);
		char *dir = at(o, rel);
		cJSON *r = record_load(dir, rel, (int)i);
		if (!r)
			die(2, "trial '%s' has no trial.json: its evaluation has not run (make runs it)", dir);
		cJSON_AddItemToArray(list, r);
		free(dir);
		free(rel);
	}
	return list;
}

/* A best.json: the skill (a run-relative skills root), where it came from,
 * and its trials' records. */
static cJSON *best_doc(const struct opts *o, int round, const char *source, const char *skill_rel, cJSON *trials,
		       int accepted_round)
{
	hash_hex tree, md;
	skill_hashes(o, skill_rel, tree, md);
	cJSON *b = cJSON_CreateObject();
	json_set_num(b, "format", 1);
	json_set_num(b, "round", round);
	json_set_str(b, "source", source);
	json_set_str(b, "skill", skill_rel);
	json_set_str(b, "skill_hash", tree);
	json_set_str(b, "skill_md_hash", md);
	json_set(b, "accepted_round", accepted_round ? cJSON_CreateNumber(accepted_round) : cJSON_CreateNull());
	json_set(b, "trials", trials);
	return b;
}

/* The traces a best.json names, loaded (for prompts). */
static void best_traces(const struct opts *o, const cJSON *best, struct trace_set *ts)
{
	memset(ts, 0, sizeof *ts);
	for (const cJSON *r = json_get(best, "trials") ? json_get(best, "trials")->child : NULL; r; r = r->next) {
		if (!json_bool(r, "needed", false))
			continue;
		char *dir = at(o, json_str(r, "trial"));
		char *p = path_join(dir, "trial.json");
		cJSON *t = read_json(p, "a trial of the best skill is missing: make clean-stage its stage and run make");
		ts->v = xrealloc(ts->v, (ts->n + 1) * sizeof *ts->v);
		ts->v[ts->n++] = (struct trace){ xstrdup(path_base(dir)), dir, t, (int)json_num(r, "index", 0),
						  json_bool(r, "scored", false) };
		free(p);
	}
}

static void need_model(const struct opts *o)
{
	if (!o->model || !*o->model)
		die(2, "the deep stage asks the compiler's model: set EXTERNAL_MODEL=provider/model-id (or --model)");
}

/* ---------------------------------------------------------------- start */

static int cmd_start(const struct opts *o)
{
	if (!o->src[0] || !o->skill[0] || !o->trials[0])
		die(2, "start needs --base-source, --base-skill and --base-trials (see --help)");
	cJSON *base = records_of(o, o->trials[0], o->count[0]);
	cJSON *dec = cJSON_CreateObject();
	json_set_num(dec, "format", 1);
	json_set_num(dec, "round", 0);
	const char *winner = o->src[0], *skill = o->skill[0];
	cJSON *trials = base;
	if (o->src[1]) {
		hash_hex bt, bm, ct, cm;
		skill_hashes(o, o->skill[0], bt, bm);
		skill_hashes(o, o->skill[1], ct, cm);
		cJSON *cand = records_of(o, o->trials[1], o->count[1]);
		json_set_str(dec, "baseline", o->src[0]);
		json_set_str(dec, "candidate", o->src[1]);
		if (!strcmp(bt, ct)) {
			json_set_str(dec, "verdict", "reject");
			json_set_str(dec, "why", "the candidate is the baseline, byte for byte");
		} else {
			struct deep_rule one = o->rule;
			long scored = 0;
			for (const cJSON *r = cand->child; r; r = r->next)
				scored += json_bool(r, "scored", false);
			one.first = one.max = one.step = scored > 0 ? scored : 1;
			struct err e = { 0 };
			cJSON *j = deep_judge(&one, base, cand, true, &e);
			if (!j)
				die_err(&e);
			for (cJSON *x = j->child; x; x = x->next)
				json_set(dec, x->string, cJSON_Duplicate(x, true));
			cJSON_Delete(j);
		}
		if (!strcmp(json_str(dec, "verdict"), "accept")) {
			winner = o->src[1];
			skill = o->skill[1];
			trials = cand;
			cJSON_Delete(base);
		} else {
			cJSON_Delete(cand);
		}
	} else {
		json_set_str(dec, "verdict", "reject");
		json_set_str(dec, "why", "one skill only");
	}
	json_set_str(dec, "start", winner);
	cJSON *best = best_doc(o, 0, winner, skill, trials, 0);
	char *p = round_file(o, 0, "best.json");
	write_json(p, best);
	free(p);
	p = round_file(o, 0, "decision.json");
	write_json(p, dec);
	free(p);
	cJSON *rej = cJSON_CreateArray();
	p = round_file(o, 0, "rejected.json");
	write_json(p, rej);
	free(p);
	printf("deep starts from %s (%s)\n", winner, json_str(dec, "why"));
	cJSON_Delete(rej);
	cJSON_Delete(best);
	cJSON_Delete(dec);
	return 0;
}

/* ---------------------------------------------------------------- score */

static int cmd_score(const struct opts *o)
{
	if (!o->round)
		die(2, "--round K is required (see --help)");
	need_model(o);
	cJSON *best = read_best(o, o->round - 1);
	char *root = at(o, json_str(best, "skill"));
	struct skill_src s;
	struct err e = { 0 };
	if (skillpkg_load(root, &s, &e) < 0)
		die_err(&e);
	struct trace_set ts;
	best_traces(o, best, &ts);
	char *inst = instruction_of(o);
	struct llm_client *c = ask_open(&e);
	if (!c)
		die_err(&e);
	struct score_input in = { &s, inst, &ts, o->model, o->round };
	cJSON *doc = sections_score(c, &in, &e);
	if (!doc)
		die_err(&e);
	json_set_str(doc, "skill_hash", json_str(best, "skill_hash"));
	char *p = round_file(o, o->round, "scores.json");
	write_json(p, doc);
	const cJSON *cnt = json_get(doc, "counts");
	printf("round %d: %d unit(s) scored, %d unscored; %ld entr%s dropped (%ld naming no unit, %ld quoting nothing)\n",
	       o->round, cJSON_GetArraySize(json_get(doc, "units")), cJSON_GetArraySize(json_get(doc, "unscored")),
	       (long)(json_num(cnt, "no_unit", 0) + json_num(cnt, "no_quote", 0)),
	       json_num(cnt, "no_unit", 0) + json_num(cnt, "no_quote", 0) == 1 ? "y" : "ies",
	       (long)json_num(cnt, "no_unit", 0), (long)json_num(cnt, "no_quote", 0));
	free(p);
	cJSON_Delete(doc);
	llm_close(c);
	free(inst);
	traces_free(&ts);
	skill_src_free(&s);
	free(root);
	cJSON_Delete(best);
	return 0;
}

/* ---------------------------------------------------------------- edit */

static void publish_skill(const struct skill_src *src, const struct skill_out *out, const char *target,
			  const char *hash_file)
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

static long budget_of(const struct opts *o)
{
	if (!o->profile)
		return 5000;
	cJSON *res = read_json(o->profile, "--profile is skillc-profile's profile.json");
	long b = profile_budget_tokens(json_get(res, "profile"));
	cJSON_Delete(res);
	return b;
}

static int cmd_edit(const struct opts *o)
{
	if (!o->round)
		die(2, "--round K is required (see --help)");
	need_model(o);
	cJSON *best = read_best(o, o->round - 1);
	char *sp = round_file(o, o->round, "scores.json");
	cJSON *scores = read_json(sp, "score the round first");
	char *rp = round_file(o, o->round - 1, "rejected.json");
	cJSON *rejected = read_json(rp, "the round before has not been decided");
	char *root = at(o, json_str(best, "skill"));
	struct skill_src s;
	struct err e = { 0 };
	if (skillpkg_load(root, &s, &e) < 0)
		die_err(&e);
	struct trace_set ts;
	best_traces(o, best, &ts);
	char *inst = instruction_of(o);
	struct llm_client *c = ask_open(&e);
	if (!c)
		die_err(&e);
	struct edit_input in = { &s, scores, rejected, inst, &ts, o->model, o->round, budget_of(o) };
	struct skill_out out;
	cJSON *doc;
	if (deep_edit(c, &in, &out, &doc, &e) < 0)
		die_err(&e);
	char *target = round_file(o, o->round, "candidate"), *hash = round_file(o, o->round, "candidate.hash");
	publish_skill(&s, &out, target, hash);
	hash_hex h;
	hash_of(target, h);
	json_set_str(doc, "candidate_hash", h);
	json_set_str(doc, "baseline_hash", json_str(best, "skill_hash"));
	char *ep = round_file(o, o->round, "edit.json");
	write_json(ep, doc);
	const cJSON *ed = json_get(doc, "edit");
	if (cJSON_IsObject(ed))
		printf("round %d: %s of [%s] holds after %d attempt(s)\n", o->round, json_str(ed, "op"), json_str(ed, "unit"),
		       cJSON_GetArraySize(json_get(doc, "attempts")));
	else
		printf("round %d: no edit: %s\n", o->round, json_str(doc, "why"));
	free(ep);
	free(target);
	free(hash);
	skill_out_free(&out);
	cJSON_Delete(doc);
	llm_close(c);
	free(inst);
	traces_free(&ts);
	skill_src_free(&s);
	free(root);
	free(sp);
	free(rp);
	cJSON_Delete(scores);
	cJSON_Delete(rejected);
	cJSON_Delete(best);
	return 0;
}

/* ---------------------------------------------------------------- trials */

static char *look_path(const struct opts *o, int round, int look)
{
	char name[32];
	snprintf(name, sizeof name, "look-%03d.json", look);
	return round_file(o, round, name);
}

/* Why trial o->index of the round is not needed, or NULL when it is. */
static char *not_needed(const struct opts *o)
{
	char *ep = round_file(o, o->round, "edit.json");
	cJSON *ed = read_json(ep, "run the round's edit first");
	free(ep);
	char *why = NULL;
	if (!cJSON_IsObject(json_get(ed, "edit")))
		why = xstrdup("no edit this round: the candidate is the baseline");
	cJSON_Delete(ed);
	int look = deep_look_of(&o->rule, o->index);
	if (!why && look > 1) {
		char *lp = look_path(o, o->round, look - 1);
		cJSON *l = read_json(lp, "run the look before this trial's batch first");
		free(lp);
		if (!json_bool(l, "go_on", false))
			why = xasprintf("look %d decided: %s", look - 1, json_str(l, "why"));
		cJSON_Delete(l);
	}
	return why;
}

static int run_command(char **cmd)
{
	struct proc_spec spec = { .argv = cmd, .stdin_fd = -1, .tee = { -1, -1 } };
	struct proc_result res;
	struct err e = { 0 };
	if (proc_run(&spec, &res, &e) < 0)
		die_err(&e);
	return res.interrupted ? 128 + res.interrupted : res.exit_code;
}

static char *rel_of(const struct opts *o, const char *path)
{
	size_t n = strlen(o->run);
	if (!strncmp(path, o->run, n) && path[n] == '/')
		return xstrdup(path + n + 1);
	return xstrdup(path);
}

static int cmd_trial(const struct opts *o)
{
	if (!o->round || !o->index || !o->trial || !o->command || !*o->command)
		die(2, "trial needs --round, --index, --trial and -- COMMAND (see --help)");
	char name[32];
	snprintf(name, sizeof name, "trials/%03d.json", o->index);
	char *rp = round_file(o, o->round, name);
	char *why = not_needed(o);
	cJSON *rec;
	if (why) {
		rec = cJSON_CreateObject();
		json_set_num(rec, "index", o->index);
		json_set_bool(rec, "needed", false);
		json_set_str(rec, "why", why);
		printf("round %d trial %d: not needed: %s\n", o->round, o->index, why);
	} else {
		int rc = run_command(o->command);
		if (rc)
			return rc;
		char *rel = rel_of(o, o->trial);
		rec = record_load(o->trial, rel, o->index);
		if (!rec)
			die(1, "the trial '%s' finished without a trial.json", o->trial);
		free(rel);
	}
	write_json(rp, rec);
	cJSON_Delete(rec);
	free(why);
	free(rp);
	return 0;
}

/* The candidate records 1..n (only those written). */
static cJSON *cand_records(const struct opts *o, long n)
{
	cJSON *list = cJSON_CreateArray();
	for (long i = 1; i <= n; i++) {
		char name[32];
		snprintf(name, sizeof name, "trials/%03ld.json", i);
		char *p = round_file(o, o->round, name);
		cJSON *r = read_json(p, "run the round's trials first");
		free(p);
		if (json_bool(r, "needed", false)) {
			char *dir = at(o, json_str(r, "trial"));
			char *tj = path_join(dir, "trial.json");
			if (!fs_exists(tj))
				die(2, "trial '%s' is missing: make clean-stage STAGE=deep-%d-eval.%03ld and run make again", dir,
				    o->round, i);
			free(tj);
			free(dir);
		}
		cJSON_AddItemToArray(list, r);
	}
	return list;
}

static cJSON *judge_at(const struct opts *o, const cJSON *best, int look, bool last)
{
	cJSON *cand = cand_records(o, deep_look_trials(&o->rule, look));
	struct err e = { 0 };
	cJSON *j = deep_judge(&o->rule, json_get(best, "trials"), cand, last, &e);
	if (!j)
		die_err(&e);
	json_set_num(j, "look", look);
	json_set_num(j, "trials", (double)deep_look_trials(&o->rule, look));
	cJSON_Delete(cand);
	return j;
}

static int cmd_look(const struct opts *o)
{
	if (!o->round || !o->look)
		die(2, "look needs --round and --look (see --help)");
	cJSON *best = read_best(o, o->round - 1);
	cJSON *l;
	cJSON *prev = NULL;
	if (o->look > 1) {
		char *pp = look_path(o, o->round, o->look - 1);
		prev = read_json(pp, "run the look before first");
		free(pp);
	}
	char *ep = round_file(o, o->round, "edit.json");
	cJSON *ed = read_json(ep, "run the round's edit first");
	free(ep);
	if (!cJSON_IsObject(json_get(ed, "edit"))) {
		l = cJSON_CreateObject();
		json_set_str(l, "verdict", "reject");
		json_set_str(l, "why", "no edit this round");
	} else if (prev && !json_bool(prev, "go_on", false)) {
		l = cJSON_Duplicate(prev, true);
	} else {
		l = judge_at(o, best, o->look, false);
	}
	json_set_bool(l, "go_on", !strcmp(json_str(l, "verdict"), "extend"));
	char *p = look_path(o, o->round, o->look);
	write_json(p, l);
	printf("round %d look %d: %s: %s\n", o->round, o->look, json_str(l, "verdict"), json_str(l, "why"));
	free(p);
	cJSON_Delete(l);
	cJSON_Delete(prev);
	cJSON_Delete(ed);
	cJSON_Delete(best);
	return 0;
}

/* ---------------------------------------------------------------- decide */

/* The look that decided: the first that did not go on, else the last. */
static cJSON *deciding(const struct opts *o, const cJSON *best, cJSON *looks)
{
	int n = deep_looks(&o->rule);
	for (int j = 1; j < n; j++) {
		char *p = look_path(o, o->round, j);
		cJSON *l = read_json(p, "run the round's looks first");
		free(p);
		cJSON *brief = cJSON_CreateObject();
		json_set_num(brief, "look", j);
		json_set_str(brief, "verdict", json_str(l, "verdict"));
		json_set_str(brief, "why", json_str(l, "why"));
		cJSON_AddItemToArray(looks, brief);
		if (!json_bool(l, "go_on", false))
			return l;
		cJSON_Delete(l);
	}
	return judge_at(o, best, n, true);
}

static cJSON *rejected_entry(const struct opts *o, const cJSON *edit, const cJSON *verdict)
{
	const cJSON *ed = json_get(edit, "edit");
	cJSON *r = cJSON_CreateObject();
	json_set_num(r, "round", o->round);
	json_set_str(r, "unit", json_str(ed, "unit"));
	json_set_str(r, "section", json_str(ed, "section"));
	cJSON *x = json_set(r, "edit", cJSON_CreateObject());
	json_set_str(x, "op", json_str(ed, "op"));
	json_set_str(x, "find", json_str(ed, "find"));
	json_set_str(x, "text", json_str(ed, "text"));
	json_set_str(x, "why", json_str(ed, "why"));
	json_set(r, "evidence", cJSON_Duplicate(json_get(json_get(ed, "score"), "dims"), true));
	const cJSON *st = json_get(verdict, "statistics");
	json_set(r, "counts", cJSON_Duplicate(json_get(st, "counts"), true));
	json_set(r, "p_value", cJSON_Duplicate(json_get(st, "p_value"), true));
	json_set(r, "runtime", cJSON_Duplicate(json_get(json_get(verdict, "runtime"), "why"), true));
	json_set_str(r, "why", json_str(verdict, "why"));
	return r;
}

static int cmd_decide(const struct opts *o)
{
	if (!o->round)
		die(2, "--round K is required (see --help)");
	cJSON *best = read_best(o, o->round - 1);
	char *ep = round_file(o, o->round, "edit.json");
	cJSON *edit = read_json(ep, "run the round's edit first");
	free(ep);
	char *rp = round_file(o, o->round - 1, "rejected.json");
	cJSON *rejected = read_json(rp, "the round before has not been decided");
	free(rp);
	cJSON *dec = cJSON_CreateObject();
	json_set_num(dec, "format", 1);
	json_set_num(dec, "round", o->round);
	json_set(dec, "edit", cJSON_Duplicate(json_get(edit, "edit"), true));
	cJSON *b = json_set(dec, "baseline", cJSON_CreateObject());
	json_set_str(b, "source", json_str(best, "source"));
	json_set_str(b, "skill", json_str(best, "skill"));
	json_set_str(b, "skill_hash", json_str(best, "skill_hash"));
	cJSON *next;
	if (!cJSON_IsObject(json_get(edit, "edit"))) {
		json_set_str(dec, "verdict", "skipped");
		json_set_str(dec, "why", json_str(edit, "why") ? json_str(edit, "why") : "no edit");
		next = cJSON_Duplicate(best, true);
		json_set_num(next, "round", o->round);
	} else {
		cJSON *looks = json_set(dec, "looks", cJSON_CreateArray());
		cJSON *v = deciding(o, best, looks);
		json_set_str(dec, "verdict", json_str(v, "verdict"));
		json_set_str(dec, "why", json_str(v, "why"));
		json_set_num(dec, "decided_at_look", json_num(v, "look", 1));
		json_set(dec, "statistics", cJSON_Duplicate(json_get(v, "statistics"), true));
		json_set(dec, "runtime", cJSON_Duplicate(json_get(v, "runtime"), true));
		cJSON *c = json_set(dec, "candidate", cJSON_CreateObject());
		char *cand_rel = xasprintf("artifacts/deep/round-%d/candidate", o->round);
		json_set_str(c, "skill", cand_rel);
		json_set_str(c, "skill_hash", json_str(edit, "candidate_hash"));
		cJSON *cand = cand_records(o, deep_look_trials(&o->rule, (int)json_num(v, "look", 1)));
		if (!strcmp(json_str(v, "verdict"), "accept")) {
			char *src = xasprintf("deep-%d", o->round);
			cJSON *kept = cJSON_CreateArray();
			for (cJSON *r = cand->child; r; r = r->next)
				if (json_bool(r, "needed", false))
					cJSON_AddItemToArray(kept, cJSON_Duplicate(r, true));
			next = best_doc(o, o->round, src, cand_rel, kept, o->round);
			free(src);
		} else {
			next = cJSON_Duplicate(best, true);
			json_set_num(next, "round", o->round);
			cJSON_AddItemToArray(rejected, rejected_entry(o, edit, v));
		}
		cJSON_Delete(cand);
		free(cand_rel);
		cJSON_Delete(v);
	}
	char *p = round_file(o, o->round, "decision.json");
	write_json(p, dec);
	free(p);
	p = round_file(o, o->round, "best.json");
	write_json(p, next);
	free(p);
	p = round_file(o, o->round, "rejected.json");
	write_json(p, rejected);
	free(p);
	printf("round %d: %s: %s; best: %s\n", o->round, json_str(dec, "verdict"), json_str(dec, "why"), json_str(next, "source"));
	cJSON_Delete(next);
	cJSON_Delete(dec);
	cJSON_Delete(rejected);
	cJSON_Delete(edit);
	cJSON_Delete(best);
	return 0;
}

/* ---------------------------------------------------------------- final */

static void report_md(const cJSON *rep, struct buf *md)
{
	buf_printf(md, "# Deep rounds of %s\n\n", json_str(rep, "skill"));
	buf_printf(md, "- Started from: %s (%s)\n", json_str(rep, "start"), json_str(rep, "start_why"));
	buf_printf(md, "- S_final: %s, from %s (SKILL.md %s)\n\n", json_str(rep, "final_skill"), json_str(rep, "final_source"),
		   json_str(rep, "final_md_hash"));
	buf_adds(md, "| round | edit | verdict | why |\n|---|---|---|---|\n");
	for (const cJSON *r = json_get(rep, "rounds")->child; r; r = r->next) {
		const cJSON *ed = json_get(r, "edit");
		char *what = cJSON_IsObject(ed) ? xasprintf("%s `%s`", json_str(ed, "op"), json_str(ed, "unit")) : xstrdup("none");
		char *why = xstrdup(json_str(r, "why") ? json_str(r, "why") : "");
		for (char *c = why; *c; c++)
			if (*c == '|' || *c == '\n')
				*c = ' ';
		buf_printf(md, "| %ld | %s | %s | %s |\n", (long)json_num(r, "round", 0), what, json_str(r, "verdict"), why);
		free(what);
		free(why);
	}
	buf_printf(md, "\n%d edit(s) rejected and remembered (rejected.json).\n", cJSON_GetArraySize(json_get(rep, "rejected")));
}

static int cmd_final(const struct opts *o)
{
	cJSON *best = read_best(o, o->rounds);
	char *rp = round_file(o, o->rounds, "rejected.json");
	cJSON *rejected = read_json(rp, "the last round has not been decided");
	free(rp);
	char *root = at(o, json_str(best, "skill"));
	char *target = at(o, "artifacts/deep/S_final"), *hash = at(o, "artifacts/deep/S_final.hash");
	struct err e = { 0 };
	char *tmp = fs_temp_beside(target);
	char *parent = path_dir(target);
	if (fs_mkdirs(parent, &e) < 0 || tree_copy(root, tmp, false, &e) < 0 || fs_publish_dir(tmp, target, &e) < 0)
		die_err(&e);
	hash_hex h;
	hash_of(target, h);
	struct err e2 = { 0 };
	if (stamp_write(hash, h, &e2) < 0)
		die_err(&e2);
	cJSON *rep = cJSON_CreateObject();
	json_set_num(rep, "format", 1);
	json_set_str(rep, "tool", "skillc-deep " V_DEEP);
	struct skill_src s;
	if (skillpkg_load(target, &s, &e) < 0)
		die_err(&e);
	json_set_str(rep, "skill", s.name);
	char *fs = xasprintf("artifacts/deep/S_final/%s", s.name);
	json_set_str(rep, "final_skill", fs);
	free(fs);
	json_set_str(rep, "final_hash", h);
	json_set_str(rep, "final_md_hash", json_str(best, "skill_md_hash"));
	json_set_str(rep, "final_source", json_str(best, "source"));
	json_set(rep, "accepted_round", cJSON_Duplicate(json_get(best, "accepted_round"), true));
	char *sp = round_file(o, 0, "decision.json");
	cJSON *start = read_json(sp, "deep-start has not run");
	free(sp);
	json_set_str(rep, "start", json_str(start, "start"));
	json_set_str(rep, "start_why", json_str(start, "why"));
	cJSON *rounds = json_set(rep, "rounds", cJSON_CreateArray());
	for (int k = 1; k <= o->rounds; k++) {
		char *dp = round_file(o, k, "decision.json");
		cJSON *d = read_json(dp, "a round has not been decided");
		free(dp);
		cJSON *x = cJSON_CreateObject();
		json_set_num(x, "round", k);
		json_set(x, "edit", cJSON_Duplicate(json_get(d, "edit"), true));
		json_set_str(x, "verdict", json_str(d, "verdict"));
		json_set_str(x, "why", json_str(d, "why"));
		json_set(x, "p_value", cJSON_Duplicate(json_get(json_get(d, "statistics"), "p_value"), true));
		cJSON_AddItemToArray(rounds, x);
		cJSON_Delete(d);
	}
	json_set(rep, "rejected", cJSON_Duplicate(rejected, true));
	char *p = at(o, "artifacts/deep/rejected.json");
	write_json(p, rejected);
	free(p);
	p = at(o, "artifacts/deep/report.json");
	write_json(p, rep);
	free(p);
	struct buf md = BUF_INIT;
	report_md(rep, &md);
	p = at(o, "artifacts/deep/report.md");
	if (fs_write_if_changed(p, md.data, md.len, &e) < 0)
		die_err(&e);
	free(p);
	printf("S_final: %s/artifacts/deep/S_final/%s (from %s)\n", o->run, s.name, json_str(best, "source"));
	buf_free(&md);
	cJSON_Delete(start);
	cJSON_Delete(rep);
	skill_src_free(&s);
	free(tmp);
	free(parent);
	free(target);
	free(hash);
	free(root);
	cJSON_Delete(rejected);
	cJSON_Delete(best);
	return 0;
}

/* The final evaluation's trial: a copy of the last accepted round's trial
 * when S_final is that round's candidate (the seed's reuse; optimistic,
 * so marked), else the command (a fresh skillc-eval). */
static int cmd_final_trial(const struct opts *o)
{
	if (!o->index || !o->trial || !o->command || !*o->command)
		die(2, "final-trial needs --index, --trial and -- COMMAND (see --help)");
	cJSON *best = read_best(o, o->rounds);
	const cJSON *src = NULL;
	hash_hex fm = "";
	char *final_root = at(o, "artifacts/deep/S_final");
	struct skill_src s;
	struct err e = { 0 };
	if (skillpkg_load(final_root, &s, &e) < 0)
		die_err(&e);
	hash_bytes(s.md.data, s.md.len, fm);
	skill_src_free(&s);
	free(final_root);
	if (!o->fresh && cJSON_IsNumber(json_get(best, "accepted_round")) && !strcmp(fm, json_str(best, "skill_md_hash")))
		for (const cJSON *r = json_get(best, "trials")->child; r; r = r->next)
			if ((int)json_num(r, "index", 0) == o->index && json_bool(r, "needed", false))
				src = r;
	char *tj = path_join(o->trial, "trial.json");
	cJSON *have = fs_exists(tj) ? json_read_file(tj, &e) : NULL;
	bool was_copy = have && json_get(have, "reused_from");
	int rc = 0;
	if (src) {
		char *from = at(o, json_str(src, "trial"));
		if (was_copy && !strcmp(json_str(json_get(have, "reused_from"), "trial"), json_str(src, "trial")) &&
		    !strcmp(json_str(have, "key"), json_str(src, "key"))) {
			printf("final test-%03d: up to date (reused from %s)\n", o->index, json_str(src, "trial"));
		} else {
			char *tmp = fs_temp_beside(o->trial);
			char *parent = path_dir(o->trial);
			cJSON *t = NULL;
			char *tjp = path_join(tmp, "trial.json");
			if (fs_mkdirs(parent, &e) < 0 || tree_copy(from, tmp, true, &e) < 0 || !(t = json_read_file(tjp, &e)))
				die_err(&e);
			cJSON *rf = json_set(t, "reused_from", cJSON_CreateObject());
			json_set_str(rf, "trial", json_str(src, "trial"));
			json_set_str(rf, "stage", json_str(best, "source"));
			json_set_bool(t, "selection_reuse", true);
			json_set_bool(t, "reused", true); /* paid for by the round, not again */
			json_set_str(t, "stage", "final");
			if (json_write_file(tjp, t, &e) < 0)
				die_err(&e);
			if (fs_exists(o->trial) && fs_remove_tree(o->trial, &e) < 0)
				die_err(&e);
			if (rename(tmp, o->trial) < 0)
				die(1, "cannot move '%s' to '%s': %s", tmp, o->trial, strerror(errno));
			printf("final test-%03d: the selection trial %s reused (S_final is round %ld's candidate)\n", o->index,
			       json_str(src, "trial"), (long)json_num(best, "accepted_round", 0));
			cJSON_Delete(t);
			free(tjp);
			free(tmp);
			free(parent);
		}
		free(from);
	} else {
		if (was_copy && fs_remove_tree(o->trial, &e) < 0) /* a reused copy no longer stands for S_final */
			die_err(&e);
		rc = run_command(o->command);
	}
	cJSON_Delete(have);
	free(tj);
	cJSON_Delete(best);
	return rc;
}

/* ---------------------------------------------------------------- run, resume */

/* The skill and its traces copied into the run folder (trial folders are
 * hard-linked; a BenchFlow run gets its normalized trial.json). */
static long stage_inputs(const struct opts *o, const char *task)
{
	struct err e = { 0 };
	struct skill_src s;
	if (skillpkg_load(o->skill_dir, &s, &e) < 0)
		die_err(&e);
	char *root = at(o, "artifacts/start"), *dst = path_join(root, s.name);
	if (!fs_exists(dst) && (fs_mkdirs(root, &e) < 0 || tree_copy(s.dir, dst, false, &e) < 0))
		die_err(&e);
	struct strlist names = STRLIST_INIT;
	strlist_push(&names, s.name);
	struct trace_opts to = { 0, &names };
	struct trace_set ts;
	if (traces_load(o->traces, &to, &ts, &e) < 0)
		die_err(&e);
	for (size_t i = 0; i < ts.n; i++) {
		char *rel = xasprintf("traces/%s/start/test-%03zu", task, i + 1);
		char *d = at(o, rel);
		if (!fs_exists(d)) {
			char *tmp = fs_temp_beside(d), *parent = path_dir(d), *tj = path_join(tmp, "trial.json");
			if (fs_mkdirs(parent, &e) < 0 || tree_copy(ts.v[i].dir, tmp, true, &e) < 0 ||
			    json_write_file(tj, ts.v[i].trial, &e) < 0 || rename(tmp, d) < 0)
				die(1, "cannot copy the trace '%s' to '%s': %s", ts.v[i].dir, d, e.msg[0] ? e.msg : strerror(errno));
			free(tmp);
			free(parent);
			free(tj);
		}
		free(d);
		free(rel);
	}
	long n = (long)ts.n;
	traces_free(&ts);
	strlist_free(&names);
	free(root);
	free(dst);
	skill_src_free(&s);
	return n;
}

static int step(int rc)
{
	if (rc)
		exit(rc);
	return 0;
}

/* Candidate trial i of round k by skillc-eval, through the trial step. */
static void run_trial(struct opts *o, const char *task, int k, int i)
{
	char *dir = xasprintf("%s/traces/%s/deep-%d/test-%03d", o->run, task, k, i);
	char *cand = xasprintf("%s/artifacts/deep/round-%d/candidate", o->run, k);
	char *stage = xasprintf("deep-%d", k), *index = xasprintf("%d", i), *of = xasprintf("%ld", o->rule.max);
	char *inc = path_join(o->run, ".incomplete"), *eval = NULL;
	char *tdir = tool_dir();
	eval = path_join(tdir, "skillc-eval");
	char *cmd[] = { eval, "--task", (char *)o->task, "--skills-root", cand, "--harness", (char *)o->harness,
			"--model", (char *)o->target, "--runner", (char *)o->runner, "--out", dir, "--stage", stage,
			"--index", index, "--of", of, "--incomplete", inc, NULL };
	o->round = k;
	o->index = i;
	o->trial = dir;
	o->command = cmd;
	step(cmd_trial(o));
	free(tdir);
	free(eval);
	free(inc);
	free(dir);
	free(cand);
	free(stage);
	free(index);
	free(of);
}

static int drive(struct opts *o)
{
	char *task = xstrdup(path_base(o->task));
	long n = stage_inputs(o, task);
	char *trials = xasprintf("traces/%s/start", task);
	o->src[0] = "start";
	o->skill[0] = "artifacts/start";
	o->trials[0] = trials;
	o->count[0] = n;
	step(cmd_start(o));
	for (int k = 1; k <= o->rounds; k++) {
		o->round = k;
		step(cmd_score(o));
		step(cmd_edit(o));
		for (int j = 1; j <= deep_looks(&o->rule); j++) {
			for (long i = j == 1 ? 1 : deep_look_trials(&o->rule, j - 1) + 1; i <= deep_look_trials(&o->rule, j); i++)
				run_trial(o, task, k, (int)i);
			if (j < deep_looks(&o->rule)) {
				o->round = k;
				o->look = j;
				step(cmd_look(o));
			}
		}
		o->round = k;
		step(cmd_decide(o));
	}
	step(cmd_final(o));
	free(trials);
	free(task);
	return 0;
}

static cJSON *run_settings(const struct opts *o)
{
	cJSON *s = cJSON_CreateObject();
	json_set_num(s, "format", 1);
	char *abs_skill = fs_real_path(o->skill_dir), *abs_traces = fs_real_path(o->traces), *abs_task = fs_real_path(o->task);
	json_set_str(s, "skill", abs_skill);
	json_set_str(s, "traces", abs_traces);
	json_set_str(s, "task", abs_task);
	free(abs_skill);
	free(abs_traces);
	free(abs_task);
	json_set_str(s, "model", o->model);
	json_set_str(s, "target_model", o->target);
	json_set_str(s, "harness", o->harness);
	json_set_str(s, "runner", o->runner);
	json_set_num(s, "rounds", o->rounds);
	json_set_num(s, "first", (double)o->rule.first);
	json_set_num(s, "max", (double)o->rule.max);
	json_set_num(s, "alpha", o->rule.alpha);
	json_set_num(s, "tolerance", o->rule.tolerance);
	json_set_str(s, "test", decide_test_name(o->rule.test));
	return s;
}

static int cmd_run(struct opts *o, bool resume)
{
	char *rec = at(o, "deep-run.json");
	if (resume) {
		cJSON *s = read_json(rec, "resume --run DIR needs a folder made by skillc-deep run");
		static char *keep[8];
		const char *keys[] = { "skill", "traces", "task", "model", "target_model", "harness", "runner" };
		const char **slots[] = { &o->skill_dir, &o->traces, &o->task, &o->model, &o->target, &o->harness, &o->runner };
		for (size_t i = 0; i < ARRAY_LEN(keys); i++)
			*slots[i] = keep[i] = json_str(s, keys[i]) ? xstrdup(json_str(s, keys[i])) : NULL;
		o->rounds = (int)json_num(s, "rounds", 3);
		o->rule.first = (long)json_num(s, "first", 3);
		o->rule.max = (long)json_num(s, "max", 6);
		o->rule.step = o->rule.first;
		o->rule.alpha = json_num(s, "alpha", 0.10);
		o->rule.tolerance = json_num(s, "tolerance", 1.10);
		o->rule.test = decide_test_from(json_str(s, "test") ? json_str(s, "test") : "barnard");
		cJSON_Delete(s);
	} else {
		if (!o->skill_dir || !o->traces || !o->task || !o->target)
			die(2, "run needs --skill, --traces, --output, --task and --target-model (see --help)");
		if (!o->harness)
			o->harness = "opencode";
		if (!o->runner)
			o->runner = "local";
		cJSON *s = run_settings(o);
		write_json(rec, s);
		cJSON_Delete(s);
	}
	need_model(o);
	free(rec);
	return drive(o);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_DEEP);
	if (argc < 2)
		die(2, "missing step: start, score, edit, trial, look, decide, final or final-trial (see --help)");
	struct opts o;
	parse(argc, argv, &o);
	const char *cmd = argv[1];
	if (!strcmp(cmd, "run") || !strcmp(cmd, "resume")) {
		if (!o.rounds_set)
			o.rounds = 3;
		return cmd_run(&o, !strcmp(cmd, "resume"));
	}
	int rc = !strcmp(cmd, "start")         ? cmd_start(&o)
		 : !strcmp(cmd, "score")       ? cmd_score(&o)
		 : !strcmp(cmd, "edit")        ? cmd_edit(&o)
		 : !strcmp(cmd, "trial")       ? cmd_trial(&o)
		 : !strcmp(cmd, "look")        ? cmd_look(&o)
		 : !strcmp(cmd, "decide")      ? cmd_decide(&o)
		 : !strcmp(cmd, "final")       ? cmd_final(&o)
		 : !strcmp(cmd, "final-trial") ? cmd_final_trial(&o)
					       : (die(2, "unknown step '%s' (see --help)", cmd), 2);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
	return rc;
}
