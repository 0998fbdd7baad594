#include "pipeline/rules.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/versions.h"
#include "pipeline/stages.h"
#include "pipeline/state.h"

void rules_memo_free(struct rules_memo *m)
{
	strmap_free(&m->index);
	free(m->hashes);
	memset(m, 0, sizeof *m);
}

static int is_file_output(const char *o)
{
	size_t n = strlen(o);
	return n > 5 && (!strcmp(o + n - 5, ".hash") || !strcmp(o + n - 5, ".json") || !strcmp(o + n - 3, ".id"));
}

static rules_output_check *output_check;

void rules_set_output_check(rules_output_check *fn)
{
	output_check = fn;
}

/* Paths are written out in full: every run's rules.mk is read by one make. */
static void emit_target(struct buf *mk, const struct run *r, const struct stage_ref *ref)
{
	const struct stage_def *s = ref->def;
	const char *R = r->dir;
	if (ref->index <= 1)
		buf_printf(mk, "\n# %s: %s\n", s->name, s->help);
	struct strlist in = STRLIST_INIT, out = STRLIST_INIT;
	stage_ref_inputs(ref, r, &in);
	stage_ref_outputs(ref, r, &out);
	buf_printf(mk, "%s/status/%s.ok:", R, ref->name);
	for (size_t i = 0; i < in.n; i++)
		buf_printf(mk, " %s/%s", R, in.v[i]);
	buf_printf(mk, " %s/inputs/config/%s.json\n", R, s->name);
	/* no "+": make -n must never start a stage (a trial costs money) */
	buf_printf(mk, "\t@$(SKILLC_STAGE) run %s %s\n", R, ref->name);
	/* the files other stages read are made by this target's stamp */
	int any = 0;
	for (size_t i = 0; i < out.n; i++)
		if (is_file_output(out.v[i])) {
			buf_printf(mk, "%s%s/%s", any ? " " : "", R, out.v[i]);
			any = 1;
		}
	if (any)
		buf_printf(mk, ": %s/status/%s.ok ;\n", R, ref->name);
	strlist_free(&in);
	strlist_free(&out);
}

void rules_goal_targets(const struct run *r, const char *goal, struct buf *out)
{
	const struct stage_group *grp = stage_group_find(goal); /* a group: its last stage's */
	const struct stage_def *own = stage_find(grp ? grp->last : goal);
	struct stage_ref *refs = NULL;
	int n = own ? (int)stage_refs(r, &refs) : goal_refs(r, goal, &refs);
	for (int i = 0; i < n; i++)
		if (!own || refs[i].def == own)
			buf_printf(out, " %s/status/%s.ok", r->dir, refs[i].name);
	free(refs);
}

void rules_emit_goals(const struct run *r, const struct strlist *goals, struct buf *mk)
{
	struct strmap want = STRMAP_INIT; /* the targets some goal needs */
	for (size_t g = 0; g < goals->n; g++) {
		struct stage_ref *need;
		int n = goal_refs(r, goals->v[g], &need);
		for (int i = 0; i < n; i++)
			strmap_put(&want, need[i].name, NULL);
		free(need);
	}
	struct stage_ref *refs;
	size_t n = stage_refs(r, &refs);
	for (size_t i = 0; i < n; i++)
		if (strmap_get(&want, refs[i].name))
			emit_target(mk, r, &refs[i]);
	free(refs);
	strmap_free(&want);
}

static void add_list(struct buf *b, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n && v[i]; i++) {
		buf_adds(b, v[i]);
		buf_addc(b, ' ');
	}
	buf_addc(b, '\n');
}

/* What rules.mk and the config files are made from: the run's folder, task
 * and settings, the stage table and the tools' versions. Equal keys, equal
 * files: a no-op make writes and compares none of them. */
