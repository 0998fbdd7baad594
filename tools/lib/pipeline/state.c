#include "pipeline/state.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/slots.h"

static char *status_path(const char *run, const char *stage, const char *ext)
{
	return xasprintf("%s/status/%s%s", run, stage, ext);
}

cJSON *state_read(const char *run, const char *stage)
{
	char *p = status_path(run, stage, ".json");
	cJSON *st = json_read_opt(p);
	free(p);
	return st;
}

int state_write(const char *run, const char *stage, const cJSON *st, struct err *e)
{
	char *dir = xasprintf("%s/status", run);
	char *p = status_path(run, stage, ".json");
	int r = fs_mkdirs(dir, e) < 0 ? -1 : json_write_file(p, st, e);
	free(dir);
	free(p);
	return r;
}

char *state_ok_path(const char *run, const char *stage)
{
	return status_path(run, stage, ".ok");
}

void state_input_hash(const char *run, const char *rel, char out[33])
{
	char *p = path_join(run, rel);
	struct err e;
	size_t n = strlen(rel);
	int is_stamp = n > 5 && !strcmp(rel + n - 5, ".hash");
	if (!fs_exists(p))
		strcpy(out, "absent");
	else if (!(is_stamp && stamp_read(p, out, &e) == 0) && hash_tree(p, out, &e) < 0)
		strcpy(out, "absent");
	free(p);
}

cJSON *state_inputs(const struct run *r, const struct stage_ref *ref)
{
	cJSON *in = cJSON_CreateObject();
	char h[33];
	struct strlist inputs = STRLIST_INIT;
	stage_ref_inputs(ref, r, &inputs);
	for (size_t i = 0; i < inputs.n; i++) {
		state_input_hash(r->dir, inputs.v[i], h);
		cJSON_AddStringToObject(in, inputs.v[i], h);
	}
	strlist_free(&inputs);
	char *cfg = stage_config_path(ref->def);
	state_input_hash(r->dir, cfg, h);
	cJSON_AddStringToObject(in, cfg, h);
	free(cfg);
	return in;
}

int state_write_due(const struct run *r, const char *goals, struct err *e)
{
	if (!goals || !*goals)
		return 0;
	struct stage_ref *all;
	size_t n = stage_refs(r, &all);
	char *due = xcalloc(n ? n : 1, 1);
	char *list = xstrdup(goals);
	for (char *save = NULL, *g = strtok_r(list, " ", &save); g; g = strtok_r(NULL, " ", &save)) {
		struct stage_ref *need;
		int k = goal_refs(r, g, &need);
		for (int j = 0; j < k; j++)
			for (size_t i = 0; i < n; i++)
				if (!strcmp(all[i].name, need[j].name))
					due[i] = 1;
		free(need);
	}
	cJSON *d = cJSON_CreateObject();
	json_set_str(d, "goals", goals);
	cJSON *t = json_set(d, "targets", cJSON_CreateArray());
	for (size_t i = 0; i < n; i++)
		if (due[i])
			cJSON_AddItemToArray(t, cJSON_CreateString(all[i].name));
	char *dir = path_join(r->dir, "status"), *p = path_join(dir, "due.json");
	int rc = fs_mkdirs(dir, e) < 0 ? -1 : json_write_if_changed(p, d, e) < 0 ? -1 : 0;
	free(p);
	free(dir);
	cJSON_Delete(d);
	free(list);
	free(due);
	free(all);
	return rc;
}

static bool listed(const cJSON *names, const char *name)
{
	for (const cJSON *x = names ? names->child : NULL; x; x = x->next)
		if (cJSON_IsString(x) && !strcmp(x->valuestring, name))
			return true;
	return false;
}

/* The run, its task, the settings that name it and its two input stamps. */
static void manifest_identity(cJSON *m, const struct run *r)
{
	cJSON_AddStringToObject(m, "run", r->dir);
	cJSON_AddStringToObject(m, "task", r->task);
	cJSON *ident = cJSON_AddObjectToObject(m, "identity");
	static const char *const identity[] = { "HARNESS", "MODEL", "EXTERNAL_MODEL", "RUNNER" };
	for (size_t i = 0; i < ARRAY_LEN(identity); i++)
		cJSON_AddStringToObject(ident, identity[i], run_get(r, identity[i]));
	cJSON *inputs = cJSON_AddObjectToObject(m, "inputs");
	static const char *const stamps[] = { "inputs/skill.hash", "inputs/config.hash" };
	for (size_t i = 0; i < ARRAY_LEN(stamps); i++) {
		char *p = path_join(r->dir, stamps[i]);
		hash_hex h;
		struct err ignore;
		if (stamp_read(p, h, &ignore) == 0)
			cJSON_AddStringToObject(inputs, stamps[i], h);
		free(p);
	}
}

