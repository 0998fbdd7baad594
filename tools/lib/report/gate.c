#include "report/gate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/across.h"
#include "report/stats.h"

static double r2(double v)
{
	return round_to(v, 2);
}

/* v is a or b, or NULL/"" (the default); else an error. */
static int one_of(const char *v, const char *a, const char *b, const char *name, struct err *e)
{
	if (!v || !*v || !strcmp(v, a) || !strcmp(v, b))
		return 0;
	return err_set(e, ERR_INPUT, "%s is %s or %s, not '%s'", name, a, b, v);
}

static int whole(const char *v, long min, long max, const char *name, long *out, struct err *e)
{
	char *end;
	errno = 0;
	long n = v && *v ? strtol(v, &end, 10) : *out;
	if (v && *v && (errno || *end || n < min || n > max))
		return err_set(e, ERR_INPUT, "%s wants a whole number from %ld to %ld, not '%s'",
			       name, min, max, v);
	*out = n;
	return 0;
}

int gate_rule_parse(const struct gate_args *a, struct gate_rule *r, struct err *e)
{
	*r = (struct gate_rule){ .stage = a->stage && *a->stage ? a->stage : "final" };
	if (!name_is_safe(r->stage))
		return err_set(e, ERR_INPUT, "--stage (GATE_STAGE) wants a stage name such as "
			       "final or static, not '%s'", r->stage);
	if (one_of(a->rule, "no-regression", "gain", "--rule (GATE_RULE)", e) < 0 ||
	    one_of(a->vs, "noskill", "none", "--vs (GATE_VS)", e) < 0 ||
	    one_of(a->across, "runs", "tasks", "--across (GATE_ACROSS)", e) < 0 ||
	    whole(a->max_regressed, 0, 1000000, "--max-regressed (GATE_MAX_REGRESSED)",
		  &r->max_regressed, e) < 0)
		return -1;
	r->gain = a->rule && !strcmp(a->rule, "gain");
	r->vs_noskill = a->vs && !strcmp(a->vs, "noskill");
	r->across = a->across && !strcmp(a->across, "tasks");
	if (!a->min_delta || !*a->min_delta)
		return 0;
	char *end;
	r->min_delta = strtod(a->min_delta, &end);
	if (end == a->min_delta || *end || !isfinite(r->min_delta) || r->min_delta < -100 ||
	    r->min_delta > 100)
		return err_set(e, ERR_INPUT, "--min-delta (GATE_MIN_DELTA) wants points between "
			       "-100 and 100, not '%s'", a->min_delta);
	return 0;
}

void gate_rate_text(const struct results_group *g, struct buf *b)
{
	if (!g->scored) {
		buf_printf(b, "no scored trials (%ld infra error%s, %ld verifier error%s)", g->infra,
			   g->infra == 1 ? "" : "s", g->verr, g->verr == 1 ? "" : "s");
		return;
	}
	double lo, hi;
	stats_wilson(g->passed, g->scored, STATS_Z95, &lo, &hi);
	buf_printf(b, "%ld/%ld = %.1f%% [%.1f%%, %.1f%%]", g->passed, g->scored, 100.0 * (double)g->passed / (double)g->scored,
		   lo * 100, hi * 100);
}

bool gate_delta(const struct results_group *g, const struct results_group *base, double *d, double *lo,
		double *hi)
{
	if (!results_delta_ci_vs(g, base, lo, hi))
		return false;
	*d = r2(results_delta_pp_vs(g, base));
	*lo = r2(*lo);
	*hi = r2(*hi);
	return true;
}

void gate_run_name(const struct results_group *g, struct buf *b)
{
	buf_printf(b, "%s (%s, %s, %s", g->task, g->harness, g->model, g->runner);
	if (*g->bench)
		buf_printf(b, ", bench %s", g->bench);
	buf_addc(b, ')');
}

/* The rows of one run the gate reads: the judged stage, raw and noskill. */
struct run_rows {
	const struct results_group *stage, *raw, *noskill;
};

static void find_rows(const struct results_group *v, size_t n, const char *stage, struct run_rows *rr)
{
	memset(rr, 0, sizeof *rr);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v[i].stage, stage))
			rr->stage = &v[i];
		if (!strcmp(v[i].stage, "raw"))
			rr->raw = &v[i];
		if (!strcmp(v[i].stage, "noskill"))
			rr->noskill = &v[i];
	}
}

