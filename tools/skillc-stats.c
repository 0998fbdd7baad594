/* skillc-stats — the decision statistics of report/decide.h from the
 * command line: how often a rule accepts a useless edit, a regression or a
 * real gain (computed exactly, by enumeration), and what it decides for
 * given pass counts (the statistics part of a Deep round's decision.json);
 * and the statistics across tasks of report/across.h: the figures of a set
 * of tasks, the stratified test's false-accept rate and power, and how many
 * trials or tasks a claim needs. docs/statistics.md explains them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "report/across.h"
#include "report/pooled.h"
#include "report/exact.h"
#include "report/decide.h"

static const char usage[] =
	"usage: skillc-stats table  [RULE] [--baseline N] [--effect P0:P1]...\n"
	"       skillc-stats decide [RULE] --baseline PASS/N --candidate PASS/N\n"
	"                           [--baseline-first N] [--rewards R0:R1] [--effect P0:P1]...\n"
	"\n"
	"RULE: --test fisher|barnard|strict|margin (fisher)  --alpha A (0.10)\n"
	"      --first N candidate trials at the first look (3)  --max N (= first)\n"
	"      --step N trials per extension (= first)  --grey G (0.5)  --margin M (2)\n"
	"      --extend-baseline  --no-tiebreak  --calibrate (bound the whole rule's\n"
	"      false-accept rate by alpha)\n"
	"\n"
	"table prints, for each effect P0:P1 (true baseline and candidate pass\n"
	"rates; default .5:.5 .4:.7 .3:.8 .6:.4), the chance the rule accepts (accept:\n"
	"every tie before the last look extended, the most the reward tie-break can\n"
	"do; accept_min: none), the expected candidate trials, and the worst\n"
	"false-accept rate over every common pass rate. --baseline N: baseline\n"
	"trials at the first look (= first).\n"
	"decide prints the decision as JSON (verdict accept|reject|extend, p-value,\n"
	"why, and the same figures).\n"
	"\n"
	"Across tasks (the task is the unit):\n"
	"       skillc-stats across [--alpha A] TASK:PASS/N:PASS/N...\n"
	"       skillc-stats strata [--alpha A] --tasks K [--first N] [--baseline N]\n"
	"                           [--effect P0:P1]... [--draws D]\n"
	"       skillc-stats plan   --effect E --power P [--base P0] [--alpha A]\n"
	"                           [--test fisher|barnard] [--trials N] [--max-tasks K]\n"
	"       skillc-stats pooled [RULE] [--baseline-first N] [--rewards R0:R1]\n"
	"                           [--effect P0:P1]... [--draws D] TASK:PASS/N:PASS/N...\n"
	"across prints as JSON, for each task's baseline and candidate counts: the\n"
	"per-task differences, their mean with a 95% interval across tasks, the\n"
	"normalized gain, the exact sign test over tasks, the exact stratified test\n"
	"(tasks as strata, a common odds ratio), Holm-adjusted per-task Fisher\n"
	"p-values, and whether the run was too small to show its own effect.\n"
	"strata prints the stratified test's chance of accepting over K tasks of\n"
	"--baseline (= first) and --first N (3) trials per arm, for each effect, and\n"
	"its worst false-accept rate: exact when the outcomes can be enumerated,\n"
	"else over D Monte Carlo draws (20000, fixed seed).\n"
	"plan prints the trials per arm one task needs, and the tasks of --trials N\n"
	"(3) trials per arm the stratified test needs (at most --max-tasks, 200), to\n"
	"accept a gain of E over the pass rate --base (0.5) with power P.\n"
	"pooled prints the decision of the Deep rule over several tasks at once (a\n"
	"skill run's train tasks): the rule above with the stratified test as its\n"
	"test, as JSON (per-task counts, verdict, stratified p, why, next), and its\n"
	"worst false-accept rate and power over that many tasks, over D seeded Monte\n"
	"Carlo draws (4000); --calibrate bounds the whole rule's rate by alpha.\n"
	"Exit 0 done, 2 bad usage or input.\n";

static double num_arg(const char *flag, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		die(2, "%s wants a number, not '%s'", flag, s);
	return v;
}

/* "A:B" -> two numbers */
static void pair_arg(const char *flag, const char *s, char sep, double *a, double *b)
{
	const char *c = strchr(s, sep);
	if (!c)
		die(2, "%s wants X%cY, not '%s'", flag, sep, s);
	char *first = xstrndup(s, (size_t)(c - s));
	*a = num_arg(flag, first);
	*b = num_arg(flag, c + 1);
	free(first);
}

