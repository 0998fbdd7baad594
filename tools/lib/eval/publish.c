#include "eval/publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "eval/atif.h"
#include "eval/attempts.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/redact.h"
#include "eval/runner.h"
#include "eval/trial.h"
#include "eval/store.h"

/* The keys trial.json carries besides what the runner's files say. */
static void stamp_trial(const struct eval_job *j, cJSON *t, bool reused)
{
	json_set_num(t, "format", TRIAL_FORMAT);
	json_set_str(t, "key", j->key);
	json_set(t, "identity", cJSON_Duplicate(j->identity, true));
	eval_job_set_who(j, t);
	json_set_str(t, "stage", j->stage);
	json_set_num(t, "index", (double)j->o->index);
	json_set_str(t, "test", j->test);
	json_set_bool(t, "require_skill", j->o->require_skill);
	json_set_bool(t, "reused", reused);
}

static int write_trial(const char *dir, const cJSON *t, struct err *e)
{
	char *p = path_join(dir, "trial.json");
	int r = json_write_file(p, t, e);
	free(p);
	return r;
}

/* Drops "<dir>/" from a message: the temp folder is gone once moved. */
static void strip_prefix(char *msg, const char *dir)
{
	size_t n = strlen(dir);
	char *p;
	while ((p = strstr(msg, dir)) && p[n] == '/')
		memmove(p, p + n + 1, strlen(p + n + 1) + 1);
}

/* ": <category>: <first line of the error>" of a trial that was not
 * scored, so the console says why where people look; "" otherwise. */
static char *why_not_scored(const cJSON *t)
{
	const char *outcome = json_str(t, "outcome");
	if (!outcome || (strcmp(outcome, "infra_error") && strcmp(outcome, "verifier_error")))
		return xstrdup("");
	const char *msg = json_str(t, "error");
	if (!msg || !*msg)
		msg = json_str(t, "verifier_error");
	const char *cat = json_str(t, "error_category");
	if (!msg || !*msg)
		return cat ? xasprintf(": %s", cat) : xstrdup("");
	int n = (int)strcspn(msg, "\r\n");
	return xasprintf(": %s%s%.*s%s", cat ? cat : "", cat ? ": " : "", n > 400 ? 400 : n, msg, n > 400 ? "..." : "");
}

/* "<prefix> passed reward=1 skill invoked<how> in 12.3s[: <why not scored>]" */
static void end_line(const struct eval_job *j, const cJSON *t, const char *how)
{
	const cJSON *rw = json_get(t, "reward");
	char rbuf[32] = "-";
	if (cJSON_IsNumber(rw))
		snprintf(rbuf, sizeof rbuf, "%g", rw->valuedouble);
	const cJSON *sk = json_get(t, "skill");
	const char *use = !cJSON_GetArraySize(json_get(sk, "injected")) ? "no skill"
			  : json_bool(sk, "invoked", false) ? "skill invoked"
			  : json_bool(sk, "read", false) ? "skill read" : "skill unused";
	char *why = why_not_scored(t);
	eval_progress(j, "%s reward=%s %s%s in %.1fs%s", json_str(t, "outcome"), rbuf, use, how, now_mono() - j->start,
		      why);
	free(why);
}

/* The trial t (in dir) filed in the store, unless it is an infra error:
 * those are facts about the machine, not the trial, and never reused. */
static void file_trial(const struct eval_job *j, const cJSON *t, const char *dir)
{
	const char *outcome = json_str(t, "outcome");
	struct err e;
	if (!j->o->no_cache && outcome && strcmp(outcome, "infra_error") && trialstore_put(j->o->cache, j->key, dir, &e) < 0)
		warnf("could not file the trial in the store: %s", e.msg);
}

