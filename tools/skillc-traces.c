/* skillc-traces — the trials of one stage as one file, and a reader for a
 * runner's raw output.
 *
 *   skillc-traces traces/<task>/<stage>
 *       writes traces/<task>/<stage>/index.json: every complete trial
 *       (test-NNN/trial.json) of the stage, normalized, in index order.
 *   skillc-traces --parse DIR [--harness H] [--skill NAME]... [--require-skill]
 *       reads a runner's output (a BenchFlow jobs/job/rollout dir, a Harbor
 *       jobs/job/trial dir) and prints the normalized trial JSON.
 *   skillc-traces --import DIR --index N --out TRIAL_DIR
 *       the Nth trace of a folder from elsewhere as a stage's trial folder
 *       (TRACES=DIR: static-eval imports instead of running trials). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "eval/harness.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "eval/trial.h"
#include "base/versions.h"
#include "optimize/traces.h"

#define VERSION V_TRACES

static const char usage[] =
	"usage: skillc-traces STAGE_DIR [--first N]\n"
	"       skillc-traces --parse DIR [--runner R] [--harness H] [--skill NAME]... [--require-skill]\n"
	"                     [--rules DIR]\n"
	"       skillc-traces --import DIR --index N --out TRIAL_DIR [--skill NAME]...\n"
	"\n"
	"STAGE_DIR (traces/<task>/<stage>): writes STAGE_DIR/index.json listing every\n"
	"complete trial (test-NNN/trial.json), rewritten only when it changed; with\n"
	"--first N only test-001 to test-N (the stage's own, when more are there).\n"
	"\n"
	"--parse DIR reads what a runner wrote (BenchFlow jobs dir, job dir or rollout\n"
	"dir; Harbor jobs dir, job dir or trial dir) and prints the normalized trial\n"
	"as JSON on stdout. Skill use is matched against the --skill names (our\n"
	"skills) with the patterns in rules/harness/<harness>.json; without\n"
	"--harness the harness whose runners.<runner>.agent is the result's agent.\n"
	"Exit: 0 complete trial, 1 incomplete (problems listed), 2 bad input\n"
	"(no trial there, flat-schema fixture, truncated result.json).\n"
	"\n"
	"--import DIR copies the Nth trace of DIR (test-NNN/trial.json folders or\n"
	"BenchFlow runs, in name order) to TRIAL_DIR, with its trial.json (TRACES=DIR:\n"
	"the static-eval stage imports instead of running trials); a BenchFlow run's\n"
	"skill use is matched against the --skill names. Exit 2 when DIR holds fewer\n"
	"than N traces.\n";

/* True for "test-NNN" with NNN from 1 to first (first 0: any NNN). */
static bool wanted_trial(const char *name, long first)
{
	if (strncmp(name, "test-", 5) || !name_is_safe(name))
		return false;
	long n = trial_index(name);
	return !first || (n >= 1 && n <= first);
}

static int index_stage(const char *stage_dir, long first, struct err *e)
{
	DIR *d = opendir(stage_dir);
	if (!d)
		return err_set(e, ERR_INPUT, "cannot list '%s':", stage_dir);
	struct strlist names = STRLIST_INIT;
	struct dirent *de;
	while ((de = readdir(d)))
		if (wanted_trial(de->d_name, first))
			strlist_push(&names, de->d_name);
	closedir(d);
	strlist_sort(&names);

	cJSON *idx = cJSON_CreateObject();
	json_set_num(idx, "format", 1);
	char *norm = xstrdup(stage_dir);
	size_t n = strlen(norm);
	while (n > 1 && norm[n - 1] == '/')
		norm[--n] = '\0';
	const char *stage = strrchr(norm, '/') ? strrchr(norm, '/') + 1 : norm;
	json_set_str(idx, "stage", stage);
	cJSON *trials = cJSON_CreateArray();
	const char *task = NULL;
	long counts[TRIAL_OUTCOMES] = { 0 };
	long incomplete = 0;
	for (size_t i = 0; i < names.n; i++) {
		char *p = xasprintf("%s/%s/trial.json", norm, names.v[i]);
		cJSON *t = json_read_opt(p);
		free(p);
		if (!t || !json_bool(t, "complete", false)) {
			incomplete += t != NULL;
			cJSON_Delete(t);
			continue;
		}
		json_set_str(t, "dir", names.v[i]);
		int o = trial_outcome_from(json_str(t, "outcome"));
		if (o >= 0)
			counts[o]++;
		cJSON_AddItemToArray(trials, t);
		if (!task)
			task = json_str(t, "task");
	}
	json_set_str(idx, "task", task);
	cJSON *cnt = cJSON_CreateObject();
	json_set_num(cnt, "trials", cJSON_GetArraySize(trials));
	for (int o = 0; o < TRIAL_OUTCOMES; o++)
		json_set_num(cnt, trial_outcome_name(o), (double)counts[o]);
	json_set_num(cnt, "incomplete", (double)incomplete);
	json_set(idx, "counts", cnt);
	json_set(idx, "trials", trials);
	char *out = path_join(norm, "index.json");
	int r = json_write_if_changed(out, idx, e);
	free(out);
	free(norm);
	cJSON_Delete(idx);
	strlist_free(&names);
	return r < 0 ? -1 : 0;
}

