/* skillc-verify — checks an artifact bundle of skillc-export: every
 * file against its checksum manifest, summary.json against the summary
 * recomputed from the trial records, and the same summary read back from
 * the bundle's Harbor job folders (trajectories in ATIF). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"
#include "bundle/bundle.h"

static const char usage[] =
	"usage: skillc-verify FILE\n"
	"\n"
	"FILE is a bundle written by skillc-export (make export OUT=FILE): .tar.gz,\n"
	".tgz or .tar.zst. Checks that every file matches MANIFEST.xxh128 (none\n"
	"changed, missing or added), that summary.json is the summary of the trial\n"
	"records under runs/, and that the trials read back from harbor/ (Harbor's\n"
	"layout, ATIF trajectories) give the same summary. Prints one line a problem.\n"
	"Exit: 0 the bundle checks out, 1 it does not, 2 it cannot be read.\n";

/* The first place where a and b differ ("groups[3].passed: 2 vs 3"), or
 * NULL when they are equal. Caller frees. */
static char *first_difference(const cJSON *a, const cJSON *b, const char *where)
{
	if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
		for (const cJSON *x = a->child; x; x = x->next) {
			char *sub = xasprintf("%s%s%s", where, *where ? "." : "", x->string);
			char *d = first_difference(x, json_get(b, x->string), sub);
			free(sub);
			if (d)
				return d;
		}
		return cJSON_GetArraySize(a) == cJSON_GetArraySize(b) ? NULL : xasprintf("%s: other keys", where);
	}
	if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
		if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
			return xasprintf("%s: %d entries vs %d", where, cJSON_GetArraySize(a), cJSON_GetArraySize(b));
		int i = 0;
		for (const cJSON *x = a->child, *y = b->child; x; x = x->next, y = y->next, i++) {
			char *sub = xasprintf("%s[%d]", where, i);
			char *d = first_difference(x, y, sub);
			free(sub);
			if (d)
				return d;
		}
		return NULL;
	}
	struct buf sa = BUF_INIT, sb = BUF_INIT;
	if (a)
		json_canon(a, false, &sa);
	if (b)
		json_canon(b, false, &sb);
	const char *ta = sa.len ? sa.data : "(none)", *tb = sb.len ? sb.data : "(none)";
	char *d = strcmp(ta, tb) ? xasprintf("%s: %s vs %s", where, ta, tb) : NULL;
	buf_free(&sa);
	buf_free(&sb);
	return d;
}

/* What the Harbor copy can say of a summary: its rows and their
 * aggregates, without what comes from the run's own records (its LLM
 * calls, stale and cut-short attempts, the money of the whole run). */
static cJSON *trial_facts(const cJSON *summary)
{
	static const char *const top[] = { "groups", "by_bench", "regressed_rows", "worse_than_noskill_rows" };
	static const char *const drop[] = { "stale_trials", "stale", "incomplete_attempts", "llm_calls", "llm_cost_usd",
					    "llm_cost_unknown_calls", "trials_run_here", "stage_cost_usd",
					    "stage_cost_unknown_items" };
	cJSON *o = cJSON_CreateObject();
	for (size_t i = 0; i < ARRAY_LEN(top); i++)
		if (json_get(summary, top[i]))
			json_set(o, top[i], cJSON_Duplicate(json_get(summary, top[i]), true));
	for (cJSON *g = json_get(o, "groups") ? json_get(o, "groups")->child : NULL; g; g = g->next)
		for (size_t i = 0; i < ARRAY_LEN(drop); i++)
			cJSON_DeleteItemFromObjectCaseSensitive(g, drop[i]);
	return o;
}

/* The one folder the bundle unpacks to. */
static char *bundle_root(const char *tmp)
{
	struct strlist kids = STRLIST_INIT;
	struct err e;
	char *root = NULL;
	if (fs_list_names(tmp, &kids, &e) == 0 && kids.n == 1)
		root = path_join(tmp, kids.v[0]);
	strlist_free(&kids);
	return root;
}

/* summary.json against the trial records and the Harbor copy: problems. */
static long check_summary(const char *file, const char *root)
{
	char *sp = path_join(root, "summary.json");
	struct err e;
	cJSON *stored = json_read_file(sp, &e);
	free(sp);
	if (!stored) {
		printf("%s: summary.json: %s\n", file, e.msg);
		return 1;
	}
	long bad = 0;
	static const char *const what[] = { "the trial records under runs/", "the Harbor job folders under harbor/" };
	for (int k = 0; k < 2; k++) {
		cJSON *again = bundle_summary(root, k == 0, k == 1);
		cJSON *want = k ? trial_facts(stored) : cJSON_Duplicate(stored, true), *got = k ? trial_facts(again) : again;
		char *d = first_difference(want, got, "");
		cJSON_Delete(want);
		if (k)
			cJSON_Delete(got);
		if (d)
			printf("%s: summary.json does not follow from %s: %s\n", file, what[k], d), bad++;
		free(d);
		cJSON_Delete(again);
	}
	cJSON_Delete(stored);
	return bad;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	static const struct opt none[] = { OPT_END };
	opts_std(argc, argv, usage, none, V_VERIFY);
	struct strlist args;
	opts_args_or_die(none, argc, argv, 1, &args);
	if (args.n != 1)
		die(2, "give one bundle file (see --help)");
	const char *file = args.v[0];
	if (!fs_exists(file) || !bundle_name_ok(file))
		die(2, "'%s' is not a bundle (a .tar.gz or .tar.zst that make export wrote)", file);
	const char *tdir = getenv("TMPDIR");
	char *tmp = xasprintf("%s/skillc-verify.XXXXXX", tdir && *tdir ? tdir : "/tmp");
	if (!mkdtemp(tmp))
		die(1, "cannot make a temporary folder '%s': %m", tmp);
	struct err e = { 0, "" };
	char *root = NULL;
	int rc = bundle_unpack(file, tmp, &e) < 0 ? 2 : (root = bundle_root(tmp)) ? 0 : 2;
	if (rc == 0) {
		struct strlist bad = STRLIST_INIT;
		if (bundle_manifest_check(root, &bad, &e) < 0)
			rc = 2;
		for (size_t i = 0; i < bad.n; i++)
			printf("%s: %s\n", file, bad.v[i]);
		/* a changed file is named; the summary is judged on files that check out */
		rc = rc ? rc : bad.n ? 1 : check_summary(file, root) ? 1 : 0;
		strlist_free(&bad);
	} else if (!e.msg[0]) {
		err_set(&e, ERR_INPUT, "'%s' does not hold one bundle folder", file);
	}
	struct err ignore;
	fs_remove_tree(tmp, &ignore);
	free(tmp);
	free(root);
	if (rc == 2)
		die(2, "%s: %s", file, e.msg);
	if (rc == 0)
		printf("%s: %s checks out: every file matches its checksum, and the summary follows from the trial "
		       "records and from the Harbor copy\n", log_prog(), file);
	strlist_free(&args);
	return rc;
}
