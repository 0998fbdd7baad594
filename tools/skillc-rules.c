/* skillc-rules — brings a run's inputs up to date and writes its rules.mk.
 * make runs it at every invocation (rules.mk depends on FORCE); it rewrites
 * a file only when its bytes change, so an unchanged task costs one cheap
 * process and make sees no new mtimes:
 *   - inputs/<name>.src.hash: hashes of the task's trees (skill, whole task);
 *   - inputs/config.json + config.hash: every result-changing setting;
 *   - inputs/config/<stage>.json: the slice of settings each stage reads;
 *   - status/<stage>.ok is removed when an output of that stage is missing;
 *   - rules.mk: the stage graph as make rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "pipeline/settings.h"
#include "pipeline/stages.h"
#include "pipeline/state.h"
#include "base/versions.h"
#include "local/image.h"

static const char usage[] =
	"usage: skillc-rules\n"
	"       skillc-rules check NAME=VALUE...\n"
	"\n"
	"Run by make (mk/skillc.mk) for the run named by SKILLC_RUN, SKILLC_TASK and\n"
	"SKILLC_TASK_DIR, with the settings in the environment. Refreshes the run's\n"
	"source hashes and config files (only when they change) and writes rules.mk.\n"
	"\n"
	"check: checks each NAME=VALUE against the settings table; prints\n"
	"\"skillc: bad NAME 'VALUE': what it accepts\" on stdout for the first bad one.\n"
	"Exit 0 done (check: all good), 2 bad settings or task.\n";

static int is_file_output(const char *o)
{
	size_t n = strlen(o);
	return n > 5 && (!strcmp(o + n - 5, ".hash") || !strcmp(o + n - 5, ".json") || !strcmp(o + n - 3, ".id"));
}

static void emit_target(struct buf *mk, const struct run *r, const struct stage_ref *ref)
{
	const struct stage_def *s = ref->def;
	if (ref->index <= 1)
		buf_printf(mk, "\n# %s: %s\n", s->name, s->help);
	struct strlist in = STRLIST_INIT, out = STRLIST_INIT;
	stage_ref_inputs(ref, r, &in);
	stage_ref_outputs(ref, r, &out);
	buf_printf(mk, "$(R)/status/%s.ok:", ref->name);
	for (size_t i = 0; i < in.n; i++)
		buf_printf(mk, " $(R)/%s", in.v[i]);
	buf_printf(mk, " $(R)/inputs/config/%s.json\n", s->name);
	/* no "+": make -n must never start a stage (a trial costs money) */
	buf_printf(mk, "\t@$(SKILLC_STAGE) run %s\n", ref->name);
	/* the files other stages read are made by this target's stamp */
	int any = 0;
	for (size_t i = 0; i < out.n; i++)
		if (is_file_output(out.v[i])) {
			buf_printf(mk, "%s$(R)/%s", any ? " " : "", out.v[i]);
			any = 1;
		}
	if (any)
		buf_printf(mk, ": $(R)/status/%s.ok ;\n", ref->name);
	strlist_free(&in);
	strlist_free(&out);
}

static void emit_goal(struct buf *mk, const struct run *r, const char *goal)
{
	struct stage_ref *need;
	int n = goal_refs(r, goal, &need);
	buf_printf(mk, "SKILLC_GOAL_%s :=", goal);
	for (int k = 0; k < n; k++)
		buf_printf(mk, " $(R)/status/%s.ok", need[k].name);
	buf_addc(mk, '\n');
	free(need);
}

static void emit_rules(struct buf *mk, const struct run *r)
{
	buf_printf(mk, "# rules.mk — written by skillc-rules %s for this run; do not edit.\n", V_RULES);
	buf_printf(mk, "R := %s\n", r->dir);
	struct stage_ref *refs;
	size_t n = stage_refs(r, &refs);
	for (size_t i = 0; i < n; i++)
		emit_target(mk, r, &refs[i]);
	free(refs);
	buf_adds(mk, "\n# goals: the stamps each user target needs\n");
	for (size_t i = 0; i < stage_count; i++)
		emit_goal(mk, r, stage_table[i].name);
	emit_goal(mk, r, "eval");
	emit_goal(mk, r, "final");
}

/* Temp files of the run's own bookkeeping (status, manifest, config,
 * rules.mk) left by a kill -9 hold nothing worth keeping: remove them.
 * Temps beside a stage's outputs are that stage's to sweep into
 * .incomplete/. Runs under the run's lock, before any stage. */
static void remove_bookkeeping_temps(const struct run *r)
{
	static const char *const dirs[] = { "", "status", "inputs/config", "inputs" };
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		char *dir = *dirs[i] ? run_path(r, dirs[i]) : xstrdup(r->dir);
		struct fs_tree t = { 0 };
		struct err e;
		if (fs_is_dir(dir) && fs_list_tree(dir, &t, &e) == 0) {
			for (size_t k = 0; k < t.n; k++) {
				const char *name = t.v[k].path;
				if (strchr(name, '/') || !S_ISREG(t.v[k].mode) || !fs_is_temp_name(name))
					continue;
				/* in inputs/ only the files this tool writes */
				if (!strcmp(dirs[i], "inputs") && strncmp(name, ".config.", 8) && !strstr(name, ".src.hash.tmp."))
					continue;
				char *p = path_join(dir, name);
				unlink(p);
				free(p);
			}
		}
		fs_tree_free(&t);
		free(dir);
	}
}

