/* The steps of deep.h up to a round's decision: start, score, edit, the
 * candidate trials, the looks, decide. */
#include "optimize/deep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "optimize/ask.h"
#include "optimize/deepfiles.h"
#include "optimize/edit.h"
#include "optimize/leakload.h"
#include "optimize/sections.h"
#include "optimize/skillpkg.h"

/* ---------------------------------------------------------------- start */

/* The start's verdict between base and cand (records), into dec. */
static int start_judge(const struct deep_opts *o, const cJSON *base, const cJSON *cand, cJSON *dec, struct err *e)
{
	hash_hex bt, bm, ct, cm;
	if (deep_skill_hashes(o, o->skill[0], bt, bm, e) < 0 || deep_skill_hashes(o, o->skill[1], ct, cm, e) < 0)
		return -1;
	json_set_str(dec, "baseline", o->src[0]);
	json_set_str(dec, "candidate", o->src[1]);
	if (!strcmp(bt, ct)) {
		json_set_str(dec, "verdict", "reject");
		json_set_str(dec, "why", "the candidate is the baseline, byte for byte");
		return 0;
	}
	struct deep_rule one = o->rule; /* one look at the candidate's trials, all of them */
	long scored = 0;
	for (const cJSON *r = cand->child; r; r = r->next)
		scored += json_bool(r, "scored", false);
	if (one.pooled) /* a task's share: the rule counts trials per task */
		scored = (scored + (long)o->pool_trials[1].n) / (long)(o->pool_trials[1].n + 1);
	one.first = one.max = one.step = scored > 0 ? scored : 1;
	cJSON *j = deep_judge(&one, base, cand, true, e);
	if (!j)
		return -1;
	for (cJSON *x = j->child; x; x = x->next)
		json_set(dec, x->string, cJSON_Duplicate(x, true));
	cJSON_Delete(j);
	return 0;
}

/* round-0/best.json, decision.json and an empty rejected.json. */
static int start_write(const struct deep_opts *o, const cJSON *best, const cJSON *dec, struct err *e)
{
	cJSON *rej = cJSON_CreateArray();
	char *bp = deep_round_file(o, 0, "best.json"), *dp = deep_round_file(o, 0, "decision.json"),
	     *rp = deep_round_file(o, 0, "rejected.json");
	int rc = deep_write(bp, best, e) < 0 || deep_write(dp, dec, e) < 0 || deep_write(rp, rej, e) < 0 ? -1 : 0;
	free(bp);
	free(dp);
	free(rp);
	cJSON_Delete(rej);
	return rc;
}

/* The records of arm k's trials: its own task's, then each pooled task's. */
static cJSON *start_records(const struct deep_opts *o, int k, struct err *e)
{
	cJSON *all = deep_records(o, o->trials[k], o->count[k], e);
	for (size_t i = 0; all && i < o->pool_trials[k].n; i++) {
		cJSON *more = deep_records(o, o->pool_trials[k].v[i], o->count[k], e), *x;
		if (!more) {
			cJSON_Delete(all);
			return NULL;
		}
		while ((x = cJSON_DetachItemFromArray(more, 0)))
			cJSON_AddItemToArray(all, x);
		cJSON_Delete(more);
	}
	return all;
}

