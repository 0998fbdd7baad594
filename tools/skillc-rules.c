/* skillc-rules — the one helper a make of the pipeline starts (mk/skillc.mk):
 *   check NAME=VALUE...     checks settings against the table
 *   run  ... -- MAKE ARG... for the runs of the command (one, or a matrix):
 *                           records their settings, takes all their locks
 *                           (sorted; a busy run is named and nothing is
 *                           touched), refreshes their sources, config and
 *                           rules.mk (pipeline/rules.h), then runs the one
 *                           make of the rules the goals need in every run, and
 *                           ends with a line naming the deliverable or what
 *                           is still due
 *   report --as status|dry|question ...   answers without working: make
 *                           status, make -n and make -q
 *   source-tag DIR          the run folder suffix of SKILL_SOURCE=DIR
 *   pin NAME=VALUE...       writes DATASET_PIN (or dataset-pin.json): the
 *                           identity of TASKS_DIR (pipeline/pin.h)
 *   pin-check ...           with DATASET_PIN set: every run's task must
 *                           match the pin (else one line on stdout, exit 2)
 * The command's settings come as NAME=VALUE arguments, --given the names it
 * gave explicitly, --goals the make goals. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/dotenv.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/proc.h"
#include "base/versions.h"
#include "eval/harness.h"
#include "pipeline/launcher.h"
#include "pipeline/matrix.h"
#include "pipeline/noop.h"
#include "pipeline/pin.h"
#include "skill/source.h"
#include "pipeline/rules.h"
#include "pipeline/settings.h"
#include "pipeline/stages.h"
#include "pipeline/state.h"
#include "pipeline/status.h"
#include "local/image.h"
#include "llm/routes.h"
#include "report/budget.h"

static const char usage[] =
	"usage: skillc-rules check [--strays 'NAME...'] [--goals 'G...' --known 'G...']\n"
	"                          [--noop 'G...' --given 'NAME...' --make-f F --rules DIR] NAME=VALUE...\n"
	"       skillc-rules run --goals 'G...' [--given 'NAME...'] NAME=VALUE... -- MAKE [ARG...]\n"
	"       skillc-rules report --as status|dry|question|runs --goals 'G...' [--given 'NAME...'] NAME=VALUE...\n"
	"       skillc-rules source-tag DIR\n"
	"       skillc-rules pin NAME=VALUE...\n"
	"       skillc-rules pin-check [--given 'NAME...'] NAME=VALUE...\n"
	"\n"
	"Started by make (mk/skillc.mk) with the command's settings. check prints\n"
	"\"skillc: bad NAME 'VALUE': what it accepts\" on stdout for the first bad one;\n"
	"--strays: the command line's variables that are no setting, one near a setting\n"
	"refused (\"did you mean REPEAT?\"); --goals: goals no makefile has, one near\n"
	"a --known goal refused the same way. --noop: the work goals of a make that\n"
	"may be answered from its no-op journal (RESULTS/.skillc/noop.<key>, written by\n"
	"run after a make that did nothing): when every path it recorded is unchanged\n"
	"and no run is locked, check prints \"skillc-noop: <the last line>\" and make\n"
	"starts nothing else (--given, --make-f SKILLC_MAKE_F and --rules SKILLC_RULES\n"
	"are part of the journal's key).\n"
	"run takes the locks of every run of the command (task=, or tasks=, harnesses=,\n"
	"models=, MATRIX=), brings their rules up to date and runs MAKE with\n"
	"SKILLC_PLAN=<a file: the rules the goals need in every run>. report prints\n"
	"make status (exit 1: something is due), what make -n would run, only the answer\n"
	"of make -q, or the run folders (runs). source-tag finds and vets the one skill\n"
	"of SKILL_SOURCE=DIR (a skill folder or a skills root holding one) and prints\n"
	"the suffix of its runs' folder names, src-<skill>-<hash>.\n"
	"pin writes DATASET_PIN (default dataset-pin.json): TASKS_DIR's git commit and\n"
	"dirty state, and each task's content digest. pin-check prints\n"
	"\"skillc: task 'T' differs from the dataset pin ...\" on stdout, exit 2, when a\n"
	"task of the command's runs is not the pinned one.\n"
	"Exit: check 0 good; run MAKE's status; report 0 up to date, 1 not; 2 bad\n"
	"settings or a busy run.\n";

/* What make asked for. */
struct command {
	cJSON *values;         /* every setting: given or default */
	struct strlist given;  /* the names given explicitly */
	struct strlist goals;
	char **make_argv;      /* run: the make to start */
	const char *as;        /* report: status, dry or question */
	hash_hex key;          /* its no-op journal's (pipeline/noop.h) */
};

/* The runs of the command, opened. */
struct runs {
	struct run *v;
	size_t n;
};

static void split_words(const char *s, struct strlist *out)
{
	char *copy = xstrdup(s);
	for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		strlist_push(out, w);
	free(copy);
}

/* The options of run, report, pin and pin-check; check's are check_rows. */
static const char *goals_arg, *given_arg, *as_arg;
static const struct opt command_rows[] = {
	OPT_STRING("goals", &goals_arg, "'G...'", "the goals of the make (run, report; check)"),
	OPT_STRING("given", &given_arg, "'NAME...'", "the settings given explicitly"),
	OPT_STRING("as", &as_arg, "status|dry|question|runs", "(report) what to print"),
	OPT_END,
};

static int parse_command(int argc, char **argv, struct command *c, struct err *e)
{
	memset(c, 0, sizeof *c);
	struct opts_rest rest;
	opts_parse_or_die(command_rows, argc, argv, 2, &rest);
	if (rest.dashdash)
		c->make_argv = argv + rest.dashdash;
	const char *goals = goals_arg ? goals_arg : "", *given = given_arg ? given_arg : "";
	split_words(goals, &c->goals);
	split_words(given, &c->given);
	c->as = as_arg;
	int rc = settings_from_args((int)rest.args.n, rest.args.v, &c->values, e);
	opts_rest_free(&rest);
	noop_key(goals, given, getenv("SKILLC_MAKE_F"), getenv("SKILLC_RULES"), "/proc/self/exe",
		 argc - 2, argv + 2, c->key);
	return rc;
}

static void command_free(struct command *c)
{
	cJSON_Delete(c->values);
	strlist_free(&c->given);
	strlist_free(&c->goals);
}

static const char *val(const struct command *c, const char *name)
{
	const char *v = json_str(c->values, name);
	return v ? v : "";
}

