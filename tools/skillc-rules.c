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
#include <unistd.h>

#include "fs.h"
#include "hash.h"
#include "json.h"
#include "log.h"
#include "run.h"
#include "stages.h"
#include "state.h"
#include "versions.h"

static const char usage[] =
	"usage: skillc-rules\n"
	"\n"
	"Run by make (mk/skillc.mk) for the run named by SKILLC_RUN, SKILLC_TASK and\n"
	"SKILLC_TASK_DIR, with the settings in the environment. Refreshes the run's\n"
	"source hashes and config files (only when they change) and writes rules.mk.\n"
	"Exit 0 done, 2 bad settings or task.\n";

static void emit_stage(struct buf *mk, const struct stage_def *s)
{
	buf_printf(mk, "\n# %s: %s\n", s->name, s->help);
	buf_printf(mk, "$(R)/status/%s.ok:", s->name);
	for (size_t i = 0; i < ARRAY_LEN(s->inputs) && s->inputs[i]; i++)
		buf_printf(mk, " $(R)/%s", s->inputs[i]);
	buf_printf(mk, " $(R)/inputs/config/%s.json\n", s->name);
	buf_printf(mk, "\t+@$(SKILLC_STAGE) run %s\n", s->name);
	/* outputs other stages read are made by this stage's stamp */
	int any = 0;
	for (size_t i = 0; i < ARRAY_LEN(s->outputs) && s->outputs[i]; i++) {
		const char *o = s->outputs[i];
		size_t n = strlen(o);
		if ((n > 5 && !strcmp(o + n - 5, ".hash")) || (n > 5 && !strcmp(o + n - 5, ".json"))) {
			buf_printf(mk, "%s$(R)/%s", any ? " " : "", o);
			any = 1;
		}
	}
	if (any)
		buf_printf(mk, ": $(R)/status/%s.ok ;\n", s->name);
}

static void emit_rules(struct buf *mk, const struct run *r)
{
	buf_printf(mk, "# rules.mk — written by skillc-rules %s for this run; do not edit.\n", V_RULES);
	buf_printf(mk, "R := %s\n", r->dir);
	for (size_t i = 0; i < stage_count; i++)
		emit_stage(mk, &stage_table[i]);
	buf_adds(mk, "\n# goals: the stamps each user target needs\n");
	static const char *const goals[] = { "final" };
	for (size_t i = 0; i < stage_count + ARRAY_LEN(goals); i++) {
		const char *g = i < stage_count ? stage_table[i].name : goals[i - stage_count];
		const struct stage_def *need[64];
		int n = goal_stages(g, need, ARRAY_LEN(need));
		buf_printf(mk, "SKILLC_GOAL_%s :=", g);
		for (int k = 0; k < n; k++)
			buf_printf(mk, " $(R)/status/%s.ok", need[k]->name);
		buf_addc(mk, '\n');
	}
}

/* A stage whose stamp says done but whose output is gone must run again. */
static void guard_outputs(const struct run *r)
{
	for (size_t i = 0; i < stage_count; i++) {
		const struct stage_def *s = &stage_table[i];
		char *ok = state_ok_path(r->dir, s->name);
		if (fs_exists(ok)) {
			for (size_t k = 0; k < ARRAY_LEN(s->outputs) && s->outputs[k]; k++) {
				char *out = run_path(r, s->outputs[k]);
				int missing = !fs_exists(out);
				free(out);
				if (missing) {
					warnf("%s: output %s is missing; the stage will run again", s->name, s->outputs[k]);
					unlink(ok);
					break;
				}
			}
		}
		free(ok);
	}
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_RULES);
	if (argc > 1)
		die(2, "unexpected argument '%s' (see --help)", argv[1]);
	struct run r;
	struct err e = { 0 };
	if (run_load(&r, &e) < 0)
		die_err(&e);
	if (!fs_is_dir(r.task_dir))
		die(2, "task '%s' not found: '%s' is not a folder (check task= and TASKS_DIR)", r.task, r.task_dir);

	char *dir = run_path(&r, "inputs/config");
	if (fs_mkdirs(dir, &e) < 0)
		die_err(&e);
	free(dir);

	for (size_t i = 0; i < source_count; i++) {
		hash_hex h;
		if (source_hash(&r, &source_table[i], h, &e) < 0)
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

	guard_outputs(&r);

	struct buf mk = BUF_INIT;
	emit_rules(&mk, &r);
	p = run_path(&r, "rules.mk");
	if (fs_write_if_changed(p, mk.data, mk.len, &e) < 0)
		die_err(&e);
	free(p);
	buf_free(&mk);
	run_free(&r);
	return 0;
}