bool evaltrial_up_to_date(const struct eval_job *j)
{
	char *p = path_join(j->out, "trial.json");
	cJSON *t = json_read_opt(p);
	bool ok = false;
	if (t) {
		const char *k = json_str(t, "key");
		/* a record that says incomplete (written so by hand) is not made
		 * complete by checking it again: it is set aside and made anew */
		bool said = json_bool(t, "complete", false);
		trial_check(t, j->o->require_skill);
		ok = k && !strcmp(k, j->key) && json_bool(t, "complete", false);
		if (ok && !said) {
			ok = false;
			free(attempts_keep(j, j->out, "its trial.json says \"complete\": false"));
		}
	}
	if (ok && utimensat(AT_FDCWD, p, NULL, 0) < 0) { /* make compares mtimes */
		warnf("cannot renew the time of '%s' (%s): the trial runs again", p, strerror(errno));
		ok = false;
	}
	if (ok && !j->o->no_cache && !trialstore_has(j->o->cache, j->key))
		file_trial(j, t, j->out); /* published by a skillc-eval that filed after publishing */
	cJSON_Delete(t);
	free(p);
	return ok;
}

/* A temp folder given up: removed, and a failure to remove said (it is
 * swept as a leftover later) without touching the error that mattered. */
static void drop_temp(const char *tmp)
{
	struct err e;
	if (fs_exists(tmp) && fs_remove_tree(tmp, &e) < 0)
		warnf("%s", e.msg);
}

/* The store's entry linked into tmp, restamped and checked again, then
 * published: 0, or -1 with e saying why it cannot be used. */
static int reuse_into(const struct eval_job *j, const char *tmp, struct err *e)
{
	if (trialstore_get(j->o->cache, j->key, tmp, e) < 0)
		return -1;
	char *tp = path_join(tmp, "trial.json");
	cJSON *t = json_read_file(tp, e);
	int rc = t ? 0 : -1;
	if (t) {
		stamp_trial(j, t, true);
		trial_check(t, j->o->require_skill);
		/* the stored file is a link: write a new one, never through it */
		if (unlink(tp) < 0)
			rc = err_set(e, ERR_WORK, "cannot replace '%s':", tp);
		else if (!json_bool(t, "complete", false))
			rc = err_set(e, ERR_INPUT, "the stored trial is not complete: %s", trial_first_problem(t));
		/* its ATIF names this stage and test (written anew: renamed over the link) */
		else if (atif_write(tmp, t, e) < 0 || write_trial(tmp, t, e) < 0 || fs_publish_dir(tmp, j->out, e) < 0)
			rc = -1;
		else
			end_line(j, t, ", reused from the trial store");
	}
	cJSON_Delete(t);
	free(tp);
	return rc;
}

/* Links the store's entry into a temp folder, restamps it, publishes it. */
bool evaltrial_reuse(const struct eval_job *j)
{
	if (j->o->no_cache || !trialstore_has(j->o->cache, j->key))
		return false;
	char *tmp = fs_temp_beside(j->out);
	struct err e = { 0, "" };
	bool done = reuse_into(j, tmp, &e) == 0;
	if (!done) {
		warnf("cannot reuse the stored trial %s (%s); running it", j->key, e.msg);
		drop_temp(tmp);
	}
	free(tmp);
	return done;
}

/* Links (or copies) the chosen rollout's trajectories to trajectory/;
 * Harbor's ACP trajectory is the one made from ATIF (acp_from_atif). */
static int lift_trajectories(const char *tmp, cJSON *t, const struct buf *acp_from_atif, struct err *e)
{
	char *dir = path_join(tmp, "trajectory");
	int rc = fs_mkdirs(dir, e);
	cJSON *files = json_get(t, "files");
	static const char *const keys[] = { "acp_trajectory", "llm_trajectory" };
	for (size_t i = 0; rc == 0 && i < ARRAY_LEN(keys); i++) {
		char *dst = xasprintf("%s/%s.jsonl", dir, keys[i]);
		char *rel = xasprintf("trajectory/%s.jsonl", keys[i]);
		const char *src_rel = json_str(files, keys[i]);
		if (i == 0 && acp_from_atif && acp_from_atif->len) {
			rc = fs_write_atomic(dst, acp_from_atif->data, acp_from_atif->len, 0644, e);
			if (rc == 0)
				json_set_str(files, keys[i], rel);
		} else if (src_rel) {
			char *src = path_join(tmp, src_rel);
			rc = link(src, dst) == 0 ? 0 : fs_copy_file(src, dst, 0644, e);
			if (rc == 0) {
				json_set_str(files, i == 0 ? "raw_acp_trajectory" : "raw_llm_trajectory", src_rel);
				json_set_str(files, keys[i], rel);
			}
			free(src);
		}
		free(rel);
		free(dst);
	}
	free(dir);
	return rc;
}

