/* skillc-export — runs as one checkable artifact bundle (bundle/bundle.h):
 * what a reader needs of each run, its trials again in Harbor's layout with
 * ATIF trajectories, the summary recomputed from the trial records, the
 * dataset pin and a checksum manifest, packed with the system tar. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/redact.h"
#include "base/versions.h"
#include "bundle/bundle.h"
#include "eval/runner.h"
#include "report/results.h"
#include "report/summary.h"

static const char usage[] =
	"usage: skillc-export --out FILE [--pin FILE] [--env-file FILE] PATH...\n"
	"\n"
	"PATH is a run folder (holding traces/) or a results folder holding runs.\n"
	"Writes FILE (.tar.gz, .tgz or .tar.zst, by its name) holding one folder:\n"
	"runs/<run>/ (manifest, settings, dataset.json, inputs/ with the raw skill and\n"
	"config, artifacts/ with every stage's skill, status/, report.html, charts/,\n"
	"each trial's trial.json and trajectory/), harbor/<run>/<task>--<stage>/ (the\n"
	"same trials as Harbor job folders, trajectories in ATIF), summary.{json,md,csv}\n"
	"recomputed from the trial records, the --pin file as dataset-pin.json, and\n"
	"MANIFEST.xxh128 (every file's XXH3-128). The values of --env-file and of\n"
	"environment variables named like secrets are replaced by ***REDACTED***\n"
	"wherever they occur. skillc-verify FILE checks it.\n"
	"Exit: 0 written, 1 it could not be written, 2 bad input.\n";

/* The bundle's folder name: FILE's name without its extension. */
static char *bundle_name(const char *out)
{
	const char *base = path_base(out);
	size_t n = strlen(base);
	static const char *const exts[] = { ".tar.gz", ".tgz", ".tar.zst" };
	for (size_t i = 0; i < ARRAY_LEN(exts); i++) {
		size_t m = strlen(exts[i]);
		if (n > m && !strcmp(base + n - m, exts[i]))
			return xstrndup(base, n - m);
	}
	return xstrdup(base);
}

/* runs/<name>/ and harbor/<name>/ of one run. */
static int add_run(const char *root, const char *run, struct err *e)
{
	char *dst = xasprintf("%s/runs/%s", root, path_base(run)), *jobs = xasprintf("%s/harbor/%s", root, path_base(run));
	if (fs_exists(dst)) {
		free(dst);
		free(jobs);
		return err_set(e, ERR_INPUT, "two runs named '%s': export them one at a time", path_base(run));
	}
	int rc = bundle_copy_run(run, dst, e) < 0 ? -1 : bundle_harbor_jobs(dst, jobs, e);
	free(dst);
	free(jobs);
	return rc;
}

/* The pin, the summary, the keys out, the manifest. */
static int finish(const char *root, const char *pin, const char *env_file, struct err *e)
{
	char *pp = path_join(root, "dataset-pin.json");
	int rc = pin ? fs_copy_file(pin, pp, 0644, e) : 0;
	free(pp);
	struct strlist extra = STRLIST_INIT, secrets = STRLIST_INIT;
	if (rc == 0 && env_file && fs_exists(env_file))
		rc = runner_env_load(env_file, &extra, e);
	redact_secrets_of_env(&extra, &secrets);
	if (rc == 0)
		rc = redact_tree(root, &secrets, e);
	redact_wipe(&extra);
	redact_wipe(&secrets);
	struct results_table tb;
	if (rc == 0) {
		bundle_table(root, true, false, &tb);
		rc = summary_write(root, &tb, e);
		results_free(&tb);
	}
	return rc < 0 ? -1 : bundle_manifest_write(root, e);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	const char *out = NULL, *pin = NULL, *env_file = NULL;
	const struct opt rows[] = {
		OPT_STRING("out", &out, "FILE", "the bundle to write (.tar.gz, .tgz or .tar.zst)"),
		OPT_STRING("pin", &pin, "FILE", "the dataset pin to include"),
		OPT_STRING("env-file", &env_file, "FILE", "a .env file whose values are kept out"),
		OPT_END,
	};
	opts_std(argc, argv, usage, rows, V_EXPORT);
	struct strlist paths, runs = STRLIST_INIT;
	opts_args_or_die(rows, argc, argv, 1, &paths);
	if (!out || !*out || !bundle_name_ok(out))
		die(2, "say where the bundle goes: --out FILE.tar.gz or FILE.tar.zst (make export OUT=...)");
	if (pin && !fs_exists(pin))
		die(2, "'%s': no such dataset pin: write it with make pin DATASET_PIN=%s", pin, pin);
	for (size_t i = 0; i < paths.n; i++)
		results_find_runs(paths.v[i], 2, &runs);
	if (!runs.n)
		die(2, "no runs under %s: no traces/ folder found (run make eval first)", paths.n ? paths.v[0] : "(nothing given)");
	char *stage = fs_temp_beside(out), *name = bundle_name(out), *root = path_join(stage, name);
	struct err e = { 0, "" };
	int rc = fs_mkdirs(root, &e);
	for (size_t i = 0; rc == 0 && i < runs.n; i++)
		rc = add_run(root, runs.v[i], &e);
	if (rc == 0)
		rc = finish(root, pin, env_file, &e);
	if (rc == 0)
		rc = bundle_pack(root, out, &e);
	struct err ignore;
	fs_remove_tree(stage, &ignore);
	if (rc < 0)
		die_err(&e);
	printf("%s: %zu run%s -> %s\n", log_prog(), runs.n, runs.n == 1 ? "" : "s", out);
	free(root);
	free(name);
	free(stage);
	strlist_free(&paths);
	strlist_free(&runs);
	return 0;
}
