/* skillc-skillrun — a skill run (docs/skill-runs.md): `make skill=S
 * train="a" test="c d" final`. A thin front over the pipeline's make, as
 * skillc-eval-skill is: it plans the run (pipeline/skillrun.h), composes
 * each task's skill set (the skill in place of its namesake, the rest of
 * the set raw), and makes ordinary runs of them (SKILL_SOURCE=<that set>,
 * SKILLS=<the skill>): the tuned run on the first train task (raw, static,
 * fast, deep, its final evaluation; the other train tasks pooled in it,
 * POOL_TASKS), and on each test task a run of the
 * raw skill and a run of S_final, trials only, so nothing of a test task
 * reaches a prompt. Then the tables of report/skillsum.h. Every step is
 * one that resumes, so running it again after a kill finishes the work. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/proc.h"
#include "base/versions.h"
#include "pipeline/matrix.h"
#include "pipeline/settings.h"
#include "pipeline/skillrun.h"
#include "pipeline/state.h"
#include "pipeline/status.h"
#include "report/skillgate.h"
#include "report/skillroles.h"
#include "report/skillsum.h"
#include "report/watch.h"
#include "skill/source.h"

static const char usage[] =
	"usage: skillc-skillrun GOAL [--given 'NAME ...'] NAME=VALUE...\n"
	"\n"
	"The skill run of the settings skill=, train= and test= (or tasks= with SPLIT and\n"
	"SPLIT_SEED): GOAL is a make goal (final, eval, a stage, status, clean-stage,\n"
	"summary, report, gate, watch), or check (the plan alone: nothing written,\n"
	"nothing run). gate judges the held-out test tasks by the GATE_* settings\n"
	"(exit 0 pass, 1 fail, 2 cannot judge); watch shows the member runs by role.\n"
	"`make skill=... final` runs this; see docs/skill-runs.md.\n"
	"--given: the settings the command gave (make's SKILLC_GIVEN); they are passed on\n"
	"to the member runs' makes.\n"
	"Exit 0 done (status: up to date), 1 the work failed (status: work due),\n"
	"2 bad input.\n";

/* Settings the skill run sets itself for its members. */
static const char *const own[] = { "skill",     "train",      "test",         "tasks",  "task",
	                           "SPLIT",     "SPLIT_SEED", "SKILL_SOURCE", "SKILLS", "RUN_DIR",
	                           "harnesses", "models",     "MATRIX" };

struct ctx {
	char *goal;
	cJSON *values;
	struct strlist given;
	struct skillrun sr;
	char *dir;          /* the skill run's folder */
	char *slug;
	cJSON *record;      /* skillrun.json */
	char *final_skill;  /* the tuned run's S_final/<name>, once it exists */
	struct matrix xfer; /* harnesses= x models=: the test tasks' transfer targets */
};

static const char *val(const struct ctx *c, const char *name)
{
	const char *v = json_str(c->values, name);
	return v ? v : "";
}

static const char *given = "";
static const struct opt rows[] = {
	OPT_STRING("given", &given, "'NAME ...'",
	           "the settings the command gave, passed on to the member runs"),
	OPT_END,
};

static void parse(int argc, char **argv, struct ctx *c)
{
	memset(c, 0, sizeof *c);
	struct strlist args = STRLIST_INIT;
	opts_args_or_die(rows, argc, argv, 1, &args);
	if (!args.n || strchr(args.v[0], '='))
		die(2, "no goal given (see --help)");
	c->goal = xstrdup(args.v[0]);
	for (const char *s = given; *s;) {
		s += strspn(s, " ");
		size_t n = strcspn(s, " ");
		if (n)
			strlist_push_owned(&c->given, xstrndup(s, n));
		s += n;
	}
	struct err e = { 0 };
	int rc = settings_from_args((int)args.n - 1, args.v + 1, &c->values, &e);
	strlist_free(&args);
	if (rc < 0)
		die_err(&e);
	if (*val(c, "MATRIX"))
		die(2,
		    "skill run: MATRIX= is not taken: give harnesses= and models= to evaluate "
		    "the tuned skill on other harnesses and models");
}

