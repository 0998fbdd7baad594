/* fast_test.c — the fast stage's pieces: reading traces (condensed text,
 * facts, verifier evidence), quotes, the skill's section index, the
 * AgentRM request and its truncation, scores and groups (ordering, the
 * three modes, excluded infra errors, too few traces). */
#include <math.h>

#include "base/fs.h"
#include "base/json.h"
#include "compile/guard.h"
#include "optimize/agentrm.h"
#include "optimize/decision.h"
#include "optimize/patch.h"
#include "optimize/reduce.h"
#include "optimize/score.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"
#include "t.h"

static char *tmp;
static int serial;

static const char skill_md[] =
	"---\nname: demo\ndescription: Count things. Use when counting.\n---\n\n"
	"Intro text before any heading.\n\n"
	"# Demo\n\nRead `references/levels.md` when the levels differ.\n\n"
	"## Steps\n\nRun `scripts/count.sh` on the log.\n\n"
	"## Gotchas\n\nComponents are case-sensitive.\n";

/* One trial folder <dir>/test-NNN: trial.json, an ACP trajectory of the
 * given lines, and (tests > 0) a ctrf.json with `passed` of `tests`. */
static void put_trial(const char *dir, int n, const char *outcome, double reward, double tokens, double secs,
		      int passed, int tests, const char *acp)
{
	char *t = xasprintf("%s/test-%03d", dir, n);
	char *trial = xasprintf(
		"{\"complete\": %s, \"outcome\": \"%s\", \"passed\": %s, \"reward\": %g, \"key\": \"k%d\","
		" \"tokens\": {\"total\": %g}, \"durations\": {\"agent_execution\": %g},"
		" \"skill\": {\"injected\": [\"demo\"], \"invoked\": true, \"read\": false},"
		" \"files\": {\"acp_trajectory\": \"trajectory/acp_trajectory.jsonl\", \"rollout\": \"raw/r\"}}",
		"true", outcome, !strcmp(outcome, "passed") ? "true" : "false", reward, n, tokens, secs);
	t_put(t, "trial.json", trial);
	t_put(t, "trajectory/acp_trajectory.jsonl", acp ? acp : "");
	if (tests > 0) {
		struct buf c = BUF_INIT;
		buf_printf(&c, "{\"results\": {\"summary\": {\"tests\": %d, \"passed\": %d}, \"tests\": [", tests, passed);
		for (int i = 0; i < tests; i++)
			buf_printf(&c, "%s{\"name\": \"test_%d\", \"status\": \"%s\", \"message\": \"boom %d\"}", i ? ", " : "", i,
				   i < passed ? "passed" : "failed", i);
		buf_adds(&c, "]}}");
		t_put(t, "raw/r/verifier/ctrf.json", c.data);
		buf_free(&c);
	}
	free(trial);
	free(t);
}

static char *new_dir(void)
{
	return xasprintf("%s/set%d", tmp, ++serial);
}

static void load_skill(struct pkgset *s)
{
	char *root = new_dir();
	t_put(root, "demo/SKILL.md", skill_md);
	struct err e;
	if (pkgset_load(root, NULL, s, &e) < 0) {
		printf("FAIL setup: %s\n", e.msg);
		exit(2);
	}
	free(root);
}

static const char acp_loop[] =
	"{\"type\": \"user_message\", \"text\": \"Solve the task.\"}\n"
	"{\"type\": \"tool_call\", \"kind\": \"read\", \"title\": \"read references/levels.md\", \"status\": \"completed\", \"content\": []}\n"
	"{\"type\": \"tool_call\", \"kind\": \"execute\", \"title\": \"grep -c ERROR app.log\", \"status\": \"completed\","
	" \"content\": [{\"type\": \"content\", \"content\": {\"type\": \"text\", \"text\": \"5\"}}]}\n"
	"{\"type\": \"tool_call\", \"kind\": \"execute\", \"title\": \"grep -c ERROR app.log\", \"status\": \"completed\", \"content\": []}\n"
	"{\"type\": \"tool_call\", \"kind\": \"execute\", \"title\": \"logtriage count\", \"status\": \"failed\","
	" \"content\": [{\"type\": \"content\", \"content\": {\"type\": \"text\", \"text\": \"logtriage: command not found\"}}]}\n"
	"{\"type\": \"agent_message\", \"text\": \"Done.\"}";

