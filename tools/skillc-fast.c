/* skillc-fast — the fast stage: traces of a skill -> scores and groups ->
 * one map call per top/bottom unit -> reduce into typed patches -> S_fast.
 * make runs one subcommand per target (fast-score, fast-map.NNN,
 * fast-reduce, fast-apply); without a subcommand it runs every step on a
 * folder of traces, as the seed's `python -m scripts.dynamic_compile.fast`
 * did. Every file it writes lives in one folder (--dir, artifacts/fast in a
 * run) under fixed names; see docs/fast.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/versions.h"
#include "compile/package.h"
#include "optimize/score.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"

static const char usage[] =
	"usage: skillc-fast score --traces DIR --skill DIR --dir DIR [--trials N] [--task DIR]\n"
	"                         [--rm-api-url URL] [--min-traces N] [--top N] [--bottom N]\n"
	"\n"
	"score   scores every trace under --traces (test-NNN/trial.json folders, or\n"
	"        BenchFlow runs) of the skill --skill (a skill folder, or a root holding\n"
	"        one) and writes DIR/scores.json and DIR/groups.json. --trials N takes\n"
	"        exactly test-001..test-N (make); --task DIR reads the instruction for\n"
	"        AgentRM. Defaults: $RM_API_URL, $FAST_MIN_TRACES (6), $FAST_TOP (3),\n"
	"        $FAST_BOTTOM (3).\n"
	"\n"
	"Exit 0 done, 1 the work failed (AgentRM down, a model call failed), 2 bad\n"
	"usage or input (too few traces, a missing file). See docs/fast.md.\n";

struct opts {
	const char *traces, *skill, *dir, *task, *rm_url;
	int trials, min_traces, top, bottom;
};

static int env_int(const char *name, int fallback)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : fallback;
}

static int int_arg(const char *flag, const char *v, int min, int max)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < min || n > max)
		die(2, "%s wants a whole number from %d to %d, not '%s'", flag, min, max, v);
	return (int)n;
}

static void parse(int argc, char **argv, int from, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->rm_url = getenv("RM_API_URL");
	o->min_traces = env_int("FAST_MIN_TRACES", 6);
	o->top = env_int("FAST_TOP", 3);
	o->bottom = env_int("FAST_BOTTOM", 3);
	for (int i = from; i < argc; i++) {
		const char *a = argv[i];
		const char **s = !strcmp(a, "--traces")       ? &o->traces
			       : !strcmp(a, "--skill")        ? &o->skill
			       : !strcmp(a, "--dir")          ? &o->dir
			       : !strcmp(a, "--task")         ? &o->task
			       : !strcmp(a, "--rm-api-url")   ? &o->rm_url
							      : NULL;
		if (s) {
			*s = std_option_value(argc, argv, &i);
		} else if (!strcmp(a, "--trials")) {
			o->trials = int_arg(a, std_option_value(argc, argv, &i), 1, 100000);
		} else if (!strcmp(a, "--min-traces")) {
			o->min_traces = int_arg(a, std_option_value(argc, argv, &i), 1, 100000);
		} else if (!strcmp(a, "--top")) {
			o->top = int_arg(a, std_option_value(argc, argv, &i), 1, 100);
		} else if (!strcmp(a, "--bottom")) {
			o->bottom = int_arg(a, std_option_value(argc, argv, &i), 1, 100);
		} else {
			die(2, "unknown option '%s' (see --help)", a);
		}
	}
}

static void need(const char *v, const char *flag)
{
	if (!v || !*v)
		die(2, "%s is required (see --help)", flag);
}

static void write_json(const char *dir, const char *name, const cJSON *v)
{
	struct err e = { 0 };
	char *p = path_join(dir, name);
	if (fs_mkdirs(dir, &e) < 0 || json_write_if_changed(p, v, &e) < 0)
		die_err(&e);
	free(p);
}

/* The task's instruction.md, or NULL without --task. Caller frees. */
static char *read_instruction(const char *task)
{
	if (!task)
		return NULL;
	char *p = path_join(task, "instruction.md");
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	if (fs_read(p, 1 << 20, &b, &e) < 0)
		die(2, "%s (--task must be a task folder holding instruction.md)", e.msg);
	free(p);
	return b.data ? buf_detach(&b) : xstrdup("");
}

static int cmd_score(const struct opts *o)
{
	need(o->traces, "--traces");
	need(o->skill, "--skill");
	need(o->dir, "--dir");
	struct err e = { 0 };
	struct skill_src src;
	if (skillpkg_load(o->skill, &src, &e) < 0)
		die_err(&e);
	struct strlist names = STRLIST_INIT;
	strlist_push(&names, src.name);
	struct trace_opts to = { o->trials, &names };
	struct trace_set ts;
	if (traces_load(o->traces, &to, &ts, &e) < 0)
		die_err(&e);
	char *more = o->trials
		? xasprintf("static-eval ran %d trials; raise REPEAT above %d to schedule more (make task=<task> fast REPEAT=%d), or look at the excluded trials under %s",
			    o->trials, o->trials, o->trials + (o->min_traces > (int)traces_scorable(&ts) ? o->min_traces - (int)traces_scorable(&ts) : 1),
			    o->traces)
		: xasprintf("add traces to %s or lower --min-traces", o->traces);
	char *instruction = read_instruction(o->task);
	struct score_opts so = { o->rm_url, instruction, o->min_traces, o->top, o->bottom, more };
	cJSON *scores, *groups;
	if (fast_score(&ts, &src, &so, &scores, &groups, &e) < 0)
		die_err(&e);
	write_json(o->dir, "scores.json", scores);
	write_json(o->dir, "groups.json", groups);
	printf("scored %d trace(s) (%d excluded)%s; groups: %s, %d unit(s)\n", cJSON_GetArraySize(json_get(scores, "traces")),
	       cJSON_GetArraySize(json_get(scores, "excluded")),
	       json_get(scores, "agentrm") && cJSON_IsObject(json_get(scores, "agentrm")) ? " with AgentRM" : " without AgentRM (RM_API_URL unset)",
	       json_str(groups, "mode"), cJSON_GetArraySize(json_get(groups, "units")));
	cJSON_Delete(scores);
	cJSON_Delete(groups);
	free(instruction);
	free(more);
	traces_free(&ts);
	strlist_free(&names);
	skill_src_free(&src);
	return 0;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_FAST);
	if (argc < 2)
		die(2, "missing command: score (see --help)");
	struct opts o;
	int rc;
	if (!strcmp(argv[1], "score")) {
		parse(argc, argv, 2, &o);
		rc = cmd_score(&o);
	} else {
		die(2, "unknown command '%s' (see --help)", argv[1]);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
	return rc;
}