/* Transfer: every harness x model of harnesses= and models= (matrix.h
 * expands them as for a matrix); the one the skill is tuned for (HARNESS,
 * MODEL) is the held-out evaluation itself, so skipped where used. */
static void plan_transfer(struct ctx *c)
{
	if (!*val(c, "harnesses") && !*val(c, "models"))
		return;
	cJSON *v = cJSON_Duplicate(c->values, true);
	static const char *const cleared[] = { "tasks", "MATRIX", "RUN_DIR", "SKILL_SOURCE",
		                               "TASK_FILTER" };
	for (size_t i = 0; i < ARRAY_LEN(cleared); i++)
		json_set_str(v, cleared[i], "");
	json_set_str(v, "task", c->sr.test.v[0]);
	struct err e = { 0 };
	if (matrix_expand(v, NULL, NULL, &c->xfer, &e) < 0)
		die_err(&e);
	cJSON_Delete(v);
}

/* A transfer entry of skillrun.json as the target it names (borrowed strings). */
static struct run_spec target_of(const cJSON *x)
{
	return (struct run_spec){ .harness = (char *)json_str(x, "harness"),
		                  .model = (char *)json_str(x, "model") };
}

static bool is_tuned(const struct ctx *c, const struct run_spec *x)
{
	return !strcmp(x->harness, val(c, "HARNESS")) && !strcmp(x->model, val(c, "MODEL"));
}

/* RESULTS/<task>--<harness>--<slug>--src-<set>-<hash>: the member run of a
 * set, with HARNESS and MODEL or (on) a transfer target's. */
static char *member_dir_on(const struct ctx *c, const char *task, const char *set,
                           const struct run_spec *on)
{
	struct err e = { 0 };
	char *tag = skill_source_tag(set, &e);
	if (!tag)
		die_err(&e);
	char *slug = on ? model_slug(on->model) : NULL;
	char *d = xasprintf("%s/%s--%s--%s--%s", val(c, "RESULTS"), task,
	                    on ? on->harness : val(c, "HARNESS"), on ? slug : c->slug, tag);
	free(slug);
	free(tag);
	return d;
}

static char *member_dir(const struct ctx *c, const char *task, const char *set)
{
	return member_dir_on(c, task, set, NULL);
}

static char *set_path(const struct ctx *c, const char *kind, const char *task)
{
	return xasprintf("%s/sets/%s/%s", c->dir, kind, task);
}

/* make -f skillc.mk <given settings> task=T SKILL_SOURCE=SET SKILLS=name [more] GOAL,
 * with a transfer target's HARNESS and MODEL when on; its output to out
 * (-1: ours). */
static int member_make_at(const struct ctx *c, const char *task, const char *set,
                          const struct run_spec *on, const char *more, const char *goal, int out)
{
	struct strlist argv = STRLIST_INIT;
	char *mk = make_fragment();
	if (!mk)
		die(2,
		    "cannot find skillc.mk beside this tool (bin/../mk/ or share/skillc/): "
		    "reinstall skillc");
	strlist_push(&argv, getenv("MAKE") && *getenv("MAKE") ? getenv("MAKE") : "make");
	strlist_push(&argv, "--no-print-directory");
	strlist_push(&argv, "-f");
	strlist_push_owned(&argv, mk);
	for (size_t i = 0; i < c->given.n; i++)
		if (!str_in(c->given.v[i], own, ARRAY_LEN(own)) && setting_find(c->given.v[i]) &&
		    (!more || strncmp(more, c->given.v[i], strlen(c->given.v[i]))) &&
		    (!on || (strcmp(c->given.v[i], "HARNESS") && strcmp(c->given.v[i], "MODEL"))))
			strlist_push_owned(
				&argv, xasprintf("%s=%s", c->given.v[i], val(c, c->given.v[i])));
	for (size_t i = 0; i < ARRAY_LEN(own); i++) /* no member is a skill run or a matrix */
		if (setting_find(own[i])->kind != SET_DECIMAL &&
		    setting_find(own[i])->kind != SET_INT)
			strlist_push_owned(&argv, xasprintf("%s=", own[i]));
	strlist_push_owned(&argv, xasprintf("task=%s", task));
	strlist_push_owned(&argv, xasprintf("SKILL_SOURCE=%s", set));
	strlist_push_owned(&argv, xasprintf("SKILLS=%s", c->sr.name));
	if (on) {
		strlist_push_owned(&argv, xasprintf("HARNESS=%s", on->harness));
		strlist_push_owned(&argv, xasprintf("MODEL=%s", on->model));
	}
	if (more)
		strlist_push(&argv, more);
	strlist_push(&argv, goal);
	struct proc_spec spec = { .argv = argv.v, .stdin_fd = -1, .tee = { out, -1 }, .grace = -1 };
	struct proc_result res;
	struct err e = { 0 };
	if (proc_run(&spec, &res, &e) < 0)
		die_err(&e);
	strlist_free(&argv);
	if (res.interrupted)
		exit(128 + res.interrupted);
	if (res.exit_code && strcmp(goal, "status")) { /* which of the runs, for make's last line */
		char *dir = member_dir_on(c, task, set, on);
		warnf("skill run %s: member run %s (task %s, %s) failed: its lines above say why",
		      c->sr.name, dir, task, goal);
		free(dir);
	}
	return res.exit_code;
}