static void test_trace_facts(void)
{
	char *dir = new_dir();
	put_trial(dir, 1, "failed", 0, 1000, 10, 3, 5, acp_loop);
	struct trace_set ts;
	struct err e;
	struct trace_opts o = { 1, NULL };
	CHECK(traces_load(dir, &o, &ts, &e) == 0);
	CHECK_INT(ts.n, 1);
	struct strlist pointed = STRLIST_INIT;
	strlist_push(&pointed, "references/levels.md");
	struct trace_facts f;
	trace_facts_read(&ts.v[0], &pointed, &f);
	CHECK_INT(f.steps, 4);
	CHECK_INT(f.failed_calls, 1);
	CHECK_INT(f.repeats, 1);
	CHECK_INT(f.refs_read.n, 1);
	CHECK_STR(f.prompt, "Solve the task.");
	CHECK(strstr(f.text.data, "[4] execute failed: logtriage count => logtriage: command not found") != NULL);
	CHECK(strstr(f.text.data, "(repeated)") != NULL);
	CHECK_INT(json_num(f.verifier, "tests_total", 0), 5);
	CHECK_INT(cJSON_GetArraySize(json_get(f.verifier, "failing")), 2);
	struct buf v = BUF_INIT;
	trace_verifier_text(f.verifier, &v);
	CHECK(strstr(v.data, "tests 3 of 5 passed") != NULL);
	CHECK(strstr(v.data, "- test_3: boom 3") != NULL);
	buf_free(&v);
	trace_facts_free(&f);
	traces_free(&ts);
	/* a required trial that is missing */
	struct trace_opts two = { 2, NULL };
	CHECK(traces_load(dir, &two, &ts, &e) < 0);
	CHECK(strstr(e.msg, "test-002") != NULL);
	traces_free(&ts);
	strlist_free(&pointed);
	free(dir);
}

static void test_quotes(void)
{
	struct buf h = BUF_INIT;
	text_squash("a  b\n\n c\t", 9, &h);
	CHECK_STR(h.data, "a b c");
	buf_reset(&h);
	text_squash(acp_loop, strlen(acp_loop), &h);
	CHECK(text_quotes(h.data, "logtriage:   command\nnot found"));
	CHECK(!text_quotes(h.data, "not in the trace at all"));
	CHECK(!text_quotes(h.data, "  lo "));  /* too short to be a quote */
	CHECK(!text_quotes(h.data, ""));
	buf_free(&h);
}

static void test_skill_index(void)
{
	struct pkgset s;
	load_skill(&s);
	struct skilldoc *d = sd_parse(s.v[0].md.data, s.v[0].md.len);
	struct buf b = BUF_INIT;
	skillpkg_index_text(d, "", 1000, &b);
	CHECK(strstr(b.data, "[root] (text before the first heading)\nIntro text") != NULL);
	CHECK(strstr(b.data, "[demo/steps#1] Steps\nRun `scripts/count.sh` on the log.") != NULL);
	CHECK_INT(section_lookup(d, "demo/gotchas"), section_lookup(d, "demo/gotchas#1"));
	CHECK(section_lookup(d, "demo/gotchas#1") > 0);
	CHECK_INT(section_lookup(d, "root"), 0);
	CHECK_INT(section_lookup(d, "nope#1"), -1);
	CHECK_INT(section_lookup(d, ""), -1);
	struct strlist refs = STRLIST_INIT;
	skillpkg_pointed_refs(d, &refs);
	CHECK_INT(refs.n, 1);
	CHECK_STR(refs.v[0], "references/levels.md");
	strlist_free(&refs);
	buf_free(&b);
	sd_free(d);
	pkgset_free(&s);
}