/* A stage's record, briefly; its error into errors when it did not end done. */
static cJSON *stage_brief(const char *name, const cJSON *st, cJSON *errors)
{
	cJSON *brief = cJSON_CreateObject();
	static const char *const keep[] = { "state", "started", "ended", "seconds", "error", "tool" };
	for (size_t k = 0; k < ARRAY_LEN(keep); k++) {
		cJSON *v = json_get(st, keep[k]);
		if (v)
			cJSON_AddItemToObject(brief, keep[k], cJSON_Duplicate(v, 1));
	}
	const char *state = json_str(st, "state"), *error = json_str(st, "error");
	if (state && strcmp(state, "done") && error) {
		cJSON *er = cJSON_CreateObject();
		cJSON_AddStringToObject(er, "stage", name);
		cJSON_AddStringToObject(er, "error", error);
		cJSON_AddItemToArray(errors, er);
	}
	return brief;
}

/* Every target due (status/due.json's, when the last command wrote one)
 * with its state, every stage that ran in brief, and the errors of those
 * that did not end done. */
static void manifest_stages(cJSON *m, const struct run *r)
{
	cJSON *stages = cJSON_AddObjectToObject(m, "stages");
	cJSON *targets = cJSON_AddObjectToObject(m, "targets");
	cJSON *errors = cJSON_AddArrayToObject(m, "errors");
	struct stage_ref *refs;
	size_t nrefs = stage_refs(r, &refs);
	cJSON *due = json_read_rel(r->dir, "status/due.json");
	const cJSON *due_list = json_get(due, "targets");
	for (size_t i = 0; i < nrefs; i++) {
		const char *name = refs[i].name;
		cJSON *st = state_read(r->dir, name);
		const char *state = st ? json_str(st, "state") : NULL;
		if (!st && !stage_wanted(refs[i].def, r))
			continue; /* not asked for (BASELINE=0) and never run: not due */
		if (!due_list || listed(due_list, name) || st)
			cJSON_AddStringToObject(targets, name, state ? state : "pending");
		if (st)
			cJSON_AddItemToObject(stages, name, stage_brief(name, st, errors));
		cJSON_Delete(st);
	}
	free(refs);
	cJSON_Delete(due);
}

/* The deliverable: {path (the skill folder), hash (S_final.hash)}, or null. */
static void manifest_final(cJSON *m, const struct run *r)
{
	char *final_dir = path_join(r->dir, "artifacts/deep/S_final");
	char *final_hash = path_join(r->dir, "artifacts/deep/S_final.hash");
	hash_hex fh;
	struct err fe;
	struct fs_tree ft = { 0 };
	if (fs_is_dir(final_dir) && stamp_read(final_hash, fh, &fe) == 0 && fs_list_tree(final_dir, &ft, &fe) == 0 && ft.n) {
		cJSON *f = json_set(m, "final_skill", cJSON_CreateObject());
		size_t top = 0; /* skill folders: a set of several is named by its root */
		for (size_t i = 0; i < ft.n; i++)
			top += !strchr(ft.v[i].path, '/');
		char *path = top > 1 ? xstrdup("artifacts/deep/S_final")
				     : xasprintf("artifacts/deep/S_final/%.*s", (int)strcspn(ft.v[0].path, "/"), ft.v[0].path);
		json_set_str(f, "path", path);
		json_set_str(f, "hash", fh);
		free(path);
	} else {
		json_set(m, "final_skill", cJSON_CreateNull());
	}
	fs_tree_free(&ft);
	free(final_hash);
	free(final_dir);
}

int manifest_rebuild(const struct run *r, struct err *e)
{
	char *lockp = path_join(r->dir, ".manifest.lock");
	int fd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(lockp);
	if (fd < 0)
		return err_set(e, ERR_WORK, "cannot open the manifest lock in '%s':", r->dir);
	flock(fd, LOCK_EX); /* stages finishing together take turns; each writes all of it */

	cJSON *m = cJSON_CreateObject();
	manifest_identity(m, r);
	manifest_stages(m, r);
	manifest_final(m, r);

	char *path = path_join(r->dir, "manifest.json");
	int rc = json_write_if_changed(path, m, e) < 0 ? -1 : 0;
	free(path);
	cJSON_Delete(m);
	close(fd); /* releases the lock */
	return rc;
}