static int member_make_on(const struct ctx *c, const char *task, const char *set,
                          const struct run_spec *on, const char *more, const char *goal)
{
	return member_make_at(c, task, set, on, more, goal, -1);
}

static int member_make(const struct ctx *c, const char *task, const char *set, const char *more,
                       const char *goal)
{
	return member_make_on(c, task, set, NULL, more, goal);
}

/* The tuned run's setting naming the other train tasks it pools, or NULL
 * for one train task; caller frees. */
static char *pool_setting(const struct ctx *c)
{
	if (c->sr.train.n < 2)
		return NULL;
	struct buf b = BUF_INIT;
	buf_adds(&b, "POOL_TASKS=");
	for (size_t i = 1; i < c->sr.train.n; i++)
		buf_printf(&b, "%s%s", i > 1 ? " " : "", c->sr.train.v[i]);
	return buf_detach(&b);
}

/* A member's status, its closing "run: <the member's own make>" replaced:
 * that command would make the member alone, outside the skill run; its
 * lines counting a task's trials also into keep (the tuned run's: the
 * pooled tasks' lines, again under their own). */
static int member_status(const struct ctx *c, const char *task, const char *set,
                         const struct run_spec *on, const char *more, struct buf *keep)
{
	FILE *f = tmpfile();
	if (!f)
		die(1, "cannot make a temporary file: %m");
	int rc = member_make_at(c, task, set, on, more, "status", fileno(f));
	char *line = NULL;
	size_t cap = 0;
	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		char *cmd = strstr(line, " stages need work; run: ");
		if (keep && !strncmp(line, "  trials of ", 12))
			buf_adds(keep, line);
		if (cmd)
			printf("%.*s stages need work (the skill run's make final makes them)\n",
			       (int)(cmd - line), line);
		else
			fputs(line, stdout);
	}
	fflush(stdout);
	free(line);
	fclose(f);
	return rc;
}

static void record_write(const struct ctx *c)
{
	char *p = path_join(c->dir, "skillrun.json");
	struct err e = { 0 };
	if (json_write_if_changed(p, c->record, &e) < 0)
		die_err(&e);
	free(p);
}

/* The tuned run's S_final skill, when deep-final has made it. */
static char *final_skill(const struct ctx *c, const char *tuned)
{
	char *p = xasprintf("%s/artifacts/deep/S_final/%s", tuned, c->sr.name),
	     *md = path_join(p, "SKILL.md");
	bool ok = fs_exists(md);
	free(md);
	if (!ok) {
		free(p);
		return NULL;
	}
	return p;
}

static cJSON *where(const char *run, const char *stage)
{
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "run", run);
	json_set_str(o, "stage", stage);
	return o;
}

/* skillrun.json's "transfer": per target, the test tasks' raw and S_final
 * runs with its harness and model, labelled "tuned for X, evaluated on Y".
 * After the tasks' entries: their sets are composed. */