static void test_agentrm_request(void)
{
	bool cut;
	long tokens, sent;
	cJSON *b = agentrm_request(8192, "Count errors.", "[1] execute completed: ls\n", &cut, &tokens, &sent);
	CHECK(!cut);
	CHECK_INT(tokens, sent);
	CHECK_STR(json_str(b, "adapter"), AGENTRM_ADAPTER);
	CHECK_STR(json_str(b, "trajectory"), "[1] execute completed: ls\n");
	CHECK_INT(json_num(b, "max_length", 0), 8192);
	cJSON_Delete(b);
	/* 4000 lines of ~40 bytes: far over 600 tokens; the end is kept */
	struct buf t = BUF_INIT;
	for (int i = 0; i < 4000; i++)
		buf_printf(&t, "[%d] execute completed: step number %05d\n", i, i);
	b = agentrm_request(600, "Count errors.", t.data, &cut, &tokens, &sent);
	CHECK(cut);
	CHECK(tokens > 30000);
	CHECK(sent <= 600 - AGENTRM_RESERVE);
	CHECK(sent > 200);
	const char *tr = json_str(b, "trajectory");
	CHECK(!strncmp(tr, "[... earlier steps cut", 22));
	CHECK(strstr(tr, "step number 03999\n") != NULL);
	CHECK(strstr(tr, "step number 00001\n") == NULL);
	CHECK_STR(json_str(b, "instruction"), "Count errors.");
	cJSON_Delete(b);
	buf_free(&t);
}

static void score_set(const char *dir, int count, int min, int top, int bottom, cJSON **scores, cJSON **groups,
		      int *rc, struct err *e)
{
	struct pkgset s;
	load_skill(&s);
	struct trace_set ts;
	struct trace_opts o = { count, NULL };
	*rc = traces_load(dir, &o, &ts, e);
	struct score_opts so = { NULL, min, top, bottom, "do something" };
	if (*rc == 0)
		*rc = fast_score(&ts, &s, &so, scores, groups, e);
	traces_free(&ts);
	pkgset_free(&s);
}

static const char *nth(const cJSON *groups, const char *list, int i)
{
	const cJSON *v = cJSON_GetArrayItem(json_get(groups, list), i);
	return cJSON_IsString(v) ? v->valuestring : "(none)";
}

