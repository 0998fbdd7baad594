/* skillc-stage — the life of a stage in one run (the folder RUN). make calls
 * it for every recipe (generated in each run's rules.mk):
 *   run RUN TARGET   runs the target's tool under its time limit, logging to
 *                    logs/TARGET.log, recording status/TARGET.json and, only on
 *                    success, the status/TARGET.ok stamp; rebuilds manifest.json;
 *                    leftovers of a cut-short run go to .incomplete/TARGET/
 *   lock RUN -- CMD  runs CMD holding the run's .lock
 *   clean RUN STAGE  forgets STAGE and every stage downstream of it
 *   status RUN [GOAL] what is done and what is stale, and why; exit 0 when
 *                    everything GOAL needs is up to date, 1 otherwise
 * The settings are the run's own (settings.json, see pipeline/settings.h). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/proc.h"
#include "pipeline/launcher.h"
#include "pipeline/settings.h"
#include "pipeline/stages.h"
#include "pipeline/rules.h"
#include "pipeline/state.h"
#include "pipeline/status.h"
#include "report/budget.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-stage run RUN TARGET\n"
	"       skillc-stage clean RUN STAGE\n"
	"       skillc-stage status RUN [GOAL]\n"
	"       skillc-stage lock RUN [--what TEXT] -- COMMAND [ARG...]\n"
	"\n"
	"Runs and tracks the stages of the run in folder RUN, with the settings it\n"
	"records (RUN/settings.json; the settings of one command, such as CACHE_DIR\n"
	"and LLM_CACHE, from the environment). make calls it (each run's rules.mk).\n"
	"Exit 0 done, 1 the stage failed (status: something is stale), 2 bad usage\n"
	"or settings, 128+N interrupted by signal N.\n";

/* Moves temp files left beside the stage's outputs (a crash between write
 * and rename) into .incomplete/<stage>/: kept for forensics, never reused.
 * A resumable temp folder (FS_TEMP_RESUMABLE) is its tool's to pick up. */
static void sweep_leftovers(const struct run *r, const struct stage_ref *ref)
{
	struct strlist outs = STRLIST_INIT;
	stage_ref_outputs(ref, r, &outs);
	for (size_t i = 0; i < outs.n; i++) {
		char *out = run_path(r, outs.v[i]);
		char *dir = path_dir(out);
		const char *base = strrchr(out, '/') + 1;
		char *prefix = xasprintf(".%s.tmp.", base);
		DIR *d = opendir(dir);
		struct strlist found = STRLIST_INIT;
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, prefix, strlen(prefix))) {
				char *p = path_join(dir, de->d_name);
				if (fs_temp_resumable(p))
					free(p);
				else
					strlist_push_owned(&found, p);
			}
		if (d)
			closedir(d);
		for (size_t k = 0; k < found.n; k++) {
			char *aside = xasprintf("%s/.incomplete/%s", r->dir, ref->name);
			struct err e;
			if (fs_move_aside(found.v[k], aside, &e) == 0)
				warnf("%s: moved leftover %s of a cut-short run to %s", ref->name, found.v[k], aside);
			free(aside);
		}
		strlist_free(&found);
		free(prefix);
		free(dir);
		free(out);
	}
	strlist_free(&outs);
}

/* The last non-empty line the tool printed since `from`: its error (a
 * launcher's own lines, e.g. srun's "task 0: Exited with exit code 1",
 * only when the tool said nothing). */
static char *last_line(const char *log, off_t from)
{
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	off_t end = lseek(fd, 0, SEEK_END);
	off_t start = end - from > 4096 ? end - 4096 : from;
	char tail[4097];
	ssize_t n = pread(fd, tail, (size_t)(end - start), start);
	close(fd);
	if (n <= 0)
		return NULL;
	tail[n] = '\0';
	const char *last = NULL, *own = NULL;
	for (char *save = NULL, *line = strtok_r(tail, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
		size_t k = strlen(line);
		while (k && line[k - 1] == ' ')
			line[--k] = '\0';
		if (!k)
			continue;
		last = line;
		if (!launcher_said(line))
			own = line;
	}
	return own ? xstrdup(own) : last ? xstrdup(last) : NULL;
}

/* status/<name>.json as the stage starts: what it runs with and on. */
static cJSON *record_start(const struct run *r, const struct stage_ref *ref, const char *when)
{
	cJSON *st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "stage", ref->name);
	cJSON_AddStringToObject(st, "state", "running");
	cJSON_AddNumberToObject(st, "pid", getpid());
	cJSON_AddStringToObject(st, "started", when);
	cJSON *cfg = stage_config(ref->def, r);
	cJSON_AddStringToObject(st, "tool", json_str(cfg, "tool"));
	cJSON_AddItemToObject(st, "settings", cJSON_Duplicate(json_get(cfg, "settings"), 1));
	cJSON_Delete(cfg);
	cJSON_AddItemToObject(st, "inputs", state_inputs(r, ref));
	return st;
}