/* Harbor's agent names (claude-code) as our harnesses (claude-agent-acp). */
static char *harbor_agent(const char *agent, void *arg)
{
	return harness_for_agent((const char *)arg, "harbor", agent);
}

/* The settings one run of the matrix gets: the command's, with its task,
 * harness, model (and a dataset's tasks folder) given. */
static int open_run(const struct command *c, const struct run_spec *s, const char *repeat, const char *rules,
                    struct run *r, struct err *e)
{
	cJSON *v = cJSON_Duplicate(c->values, 1);
	struct strlist given = STRLIST_INIT;
	for (size_t i = 0; i < c->given.n; i++)
		strlist_push(&given, c->given.v[i]);
	json_set_str(v, "task", s->task);
	json_set_str(v, "HARNESS", s->harness);
	json_set_str(v, "MODEL", s->model);
	strlist_push(&given, "task");
	strlist_push(&given, "HARNESS");
	strlist_push(&given, "MODEL");
	if (s->tasks_dir) {
		json_set_str(v, "TASKS_DIR", s->tasks_dir);
		strlist_push(&given, "TASKS_DIR");
	}
	if (repeat && !strlist_has(&c->given, "REPEAT")) {
		json_set_str(v, "REPEAT", repeat);
		strlist_push(&given, "REPEAT");
	}
	int rc = run_open(r, s->dir, v, &given, rules, e);
	cJSON_Delete(v);
	strlist_free(&given);
	return rc;
}

static void runs_free(struct runs *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		run_free(&rs->v[i]);
	free(rs->v);
}

/* "deep-2", "deep-2-edit", "deep-2-eval.003": a round or one of its
 * targets (skillc-stage clean resolves the target in the run). */
static int in_a_round(const char *name)
{
	const char *dash = strchr(name, '-');
	char *round = xstrndup(name, dash ? strcspn(dash + 1, "-") + (size_t)(dash + 1 - name) : strlen(name));
	int k = stage_round_of(round);
	free(round);
	return k > 0;
}

/* Every goal is a stage, a group of stages, eval, final, images, clean-stage or status. */
static int check_goals(const struct command *c, struct err *e)
{
	for (size_t i = 0; i < c->goals.n; i++) {
		const char *g = c->goals.v[i];
		if (!stage_find(g) && !stage_group_find(g) && strcmp(g, "eval") && strcmp(g, "final") &&
		    strcmp(g, "images") && strcmp(g, "clean-stage") && strcmp(g, "status"))
			return err_set(e, ERR_INPUT, "unknown goal '%s'", g);
	}
	if (strlist_has(&c->goals, "clean-stage") && !*val(c, "STAGE"))
		return err_set(e, ERR_INPUT, "clean-stage needs STAGE=<stage>, e.g. make clean-stage STAGE=ingest task=%s",
		               *val(c, "task") ? val(c, "task") : "<name>");
	if (*val(c, "STAGE") && strlist_has(&c->goals, "clean-stage") &&
	    !stage_find(val(c, "STAGE"))) {
		const char *dot = strrchr(val(c, "STAGE"), '.');
		char *base = dot ? xstrndup(val(c, "STAGE"), (size_t)(dot - val(c, "STAGE"))) : NULL;
		int trial = (base && stage_find(base) && stage_find(base)->repeat) || stage_group_find(val(c, "STAGE")) ||
		            in_a_round(val(c, "STAGE"));
		free(base);
		if (!trial) {
			char *names = stage_names();
			err_set(e, ERR_INPUT,
			        "unknown STAGE=%s: the stages are %s (or one trial, e.g. STAGE=raw-eval.003; one round, e.g. STAGE=deep-2)",
			        val(c, "STAGE"), names);
			free(names);
			return -1;
		}
	}
	return 0;
}

/* A goal for a model without one: say so at once, naming the runs of the
 * task there are. */
static int check_model(const struct command *c, const struct run *r, struct err *e)
{
	bool needs = false;
	for (size_t i = 0; i < c->goals.n; i++)
		needs = needs || goal_needs(c->goals.v[i], r, "MODEL");
	if (!needs || *run_get(r, "MODEL"))
		return 0;
	struct matrix all;
	struct buf names = BUF_INIT;
	struct err ignore;
	if (matrix_find_runs(val(c, "RESULTS"), &all, &ignore) == 0)
		for (size_t i = 0; i < all.n; i++)
			if (!strcmp(all.v[i].task, r->task) && *all.v[i].model)
				buf_printf(&names, " %s", path_base(all.v[i].dir));
	matrix_free(&all);
	err_set(e, ERR_INPUT, "set MODEL=provider/model-id, the target model (e.g. MODEL=vllm/Qwen/Qwen3.5-27B; "
	        "providers are in ROUTES)%s%s", names.len ? "; runs of task " : "", names.len ? r->task : "");
	if (names.len)
		snprintf(e->msg + strlen(e->msg), sizeof e->msg - strlen(e->msg), ":%s", names.data);
	buf_free(&names);
	return -1;
}

/* An optimizing stage (the fast stage and after) the goals run asks the
 * compiler's model (the table's `needs`): say so before any work. A static
 * compile that needs it fails itself, with its own message. */
static bool optimizing(const struct stage_def *s)
{
	for (size_t i = 0; i < stage_count; i++)
		if (stage_table[i].optimizer && stage_depends_on(s, &stage_table[i]))
			return true;
	return false;
}

static int check_external_model(const struct command *c, const struct run *r, struct err *e)
{
	if (*run_get(r, "EXTERNAL_MODEL"))
		return 0;
	for (size_t i = 0; i < c->goals.n; i++)
		for (size_t k = 0; goal_known(c->goals.v[i]) && k < stage_count; k++) {
			const struct stage_def *s = &stage_table[k];
			if (goal_includes(c->goals.v[i], s) && optimizing(s) && stage_needs(s, r, "EXTERNAL_MODEL"))
				return err_set(e, ERR_INPUT, "set EXTERNAL_MODEL=provider/model-id, the compiler's model: make %s "
				               "runs %s, which asks it (make eval needs none)", c->goals.v[i], s->name);
		}
	return 0;
}

/* The runs the command is about; with no task at all, a read-only goal is
 * about every run under RESULTS. */