static void test_scores_contrast(void)
{
	char *dir = new_dir();
	/* passes: 1 (cheap), 3 (loops), 5 (expensive); failures: 2 (3/5 tests), 4 (1/5), 6 timeout; 7 infra */
	put_trial(dir, 1, "passed", 1, 1000, 10, 0, 0, NULL);
	put_trial(dir, 2, "failed", 0, 1000, 10, 3, 5, NULL);
	put_trial(dir, 3, "passed", 1, 1000, 10, 0, 0, acp_loop);
	put_trial(dir, 4, "failed", 0, 1000, 10, 1, 5, NULL);
	put_trial(dir, 5, "passed", 1, 4000, 10, 0, 0, NULL);
	put_trial(dir, 6, "timeout", 0, 1000, 10, 0, 0, NULL);
	put_trial(dir, 7, "infra_error", 0, 0, 0, 0, 0, NULL);
	cJSON *scores = NULL, *groups = NULL;
	int rc;
	struct err e;
	score_set(dir, 7, 6, 3, 3, &scores, &groups, &rc, &e);
	CHECK_INT(rc, 0);
	CHECK_STR(json_str(groups, "mode"), "contrast");
	const char *order[] = { "test-001", "test-003", "test-005", "test-002", "test-004", "test-006" };
	for (int i = 0; i < 6; i++)
		CHECK_STR(nth(groups, "order", i), order[i]);
	CHECK_STR(nth(groups, "bottom", 0), "test-006");
	CHECK_STR(nth(groups, "bottom", 2), "test-002");
	const cJSON *u1 = groups_unit(groups, 1);
	CHECK_STR(json_str(u1, "kind"), "contrast");
	CHECK_STR(json_str(u1, "better"), "test-001");
	CHECK_STR(json_str(u1, "worse"), "test-006");
	CHECK(groups_unit(groups, 4) == NULL);
	CHECK_INT(cJSON_GetArraySize(json_get(groups, "excluded")), 1);
	const cJSON *t3 = cJSON_GetArrayItem(json_get(scores, "traces"), 1);
	CHECK_STR(json_str(t3, "trace"), "test-003");
	const cJSON *parts = json_get(json_get(t3, "prescore"), "parts");
	CHECK_INT(json_num(json_get(parts, "repeats"), "count", 0), 1);
	CHECK_INT(json_num(json_get(parts, "failed_calls"), "points", 0), -8);
	CHECK_INT(json_num(json_get(parts, "references"), "points", 0), 5);
	const cJSON *t5 = cJSON_GetArrayItem(json_get(scores, "traces"), 2);
	CHECK(fabs(json_num(json_get(json_get(json_get(t5, "prescore"), "parts"), "tokens"), "points", 0) + 20) < 1e-9);
	const cJSON *t2 = cJSON_GetArrayItem(json_get(scores, "traces"), 3);
	CHECK(fabs(json_num(json_get(t2, "credit"), "value", 0) - 0.6) < 1e-9);
	CHECK(cJSON_IsNull(json_get(scores, "agentrm")));
	CHECK(strstr(json_str(scores, "agentrm_note"), "RM_API_URL is not set") != NULL);
	cJSON_Delete(scores);
	cJSON_Delete(groups);
	free(dir);
}

static void test_scores_modes(void)
{
	char *dir = new_dir(), *dir2 = new_dir();
	for (int i = 1; i <= 6; i++) {
		put_trial(dir, i, "passed", 1, 1000.0 * i, 10, 0, 0, NULL);
		put_trial(dir2, i, "failed", 0, 1000, 10, i - 1, 6, NULL);
	}
	cJSON *scores = NULL, *groups = NULL;
	int rc;
	struct err e;
	score_set(dir, 6, 6, 2, 3, &scores, &groups, &rc, &e);
	CHECK_INT(rc, 0);
	CHECK_STR(json_str(groups, "mode"), "efficiency");
	CHECK(strstr(json_str(groups, "reason"), "all 6 scored traces passed") != NULL);
	CHECK_STR(json_str(groups_unit(groups, 1), "kind"), "efficiency");
	CHECK_STR(json_str(groups_unit(groups, 1), "better"), "test-001");
	CHECK_STR(json_str(groups_unit(groups, 1), "worse"), "test-006");
	/* top 2, bottom 3: the third unit is a bottom trace alone */
	CHECK_STR(json_str(groups_unit(groups, 3), "better"), "test-004");
	CHECK(json_str(groups_unit(groups, 3), "worse") == NULL);
	CHECK_INT(json_num(groups, "map_targets", 0), 3);
	cJSON_Delete(scores);
	cJSON_Delete(groups);
	score_set(dir2, 6, 6, 3, 3, &scores, &groups, &rc, &e);
	CHECK_INT(rc, 0);
	CHECK_STR(json_str(groups, "mode"), "failure");
	CHECK(strstr(json_str(groups, "reason"), "failure analysis only") != NULL);
	CHECK_STR(json_str(groups_unit(groups, 1), "better"), "test-006"); /* 5 of 6 tests */
	CHECK_STR(json_str(groups_unit(groups, 1), "kind"), "failure");
	cJSON_Delete(scores);
	cJSON_Delete(groups);
	free(dir);
	free(dir2);
}