int deep_step_start(const struct deep_opts *o, struct err *e)
{
	if (!o->src[0] || !o->skill[0] || !o->trials[0])
		return err_set(e, ERR_INPUT, "start needs --base-source, --base-skill and --base-trials (see --help)");
	if (o->src[1] && o->pool_trials[1].n != o->pool_trials[0].n)
		return err_set(e, ERR_INPUT,
		               "start: give --pool-cand-trials for every --pool-base-trials");
	cJSON *base = start_records(o, 0, e);
	cJSON *cand = base && o->src[1] ? start_records(o, 1, e) : NULL;
	if (!base || (o->src[1] && !cand)) {
		cJSON_Delete(base);
		return -1;
	}
	cJSON *dec = cJSON_CreateObject();
	json_set_num(dec, "format", 1);
	json_set_num(dec, "round", 0);
	int rc = 0;
	if (cand) {
		rc = start_judge(o, base, cand, dec, e);
	} else {
		json_set_str(dec, "verdict", "reject");
		json_set_str(dec, "why", "one skill only");
	}
	bool to_cand = rc == 0 && cand && !strcmp(json_str(dec, "verdict"), "accept");
	const char *winner = to_cand ? o->src[1] : o->src[0];
	json_set_str(dec, "start", winner);
	cJSON *best = rc < 0 ? NULL
		      : deep_best_doc(o, 0, winner, to_cand ? o->skill[1] : o->skill[0], to_cand ? cand : base, 0, e);
	if (rc == 0 && to_cand) /* best holds (or freed) the winner's records */
		cand = NULL;
	else if (rc == 0)
		base = NULL;
	if (!best || start_write(o, best, dec, e) < 0)
		rc = -1;
	else
		printf("deep starts from %s (%s)\n", winner, json_str(dec, "why"));
	cJSON_Delete(best);
	cJSON_Delete(dec);
	cJSON_Delete(base);
	cJSON_Delete(cand);
	return rc;
}

/* ---------------------------------------------------------------- score, edit */

/* What score and edit read: the best skill of the round before, its
 * traces, the instruction, a client for the compiler's model. */
struct round_input {
	cJSON *best;
	struct pkgset s;
	struct trace_set ts;
	char *inst;
	struct llm_client *c;
};

static void round_input_free(struct round_input *in)
{
	llm_close(in->c);
	free(in->inst);
	traces_free(&in->ts);
	pkgset_free(&in->s);
	cJSON_Delete(in->best);
}

static int round_input_load(const struct deep_opts *o, struct round_input *in, struct err *e)
{
	memset(in, 0, sizeof *in);
	if (!o->round)
		return err_set(e, ERR_INPUT, "--round K is required (see --help)");
	if (deep_need_model(o, e) < 0 || !(in->best = deep_read_best(o, o->round - 1, e)))
		return -1;
	char *root = deep_at(o, json_str(in->best, "skill"));
	int rc = pkgset_load(root, o->only, &in->s, e);
	free(root);
	if (rc < 0 || deep_best_traces(o, in->best, &in->ts, e) < 0 || !(in->inst = deep_instruction(o, e)) ||
	    !(in->c = ask_open(e)))
		return -1;
	return 0;
}

int deep_step_score(const struct deep_opts *o, struct err *e)
{
	struct round_input in;
	int rc = round_input_load(o, &in, e);
	struct score_input si = { &in.s, in.inst, &in.ts, o->model, o->round };
	cJSON *doc = rc < 0 ? NULL : sections_score(in.c, &si, e);
	char *p = deep_round_file(o, o->round, "scores.json");
	if (doc)
		json_set_str(doc, "skill_hash", json_str(in.best, "skill_hash"));
	struct ask_tally t = { 0 };
	ask_tally_array(&t, json_get(doc, "calls"));
	char *what = xasprintf("deep-%d-score", o->round);
	if (!doc || ask_tally_check(&t, what, o->model, e) < 0 || deep_write(p, doc, e) < 0) {
		rc = -1;
	} else {
		const cJSON *cnt = json_get(doc, "counts");
		long no_unit = (long)json_num(cnt, "no_unit", 0), no_quote = (long)json_num(cnt, "no_quote", 0);
		printf("round %d: %d unit(s) scored, %d unscored; %ld entr%s dropped (%ld naming no unit, %ld quoting nothing)\n",
		       o->round, cJSON_GetArraySize(json_get(doc, "units")), cJSON_GetArraySize(json_get(doc, "unscored")),
		       no_unit + no_quote, no_unit + no_quote == 1 ? "y" : "ies", no_unit, no_quote);
	}
	free(what);
	free(p);
	cJSON_Delete(doc);
	round_input_free(&in);
	return rc;
}