/* Every subcommand's options: the rows below point into it. */
static struct opts {
	struct decide_rule rule;
	bool calibrate, no_tiebreak, have_max, have_step;
	long base_first, draws, tasks, trials, max_tasks;
	const char *test, *baseline, *candidate, *rewards;
	struct strlist effect_args;   /* --effect P0:P1, as given */
	double effect, power, base;   /* plan */
	struct decide_counts counts;
	struct decide_effect effects[16];
	size_t n_effects;
} o;

#define TRIALS(n, p, a, h) OPT_WHOLE(n, p, 0, 100000, a, h)
/* RULE: the decision rule's options, which table, decide and pooled share */
#define RULE_ROWS \
	OPT_STRING("test", &o.test, "fisher|barnard|strict|margin", "RULE: the test (fisher)"), \
	OPT_NUMBER("alpha", &o.rule.alpha, 0, 1, "A", "the false-accept rate (0.10)"), \
	TRIALS("first", &o.rule.first, "N", "RULE: candidate trials at the first look (3)"), \
	{ "max", 0, OPT_LONG, &o.rule.max, "N", "RULE: candidate trials at most (= first)", 0, \
	  100000, NULL, &o.have_max }, \
	{ "step", 0, OPT_LONG, &o.rule.step, "N", "RULE: trials per extension (= first)", 0, \
	  100000, NULL, &o.have_step }, \
	OPT_NUMBER("grey", &o.rule.grey, 0, 1, "G", "RULE: extend while p is at most G (0.5)"), \
	TRIALS("margin", &o.rule.margin, "M", "RULE: margin's passes beyond the baseline (2)"), \
	OPT_BOOL("extend-baseline", &o.rule.extend_baseline, "RULE: extend the baseline too"), \
	OPT_BOOL("no-tiebreak", &o.no_tiebreak, "RULE: no tie-break by mean reward"), \
	OPT_BOOL("calibrate", &o.calibrate, "RULE: bound the whole rule's rate by alpha"), \
	TRIALS("baseline-first", &o.base_first, "N", "baseline trials at the first look"), \
	OPT_STRING("rewards", &o.rewards, "R0:R1", "the arms' mean rewards (tie-break)"), \
	OPT_EACH("effect", &o.effect_args, "P0:P1", "true pass rates to figure (repeatable)")

static const struct opt table_rows[] = {
	RULE_ROWS,
	OPT_STRING("baseline", &o.baseline, "N", "baseline trials (= first); decide: PASS/N"),
	OPT_END,
};
static const struct opt decide_rows[] = {
	RULE_ROWS,
	OPT_STRING("baseline", &o.baseline, "PASS/N", "the baseline's passes of its trials"),
	OPT_STRING("candidate", &o.candidate, "PASS/N", "(decide) the candidate's passes"),
	OPT_END,
};
static const struct opt pooled_rows[] = {
	RULE_ROWS,
	TRIALS("draws", &o.draws, "D", "Monte Carlo draws (strata 20000, pooled 4000)"),
	OPT_END,
};
static const struct opt across_rows[] = {
	OPT_NUMBER("alpha", &o.rule.alpha, 0, 1, "A", "the false-accept rate (0.10)"),
	OPT_END,
};
static const struct opt strata_rows[] = {
	OPT_NUMBER("alpha", &o.rule.alpha, 0, 1, "A", "the false-accept rate (0.10)"),
	TRIALS("tasks", &o.tasks, "K", "(strata) tasks"),
	TRIALS("first", &o.rule.first, "N", "candidate trials per task (3)"),
	OPT_STRING("baseline", &o.baseline, "N", "baseline trials per task (= first)"),
	OPT_EACH("effect", &o.effect_args, "P0:P1", "true pass rates to figure (repeatable)"),
	TRIALS("draws", &o.draws, "D", "Monte Carlo draws (strata 20000, pooled 4000)"),
	OPT_END,
};
static const struct opt plan_rows[] = {
	OPT_NUMBER("effect", &o.effect, 0, 1, "E", "the gain in pass rate to find"),
	OPT_NUMBER("power", &o.power, 0, 1, "P", "(plan) the chance to find it"),
	OPT_NUMBER("base", &o.base, 0, 1, "P0", "(plan) the baseline's pass rate (0.5)"),
	OPT_NUMBER("alpha", &o.rule.alpha, 0, 1, "A", "the false-accept rate (0.10)"),
	TRIALS("trials", &o.trials, "N", "(plan) trials per arm of each task (3)"),
	TRIALS("max-tasks", &o.max_tasks, "K", "(plan) the most tasks (200)"),
	OPT_STRING("test", &o.test, "fisher|barnard", "the exact test (fisher)"),
	OPT_END,
};
static const struct opt_cmd cmds[] = {
	{ "table", table_rows }, { "decide", decide_rows }, { "across", across_rows },
	{ "strata", strata_rows }, { "plan", plan_rows }, { "pooled", pooled_rows },
	OPT_CMD_END,
};

