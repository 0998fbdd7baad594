/* Unit tests of report/: escaping, intervals, the line diff, the charts. */
#include <math.h>

#include "llm/routes.h"
#include "report/cost.h"
#include "report/diff.h"
#include "report/html.h"
#include "report/stats.h"
#include "report/svg.h"
#include "t.h"

static char *esc(const char *s, size_t len)
{
	struct buf b = BUF_INIT;
	html_text(&b, s, len);
	buf_addc(&b, 0);
	return buf_detach(&b);
}

/* One row per case: input bytes, what the page must hold. */
static void t_escaping(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} cases[] = {
		{ "<script>alert(1)</script>", 25, "&lt;script&gt;alert(1)&lt;/script&gt;" },
		{ "a & b \"c\" 'd'", 13, "a &amp; b &quot;c&quot; &#39;d&#39;" },
		{ "caf\xc3\xa9 \xe2\x9c\x93", 9, "caf\xc3\xa9 \xe2\x9c\x93" },             /* valid UTF-8 kept */
		{ "x\xffy", 3, "x\xef\xbf\xbdy" },                                      /* a stray byte */
		{ "\xc0\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd" },                          /* overlong NUL */
		{ "\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },          /* a surrogate */
		{ "ab\xe2\x9c", 4, "ab\xef\xbf\xbd\xef\xbf\xbd" },                      /* cut short */
		{ "a\x01" "b\x00" "c\td\n", 8, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\td\n" }, /* controls */
		{ "\xef\xbf\xbe!", 4, "\xef\xbf\xbd!" },                                /* U+FFFE */
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = esc(cases[i].in, cases[i].len);
		CHECK_STR(got, cases[i].want);
		free(got);
	}
	struct buf b = BUF_INIT;
	html_href(&b, "traces/a b/test-001/#x?y&z");
	buf_addc(&b, 0);
	CHECK_STR(b.data, "traces/a%20b/test-001/%23x%3Fy%26z");
	buf_reset(&b);
	html_str_cut(&b, "h\xc3\xa9llo world", 3);
	buf_addc(&b, 0);
	CHECK_STR(b.data, "h\xc3\xa9l…");
	buf_free(&b);
}

static void t_intervals(void)
{
	double lo, hi;
	/* by hand: 4/4 vs 6/9 (see tests/e2e/summary.sh): [-20.08, +64.58] points */
	stats_newcombe(4, 4, 6, 9, STATS_Z95, &lo, &hi);
	CHECK(fabs(lo * 100 - -20.076) < 0.01);
	CHECK(fabs(hi * 100 - 64.580) < 0.01);
	/* equal proportions: symmetric around 0 */
	stats_newcombe(3, 6, 3, 6, STATS_Z95, &lo, &hi);
	CHECK(fabs(lo + hi) < 1e-12);
	CHECK(fabs(stats_t95(1) - 12.706) < 1e-9);
	CHECK(fabs(stats_t95(4) - 2.776) < 1e-9);
	CHECK(fabs(stats_t95(100) - 1.96) < 0.001);
	CHECK(isnan(stats_t95(0)));
}

static void t_line_diff(void)
{
	struct buf b = BUF_INIT;
	long add = 0, del = 0;
	const char *a = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n", *c = "one\ntwo\n3\nfour\nfive\nsix\nseven\neight\n";
	diff_lines_html(&b, a, strlen(a), c, strlen(c), 1, &add, &del);
	buf_addc(&b, 0);
	CHECK_INT(add, 2);
	CHECK_INT(del, 1);
	CHECK(strstr(b.data, "<del>− three\n</del><ins>+ 3\n</ins>") != NULL);
	CHECK(strstr(b.data, "<ins>+ eight\n</ins>") != NULL);
	CHECK(strstr(b.data, "⋯") != NULL);         /* five is out of context */
	CHECK(strstr(b.data, "  five") == NULL);
	buf_reset(&b);
	add = del = 0;
	diff_lines_html(&b, "<b>&</b>\n", 9, "", 0, 2, &add, &del);
	buf_addc(&b, 0);
	CHECK(strstr(b.data, "&lt;b&gt;&amp;&lt;/b&gt;") != NULL);
	CHECK_INT(del, 1);
	buf_free(&b);
}

static void t_chart(void)
{
	struct svg_bar bars[] = {
		{ .key = "raw", .label = "raw", .value = 0.2, .lo = 0.036, .hi = 0.624, .color = "#888" },
		{ .key = "st<a>", .label = "st<a>", .value = NAN, .lo = NAN, .hi = NAN },
	};
	struct svg_chart c = { .id = "pass-rate", .title = "T & t", .fmt = "%.0f%%", .scale = 100, .ymax = 1,
			       .ref = 0.2, .ref_label = "raw", .bars = bars, .n = 2 };
	struct buf b = BUF_INIT;
	svg_bar_chart(&b, &c, true);
	buf_addc(&b, 0);
	CHECK(!strncmp(b.data, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 78));
	CHECK(strstr(b.data, "data-key=\"raw\" data-value=\"0.2\" data-lo=\"0.036\" data-hi=\"0.624\"") != NULL);
	CHECK(strstr(b.data, "data-key=\"st&lt;a&gt;\" data-value=\"\"") != NULL);
	CHECK(strstr(b.data, ">n/a</text>") != NULL);
	CHECK(strstr(b.data, "<title>T &amp; t</title>") != NULL);
	buf_free(&b);
}

/* Usage records with the provider's cached prompt tokens: a record with
 * no cost_usd is priced from the routes, cached tokens at cached_input;
 * LLM-cache hits count neither as sent nor as cached. */
static void t_cached_cost(void)
{
	char *dir = t_tmpdir();
	t_put(dir, "routes.json", "{\"providers\": {\"p\": {\"base_url\": \"http://127.0.0.1:9/v1\", "
	      "\"key_env\": null, \"prices\": {\"*\": {\"input\": 2, \"output\": 4, \"cached_input\": 0.5}}}}}");
	t_put(dir, "run/status/fast-map.001.usage.jsonl",
	      "{\"model\":\"p/m\",\"cache\":\"miss\",\"tokens_in\":1000,\"tokens_out\":100,\"tokens_cached\":800,\"cost_usd\":null}\n"
	      "{\"model\":\"p/m\",\"cache\":\"miss\",\"tokens_in\":1000,\"tokens_out\":100,\"tokens_cached\":0,\"cost_usd\":null}\n"
	      "{\"model\":\"p/m\",\"cache\":\"hit\",\"tokens_in\":1000,\"tokens_out\":100,\"tokens_cached\":900,\"cost_usd\":0}\n");
	struct routes rs = ROUTES_INIT;
	struct err e;
	char *rp = path_join(dir, "routes.json"), *run = path_join(dir, "run");
	CHECK(routes_load(&rs, rp, &e) == 0);
	struct cost_calls c;
	cost_calls_load(&c, run, &rs);
	const struct cost_family *f = cost_family_find(&c, "fast-map");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->calls, 3);
		CHECK_INT(f->tokens_sent, 2000);
		CHECK_INT(f->tokens_cached, 800);
		/* (200 * 2 + 800 * 0.5 + 100 * 4) + (1000 * 2 + 100 * 4) per million */
		CHECK(fabs(f->usd - 3.6e-3) < 1e-12);
	}
	cost_calls_free(&c);
	routes_free(&rs);
	free(rp);
	free(run);
	free(dir);
}

int main(void)
{
	RUN(t_escaping);
	RUN(t_intervals);
	RUN(t_line_diff);
	RUN(t_chart);
	RUN(t_cached_cost);
	T_EXIT();
}