static void record_transfer(const struct ctx *c, cJSON *r)
{
	cJSON *a = NULL;
	for (size_t i = 0; i < c->xfer.n; i++) {
		const struct run_spec *x = &c->xfer.v[i];
		if (is_tuned(c, x))
			continue;
		a = a ? a : json_set(r, "transfer", cJSON_CreateArray());
		cJSON *o = cJSON_CreateObject(), *tasks = cJSON_CreateArray();
		json_set_str(o, "harness", x->harness);
		json_set_str(o, "model", x->model);
		char *label = xasprintf("tuned for %s %s, evaluated on %s %s", val(c, "HARNESS"),
		                        val(c, "MODEL"), x->harness, x->model);
		json_set_str(o, "label", label);
		free(label);
		for (size_t k = 0; k < c->sr.test.n; k++) {
			const char *t = c->sr.test.v[k];
			char *raw = set_path(c, "raw", t), *fin = set_path(c, "final", t),
			     *run = member_dir_on(c, t, raw, x);
			cJSON *tk = cJSON_CreateObject();
			json_set_str(tk, "task", t);
			json_set_str(tk, "role", "test");
			json_set_str(tk, "set", raw);
			json_set(tk, "raw", where(run, "raw"));
			free(run);
			run = c->final_skill ? member_dir_on(c, t, fin, x) : NULL;
			json_set(tk, "final", run ? where(run, "raw") : cJSON_CreateNull());
			json_set_str(tk, "final_set", run ? fin : NULL);
			cJSON_AddItemToArray(tasks, tk);
			free(run);
			free(fin);
			free(raw);
		}
		json_set(o, "tasks", tasks);
		cJSON_AddItemToArray(a, o);
	}
}

/* skillrun.json: the plan, the settings a reader must know, and for every
 * task where its raw and final trials are (the final ones of a test task
 * only once S_final exists). Composes the sets it names. */
static void build_record(struct ctx *c)
{
	struct err e = { 0 };
	cJSON *r = skillrun_json(&c->sr), *st = json_set(r, "settings", cJSON_CreateObject());
	static const char *const shown[] = { "EXTERNAL_MODEL", "MODEL",       "HARNESS",
		                             "RUNNER",         "REPEAT",      "FINAL_REPEAT",
		                             "FINAL_FRESH",    "DEEP_ROUNDS", "DEEP_ALPHA",
		                             "STATIC_MODE" };
	for (size_t i = 0; i < ARRAY_LEN(shown); i++)
		json_set_str(st, shown[i], val(c, shown[i]));
	cJSON *tasks = json_set(r, "tasks", cJSON_CreateArray());
	const struct strlist *lists[] = { &c->sr.train, &c->sr.test };
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const char *t = lists[l]->v[i];
			char *tdir = path_join(c->sr.tasks_dir, t), *raw = set_path(c, "raw", t);
			if (skillrun_compose(tdir, c->sr.skill, c->sr.name, raw, &e) < 0)
				die_err(&e);
			char *run = member_dir(c, t, raw);
			cJSON *o = cJSON_CreateObject();
			json_set_str(o, "task", t);
			json_set_str(o, "role", l ? "test" : "train");
			json_set_str(o, "set", raw);
			bool pooled = !l && i; /* another train task: in the tuned run */
			json_set(o, "raw", where(pooled ? json_str(r, "tuned_run") : run, "raw"));
			if (pooled) {
				json_set_str(o, "pooled_in", json_str(r, "tuned_run"));
				json_set(o, "final", where(json_str(r, "tuned_run"), "final"));
			} else if (!l) {
				json_set_str(r, "tuned_run", run);
				free(c->final_skill);
				c->final_skill = final_skill(c, run);
				json_set(o, "final", where(run, "final"));
			} else if (c->final_skill) {
				char *fin = set_path(c, "final", t);
				if (skillrun_compose(tdir, c->final_skill, c->sr.name, fin, &e) < 0)
					die_err(&e);
				char *frun = member_dir(c, t, fin);
				json_set(o, "final", where(frun, "raw"));
				json_set_str(o, "final_set", fin);
				free(frun);
				free(fin);
			} else {
				json_set(o, "final", cJSON_CreateNull());
			}
			cJSON_AddItemToArray(tasks, o);
			free(run);
			free(raw);
			free(tdir);
		}
	record_transfer(c, r);
	cJSON_Delete(c->record);
	c->record = r;
	record_write(c);
}