/* Appends a header line to the stage's log; returns the fd (and in *from
 * where this run's output starts) or dies. */
static int open_log(const char *path, const char *when, const struct stage_ref *ref,
                    const struct strlist *argv, off_t *from)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		die(1, "cannot open log '%s': %m", path);
	dprintf(fd, "== %s %s:", when, ref->name);
	for (size_t i = 0; i < argv->n; i++)
		dprintf(fd, " %s", argv->v[i]);
	dprintf(fd, "\n");
	*from = lseek(fd, 0, SEEK_END);
	return fd;
}

/* What a tool run amounts to. */
struct outcome {
	int rc;          /* the stage's exit status */
	char *error;     /* NULL on success */
	int tool_said;   /* the error is the tool's own last line, already on the terminal */
};

static struct outcome judge(const struct run *r, const struct stage_ref *ref, int started,
                            const struct proc_result *res, const struct err *e,
                            const char *logpath, off_t from)
{
	const struct stage_def *s = ref->def;
	struct outcome o = { 0, NULL, 0 };
	if (!started) {
		o = (struct outcome){ 1, xstrdup(e->msg), 0 };
	} else if (res->interrupted) {
		o = (struct outcome){ 128 + res->interrupted, xasprintf("interrupted by %s", strsignal(res->interrupted)), 0 };
	} else if (res->timed_out) {
		o = (struct outcome){ 1, xasprintf("timed out after %ld s (%s)", stage_timeout(s, r),
		                                  s->timeout ? s->timeout : "STAGE_TIMEOUT"), 0 };
	} else if (res->exit_code) {
		o.rc = res->exit_code;
		o.error = last_line(logpath, from);
		o.tool_said = o.error != NULL;
		if (!o.error)
			o.error = xasprintf("%s exited with status %d", s->tool, res->exit_code);
	} else {
		struct strlist outs = STRLIST_INIT;
		stage_ref_outputs(ref, r, &outs);
		for (size_t i = 0; i < outs.n && !o.error; i++) {
			char *out = run_path(r, outs.v[i]);
			if (!fs_exists(out))
				o = (struct outcome){ 1, xasprintf("%s finished but did not write %s", s->tool, outs.v[i]), 0 };
			free(out);
		}
		strlist_free(&outs);
	}
	return o;
}

/* Before the tool starts: the log folder and the in-flight mark exist, no
 * stamp is left to call a failed run done, and the leftovers of a cut-short
 * run are moved aside (and said). */
static void stage_clear(const struct run *r, const struct stage_ref *ref, const char *ok)
{
	struct err e = { 0 };
	char *logdir = run_path(r, "logs");
	if (fs_mkdirs(logdir, &e) < 0 || inflight_mark(r->dir, ref->name, &e) < 0)
		die_err(&e);
	free(logdir);
	if (unlink(ok) < 0 && errno != ENOENT)
		die(1, "cannot remove the stamp '%s': %s; remove it by hand", ok, strerror(errno));
	sweep_leftovers(r, ref);

	cJSON *prev = state_read(r->dir, ref->name);
	const char *was = prev ? json_str(prev, "state") : NULL;
	if (was && !strcmp(was, "running"))
		warnf("%s: the previous run was cut short (started %s); running it again", ref->name,
		      json_str(prev, "started") ? json_str(prev, "started") : "?");
	cJSON_Delete(prev);
}

/* One run of the stage's tool: what it came to, and its log. */
struct tool_run {
	struct outcome o;
	struct proc_result res;
	char *logpath;
	int logfd;       /* open until the stage's closing line is written */
};