/* The pids whose open files include the file fd is open on, from /proc,
 * as " 123 456" (empty when /proc says nothing). */
static void holders_of(int fd, struct buf *out)
{
	struct stat want;
	DIR *d = fstat(fd, &want) == 0 ? opendir("/proc") : NULL;
	for (struct dirent *p; d && (p = readdir(d));) {
		char *end;
		long pid = strtol(p->d_name, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		char *fds = xasprintf("/proc/%ld/fd", pid);
		DIR *fdd = opendir(fds);
		bool holds = false;
		for (struct dirent *f; fdd && !holds && (f = readdir(fdd));) {
			char *link = xasprintf("%s/%s", fds, f->d_name);
			struct stat st;
			holds = f->d_name[0] != '.' && stat(link, &st) == 0 && st.st_ino == want.st_ino &&
				st.st_dev == want.st_dev;
			free(link);
		}
		if (fdd)
			closedir(fdd);
		if (holds)
			buf_printf(out, " %ld", pid);
		free(fds);
	}
	if (d)
		closedir(d);
}

/* True when pid is not running (no such process, or a zombie). */
static bool pid_gone(long pid)
{
	if (kill((pid_t)pid, 0) < 0)
		return errno == ESRCH;
	char *p = xasprintf("/proc/%ld/stat", pid);
	struct buf b = BUF_INIT;
	struct err e;
	bool zombie = false;
	if (fs_read(p, 4096, &b, &e) == 0) {
		const char *close = strrchr(b.data, ')'); /* the name may hold spaces */
		zombie = close && close[1] == ' ' && close[2] == 'Z';
	}
	buf_free(&b);
	free(p);
	return zombie;
}

/* Who holds .lock, in words: the line its taker wrote, and when that
 * process is gone (killed), the processes it started that still hold it. */
static char *lock_holder(int fd)
{
	char *line = lock_first_line(fd, "another process holds .lock");
	struct lock_holder h;
	if (lock_holder_parse(line, "locked by ", &h, NULL) < 0 || !pid_gone(h.pid))
		return line;
	struct buf b = BUF_INIT;
	holders_of(fd, &b);
	char *s = b.len ? xasprintf("%s; that process is gone (killed?), but processes it started still hold "
				    "the lock:%s; wait for them or stop them (kill%s)", line, b.data, b.data)
			: xasprintf("%s; that process is gone (killed?), but processes it started still hold "
				    "the lock; wait for them or stop them", line);
	buf_free(&b);
	free(line);
	return s;
}

int run_lock(const char *run, const char *what, struct err *e)
{
	if (fs_mkdirs(run, e) < 0)
		return -1;
	char *p = path_join(run, ".lock");
	int fd = open(p, O_RDWR | O_CREAT, 0644); /* no O_CLOEXEC: children keep it */
	if (fd < 0) {
		err_set(e, ERR_WORK, "cannot open '%s':", p);
		free(p);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char *holder = lock_holder(fd);
		err_set(e, ERR_INPUT, "run '%s' is busy: %s%s", run, holder,
			strstr(holder, "is gone") ? "" : "; wait for that make to finish or stop it");
		free(holder);
		close(fd);
		free(p);
		return -1;
	}
	/* who holds it, for the message a second make prints */
	char *post = xasprintf(" (%s)\n", what);
	lock_claim(fd, "locked by ", post);
	free(post);
	free(p);
	return fd;
}

int run_is_locked(const char *run)
{
	char *p = path_join(run, ".lock");
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	if (fd < 0)
		return 0;
	int held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

void run_lock_keep_only(const char *run)
{
	char *mine = path_join(run, ".lock");
	struct stat own;
	int have = stat(mine, &own) == 0;
	free(mine);
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	struct strlist drop = STRLIST_INIT; /* close after the walk: closing changes the folder */
	for (struct dirent *f; (f = readdir(d));) {
		char link[64], target[4096];
		if (f->d_name[0] == '.' || snprintf(link, sizeof link, "/proc/self/fd/%s", f->d_name) >= (int)sizeof link)
			continue;
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n <= 6)
			continue;
		target[n] = '\0';
		struct stat st;
		if (strcmp(target + n - 6, "/.lock") || fstat(atoi(f->d_name), &st) < 0)
			continue;
		if (!have || st.st_ino != own.st_ino || st.st_dev != own.st_dev)
			strlist_push(&drop, f->d_name);
	}
	closedir(d);
	for (size_t i = 0; i < drop.n; i++)
		close(atoi(drop.v[i]));
	strlist_free(&drop);
}

void run_lock_note(int fd, const char *due)
{
	char *line = lock_text(fd, 8191);
	size_t first = strcspn(line, "\n");
	bool whole = line[first] == '\n';
	free(line);
	if (!whole)
		return;
	char *text = xasprintf("due: %s\n", due);
	if (pwrite(fd, text, strlen(text), (off_t)first + 1) < 0 || ftruncate(fd, (off_t)(first + 1 + strlen(text))) < 0)
		text[0] = '\0'; /* best effort: only make watch reads it */
	free(text);
}

char *run_lock_due(const char *run)
{
	if (!run_is_locked(run))
		return NULL;
	char *p = path_join(run, ".lock");
	struct buf b = BUF_INIT;
	struct err e;
	char *due = NULL;
	if (fs_read(p, 64 << 20, &b, &e) == 0 && b.len) {
		char *line = strstr(b.data, "\ndue: ");
		if (line) {
			line += 6;
			due = xstrndup(line, strcspn(line, "\n"));
		}
	}
	if (!due)
		due = xstrdup("");
	buf_free(&b);
	free(p);
	return due;
}

char *state_output_problem(const char *path, const char *ok_path)
{
	struct stat st, ok;
	if (lstat(path, &st) < 0)
		return xstrdup("is missing");
	if (stat(ok_path, &ok) < 0)
		return NULL; /* not done: nothing to distrust */
	bool newer = st.st_mtim.tv_sec > ok.st_mtim.tv_sec ||
		     (st.st_mtim.tv_sec == ok.st_mtim.tv_sec && st.st_mtim.tv_nsec > ok.st_mtim.tv_nsec);
	size_t n = strlen(path);
	struct err e = { 0, "" };
	if (!newer || !S_ISREG(st.st_mode) || n < 5)
		return NULL;
	if (!strcmp(path + n - 5, ".hash")) {
		hash_hex h;
		return stamp_read(path, h, &e) < 0 ? xstrdup("is not a hash stamp (32 hex digits and a newline)") : NULL;
	}
	if (strcmp(path + n - 5, ".json"))
		return NULL;
	cJSON *j = json_read_file(path, &e);
	char *why = !j ? xasprintf("does not parse (%s)", e.msg)
		    : !cJSON_IsObject(j) ? xstrdup("is not a JSON object")
		    : n >= 10 && !strcmp(path + n - 10, "trial.json") && !json_bool(j, "complete", false)
			    ? xstrdup("is not a complete trial") : NULL;
	cJSON_Delete(j);
	return why;
}

cJSON *state_output_hashes(const struct run *r, const struct stage_ref *ref)
{
	struct strlist outs = STRLIST_INIT;
	stage_ref_outputs(ref, r, &outs);
	cJSON *o = cJSON_CreateObject();
	for (size_t i = 0; i < outs.n; i++) {
		char *p = run_path(r, outs.v[i]);
		struct stat st;
		hash_hex h;
		struct err e;
		if (!str_ends_with(outs.v[i], ".hash") && lstat(p, &st) == 0 &&
		    S_ISREG(st.st_mode) && hash_file(p, h, &e) == 0)
			json_set_str(o, outs.v[i], h);
		free(p);
	}
	strlist_free(&outs);
	return o;
}

cJSON *state_written(const struct run *r, const struct stage_ref *ref)
{
	struct strlist outs = STRLIST_INIT;
	stage_ref_outputs(ref, r, &outs);
	cJSON *w = cJSON_CreateObject(), *files = cJSON_CreateObject();
	json_set_str(w, "boot", fs_boot_id());
	for (size_t i = 0; i < outs.n; i++) {
		char *p = run_path(r, outs.v[i]);
		struct stat st;
		hash_hex h;
		struct err e;
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && hash_file(p, h, &e) == 0)
			json_set_str(files, outs.v[i], h);
		free(p);
	}
	json_set(w, "files", files);
	strlist_free(&outs);
	return w;
}

