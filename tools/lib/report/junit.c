#include "report/junit.h"

#include <math.h>
#include <string.h>

#include "base/fs.h"
#include "report/gate.h"

/* s as XML character data or attribute text: the five specials escaped,
 * control characters XML 1.0 cannot hold replaced by '?'. */
static void esc(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': buf_adds(b, "&amp;"); break;
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&apos;"); break;
		default:
			buf_addc(b, *p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r' ? '?' : (char)*p);
		}
	}
}

enum verdict { V_OK, V_FAILURE, V_ERROR };

static enum verdict verdict_of(const struct results_group *g)
{
	if (!g->scored)
		return V_ERROR;
	return results_regressed(g) ? V_FAILURE : V_OK;
}

/* "static 4/5 = 80.0% [37.6%, 96.4%]; vs raw 1/5 = ...: +60.0 pp [+5.1, +84.2]; 1 infra error excluded" */
static void case_text(const struct results_group *g, struct buf *b)
{
	buf_printf(b, "%s%s ", g->stage, g->scored ? "" : ":");
	gate_rate_text(g, b);
	double d, lo, hi;
	if (g->raw && g->raw != g && gate_delta(g, g->raw, &d, &lo, &hi)) {
		buf_adds(b, "; vs raw ");
		gate_rate_text(g->raw, b);
		buf_printf(b, ": %+.1f pp [%+.1f, %+.1f]", d, lo, hi);
	}
	if (g->scored && (g->infra || g->verr))
		buf_printf(b, "; excluded: %ld infra error%s, %ld verifier error%s", g->infra, g->infra == 1 ? "" : "s",
			   g->verr, g->verr == 1 ? "" : "s");
}

static void testcase(const struct results_group *g, struct buf *b)
{
	struct buf text = BUF_INIT;
	case_text(g, &text);
	buf_adds(b, "    <testcase name=\"");
	esc(b, g->stage);
	buf_adds(b, "\" classname=\"");
	esc(b, g->task);
	buf_printf(b, "\" time=\"%.3f\">\n", g->sec_n ? g->sec_sum : 0.0);
	enum verdict v = verdict_of(g);
	if (v != V_OK) {
		buf_adds(b, v == V_FAILURE ? "      <failure type=\"regression\" message=\"" :
					     "      <error type=\"no-scored-trials\" message=\"");
		esc(b, text.data);
		buf_adds(b, "\">");
		esc(b, v == V_FAILURE ? "the pass rate is below raw's" : "every trial was an infra or verifier error");
		buf_adds(b, v == V_FAILURE ? "</failure>\n" : "</error>\n");
	}
	buf_adds(b, "      <system-out>");
	esc(b, text.data);
	buf_adds(b, "</system-out>\n    </testcase>\n");
	buf_free(&text);
}

static void property(struct buf *b, const char *name, const char *value)
{
	buf_printf(b, "      <property name=\"%s\" value=\"", name);
	esc(b, value);
	buf_adds(b, "\"/>\n");
}

/* One run: the rows v[0..n). */
static void testsuite(const struct results_group *v, size_t n, long id, struct buf *b)
{
	long failures = 0, errors = 0;
	double secs = 0;
	for (size_t i = 0; i < n; i++) {
		failures += verdict_of(&v[i]) == V_FAILURE;
		errors += verdict_of(&v[i]) == V_ERROR;
		secs += v[i].sec_n ? v[i].sec_sum : 0;
	}
	struct buf name = BUF_INIT;
	gate_run_name(&v[0], &name);
	buf_adds(b, "  <testsuite name=\"");
	esc(b, name.data);
	buf_printf(b, "\" tests=\"%zu\" failures=\"%ld\" errors=\"%ld\" skipped=\"0\" time=\"%.3f\" id=\"%ld\">\n", n,
		   failures, errors, secs, id);
	buf_free(&name);
	buf_adds(b, "    <properties>\n");
	property(b, "bench", v[0].bench);
	property(b, "task", v[0].task);
	property(b, "harness", v[0].harness);
	property(b, "model", v[0].model);
	property(b, "runner", v[0].runner);
	buf_adds(b, "    </properties>\n");
	for (size_t i = 0; i < n; i++)
		testcase(&v[i], b);
	buf_adds(b, "  </testsuite>\n");
}

/* The whole document, appended to b. */
static void junit_xml(const struct results_table *tb, struct buf *b)
{
	long failures = 0, errors = 0;
	double secs = 0;
	for (size_t i = 0; i < tb->n; i++) {
		failures += verdict_of(&tb->v[i]) == V_FAILURE;
		errors += verdict_of(&tb->v[i]) == V_ERROR;
		secs += tb->v[i].sec_n ? tb->v[i].sec_sum : 0;
	}
	buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_printf(b, "<testsuites name=\"skillc\" tests=\"%zu\" failures=\"%ld\" errors=\"%ld\" skipped=\"0\" time=\"%.3f\">\n",
		   tb->n, failures, errors, secs);
	long id = 0;
	for (size_t i = 0; i < tb->n;) {
		size_t end = i + 1;
		while (end < tb->n && results_same_cell(&tb->v[i], &tb->v[end]))
			end++;
		testsuite(&tb->v[i], end - i, id++, b);
		i = end;
	}
	buf_adds(b, "</testsuites>\n");
}

int junit_write(const char *path, const struct results_table *tb, struct err *e)
{
	struct buf b = BUF_INIT;
	junit_xml(tb, &b);
	int r = fs_write_if_changed(path, b.data, b.len, e);
	buf_free(&b);
	return r < 0 ? -1 : 0;
}