/* A target whose stamp says done but whose output is gone must run again. */
static void guard_outputs(const struct run *r)
{
	struct stage_ref *refs;
	size_t n = stage_refs(r, &refs);
	for (size_t i = 0; i < n; i++) {
		char *ok = state_ok_path(r->dir, refs[i].name);
		if (fs_exists(ok)) {
			struct strlist out = STRLIST_INIT;
			stage_ref_outputs(&refs[i], r, &out);
			for (size_t k = 0; k < out.n; k++) {
				char *p = run_path(r, out.v[k]);
				int missing = !fs_exists(p);
				/* an image stamp stands for an image in the daemon: deleted there, built again */
				struct err ie;
				int gone = !missing && !strcmp(refs[i].def->tool, "skillc-image") && image_stamp_check(p, &ie) == 0;
				free(p);
				if (missing || gone) {
					if (missing)
						warnf("%s: output %s is missing; the stage will run again", refs[i].name, out.v[k]);
					else
						warnf("%s: the image of %s is gone from the Docker daemon; the stage will run again",
						      refs[i].name, out.v[k]);
					unlink(ok);
					break;
				}
			}
			strlist_free(&out);
		}
		free(ok);
	}
	free(refs);
}

/* make -n or -q: mk/skillc.mk sets SKILLC_DRY_RUN (make hides -n from a
 * makefile's recipe), or its one-letter flags (MAKEFLAGS) hold n or q. */
static int make_dry_run(void)
{
	if (getenv("SKILLC_DRY_RUN"))
		return 1;
	const char *mf = getenv("MAKEFLAGS");
	if (!mf || *mf == '-')
		return 0;
	size_t n = strcspn(mf, " ");
	return memchr(mf, 'n', n) || memchr(mf, 'q', n);
}

/* Records the run's settings; an explicit value that changes a recorded one
 * is said in one line, with the stages it makes due again. */
static void record_settings(struct run *r)
{
	struct strlist changes = STRLIST_INIT;
	struct err e = { 0 };
	if (run_record(r, &changes, &e) < 0)
		die_err(&e);
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
		for (size_t i = 0; i < stage_count; i++)
			for (size_t k = 0; k < hit.n; k++)
				if (!strcmp(hit.v[k], stage_table[i].name)) {
					buf_printf(&line, "%s%s", shown++ ? ", " : "; due again: ", stage_table[i].name);
					break;
				}
		if (!shown)
			buf_adds(&line, "; no stage runs again for it");
		strlist_free(&hit);
		fprintf(stderr, "%s (the run remembers it)\n", line.data);
		buf_free(&line);
	}
	strlist_free(&changes);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_RULES);
	struct err e = { 0 };
	if (argc > 1 && !strcmp(argv[1], "check")) {
		/* make shows stdout as its own error line */
		if (settings_check_args(argc - 2, argv + 2, &e) == 0)
			return 0;
		if (printf("skillc: %s\n", e.msg) < 0 || fflush(stdout) != 0)
			die(1, "cannot write to stdout: %m");
		return 2;
	}
	if (argc > 1)
		die(2, "unexpected argument '%s' (see --help)", argv[1]);
	struct run r;
	if (run_load(&r, &e) < 0)
		die_err(&e);
	if (!make_dry_run())
		record_settings(&r);
	if (!fs_is_dir(r.task_dir))
		die(2, "task '%s' not found: '%s' is not a folder (check task= and TASKS_DIR)", r.task, r.task_dir);

	char *dir = run_path(&r, "inputs/config");
	if (fs_mkdirs(dir, &e) < 0)
		die_err(&e);
	free(dir);

	for (size_t i = 0; i < source_count; i++) {
		hash_hex h;
		if (source_hash(&r, &source_table[i], true, h, &e) < 0)
			die_err(&e);
		char *p = run_path(&r, source_table[i].stamp);
		if (stamp_write(p, h, &e) < 0)
			die_err(&e);
		free(p);
	}

	cJSON *cfg = run_config(&r);
	char *p = run_path(&r, "inputs/config.json");
	if (json_write_if_changed(p, cfg, &e) < 0)
		die_err(&e);
	free(p);
	hash_hex h;
	json_hash(cfg, h);
	cJSON_Delete(cfg);
	p = run_path(&r, "inputs/config.hash");
	if (stamp_write(p, h, &e) < 0)
		die_err(&e);
	free(p);

	for (size_t i = 0; i < stage_count; i++) {
		cJSON *slice = stage_config(&stage_table[i], &r);
		char *rel = stage_config_path(&stage_table[i]);
		p = run_path(&r, rel);
		if (json_write_if_changed(p, slice, &e) < 0)
			die_err(&e);
		free(p);
		free(rel);
		cJSON_Delete(slice);
	}

	remove_bookkeeping_temps(&r);
	guard_outputs(&r);

	struct buf mk = BUF_INIT;
	emit_rules(&mk, &r);
	p = run_path(&r, "rules.mk");
	if (fs_write_if_changed(p, mk.data, mk.len, &e) < 0)
		die_err(&e);
	free(p);
	buf_free(&mk);
	/* the manifest lists every target now due (make watch counts them) */
	if (manifest_rebuild(&r, &e) < 0)
		die_err(&e);
	run_free(&r);
	return 0;
}