/* tmp_abs/.skills/ holding a copy of each skill to inject (*skills_root;
 * NULL for no skill). */
static int make_skills(const struct eval_job *j, const char *tmp_abs, char **skills_root, struct err *e)
{
	if (j->o->no_skill)
		return 0;
	*skills_root = path_join(tmp_abs, ".skills");
	if (mkdir(*skills_root, 0755) < 0)
		return err_set(e, ERR_WORK, "cannot create '%s':", *skills_root);
	for (size_t i = 0; i < j->o->skills.n; i++) {
		char *dst = path_join(*skills_root, j->skill_names.v[i]);
		int r = tree_copy(j->o->skills.v[i], dst, false, e);
		free(dst);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The runner's last words: the last non-blank line of runner.log that is
 * not the "$ argv" line at its top (a runner that fails early says why
 * there, e.g. "skillc-local: ...: no acp_command"). "" when none. */
static void runner_last_line(const char *tmp, char *out, size_t size)
{
	char *path = path_join(tmp, "runner.log");
	FILE *f = fopen(path, "r");
	free(path);
	out[0] = '\0';
	if (!f)
		return;
	if (fseek(f, -4096, SEEK_END) < 0)
		rewind(f);
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		size_t n = strlen(line);
		if (!line[strspn(line, " \t")] || !strncmp(line, "$ ", 2))
			continue;
		n = n < size ? n : size - 1;
		memcpy(out, line, n);
		out[n] = '\0';
	}
	fclose(f);
}

/* What one run of the runner left: the normalized trial, or NULL with
 * reason set. acp receives Harbor's ACP trajectory. */
static cJSON *read_run(const struct eval_job *j, int rc, const struct proc_result *pr, const char *tmp,
		       const char *tmp_abs, struct buf *acp, char *reason, size_t size, struct err *e)
{
	if (rc < 0) {
		snprintf(reason, size, "cannot start the runner: %s", e->msg);
		return NULL;
	}
	if (pr->interrupted) {
		runner_docker_cleanup(tmp_abs);
		snprintf(reason, size, "interrupted by signal %d after %.0fs", pr->interrupted, pr->seconds);
		return NULL;
	}
	if (pr->timed_out) {
		runner_docker_cleanup(tmp_abs);
		snprintf(reason, size, "hard deadline of %.0fs passed: the runner was killed", eval_deadline(j->o));
		return NULL;
	}
	char said[600];
	runner_last_line(tmp, said, sizeof said);
	if (pr->exit_code == 127) {
		snprintf(reason, size, "the runner could not be started (exit 127%s%s; see runner.log)",
			 *said ? ": " : "", said);
		return NULL;
	}
	char *raw = path_join(tmp, "raw");
	struct trial_opts to = { &j->h, j->rules_dir, j->o->runner, &j->skill_names, j->o->require_skill,
				 !strcmp(j->o->runner, "harbor") ? acp : NULL };
	cJSON *t = fs_is_dir(raw) ? trial_parse(raw, tmp, &to, e) : NULL;
	if (!t && !fs_is_dir(raw))
		snprintf(reason, size, "the runner exited %d and wrote no raw/ output%s%s (see runner.log)", pr->exit_code,
			 *said ? ": " : "", said);
	else if (!t)
		snprintf(reason, size, "%s", e->msg);
	free(raw);
	return t;
}

/* Makes the parsed trial the folder's: trajectories lifted, stamped,
 * checked, trial.json written. Sets reason when it must not be published. */
static void finish_trial(const struct eval_job *j, cJSON *t, const struct proc_result *pr, const char *tmp,
			 const struct buf *acp, long prior, char *reason, size_t size, struct err *e)
{
	if (lift_trajectories(tmp, t, acp->len ? acp : NULL, e) < 0) {
		snprintf(reason, size, "%s", e->msg);
		return;
	}
	stamp_trial(j, t, false);
	json_set_num(t, "runner_exit", pr->exit_code);
	json_set_num(t, "wall_seconds", pr->seconds);
	trial_check(t, j->o->require_skill);
	if (!json_bool(t, "complete", false))
		snprintf(reason, size, "incomplete: %s", trial_first_problem(t));
	else
		attempts_retry_infra(j, prior, t, reason, size);
	/* the trajectory in Harbor's format too, from the redacted ACP one */
	if (!*reason && atif_write(tmp, t, e) < 0)
		snprintf(reason, size, "%s", e->msg);
	if (write_trial(tmp, t, e) < 0 && !*reason)
		snprintf(reason, size, "%s", e->msg);
}

/* True when the disk of dir has no block left for us. Asked as the runner
 * ends: the cleanup after it frees a little. */
static bool disk_full(const char *dir)
{
	struct statvfs sv;
	return statvfs(dir, &sv) == 0 && sv.f_bavail == 0;
}

/* A failure on a full disk says so first: the runner's files it cut short
 * (an empty result.json) are the symptom, the full disk the cause. */
static void name_full_disk(const struct eval_job *j, char *reason, size_t size)
{
	const char *full = strerror(ENOSPC);
	if (strstr(reason, full))
		return;
	static const char cure[] = "; see the runner's log and run it again";
	char was[1200];
	snprintf(was, sizeof was, "%s", reason);
	char *c = strstr(was, cure);
	if (c && !c[sizeof cure - 1])
		*c = '\0';
	char *where = path_dir(j->out);
	char *said = xasprintf("the disk of '%s' is full (%s): %s; free space, then run it "
		"again", where, full, was);
	snprintf(reason, size, "%s", said);
	free(said);
	free(where);
}

/* Publishes tmp as the trial folder, or keeps it aside with its reason.
 * Returns the exit status: 0 published, 1 kept aside. */
static int publish_or_keep(const struct eval_job *j, const char *tmp, const char *tmp_abs, const cJSON *t,
			   bool full, char *reason, size_t size, struct err *e)
{
	/* filed before it is published: a kill between the two leaves the trial
	 * in the store for whoever comes next (a run waiting on its key, or
	 * this run's next make), never a published trial the store lacks */
	if (!*reason)
		file_trial(j, t, tmp);
	/* the runner's mark goes only now (it is not part of the trial): a
	 * kill while filing leaves a marked folder the next make resumes */
	char *mark = path_join(tmp, ATTEMPT_RUNNER_MARK);
	if (!*reason && unlink(mark) < 0 && errno != ENOENT)
		warnf("cannot remove '%s': %s", mark, strerror(errno));
	free(mark);
	if (!*reason && fs_publish_dir(tmp, j->out, e) < 0)
		snprintf(reason, size, "%s", e->msg);
	if (*reason) {
		if (full)
			name_full_disk(j, reason, size);
		strip_prefix(reason, tmp_abs);
		strip_prefix(reason, tmp);
		char *kept = attempts_keep(j, tmp, reason);
		eval_progress(j, "FAILED in %.1fs", now_mono() - j->start);
		warnf("%s: %s; kept in %s", j->prefix, reason, kept);
		free(kept);
		return 1;
	}
	end_line(j, t, "");
	return 0;
}

/* Keys out of what the runner wrote (contents and names), before anything
 * reads it into trial.json, publishes it or files it in the store. */
static int redact_run(const char *tmp, const struct strlist *env_extra, struct err *e)
{
	struct strlist secrets = STRLIST_INIT;
	redact_secrets_of_env(env_extra, &secrets);
	int r = redact_tree(tmp, &secrets, e);
	redact_wipe(&secrets);
	return r;
}

/* Records in tmp that the runner of j's key started (pr NULL) or ended
 * (ATTEMPT_RUNNER_MARK): from its end on a kill loses nothing paid for, and
 * a runner killed after writing a complete result is not paid twice either.
 * A failure to write it only warns. */
static void mark_runner(const struct eval_job *j, const char *tmp, const struct proc_result *pr)
{
	cJSON *m = cJSON_CreateObject();
	json_set_str(m, "key", j->key);
	if (pr) {
		json_set_num(m, "exit_code", pr->exit_code);
		json_set_num(m, "seconds", pr->seconds);
	}
	char *p = path_join(tmp, ATTEMPT_RUNNER_MARK);
	struct err e;
	/* then a kill before publishing costs this run; on a full disk the
	 * attempt's own failure names the disk (name_full_disk) */
	if (json_write_file(p, m, &e) < 0 && !strstr(e.msg, strerror(ENOSPC)))
		warnf("%s", e.msg);
	free(p);
	cJSON_Delete(m);
}

/* What the ended runner left in tmp (rc and pr: how it ended) with the
 * keys taken out, read, checked, and the folder published or kept aside. */
static int publish_run(const struct eval_job *j, const struct strlist *env_extra, int rc, const struct proc_result *pr,
		       const char *tmp, const char *tmp_abs, const char *skills_root, long prior, struct err *e)
{
	bool full = disk_full(tmp);
	if (rc == 0 && redact_run(tmp, env_extra, e) < 0) {
		/* never publish, file or keep aside what may hold a key */
		warnf("%s: cannot take the keys out of the runner's output (%s); it is removed", j->prefix, e->msg);
		struct err ignore;
		fs_remove_tree(tmp, &ignore);
		return 1;
	}
	char reason[1200] = "";
	struct buf acp = BUF_INIT;
	cJSON *t = read_run(j, rc, pr, tmp, tmp_abs, &acp, reason, sizeof reason, e);
	struct err ce; /* the cleanup's own: e may still be the reason */
	if (skills_root && fs_remove_tree(skills_root, &ce) < 0 && !*reason) /* a copy of what skill_hash names */
		snprintf(reason, sizeof reason, "cannot remove the copy of the skill: %s", ce.msg);
	if (t && !*reason)
		finish_trial(j, t, pr, tmp, &acp, prior, reason, sizeof reason, e);
	buf_free(&acp);
	int status = publish_or_keep(j, tmp, tmp_abs, t, full, reason, sizeof reason, e);
	cJSON_Delete(t);
	return status;
}

/* The runner run in tmp, then what it left published or kept aside. */
static int run_and_publish(const struct eval_job *j, const struct strlist *env_extra, char *const *argv,
			   const char *tmp, const char *tmp_abs, const char *skills_root, long prior, struct err *e)
{
	char *log_path = path_join(tmp, "runner.log");
	struct proc_result pr;
	mark_runner(j, tmp, NULL);
	int rc = runner_run(j, argv, env_extra, log_path, eval_deadline(j->o), &pr, e);
	free(log_path);
	if (rc == 0 && !pr.interrupted && !pr.timed_out)
		mark_runner(j, tmp, &pr);
	return publish_run(j, env_extra, rc, &pr, tmp, tmp_abs, skills_root, prior, e);
}

/* True when what the runner wrote in tmp/raw is a complete trial: it was
 * killed with its work done (e.g. between its last write and its exit). */
static bool wrote_complete_result(const struct eval_job *j, const char *tmp)
{
	char *raw = path_join(tmp, "raw");
	struct trial_opts to = { &j->h, j->rules_dir, j->o->runner, &j->skill_names, j->o->require_skill, NULL };
	struct err e;
	cJSON *t = fs_is_dir(raw) ? trial_parse(raw, tmp, &to, &e) : NULL;
	bool complete = t && json_bool(t, "complete", false);
	cJSON_Delete(t);
	free(raw);
	return complete;
}

/* What the killed one began after the run (the trajectories, trial.json,
 * any temp file it was writing) is undone, to be done again from the start. */
static int undo_after_run(const char *tmp, struct err *e)
{
	char *traj = path_join(tmp, "trajectory"), *tp = path_join(tmp, "trial.json");
	int rc = 0;
	if ((fs_exists(traj) && fs_remove_tree(traj, e) < 0) || fs_remove_orphaned_temps(tmp, e) < 0)
		rc = -1;
	else if (unlink(tp) < 0 && errno != ENOENT)
		rc = err_set(e, ERR_WORK, "cannot remove '%s':", tp);
	free(tp);
	free(traj);
	return rc;
}

/* The mark in tmp (NULL when it cannot be read); caller deletes. */
static cJSON *read_mark(const char *tmp, struct err *e)
{
	char *mp = path_join(tmp, ATTEMPT_RUNNER_MARK);
	cJSON *m = json_read_file(mp, e);
	free(mp);
	return m;
}

bool evaltrial_resumable(const struct eval_job *j, const char *tmp)
{
	struct err e;
	cJSON *m = read_mark(tmp, &e);
	bool marked = m != NULL, ended = json_get(m, "exit_code") != NULL;
	cJSON_Delete(m);
	return marked && (ended || wrote_complete_result(j, tmp));
}

int evaltrial_resume(const struct eval_job *j, const struct strlist *env_extra, const char *tmp, struct err *e)
{
	long prior;
	if (!attempts_left(j, &prior))
		return 1;
	cJSON *m = read_mark(tmp, e);
	if (!m)
		return -1;
	struct proc_result pr = { .exit_code = (int)json_num(m, "exit_code", 0), .seconds = json_num(m, "seconds", 0) };
	bool ended = json_get(m, "exit_code") != NULL;
	cJSON_Delete(m);
	eval_progress(j, "its runner had %s when a skillc-eval was killed: the output is read, not run again",
		      ended ? "finished" : "written a complete result");
	if (undo_after_run(tmp, e) < 0)
		return -1;
	char *tmp_abs = fs_real_path(tmp), *skills_root = path_join(tmp, ".skills");
	int status = publish_run(j, env_extra, 0, &pr, tmp, tmp_abs, fs_is_dir(skills_root) ? skills_root : NULL, prior, e);
	free(skills_root);
	free(tmp_abs);
	return status;
}

/* The temp folder a gone holder (pid) left beside its trial folder where,
 * whose runner of j's key ended; NULL when none. Caller frees. */
static char *holder_leftover(const struct eval_job *j, long pid, const char *where)
{
	char *parent = path_dir(where), *prefix = xasprintf(".%s.tmp.%ld.", path_base(where), pid), *found = NULL;
	DIR *d = opendir(parent);
	for (struct dirent *de; d && !found && (de = readdir(d));) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		char *tmp = path_join(parent, de->d_name);
		struct err e;
		cJSON *m = read_mark(tmp, &e);
		const char *key = json_str(m, "key");
		if (key && !strcmp(key, j->key) && json_get(m, "exit_code"))
			found = tmp;
		else
			free(tmp);
		cJSON_Delete(m);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(parent);
	return found;
}

char *evaltrial_adoptable(const struct eval_job *j, const char *lock_text)
{
	struct trial_holder h;
	/* the lock is ours now, so its last holder let go: killed (a zombie
	 * not reaped yet still answers kill 0), or done with the trial */
	if (trialstore_holder_parse(lock_text, &h) < 0 || !h.where ||
	    !lock_holder_is_other_here(&h.by)) {
		free(h.where);
		return NULL;
	}
	char *left = holder_leftover(j, h.by.pid, h.where), *copy = NULL;
	struct err e;
	if (left) {
		/* a copy: the folder stays the killed run's, for its own next make */
		copy = fs_temp_beside(j->out);
		if (tree_copy(left, copy, false, &e) < 0) {
			warnf("%s: cannot take over the trial the killed pid %ld left in %s (%s); it runs here", j->prefix,
			      h.by.pid, left, e.msg);
			drop_temp(copy);
			free(copy);
			copy = NULL;
		} else {
			eval_progress(j, "the last holder of this trial (pid %ld) was killed after its runner finished: its "
				      "output in %s is taken over", h.by.pid, left);
		}
	}
	free(left);
	free(h.where);
	return copy;
}

int evaltrial_run(const struct eval_job *j, const struct strlist *env_extra, struct err *e)
{
	long prior;
	if (!attempts_left(j, &prior))
		return 1;
	if (runner_check_installed(j->o->runner, e) < 0)
		return -1;
	char *tmp = fs_temp_beside(j->out);
	char *tmp_abs = NULL, *skills_root = NULL;
	struct strlist argv = STRLIST_INIT;
	int status = -1; /* tmp then stays: the next run keeps it aside */
	if (mkdir(tmp, 0755) < 0) {
		err_set(e, ERR_WORK, "cannot create '%s':", tmp);
	} else {
		tmp_abs = fs_real_path(tmp);
		if (make_skills(j, tmp_abs, &skills_root, e) == 0 && runner_argv(j, tmp_abs, skills_root, &argv, e) == 0)
			status = run_and_publish(j, env_extra, argv.v, tmp, tmp_abs, skills_root, prior, e);
	}
	strlist_free(&argv);
	free(skills_root);
	free(tmp_abs);
	free(tmp);
	return status;
}