static int plan_runs(const struct command *c, int work, struct runs *rs, struct err *e)
{
	memset(rs, 0, sizeof *rs);
	struct matrix m;
	char *rules = rules_dir();
	int rc = matrix_expand(c->values, harbor_agent, rules ? rules : (char *)"rules", &m, e);
	/* no task named: the runs under RESULTS, each with its remembered
	 * settings (as make status reads them) */
	if (rc == 0 && !m.n)
		rc = matrix_find_runs(val(c, "RESULTS"), &m, e);
	if (rc == 0 && !m.n && work)
		rc = err_set(e, ERR_INPUT, "no run under RESULTS=%s to work on: start one with make task=<name> MODEL=<provider/model-id> "
			     "final (task: a folder under TASKS_DIR=%s), or tasks=\"a b\" or MATRIX=file.yaml",
			     val(c, "RESULTS"), val(c, "TASKS_DIR"));
	rs->v = xcalloc(m.n ? m.n : 1, sizeof *rs->v);
	for (size_t i = 0; rc == 0 && i < m.n; i++) {
		rc = open_run(c, &m.v[i], m.repeat, rules, &rs->v[rs->n], e);
		rs->n++;
		if (rc == 0 && work)
			rc = check_model(c, &rs->v[rs->n - 1], e) < 0 ? -1 : check_external_model(c, &rs->v[rs->n - 1], e);
	}
	matrix_free(&m);
	free(rules);
	return rc;
}

/* ------------------------------------------------------------------ run */

/* An explicit value that changes a recorded one is said in one line, with
 * the stages it makes due again. */
static bool settings_said; /* a line that a no-op journal would not repeat */

static int record_settings(struct run *r, struct err *e)
{
	struct strlist changes = STRLIST_INIT;
	if (run_record(r, &changes, e) < 0)
		return -1;
	if (changes.n) {
		struct buf line = BUF_INIT;
		struct strlist hit = STRLIST_INIT; /* may repeat a stage; printed once, in table order */
		buf_printf(&line, "skillc: %s: ", path_base(r->dir));
		for (size_t i = 0; i < changes.n; i++) {
			buf_printf(&line, "%s%s", i ? ", " : "", changes.v[i]);
			char *name = xstrndup(changes.v[i], strcspn(changes.v[i], " "));
			stages_affected_by(name, &hit);
			free(name);
		}
		size_t shown = 0;
		for (size_t i = 0; i < stage_count; i++) /* only the stages this run has and wants */
			if (strlist_has(&hit, stage_table[i].name) &&
			    stage_in_run(&stage_table[i], r) && stage_wanted(&stage_table[i], r))
				buf_printf(&line, "%s%s", shown++ ? ", " : "; due again: ", stage_table[i].name);
		if (!shown)
			buf_adds(&line, "; no stage runs again for it");
		strlist_free(&hit);
		fprintf(stderr, "%s (the run remembers it)\n", line.data);
		settings_said = true;
		buf_free(&line);
	}
	strlist_free(&changes);
	return 0;
}

/* The git identity of the last TASKS_DIR asked about: a matrix's runs
 * share one, and asking git costs two processes. */
struct git_memo {
	char *dir;
	cJSON *id; /* NULL: not in a work tree */
};

/* <run>/dataset.json: where the run's task came from (pipeline/pin.h),
 * rewritten only when it changed. */
static int record_dataset(const struct run *r, struct git_memo *g, struct err *e)
{
	const char *tasks_dir = run_get(r, "TASKS_DIR"), *pin = run_get(r, "DATASET_PIN");
	if (!g->dir || strcmp(g->dir, tasks_dir)) {
		free(g->dir);
		cJSON_Delete(g->id);
		g->dir = xstrdup(tasks_dir);
		g->id = pin_git(tasks_dir);
	}
	/* rules_refresh has just refreshed inputs/task.src.hash: the same
	 * digest of the task folder, so nothing is hashed twice */
	char digest[33], *stamp = run_path(r, "inputs/task.src.hash"), *p = run_path(r, "dataset.json");
	hash_hex h;
	struct err none;
	int rc = stamp_read(stamp, h, &none) == 0 ? 0 : pin_task_digest(r->task_dir, NULL, h, e);
	memcpy(digest, h, sizeof digest);
	if (rc == 0) {
		cJSON *d = cJSON_CreateObject();
		json_set_num(d, "format", PIN_FORMAT);
		json_set_str(d, "tasks_dir", tasks_dir);
		json_set(d, "git", g->id ? cJSON_Duplicate(g->id, 1) : cJSON_CreateNull());
		json_set(json_set(d, "tasks", cJSON_CreateObject()), r->task, cJSON_CreateString(digest));
		json_set_str(d, "pin", pin && *pin ? pin : NULL);
		rc = json_write_if_changed(p, d, e) < 0 ? -1 : 0;
		cJSON_Delete(d);
	}
	free(stamp);
	free(p);
	return rc;
}

/* pin-check: stdout gets the first task that differs from DATASET_PIN. */
static int cmd_pin_check(const struct command *c)
{
	struct err e = { 0 };
	const char *path = val(c, "DATASET_PIN");
	struct runs rs = { 0 };
	cJSON *pin = NULL;
	int rc = !*path ? 0 : (pin = pin_read(path, &e)) && plan_runs(c, 1, &rs, &e) == 0 ? 0 : -1;
	for (size_t i = 0; rc == 0 && pin && i < rs.n; i++) {
		if (!fs_is_dir(rs.v[i].task_dir))
			continue; /* run says best that the task is missing */
		/* the run's own per-file cache, read only: a check writes nothing */
		char digest[33], *cache = run_path(&rs.v[i], "inputs/.task.src.cache");
		rc = pin_task_digest(rs.v[i].task_dir, cache, digest, &e);
		if (rc == 0)
			rc = pin_check(pin, path, rs.v[i].task, digest, &e);
		free(cache);
	}
	cJSON_Delete(pin);
	runs_free(&rs);
	if (rc == 0)
		return 0;
	if (printf("skillc: %s\n", e.msg) < 0 || fflush(stdout) != 0)
		die(1, "cannot write to stdout: %m");
	return 2;
}

/* pin: DATASET_PIN (or dataset-pin.json) from TASKS_DIR. */
static int cmd_pin(const struct command *c)
{
	struct err e = { 0 };
	const char *path = *val(c, "DATASET_PIN") ? val(c, "DATASET_PIN") : "dataset-pin.json";
	cJSON *pin = pin_make(val(c, "TASKS_DIR"), &e);
	if (!pin || json_write_file(path, pin, &e) < 0)
		die_err(&e);
	const cJSON *g = json_get(pin, "git");
	printf("skillc: %s: %d tasks of %s%s%.12s%s\n", path, cJSON_GetArraySize(json_get(pin, "tasks")),
	       val(c, "TASKS_DIR"), g && json_str(g, "commit") ? " at git " : " (not in a git work tree)",
	       g && json_str(g, "commit") ? json_str(g, "commit") : "",
	       json_bool(g, "dirty", false) ? " with changes not committed" : "");
	cJSON_Delete(pin);
	return 0;
}