static void test_too_few(void)
{
	char *dir = new_dir();
	for (int i = 1; i <= 5; i++)
		put_trial(dir, i, "passed", 1, 1000, 10, 0, 0, NULL);
	put_trial(dir, 6, "infra_error", 0, 0, 0, 0, 0, NULL);
	cJSON *scores = NULL, *groups = NULL;
	int rc;
	struct err e;
	score_set(dir, 6, 6, 3, 3, &scores, &groups, &rc, &e);
	CHECK(rc < 0);
	CHECK_INT(e.code, ERR_INPUT);
	CHECK(strstr(e.msg, "fast needs 6 complete scored traces of the skill, but there are 5 (6 trials, 1 excluded") != NULL);
	CHECK(strstr(e.msg, "do something") != NULL);
	CHECK(scores == NULL && groups == NULL);
	free(dir);
}

/* Applies one patch (JSON text) to the demo skill; returns the step. */
static cJSON *apply_one(const char *patch, long budget, char **md)
{
	struct pkgset s;
	load_skill(&s);
	struct guard_base g;
	guard_init(&g, &s.v[0]);
	struct skill_out o;
	skill_out_init(&o, &s.v[0]);
	cJSON *p = cJSON_Parse(patch), *step = cJSON_CreateObject();
	patch_apply(&s.v[0], &g, &o, p, budget, step);
	*md = xstrdup(o.md.data);
	cJSON_Delete(p);
	skill_out_free(&o);
	guard_free(&g);
	pkgset_free(&s);
	return step;
}

static void expect(const char *patch, long budget, const char *status, const char *check_or_reason, const char *has)
{
	char *md;
	cJSON *step = apply_one(patch, budget, &md);
	CHECK_STR(json_str(step, "status"), status);
	if (check_or_reason && json_get(step, "guard"))
		CHECK_STR(json_str(json_get(step, "guard"), "check"), check_or_reason);
	else if (check_or_reason)
		CHECK_STR(json_str(step, "reason"), check_or_reason);
	if (has && !strstr(md, has))
		printf("FAIL %s: patch %s: \"%s\" not in:\n%s\n", t_case_name, patch, has, md), t_case_failed = 1;
	if (!strcmp(status, "rolled_back") && strcmp(md, skill_md))
		printf("FAIL %s: patch %s was not rolled back\n", t_case_name, patch), t_case_failed = 1;
	free(md);
	cJSON_Delete(step);
}

static void test_patch_apply(void)
{
	expect("{\"op\": \"add\", \"section\": \"demo/gotchas#1\", \"text\": \"Levels are exact.\"}", 5000, "applied", NULL,
	       "Components are case-sensitive.\n\nLevels are exact.\n");
	expect("{\"op\": \"add\", \"section\": \"demo/steps\", \"text\": \"Then check.\"}", 5000, "applied", NULL,
	       "on the log.\n\nThen check.\n\n## Gotchas");
	expect("{\"op\": \"update\", \"section\": \"demo/gotchas#1\", \"find\": \"Components are  case-sensitive.\", \"text\": \"Components are case-sensitive: `db` is not `DB`.\"}",
	       5000, "applied", NULL, "## Gotchas\n\nComponents are case-sensitive: `db` is not `DB`.\n");
	expect("{\"op\": \"update\", \"section\": \"demo/gotchas#1\", \"text\": \"All new.\"}", 5000, "applied", NULL,
	       "## Gotchas\n\nAll new.\n");
	/* the literal scripts/count.sh is lost */
	expect("{\"op\": \"update\", \"section\": \"demo/steps#1\", \"find\": \"Run `scripts/count.sh` on the log.\", \"text\": \"Run the script.\"}",
	       5000, "rolled_back", "literal", NULL);
	/* a whole section: its heading is lost */
	expect("{\"op\": \"delete\", \"section\": \"demo/gotchas#1\"}", 5000, "rolled_back", "heading", NULL);
	expect("{\"op\": \"delete\", \"section\": \"demo/gotchas#1\", \"find\": \"no such text\"}", 5000, "rejected",
	       "find quotes no block of the section", NULL);
	/* a heading added elsewhere than under the section */
	expect("{\"op\": \"add\", \"section\": \"demo/gotchas#1\", \"text\": \"# Another top\\n\\nText.\"}", 5000, "rolled_back",
	       "section", NULL);
	expect("{\"op\": \"add\", \"section\": \"demo/gotchas#1\", \"text\": \"### Case\\n\\nText.\"}", 5000, "applied", NULL,
	       "### Case");
	/* over the budget and growing */
	expect("{\"op\": \"add\", \"section\": \"demo/gotchas#1\", \"text\": \"More words here.\"}", 10, "rolled_back", "budget", NULL);
	/* the frontmatter cannot be touched: the root section starts after it */
	expect("{\"op\": \"update\", \"section\": \"root\", \"find\": \"Intro text before any heading.\", \"text\": \"Intro.\"}", 5000, "applied",
	       NULL, "---\n\nIntro.\n");
}