/* The edit's candidate published, its hashes in doc, doc written. */
static int edit_write(const struct deep_opts *o, const struct round_input *in, const struct skill_out *out, cJSON *doc,
		      struct err *e)
{
	char *target = deep_round_file(o, o->round, "candidate"), *hash = deep_round_file(o, o->round, "candidate.hash");
	char *ep = deep_round_file(o, o->round, "edit.json");
	hash_hex h;
	int rc = pkgset_publish(&in->s, out, target, hash, e) < 0 || hash_tree(target, h, e) < 0 ? -1 : 0;
	if (rc == 0) {
		json_set_str(doc, "candidate_hash", h);
		json_set_str(doc, "baseline_hash", json_str(in->best, "skill_hash"));
		rc = deep_write(ep, doc, e);
	}
	free(ep);
	free(target);
	free(hash);
	return rc;
}

int deep_step_edit(const struct deep_opts *o, struct err *e)
{
	struct round_input in;
	char *sp = deep_round_file(o, o->round, "scores.json"), *rp = deep_round_file(o, o->round - 1, "rejected.json");
	cJSON *scores = NULL, *rejected = NULL, *doc = NULL;
	long budget = 0;
	int rc = round_input_load(o, &in, e) < 0 || !(scores = deep_read(sp, "score the round first", e)) ||
			 !(rejected = deep_read(rp, "the round before has not been decided", e)) ||
			 deep_budget(o->profile, &budget, e) < 0
		 ? -1 : 0;
	struct skill_out *out = NULL;
	struct leak_index *lk = NULL;
	if (rc == 0 && o->task && !(lk = leak_load_more(o->task, &o->leak_tasks, &in.ts, &in.s, e)))
		rc = -1;
	if (rc == 0) {
		struct edit_input ei = { &in.s, scores, rejected, in.inst, &in.ts, o->model, o->round, budget, lk };
		struct ask_tally t = { 0 };
		char *what = xasprintf("deep-%d-edit", o->round);
		rc = deep_edit(in.c, &ei, &out, &doc, e);
		if (rc == 0)
			ask_tally_array(&t, json_get(doc, "attempts"));
		if (rc == 0)
			rc = ask_tally_check(&t, what, o->model, e) < 0 || edit_write(o, &in, out, doc, e) < 0 ? -1 : 0;
		free(what);
	}
	const cJSON *ed = json_get(doc, "edit");
	if (rc == 0 && cJSON_IsObject(ed))
		printf("round %d: %s of [%s] holds after %d attempt(s)\n", o->round, json_str(ed, "op"), json_str(ed, "unit"),
		       cJSON_GetArraySize(json_get(doc, "attempts")));
	else if (rc == 0)
		printf("round %d: no edit: %s\n", o->round, json_str(doc, "why"));
	pkgset_outs_free(&in.s, out);
	leak_free(lk);
	cJSON_Delete(doc);
	cJSON_Delete(scores);
	cJSON_Delete(rejected);
	free(sp);
	free(rp);
	round_input_free(&in);
	return rc;
}

/* ---------------------------------------------------------------- trials */

/* Why trial o->index of the round is not needed (*why, caller frees), or
 * NULL when it is. */
static int not_needed(const struct deep_opts *o, char **why, struct err *e)
{
	*why = NULL;
	char *ep = deep_round_file(o, o->round, "edit.json");
	cJSON *ed = deep_read(ep, "run the round's edit first", e);
	free(ep);
	if (!ed)
		return -1;
	if (!cJSON_IsObject(json_get(ed, "edit")))
		*why = xstrdup("no edit this round: the candidate is the baseline");
	cJSON_Delete(ed);
	int look = deep_look_of(&o->rule, o->index);
	if (*why || look <= 1)
		return 0;
	char *lp = deep_look_path(o, o->round, look - 1);
	cJSON *l = deep_read(lp, "run the look before this trial's batch first", e);
	free(lp);
	if (!l)
		return -1;
	if (!json_bool(l, "go_on", false))
		*why = xasprintf("look %d decided: %s", look - 1, json_str(l, "why"));
	cJSON_Delete(l);
	return 0;
}

static char *rel_of(const struct deep_opts *o, const char *path)
{
	size_t n = strlen(o->run);
	if (!strncmp(path, o->run, n) && path[n] == '/')
		return xstrdup(path + n + 1);
	return xstrdup(path);
}