/* The defaults, before the rows are parsed. */
static void opts_init(void)
{
	decide_rule_init(&o.rule, DECIDE_FISHER, 0.10, 3);
	o.counts.base_reward = o.counts.cand_reward = NAN;
	o.effect = o.power = NAN;
	o.base = 0.5;
	o.trials = 3;
	o.max_tasks = 200;
}

/* "--baseline N" (table, strata) or "--baseline PASS/N" (decide, tasks). */
static void parse_arm(const char *flag, const char *v, bool counts, long *pass, long *n)
{
	double p, t;
	if (!counts) {
		p = num_arg(flag, v);
		if (p != floor(p) || p < 0 || p > 100000)
			die(2, "%s wants a whole number of trials, not '%s'", flag, v);
		*n = (long)p;
		return;
	}
	pair_arg(flag, v, '/', &p, &t);
	if (p != floor(p) || t != floor(t) || p < 0 || t < 0 || t > 100000)
		die(2, "%s wants PASSED/TRIALS in whole numbers, not '%s'", flag, v);
	*pass = (long)p;
	*n = (long)t;
}

/* The rule's options and --effect, --rewards, --test as given; with_defaults:
 * no --effect means decide_table_effects. */
static void rule_of_rows(bool with_defaults)
{
	if (o.test) {
		int t = decide_test_from(o.test);
		if (t < 0)
			die(2, "--test: unknown test '%s' (fisher, barnard, strict or margin)",
			    o.test);
		o.rule.test = (enum decide_test)t;
	}
	o.rule.reward_tiebreak = !o.no_tiebreak;
	if (!o.have_max)
		o.rule.max = o.rule.first;
	if (!o.have_step)
		o.rule.step = o.rule.first;
	if (o.rewards)
		pair_arg("--rewards", o.rewards, ':', &o.counts.base_reward, &o.counts.cand_reward);
	if (o.effect_args.n > ARRAY_LEN(o.effects))
		die(2, "at most %zu --effect options", ARRAY_LEN(o.effects));
	for (size_t i = 0; i < o.effect_args.n; i++)
		pair_arg("--effect", o.effect_args.v[i], ':', &o.effects[i].p_base,
		         &o.effects[i].p_cand);
	o.n_effects = o.effect_args.n;
	if (!o.n_effects && with_defaults) {
		memcpy(o.effects, decide_table_effects, sizeof decide_table_effects);
		o.n_effects = ARRAY_LEN(decide_table_effects);
	}
}

/* table and decide: the arms' options, then the rule (calibrated if asked). */
static void table_or_decide(bool decide)
{
	rule_of_rows(true);
	if (o.baseline)
		parse_arm("--baseline", o.baseline, decide, &o.counts.base_pass, &o.counts.base_n);
	if (o.candidate)
		parse_arm("--candidate", o.candidate, true, &o.counts.cand_pass, &o.counts.cand_n);
	if (decide && (!o.baseline || !o.candidate))
		die(2, "decide needs --baseline PASS/N and --candidate PASS/N (see --help)");
	if (!o.base_first)
		o.base_first = o.baseline ? o.counts.base_n : o.rule.first;
	struct err e;
	if (o.calibrate && decide_calibrate(&o.rule, o.base_first, &e) < 0)
		die_err(&e);
}

/* ---------------------------------------------------------------- across tasks */

static void print_json(cJSON *doc)
{
	struct buf b = BUF_INIT;
	json_canon(doc, true, &b);
	fputs(b.data, stdout);
	if (b.len && b.data[b.len - 1] != '\n')
		putchar('\n');
	buf_free(&b);
}

