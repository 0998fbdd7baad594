/* bundle.c — the artifact bundle (bundle.h). */
#include "bundle/bundle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/proc.h"
#include "eval/atif.h"
#include "eval/harborjob.h"
#include "report/results.h"
#include "report/summary.h"

/* ------------------------------------------------------------ selection */

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* traces/<task>/<stage>/index.json, .../test-NNN/trial.json and
 * .../test-NNN/trajectory/...: the runner's raw/ files and logs stay out. */
static bool trace_kept(const char *rel)
{
	const char *p = rel + strlen("traces/");
	int slashes = 0;
	for (const char *q = p; *q; q++)
		slashes += *q == '/';
	const char *last = strrchr(p, '/');
	if (slashes == 2)
		return !strcmp(last + 1, "index.json");
	if (slashes < 3)
		return false;
	/* <task>/<stage>/<trial>/<after> */
	const char *trial = strchr(strchr(p, '/') + 1, '/') + 1, *after = strchr(trial, '/');
	char *name = xstrndup(trial, (size_t)(after - trial));
	bool is_trial = trial_index(name) > 0;
	free(name);
	return is_trial && (!strcmp(after, "/trial.json") || has_prefix(after, "/trajectory/"));
}

static bool kept(const char *rel)
{
	if (*rel == '.' || strstr(rel, "/."))
		return false; /* .lock, .incomplete/, caches */
	static const char *const files[] = { "manifest.json", "settings.json", "dataset.json", "report.html",
					     "summary.json", "summary.md", "summary.csv" };
	if (str_in(rel, files, ARRAY_LEN(files)))
		return true;
	static const char *const dirs[] = { "inputs/", "artifacts/", "status/", "charts/" };
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++)
		if (has_prefix(rel, dirs[i]))
			return true;
	return has_prefix(rel, "traces/") && trace_kept(rel);
}

static int copy_entry(const char *run, const char *dst, const struct fs_entry *en, struct err *e)
{
	char *from = path_join(run, en->path), *to = path_join(dst, en->path), *dir = path_dir(to);
	int rc = fs_mkdirs(dir, e);
	if (rc == 0 && S_ISDIR(en->mode))
		rc = fs_mkdirs(to, e);
	else if (rc == 0 && S_ISLNK(en->mode) && symlink(en->link, to) < 0)
		rc = err_set(e, ERR_WORK, "cannot make the link '%s':", to);
	else if (rc == 0 && S_ISREG(en->mode))
		rc = fs_copy_file(from, to, en->mode & 0777, e);
	free(dir);
	free(to);
	free(from);
	return rc;
}

int bundle_copy_run(const char *run, const char *dst, struct err *e)
{
	struct fs_tree t = { 0 };
	int rc = fs_list_tree(run, &t, e);
	if (rc == 0)
		rc = fs_mkdirs(dst, e);
	for (size_t i = 0; rc == 0 && i < t.n; i++)
		if (!S_ISDIR(t.v[i].mode) && kept(t.v[i].path))
			rc = copy_entry(run, dst, &t.v[i], e);
	fs_tree_free(&t);
	return rc;
}

/* ------------------------------------------------------- Harbor's layout */

/* One trial folder of a Harbor job: result.json, config.json and the ATIF
 * trajectory (made now for a trial published before trials had one). */
static int harbor_trial(const char *test_dir, const char *job, const char *bench, struct err *e)
{
	char *tp = path_join(test_dir, "trial.json");
	cJSON *t = json_read_file(tp, e);
	free(tp);
	if (!t)
		return -1;
	char *dir = path_join(job, path_base(test_dir)), *agent = path_join(dir, "agent");
	char *ap = path_join(test_dir, ATIF_FILE), *acp = path_join(test_dir, "trajectory/acp_trajectory.jsonl");
	cJSON *atif = fs_exists(ap) ? json_read_file(ap, e) : atif_from_trial(t, acp, e);
	cJSON *res = atif_harbor_result(t, bench), *cfg = cJSON_CreateObject();
	cJSON *ag = json_set(cfg, "agent", cJSON_CreateObject());
	json_set_str(ag, "name", json_str(t, "harness"));
	json_set_str(ag, "model_name", json_str(t, "model"));
	json_set_str(cfg, "trial_name", path_base(test_dir));
	char *rp = path_join(dir, "result.json"), *cp = path_join(dir, "config.json");
	char *trj = path_join(agent, "trajectory.json");
	int rc = !atif || fs_mkdirs(agent, e) < 0 || json_write_file(trj, atif, e) < 0 ||
		 json_write_file(cp, cfg, e) < 0 || json_write_file(rp, res, e) < 0 ? -1 : 0;
	cJSON_Delete(atif);
	cJSON_Delete(res);
	cJSON_Delete(cfg);
	cJSON_Delete(t);
	free(trj);
	free(rp);
	free(cp);
	free(ap);
	free(acp);
	free(agent);
	free(dir);
	return rc;
}