/* Why a run cannot be judged, into why; false when it can. */
static bool unjudged(const struct run_rows *rr, const struct gate_rule *r, struct buf *why)
{
	const struct { const struct results_group *g; const char *name; bool needed; } need[] = {
		{ rr->stage, r->stage, true },
		{ rr->raw, "raw", true },
		{ rr->noskill, "noskill", r->vs_noskill },
	};
	for (size_t i = 0; i < ARRAY_LEN(need); i++) {
		if (!need[i].needed)
			continue;
		if (!need[i].g) {
			buf_printf(why, "no %s trials", need[i].name);
			return true;
		}
		if (!need[i].g->scored) {
			buf_printf(why, "%s has ", need[i].name);
			gate_rate_text(need[i].g, why);
			return true;
		}
	}
	return false;
}

/* "final 4/5 = ... vs raw 1/5 = ...: +60.0 pp [+5.1, +84.2]"; false when
 * the lower bound is below the margin. */
static bool judge_vs(const struct results_group *g, const struct results_group *base, const char *base_name,
		     const struct gate_rule *r, struct buf *line, struct buf *why)
{
	double d, lo, hi;
	gate_delta(g, base, &d, &lo, &hi);
	buf_printf(line, "; %s - %s %+.1f pp [%+.1f, %+.1f]", g->stage, base_name, d, lo, hi);
	if (!r->gain && hi >= 0)
		return true;
	if (!r->gain) {
		buf_printf(why, "%s%s - %s: upper bound %+.1f pp < 0, a loss beyond the noise", why->len ? "; " : "",
			   g->stage, base_name, hi);
		return false;
	}
	if (lo >= r->min_delta)
		return true;
	buf_printf(why, "%s%s - %s: lower bound %+.1f pp < GATE_MIN_DELTA %g", why->len ? "; " : "", g->stage,
		   base_name, lo, r->min_delta);
	return false;
}

/* Whether the run counts as regressed: under the gain rule the summary's
 * flag (below raw at all), under no-regression only with evidence. */
static bool regressed(const struct run_rows *rr, const struct gate_rule *r)
{
	if (!rr->stage || !results_regressed(rr->stage))
		return false;
	double d, lo, hi;
	return r->gain || !rr->raw || !gate_delta(rr->stage, rr->raw, &d, &lo, &hi) || hi < 0;
}

/* One run: its line, and its state. */
static enum gate_state judge_run(const struct run_rows *rr, const struct gate_rule *r, bool too_many_regressed,
				 struct buf *line)
{
	struct buf why = BUF_INIT;
	enum gate_state st = GATE_PASS;
	if (unjudged(rr, r, &why)) {
		st = GATE_UNJUDGED;
	} else {
		buf_printf(line, ": %s ", r->stage);
		gate_rate_text(rr->stage, line);
		buf_adds(line, " vs raw ");
		gate_rate_text(rr->raw, line);
		bool ok = judge_vs(rr->stage, rr->raw, "raw", r, line, &why);
		if (r->vs_noskill)
			ok &= judge_vs(rr->stage, rr->noskill, "noskill", r, line, &why);
		if (regressed(rr, r) && too_many_regressed) {
			buf_printf(&why, "%sregressed below raw (more than GATE_MAX_REGRESSED %ld)", why.len ? "; " : "",
				   r->max_regressed);
			ok = false;
		}
		st = ok ? GATE_PASS : GATE_FAIL;
	}
	if (why.len)
		buf_printf(line, "%s%s", st == GATE_UNJUDGED ? ": cannot be judged: " : ": ", why.data);
	buf_free(&why);
	return st;
}

/* The across-task figures of the judged runs (stage against raw), one
 * line; with r->across, *ok says whether they pass the rule. */