/* "make tasks=a b eval": what the lock says holds the run. */
static char *command_text(const struct command *c)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "make");
	for (size_t i = 0; i < c->given.n; i++) {
		const struct setting_def *s = setting_find(c->given.v[i]);
		if (s && (s->scope != SCOPE_CALL || !strcmp(s->name, "tasks") || !strcmp(s->name, "MATRIX")))
			buf_printf(&b, " %s=%s", s->name, val(c, s->name));
	}
	for (size_t i = 0; i < c->goals.n; i++)
		buf_printf(&b, " %s", c->goals.v[i]);
	return buf_detach(&b);
}

/* A lock fd per run (sorted by folder: the matrix is), or none: a busy run
 * is named and every lock taken is let go. */
static int lock_all(const struct runs *rs, const char *what, int *fds, struct err *e)
{
	struct rlimit lim;
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max &&
	    lim.rlim_cur < (rlim_t)rs->n + 64) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
	for (size_t i = 0; i < rs->n; i++) {
		fds[i] = run_lock(rs->v[i].dir, what, e);
		if (fds[i] < 0) {
			while (i-- > 0)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

/* The targets the goals need in run r, for the lock's note. */
static char *due_text(const struct command *c, const struct run *r)
{
	struct buf b = BUF_INIT;
	for (size_t g = 0; g < c->goals.n; g++) {
		struct stage_ref *need;
		int n = goal_refs(r, c->goals.v[g], &need);
		for (int i = 0; i < n; i++)
			buf_printf(&b, "%s%s", b.len ? " " : "", need[i].name);
		free(need);
	}
	return buf_detach(&b);
}

/* The goals that bring stages up to date, space-separated (not clean-stage). Caller frees. */
static char *goals_text(const struct command *c)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "");
	for (size_t g = 0; g < c->goals.n; g++)
		if (strcmp(c->goals.v[g], "clean-stage"))
			buf_printf(&b, "%s%s", b.len ? " " : "", c->goals.v[g]);
	return buf_detach(&b);
}

static int write_file(const char *path, const struct buf *b, struct err *e)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return err_set(e, ERR_WORK, "cannot write '%s':", path);
	int bad = fwrite(b->data, 1, b->len, f) != b->len;
	bad |= fclose(f) != 0;
	return bad ? err_set(e, ERR_WORK, "cannot write '%s':", path) : 0;
}

/* <RESULTS>/.skillc/plan.<pid>.mk, for the one make: the rules of every
 * target the goals need in every run (a goal of the whole pipeline: every
 * run's rules.mk) and the targets of each goal. */