/* The record of trial o->index: not needed, or run by the command. */
static int trial_record(const struct deep_opts *o, cJSON **rec, struct err *e)
{
	char *why;
	if (not_needed(o, &why, e) < 0)
		return -1;
	if (why) {
		*rec = cJSON_CreateObject();
		json_set_num(*rec, "index", o->index);
		json_set_bool(*rec, "needed", false);
		json_set_str(*rec, "why", why);
		printf("round %d trial %d: not needed: %s\n", o->round, o->index, why);
		free(why);
		return 0;
	}
	int rc = deep_run_command(o->command, e);
	if (rc)
		return rc;
	char *rel = rel_of(o, o->trial);
	*rec = record_load(o->trial, rel, o->index);
	free(rel);
	return *rec ? 0 : err_set(e, ERR_WORK, "the trial '%s' finished without a trial.json", o->trial);
}

int deep_step_trial(const struct deep_opts *o, struct err *e)
{
	if (!o->round || !o->index || !o->trial || !o->command || !*o->command)
		return err_set(e, ERR_INPUT, "trial needs --round, --index, --trial and -- COMMAND (see --help)");
	cJSON *rec = NULL;
	int rc = trial_record(o, &rec, e);
	char *name = o->of_task ? xasprintf("trials/%s/%03d.json", o->of_task, o->index)
			       : xasprintf("trials/%03d.json", o->index);
	char *rp = deep_round_file(o, o->round, name);
	free(name);
	if (rc == 0 && deep_write(rp, rec, e) < 0)
		rc = -1;
	free(rp);
	cJSON_Delete(rec);
	return rc;
}

/* The candidate records 1..n of one task (those written; sub: "" for the
 * run's own task, else "<pooled task>/"), each needed one's trial there,
 * added to list; -1 with e set when one is missing. */
static int cand_records_of(const struct deep_opts *o, const char *sub, long n, cJSON *list,
                           struct err *e)
{
	for (long i = 1; i <= n; i++) {
		char *name = xasprintf("trials/%s%03ld.json", sub, i);
		char *p = deep_round_file(o, o->round, name);
		cJSON *r = deep_read(p, "run the round's trials first", e);
		free(p);
		free(name);
		char *dir = r && json_bool(r, "needed", false) ? deep_at(o, json_str(r, "trial")) : NULL;
		char *tj = dir ? path_join(dir, "trial.json") : NULL;
		if (tj && !fs_exists(tj))
			err_set(e, ERR_INPUT, "trial '%s' is missing: make clean-stage STAGE=deep-%d-eval.%03ld and run make again",
				dir, o->round, i);
		bool bad = !r || (tj && !fs_exists(tj));
		if (bad)
			cJSON_Delete(r);
		else
			cJSON_AddItemToArray(list, r);
		free(tj);
		free(dir);
		if (bad)
			return -1;
	}
	return 0;
}

/* The candidate records 1..n of the run's task and of every pooled task. */
static cJSON *cand_records(const struct deep_opts *o, long n, struct err *e)
{
	cJSON *list = cJSON_CreateArray();
	int rc = cand_records_of(o, "", n, list, e);
	for (size_t i = 0; rc == 0 && i < o->pool_tasks.n; i++) {
		char *sub = xasprintf("%s/", o->pool_tasks.v[i]);
		rc = cand_records_of(o, sub, n, list, e);
		free(sub);
	}
	if (rc < 0) {
		cJSON_Delete(list);
		return NULL;
	}
	return list;
}

static cJSON *judge_at(const struct deep_opts *o, const cJSON *best, int look, bool last, struct err *e)
{
	cJSON *cand = cand_records(o, deep_look_trials(&o->rule, look), e);
	cJSON *j = cand ? deep_judge(&o->rule, json_get(best, "trials"), cand, last, e) : NULL;
	if (j) {
		json_set_num(j, "look", look);
		json_set_num(j, "trials", (double)deep_look_trials(&o->rule, look));
	}
	cJSON_Delete(cand);
	return j;
}

