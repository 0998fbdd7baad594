#include "pipeline/launcher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"

/* How long a Slurm query may take, and how long cancelled jobs may take
 * to end (Slurm's KillWait is 30 s by default). */
#define QUERY_SECONDS 60
#define END_SECONDS 180

static const char marker_dir[] = ".slurm";

/* SRUN_ARGS as words (the setting holds no quotes: split at spaces). */
static void split_words(const char *s, struct strlist *out)
{
	while (s && *s) {
		size_t skip = strspn(s, " \t"), n = strcspn(s + skip, " \t");
		if (n)
			strlist_push_owned(out, xstrndup(s + skip, n));
		s += skip + n;
	}
}

static char *marker_path(const char *run_dir, const char *target)
{
	return xasprintf("%s/%s/%s.json", run_dir, marker_dir, target);
}

static int write_marker(const struct launcher_job *l, struct err *e)
{
	if (fs_mkdirs_parent(l->marker, e) < 0)
		return -1;
	cJSON *m = cJSON_CreateObject();
	json_set_str(m, "job_name", l->job_name);
	json_set_str(m, "comment", l->comment);
	char host[256] = "?", when[32];
	gethostname(host, sizeof host - 1);
	json_set_str(m, "host", host);
	json_set_num(m, "pid", getpid());
	iso_time(now_wall(), when);
	json_set_str(m, "started", when);
	int r = json_write_file(l->marker, m, e);
	cJSON_Delete(m);
	return r;
}

static void launch_free(struct launcher_job *l)
{
	free(l->marker);
	free(l->job_name);
	free(l->comment);
	memset(l, 0, sizeof *l);
}

int launcher_wrap(const struct run *r, const struct stage_ref *ref, struct strlist *argv, struct launcher_job *l,
		  struct err *e)
{
	memset(l, 0, sizeof *l);
	if (!ref->def->remote || strcmp(run_get(r, "LAUNCHER"), "srun"))
		return 0;
	char *srun = fs_find_in_path("srun");
	if (!srun)
		return err_set(e, ERR_INPUT, "LAUNCHER=srun needs `srun` on PATH (Debian: apt-get install slurm-client; "
			       "on a cluster, its module), or set LAUNCHER=local");
	char *abs = fs_real_path(r->dir);
	l->job_name = xasprintf("%s:%s", path_base(abs), ref->name);
	l->comment = xasprintf("skillc:%s", abs);
	l->marker = marker_path(r->dir, ref->name);
	free(abs);
	if (write_marker(l, e) < 0) {
		free(srun);
		launch_free(l);
		return -1;
	}
	/* Slurm's limit is the backstop: ours (which records why) comes first */
	long minutes = (stage_timeout(ref->def, r) + 59) / 60 + 1;
	struct strlist v = STRLIST_INIT;
	strlist_push_owned(&v, srun);
	strlist_push(&v, "-N1");
	strlist_push(&v, "-n1");
	strlist_push_owned(&v, xasprintf("--job-name=%s", l->job_name));
	strlist_push_owned(&v, xasprintf("--comment=%s", l->comment));
	strlist_push_owned(&v, xasprintf("--time=%ld", minutes));
	split_words(run_get(r, "SRUN_ARGS"), &v);
	strlist_push(&v, "--");
	for (size_t i = 0; i < argv->n; i++)
		strlist_push(&v, argv->v[i]);
	strlist_free(argv);
	*argv = v;
	return 0;
}

/* Runs a Slurm query; its output in out. -1 with e naming the command and
 * its first line of output when it could not run or failed. */
static int slurm_query(char *const *argv, struct buf *out, struct err *e)
{
	struct proc_result res;
	buf_reset(out);
	if (proc_capture(argv, QUERY_SECONDS, out, &res, e) < 0)
		return -1;
	if (res.exit_code == 0)
		return 0;
	const char *text = out->data;
	return err_set(e, ERR_WORK, "%s failed (%s): %.*s", argv[0],
		       res.timed_out ? "no answer" : "exit status", (int)strcspn(text, "\n"), text);
}

/* The ids of our jobs among (names[i], comments[i]) that squeue lists:
 * every job not yet ended, COMPLETING too (after scancel a job is
 * COMPLETING at once while its tool may still be stopping). */
