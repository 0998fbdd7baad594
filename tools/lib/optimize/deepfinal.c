/* The steps of deep.h after the rounds: S_final with its report, and the
 * final evaluation's trials. */
#include "optimize/deep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/versions.h"
#include "eval/store.h"
#include "optimize/deepfiles.h"
#include "optimize/skillpkg.h"

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
	long leaks = (long)json_num(rep, "leaks", 0);
	if (leaks)
		buf_printf(
			md,
			"\nLeakage guard: %ld edit(s) rolled back for copying the task's held-out "
				"files "
			"(round-K/edit.json says what and from where; docs/leakage.md).\n",
			leaks);
}

/* How many edits of round k the leakage guard rolled back (edit.json's
 * leaks; a round that made no edit file has none). */
static long round_leaks(const struct deep_opts *o, int k)
{
	char *p = deep_round_file(o, k, "edit.json");
	cJSON *ed = json_read_opt(p);
	long n = (long)json_num(ed, "leaks", 0);
	cJSON_Delete(ed);
	free(p);
	return n;
}

/* The best skill copied to S_final/ (whole) and its hash stamped. */
static int publish_final(const struct deep_opts *o, const cJSON *best, hash_hex h, struct err *e)
{
	char *root = deep_at(o, json_str(best, "skill"));
	char *target = deep_at(o, "artifacts/deep/S_final"), *hash = deep_at(o, "artifacts/deep/S_final.hash");
	char *tmp = fs_temp_beside(target), *parent = path_dir(target);
	int rc = fs_mkdirs(parent, e) < 0 || tree_copy(root, tmp, false, e) < 0 || fs_publish_dir(tmp, target, e) < 0 ||
			 hash_tree(target, h, e) < 0 || stamp_write(hash, h, e) < 0
		 ? -1 : 0;
	free(parent);
	free(tmp);
	free(hash);
	free(target);
	free(root);
	return rc;
}

/* report.json's rounds: each round's edit, verdict, why and p-value. */
static int report_rounds(const struct deep_opts *o, cJSON *rep, struct err *e)
{
	char *sp = deep_round_file(o, 0, "decision.json");
	cJSON *start = deep_read(sp, "deep-start has not run", e);
	free(sp);
	if (!start)
		return -1;
	json_set_str(rep, "start", json_str(start, "start"));
	json_set_str(rep, "start_why", json_str(start, "why"));
	cJSON_Delete(start);
	cJSON *rounds = json_set(rep, "rounds", cJSON_CreateArray());
	long leaks = 0;
	for (int k = 1; k <= o->rounds; k++) {
		char *dp = deep_round_file(o, k, "decision.json");
		cJSON *d = deep_read(dp, "a round has not been decided", e);
		free(dp);
		if (!d)
			return -1;
		cJSON *x = cJSON_CreateObject();
		json_set_num(x, "round", k);
		json_set(x, "edit", cJSON_Duplicate(json_get(d, "edit"), true));
		json_set_str(x, "verdict", json_str(d, "verdict"));
		json_set_str(x, "why", json_str(d, "why"));
		json_set(x, "p_value", cJSON_Duplicate(json_get(json_get(d, "statistics"), "p_value"), true));
		long n = round_leaks(o, k);
		json_set_num(x, "leaks", (double)n);
		leaks += n;
		cJSON_AddItemToArray(rounds, x);
		cJSON_Delete(d);
	}
	json_set_num(rep, "leaks", (double)leaks);
	return 0;
}

static cJSON *final_report(const struct deep_opts *o, const cJSON *best, const cJSON *rejected,
			   const struct pkgset *set, const hash_hex h, struct err *e)
{
	cJSON *rep = cJSON_CreateObject();
	json_set_num(rep, "format", 1);
	json_set_str(rep, "tool", "skillc-deep " V_DEEP);
	char *name = pkgset_label(set);
	json_set_str(rep, "skill", name);
	free(name);
	/* the one skill's folder, or the set's root */
	char *fs = set->n == 1 ? xasprintf("artifacts/deep/S_final/%s", set->v[0].name) : xstrdup("artifacts/deep/S_final");
	json_set_str(rep, "final_skill", fs);
	free(fs);
	json_set_str(rep, "final_hash", h);
	json_set_str(rep, "final_md_hash", json_str(best, "skill_md_hash"));
	json_set_str(rep, "final_source", json_str(best, "source"));
	json_set(rep, "accepted_round", cJSON_Duplicate(json_get(best, "accepted_round"), true));
	if (report_rounds(o, rep, e) < 0) {
		cJSON_Delete(rep);
		return NULL;
	}
	json_set(rep, "rejected", cJSON_Duplicate(rejected, true));
	return rep;
}

static int final_write(const struct deep_opts *o, const cJSON *rep, const cJSON *rejected, struct err *e)
{
	char *jp = deep_at(o, "artifacts/deep/rejected.json"), *rp = deep_at(o, "artifacts/deep/report.json"),
	     *mp = deep_at(o, "artifacts/deep/report.md");
	struct buf md = BUF_INIT;
	report_md(rep, &md);
	int rc = deep_write(jp, rejected, e) < 0 || deep_write(rp, rep, e) < 0 ||
			 fs_write_if_changed(mp, md.data, md.len, e) < 0
		 ? -1 : 0;
	buf_free(&md);
	free(jp);
	free(rp);
	free(mp);
	return rc;
}

