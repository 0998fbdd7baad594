#include "eval/attempts.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "eval/runner.h"

/* Where failed attempts of this trial go: <incomplete>/<stage>/. */
static char *attempts_dir(const struct eval_job *j)
{
	return xasprintf("%s/%s", j->incomplete, j->stage);
}

char *attempts_keep(const struct eval_job *j, const char *dir, const char *reason)
{
	struct err e;
	char *rp = path_join(dir, "reason.txt");
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s\n", reason);
	if (fs_write_atomic(rp, b.data, b.len, 0644, &e) < 0)
		warnf("%s (the reason was: %s)", e.msg, reason);
	buf_free(&b);
	free(rp);
	char *idir = attempts_dir(j);
	char *dst = fs_move_aside_as(dir, idir, j->test, &e);
	free(idir);
	if (!dst) {
		warnf("%s", e.msg);
		dst = xstrdup(dir);
	}
	return dst;
}

/* The temp folders of this trial that a killed skillc-eval left beside
 * the trial folder (their writer is gone), appended to out. */
static void attempts_leftovers(const struct eval_job *j, struct strlist *out)
{
	char *parent = path_dir(j->out);
	DIR *d = opendir(parent);
	char *prefix = xasprintf(".%s.tmp.", j->test);
	for (struct dirent *de; d && (de = readdir(d));) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		long pid = strtol(de->d_name + strlen(prefix), NULL, 10);
		if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) == 0)
			continue; /* its writer is still at work */
		strlist_push_owned(out, path_join(parent, de->d_name));
	}
	if (d)
		closedir(d);
	free(prefix);
	free(parent);
}

/* True when dir holds ATTEMPT_RUNNER_MARK for j's key: its runner started
 * for this very trial (and ended, when the mark says how). */
static bool runner_marked(const struct eval_job *j, const char *dir)
{
	char *p = path_join(dir, ATTEMPT_RUNNER_MARK);
	cJSON *m = json_read_opt(p);
	const char *key = json_str(m, "key");
	bool same = key && !strcmp(key, j->key);
	cJSON_Delete(m);
	free(p);
	return same;
}

char *attempts_sweep_leftovers(const struct eval_job *j)
{
	struct strlist stale = STRLIST_INIT;
	attempts_leftovers(j, &stale);
	char *marked = NULL;
	for (size_t i = 0; i < stale.n; i++) {
		if (!marked && runner_marked(j, stale.v[i])) {
			marked = xstrdup(stale.v[i]); /* its runner's outcome is taken: its watchdog minds its containers */
			continue;
		}
		char *abs = fs_real_path(stale.v[i]);
		runner_docker_cleanup(abs); /* its containers, when a watchdog has not removed them yet */
		free(abs);
		free(attempts_keep(j, stale.v[i], "interrupted: left behind by a skillc-eval that was killed"));
	}
	strlist_free(&stale);
	return marked;
}

/* Earlier failed attempts of this trial (interrupted ones do not count),
 * and the reason of the latest (caller frees; NULL when none). */
static long failed_attempts(const struct eval_job *j, char **last_reason)
{
	*last_reason = NULL;
	char *idir = attempts_dir(j);
	DIR *d = opendir(idir);
	long n = 0;
	char best[256] = "";
	if (d) {
		struct dirent *de;
		size_t tl = strlen(j->test);
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, j->test, tl) || de->d_name[tl] != '.')
				continue;
			char *rp = xasprintf("%s/%s/reason.txt", idir, de->d_name);
			struct buf b = BUF_INIT;
			struct err e;
			if (fs_read(rp, 4096, &b, &e) == 0 && strncmp(b.data, "interrupted", 11)) {
				n++;
				if (strcmp(de->d_name, best) > 0) {
					snprintf(best, sizeof best, "%s", de->d_name);
					free(*last_reason);
					b.data[strcspn(b.data, "\n")] = '\0';
					*last_reason = xstrdup(b.data);
				}
			}
			buf_free(&b);
			free(rp);
		}
		closedir(d);
	}
	free(idir);
	return n;
}

bool attempts_left(const struct eval_job *j, long *prior)
{
	char *last = NULL;
	*prior = failed_attempts(j, &last);
	bool left = *prior < j->o->attempts;
	if (!left) {
		eval_progress(j, "not run: %ld failed attempts already", *prior);
		warnf("%s: %ld failed attempts already (last: %s); see %s/%s/%s.*; remove them or raise --attempts "
		      "to try again", j->test, *prior, last ? last : "?", j->incomplete, j->stage, j->test);
	}
	free(last);
	return left;
}

/* Infra errors that are facts of the task's environment, not of the
 * machine's moment: another attempt would end the same. */
static bool settled(const char *category)
{
	return category && !strcmp(category, "environment_not_reproduced");
}

bool attempts_retry_infra(const struct eval_job *j, long prior, const cJSON *t, char *reason, size_t size)
{
	const char *outcome = json_str(t, "outcome");
	const char *cat = json_str(t, "error_category"), *err = json_str(t, "error");
	if (!outcome || strcmp(outcome, "infra_error") || prior + 1 >= j->o->attempts || settled(cat))
		return false;
	snprintf(reason, size, "infra error (%s): %.600s; attempt %ld of %ld, the next make tries again",
		 cat ? cat : "unknown", err ? err : "the runner gave no error text (see runner.log)", prior + 1,
		 j->o->attempts);
	return true;
}