static void rules_key(const struct run *r, hash_hex out)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, V_RULES "\n");
	buf_adds(&b, r->dir);
	buf_addc(&b, '\n');
	buf_adds(&b, r->task_dir);
	buf_addc(&b, '\n');
	for (size_t i = 0; i < settings_count; i++) {
		if (settings_table[i].scope == SCOPE_CALL)
			continue; /* a cache mode or a key file shapes no rule */
		buf_adds(&b, settings_table[i].name);
		buf_addc(&b, '=');
		buf_adds(&b, run_get(r, settings_table[i].name));
		buf_addc(&b, '\n');
	}
	for (size_t i = 0; i < stage_count; i++) {
		const struct stage_def *s = &stage_table[i];
		const char *one[] = { s->name, s->tool, s->version, s->repeat ? s->repeat : "-", s->gather ? s->gather : "-",
		                      s->timeout ? s->timeout : "-" };
		add_list(&b, one, ARRAY_LEN(one));
		add_list(&b, s->after, ARRAY_LEN(s->after));
		add_list(&b, s->inputs, ARRAY_LEN(s->inputs));
		add_list(&b, s->outputs, ARRAY_LEN(s->outputs));
		add_list(&b, s->settings, ARRAY_LEN(s->settings));
	}
	hash_bytes(b.data, b.len, out);
	buf_free(&b);
}

/* The key the run's rules.mk was written for, from its second line. */
static int written_key(const struct run *r, hash_hex out)
{
	char *p = run_path(r, "rules.mk");
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	if (fd < 0)
		return -1;
	char head[512];
	ssize_t n = read(fd, head, sizeof head - 1);
	close(fd);
	head[n > 0 ? n : 0] = '\0';
	static const char tag[] = "\n# key ";
	const char *k = strstr(head, tag);
	if (!k || strlen(k + sizeof tag - 1) < 32)
		return -1;
	memcpy(out, k + sizeof tag - 1, 32);
	out[32] = '\0';
	return 0;
}

/* The last line of every rules.mk: one without it was not written whole by
 * this tool (garbage, an edit, a cut-short copy) and is written again. */
#define RULES_TRAILER "# rules.mk ends here (skillc-rules)\n"

/* Whether the run's rules.mk ends with the trailer (absent: false). */
static int written_whole(const struct run *r)
{
	char *p = run_path(r, "rules.mk");
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	if (fd < 0)
		return 0;
	char tail[sizeof RULES_TRAILER];
	size_t n = sizeof RULES_TRAILER - 1;
	struct stat st;
	int whole = fstat(fd, &st) == 0 && st.st_size >= (off_t)n &&
	            pread(fd, tail, n, st.st_size - (off_t)n) == (ssize_t)n && !memcmp(tail, RULES_TRAILER, n);
	close(fd);
	return whole;
}

/* Every config file the rules name is there (a user may have removed one);
 * config: the names in inputs/config/. */
static int configs_present(const struct strmap *config)
{
	int all = 1;
	for (size_t i = 0; all && i < stage_count; i++) {
		char *name = xasprintf("%s.json", stage_table[i].name);
		all = strmap_get(config, name) != NULL;
		free(name);
	}
	return all;
}

static void emit_rules(struct buf *mk, const struct run *r, const hash_hex key)
{
	buf_printf(mk, "# rules.mk — written by skillc-rules %s for this run; do not edit.\n", V_RULES);
	buf_printf(mk, "# key %s\n", key);
	struct stage_ref *refs;
	size_t n = stage_refs(r, &refs);
	for (size_t i = 0; i < n; i++)
		emit_target(mk, r, &refs[i]);
	free(refs);
	buf_adds(mk, RULES_TRAILER);
}

int inflight_mark(const char *run, const char *target, struct err *e)
{
	char *dir = path_join(run, ".inflight"), *p = path_join(dir, target);
	int rc = 0, fd = -1;
	/* a stage ending at the same time removes the folder once it is empty
	 * (inflight_clear): between our mkdir and open it may be gone again */
	for (int tries = 0; rc == 0 && fd < 0; tries++) {
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			rc = err_set(e, ERR_WORK, "cannot create '%s':", dir);
		else if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0 &&
			 (errno != ENOENT || tries == 100))
			rc = err_set(e, ERR_WORK, "cannot create '%s':", p);
	}
	if (fd >= 0)
		close(fd);
	free(p);
	free(dir);
	return rc;
}