int deep_step_final(const struct deep_opts *o, struct err *e)
{
	char *rp = deep_round_file(o, o->rounds, "rejected.json"), *target = deep_at(o, "artifacts/deep/S_final");
	cJSON *rejected = NULL, *rep = NULL, *best = deep_read_best(o, o->rounds, e);
	struct pkgset s = { 0 };
	hash_hex h;
	int rc = !best || !(rejected = deep_read(rp, "the last round has not been decided", e)) ||
			 publish_final(o, best, h, e) < 0 || pkgset_load(target, NULL, &s, e) < 0 ||
			 !(rep = final_report(o, best, rejected, &s, h, e)) || final_write(o, rep, rejected, e) < 0
		 ? -1 : 0;
	if (rc == 0)
		printf("S_final: %s/%s (from %s)\n", o->run, json_str(rep, "final_skill"), json_str(best, "source"));
	cJSON_Delete(rep);
	pkgset_free(&s);
	cJSON_Delete(rejected);
	cJSON_Delete(best);
	free(target);
	free(rp);
	return rc;
}

/* ---------------------------------------------------------------- final trials */

/* The task of a trial folder .../<task>/<stage>/test-NNN. Caller frees. */
static char *task_of(const char *trial)
{
	char *stage = path_dir(trial ? trial : ""), *task = path_dir(stage);
	char *name = xstrdup(path_base(task));
	free(stage);
	free(task);
	return name;
}

/* Both trials are of one task: a pooled best.json holds every task's. */
static bool same_task(const char *a, const char *b)
{
	char *x = task_of(a), *y = task_of(b);
	bool same = !strcmp(x, y);
	free(x);
	free(y);
	return same;
}

/* The selection trial of best that final trial o->index reuses: when
 * S_final is the last accepted round's candidate (its SKILL.md), that
 * round's trial of the same index; NULL for a fresh trial. */
static int selection_trial(const struct deep_opts *o, const cJSON *best, const cJSON **src, struct err *e)
{
	*src = NULL;
	char *final_root = deep_at(o, "artifacts/deep/S_final");
	struct pkgset s = { 0 };
	int rc = pkgset_load(final_root, NULL, &s, e);
	hash_hex fm = "";
	if (rc == 0)
		pkgset_md_hash(&s, fm);
	pkgset_free(&s);
	free(final_root);
	if (rc < 0 || o->fresh || !cJSON_IsNumber(json_get(best, "accepted_round")) ||
	    strcmp(fm, json_str(best, "skill_md_hash")))
		return rc;
	for (const cJSON *r = json_get(best, "trials")->child; r; r = r->next)
		if ((int)json_num(r, "index", 0) == o->index && json_bool(r, "needed", false) &&
		    same_task(json_str(r, "trial"), o->trial))
			*src = r;
	return 0;
}

/* The selection trial src copied to o->trial (whole), marked as reused. */
static int copy_selection(const struct deep_opts *o, const cJSON *best, const cJSON *src, struct err *e)
{
	char *from = deep_at(o, json_str(src, "trial"));
	char *tmp = fs_temp_beside(o->trial), *parent = path_dir(o->trial), *tjp = path_join(tmp, "trial.json");
	cJSON *t = NULL;
	int rc = fs_mkdirs(parent, e) < 0 || tree_copy(from, tmp, true, e) < 0 || !(t = json_read_file(tjp, e)) ? -1 : 0;
	if (rc == 0) {
		cJSON *rf = json_set(t, "reused_from", cJSON_CreateObject());
		json_set_str(rf, "trial", json_str(src, "trial"));
		json_set_str(rf, "stage", json_str(best, "source"));
		json_set_bool(t, "selection_reuse", true);
		json_set_bool(t, "reused", true); /* paid for by the round, not again */
		json_set_str(t, "stage", "final");
		if (json_write_file(tjp, t, e) < 0 || (fs_exists(o->trial) && fs_remove_tree(o->trial, e) < 0))
			rc = -1;
		else if (rename(tmp, o->trial) < 0)
			rc = err_set(e, ERR_WORK, "cannot move '%s' to '%s':", tmp, o->trial);
	}
	char name[TRIAL_NAME_MAX];
	if (rc == 0)
		printf("final %s: the selection trial %s reused"
		       " (S_final is round %ld's candidate)\n",
		       trial_name(o->index, name), json_str(src, "trial"),
		       (long)json_num(best, "accepted_round", 0));
	cJSON_Delete(t);
	free(tjp);
	free(parent);
	free(tmp);
	free(from);
	return rc;
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int deep_step_final_trial(const struct deep_opts *o, struct err *e)
{
	if (!o->index || !o->trial || !o->command || !*o->command)
		return err_set(e, ERR_INPUT, "final-trial needs --index, --trial and -- COMMAND (see --help)");
	const cJSON *src;
	cJSON *best = deep_read_best(o, o->rounds, e);
	if (!best || selection_trial(o, best, &src, e) < 0) {
		cJSON_Delete(best);
		return -1;
	}
	char *tj = path_join(o->trial, "trial.json");
	cJSON *have = json_read_opt(tj);
	const cJSON *from = json_get(have, "reused_from");
	int rc = 0;
	char name[TRIAL_NAME_MAX];
	if (src && from && same(json_str(from, "trial"), json_str(src, "trial")) &&
	    same(json_str(have, "key"), json_str(src, "key")))
		printf("final %s: up to date (reused from %s)\n", trial_name(o->index, name),
		       json_str(src, "trial"));
	else if (src)
		rc = copy_selection(o, best, src, e);
	else if (from && fs_remove_tree(o->trial, e) < 0) /* a reused copy no longer stands for S_final */
		rc = -1;
	else
		rc = deep_run_command(o->command, e);
	cJSON_Delete(have);
	free(tj);
	cJSON_Delete(best);
	return rc;
}
