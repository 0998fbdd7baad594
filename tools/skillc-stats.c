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

static long count_arg(const char *flag, const char *s)
{
	double v = num_arg(flag, s);
	if (v != floor(v) || v < 0 || v > 100000)
		die(2, "%s wants a whole number of trials, not '%s'", flag, s);
	return (long)v;
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

struct opts {
	struct decide_rule rule;
	bool calibrate, have_max, have_step, have_base, have_cand;
	long base_first;
	struct decide_counts counts;
	struct decide_effect effects[16];
	size_t n_effects;
};

/* One option at argv[*i]; false when it is not a known one. */
static bool parse_one(int argc, char **argv, int *i, struct opts *o)
{
	const char *a = argv[*i];
	struct decide_rule *r = &o->rule;
	if (!strcmp(a, "--test")) {
		const char *v = std_option_value(argc, argv, i);
		int t = decide_test_from(v);
		if (t < 0)
			die(2, "--test: unknown test '%s' (fisher, barnard, strict or margin)", v);
		r->test = (enum decide_test)t;
	} else if (!strcmp(a, "--alpha")) {
		r->alpha = num_arg(a, std_option_value(argc, argv, i));
	} else if (!strcmp(a, "--grey")) {
		r->grey = num_arg(a, std_option_value(argc, argv, i));
	} else if (!strcmp(a, "--margin")) {
		r->margin = count_arg(a, std_option_value(argc, argv, i));
	} else if (!strcmp(a, "--first")) {
		r->first = count_arg(a, std_option_value(argc, argv, i));
	} else if (!strcmp(a, "--max")) {
		r->max = count_arg(a, std_option_value(argc, argv, i));
		o->have_max = true;
	} else if (!strcmp(a, "--step")) {
		r->step = count_arg(a, std_option_value(argc, argv, i));
		o->have_step = true;
	} else if (!strcmp(a, "--extend-baseline")) {
		r->extend_baseline = true;
	} else if (!strcmp(a, "--no-tiebreak")) {
		r->reward_tiebreak = false;
	} else if (!strcmp(a, "--calibrate")) {
		o->calibrate = true;
	} else if (!strcmp(a, "--baseline-first")) {
		o->base_first = count_arg(a, std_option_value(argc, argv, i));
	} else if (!strcmp(a, "--effect")) {
		if (o->n_effects == ARRAY_LEN(o->effects))
			die(2, "at most %zu --effect options", ARRAY_LEN(o->effects));
		struct decide_effect *f = &o->effects[o->n_effects++];
		pair_arg(a, std_option_value(argc, argv, i), ':', &f->p_base, &f->p_cand);
	} else if (!strcmp(a, "--rewards")) {
		pair_arg(a, std_option_value(argc, argv, i), ':', &o->counts.base_reward, &o->counts.cand_reward);
	} else {
		return false;
	}
	return true;
}

/* "--baseline N" (table) or "--baseline PASS/N" (decide). */
static void parse_arm(const char *flag, const char *v, bool counts, long *pass, long *n)
{
	if (!counts) {
		*n = count_arg(flag, v);
		return;
	}
	double p, t;
	pair_arg(flag, v, '/', &p, &t);
	if (p != floor(p) || t != floor(t) || p < 0 || t < 0 || t > 100000)
		die(2, "%s wants PASSED/TRIALS in whole numbers, not '%s'", flag, v);
	*pass = (long)p;
	*n = (long)t;
}

static void parse(int argc, char **argv, bool decide, struct opts *o)
{
	memset(o, 0, sizeof *o);
	decide_rule_init(&o->rule, DECIDE_FISHER, 0.10, 3);
	o->counts.base_reward = o->counts.cand_reward = NAN;
	for (int i = 2; i < argc; i++) {
		if (parse_one(argc, argv, &i, o))
			continue;
		if (!strcmp(argv[i], "--baseline")) {
			parse_arm(argv[i], std_option_value(argc, argv, &i), decide, &o->counts.base_pass,
				  &o->counts.base_n);
			o->have_base = true;
		} else if (decide && !strcmp(argv[i], "--candidate")) {
			parse_arm(argv[i], std_option_value(argc, argv, &i), true, &o->counts.cand_pass,
				  &o->counts.cand_n);
			o->have_cand = true;
		} else {
			die(2, "unknown option '%s' (see --help)", argv[i]);
		}
	}
	if (!o->have_max)
		o->rule.max = o->rule.first;
	if (!o->have_step)
		o->rule.step = o->rule.first;
	if (decide && (!o->have_base || !o->have_cand))
		die(2, "decide needs --baseline PASS/N and --candidate PASS/N (see --help)");
	if (!o->base_first)
		o->base_first = decide ? o->counts.base_n : o->have_base ? o->counts.base_n : o->rule.first;
	struct err e;
	if (o->calibrate && decide_calibrate(&o->rule, o->base_first, &e) < 0)
		die_err(&e);
	if (!o->n_effects) {
		memcpy(o->effects, decide_table_effects, sizeof decide_table_effects);
		o->n_effects = ARRAY_LEN(decide_table_effects);
	}
}

static void print_table(const struct opts *o)
{
	const struct decide_rule *r = &o->rule;
	struct err e;
	double at, worst = decide_worst_false_accept(r, o->base_first, &at, &e);
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
	printf(" trials, baseline %ld%s; reward tie-break %s\n", o->base_first,
	       r->extend_baseline ? " (extended too)" : "", r->reward_tiebreak ? "on" : "off");
	/* accept: ties before the last look extended; accept_min: none */
	printf("%-8s %-8s %-11s %10s %10s %16s\n", "p_base", "p_cand", "kind", "accept", "accept_min",
	       "candidate trials");
	for (size_t i = 0; i < o->n_effects; i++) {
		const struct decide_effect *f = &o->effects[i];
		struct decide_oc oc;
		if (decide_oc(r, o->base_first, f->p_base, f->p_cand, &oc, &e) < 0)
			die_err(&e);
		const char *kind = f->p_cand > f->p_base ? "gain" : f->p_cand < f->p_base ? "regression" : "useless";
		printf("%-8.3g %-8.3g %-11s %10.4f %10.4f %16.2f\n", f->p_base, f->p_cand, kind, oc.accept,
		       oc.accept_min, oc.mean_cand_trials);
	}
	printf("worst false-accept rate %.4f, at a common pass rate of %.3f\n", worst, at);
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

static int finish(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
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

static int across_main(int argc, char **argv)
{
	double alpha = 0.10;
	struct across_task *t = xcalloc((size_t)argc, sizeof *t);
	size_t k = 0;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--alpha"))
			alpha = num_arg("--alpha", std_option_value(argc, argv, &i));
		else if (argv[i][0] == '-')
			die(2, "unknown option '%s' (see --help)", argv[i]);
		else
			task_arg(argv[i], &t[k++]);
	}
	if (!k)
		die(2, "across needs at least one task NAME:PASS/N:PASS/N (see --help)");
	if (!(alpha > 0 && alpha < 1))
		die(2, "--alpha must lie between 0 and 1");
	struct err e;
	cJSON *doc = across_json(t, k, alpha, &e);
	if (!doc)
		die_err(&e);
	print_json(doc);
	cJSON_Delete(doc);
	for (size_t i = 0; i < k; i++)
		free((char *)t[i].name);
	free(t);
	return finish();
}

/* pooled [RULE] [--baseline-first N] [--rewards R0:R1] [--effect P0:P1]...
 * [--draws D] TASK:PASS/N:PASS/N...: the Deep rule over several tasks. */
static int pooled_main(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof o);
	decide_rule_init(&o.rule, DECIDE_FISHER, 0.10, 3);
	o.counts.base_reward = o.counts.cand_reward = NAN;
	struct across_task *t = xcalloc((size_t)argc, sizeof *t);
	size_t k = 0;
	long draws = POOLED_DRAWS;
	for (int i = 2; i < argc; i++) {
		if (parse_one(argc, argv, &i, &o))
			continue;
		if (!strcmp(argv[i], "--draws"))
			draws = count_arg(argv[i], std_option_value(argc, argv, &i));
		else if (argv[i][0] == '-')
			die(2, "unknown option '%s' (see --help)", argv[i]);
		else
			task_arg(argv[i], &t[k++]);
	}
	if (!k)
		die(2, "pooled needs at least one task NAME:PASS/N:PASS/N (see --help)");
	if (!o.have_max)
		o.rule.max = o.rule.first;
	if (!o.have_step)
		o.rule.step = o.rule.first;
	if (!o.base_first)
		o.base_first = t[0].base_n;
	struct err e;
	if (o.calibrate && pooled_calibrate(&o.rule, k, o.base_first, draws, &e) < 0)
		die_err(&e);
	cJSON *doc = pooled_json(&o.rule, t, k, o.counts.base_reward, o.counts.cand_reward,
				 o.base_first, draws, o.effects, o.n_effects, &e);
	if (!doc)
		die_err(&e);
	print_json(doc);
	cJSON_Delete(doc);
	for (size_t i = 0; i < k; i++)
		free((char *)t[i].name);
	free(t);
	return finish();
}

static int strata_main(int argc, char **argv)
{
	double alpha = 0.10;
	long k = 0, first = 3, base = 0, draws = 20000;
	struct decide_effect eff[16];
	size_t ne = 0;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--alpha"))
			alpha = num_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--tasks"))
			k = count_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--first"))
			first = count_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--baseline"))
			base = count_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--draws"))
			draws = count_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--effect") && ne < ARRAY_LEN(eff)) {
			pair_arg(a, std_option_value(argc, argv, &i), ':', &eff[ne].p_base, &eff[ne].p_cand);
			ne++;
		}
		else
			die(2, "unknown option '%s' (see --help)", a);
	}
	if (!k)
		die(2, "strata needs --tasks K (see --help)");
	if (!base)
		base = first;
	if (!ne) {
		memcpy(eff, decide_table_effects, sizeof decide_table_effects);
		ne = ARRAY_LEN(decide_table_effects);
	}
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
	return finish();
}

