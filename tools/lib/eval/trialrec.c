/* trialrec.c — the small parts that trial.c and the readers (benchflow.c,
 * harbor.c, reader.c) both use (trialrec.h): outcome names, JSON lines,
 * times. Their own file so that trial.c calls the readers and no reader
 * calls back into trial.c. */
#include "eval/trialrec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/fs.h"
#include "base/json.h"

static const char *const outcome_names[TRIAL_OUTCOMES] = {
	"passed", "failed", "timeout", "infra_error", "verifier_error",
};

const char *trial_outcome_name(enum trial_outcome o)
{
	return (unsigned)o < TRIAL_OUTCOMES ? outcome_names[o] : "unknown";
}

int trial_outcome_from(const char *name)
{
	for (int i = 0; name && i < TRIAL_OUTCOMES; i++)
		if (!strcmp(outcome_names[i], name))
			return i;
	return -1;
}

static bool is_timeout_category(const char *cat, const char *error)
{
	if (cat)
		return !strcmp(cat, "timeout") || !strcmp(cat, "idle_timeout");
	/* older results have no category: go by BenchFlow's messages */
	return error && (strcasestr(error, "timed out") || strcasestr(error, "wall-clock") ||
			 strcasestr(error, "idle for"));
}

enum trial_outcome trial_outcome_of(const cJSON *reward, const char *cat, const char *error,
				    bool verifier_error)
{
	if (reward)
		return is_timeout_category(cat, error) ? TRIAL_TIMEOUT
		       : fabs(reward->valuedouble - 1.0) < 1e-9 ? TRIAL_PASSED : TRIAL_FAILED;
	return verifier_error ? TRIAL_VERIFIER_ERROR : TRIAL_INFRA_ERROR;
}

/* ---- small helpers ---- */

long trial_jsonl_each(const char *path, void (*fn)(const cJSON *v, long line, void *arg), void *arg,
		      long *bad_line)
{
	*bad_line = 0;
	struct buf b = BUF_INIT;
	struct err e;
	if (fs_read(path, 0, &b, &e) < 0) {
		buf_free(&b);
		return -1;
	}
	long n = 0, lineno = 0;
	char *p = b.data, *end = b.data + b.len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		size_t i = 0;
		while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
			i++;
		if (i < len) {
			const char *stop = NULL;
			cJSON *v = cJSON_ParseWithLengthOpts(p, len, &stop, 0);
			/* "{...}{..." : two writers, or cut and rejoined */
			if (v && json_after_value(p, len, stop)) {
				cJSON_Delete(v);
				v = NULL;
			}
			if (!v) {
				if (!*bad_line)
					*bad_line = lineno;
			} else {
				if (fn)
					fn(v, lineno, arg);
				cJSON_Delete(v);
				n++;
			}
		}
		p += len + (nl ? 1 : 0);
	}
	buf_free(&b);
	return n;
}

/* Parses "YYYY-MM-DD[ T]HH:MM:SS[.frac]" (any zone suffix ignored). */
static double parse_time(const char *s)
{
	if (!s)
		return NAN;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int y, mo, d, h, mi;
	double sec;
	char sep;
	if (sscanf(s, "%d-%d-%d%c%d:%d:%lf", &y, &mo, &d, &sep, &h, &mi, &sec) != 7 ||
	    (sep != ' ' && sep != 'T'))
		return NAN;
	/* out of range is no time (and 6e34 seconds would overflow the int) */
	if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 24 ||
	    mi < 0 || mi > 59 || !(sec >= 0 && sec < 61))
		return NAN;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	double whole = floor(sec);
	tm.tm_sec = (int)whole;
	return (double)timegm(&tm) + (sec - whole);
}

double trial_seconds_between(const char *from, const char *to)
{
	return parse_time(to) - parse_time(from);
}