void inflight_clear(const char *run, const char *target)
{
	char *dir = path_join(run, ".inflight"), *p = path_join(dir, target);
	unlink(p);
	rmdir(dir); /* the last one out; fails while others run */
	free(p);
	free(dir);
}

/* Every name in dir but . and .. (hidden ones too). */
static void list_all(const char *dir, struct strlist *out)
{
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strlist_push(out, de->d_name);
	if (d)
		closedir(d);
}

/* The names in the run's folder rel (one level), for lookups by name. */
static void names_in(const struct run *r, const char *rel, struct strmap *m)
{
	char *dir = run_path(r, rel);
	struct strlist v = STRLIST_INIT;
	list_all(dir, &v);
	for (size_t i = 0; i < v.n; i++)
		strmap_put(m, v.v[i], NULL);
	strlist_free(&v);
	free(dir);
}

/* The temp files a killed `make report` left (report.html, index.html,
 * the charts of the run and of RESULTS), whose writer is gone. */
static void remove_report_temps(const struct run *r)
{
	const char *results = run_get(r, "RESULTS");
	char *dirs[] = { path_join(r->dir, "charts"), xstrdup(results ? results : r->dir),
			 path_join(results ? results : r->dir, "charts") };
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		struct strlist names = STRLIST_INIT;
		list_all(dirs[i], &names);
		for (size_t k = 0; k < names.n; k++) {
			const char *name = names.v[k];
			if (!fs_is_temp_name(name) || !fs_temp_orphaned(name) ||
			    (!strstr(name, ".html.tmp.") && !strstr(name, ".svg.tmp.")))
				continue;
			char *p = path_join(dirs[i], name);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
				unlink(p);
			free(p);
		}
		strlist_free(&names);
		free(dirs[i]);
	}
}

/* Temp files of the run's own bookkeeping (status, manifest, config,
 * rules.mk) left by a kill -9 hold nothing worth keeping: remove them,
 * those whose writer is gone (a kill before any stage began), and after a
 * stage was cut short (its marker is left in .inflight/) all of them.
 * Temps beside a stage's outputs are that stage's to sweep into
 * .incomplete/. One folder level each, never the whole run. */
static void remove_bookkeeping_temps(const struct run *r)
{
	char *inflight = path_join(r->dir, ".inflight");
	int cut_short = rmdir(inflight) < 0 && errno != ENOENT;
	static const char *const dirs[] = { "", "status", "inputs/config", "inputs", "inputs/pool",
		                            ".inflight" };
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		int all = !strcmp(dirs[i], ".inflight");
		if (all && !cut_short)
			continue;
		char *dir = *dirs[i] ? run_path(r, dirs[i]) : xstrdup(r->dir);
		struct strlist names = STRLIST_INIT;
		list_all(dir, &names);
		for (size_t k = 0; k < names.n; k++) {
			const char *name = names.v[k];
			if (!all && !(fs_is_temp_name(name) && (cut_short || fs_temp_orphaned(name))))
				continue;
			/* in inputs/ (and inputs/pool/) only the files this tool writes */
			const char *d = dirs[i];
			bool mine = strncmp(d, "inputs", 6) || !strcmp(d, "inputs/config") ||
			            !strncmp(name, ".config.", 8) ||
			            strstr(name, ".src.hash.tmp.") ||
			            strstr(name, ".src.cache.tmp.");
			if (!mine)
				continue;
			char *p = path_join(dir, name);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
				unlink(p);
			free(p);
		}
		strlist_free(&names);
		free(dir);
	}
	if (cut_short)
		rmdir(inflight);
	free(inflight);
	remove_report_temps(r);
}

/* An output edited by hand since its target published it is set aside in
 * .incomplete/modified/ (kept, never read into a figure), so the target
 * makes it again (a paid trial comes back from the store). Returns the
 * reason for the line, or NULL. */