/* The job's result.json: finished, with its totals (Harbor 0.20's keys). */
static int harbor_job_result(const char *job, long n, struct err *e)
{
	cJSON *r = cJSON_CreateObject(), *st = cJSON_CreateObject();
	json_set_str(r, "id", path_base(job));
	json_set_str(r, "started_at", "1970-01-01T00:00:00Z");
	json_set_str(r, "finished_at", "1970-01-01T00:00:00Z"); /* set: the job is done */
	json_set_num(r, "n_total_trials", (double)n);
	json_set_num(st, "n_completed_trials", (double)n);
	json_set(r, "stats", st);
	char *p = path_join(job, "result.json");
	int rc = json_write_file(p, r, e);
	free(p);
	cJSON_Delete(r);
	return rc;
}

/* One results row's counted trials as one job (stale ones stay out: the
 * summary does not count them either). */
static int harbor_group(const struct results_group *g, const char *jobs, struct err *e)
{
	char *name = xasprintf("%s--%s", g->task, g->stage), *job = path_join(jobs, name);
	long n = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < g->nt; i++) {
		if (g->t[i].stale)
			continue;
		rc = fs_mkdirs(job, e) < 0 ? -1 : harbor_trial(g->t[i].dir, job, g->bench, e);
		n++;
	}
	if (rc == 0 && n)
		rc = harbor_job_result(job, n, e);
	free(job);
	free(name);
	return rc;
}

int bundle_harbor_jobs(const char *run, const char *jobs, struct err *e)
{
	struct results_table tb = { 0 };
	results_build_run(&tb, run, NULL);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < tb.n; i++)
		rc = harbor_group(&tb.v[i], jobs, e);
	results_free(&tb);
	return rc;
}

/* ------------------------------------------------------------- summary */

void bundle_table(const char *root, bool runs, bool jobs, struct results_table *tb)
{
	struct strlist rl = STRLIST_INIT, jl = STRLIST_INIT, jobdirs = STRLIST_INIT;
	char *rdir = path_join(root, "runs"), *hdir = path_join(root, "harbor");
	struct err e;
	if (runs && fs_is_dir(rdir))
		results_find_runs(rdir, 1, &rl);
	if (jobs && fs_is_dir(hdir) && fs_list_names(hdir, &jobdirs, &e) == 0) {
		strlist_sort(&jobdirs);
		for (size_t i = 0; i < jobdirs.n; i++) {
			char *d = path_join(hdir, jobdirs.v[i]);
			harbor_jobs_find(d, &jl);
			free(d);
		}
	}
	memset(tb, 0, sizeof *tb);
	results_build(tb, &rl, NULL);
	for (size_t i = 0; i < jl.n; i++) {
		struct harbor_job j;
		struct err je = { 0, "" };
		harbor_job_read(jl.v[i], &j, &je);
		for (const cJSON *t = j.trials ? j.trials->child : NULL; t; t = t->next)
			results_add(tb, t, json_str(t, "dir"), NULL);
		harbor_job_free(&j);
	}
	results_finish(tb);
	strlist_free(&rl);
	strlist_free(&jl);
	strlist_free(&jobdirs);
	free(rdir);
	free(hdir);
}

cJSON *bundle_summary(const char *root, bool runs, bool jobs)
{
	struct results_table tb;
	bundle_table(root, runs, jobs, &tb);
	cJSON *s = summary_json(&tb);
	results_free(&tb);
	return s;
}

/* ------------------------------------------------------------ manifest */

int bundle_manifest_write(const char *root, struct err *e)
{
	struct fs_tree t = { 0 };
	if (fs_list_tree(root, &t, e) < 0)
		return -1;
	struct buf b = BUF_INIT;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < t.n; i++) {
		if (!S_ISREG(t.v[i].mode) || !strcmp(t.v[i].path, BUNDLE_MANIFEST))
			continue;
		char *p = path_join(root, t.v[i].path);
		hash_hex h;
		if ((rc = hash_file(p, h, e)) == 0)
			buf_printf(&b, "%s  %s\n", h, t.v[i].path);
		free(p);
	}
	fs_tree_free(&t);
	char *mp = path_join(root, BUNDLE_MANIFEST);
	if (rc == 0)
		rc = fs_write_atomic(mp, b.data, b.len, 0644, e);
	free(mp);
	buf_free(&b);
	return rc;
}