static bool goal_in(const char *goal, const char *list)
{
	size_t n = strlen(goal);
	for (const char *s = list; (s = strstr(s, goal)); s += n)
		if ((s == list || s[-1] == ' ') && (!s[n] || s[n] == ' '))
			return true;
	return false;
}

static void summary(const struct ctx *c, bool quiet)
{
	struct err e = { 0 };
	cJSON *sum = skillsum_json(c->record, &e);
	if (!sum)
		die_err(&e);
	char *md = skillsum_md(sum), *pj = path_join(c->dir, "summary.json"),
	     *pm = path_join(c->dir, "summary.md"), *html = skillsum_html(sum),
	     *ph = path_join(c->dir, "report.html");
	if (json_write_file(pj, sum, &e) < 0 || fs_write_atomic(pm, md, strlen(md), 0644, &e) < 0 ||
	    fs_write_atomic(ph, html, strlen(html), 0644, &e) < 0)
		die_err(&e);
	if (!quiet)
		progressf("skill run %s: summary in %s and %s, the page in %s", c->sr.name, pm, pj,
		          ph);
	cJSON_Delete(sum);
	free(html);
	free(ph);
	free(md);
	free(pj);
	free(pm);
}

/* The transfer targets' member makes: each test task's raw runs, or (final)
 * its S_final runs with more (REPEAT=...). */
static int transfer_work(const struct ctx *c, bool final, const char *more, const char *goal)
{
	const cJSON *x, *t;
	int rc = 0;
	cJSON_ArrayForEach(x, json_get(c->record, "transfer")) {
		struct run_spec on = target_of(x);
		cJSON_ArrayForEach(t, json_get(x, "tasks")) if (rc == 0) rc = member_make_on(
			c, json_str(t, "task"), json_str(t, final ? "final_set" : "set"), &on, more,
			goal);
	}
	return rc;
}

/* Every member's make for a work goal, in order: the tuned run, the raw
 * runs of the test tasks, then (S_final made) the final runs of them; each
 * with the transfer targets' after it. */
static int work(struct ctx *c)
{
	const cJSON *tasks = json_get(c->record, "tasks"), *t;
	const cJSON *train = cJSON_GetArrayItem(tasks, 0);
	char *pool = pool_setting(c);
	int rc = member_make(c, json_str(train, "task"), json_str(train, "set"), pool, c->goal);
	free(pool);
	bool raw = goal_in(c->goal, "eval final raw-eval raw-index ingest");
	const char *raw_goal = !strcmp(c->goal, "ingest") ? "ingest" : "raw-index";
	cJSON_ArrayForEach(t, tasks) if (rc == 0 && raw && !strcmp(json_str(t, "role"), "test"))
		rc = member_make(c, json_str(t, "task"), json_str(t, "set"), NULL, raw_goal);
	if (rc == 0 && raw)
		rc = transfer_work(c, false, NULL, raw_goal);
	if (rc || !goal_in(c->goal, "final final-eval final-index"))
		return rc;
	build_record(c); /* S_final exists now: the test tasks' final sets */
	tasks = json_get(c->record, "tasks");
	if (!c->final_skill)
		die(1, "skill run %s: the tuned run made no S_final (%s): see its make status",
		    c->sr.name, json_str(c->record, "tuned_run"));
	long fr = strtol(val(c, "FINAL_REPEAT"), NULL, 10);
	char *repeat = xasprintf("REPEAT=%s", fr > 0 ? val(c, "FINAL_REPEAT") : val(c, "REPEAT"));
	cJSON_ArrayForEach(t, tasks) if (rc == 0 && !strcmp(json_str(t, "role"), "test")) rc =
		member_make(c, json_str(t, "task"), json_str(t, "final_set"), repeat, "raw-index");
	if (rc == 0)
		rc = transfer_work(c, true, repeat, "raw-index");
	free(repeat);
	if (rc == 0 && !strcmp(c->goal, "final"))
		summary(c, false);
	return rc;
}