/* Runs the stage's tool under its time limit (a Slurm job with
 * LAUNCHER=srun), as make does: its results and progress on stdout, its
 * diagnostics on stderr, both in the stage's log. */
static void run_tool(const struct run *r, const struct stage_ref *ref, const char *when,
                     const char *who, struct tool_run *t)
{
	struct err e = { 0 };
	char *bindir = tool_dir();
	struct strlist argv = STRLIST_INIT;
	stage_command(ref, r, bindir, &argv);
	free(bindir);
	struct launcher_job launch; /* argv gets the srun prefix */
	bool wrapped = launcher_wrap(r, ref, &argv, &launch, &e) == 0;
	char *logdir = run_path(r, "logs");
	t->logpath = xasprintf("%s/%s.log", logdir, ref->name);
	free(logdir);
	off_t from;
	t->logfd = open_log(t->logpath, when, ref, &argv, &from);

	/* tools that call models append their usage here (llm/usage.h) */
	char *usage_file = xasprintf("%s/status/%s.usage.jsonl", r->dir, ref->name);
	setenv("SKILLC_STAGE", ref->name, 1);
	setenv("MAX_FILE_MB", run_get(r, "MAX_FILE_MB"), 1); /* the run's, as every tool reads it */
	setenv("SKILLC_USAGE_FILE", usage_file, 1);
	free(usage_file);

	progressf("skillc: %s: started", who);
	struct proc_spec spec = {
		.argv = argv.v,
		.timeout = (double)stage_timeout(ref->def, r),
		.stdin_fd = -1,
		.tee = { t->logfd, 1 },
		.split = true,
		.err_tee = { t->logfd, 2 },
		.stop = launch.marker ? launcher_stop : NULL, /* a Slurm job is stopped through Slurm */
		.stop_arg = &launch,
	};
	t->res = (struct proc_result){ 0 };
	int started = wrapped && proc_run(&spec, &t->res, &e) == 0;
	launcher_done(&launch, started, &t->res);
	t->o = judge(r, ref, started, &t->res, &e, t->logpath, from);
	strlist_free(&argv);
}

/* status/<name>.json as the stage ends; on success the stamp, last; the
 * manifest and the log's closing line. */
static void record_end(const struct run *r, const struct stage_ref *ref, cJSON *st,
                       struct tool_run *t, const char *ok, double t0, double t1)
{
	struct err e = { 0 };
	char when[32];
	iso_time(t1, when);
	int rc = t->o.rc;
	json_set_str(st, "state", rc == 0 ? "done" : t->res.interrupted ? "interrupted" : "failed");
	json_set_str(st, "ended", when);
	json_set_num(st, "seconds", (double)(long)((t1 - t0) * 1000) / 1000);
	json_set_num(st, "exit", rc);
	json_set_str(st, "error", t->o.error);
	if (rc)
		sweep_leftovers(r, ref);
	else /* what it published, to tell a hand edit from its own bytes */
		json_set(st, "outputs", state_output_hashes(r, ref));
	if (rc == 0 && ref->def->rebuildable) /* unsynced: checked after a restart */
		json_set(st, "written", state_written(r, ref));
	if (state_write(r->dir, ref->name, st, &e) < 0)
		die_err(&e);
	if (rc == 0 && fs_write_atomic(ok, "", 0, 0644, &e) < 0)
		die_err(&e);
	if (manifest_rebuild(r, &e) < 0)
		warnf("%s", e.msg);
	dprintf(t->logfd, "== %s %s: %s%s\n", when, ref->name, rc ? "failed: " : "done", rc ? t->o.error : "");
	close(t->logfd);
}

/* The stage's one line on the console: done on stdout, failed on stderr;
 * make without -k stops starting stages at the first failure, so a failure
 * says how to run the rest. */
static void say_end(const char *who, const struct tool_run *t, double seconds)
{
	const struct outcome *o = &t->o;
	const char *rest = !t->res.interrupted && !make_keeps_going() ? "; make -k runs the stages that do not need it" : "";
	if (o->rc && o->tool_said)
		fprintf(stderr, "skillc: %s: failed after %.1f s (log: %s)%s\n", who, seconds, t->logpath, rest);
	else if (o->rc)
		fprintf(stderr, "skillc: %s: %s after %.1f s: %s (log: %s)%s\n", who,
		        t->res.interrupted ? "stopped" : "failed", seconds, o->error, t->logpath, rest);
	else
		progressf("skillc: %s: done in %.1f s", who, seconds);
}