/* One manifest line: "<32 hex>  <path>"; NULL path when malformed. */
static const char *manifest_line(char *line, char **hex)
{
	*hex = line;
	if (strlen(line) < HASH_HEXLEN + 3 || line[HASH_HEXLEN] != ' ' || line[HASH_HEXLEN + 1] != ' ')
		return NULL;
	line[HASH_HEXLEN] = '\0';
	return hash_is_hex(line) ? line + HASH_HEXLEN + 2 : NULL;
}

/* Each listed file hashed and compared; listed ones are pushed to seen. */
static void check_listed(const char *root, char *text, struct strlist *seen, struct strlist *bad)
{
	long n = 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n++;
		char *hex;
		const char *rel = manifest_line(line, &hex);
		if (!rel) {
			strlist_push_owned(bad, xasprintf("%s line %ld: not \"<hash>  <path>\"", BUNDLE_MANIFEST, n));
			continue;
		}
		strlist_push(seen, rel);
		char *p = path_join(root, rel);
		hash_hex h;
		struct err e;
		if (!fs_exists(p))
			strlist_push_owned(bad, xasprintf("%s: missing (listed in %s)", rel, BUNDLE_MANIFEST));
		else if (hash_file(p, h, &e) < 0 || strcmp(h, hex))
			strlist_push_owned(bad, xasprintf("%s: checksum differs: the file was changed", rel));
		free(p);
	}
}

int bundle_manifest_check(const char *root, struct strlist *bad, struct err *e)
{
	char *mp = path_join(root, BUNDLE_MANIFEST);
	struct buf b = BUF_INIT;
	int rc = fs_read(mp, 64 << 20, &b, e);
	free(mp);
	if (rc < 0)
		return -1;
	struct strlist seen = STRLIST_INIT;
	check_listed(root, b.data, &seen, bad);
	buf_free(&b);
	strlist_sort(&seen);
	struct fs_tree t = { 0 };
	if (fs_list_tree(root, &t, e) < 0) {
		strlist_free(&seen);
		return -1;
	}
	/* both in byte order: one merge walk */
	size_t k = 0;
	for (size_t i = 0; i < t.n; i++) {
		const char *rel = t.v[i].path;
		if (S_ISDIR(t.v[i].mode) || !strcmp(rel, BUNDLE_MANIFEST))
			continue;
		while (k < seen.n && strcmp(seen.v[k], rel) < 0)
			k++;
		if (k >= seen.n || strcmp(seen.v[k], rel))
			strlist_push_owned(bad, xasprintf("%s: not in %s (added to the bundle)", rel, BUNDLE_MANIFEST));
	}
	fs_tree_free(&t);
	strlist_free(&seen);
	return 0;
}

/* ---------------------------------------------------------------- tar */

bool bundle_name_ok(const char *out)
{
	return str_ends_with(out, ".tar.gz") || str_ends_with(out, ".tgz") ||
	       str_ends_with(out, ".tar.zst");
}

static int run_tar(char *const *argv, const char *what, bool zst, struct err *e)
{
	struct buf out = BUF_INIT;
	struct proc_result res = { 0 };
	int rc = proc_capture(argv, 3600, &out, &res, e);
	if (rc == 0 && res.exit_code) {
		char *nl = strchr(out.data, '\n');
		if (nl)
			*nl = '\0';
		rc = err_set(e, ERR_WORK, "tar could not %s (exit %d: %s)%s", what, res.exit_code,
			     out.data,
			     zst ? "; .tar.zst needs zstd (apt-get install -y zstd)" : "");
	}
	buf_free(&out);
	return rc;
}

int bundle_pack(const char *dir, const char *out, struct err *e)
{
	char *parent = path_dir(dir), *tmp = fs_temp_beside(out);
	const char *how = str_ends_with(out, ".zst") ? "--zstd" : "--gzip";
	char *argv[] = { "tar", "-C", parent, (char *)how, "-cf", tmp, (char *)path_base(dir), NULL };
	int rc = run_tar(argv, "pack the bundle", str_ends_with(out, ".zst"), e);
	if (rc == 0 && rename(tmp, out) < 0)
		rc = err_set(e, ERR_WORK, "cannot rename '%s' to '%s':", tmp, out);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	free(parent);
	return rc;
}

int bundle_unpack(const char *file, const char *into, struct err *e)
{
	const char *how = str_ends_with(file, ".zst") ? "--zstd" : "--gzip";
	char *argv[] = { "tar", "-C", (char *)into, (char *)how, "-xf", (char *)file, NULL };
	return run_tar(argv, "unpack the bundle", str_ends_with(file, ".zst"), e);
}
