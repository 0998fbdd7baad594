/* skillc-ingest — copies a task's one skill (or, SKILL_SOURCE, a skill from
 * elsewhere) into the run, validated.
 * The task folder is outside input: its name must be safe, it must hold
 * exactly one skill under environment/skills/ (skill/source.h), no file over the size cap,
 * no symlink leaving the skill folder, and a SKILL.md that can be read as a
 * skill. The copy is built beside --out and swapped in whole; the hash
 * stamp is written last and only when the content changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skill/source.h"
#include "skill/validate.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-ingest --task DIR --out DIR --hash FILE [--report FILE] [--max-file-mb N]\n"
	"                     [--skill-source SRC]\n"
	"\n"
	"Copies the one skill under DIR/environment/skills/ into --out (as --out/<skill-dir>/),\n"
	"or with --skill-source the skill folder SRC (SKILL.md at its top) or the one skill\n"
	"of the skills root SRC, instead of the task's own;\n"
	"writes its tree hash to --hash (only when it changed) and the validator's verdict\n"
	"to --report (JSON). Refuses: unsafe task names, no skill or several, files over\n"
	"--max-file-mb (default 25), symlinks that leave the skill folder, special files,\n"
	"SKILL.md that is not a readable skill. A skill that breaks a spec rule is copied\n"
	"with a warning. Exit 0 done, 2 bad input (nothing written).\n";

struct opts {
	const char *task, *out, *hash, *report;
	const char *source; /* --skill-source: instead of the task's environment/skills */
	long max_mb;
};

static char *task_name(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	const char *end = dir + n, *p = end;
	while (p > dir && p[-1] != '/')
		p--;
	return xstrndup(p, (size_t)(end - p));
}

/* Copies the vetted tree; files keep only their executable bit (what the
 * tree hash sees), so the copy is the same on every machine. */