static char *write_plan(const struct command *c, const struct runs *rs, struct err *e)
{
	char *dir = path_join(val(c, "RESULTS"), ".skillc");
	char *p = xasprintf("%s/plan.%ld.mk", dir, (long)getpid());
	struct buf b = BUF_INIT;
	buf_adds(&b, "# the runs of one make, written by skillc-rules; removed when it ends\nSKILLC_RUNS :=");
	for (size_t i = 0; i < rs->n; i++)
		buf_printf(&b, " %s", rs->v[i].dir);
	buf_addc(&b, '\n');
	/* the goals' rules only, unless a goal is the whole pipeline */
	struct strlist goals = STRLIST_INIT;
	bool whole = false;
	for (size_t g = 0; g < c->goals.n; g++)
		if (!strcmp(c->goals.v[g], "final") || !strcmp(c->goals.v[g], "all"))
			whole = true;
		else if (strcmp(c->goals.v[g], "clean-stage"))
			strlist_push(&goals, c->goals.v[g]);
	if (whole)
		buf_adds(&b, "include");
	for (size_t i = 0; i < rs->n; i++)
		if (whole)
			buf_printf(&b, " %s/rules.mk", rs->v[i].dir);
		else
			rules_emit_goals(&rs->v[i], &goals, &b);
	strlist_free(&goals);
	/* each goal of the command: its targets in every run */
	for (size_t g = 0; g < c->goals.n; g++) {
		if (!strcmp(c->goals.v[g], "clean-stage"))
			continue;
		buf_printf(&b, "\n%s:", c->goals.v[g]);
		for (size_t i = 0; i < rs->n; i++)
			rules_goal_targets(&rs->v[i], c->goals.v[g], &b);
	}
	buf_addc(&b, '\n');
	/* lives as long as this make: no fsync (a crash leaves nothing that is read again) */
	int rc = fs_mkdirs(dir, e) < 0 ? -1 : write_file(p, &b, e);
	buf_free(&b);
	free(dir);
	if (rc < 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* Done as make sees it: the stamp exists and no input is newer (`make
 * ingest` of a changed skill leaves the later stamps stale, not done). */
static int ok_exists(const struct run *r, const struct stage_ref *ref)
{
	char *p = state_ok_path(r->dir, ref->name);
	struct stat ok;
	int done = stat(p, &ok) == 0;
	free(p);
	struct strlist ins = STRLIST_INIT;
	if (done)
		stage_ref_inputs(ref, r, &ins);
	for (size_t i = 0; done && i < ins.n; i++) {
		char *in = run_path(r, ins.v[i]);
		struct stat st;
		if (stat(in, &st) == 0 && (st.st_mtim.tv_sec > ok.st_mtim.tv_sec ||
					   (st.st_mtim.tv_sec == ok.st_mtim.tv_sec && st.st_mtim.tv_nsec > ok.st_mtim.tv_nsec)))
			done = 0;
		free(in);
	}
	strlist_free(&ins);
	return done;
}

/* The targets of goal not done in r (names, space-separated) and the first
 * failure among them. */
static int due_of(const struct run *r, const char *goal, struct buf *due, char **failed)
{
	struct stage_ref *need;
	int n = goal_refs(r, goal, &need), k = 0;
	const struct stage_def *last = NULL;
	int last_round = 0;
	for (int i = 0; i < n; i++) {
		if (ok_exists(r, &need[i]))
			continue;
		k++;
		if (failed && !*failed) {
			cJSON *st = state_read(r->dir, need[i].name);
			const char *state = json_str(st, "state");
			if (state && strcmp(state, "done") && strcmp(state, "running"))
				*failed = xasprintf("%s %s: %s", need[i].name, state, json_str(st, "error") ? json_str(st, "error") : "?");
			cJSON_Delete(st);
		}
		/* a stage once (a round's stage once a round: deep-2-eval), its trials counted */
		if (need[i].def == last && need[i].round == last_round)
			continue;
		last = need[i].def;
		last_round = need[i].round;
		int trials = 0;
		for (int j = i; j < n && need[j].def == last && need[j].round == last_round; j++)
			trials += !ok_exists(r, &need[j]);
		int w = last->rounds ? (int)strcspn(need[i].name, ".") : (int)strlen(last->name);
		const char *label = last->rounds ? need[i].name : last->name;
		if (last->repeat)
			buf_printf(due, "%s%.*s (%d trial%s)", due->len ? ", " : "", w, label, trials, trials == 1 ? "" : "s");
		else
			buf_printf(due, "%s%.*s", due->len ? ", " : "", w, label);
	}
	free(need);
	return k;
}

/* The skill the run has got furthest: the last stage done that writes an
 * S_<stage> folder, else the raw skill. Caller frees. */
static char *deliverable(const struct run *r)
{
	for (size_t i = stage_count; i-- > 0;) {
		const struct stage_def *s = &stage_table[i];
		for (size_t k = 0; k < ARRAY_LEN(s->outputs) && s->outputs[k]; k++) {
			const char *base = path_base(s->outputs[k]);
			struct stage_ref ref = { .def = s };
			snprintf(ref.name, sizeof ref.name, "%s", s->name);
			if (strncmp(base, "S_", 2) || strchr(base, '.') || s->repeat || !ok_exists(r, &ref))
				continue;
			return run_path(r, s->outputs[k]);
		}
	}
	return run_path(r, "inputs/skill");
}

/* Calls each(path, ctx) for every status file of run r written at or after
 * since (wall seconds), until it returns true; true when one did. */
static bool status_since(const struct run *r, double since, bool (*each)(const char *path, void *ctx), void *ctx)
{
	char *dir = path_join(r->dir, "status");
	DIR *d = opendir(dir);
	bool stop = false;
	for (struct dirent *de; d && !stop && (de = readdir(d));) {
		struct stat st;
		char *p = path_join(dir, de->d_name);
		stop = de->d_name[0] != '.' && strcmp(de->d_name, "due.json") && stat(p, &st) == 0 &&
		       st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 >= since && each(p, ctx);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	return stop;
}

static bool any_file(const char *path, void *ctx)
{
	(void)path;
	(void)ctx;
	return true;
}

/* True when a stage of run r wrote its status at or after since: the make
 * got to it. */
static bool run_started(const struct run *r, double since)
{
	return status_since(r, since, any_file, NULL);
}

/* Keeps in *ctx (an int) the worst exit status of a failed stage: 2 (bad
 * input) over 1 (the work failed). */
static bool failed_exit(const char *path, void *ctx)
{
	int *worst = ctx;
	struct err e = { 0 };
	size_t n = strlen(path);
	cJSON *st = n > 5 && !strcmp(path + n - 5, ".json") ? json_read_file(path, &e) : NULL;
	const char *state = json_str(st, "state");
	if (state && !strcmp(state, "failed")) {
		int rc = (int)json_num(st, "exit", 0);
		if (rc == 2 || (rc && !*worst))
			*worst = rc == 2 ? 2 : 1;
	}
	cJSON_Delete(st);
	return false;
}

/* Whether a run's BUDGET_USD is spent: skillc-stage then started no more
 * of its stages and recorded none as failed (report/budget.h). */
static bool budget_spent(const struct runs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct err e = { 0 };
		if (budget_check(rs->v[i].dir, run_get(&rs->v[i], "BUDGET_USD"), &e) < 0 &&
		    e.code == ERR_WORK)
			return true;
	}
	return false;
}

/* The status of the make of the runs, as docs/pipeline.md states it: a
 * stage that refused bad input makes it 2, one whose work failed 1; a
 * stage not started because BUDGET_USD is spent 1 (the goal is not done,
 * no input was bad); a signal or a failure of make's own keeps make's
 * status. */
static int run_status(const struct runs *rs, int rc, double since)
{
	if (rc <= 0 || rc > 128)
		return rc;
	int worst = 0;
	for (size_t i = 0; i < rs->n; i++)
		status_since(&rs->v[i], since, failed_exit, &worst);
	return worst ? worst : budget_spent(rs) ? 1 : rc;
}

/* "; final = static: fast 0 patches (3 bad answers), deep 0 edits" when
 * neither optimizing stage changed the skill the final one delivers (a
 * done final that is only its input must not read like a gain); "" else. */
static void unchanged_note(const struct run *r, struct buf *note)
{
	char *dp = run_path(r, "artifacts/deep/report.json"), *fp = run_path(r, "artifacts/fast/report.json");
	struct err e = { 0 };
	cJSON *deep = json_read_file(dp, &e), *fast = deep ? json_read_file(fp, &e) : NULL;
	const char *from = json_str(deep, "final_source");
	if (from && fast && cJSON_IsNull(json_get(deep, "accepted_round")) && strcmp(from, "fast")) {
		long patches = (long)json_num(json_get(fast, "counts"), "applied", 0);
		long bad = (long)json_num(json_get(fast, "maps"), "bad_answer", 0);
		buf_printf(note, "; final = %s: fast %ld patch%s%s", from, patches, patches == 1 ? "" : "es",
			   patches ? " (not kept)" : "");
		if (bad)
			buf_printf(note, " (%ld bad answer%s)", bad, bad == 1 ? "" : "s");
		buf_printf(note, ", deep 0 edits");
	}
	cJSON_Delete(deep);
	cJSON_Delete(fast);
	free(dp);
	free(fp);
}

/* The last line of a make: the deliverable and the tables, or what is due.
 * After a failed make it says why, a diagnostic: on stderr, as make's own
 * error lines are; otherwise on stdout with the progress. -1 when that
 * stream cannot take it. */
static int last_line(const struct command *c, const struct runs *rs, int rc, double since, struct buf *said)
{
	FILE *real = rc ? stderr : stdout;
	const char *goal = c->goals.n ? c->goals.v[c->goals.n - 1] : "final";
	if (strlist_has(&c->goals, "clean-stage") || !rs->n)
		return 0;
	/* written whole at the end, and kept for the no-op journal */
	char *text = NULL;
	size_t text_len = 0;
	FILE *out = open_memstream(&text, &text_len);
	if (!out)
		return -1;
	size_t short_of = 0, not_started = 0;
	struct buf stopped = BUF_INIT;
	for (size_t i = 0; i < rs->n; i++) {
		struct buf due = BUF_INIT;
		char *failed = NULL;
		if (due_of(&rs->v[i], goal, &due, &failed)) {
			not_started += rc && !failed && !run_started(&rs->v[i], since);
			if (short_of++ < 3)
				buf_printf(&stopped, "%s%s (%s)", stopped.len ? "; " : "", path_base(rs->v[i].dir),
				           failed ? failed : due.data);
		}
		free(failed);
		buf_free(&due);
	}
	const struct run *one = &rs->v[0];
	if (rs->n == 1) {
		struct buf due = BUF_INIT, final = BUF_INIT;
		char *failed = NULL;
		char *again = run_command(one, goal), *fin = run_command(one, "final"), *sum = run_command(one, "summary");
		if (due_of(one, goal, &due, &failed))
			fprintf(out, "skillc: %s: stopped short of %s%s%s; still due: %s; %s resumes%s\n", path_base(one->dir), goal,
			       failed ? ": " : "", failed ? failed : "", due.data, again,
			       failed && !make_keeps_going() ? " (make -k runs the rest)" : "");
		else if (due_of(one, "final", &final, NULL))
			fprintf(out, "skillc: %s: %s done; still due for final: %s (%s%s)\n", path_base(one->dir), goal, final.data,
			       fin, *run_get(one, "MODEL") ? "" : ", with MODEL=provider/model-id");
		else {
			char *skill = deliverable(one);
			struct buf note = BUF_INIT;
			unchanged_note(one, &note);
			fprintf(out, "skillc: %s: %s done%s; the skill is %s; %s writes the tables to %s/summary.md\n",
			       path_base(one->dir), goal, note.len ? note.data : "", skill, sum, one->dir);
			buf_free(&note);
			free(skill);
		}
		free(again);
		free(fin);
		free(sum);
		free(failed);
		buf_free(&due);
		buf_free(&final);
	} else if (short_of) {
		fprintf(out, "skillc: %zu runs: %s done in %zu, stopped short in %zu: %s%s; make status lists what is due%s\n", rs->n,
		       goal, rs->n - short_of, short_of, stopped.data, short_of > 3 ? "; ..." : "",
		       rc && !make_keeps_going() ? ", make -k runs the rest" : "");
		if (not_started || (rc && !make_keeps_going()))
			fprintf(out, "skillc: %zu of %zu runs not started%s\n", not_started, rs->n,
				rc && !make_keeps_going() ? ": make stopped at the first failure; make -k goes on past a failure" : "");
	} else {
		char *skill = deliverable(one);
		const char *rel = skill + strlen(one->dir);
		fprintf(out, "skillc: %zu runs: %s done; their skills are in %s/<run>%s; make summary writes the tables to %s/summary.md\n",
		       rs->n, goal, val(c, "RESULTS"), rel, val(c, "RESULTS"));
		free(skill);
	}
	buf_free(&stopped);
	int bad = fclose(out) != 0;
	if (!bad) {
		bad = fwrite(text, 1, text_len, real) != text_len;
		buf_add(said, text, text_len);
	}
	free(text);
	return bad || fflush(real) != 0 || ferror(real) ? -1 : 0;
}

/* After a make that ran no stage and said nothing but its last line: the
 * journal that lets the next make of the command answer the same without
 * working (pipeline/noop.h). Everything its answer read is recorded: each
 * run's folder, task, rules data and sources, RESULTS, TASKS_DIR and each
 * task's parent (new runs, new tasks), the matrix file and the routes. */
static void record_noop(const struct command *c, const struct runs *rs, double since, const char *line)
{
	for (size_t g = 0; g < c->goals.n; g++)
		if (!strcmp(c->goals.v[g], "clean-stage") || !strcmp(c->goals.v[g], "images"))
			return; /* an action, or an answer the Docker daemon holds */
	if (settings_said || log_messages())
		return;
	for (size_t i = 0; i < rs->n; i++)
		if (run_started(&rs->v[i], since))
			return;
	struct noop_rec n;
	noop_begin(&n);
	const char *const files[] = { "RESULTS", "TASKS_DIR", "MATRIX", "ROUTES" };
	for (size_t i = 0; i < ARRAY_LEN(files); i++)
		if (*val(c, files[i]))
			noop_add_path(&n, val(c, files[i]));
	for (size_t i = 0; i < rs->n && !n.bad; i++) {
		const struct run *r = &rs->v[i];
		noop_add_lock(&n, r->dir);
		noop_add_run(&n, r->dir);
		noop_add_tree(&n, r->task_dir);
		char *tasks = path_dir(r->task_dir); /* a task come or gone (a job config's dataset) */
		noop_add_path(&n, tasks);
		free(tasks);
		noop_add_tree(&n, r->rules_dir);
		struct source_at *src; /* a pooled task's too: its edit makes work */
		size_t ns = run_sources(r, &src);
		for (size_t k = 0; k < ns; k++) {
			char *p = source_path(r, &src[k]);
			if (*p)
				noop_add_tree(&n, p);
			free(p);
		}
		free(src);
	}
	noop_commit(&n, val(c, "RESULTS"), c->key, line);
}

/* The first stage the goals need in r that is not done and asks
 * EXTERNAL_MODEL (hybrid static, fast, deep); NULL when none. */
static const char *llm_stage_due(const struct command *c, const struct run *r)
{
	const char *due = NULL;
	for (size_t g = 0; !due && g < c->goals.n; g++) {
		struct stage_ref *need;
		int n = goal_refs(r, c->goals.v[g], &need);
		for (int i = 0; !due && i < n; i++)
			if (stage_needs(need[i].def, r, "EXTERNAL_MODEL") && !ok_exists(r, &need[i]))
				due = need[i].def->name;
		free(need);
	}
	return due;
}

/* Checked before paying: a run whose due stages will ask EXTERNAL_MODEL
 * (LLM_CACHE=only asks nobody) has its route in ROUTES and, when the route
 * wants one, its key in the environment or ENV_FILE, before any trial or
 * request of any run starts. The messages are the client's own. */
static int check_llm_route(const struct command *c, const struct run *r, struct err *e)
{
	const char *id = run_get(r, "EXTERNAL_MODEL"), *stage;
	if (!*id || !strcmp(run_get(r, "LLM_CACHE"), "only") || !(stage = llm_stage_due(c, r)))
		return 0;
	char *path = routes_locate(run_get(r, "ROUTES")), *model = NULL;
	const char *env_path = *run_get(r, "ENV_FILE") ? run_get(r, "ENV_FILE") : ".env";
	struct routes rt = ROUTES_INIT;
	struct dotenv env = DOTENV_INIT;
	int rc = routes_load(&rt, path, e) < 0 || dotenv_load(&env, env_path, e) < 0 ? -1 : 0;
	const struct route *route = rc == 0 ? routes_resolve(&rt, id, &model, e) : NULL;
	enum dotenv_source src;
	if (rc == 0 && !route)
		rc = -1;
	else if (rc == 0 && route->key_required && !dotenv_get(&env, route->key_env, &src))
		rc = err_set(e, ERR_INPUT, "provider '%s' needs a key: set %s in the environment or in ENV_FILE '%s'",
			     route->provider, route->key_env, env_path);
	if (rc < 0) { /* which stage and model, before the client's words */
		char why[sizeof e->msg];
		memcpy(why, e->msg, sizeof why);
		err_set(e, ERR_INPUT, "%s: %s asks EXTERNAL_MODEL=%s and cannot: %s", path_base(r->dir), stage, id, why);
	}
	free(model);
	dotenv_free(&env);
	routes_free(&rt);
	free(path);
	return rc;
}

static int cmd_run(const struct command *c)
{
	struct err e = { 0 };
	struct runs rs;
	if (!c->make_argv || !c->make_argv[0])
		die(2, "run needs -- MAKE [ARG...] (see --help)");
	if (check_goals(c, &e) < 0 || plan_runs(c, 1, &rs, &e) < 0)
		die_err(&e);
	for (size_t i = 0; i < rs.n; i++)
		if (rules_task_check(&rs.v[i], &e) < 0 || check_llm_route(c, &rs.v[i], &e) < 0)
			die_err(&e);
	char *what = command_text(c);
	int *fds = xcalloc(rs.n + 1, sizeof *fds);
	if (lock_all(&rs, what, fds, &e) < 0)
		die_err(&e);
	free(what);
	noop_forget(val(c, "RESULTS"), c->key);
	struct rules_memo memo = { 0 };
	char *goals = goals_text(c);
	struct git_memo git = { 0 };
	for (size_t i = 0; i < rs.n; i++) {
		/* under the lock: Slurm jobs an earlier make left marked are orphans */
		/* the dataset last: rules_refresh says best what is wrong with the task */
		if (launcher_sweep(rs.v[i].dir, &e) < 0 || record_settings(&rs.v[i], &e) < 0 ||
		    rules_refresh(&rs.v[i], &memo, &e) < 0 || state_write_due(&rs.v[i], goals, &e) < 0 ||
		    record_dataset(&rs.v[i], &git, &e) < 0)
			die_err(&e);
		char *due = due_text(c, &rs.v[i]);
		run_lock_note(fds[i], due);
		free(due);
	}
	free(goals);
	free(git.dir);
	cJSON_Delete(git.id);
	rules_memo_free(&memo);
	char *plan = write_plan(c, &rs, &e);
	if (!plan)
		die_err(&e);
	struct strlist argv = STRLIST_INIT;
	for (char **a = c->make_argv; *a; a++)
		strlist_push(&argv, *a);
	strlist_push_owned(&argv, xasprintf("SKILLC_PLAN=%s", plan));
	for (size_t i = 0; i < c->goals.n; i++)
		strlist_push(&argv, c->goals.v[i]);
	if (rs.n > 1)
		setenv("SKILLC_MATRIX", "1", 1); /* skillc-stage names the run in its lines */
	/* a stopped make stops its stages and waits for them (a cancelled
	 * Slurm job may take minutes to end): it is never cut short */
	struct proc_spec spec = { .argv = argv.v, .grace = -1, .stdin_fd = 0, .tee = { -1, -1 } };
	struct proc_result res = { 0 };
	/* a status this make's stages write is never older; the last make's are */
	double since = now_file_clock();
	if (proc_run(&spec, &res, &e) < 0)
		die_err(&e);
	unlink(plan);
	free(plan);
	strlist_free(&argv);
	struct buf said = BUF_INIT;
	if (last_line(c, &rs, res.exit_code, since, &said) < 0) {
		warnf("cannot write to %s: %s", res.exit_code ? "stderr" : "stdout", strerror(errno));
		if (!res.exit_code)
			res.exit_code = 1;
	}
	int rc = run_status(&rs, res.exit_code, since);
	if (res.exit_code == 0 && said.len)
		record_noop(c, &rs, since, said.data);
	buf_free(&said);
	for (size_t i = 0; i < rs.n; i++)
		close(fds[i]);
	free(fds);
	runs_free(&rs);
	return rc;
}

/* --------------------------------------------------------------- report */

static int cmd_report(const struct command *c)
{
	struct err e = { 0 };
	struct runs rs;
	const char *as = c->as ? c->as : "status";
	if (strcmp(as, "status") && strcmp(as, "dry") && strcmp(as, "question") && strcmp(as, "runs"))
		die(2, "--as is status, dry, question or runs (see --help)");
	if (check_goals(c, &e) < 0 || plan_runs(c, 0, &rs, &e) < 0)
		die_err(&e);
	if (!strcmp(as, "runs")) { /* the run folders, for make gate and junit */
		for (size_t i = 0; i < rs.n; i++)
			if (printf("%s\n", rs.v[i].dir) < 0)
				die(1, "cannot write to stdout: %m");
		runs_free(&rs);
		return 0;
	}
	int stale = 0;
	struct buf out = BUF_INIT;
	const char *goal = !strcmp(as, "status") || !c->goals.n ? val(c, "GOAL") : NULL;
	char *bin = tool_dir();
	for (size_t i = 0; i < rs.n; i++) {
		for (size_t g = 0; g < (goal ? 1 : c->goals.n); g++) {
			const char *want = goal ? goal : c->goals.v[g];
			int n;
			if (!strcmp(as, "status"))
				n = rs.n == 1 ? status_print(&rs.v[i], want, &out) : status_line(&rs.v[i], want, &out);
			else {
				/* what make would start: every target that is not up to date */
				struct stage_ref *refs;
				char **why;
				n = status_of(&rs.v[i], want, &refs, &why);
				int k = 0;
				for (int t = 0; t < n; t++)
					if (why[t]) {
						k++;
						if (!strcmp(as, "dry"))
							buf_printf(&out, "%s/skillc-stage run %s %s\n", bin, rs.v[i].dir, refs[t].name);
					}
				status_free(refs, why, n);
				n = n < 0 ? n : k;
			}
			if (n < 0) {
				char *names = stage_names();
				die(2, "unknown GOAL=%s: a stage (%s), eval or final", want, names);
			}
			stale += n > 0;
		}
	}
	free(bin);
	if (!strcmp(as, "status") && rs.n != 1)
		buf_printf(&out, "%zu runs, %d with work due%s\n", rs.n, stale, stale ? "; make status task=<name> ... says why" : "");
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
		die(1, "cannot write to stdout: %m");
	buf_free(&out);
	runs_free(&rs);
	return stale ? 1 : 0;
}

/* An image stamp stands for an image in the run's engine (docker, podman):
 * deleted there, built again. */
static char *image_gone(const struct run *r, const char *tool, const char *path)
{
	struct err e;
	const struct engine *en = engine_named(run_get(r, "SANDBOX"));
	if (strcmp(tool, "skillc-image") || !en || image_stamp_check(en, path, &e) != 0)
		return NULL;
	return xasprintf("names an image that is gone from %s", en->store);
}

/* A bad SKILL_SOURCE stops make while it reads the makefile, in one line,
 * before any run is touched. */
static int check_source(int argc, char **argv, struct err *e)
{
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "SKILL_SOURCE=", 13) && argv[i][13]) {
			char *tag = skill_source_tag(argv[i] + 13, e);
			int rc = tag ? 0 : -1;
			free(tag);
			return rc;
		}
	return 0;
}