static void print_table(const struct opts *p)
{
	const struct decide_rule *r = &p->rule;
	struct err e;
	double at, worst = decide_worst_false_accept(r, p->base_first, &at, &e);
	if (worst < 0)
		die_err(&e);
	printf("rule: %s", decide_test_name(r->test));
	if (r->test == DECIDE_FISHER || r->test == DECIDE_BARNARD)
		printf(", alpha %g (level %.4g per look), grey %g", r->alpha, r->level > 0 ? r->level : r->alpha,
		       r->grey);
	if (r->test == DECIDE_MARGIN)
		printf(", margin %ld", r->margin);
	printf("; candidate %ld", r->first);
	if (r->max > r->first)
		printf(" to %ld by %ld", r->max, r->step);
	printf(" trials, baseline %ld%s; reward tie-break %s\n", p->base_first,
	       r->extend_baseline ? " (extended too)" : "", r->reward_tiebreak ? "on" : "off");
	/* accept: ties before the last look extended; accept_min: none */
	printf("%-8s %-8s %-11s %10s %10s %16s\n", "p_base", "p_cand", "kind", "accept", "accept_min",
	       "candidate trials");
	for (size_t i = 0; i < p->n_effects; i++) {
		const struct decide_effect *f = &p->effects[i];
		struct decide_oc oc;
		if (decide_oc(r, p->base_first, f->p_base, f->p_cand, &oc, &e) < 0)
			die_err(&e);
		const char *kind = f->p_cand > f->p_base ? "gain" : f->p_cand < f->p_base ? "regression" : "useless";
		printf("%-8.3g %-8.3g %-11s %10.4f %10.4f %16.2f\n", f->p_base, f->p_cand, kind, oc.accept,
		       oc.accept_min, oc.mean_cand_trials);
	}
	printf("worst false-accept rate %.4f, at a common pass rate of %.3f\n", worst, at);
}

static int table_or_decide_main(bool decide)
{
	table_or_decide(decide);
	if (!decide) {
		print_table(&o);
		return 0;
	}
	struct err e;
	cJSON *doc = decide_json(&o.rule, &o.counts, o.base_first, o.effects, o.n_effects, &e);
	if (!doc)
		die_err(&e);
	print_json(doc);
	cJSON_Delete(doc);
	return 0;
}


/* "NAME:PASS/N:PASS/N" */
static void task_arg(const char *s, struct across_task *t)
{
	const char *c1 = strchr(s, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c1 || !c2 || c1 == s)
		die(2, "a task is NAME:PASS/N:PASS/N (baseline, then candidate), not '%s'", s);
	char *base = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
	t->name = xstrndup(s, (size_t)(c1 - s));
	parse_arm(t->name, base, true, &t->base_pass, &t->base_n);
	parse_arm(t->name, c2 + 1, true, &t->cand_pass, &t->cand_n);
	free(base);
}

/* The tasks of across and pooled, from the words that are no option. */
static struct across_task *tasks_of(const char *cmd, const struct strlist *args)
{
	if (!args->n)
		die(2, "%s needs at least one task NAME:PASS/N:PASS/N (see --help)", cmd);
	struct across_task *t = xcalloc(args->n, sizeof *t);
	for (size_t i = 0; i < args->n; i++)
		task_arg(args->v[i], &t[i]);
	return t;
}

/* Prints doc and frees it with the tasks. */
static int tasks_done(cJSON *doc, const struct err *e, struct across_task *t, size_t k)
{
	if (!doc)
		die_err(e);
	print_json(doc);
	cJSON_Delete(doc);
	for (size_t i = 0; i < k; i++)
		free((char *)t[i].name);
	free(t);
	return 0;
}

static int across_main(const struct strlist *args)
{
	struct across_task *t = tasks_of("across", args);
	if (!(o.rule.alpha > 0 && o.rule.alpha < 1))
		die(2, "--alpha must lie between 0 and 1");
	struct err e;
	cJSON *doc = across_json(t, args->n, o.rule.alpha, &e);
	return tasks_done(doc, &e, t, args->n);
}

/* pooled: the Deep rule over several tasks. */
static int pooled_main(const struct strlist *args)
{
	struct across_task *t = tasks_of("pooled", args);
	size_t k = args->n;
	rule_of_rows(false);
	if (!o.base_first)
		o.base_first = t[0].base_n;
	struct err e;
	if (o.calibrate && pooled_calibrate(&o.rule, k, o.base_first, o.draws, &e) < 0)
		die_err(&e);
	cJSON *doc = pooled_json(&o.rule, t, k, o.counts.base_reward, o.counts.cand_reward,
				 o.base_first, o.draws, o.effects, o.n_effects, &e);
	return tasks_done(doc, &e, t, k);
}