static int plan_main(int argc, char **argv)
{
	double effect = NAN, power = NAN, base = 0.5, alpha = 0.10;
	long trials = 3, max_tasks = 200;
	int test = DECIDE_FISHER;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--effect"))
			effect = num_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--power"))
			power = num_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--base"))
			base = num_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--alpha"))
			alpha = num_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--trials"))
			trials = count_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--max-tasks"))
			max_tasks = count_arg(a, std_option_value(argc, argv, &i));
		else if (!strcmp(a, "--test")) {
			const char *v = std_option_value(argc, argv, &i);
			if ((test = decide_test_from(v)) != DECIDE_FISHER && test != DECIDE_BARNARD)
				die(2, "--test: plan takes fisher or barnard, not '%s'", v);
		} else
			die(2, "unknown option '%s' (see --help)", a);
	}
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
	return finish();
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_STATS);
	if (argc >= 2 && !strcmp(argv[1], "across"))
		return across_main(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "strata"))
		return strata_main(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "plan"))
		return plan_main(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "pooled"))
		return pooled_main(argc, argv);
	if (argc < 2 || (strcmp(argv[1], "table") && strcmp(argv[1], "decide")))
		die(2, "say 'table', 'decide', 'across', 'strata', 'plan' or 'pooled' "
		       "(see --help)");
	bool decide = !strcmp(argv[1], "decide");
	struct opts o;
	parse(argc, argv, decide, &o);
	struct err e;
	if (!decide) {
		print_table(&o);
	} else {
		cJSON *doc = decide_json(&o.rule, &o.counts, o.base_first, o.effects, o.n_effects, &e);
		if (!doc)
			die_err(&e);
		struct buf b = BUF_INIT;
		json_canon(doc, true, &b);
		fputs(b.data, stdout);
		if (b.len && b.data[b.len - 1] != '\n')
			putchar('\n');
		buf_free(&b);
		cJSON_Delete(doc);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		die(1, "cannot write to stdout");
	return 0;
}