/* A test task's final trials' status (on: a transfer target's). */
static int status_final(const struct ctx *c, const cJSON *t, const struct run_spec *on)
{
	const char *task = json_str(t, "task");
	char *role = skillrun_role(t, true);
	bool wait = !json_str(t, "final_set");
	progressf("skill run %s: %s%s", c->sr.name, role, wait ? "" : ":");
	free(role);
	if (wait)
		return 1;
	return member_status(c, task, json_str(t, "final_set"), on, "GOAL=raw-index", NULL);
}

/* status: each member's, under a line naming its role; the transfer
 * targets' under a line naming the target. */
/* The line of keep counting the trials of task, pooled in the tuned run. */
static void pooled_trials(const struct buf *keep, const char *task)
{
	char *head = xasprintf("  trials of %s (pooled): ", task);
	const char *at = keep->data ? strstr(keep->data, head) : NULL;
	if (at)
		printf("%.*s\n", (int)strcspn(at, "\n"), at);
	else
		printf("%snone yet\n", head);
	fflush(stdout);
	free(head);
}

static int status(const struct ctx *c)
{
	int worst = 0, rc;
	const cJSON *t, *x;
	struct buf keep = BUF_INIT; /* the tuned run's trial counts, by task */
	cJSON_ArrayForEach(t, json_get(c->record, "tasks")) {
		const char *task = json_str(t, "task");
		bool train = !strcmp(json_str(t, "role"), "train");
		char *role = skillrun_role(t, false), *pool = train ? pool_setting(c) : NULL;
		bool pooled = json_str(t, "pooled_in") != NULL;
		progressf("skill run %s: %s:", c->sr.name, role);
		free(role);
		if (pooled)
			pooled_trials(&keep, task);
		rc = pooled ? 0
		            : member_status(c, task, json_str(t, "set"), NULL,
		                            train ? pool : "GOAL=raw-index", train ? &keep : NULL);
		free(pool);
		worst = rc > worst ? rc : worst;
		rc = train ? 0 : status_final(c, t, NULL);
		worst = rc > worst ? rc : worst;
	}
	cJSON_ArrayForEach(x, json_get(c->record, "transfer")) {
		struct run_spec on = target_of(x);
		progressf("skill run %s: transfer, %s:", c->sr.name, json_str(x, "label"));
		cJSON_ArrayForEach(t, json_get(x, "tasks")) {
			char *role = skillrun_role(t, false);
			progressf("skill run %s: %s:", c->sr.name, role);
			free(role);
			rc = member_status(c, json_str(t, "task"), json_str(t, "set"), &on,
			                   "GOAL=raw-index", NULL);
			worst = rc > worst ? rc : worst;
			rc = status_final(c, t, &on);
			worst = rc > worst ? rc : worst;
		}
	}
	buf_free(&keep);
	return worst;
}

/* clean-stage over tasks (on: a transfer target's): the tuned run's stage;
 * a raw stage on the test tasks too; the final trials of the test tasks
 * with any stage that makes S_final. */
static int clean_tasks(const struct ctx *c, const cJSON *tasks, const struct run_spec *on)
{
	const char *stage = val(c, "STAGE");
	const cJSON *t;
	int rc = 0;
	cJSON_ArrayForEach(t, tasks) {
		bool train = !strcmp(json_str(t, "role"), "train");
		char *pool = train ? pool_setting(c) : NULL;
		bool pooled = json_str(t, "pooled_in") != NULL; /* cleaned with the tuned run */
		if (!pooled && (train || !strncmp(stage, "raw", 3) || !strcmp(stage, "ingest")))
			rc = rc ? rc
				: member_make_on(c, json_str(t, "task"), json_str(t, "set"), on,
			                         pool, "clean-stage");
		free(pool);
		if (!train && json_str(t, "final_set") && strncmp(stage, "raw", 3))
			rc = rc ? rc
				: member_make_on(c, json_str(t, "task"), json_str(t, "final_set"),
			                         on, NULL, "clean-stage");
	}
	return rc;
}