static char *set_aside_edit(const struct run *r, const struct stage_ref *ref, const char *ok)
{
	cJSON *st = state_read(r->dir, ref->name);
	char *aside = NULL;
	char *rel = state_output_edited(r, ref, st, ok, &aside);
	cJSON_Delete(st);
	if (!rel)
		return NULL;
	char *path = run_path(r, aside), *dir = run_path(r, ".incomplete/modified");
	char *name = xstrdup(aside);
	for (char *c = name; *c; c++)
		if (*c == '/')
			*c = '_';
	struct err e;
	char *went = fs_move_aside_as(path, dir, name, &e);
	char *why = went ? xasprintf("modified by hand: %s (set aside in %s)", rel, went + strlen(r->dir) + 1)
			 : xasprintf("modified by hand: %s (cannot be set aside: %s)", rel, e.msg);
	free(went);
	free(name);
	free(dir);
	free(path);
	free(aside);
	free(rel);
	return why;
}

/* A rebuildable target's output torn by a machine crash since it ran. */
static char *torn_after_restart(const struct run *r, const struct stage_ref *ref)
{
	if (!ref->def->rebuildable)
		return NULL;
	cJSON *st = state_read(r->dir, ref->name);
	char *why = state_output_torn(r, ref, st);
	cJSON_Delete(st);
	return why;
}

/* A target whose stamp says done but whose output is gone, corrupt or
 * edited by hand must run again: its stamp goes, and the line says why.
 * status: the names in status/ (one listing, not a look for each target's
 * stamp). */
static int guard_outputs(const struct run *r, const struct strmap *status, struct err *e)
{
	struct stage_ref *refs;
	size_t n = stage_refs(r, &refs);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *ok = state_ok_path(r->dir, refs[i].name);
		if (strmap_get(status, path_base(ok))) {
			struct strlist out = STRLIST_INIT;
			stage_ref_outputs(&refs[i], r, &out);
			for (size_t k = 0; k < out.n; k++) {
				char *p = run_path(r, out.v[k]);
				char *why = state_output_problem(p, ok);
				if (!why && output_check)
					why = output_check(r, refs[i].def->tool, p);
				free(p);
				if (why) {
					warnf("%s: output %s %s; the stage will run again", refs[i].name, out.v[k], why);
					free(why);
					if (unlink(ok) < 0 && errno != ENOENT)
						rc = err_set(e, ERR_WORK, "cannot remove '%s':", ok);
					break;
				}
			}
			strlist_free(&out);
			char *why = fs_exists(ok) ? torn_after_restart(r, &refs[i]) : NULL;
			if (!why && fs_exists(ok))
				why = set_aside_edit(r, &refs[i], ok);
			if (why) {
				warnf("%s: %s; the stage will run again", refs[i].name, why);
				free(why);
				if (unlink(ok) < 0 && errno != ENOENT)
					rc = err_set(e, ERR_WORK, "cannot remove '%s':", ok);
			}
		}
		free(ok);
	}
	free(refs);
	return rc;
}

/* The source's hash, once per path in this process. */
static int memo_hash(const struct run *r, const struct source_at *src, struct rules_memo *m,
                     hash_hex h, struct err *e)
{
	char *path = source_path(r, src);
	char *key = xasprintf("%s\n%s", path, src->def->what);
	free(path);
	const size_t *slot = strmap_get(&m->index, key);
	if (slot) {
		memcpy(h, m->hashes[*slot], sizeof m->hashes[0]);
		free(key);
		return 0;
	}
	if (source_hash(r, src, true, h, e) < 0) {
		free(key);
		return -1;
	}
	if ((m->n & (m->n - 1)) == 0) /* grows at 1, 2, 4, ...: linear in all */
		m->hashes = xrealloc(m->hashes, (m->n ? 2 * m->n : 1) * sizeof *m->hashes);
	memcpy(m->hashes[m->n], h, sizeof m->hashes[0]);
	*strmap_put(&m->index, key, NULL) = m->n++;
	free(key);
	return 0;
}