static int strata_main(void)
{
	long k = o.tasks, first = o.rule.first, base = 0, draws = o.draws;
	double alpha = o.rule.alpha;
	if (!k)
		die(2, "strata needs --tasks K (see --help)");
	if (o.baseline)
		parse_arm("--baseline", o.baseline, false, NULL, &base);
	if (!base)
		base = first;
	rule_of_rows(true);
	size_t ne = o.n_effects;
	const struct decide_effect *eff = o.effects;
	struct err e;
	printf("stratified exact test (common odds ratio), alpha %g; %ld tasks, %ld baseline and %ld candidate trials each\n",
	       alpha, k, base, first);
	printf("%-8s %-8s %-11s %10s %s\n", "p_base", "p_cand", "kind", "accept", "how");
	for (size_t i = 0; i < ne; i++) {
		struct across_oc oc;
		if (across_strat_oc((size_t)k, base, first, eff[i].p_base, eff[i].p_cand, alpha, draws, &oc, &e) < 0)
			die_err(&e);
		const char *kind = eff[i].p_cand > eff[i].p_base ? "gain" : eff[i].p_cand < eff[i].p_base ? "regression" : "useless";
		if (oc.exact)
			printf("%-8.3g %-8.3g %-11s %10.4f exact\n", eff[i].p_base, eff[i].p_cand, kind, oc.accept);
		else
			printf("%-8.3g %-8.3g %-11s %10.4f Monte Carlo, %ld draws, se %.4f\n", eff[i].p_base, eff[i].p_cand, kind,
			       oc.accept, oc.draws, oc.se);
	}
	double at, worst = across_strat_worst((size_t)k, base, first, alpha, draws, &at, &e);
	if (worst < 0)
		die_err(&e);
	printf("worst false-accept rate %.4f, at a common pass rate of %.3f (grid .05 to .95)\n", worst, at);
	return 0;
}

static int plan_main(void)
{
	double effect = o.effect, power = o.power, base = o.base, alpha = o.rule.alpha;
	long trials = o.trials, max_tasks = o.max_tasks;
	int test = o.test ? decide_test_from(o.test) : DECIDE_FISHER;
	if (test != DECIDE_FISHER && test != DECIDE_BARNARD)
		die(2, "--test: plan takes fisher or barnard, not '%s'", o.test);
	if (isnan(effect) || isnan(power))
		die(2, "plan needs --effect E and --power P (see --help)");
	struct err e;
	double got_n, got_k;
	long n = across_plan_trials(test, base, effect, power, alpha, &got_n, &e);
	if (n < 0)
		die_err(&e);
	long k = across_plan_tasks(trials, base, effect, power, alpha, max_tasks, &got_k, &e);
	if (k < 0)
		die_err(&e);
	printf("a gain of %g over a pass rate of %g, one-sided alpha %g, power %g:\n", effect, base, alpha, power);
	if (n)
		printf("one task: %ld trials per arm (%s, power %.3f)\n", n, decide_test_name((enum decide_test)test), got_n);
	else
		printf("one task: more than %d trials per arm (%s reaches power %.3f there)\n", EXACT_MAX_N,
		       decide_test_name((enum decide_test)test), got_n);
	if (k)
		printf("across tasks: %ld tasks of %ld trials per arm (stratified test, power %.3f)\n", k, trials, got_k);
	else
		printf("across tasks: more than %ld tasks of %ld trials per arm (power %.3f there)\n", max_tasks, trials, got_k);
	return 0;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	opts_cmds_std(argc, argv, usage, cmds, V_STATS);
	const struct opt_cmd *c = opts_cmd_find(cmds, argc >= 2 ? argv[1] : NULL);
	if (!c)
		die(2, "say 'table', 'decide', 'across', 'strata', 'plan' or 'pooled' "
		       "(see --help)");
	opts_init();
	o.draws = !strcmp(c->name, "strata") ? 20000 : POOLED_DRAWS;
	struct strlist args = STRLIST_INIT;
	bool takes_tasks = !strcmp(c->name, "across") || !strcmp(c->name, "pooled");
	if (takes_tasks)
		opts_args_or_die(c->rows, argc, argv, 2, &args);
	else
		opts_parse_or_die(c->rows, argc, argv, 2, NULL);
	int rc = !strcmp(c->name, "across")   ? across_main(&args)
	         : !strcmp(c->name, "pooled") ? pooled_main(&args)
	         : !strcmp(c->name, "strata") ? strata_main()
	         : !strcmp(c->name, "plan")   ? plan_main()
	                                      : table_or_decide_main(!strcmp(c->name, "decide"));
	strlist_free(&args);
	strlist_free(&o.effect_args);
	return rc;
}