static int clean(const struct ctx *c)
{
	int rc = clean_tasks(c, json_get(c->record, "tasks"), NULL);
	const cJSON *x;
	cJSON_ArrayForEach(x, json_get(c->record, "transfer")) {
		struct run_spec on = target_of(x);
		rc = rc ? rc : clean_tasks(c, json_get(x, "tasks"), &on);
	}
	return rc;
}

/* gate: the held-out verdict of report/skillgate.h over the summary
 * document, by the command's GATE_* settings. */
static int gate(const struct ctx *c)
{
	struct err e = { 0 };
	struct gate_rule r;
	struct gate_args ga = { val(c, "GATE_STAGE"),         val(c, "GATE_RULE"),
		                val(c, "GATE_MIN_DELTA"),     val(c, "GATE_MAX_REGRESSED"),
		                val(c, "GATE_VS"),            val(c, "GATE_ACROSS") };
	cJSON *sum = gate_rule_parse(&ga, &r, &e) < 0 ? NULL : skillsum_json(c->record, &e);
	if (!sum)
		die_err(&e);
	struct buf out = BUF_INIT;
	int rc = skillgate_judge(sum, &r, &out);
	cJSON_Delete(sum);
	if (rc == 2 && strchr(out.data, '\n') == out.data + out.len - 1) { /* refused */
		char why[1024];
		snprintf(why, sizeof why, "%.*s", (int)out.len - 1, out.data);
		buf_free(&out);
		die(2, "%s", why);
	}
	fputs(out.data, stdout);
	buf_free(&out);
	return rc;
}

/* watch: every member run's table under the line naming its role, while
 * a make works on them or this skill run's work holds its lock. */
static int watch(const struct ctx *c)
{
	struct strlist labels = STRLIST_INIT, runs = STRLIST_INIT, tasks = STRLIST_INIT;
	skillrun_members(c->record, &labels, &runs, &tasks);
	long timeout = strtol(val(c, "WATCH_TIMEOUT"), NULL, 10);
	struct watch_spec w = { &runs, &labels, c->dir, (double)timeout, 2, run_lock_due, &tasks,
		                status_trials_text };
	int rc = watch_table(&w);
	strlist_free(&labels);
	strlist_free(&runs);
	strlist_free(&tasks);
	return rc;
}

static int run_goal(struct ctx *c)
{
	if (!strcmp(c->goal, "status"))
		return status(c);
	if (!strcmp(c->goal, "gate"))
		return gate(c);
	if (!strcmp(c->goal, "watch"))
		return watch(c);
	if (!strcmp(c->goal, "clean-stage"))
		return clean(c);
	if (!strcmp(c->goal, "summary") || !strcmp(c->goal, "report")) {
		summary(c, false);
		return 0;
	}
	/* held while the member makes run, so make watch knows more is due;
	 * by this process alone (a detached child must not keep it) */
	struct err e = { 0 };
	int fd = run_lock(c->dir, "a skill run's make", &e);
	if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		die(fd < 0 ? e.code : 1, "%s", fd < 0 ? e.msg : "cannot keep the skill run's lock");
	return work(c);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_SKILLRUN);
	log_speak_as("skillc"); /* it speaks for make, as skillc-rules does */
	struct ctx c;
	parse(argc, argv, &c);
	struct err e = { 0 };
	if (skillrun_plan(c.values, &c.sr, &e) < 0)
		die_err(&e);
	plan_transfer(&c);
	int rc = 0;
	bool check = !strcmp(c.goal, "check"); /* the plan alone: make reads it before any work */
	if (c.sr.choice && !check)
		progressf("%s", c.sr.choice);
	c.slug = model_slug(val(&c, "MODEL"));
	c.dir = skillrun_dir(&c.sr, val(&c, "RESULTS"), val(&c, "HARNESS"), c.slug);
	if (!check) {
		if (fs_mkdirs(c.dir, &e) < 0)
			die_err(&e);
		build_record(&c);
		rc = run_goal(&c);
	}
	cJSON_Delete(c.values);
	cJSON_Delete(c.record);
	strlist_free(&c.given);
	skillrun_free(&c.sr);
	free(c.dir);
	free(c.slug);
	free(c.final_skill);
	free(c.goal);
	matrix_free(&c.xfer);
	return rc;
}