static int write_sources(const struct run *r, struct rules_memo *memo, struct err *e)
{
	struct source_at *src;
	size_t n = run_sources(r, &src);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		hash_hex h;
		char *rel = source_stamp(r, &src[i]), *p = run_path(r, rel);
		/* a pooled task's stamps are in inputs/pool/ */
		rc = fs_mkdirs_parent(p, e) < 0 || memo_hash(r, &src[i], memo, h, e) < 0 ||
		     stamp_write(p, h, e) < 0 ? -1 : 0;
		free(p);
		free(rel);
	}
	free(src);
	return rc;
}

static int write_config(const struct run *r, struct err *e)
{
	cJSON *cfg = run_config(r);
	char *p = run_path(r, "inputs/config.json");
	int bad = json_write_if_changed(p, cfg, e) < 0;
	free(p);
	hash_hex h;
	json_hash(cfg, h);
	cJSON_Delete(cfg);
	p = run_path(r, "inputs/config.hash");
	bad = bad || stamp_write(p, h, e) < 0;
	free(p);
	for (size_t i = 0; !bad && i < stage_count; i++) {
		cJSON *slice = stage_config(&stage_table[i], r);
		char *rel = stage_config_path(&stage_table[i]);
		p = run_path(r, rel);
		bad = json_write_if_changed(p, slice, e) < 0;
		free(p);
		free(rel);
		cJSON_Delete(slice);
	}
	return bad ? -1 : 0;
}

int rules_task_check(const struct run *r, struct err *e)
{
	if (!fs_is_dir(r->task_dir))
		return err_set(e, ERR_INPUT, "task '%s' not found: no folder %s (TASKS_DIR=%s)", r->task, r->task_dir,
		               run_get(r, "TASKS_DIR"));
	return 0;
}

int rules_refresh(const struct run *r, struct rules_memo *memo, struct err *e)
{
	if (rules_task_check(r, e) < 0)
		return -1;
	hash_hex key, was;
	rules_key(r, key);
	struct strmap status = STRMAP_INIT, config = STRMAP_INIT;
	names_in(r, "status", &status);
	names_in(r, "inputs/config", &config);
	int keyed = written_key(r, was) == 0, whole = written_whole(r);
	int current = keyed && whole && !strcmp(key, was) && configs_present(&config);
	strmap_free(&config);
	char *mkp = run_path(r, "rules.mk");
	if (!whole && fs_exists(mkp))
		warnf("%s is not what skillc-rules wrote (corrupt?): writing it again", mkp);
	free(mkp);
	char *dir = run_path(r, "inputs/config");
	int rc = fs_mkdirs(dir, e);
	free(dir);
	/* written if changed at every make: a hand edit of config.json is undone */
	if (rc < 0 || write_sources(r, memo, e) < 0 || write_config(r, e) < 0) {
		strmap_free(&status);
		return -1;
	}
	remove_bookkeeping_temps(r);
	rc = guard_outputs(r, &status, e);
	strmap_free(&status);
	if (rc < 0)
		return -1;
	/* a manifest edited or cut short is rebuilt from status/ by a no-op make too */
	if (current)
		return manifest_rebuild(r, e) < 0 ? -1 : 0;
	struct buf mk = BUF_INIT;
	emit_rules(&mk, r, key);
	char *p = run_path(r, "rules.mk");
	rc = fs_write_if_changed(p, mk.data, mk.len, e);
	free(p);
	buf_free(&mk);
	/* the manifest lists every target due (make watch counts them) */
	if (rc == 1 && manifest_rebuild(r, e) < 0)
		return -1;
	return rc;
}

int make_keeps_going(void)
{
	const char *mf = getenv("MAKEFLAGS");
	if (!mf || *mf == '-')
		return 0;
	return memchr(mf, 'k', strcspn(mf, " ")) != NULL;
}