/* What is wrong with one output of a rebuildable target after a restart. */
static char *torn_output(const struct run *r, const char *rel, const cJSON *files)
{
	char *p = run_path(r, rel), *stamp = xasprintf("%s.hash", p);
	const char *want = json_str(files, rel);
	struct stat st;
	hash_hex h, sh;
	struct err e;
	char *why = NULL;
	if (lstat(p, &st) < 0)
		why = xstrdup("is missing");
	else if (S_ISREG(st.st_mode) && (!want || hash_file(p, h, &e) < 0 || strcmp(h, want)))
		why = xstrdup("is not what the stage wrote");
	else if (S_ISDIR(st.st_mode) &&
		 (stamp_read(stamp, sh, &e) < 0 || hash_tree(p, h, &e) < 0 || strcmp(h, sh)))
		why = xstrdup("does not match its hash stamp");
	free(stamp);
	free(p);
	return why;
}

char *state_output_torn(const struct run *r, const struct stage_ref *ref, const cJSON *recorded)
{
	const cJSON *w = json_get(recorded, "written");
	const char *boot = json_str(w, "boot");
	if (!ref->def->rebuildable || !w || !strcmp(boot ? boot : "", fs_boot_id()))
		return NULL;
	struct strlist outs = STRLIST_INIT;
	stage_ref_outputs(ref, r, &outs);
	char *why = NULL;
	for (size_t i = 0; !why && i < outs.n; i++) {
		char *t = torn_output(r, outs.v[i], json_get(w, "files"));
		if (t)
			why = xasprintf("output %s %s after the machine restarted (written "
					"without fsync: docs/internals/durability.md)",
					outs.v[i], t);
		free(t);
	}
	strlist_free(&outs);
	return why;
}