/* check's options: --strays NAMES (the command line's variables that are
 * no setting), --goals NAMES --known WORDS (goals make has no rule for,
 * and the ones it has; a misspelling of either is refused with the name
 * it is near) and the no-op journal's --noop and the parts of its key. */
static const char *strays, *known = "", *noop_goals, *given_key[3] = { "", "", "" };
static const struct opt check_rows[] = {
	OPT_STRING("strays", &strays, "'NAME...'", "(check) variables that are no setting"),
	OPT_STRING("goals", &goals_arg, "'G...'", "the goals of the make (run, report; check)"),
	OPT_STRING("known", &known, "'G...'", "(check) the goals make has"),
	OPT_STRING("noop", &noop_goals, "'G...'", "(check) goals the no-op journal may answer"),
	OPT_STRING("given", &given_key[0], "'NAME...'", "the settings given explicitly"),
	OPT_STRING("make-f", &given_key[1], "F", "(check) SKILLC_MAKE_F, part of its key"),
	OPT_STRING("rules", &given_key[2], "DIR", "(check) SKILLC_RULES, part of its key"),
	OPT_END,
};
static const struct opt none[] = { OPT_END };
static const struct opt_cmd cmds[] = {
	{ "check", check_rows }, { "run", command_rows }, { "report", command_rows },
	{ "pin", command_rows }, { "pin-check", command_rows }, { "source-tag", none },
	OPT_CMD_END,
};