/* The look's verdict: none without an edit, the look before's when it decided. */
static cJSON *look_verdict(const struct deep_opts *o, const cJSON *best, const cJSON *ed, const cJSON *prev, struct err *e)
{
	if (!cJSON_IsObject(json_get(ed, "edit"))) {
		cJSON *l = cJSON_CreateObject();
		json_set_str(l, "verdict", "reject");
		json_set_str(l, "why", "no edit this round");
		return l;
	}
	if (prev && !json_bool(prev, "go_on", false))
		return cJSON_Duplicate(prev, true);
	return judge_at(o, best, o->look, false, e);
}

int deep_step_look(const struct deep_opts *o, struct err *e)
{
	if (!o->round || !o->look)
		return err_set(e, ERR_INPUT, "look needs --round and --look (see --help)");
	char *pp = o->look > 1 ? deep_look_path(o, o->round, o->look - 1) : NULL;
	char *ep = deep_round_file(o, o->round, "edit.json"), *p = deep_look_path(o, o->round, o->look);
	cJSON *best = deep_read_best(o, o->round - 1, e), *prev = NULL, *ed = NULL, *l = NULL;
	int rc = !best || (pp && !(prev = deep_read(pp, "run the look before first", e))) ||
			 !(ed = deep_read(ep, "run the round's edit first", e)) || !(l = look_verdict(o, best, ed, prev, e))
		 ? -1 : 0;
	if (rc == 0) {
		json_set_bool(l, "go_on", !strcmp(json_str(l, "verdict"), "extend"));
		rc = deep_write(p, l, e);
	}
	if (rc == 0)
		printf("round %d look %d: %s: %s\n", o->round, o->look, json_str(l, "verdict"), json_str(l, "why"));
	cJSON_Delete(l);
	cJSON_Delete(prev);
	cJSON_Delete(ed);
	cJSON_Delete(best);
	free(p);
	free(ep);
	free(pp);
	return rc;
}

/* ---------------------------------------------------------------- decide */

/* The look that decided: the first that did not go on, else the last;
 * each look before the last briefly in looks. */
static cJSON *deciding(const struct deep_opts *o, const cJSON *best, cJSON *looks, struct err *e)
{
	int n = deep_looks(&o->rule);
	for (int j = 1; j < n; j++) {
		char *p = deep_look_path(o, o->round, j);
		cJSON *l = deep_read(p, "run the round's looks first", e);
		free(p);
		if (!l)
			return NULL;
		cJSON *brief = cJSON_CreateObject();
		json_set_num(brief, "look", j);
		json_set_str(brief, "verdict", json_str(l, "verdict"));
		json_set_str(brief, "why", json_str(l, "why"));
		cJSON_AddItemToArray(looks, brief);
		if (!json_bool(l, "go_on", false))
			return l;
		cJSON_Delete(l);
	}
	return judge_at(o, best, n, true, e);
}

static cJSON *rejected_entry(const struct deep_opts *o, const cJSON *edit, const cJSON *verdict)
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
	if (json_get(st, "strata")) /* pooled: each task's counts */
		json_set(r, "strata", cJSON_Duplicate(json_get(st, "strata"), true));
	json_set(r, "p_value", cJSON_Duplicate(json_get(st, "p_value"), true));
	json_set(r, "runtime", cJSON_Duplicate(json_get(json_get(verdict, "runtime"), "why"), true));
	json_set_str(r, "why", json_str(verdict, "why"));
	return r;
}

/* A round with an edit: the verdict into dec; the next best (the
 * candidate when accepted, else the baseline) or a rejected entry. */