static void test_patch_problem(void)
{
	struct pkgset d;
	load_skill(&d);
	const char *cases[][2] = {
		{ "{\"op\": \"add\", \"section\": \"demo/steps#1\", \"text\": \"x\"}", NULL },
		{ "{\"op\": \"move\", \"section\": \"demo/steps#1\", \"text\": \"x\"}", "op is not add, update or delete" },
		{ "{\"op\": \"add\", \"section\": \"nope#1\", \"text\": \"x\"}", "names no section of the skill" },
		{ "{\"op\": \"update\", \"section\": \"demo/steps#1\"}", "add and update need text" },
		{ "{\"op\": \"delete\", \"section\": \"demo/steps#1\", \"find\": 3}", "find is not a string" },
		{ "[1]", "not a patch: it needs op and section" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		cJSON *p = cJSON_Parse(cases[i][0]);
		const char *why = patch_problem(p, &d);
		if (cases[i][1])
			CHECK_STR(why, cases[i][1]);
		else
			CHECK(why == NULL);
		cJSON_Delete(p);
	}
	pkgset_free(&d);
}

/* A set of three skills sharing section names: ids name the skill, a patch
 * changes one skill, SKILLS leaves the others alone. */
static void test_skill_set(void)
{
	char *root = new_dir();
	t_put(root, "alpha/SKILL.md", skill_md);
	t_put(root, "beta/SKILL.md", skill_md);
	t_put(root, "gamma/SKILL.md", skill_md);
	struct pkgset p;
	struct err e;
	CHECK_INT(pkgset_load(root, NULL, &p, &e), 0);
	CHECK_INT(p.n, 3);
	size_t k = 9;
	int s = pkgset_lookup(&p, "beta:demo/steps#1", &k);
	CHECK(s > 0);
	CHECK_INT(k, 1);
	char *id = pkgset_id(&p, 1, s);
	CHECK_STR(id, "beta:demo/steps#1");
	free(id);
	CHECK_INT(pkgset_lookup(&p, "demo/steps#1", &k), -1); /* a set's id names its skill */
	CHECK_INT(pkgset_lookup(&p, "delta:demo/steps#1", &k), -1);
	struct buf b = BUF_INIT;
	pkgset_index_text(&p, 1000, &b);
	CHECK(strstr(b.data, "### Skill gamma\n\n[gamma:root]") != NULL);
	CHECK(strstr(b.data, "[alpha:demo/steps#1] Steps") != NULL);
	buf_free(&b);
	struct skill_out *out = pkgset_outs(&p);
	struct guard_base g[3];
	for (size_t i = 0; i < 3; i++)
		guard_init(&g[i], &p.v[i]);
	cJSON *patch = cJSON_Parse("{\"op\": \"add\", \"section\": \"beta:demo/steps#1\", \"text\": \"Then check it.\"}");
	cJSON *step = cJSON_CreateObject();
	CHECK_INT(patch_apply_set(&p, g, out, patch, 5000, step), 0);
	CHECK_STR(json_str(step, "skill"), "beta");
	CHECK(strstr(out[1].md.data, "Then check it.") != NULL);
	CHECK(!strcmp(out[0].md.data, skill_md) && !strcmp(out[2].md.data, skill_md));
	char *target = xasprintf("%s-out/S", root), *hash = xasprintf("%s-out/S.hash", root);
	CHECK_INT(pkgset_publish(&p, out, target, hash, &e), 0);
	char *a = xasprintf("%s/gamma/SKILL.md", target);
	struct buf got = BUF_INIT;
	CHECK_INT(fs_read(a, 0, &got, &e), 0);
	CHECK_STR(got.data, skill_md); /* the others byte for byte */
	buf_free(&got);
	free(a);
	cJSON_Delete(step);
	cJSON_Delete(patch);
	for (size_t i = 0; i < 3; i++)
		guard_free(&g[i]);
	pkgset_outs_free(&p, out);
	pkgset_free(&p);
	/* SKILLS: only gamma may change; a name the set lacks is refused */
	CHECK_INT(pkgset_load(root, "gamma", &p, &e), 0);
	CHECK_INT(pkgset_lookup(&p, "beta:demo/steps#1", &k), -1);
	CHECK(pkgset_lookup(&p, "gamma:demo/steps#1", &k) > 0);
	pkgset_free(&p);
	CHECK_INT(pkgset_load(root, "delta", &p, &e), -1);
	CHECK(strstr(e.msg, "SKILLS names 'delta'") != NULL);
	pkgset_free(&p);
	free(target);
	free(hash);
	free(root);
}

/* n records, the first `pass` passing, each with the given tokens. */
static cJSON *records(int n, int pass, double tokens, bool timeout)
{
	cJSON *l = cJSON_CreateArray();
	for (int i = 1; i <= n; i++) {
		cJSON *r = cJSON_CreateObject();
		json_set_num(r, "index", i);
		json_set_bool(r, "needed", true);
		json_set_bool(r, "scored", true);
		json_set_bool(r, "passed", i <= pass);
		json_set_num(r, "reward", i <= pass ? 1 : 0);
		json_set_num(r, "tokens", tokens);
		json_set_num(r, "steps", 5);
		json_set_num(r, "seconds", 4);
		json_set_bool(r, "timeout", timeout);
		json_set_bool(r, "invoked", true);
		json_set_num(r, "failed_calls", 0);
		cJSON_AddItemToArray(l, r);
	}
	return l;
}

static const cJSON *effect(const cJSON *stats, double p0, double p1)
{
	for (const cJSON *o = json_get(stats, "operating")->child; o; o = o->next)
		if (fabs(json_num(o, "p_base", 0) - p0) < 1e-9 && fabs(json_num(o, "p_cand", 0) - p1) < 1e-9)
			return o;
	return NULL;
}

/* optimization.md §8: one-sided Fisher p < 0.10, one look, N per arm:
 * useless .5->.5, gains .4->.7 and .3->.8, regression .6->.4. */
static void test_decision_matches_optimization_table(void)
{
	static const struct { int n; double useless, g1, g2, reg; } rows[] = {
		{ 3, 0.016, 0.074, 0.176, 0.004 },
		{ 6, 0.029, 0.191, 0.447, 0.005 },
	};
	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		int n = rows[i].n;
		struct deep_rule d = { n, n, n, 0.10, 1.10, DECIDE_FISHER, false };
		cJSON *base = records(n, n / 3, 1000, false), *cand = records(n, n / 3, 1000, false);
		struct err e;
		cJSON *j = deep_judge(&d, base, cand, true, &e);
		CHECK(j != NULL);
		const cJSON *st = json_get(j, "statistics");
		CHECK_STR(json_str(json_get(st, "rule"), "test"), "fisher");
		CHECK(fabs(json_num(effect(st, .5, .5), "accept", -1) - rows[i].useless) < 0.0006);
		CHECK(fabs(json_num(effect(st, .4, .7), "accept", -1) - rows[i].g1) < 0.0006);
		CHECK(fabs(json_num(effect(st, .3, .8), "accept", -1) - rows[i].g2) < 0.0006);
		CHECK(fabs(json_num(effect(st, .6, .4), "accept", -1) - rows[i].reg) < 0.0006);
		CHECK_STR(json_str(j, "verdict"), "reject"); /* a tie */
		cJSON_Delete(j);
		cJSON_Delete(base);
		cJSON_Delete(cand);
	}
}

