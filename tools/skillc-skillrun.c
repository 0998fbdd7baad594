/* skillc-skillrun — a skill run (docs/skill-runs.md): `make skill=S
 * train="a" test="c d" final`. A thin front over the pipeline's make, as
 * skillc-eval-skill is: it plans the run (pipeline/skillrun.h), composes
 * each task's skill set (the skill in place of its namesake, the rest of
 * the set raw), and makes ordinary runs of them (SKILL_SOURCE=<that set>,
 * SKILLS=<the skill>): the tuned run on the train task (raw, static,
 * fast, deep, its final evaluation), and on each test task a run of the
 * raw skill and a run of S_final, trials only, so nothing of a test task
 * reaches a prompt. Then the tables of report/skillsum.h. Every step is
 * one that resumes, so running it again after a kill finishes the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/versions.h"
#include "pipeline/matrix.h"
#include "pipeline/settings.h"
#include "pipeline/skillrun.h"
#include "report/skillsum.h"
#include "skill/source.h"

static const char usage[] =
	"usage: skillc-skillrun GOAL [--given 'NAME ...'] NAME=VALUE...\n"
	"\n"
	"The skill run of the settings skill=, train= and test= (or tasks= with SPLIT and\n"
	"SPLIT_SEED): GOAL is a make goal (final, eval, a stage, status, clean-stage,\n"
	"summary, report), or check (the plan alone: nothing written, nothing run).\n"
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
	const char *goal;
	cJSON *values;
	struct strlist given;
	struct skillrun sr;
	char *dir;          /* the skill run's folder */
	char *slug;
	cJSON *record;      /* skillrun.json */
	char *final_skill;  /* the tuned run's S_final/<name>, once it exists */
};

static const char *val(const struct ctx *c, const char *name)
{
	const char *v = json_str(c->values, name);
	return v ? v : "";
}

static bool is_own(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(own); i++)
		if (!strcmp(own[i], name))
			return true;
	return false;
}

static void parse(int argc, char **argv, struct ctx *c)
{
	memset(c, 0, sizeof *c);
	if (argc < 2 || argv[1][0] == '-')
		die(2, "no goal given (see --help)");
	c->goal = argv[1];
	int i = 2;
	if (i + 1 < argc && !strcmp(argv[i], "--given")) {
		for (const char *s = argv[i + 1]; *s;) {
			s += strspn(s, " ");
			size_t n = strcspn(s, " ");
			if (n)
				strlist_push_owned(&c->given, xstrndup(s, n));
			s += n;
		}
		i += 2;
	}
	struct err e = { 0 };
	if (settings_from_args(argc - i, argv + i, &c->values, &e) < 0)
		die_err(&e);
	if (*val(c, "harnesses") || *val(c, "models") || *val(c, "MATRIX"))
		die(2,
		    "skill run: harnesses=, models= and MATRIX= are not taken yet: run one skill "
		    "run per harness and model");
}

/* RESULTS/<task>--<harness>--<slug>--src-<set>-<hash>: the member run of a set. */
static char *member_dir(const struct ctx *c, const char *task, const char *set)
{
	struct err e = { 0 };
	char *tag = skill_source_tag(set, &e);
	if (!tag)
		die_err(&e);
	char *d = xasprintf("%s/%s--%s--%s--%s", val(c, "RESULTS"), task, val(c, "HARNESS"),
	                    c->slug, tag);
	free(tag);
	return d;
}

static char *set_path(const struct ctx *c, const char *kind, const char *task)
{
	return xasprintf("%s/sets/%s/%s", c->dir, kind, task);
}

/* make -f skillc.mk <given settings> task=T SKILL_SOURCE=SET SKILLS=name [more] GOAL */
static int member_make(const struct ctx *c, const char *task, const char *set, const char *more,
                       const char *goal)
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
		if (!is_own(c->given.v[i]) && setting_find(c->given.v[i]) &&
		    (!more || strncmp(more, c->given.v[i], strlen(c->given.v[i]))))
			strlist_push_owned(
				&argv, xasprintf("%s=%s", c->given.v[i], val(c, c->given.v[i])));
	for (size_t i = 0; i < ARRAY_LEN(own); i++) /* no member is a skill run or a matrix */
		if (setting_find(own[i])->kind != SET_DECIMAL &&
		    setting_find(own[i])->kind != SET_INT)
			strlist_push_owned(&argv, xasprintf("%s=", own[i]));
	strlist_push_owned(&argv, xasprintf("task=%s", task));
	strlist_push_owned(&argv, xasprintf("SKILL_SOURCE=%s", set));
	strlist_push_owned(&argv, xasprintf("SKILLS=%s", c->sr.name));
	if (more)
		strlist_push(&argv, more);
	strlist_push(&argv, goal);
	struct proc_spec spec = { .argv = argv.v, .stdin_fd = -1, .tee = { -1, -1 }, .grace = -1 };
	struct proc_result res;
	struct err e = { 0 };
	if (proc_run(&spec, &res, &e) < 0)
		die_err(&e);
	strlist_free(&argv);
	if (res.interrupted)
		exit(128 + res.interrupted);
	return res.exit_code;
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
			json_set(o, "raw", where(run, "raw"));
			if (!l) {
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
	     *pm = path_join(c->dir, "summary.md");
	if (json_write_file(pj, sum, &e) < 0 || fs_write_atomic(pm, md, strlen(md), 0644, &e) < 0)
		die_err(&e);
	if (!quiet)
		progressf("skill run %s: summary in %s and %s", c->sr.name, pm, pj);
	cJSON_Delete(sum);
	free(md);
	free(pj);
	free(pm);
}