static int cmd_run(const struct run *r, const char *name)
{
	struct stage_ref ref;
	if (stage_ref_find(r, name, &ref) < 0)
		die(2, "unknown stage '%s'", name);
	struct err e = { 0 };
	if (budget_check(r->dir, run_get(r, "BUDGET_USD"), &e) < 0) { /* report/budget.h */
		fprintf(stderr, "skillc: %s: not started: %s\n", ref.name, e.msg);
		return e.code == ERR_INPUT ? 2 : 1;
	}
	/* From here to the end the record must be whole: a Ctrl-C arriving while
	 * we write status waits (blocked), then reaches the tool through proc_run. */
	proc_defer_stops();
	/* a matrix make holds every run's lock: keep only this run's, so what
	 * this stage starts holds no other run */
	run_lock_keep_only(r->dir);
	char *ok = state_ok_path(r->dir, ref.name);
	stage_clear(r, &ref, ok);

	char when[32];
	double t0 = now_wall();
	iso_time(t0, when);
	cJSON *st = record_start(r, &ref, when);
	if (state_write(r->dir, ref.name, st, &e) < 0 || manifest_rebuild(r, &e) < 0)
		die_err(&e);

	/* in a matrix, a line names its run too */
	char *who = getenv("SKILLC_MATRIX") ? xasprintf("%s %s", path_base(r->dir), ref.name) : xstrdup(ref.name);
	struct tool_run t;
	run_tool(r, &ref, when, who, &t);
	double t1 = now_wall();
	record_end(r, &ref, st, &t, ok, t0, t1);
	say_end(who, &t, t1 - t0);
	int rc = t.o.rc;
	free(who);
	free(t.o.error);
	free(t.logpath);
	free(ok);
	cJSON_Delete(st);
	inflight_clear(r->dir, ref.name); /* left only by a kill -9: the next make then sweeps */
	return rc;
}

static int cmd_lock(const char *dir, const char *what, char **cmd)
{
	struct err e = { 0 };
	int fd = run_lock(dir, what, &e);
	if (fd < 0 || launcher_sweep(dir, &e) < 0) /* we hold the lock: jobs still marked are orphans */
		die_err(&e);
	struct proc_spec spec = { .argv = cmd, .stdin_fd = 0, .tee = { -1, -1 } };
	struct proc_result res;
	if (proc_run(&spec, &res, &e) < 0)
		die_err(&e);
	close(fd);
	return res.exit_code;
}

static void remove_quiet(const char *path, int *removed)
{
	struct err e;
	if (fs_exists(path)) {
		if (fs_remove_tree(path, &e) < 0)
			die_err(&e);
		(*removed)++;
	}
}

static void forget(const struct run *r, const struct stage_ref *ref)
{
	int removed = 0;
	char *ok = state_ok_path(r->dir, ref->name);
	remove_quiet(ok, &removed); /* first: never a stamp without its outputs */
	free(ok);
	struct strlist outs = STRLIST_INIT;
	stage_ref_outputs(ref, r, &outs);
	stage_ref_side_outputs(ref, r, &outs);
	for (size_t k = 0; k < outs.n; k++) {
		char *out = run_path(r, outs.v[k]);
		remove_quiet(out, &removed);
		free(out);
	}
	strlist_free(&outs);
	static const char *const files[] = { "status/%s.json", "status/%s.usage.jsonl", "logs/%s.log" };
	for (size_t k = 0; k < ARRAY_LEN(files); k++) {
		char *rel = xasprintf(files[k], ref->name);
		char *p = run_path(r, rel);
		remove_quiet(p, &removed);
		free(p);
		free(rel);
	}
	printf("%s: %s\n", ref->name, removed ? "removed" : "nothing to remove");
}

/* STAGE is a stage ("raw-eval": every instance) or one instance
 * ("raw-eval.003"); either way every later stage goes too. */
/* Whether refs[i] is one of the targets STAGE names: that target
 * ("raw-eval.003", "deep-2-edit"), a group's first stage ("fast"), a round
 * ("deep-2": its first row), or every target of a stage ("raw-eval"). */