static void across_line(const struct across_task *t, size_t k, const struct gate_rule *r, struct buf *out, bool *ok)
{
	struct across_result a;
	struct err e = { 0 };
	const char *unit = r->unit ? r->unit : "run";
	if (across_compute(t, k, &a, &e) < 0) {
		buf_printf(out, "ERROR across %zu %ss: %s\n", k, unit, e.msg);
		*ok = false;
		return;
	}
	double lo = r2(a.lo * 100), hi = r2(a.hi * 100);
	buf_printf(out, "across %zu %ss: %s - raw mean %+.1f pp [%+.1f, %+.1f] (95%%, "
		   "clustered by task)", k, unit, r->stage, r2(a.mean_delta * 100), lo, hi);
	if (isfinite(a.norm_gain))
		buf_printf(out, ", normalized gain %.2f", a.norm_gain);
	buf_printf(out, "; sign test %ld up %ld down p = %.3g; stratified exact p = %.3g; Holm-adjusted p:", a.wins,
		   a.losses, a.sign_p, a.strat_p);
	for (size_t i = 0; i < k; i++)
		buf_printf(out, " %s %.3g", t[i].name, a.task_holm[i]);
	/* a claimed gain needs the stratified test too: the t interval of tasks
	 * that agree has no width (0/3 -> 0/3 twice: [0, 0]) */
	bool shown = r->min_delta < 0 || a.strat_p <= GATE_STRAT_ALPHA;
	*ok = r->gain ? lo >= r->min_delta && shown : hi >= 0;
	if (r->across && !*ok && !r->gain)
		buf_printf(out, ": upper bound %+.1f pp < 0, a loss beyond the noise", hi);
	else if (r->across && !*ok && lo < r->min_delta)
		buf_printf(out, ": lower bound %+.1f pp < GATE_MIN_DELTA %g", lo, r->min_delta);
	else if (r->across && !*ok)
		buf_printf(out, ": no gain shown: stratified exact p = %.3g > %g", a.strat_p,
			   GATE_STRAT_ALPHA);
	buf_addc(out, '\n');
	across_free(&a);
}

int gate_judge(const struct results_table *tb, const struct gate_rule *r, struct buf *out)
{
	struct gate_counts c = { 0 };
	/* the regressed runs first: whether there are too many decides their lines */
	for (size_t i = 0; i < tb->n;) {
		size_t end = i + 1;
		while (end < tb->n && results_same_cell(&tb->v[i], &tb->v[end]))
			end++;
		struct run_rows rr;
		find_rows(&tb->v[i], end - i, r->stage, &rr);
		c.regressed += regressed(&rr, r);
		i = end;
	}
	bool too_many = c.regressed > r->max_regressed;
	struct across_task *at = xcalloc(tb->n + 1, sizeof *at);
	size_t nat = 0;
	for (size_t i = 0; i < tb->n;) {
		size_t end = i + 1;
		while (end < tb->n && results_same_cell(&tb->v[i], &tb->v[end]))
			end++;
		struct run_rows rr;
		find_rows(&tb->v[i], end - i, r->stage, &rr);
		struct buf line = BUF_INIT;
		gate_run_name(&tb->v[i], &line);
		enum gate_state st = judge_run(&rr, r, too_many, &line);
		if (st != GATE_UNJUDGED)
			at[nat++] = (struct across_task){ tb->v[i].task, rr.raw->passed, rr.raw->scored, rr.stage->passed,
							 rr.stage->scored };
		buf_printf(out, "%s %s\n", st == GATE_PASS ? "ok" : st == GATE_FAIL ? "FAIL" : "ERROR", line.data);
		buf_free(&line);
		c.runs++;
		c.passed += st == GATE_PASS;
		c.failed += st == GATE_FAIL;
		c.unjudged += st == GATE_UNJUDGED;
		i = end;
	}
	if (!c.runs)
		buf_adds(out, "ERROR no complete trial in the runs given: nothing to judge\n");
	bool across_ok = true;
	if (nat >= 2)
		across_line(at, nat, r, out, &across_ok);
	free(at);
	bool across = r->across && nat >= 2;
	int rc = !c.runs || c.unjudged ? 2 : across ? (across_ok ? 0 : 1) : c.failed || too_many ? 1 : 0;
	const char *unit = r->unit ? r->unit : "run";
	buf_printf(out, "gate: %s: %ld %s%s, %ld pass, %ld fail, %ld cannot be judged; "
		   "%ld regressed",
		   rc == 0 ? "PASS" : rc == 1 ? "FAIL" : "CANNOT JUDGE", c.runs, unit,
		   c.runs == 1 ? "" : "s", c.passed, c.failed, c.unjudged, c.regressed);
	buf_printf(out, " (at most %ld)", r->max_regressed);
	char scope[96] = "";
	if (across)
		snprintf(scope, sizeof scope, " across %ss (the mean change, clustered by task)",
			 unit);
	if (r->gain)
		buf_printf(out, "; rule gain%s: %s - raw%s, lower 95%% bound >= %g pp\n", scope, r->stage,
			   r->vs_noskill && !across ? " and - noskill" : "", r->min_delta);
	else
		buf_printf(out, "; rule no-regression%s: %s - raw%s, upper 95%% bound >= 0 pp\n", scope, r->stage,
			   r->vs_noskill && !across ? " and - noskill" : "");
	return rc;
}