static cJSON *decide_edit(const struct deep_opts *o, const cJSON *best, const cJSON *edit, cJSON *dec, cJSON *rejected,
			  struct err *e)
{
	cJSON *v = deciding(o, best, json_set(dec, "looks", cJSON_CreateArray()), e);
	cJSON *cand = v ? cand_records(o, deep_look_trials(&o->rule, (int)json_num(v, "look", 1)), e) : NULL;
	if (!cand) {
		cJSON_Delete(v);
		return NULL;
	}
	json_set_str(dec, "verdict", json_str(v, "verdict"));
	json_set_str(dec, "why", json_str(v, "why"));
	json_set_num(dec, "decided_at_look", json_num(v, "look", 1));
	json_set(dec, "statistics", cJSON_Duplicate(json_get(v, "statistics"), true));
	json_set(dec, "runtime", cJSON_Duplicate(json_get(v, "runtime"), true));
	cJSON *c = json_set(dec, "candidate", cJSON_CreateObject());
	char *cand_rel = xasprintf("artifacts/deep/round-%d/candidate", o->round);
	json_set_str(c, "skill", cand_rel);
	json_set_str(c, "skill_hash", json_str(edit, "candidate_hash"));
	cJSON *next;
	if (!strcmp(json_str(v, "verdict"), "accept")) {
		char *src = xasprintf("deep-%d", o->round);
		cJSON *kept = cJSON_CreateArray();
		for (cJSON *r = cand->child; r; r = r->next)
			if (json_bool(r, "needed", false))
				cJSON_AddItemToArray(kept, cJSON_Duplicate(r, true));
		next = deep_best_doc(o, o->round, src, cand_rel, kept, o->round, e);
		free(src);
	} else {
		next = cJSON_Duplicate(best, true);
		json_set_num(next, "round", o->round);
		cJSON_AddItemToArray(rejected, rejected_entry(o, edit, v));
	}
	free(cand_rel);
	cJSON_Delete(cand);
	cJSON_Delete(v);
	return next;
}

static int decide_write(const struct deep_opts *o, const cJSON *dec, const cJSON *next, const cJSON *rejected,
			struct err *e)
{
	char *dp = deep_round_file(o, o->round, "decision.json"), *bp = deep_round_file(o, o->round, "best.json"),
	     *rp = deep_round_file(o, o->round, "rejected.json");
	int rc = deep_write(dp, dec, e) < 0 || deep_write(bp, next, e) < 0 || deep_write(rp, rejected, e) < 0 ? -1 : 0;
	free(dp);
	free(bp);
	free(rp);
	return rc;
}

int deep_step_decide(const struct deep_opts *o, struct err *e)
{
	if (!o->round)
		return err_set(e, ERR_INPUT, "--round K is required (see --help)");
	char *ep = deep_round_file(o, o->round, "edit.json"), *rp = deep_round_file(o, o->round - 1, "rejected.json");
	cJSON *edit = NULL, *rejected = NULL, *best = deep_read_best(o, o->round - 1, e), *dec = cJSON_CreateObject(),
	      *next = NULL;
	int rc = !best || !(edit = deep_read(ep, "run the round's edit first", e)) ||
			 !(rejected = deep_read(rp, "the round before has not been decided", e))
		 ? -1 : 0;
	free(ep);
	free(rp);
	if (rc == 0) {
		json_set_num(dec, "format", 1);
		json_set_num(dec, "round", o->round);
		json_set(dec, "edit", cJSON_Duplicate(json_get(edit, "edit"), true));
		cJSON *b = json_set(dec, "baseline", cJSON_CreateObject());
		json_set_str(b, "source", json_str(best, "source"));
		json_set_str(b, "skill", json_str(best, "skill"));
		json_set_str(b, "skill_hash", json_str(best, "skill_hash"));
		if (cJSON_IsObject(json_get(edit, "edit"))) {
			next = decide_edit(o, best, edit, dec, rejected, e);
		} else {
			json_set_str(dec, "verdict", "skipped");
			json_set_str(dec, "why", json_str(edit, "why") ? json_str(edit, "why") : "no edit");
			next = cJSON_Duplicate(best, true);
			json_set_num(next, "round", o->round);
		}
		rc = !next || decide_write(o, dec, next, rejected, e) < 0 ? -1 : 0;
	}
	if (rc == 0)
		printf("round %d: %s: %s; best: %s\n", o->round, json_str(dec, "verdict"), json_str(dec, "why"),
		       json_str(next, "source"));
	cJSON_Delete(next);
	cJSON_Delete(dec);
	cJSON_Delete(rejected);
	cJSON_Delete(edit);
	cJSON_Delete(best);
	return rc;
}