/* The command line: a stage folder to index, or --parse and its options. */
struct traces_opts {
	const char *parse, *harness, *rules, *runner, *import, *out;
	char *stage_dir;
	long index; /* --import: which trace */
	bool require;
	long first; /* index test-001..test-<first> only; 0: every one */
	struct strlist skills;
};

static struct traces_opts cli = { .runner = "benchflow", .skills = STRLIST_INIT };
static const struct opt rows[] = {
	OPT_WHOLE("first", &cli.first, 1, 100000, "N", "index test-001..test-N only"),
	OPT_STRING("parse", &cli.parse, "DIR", "print the normalized trial of a runner's output"),
	OPT_STRING("runner", &cli.runner, "R", "(parse) the runner (benchflow)"),
	OPT_STRING("harness", &cli.harness, "H", "(parse) the harness's skill-use rules"),
	OPT_EACH("skill", &cli.skills, "NAME", "(parse, import) our skills (repeatable)"),
	OPT_BOOL("require-skill", &cli.require, "(parse) a trial that never used the skill fails"),
	OPT_STRING("rules", &cli.rules, "DIR", "(parse) the rules folder"),
	OPT_STRING("import", &cli.import, "DIR", "copy a trace of DIR as a trial folder (TRACES)"),
	OPT_WHOLE("index", &cli.index, 1, 100000, "N", "(import) which trace"),
	OPT_STRING("out", &cli.out, "TRIAL_DIR", "(import) the trial folder made"),
	OPT_END,
};

static void parse_args(int argc, char **argv, struct traces_opts *o)
{
	struct strlist args = STRLIST_INIT;
	opts_args_or_die(rows, argc, argv, 1, &args);
	*o = cli;
	for (size_t i = 0; i < o->skills.n; i++)
		if (!name_is_safe(o->skills.v[i]))
			die(2, "bad skill name '%s': use letters, digits, '.', '_' and '-'",
			    o->skills.v[i]);
	if (args.n > 1)
		die(2, "one STAGE_DIR at a time (see --help)");
	if (args.n)
		o->stage_dir = xstrdup(args.v[0]);
	strlist_free(&args);
	if (!o->parse && !o->stage_dir && !o->import)
		die(2, "give a stage folder (traces/<task>/<stage>), --parse DIR or --import DIR "
		       "(see --help)");
	if (o->import && (!o->index || !o->out))
		die(2, "--import needs --index N and --out TRIAL_DIR (see --help)");
}

/* --parse: one trial folder read into trial.json on stdout; 0 when the
 * trial is complete, 1 when not. */
static int parse_trial(const struct traces_opts *opts)
{
	struct err e = { 0, "" };
	char *rdir = harness_rules_dir(opts->rules, &e);
	if (!rdir)
		die_err(&e);
	struct harness h;
	bool have_h = false;
	if (opts->harness) {
		if (harness_load(&h, rdir, opts->harness, &opts->skills, &e) < 0)
			die_err(&e);
		have_h = true;
	}
	struct trial_opts o = { have_h ? &h : NULL, rdir, opts->runner, &opts->skills, opts->require, NULL };
	cJSON *t = trial_parse(opts->parse, NULL, &o, &e);
	if (!t)
		die_err(&e);
	struct buf b = BUF_INIT;
	json_canon(t, true, &b);
	puts(b.data);
	buf_free(&b);
	int rc = json_bool(t, "complete", false) ? 0 : 1;
	cJSON_Delete(t);
	if (have_h)
		harness_free(&h);
	free(rdir);
	return rc;
}

/* --import: trace number index of dir, copied whole into out (published
 * at once: a trial folder is there complete or not at all). */
static int import_trace(const char *dir, long index, const char *out,
                        const struct strlist *skills, struct err *e)
{
	struct trace_set ts;
	struct trace_opts to = { 0, skills->n ? skills : NULL };
	int rc = traces_load(dir, &to, &ts, e);
	if (rc == 0 && (size_t)index > ts.n)
		rc = err_set(e, ERR_INPUT,
		             "TRACES '%s' holds %zu trace(s), not %ld: give more traces or "
		             "lower FAST_MIN_TRACES",
		             dir, ts.n, index);
	char *tmp = rc == 0 ? fs_temp_beside(out) : NULL;
	if (tmp) {
		const struct trace *t = &ts.v[index - 1];
		char *tj = path_join(tmp, "trial.json");
		rc = fs_mkdirs_parent(tmp, e) < 0 || tree_copy(t->dir, tmp, false, e) < 0 ? -1 : 0;
		if (rc == 0 && !fs_exists(tj))
			rc = json_write_if_changed(tj, t->trial, e) < 0 ? -1 : 0;
		if (rc == 0)
			rc = fs_publish_dir(tmp, out, e);
		if (rc < 0)
			fs_remove_tree(tmp, &(struct err){ 0 });
		else
			printf("%s: %s imported\n", path_base(out), t->dir);
		free(tj);
		free(tmp);
	}
	traces_free(&ts);
	return rc;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, VERSION);
	struct traces_opts o;
	parse_args(argc, argv, &o);
	int rc = 0;
	struct err e = { 0, "" };
	if (o.parse)
		rc = parse_trial(&o);
	else if (o.import) {
		if (import_trace(o.import, o.index, o.out, &o.skills, &e) < 0)
			die_err(&e);
	} else if (index_stage(o.stage_dir, o.first, &e) < 0)
		die_err(&e);
	strlist_free(&o.skills);
	free(o.stage_dir);
	return rc;
}