static int find_jobs(const struct strlist *names, const struct strlist *comments, struct strlist *ids,
		     struct err *e)
{
	struct buf list = BUF_INIT;
	for (size_t i = 0; i < names->n; i++)
		buf_printf(&list, "%s%s", i ? "," : "", names->v[i]);
	char *user = xasprintf("--user=%ld", (long)getuid());
	char *name = xasprintf("--name=%s", list.data);
	char *argv[] = { "squeue", "--noheader", user, name, "--format=%i|%j|%k", NULL };
	struct buf out = BUF_INIT;
	int r = slurm_query(argv, &out, e);
	char *save = NULL;
	for (char *line = r == 0 && out.len ? strtok_r(out.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *bar1 = strchr(line, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
		if (!bar2)
			continue;
		*bar1 = *bar2 = '\0';
		for (size_t i = 0; i < names->n; i++)
			if (!strcmp(bar1 + 1, names->v[i]) && !strcmp(bar2 + 1, comments->v[i])) {
				strlist_push(ids, line);
				break;
			}
	}
	buf_free(&out);
	buf_free(&list);
	free(user);
	free(name);
	return r;
}

static void join_ids(const struct strlist *ids, struct buf *b)
{
	for (size_t i = 0; i < ids->n; i++)
		buf_printf(b, "%s%s", i ? " " : "", ids->v[i]);
}

/* Waits until Slurm lists none of our jobs among (names, comments); an
 * error naming them after END_SECONDS. */
static int wait_jobs(const struct strlist *names, const struct strlist *comments, struct err *e)
{
	int r = 0;
	double deadline = now_mono() + END_SECONDS;
	struct strlist left = STRLIST_INIT;
	for (;;) {
		strlist_free(&left);
		if ((r = find_jobs(names, comments, &left, e)) < 0 || !left.n)
			break;
		if (now_mono() > deadline) {
			struct buf b = BUF_INIT;
			join_ids(&left, &b);
			r = err_set(e, ERR_WORK, "Slurm job%s %s did not end within %d s of scancel; wait for %s or "
				    "run `scancel --signal=KILL %s`", left.n == 1 ? "" : "s", b.data, END_SECONDS,
				    left.n == 1 ? "it" : "them", b.data);
			buf_free(&b);
			break;
		}
		nanosleep(&(struct timespec){ 0, 250 * 1000 * 1000 }, NULL);
	}
	strlist_free(&left);
	return r;
}

/* Cancels our jobs among (names, comments) and waits until Slurm lists
 * none of them. *cancelled gets the ids that were there. */
static int cancel_jobs(const struct strlist *names, const struct strlist *comments, struct strlist *cancelled,
		       struct err *e)
{
	if (find_jobs(names, comments, cancelled, e) < 0)
		return -1;
	if (!cancelled->n)
		return 0;
	struct strlist argv = STRLIST_INIT;
	strlist_push(&argv, "scancel");
	for (size_t i = 0; i < cancelled->n; i++)
		strlist_push(&argv, cancelled->v[i]);
	struct buf out = BUF_INIT;
	int r = slurm_query(argv.v, &out, e);
	strlist_free(&argv);
	buf_free(&out);
	return r < 0 ? r : wait_jobs(names, comments, e);
}

void launcher_stop(int sig, void *arg)
{
	struct launcher_job *l = arg;
	if (l->cancelled)
		return;
	struct strlist names = STRLIST_INIT, comments = STRLIST_INIT, ids = STRLIST_INIT;
	strlist_push(&names, l->job_name);
	strlist_push(&comments, l->comment);
	struct err e = { 0 };
	if (find_jobs(&names, &comments, &ids, &e) == 0 && ids.n) {
		struct strlist argv = STRLIST_INIT;
		strlist_push(&argv, "scancel");
		for (size_t i = 0; i < ids.n; i++)
			strlist_push(&argv, ids.v[i]);
		struct buf out = BUF_INIT;
		l->cancelled = slurm_query(argv.v, &out, &e) == 0;
		buf_free(&out);
		strlist_free(&argv);
	}
	strlist_free(&names);
	strlist_free(&comments);
	strlist_free(&ids);
}

void launcher_done(struct launcher_job *l, bool started, const struct proc_result *res)
{
	if (l->marker) {
		bool cut = !started || !res || res->interrupted || res->timed_out || res->signal;
		/* a cut-short job is cancelled (again: srun may have ended before
		 * its tool did, and scancel of a COMPLETING job is harmless) and
		 * waited for until Slurm lists it no more: only then has its tool
		 * stopped writing into the run */
		struct strlist names = STRLIST_INIT, comments = STRLIST_INIT, ids = STRLIST_INIT;
		strlist_push(&names, l->job_name);
		strlist_push(&comments, l->comment);
		struct err e = { 0 };
		if (cut && cancel_jobs(&names, &comments, &ids, &e) < 0)
			warnf("%s: cannot cancel its Slurm job: %s; the next make will", l->job_name, e.msg);
		else
			unlink(l->marker);
		strlist_free(&names);
		strlist_free(&comments);
		strlist_free(&ids);
	}
	launch_free(l);
}

/* The markers an earlier make left in run_dir: their paths, job names and comments. */
static void read_markers(const char *run_dir, struct strlist *paths, struct strlist *names,
			 struct strlist *comments)
{
	char *dir = path_join(run_dir, marker_dir);
	struct strlist files = STRLIST_INIT;
	if (fs_is_dir(dir))
		fs_list_names(dir, &files, NULL);
	for (size_t i = 0; i < files.n; i++) {
		size_t n = strlen(files.v[i]);
		if (fs_is_temp_name(files.v[i]) || n < 6 || strcmp(files.v[i] + n - 5, ".json"))
			continue;
		char *p = path_join(dir, files.v[i]);
		struct err e;
		cJSON *m = json_read_file(p, &e);
		const char *name = json_str(m, "job_name"), *comment = json_str(m, "comment");
		if (name && comment) {
			strlist_push(names, name);
			strlist_push(comments, comment);
		}
		strlist_push_owned(paths, p); /* one that does not parse goes too: it never named a job */
		cJSON_Delete(m);
	}
	strlist_free(&files);
	free(dir);
}

int launcher_sweep(const char *run_dir, struct err *e)
{
	struct strlist paths = STRLIST_INIT, names = STRLIST_INIT, comments = STRLIST_INIT, ids = STRLIST_INIT;
	read_markers(run_dir, &paths, &names, &comments);
	int r = 0;
	struct err why = { 0 };
	if (names.n && cancel_jobs(&names, &comments, &ids, &why) < 0)
		/* they may still write into the run: never work beside them unknowingly */
		r = err_set(e, ERR_WORK, "cannot ask Slurm about %zu job%s an earlier make of '%s' left (%s): run make "
			    "again when the cluster answers, or remove %s/%s/ if you know those jobs have ended",
			    names.n, names.n == 1 ? "" : "s", run_dir, why.msg, run_dir, marker_dir);
	for (size_t i = 0; i < ids.n; i++)
		warnf("cancelled orphaned Slurm job %s of %s: the make that started it is gone", ids.v[i], run_dir);
	for (size_t i = 0; r == 0 && i < paths.n; i++)
		unlink(paths.v[i]);
	strlist_free(&paths);
	strlist_free(&names);
	strlist_free(&comments);
	strlist_free(&ids);
	return r;
}

bool launcher_said(const char *line)
{
	return !strncmp(line, "srun: ", 6) || !strncmp(line, "slurmstepd", 10);
}

/* ---- make doctor ---- */

/* The partition named in SRUN_ARGS (-p X, -pX, --partition=X, --partition X), or NULL. */
static char *partition_of(const char *srun_args)
{
	struct strlist w = STRLIST_INIT;
	split_words(srun_args, &w);
	char *p = NULL;
	for (size_t i = 0; i < w.n; i++) {
		const char *a = w.v[i], *next = i + 1 < w.n ? w.v[i + 1] : NULL;
		if ((!strcmp(a, "-p") || !strcmp(a, "--partition")) && next)
			p = xstrdup(next), i++;
		else if (!strncmp(a, "--partition=", 12))
			p = (free(p), xstrdup(a + 12));
		else if (!strncmp(a, "-p", 2) && a[2])
			p = (free(p), xstrdup(a + 2));
	}
	strlist_free(&w);
	if (p && strchr(p, ',')) /* several: the first one answers for them */
		p[strcspn(p, ",")] = '\0';
	return p;
}

/* A node state of sinfo %t that can take a job (no suffix '*': responding). */
static bool usable_state(const char *s)
{
	static const char *const ok[] = { "idle", "mix", "alloc", "comp", "plnd", "idle~", "mix~" };
	return str_in(s, ok, ARRAY_LEN(ok));
}

struct partition_facts {
	char *avail;
	long nodes, usable;
	struct buf states;     /* "idle 1, down 2" */
	struct strlist known;  /* every partition's name */
};

static void join(const struct strlist *l, struct buf *b)
{
	for (size_t i = 0; i < l->n; i++)
		buf_printf(b, "%s%s", i ? ", " : "", l->v[i]);
	if (!l->n)
		buf_adds(b, "none");
}

/* Reads sinfo's "%P|%a|%D|%t" lines into f for the partition `want` (NULL:
 * the default one, whose name sinfo marks with '*'); returns its name. */
static char *read_sinfo(char *text, const char *want, struct partition_facts *f)
{
	char *name = NULL;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *fld[4] = { line, NULL, NULL, NULL };
		for (int k = 1; k < 4 && fld[k - 1]; k++)
			if ((fld[k] = strchr(fld[k - 1], '|')))
				*fld[k]++ = '\0';
		if (!fld[3])
			continue;
		size_t n = strlen(fld[0]);
		bool dflt = n && fld[0][n - 1] == '*';
		if (dflt)
			fld[0][n - 1] = '\0';
		strlist_push_new(&f->known, fld[0]);
		if (want ? strcmp(want, fld[0]) : !dflt)
			continue;
		if (!name)
			name = xstrdup(fld[0]);
		free(f->avail);
		f->avail = xstrdup(fld[1]);
		long k = strtol(fld[2], NULL, 10);
		f->nodes += k;
		f->usable += usable_state(fld[3]) ? k : 0;
		buf_printf(&f->states, "%s%s %ld", f->states.len ? ", " : "", fld[3], k);
	}
	return name;
}

int launcher_check(const char *launcher, const char *srun_args, struct buf *what, struct err *e)
{
	if (!launcher || !*launcher || !strcmp(launcher, "local")) {
		buf_adds(what, "local: stages run on this machine");
		return 0;
	}
	static const char *const progs[] = { "srun", "sinfo", "squeue", "scancel" };
	for (size_t i = 0; i < ARRAY_LEN(progs); i++) {
		char *p = fs_find_in_path(progs[i]);
		free(p);
		if (!p)
			return err_set(e, ERR_INPUT, "srun: `%s` is not on PATH (Debian: apt-get install slurm-client; on a "
				       "cluster, its module), or set LAUNCHER=local", progs[i]);
	}
	char *argv[] = { "sinfo", "--noheader", "--format=%P|%a|%D|%t", NULL };
	struct buf out = BUF_INIT;
	if (slurm_query(argv, &out, e) < 0) {
		buf_free(&out);
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "%s", e->msg);
		return err_set(e, ERR_WORK, "srun: the cluster does not answer: %s (is SLURM_CONF right, is slurmctld up?)",
			       msg);
	}
	char *want = partition_of(srun_args);
	struct partition_facts f = { NULL, 0, 0, BUF_INIT, STRLIST_INIT };
	char *name = read_sinfo(out.data, want, &f);
	struct buf known = BUF_INIT;
	join(&f.known, &known);
	int r = 0;
	if (!name && want)
		r = err_set(e, ERR_INPUT, "srun: SRUN_ARGS names partition '%s', which the cluster does not have "
			    "(partitions: %s)", want, known.data);
	else if (!name)
		r = err_set(e, ERR_INPUT, "srun: the cluster has no default partition: name one in "
			    "SRUN_ARGS=--partition=NAME (partitions: %s)", known.data);
	else if (strcmp(f.avail, "up"))
		r = err_set(e, ERR_WORK, "srun: partition %s is %s: jobs would wait; pick another in SRUN_ARGS or ask "
			    "the cluster's admin", name, f.avail);
	else if (!f.usable)
		r = err_set(e, ERR_WORK, "srun: partition %s has no node that can run a job (%s)", name, f.states.data);
	else
		buf_printf(what, "srun: partition %s%s is up, %ld of %ld node%s usable (%s)", name,
			   want ? "" : " (the default)", f.usable, f.nodes, f.nodes == 1 ? "" : "s", f.states.data);
	free(name);
	free(want);
	free(f.avail);
	buf_free(&f.states);
	strlist_free(&f.known);
	buf_free(&known);
	buf_free(&out);
	return r;
}