/* The goals of --goals that are near a --known one: refused by name. */
static int near_goals(struct err *e)
{
	for (const char *p = goals_arg ? goals_arg : ""; *p;) {
		size_t n = strcspn(p, " ");
		char *g = xstrndup(p, n), *near = str_nearest(g, known);
		int rc = near ? err_set(e, ERR_INPUT, "unknown goal '%s': did you mean %s? (make help lists the goals)", g, near)
			      : 0;
		free(near);
		free(g);
		if (rc < 0)
			return -1;
		p += n + (p[n] == ' ');
	}
	return 0;
}

/* check --noop GOALS: when the command's no-op journal holds, its last
 * line after "skillc-noop: " (make prints it and starts nothing). */
static int check_noop(const char *goals, const char *const given[3], int argc, char **argv)
{
	const char *results = setting_find("RESULTS")->def;
	for (int i = 2; i < argc; i++)
		if (!strncmp(argv[i], "RESULTS=", 8))
			results = argv[i] + 8;
	hash_hex key;
	noop_key(goals, given[0], given[1], given[2], "/proc/self/exe", argc - 2, argv + 2, key);
	struct buf line = BUF_INIT;
	if (noop_probe(results, key, &line) && (printf("skillc-noop: %s", line.data) < 0 || fflush(stdout) != 0))
		die(1, "cannot write to stdout: %m");
	buf_free(&line);
	return 0;
}