/* Every member's make for a work goal, in order: the tuned run, the raw
 * runs of the test tasks, then (S_final made) the final runs of them. */
static int work(struct ctx *c)
{
	const cJSON *tasks = json_get(c->record, "tasks"), *t;
	const cJSON *train = cJSON_GetArrayItem(tasks, 0);
	int rc = member_make(c, json_str(train, "task"), json_str(train, "set"), NULL, c->goal);
	bool raw = goal_in(c->goal, "eval final raw-eval raw-index ingest");
	const char *raw_goal = !strcmp(c->goal, "ingest") ? "ingest" : "raw-index";
	cJSON_ArrayForEach(t, tasks) if (rc == 0 && raw && !strcmp(json_str(t, "role"), "test"))
		rc = member_make(c, json_str(t, "task"), json_str(t, "set"), NULL, raw_goal);
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
	free(repeat);
	if (rc == 0 && !strcmp(c->goal, "final"))
		summary(c, false);
	return rc;
}

/* status: each member's, under a line naming its role. */
static int status(const struct ctx *c)
{
	int worst = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, json_get(c->record, "tasks")) {
		const char *role = json_str(t, "role"), *task = json_str(t, "task");
		bool train = !strcmp(role, "train");
		progressf("skill run %s: %s task %s, %s:", c->sr.name, role, task,
		          train ? "tuned here (raw to final)" : "raw trials");
		int rc = member_make(c, task, json_str(t, "set"), train ? NULL : "GOAL=raw-index",
		                     "status");
		worst = rc > worst ? rc : worst;
		if (train)
			continue;
		if (!json_str(t, "final_set")) {
			progressf(
				"skill run %s: test task %s, final trials: waiting for the tuned "
					"run's S_final",
				c->sr.name, task);
			worst = worst ? worst : 1;
			continue;
		}
		progressf("skill run %s: test task %s, final trials (S_final):", c->sr.name, task);
		rc = member_make(c, task, json_str(t, "final_set"), "GOAL=raw-index", "status");
		worst = rc > worst ? rc : worst;
	}
	return worst;
}

/* clean-stage: the tuned run's stage; a raw stage on the test tasks too;
 * the final trials of the test tasks with any stage that makes S_final. */
static int clean(const struct ctx *c)
{
	const char *stage = val(c, "STAGE");
	const cJSON *t;
	int rc = 0;
	cJSON_ArrayForEach(t, json_get(c->record, "tasks")) {
		bool train = !strcmp(json_str(t, "role"), "train");
		if (train || !strncmp(stage, "raw", 3) || !strcmp(stage, "ingest"))
			rc = rc ? rc
				: member_make(c, json_str(t, "task"), json_str(t, "set"), NULL,
			                      "clean-stage");
		if (!train && json_str(t, "final_set") && strncmp(stage, "raw", 3))
			rc = rc ? rc
				: member_make(c, json_str(t, "task"), json_str(t, "final_set"),
			                      NULL, "clean-stage");
	}
	return rc;
}

static int run_goal(struct ctx *c)
{
	if (!strcmp(c->goal, "status"))
		return status(c);
	if (!strcmp(c->goal, "clean-stage"))
		return clean(c);
	if (!strcmp(c->goal, "summary") || !strcmp(c->goal, "report")) {
		summary(c, false);
		return 0;
	}
	return work(c);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_SKILLRUN);
	log_speak_as("skillc"); /* it speaks for make, as skillc-rules does */
	struct ctx c;
	parse(argc, argv, &c);
	struct err e = { 0 };
	if (skillrun_plan(c.values, &c.sr, &e) < 0)
		die_err(&e);
	if (c.sr.train.n > 1)
		die(2,
		    "skill run: %zu train tasks: tuning over several pooled train tasks is not "
		    "built yet; give one train task (docs/skill-runs.md)",
		    c.sr.train.n);
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
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout: %m");
	return rc;
}