static bool named(const struct stage_ref *ref, const char *name, const struct stage_def *def, int round, bool exact)
{
	if (exact)
		return !strcmp(ref->name, name);
	if (round)
		return ref->round == round && (ref->def == stage_table || !ref->def[-1].rounds);
	return ref->def == def;
}

static int cmd_clean(const struct run *r, const char *name)
{
	struct stage_ref one;
	bool exact = stage_ref_find(r, name, &one) == 0;
	const struct stage_group *grp = exact ? NULL : stage_group_find(name);
	const struct stage_def *target = exact ? one.def : stage_find(grp ? grp->first : name);
	int round = exact || target ? 0 : stage_round_of(name);
	if (!target && !round) {
		char *names = stage_names();
		die(2, "unknown STAGE=%s: the stages are %s (or one trial, e.g. STAGE=raw-eval.003; one round, e.g. STAGE=deep-2)",
		    name, names);
	}
	struct stage_ref *refs;
	size_t n = stage_refs(r, &refs);
	for (size_t i = 0; i < n; i++) {
		bool gone = false;
		for (size_t t = 0; t < n && !gone; t++)
			gone = named(&refs[t], name, target, round, exact) && stage_ref_depends_on(&refs[i], &refs[t]);
		if (gone)
			forget(r, &refs[i]);
	}
	free(refs);
	struct err e = { 0 };
	if (fs_is_dir(r->dir) && manifest_rebuild(r, &e) < 0)
		die_err(&e);
	return 0;
}

static const char *lock_what = "make";
static const struct opt lock_rows[] = {
	OPT_STRING("what", &lock_what, "TEXT", "lock: the holder a refused make names (make)"),
	OPT_END,
};
static const struct opt no_rows[] = { OPT_END };
static const struct opt_cmd cmds[] = {
	{ "run", no_rows },
	{ "clean", no_rows },
	{ "status", no_rows },
	{ "lock", lock_rows },
	OPT_CMD_END,
};

/* lock RUN [--what TEXT] -- COMMAND */
static int lock_main(int argc, char **argv)
{
	struct opts_rest rest;
	opts_parse_or_die(lock_rows, argc, argv, 2, &rest);
	if (rest.args.n != 1 || !*rest.args.v[0])
		die(2, "lock needs the run folder (see --help)");
	if (!rest.dashdash || rest.dashdash >= argc)
		die(2, "lock needs -- COMMAND (see --help)");
	int rc = cmd_lock(rest.args.v[0], lock_what, argv + rest.dashdash);
	opts_rest_free(&rest);
	return rc;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, V_STAGE);
	const char *cmd = argc > 1 ? argv[1] : NULL;
	if (!cmd)
		die(2, "missing command: run, lock, clean or status RUN ... (see --help)");
	if (!opts_cmd_find(cmds, cmd))
		die(2, "unknown command '%s': run, lock, clean or status (see --help)", cmd);
	if (!strcmp(cmd, "lock"))
		return lock_main(argc, argv);
	struct strlist args;
	opts_args_or_die(no_rows, argc, argv, 2, &args);
	bool status = !strcmp(cmd, "status");
	if (!args.n || !*args.v[0])
		die(2, "%s needs the run folder (see --help)", cmd);
	if (status ? args.n > 2 : args.n != 2 || !*args.v[1])
		die(2, "%s needs the run folder and %s (see --help)", cmd,
		    status ? "at most one goal" : "one stage name");
	struct err e = { 0 };
	struct run r;
	if (run_open_dir(&r, args.v[0], &e) < 0)
		die_err(&e);
	int rc;
	if (!status) {
		rc = !strcmp(cmd, "run") ? cmd_run(&r, args.v[1]) : cmd_clean(&r, args.v[1]);
	} else {
		struct buf out = BUF_INIT;
		const char *goal = args.n > 1 && *args.v[1] ? args.v[1] : "final";
		rc = status_print(&r, goal, &out);
		if (rc < 0) {
			char *names = stage_names();
			die(2, "unknown GOAL=%s: a stage (%s), eval or final", goal, names);
		}
		fputs(out.data, stdout);
		buf_free(&out);
		rc = rc > 0;
	}
	run_free(&r);
	strlist_free(&args);
	return rc;
}