static int copy_tree(const char *src, const char *dst, const struct fs_tree *t, struct err *e)
{
	if (mkdir(dst, 0755) < 0)
		return err_set(e, ERR_WORK, "cannot create '%s':", dst);
	for (size_t i = 0; i < t->n; i++) {
		const struct fs_entry *en = &t->v[i];
		char *from = path_join(src, en->path), *to = path_join(dst, en->path);
		int r = 0;
		if (S_ISDIR(en->mode)) {
			if (mkdir(to, 0755) < 0)
				r = err_set(e, ERR_WORK, "cannot create '%s':", to);
		} else if (S_ISLNK(en->mode)) {
			if (symlink(en->link, to) < 0)
				r = err_set(e, ERR_WORK, "cannot create symlink '%s':", to);
		} else {
			r = fs_copy_file(from, to, (en->mode & 0111) ? 0755 : 0644, e);
		}
		free(from);
		free(to);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The validator's verdict: a skill no agent could find is refused, one
 * that breaks the spec is taken with a warning. */
static int vet_skill(const char *src, const char *skill, const struct opts *o, struct check_report **report,
                     struct err *e)
{
	int verdict = check_skill(src, report);
	/* no name and description to read: no agent could find the skill */
	if (verdict == CHECK_UNUSABLE || !(*report)->frontmatter_parsed) {
		const char *why = check_first_error(*report);
		return err_set(e, ERR_INPUT, "%s", why ? why : "the skill cannot be read");
	}
	if (verdict == CHECK_INVALID)
		warnf("warning: skill '%s' breaks the Agent Skills spec: %s (all findings: %s); ingesting it anyway",
		      skill, check_first_error(*report) ? check_first_error(*report) : "?", o->report ? o->report : "skillc-check");
	return 0;
}

/* Copies the skill folder into o->out as out/<skill>/, whole or not at all,
 * and hashes what was copied. */
static int publish_copy(const char *src, const char *skill, const struct fs_tree *t, const char *out, hash_hex h,
                        struct err *e)
{
	char *tmp = fs_temp_beside(out);
	if (mkdir(tmp, 0755) < 0) {
		err_set(e, ERR_WORK, "cannot create '%s':", tmp);
		free(tmp);
		return -1;
	}
	char *dst = path_join(tmp, skill);
	int rc = copy_tree(src, dst, t, e) < 0 || hash_tree(tmp, h, e) < 0 ? -1 : 0;
	if (rc == 0 && fs_fsync_dir(dst) < 0)
		rc = err_set(e, ERR_WORK, "cannot sync '%s':", dst);
	if (rc == 0)
		rc = fs_publish_dir(tmp, out, e);
	if (rc < 0) {
		struct err ignore;
		fs_remove_tree(tmp, &ignore);
	}
	free(dst);
	free(tmp);
	return rc;
}

/* The one-line result: what was ingested, how big, its hash. */
static void print_result(const char *skill, const char *task, const struct fs_tree *t, const hash_hex h)
{
	off_t bytes = 0;
	size_t files = 0;
	for (size_t i = 0; i < t->n; i++)
		if (S_ISREG(t->v[i].mode)) {
			files++;
			bytes += t->v[i].size;
		}
	printf("skillc-ingest: skill '%s' of task '%s': %zu files, %.1f KB, hash %.12s\n", skill, task, files,
	       (double)bytes / 1024.0, h);
}

static int ingest(const struct opts *o, struct err *e)
{
	char *name = task_name(o->task);
	int rc = -1;
	char *root = NULL;
	struct skill_source sk = { 0 };
	struct check_report *report = NULL;
	hash_hex h;
	if (!name_is_safe(name)) {
		err_set(e, ERR_INPUT, "bad task name '%s' (folder '%s'): use letters, digits, '.', '_' and '-', starting with a letter or digit", name, o->task);
		goto out;
	}
	if (!fs_is_dir(o->task)) {
		err_set(e, ERR_INPUT, "task folder '%s' not found", o->task);
		goto out;
	}
	root = o->source ? xstrdup(o->source) : path_join(o->task, "environment/skills");
	if (skill_source_open(root, o->source != NULL, o->max_mb, &sk, e) < 0) {
		if (o->source) {
			char why[sizeof e->msg];
			snprintf(why, sizeof why, "%s", e->msg);
			err_set(e, ERR_INPUT, "SKILL_SOURCE: %s", why);
		}
		goto out;
	}
	if (vet_skill(sk.dir, sk.name, o, &report, e) < 0 || publish_copy(sk.dir, sk.name, &sk.tree, o->out, h, e) < 0)
		goto out;
	if (o->report) {
		cJSON *j = check_report_json(report);
		int w = json_write_if_changed(o->report, j, e);
		cJSON_Delete(j);
		if (w < 0)
			goto out;
	}
	if (stamp_write(o->hash, h, e) < 0)
		goto out;
	print_result(sk.name, name, &sk.tree, h);
	rc = 0;
out:
	check_report_free(report);
	skill_source_free(&sk);
	free(name);
	free(root);
	return rc;
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	std_options(argc, argv, usage, V_INGEST);
	struct opts o = { .max_mb = 25 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc)
			die(2, "option '%s' needs a value (see --help)", a);
		const char *v = argv[++i];
		if (!strcmp(a, "--task"))
			o.task = v;
		else if (!strcmp(a, "--out"))
			o.out = v;
		else if (!strcmp(a, "--hash"))
			o.hash = v;
		else if (!strcmp(a, "--skill-source"))
			o.source = v;
		else if (!strcmp(a, "--report"))
			o.report = v;
		else if (!strcmp(a, "--max-file-mb"))
			o.max_mb = std_option_long(a, v, 1, 4096); /* MAX_FILE_MB's range */
		else
			die(2, "unknown option '%s' (see --help)", a);
	}
	if (!o.task || !o.out || !o.hash)
		die(2, "--task, --out and --hash are required (see --help)");
	struct err e = { 0 };
	if (ingest(&o, &e) < 0)
		die_err(&e);
	return 0;
}