static void test_decision_verdicts(void)
{
	struct deep_rule d = { 3, 6, 3, 0.10, 1.10, DECIDE_BARNARD, false };
	struct err e;
	cJSON *base = records(6, 2, 1000, false);
	struct { int pass; double tokens; bool timeout, last; const char *verdict, *why; } cases[] = {
		{ 3, 1000, false, false, "accept", "accepted" },        /* 3/3 vs 2/6 */
		{ 1, 1000, false, true, "reject", "tied" },             /* a tie is rejected */
		{ 0, 1000, false, false, "reject", "behind" },          /* hurts */
		{ 3, 2000, false, false, "reject", "runtime regression (tokens: median ratio 2.00 > 1.10" },
		{ 3, 1000, true, false, "reject", "timeouts: 0.00 -> 1.00" },
		{ 2, 1000, false, false, "extend", "ahead but not significant" }, /* the grey zone */
		{ 2, 1000, false, true, "reject", "no trials are left" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		cJSON *cand = records(3, cases[i].pass, cases[i].tokens, cases[i].timeout);
		cJSON *j = deep_judge(&d, base, cand, cases[i].last, &e);
		CHECK_STR(json_str(j, "verdict"), cases[i].verdict);
		if (!strstr(json_str(j, "why"), cases[i].why))
			printf("FAIL %s: case %zu: '%s' not in '%s'\n", t_case_name, i, cases[i].why, json_str(j, "why")), t_case_failed = 1;
		cJSON_Delete(j);
		cJSON_Delete(cand);
	}
	/* the worst false-accept rate of the sequential rule stays within alpha */
	cJSON *cand = records(3, 2, 1000, false);
	cJSON *j = deep_judge(&d, base, cand, false, &e);
	CHECK(json_num(json_get(json_get(j, "statistics"), "false_accept"), "worst", 1) <= 0.10 + 1e-9);
	cJSON_Delete(j);
	cJSON_Delete(cand);
	cJSON_Delete(base);
	CHECK_INT(deep_looks(&d), 2);
	struct deep_rule d2 = { 3, 12, 3, 0.10, 1.10, DECIDE_BARNARD, false };
	CHECK_INT(deep_looks(&d2), 4);
	CHECK_INT(deep_look_trials(&d2, 3), 9);
	CHECK_INT(deep_look_of(&d2, 3), 1);
	CHECK_INT(deep_look_of(&d2, 4), 2);
	CHECK_INT(deep_look_of(&d2, 12), 4);
}

int main(void)
{
	tmp = t_tmpdir();
	RUN(test_trace_facts);
	RUN(test_quotes);
	RUN(test_skill_index);
	RUN(test_agentrm_request);
	RUN(test_scores_contrast);
	RUN(test_scores_modes);
	RUN(test_too_few);
	RUN(test_patch_apply);
	RUN(test_patch_problem);
	RUN(test_skill_set);
	RUN(test_decision_matches_optimization_table);
	RUN(test_decision_verdicts);
	struct err e;
	fs_remove_tree(tmp, &e);
	free(tmp);
	T_EXIT();
}