/* The run folder suffix of SKILL_SOURCE=dir (docs/baseline.md). */
static int source_tag(const char *source)
{
	struct err e = { 0 };
	char *tag = skill_source_tag(source, &e);
	if (!tag)
		die_err(&e);
	if (printf("%s\n", tag) < 0 || fflush(stdout) != 0)
		die(1, "cannot write to stdout: %m");
	free(tag);
	return 0;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, V_RULES);
	rules_set_output_check(image_gone);
	log_speak_as("skillc"); /* it speaks for make: "skillc: bad task ..." */
	struct err e = { 0 };
	if (argc < 2)
		die(2, "missing command: check, run or report (see --help)");
	if (!strcmp(argv[1], "check")) {
		/* make shows stdout as its own error line */
		struct opts_rest rest;
		opts_parse_or_die(check_rows, argc, argv, 2, &rest);
		int n = (int)rest.args.n;
		int rc = (strays && settings_check_strays(strays, &e) < 0) || near_goals(&e) < 0 ||
		         settings_check_args(n, rest.args.v, &e) < 0 ||
		         check_source(n, rest.args.v, &e) < 0;
		opts_rest_free(&rest);
		if (!rc)
			return noop_goals ? check_noop(noop_goals, given_key, argc, argv) : 0;
		if (printf("skillc: %s\n", e.msg) < 0 || fflush(stdout) != 0)
			die(1, "cannot write to stdout: %m");
		return 2;
	}
	if (!strcmp(argv[1], "source-tag") && argc == 3)
		return source_tag(argv[2]);
	if (strcmp(argv[1], "run") && strcmp(argv[1], "report") && strcmp(argv[1], "pin") && strcmp(argv[1], "pin-check"))
		die(2, "unknown command '%s': check, run, report, pin or pin-check (see --help)", argv[1]);
	struct command c;
	if (parse_command(argc, argv, &c, &e) < 0)
		die_err(&e);
	int rc = !strcmp(argv[1], "run") ? cmd_run(&c) : !strcmp(argv[1], "pin") ? cmd_pin(&c)
		 : !strcmp(argv[1], "pin-check") ? cmd_pin_check(&c) : cmd_report(&c);
	command_free(&c);
	return rc;
}
