/* skillc-ingest — copies a task's skill set (or, SKILL_SOURCE, a skill or a
 * set from elsewhere) into the run, validated.
 * The task folder is outside input: its name must be safe, it must hold
 * skills under environment/skills/ (skill/source.h) and nothing else, no
 * two of one `name`, no file over the size cap,
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
#include "base/opts.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-ingest --task DIR --out DIR --hash FILE [--report FILE] [--max-file-mb N]\n"
	"                     [--skill-source SRC]\n"
	"\n"
	"Copies every skill under DIR/environment/skills/, the task's skill set, into --out\n"
	"(as --out/<skill-dir>/ each), or with --skill-source the skill folder SRC (SKILL.md\n"
	"at its top) or every skill of the skills root SRC, instead of the task's own;\n"
	"writes the set's tree hash to --hash (only when it changed) and each skill's hash\n"
	"and validator's verdict to --report (JSON). Refuses: unsafe task names, no skill,\n"
	"a stray file beside the skills, two skills of one name, files over\n"
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
			r = fs_copy_new(from, to, (en->mode & 0111) ? 0755 : 0644, true, e);
		}
		free(from);
		free(to);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The validator's verdict (skill_set_open's): a skill no agent could find
 * is refused, one that breaks the spec is taken with a warning. */
static int vet_skill(const struct skill_source *sk, const struct opts *o, struct err *e)
{
	const struct check_report *r = sk->check;
	/* no name and description to read: no agent could find the skill */
	if (r->verdict == CHECK_UNUSABLE || !r->frontmatter_parsed) {
		const char *why = check_first_error(r);
		return err_set(e, ERR_INPUT, "%s", why ? why : "the skill cannot be read");
	}
	if (r->verdict == CHECK_INVALID)
		warnf("warning: skill '%s' breaks the Agent Skills spec: %s (all findings: %s); ingesting it anyway",
		      sk->name, check_first_error(r) ? check_first_error(r) : "?", o->report ? o->report : "skillc-check");
	return 0;
}

/* Copies every skill of the set into o->out as out/<skill>/, whole or not
 * at all, and hashes what was copied: the set as one tree. */
static int publish_copy(const struct skill_set *set, const char *out, hash_hex h, struct err *e)
{
	char *tmp = fs_temp_beside(out);
	if (mkdir(tmp, 0755) < 0) {
		err_set(e, ERR_WORK, "cannot create '%s':", tmp);
		free(tmp);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < set->n; i++) {
		char *dst = path_join(tmp, set->v[i].name);
		rc = copy_tree(set->v[i].dir, dst, &set->v[i].tree,
		               e); /* made durable by fs_publish_tree */
		free(dst);
	}
	if (rc == 0 && hash_tree(tmp, h, e) < 0)
		rc = -1;
	if (rc == 0)
		rc = fs_publish_tree(tmp, out, e);
	if (rc < 0) {
		struct err ignore;
		fs_remove_tree(tmp, &ignore);
	}
	free(tmp);
	return rc;
}

/* One line a skill: what was ingested, how big, its own hash; then the
 * set's hash when there are several. */
static int print_result(const struct skill_set *set, const char *task, const hash_hex h, struct err *e)
{
	for (size_t k = 0; k < set->n; k++) {
		const struct fs_tree *t = &set->v[k].tree;
		off_t bytes = 0;
		size_t files = 0;
		for (size_t i = 0; i < t->n; i++)
			if (S_ISREG(t->v[i].mode)) {
				files++;
				bytes += t->v[i].size;
			}
		hash_hex own;
		if (hash_tree(set->v[k].dir, own, e) < 0)
			return -1;
		printf("skillc-ingest: skill '%s' of task '%s': %zu files, %.1f KB, hash %.12s\n", set->v[k].name, task,
		       files, (double)bytes / 1024.0, own);
	}
	if (set->n > 1)
		printf("skillc-ingest: task '%s': a set of %zu skills, hash %.12s\n", task, set->n, h);
	return 0;
}

/* --report: {"skills": [{"skill": <folder>, "hash": <tree hash>, "check":
 * <the validator's report>}, ...]}, one entry a skill of the set. */
static int write_report(const struct opts *o, const struct skill_set *set, struct err *e)
{
	cJSON *j = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(j, "skills");
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < set->n; i++) {
		hash_hex h;
		char *dir = path_join(o->out, set->v[i].name);
		rc = hash_tree(dir, h, e);
		free(dir);
		cJSON *one = cJSON_CreateObject();
		json_set_str(one, "skill", set->v[i].name);
		json_set_str(one, "hash", rc == 0 ? h : "");
		json_set(one, "check", check_report_json(set->v[i].check));
		cJSON_AddItemToArray(list, one);
	}
	if (rc == 0)
		rc = json_write_if_changed(o->report, j, e);
	cJSON_Delete(j);
	return rc;
}

static int open_set(const struct opts *o, struct skill_set *set, struct err *e)
{
	char *root = o->source ? xstrdup(o->source) : path_join(o->task, "environment/skills");
	int rc = skill_set_open(root, o->source != NULL, o->max_mb, set, e);
	free(root);
	if (rc < 0 && o->source) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		err_set(e, ERR_INPUT, "SKILL_SOURCE: %s", why);
	}
	return rc;
}

static int ingest(const struct opts *o, struct err *e)
{
	char *name = task_name(o->task);
	int rc = -1;
	struct skill_set set = { 0 };
	hash_hex h;
	if (!name_is_safe(name)) {
		err_set(e, ERR_INPUT, "bad task name '%s' (folder '%s'): use letters, digits, '.', '_' and '-', starting with a letter or digit", name, o->task);
		goto out;
	}
	if (!fs_is_dir(o->task)) {
		err_set(e, ERR_INPUT, "task folder '%s' not found", o->task);
		goto out;
	}
	if (open_set(o, &set, e) < 0)
		goto out;
	for (size_t i = 0; i < set.n; i++)
		if (vet_skill(&set.v[i], o, e) < 0)
			goto out;
	if (publish_copy(&set, o->out, h, e) < 0)
		goto out;
	if (o->report && write_report(o, &set, e) < 0)
		goto out;
	if (stamp_write(o->hash, h, e) < 0 || print_result(&set, name, h, e) < 0)
		goto out;
	rc = 0;
out:
	skill_set_free(&set);
	free(name);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { .max_mb = 25 };
	const struct opt rows[] = {
		OPT_STRING("task", &o.task, "DIR", "the task folder (its environment/skills/)"),
		OPT_STRING("out", &o.out, "DIR", "the copy of the skill set"),
		OPT_STRING("hash", &o.hash, "FILE", "the set's tree hash, if it changed"),
		OPT_STRING("report", &o.report, "FILE", "each skill's hash and verdict (JSON)"),
		OPT_WHOLE("max-file-mb", &o.max_mb, 1, 4096, "N", "a file's size cap (25)"),
		OPT_STRING("skill-source", &o.source, "SRC", "a skill or skills root instead"),
		OPT_END,
	};
	log_init(argv[0]);
	opts_std(argc, argv, usage, rows, V_INGEST);
	opts_parse_or_die(rows, argc, argv, 1, NULL);
	if (!o.task || !o.out || !o.hash)
		die(2, "--task, --out and --hash are required (see --help)");
	struct err e = { 0 };
	if (ingest(&o, &e) < 0)
		die_err(&e);
	return 0;
}