static bool newer_than(const struct stat *st, const struct stat *ok)
{
	return st->st_mtim.tv_sec > ok->st_mtim.tv_sec ||
	       (st->st_mtim.tv_sec == ok->st_mtim.tv_sec && st->st_mtim.tv_nsec > ok->st_mtim.tv_nsec);
}

/* A file output whose bytes are not the recorded ones; only one changed
 * after the stamp is hashed (an edit renews the time), so a no-op make
 * reads none. */
static bool file_edited(const char *path, const char *want, const struct stat *ok)
{
	struct stat st;
	hash_hex h;
	struct err e;
	if (!want || lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || !newer_than(&st, ok))
		return false;
	return hash_file(path, h, &e) == 0 && strcmp(h, want);
}

/* A folder output with a "<folder>.hash" stamp that its tree no longer
 * matches (a skill edited in place). */
static bool tree_edited(const char *path)
{
	char *stamp = xasprintf("%s.hash", path);
	hash_hex want, have;
	struct err e;
	bool edited = fs_is_dir(path) && stamp_read(stamp, want, &e) == 0 && hash_tree(path, have, &e) == 0 &&
		      strcmp(want, have);
	free(stamp);
	return edited;
}

/* The output folder of ref holding rel, or rel itself. */
static char *holder_of(const struct strlist *outs, const char *rel)
{
	for (size_t i = 0; i < outs->n; i++) {
		size_t n = strlen(outs->v[i]);
		if (!strncmp(rel, outs->v[i], n) && rel[n] == '/')
			return xstrdup(outs->v[i]);
	}
	return xstrdup(rel);
}

char *state_output_edited(const struct run *r, const struct stage_ref *ref, const cJSON *recorded,
			  const char *ok, char **aside)
{
	struct stat okst;
	*aside = NULL;
	if (stat(ok, &okst) < 0)
		return NULL; /* not done: nothing to distrust */
	struct strlist outs = STRLIST_INIT;
	stage_ref_outputs(ref, r, &outs);
	char *found = NULL;
	for (size_t i = 0; !found && i < outs.n; i++) {
		char *p = run_path(r, outs.v[i]);
		char *stamp = xasprintf("%s.hash", outs.v[i]);
		bool stamped = false;
		for (size_t k = 0; k < outs.n; k++)
			stamped |= !strcmp(outs.v[k], stamp);
		if ((stamped && tree_edited(p)) || file_edited(p, json_str(json_get(recorded, "outputs"), outs.v[i]), &okst)) {
			found = xstrdup(outs.v[i]);
			*aside = holder_of(&outs, outs.v[i]);
		}
		free(stamp);
		free(p);
	}
	strlist_free(&outs);
	return found;
}
