#include "eval/job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/log.h"
#include "base/toml.h"
#include "eval/trial.h"
#include "eval/store.h"

/* The value of a "name:" line of the frontmatter, or NULL. */
static char *frontmatter_name(const char *text)
{
	if (strncmp(text, "---\n", 4) && strncmp(text, "---\r\n", 5))
		return NULL;
	for (const char *line = strchr(text, '\n') + 1; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len >= 3 && !strncmp(line, "---", 3))
			break;
		if (!strncmp(line, "name:", 5)) {
			const char *v = line + 5;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t n = (size_t)(line + len - v);
			while (n && (v[n - 1] == '\r' || v[n - 1] == ' '))
				n--;
			if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
				v++;
				n -= 2;
			}
			return xstrndup(v, n);
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* The name: field of SKILL.md's frontmatter, else the folder's name. */
static char *skill_name(const char *dir, struct err *e)
{
	char *md = path_join(dir, "SKILL.md");
	struct buf b = BUF_INIT;
	if (fs_read_limited(md, &b, e) < 0) {
		if (!fs_exists(md))
			err_set(e, ERR_INPUT, "skill folder '%s' has no SKILL.md: pass the folder holding SKILL.md", dir);
		free(md);
		buf_free(&b);
		return NULL;
	}
	free(md);
	char *name = frontmatter_name(b.data);
	buf_free(&b);
	if (!name) {
		char *a = fs_real_path(dir);
		name = xstrdup(path_base(a));
		free(a);
	}
	if (!name_is_safe(name)) {
		err_set(e, ERR_INPUT, "skill in '%s' has a bad name '%s': use letters, digits, '.', '_' and '-'", dir, name);
		free(name);
		return NULL;
	}
	return name;
}

int eval_add_skills_root(struct strlist *skills, const char *root, struct err *e)
{
	struct strlist names = STRLIST_INIT;
	if (fs_list_names(root, &names, e) < 0)
		return err_set(e, ERR_INPUT, "skills root '%s' cannot be read:", root);
	size_t before = skills->n;
	for (size_t i = 0; i < names.n; i++) {
		char *md = xasprintf("%s/%s/SKILL.md", root, names.v[i]);
		if (fs_exists(md))
			strlist_push_owned(skills, path_join(root, names.v[i]));
		free(md);
	}
	strlist_free(&names);
	if (skills->n == before)
		return err_set(e, ERR_INPUT, "skills root '%s' holds no skill folder (a folder with SKILL.md)", root);
	return 0;
}

/* traces/<task>/<stage>/test-NNN -> <run>/.incomplete; else <parent>/.incomplete */
static char *default_incomplete(const char *out_abs)
{
	char *stage = path_dir(out_abs), *task = path_dir(stage), *traces = path_dir(task);
	char *run = path_dir(traces);
	char *r = path_join(!strcmp(path_base(traces), "traces") ? run : stage, ".incomplete");
	free(stage);
	free(task);
	free(traces);
	free(run);
	return r;
}

void eval_job_set_who(const struct eval_job *j, cJSON *o)
{
	json_set_str(o, "task", j->task);
	json_set_str(o, "task_hash", j->task_hash);
	json_set_str(o, "skill_hash", j->skill_hash);
	json_set_str(o, "harness", j->o->harness);
	json_set_str(o, "model", j->o->model);
	json_set_str(o, "runner", j->o->runner);
}

static cJSON *make_identity(const struct eval_job *j)
{
	cJSON *id = cJSON_CreateObject();
	json_set_num(id, "format", TRIAL_FORMAT);
	eval_job_set_who(j, id);
	cJSON *set = cJSON_CreateObject();
	json_set_str(set, "sandbox", j->o->sandbox);
	if (j->o->image) /* its tag is its content key: a rebuilt image of the same content is the same */
		json_set_str(set, "image", j->o->image);
	if (j->o->agent_timeout > 0)
		json_set_num(set, "agent_timeout", j->o->agent_timeout);
	else
		json_set(set, "agent_timeout", cJSON_CreateNull());
	json_set(id, "settings", set);
	json_set_num(id, "index", (double)j->o->index);
	if (j->o->split)
		json_set_str(id, "split", j->o->split);
	return id;
}

/* What every runner hands the agent and reads itself, checked before a
 * trial is paid for: instruction.md (a non-empty file) and task.toml (a
 * file that parses), each under MAX_FILE_MB. */
static int check_task_files(const char *task, struct err *e)
{
	static const char *const names[] = { "instruction.md", "task.toml" };
	long mb = fs_max_file_mb();
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < ARRAY_LEN(names); i++) {
		char *p = path_join(task, names[i]);
		struct stat st;
		if (stat(p, &st) < 0)
			rc = err_set(e, ERR_INPUT, "task folder '%s' has no %s: every runner needs it; add it", task, names[i]);
		else if (!S_ISREG(st.st_mode))
			rc = err_set(e, ERR_INPUT, "'%s' is not a regular file: the task's %s must be one", p, names[i]);
		else if (st.st_size > (off_t)mb << 20)
			rc = err_set(e, ERR_INPUT, "'%s' is %.1f MB, over MAX_FILE_MB (%ld MB): make it smaller or raise MAX_FILE_MB",
				     p, (double)st.st_size / (1024.0 * 1024.0), mb);
		else if (i == 0 && st.st_size == 0)
			rc = err_set(e, ERR_INPUT, "'%s' is empty: the agent would get no instruction; write the task's instruction in it", p);
		else if (i == 1) {
			cJSON *t = toml_read_file(p, e);
			rc = t ? 0 : -1;
			cJSON_Delete(t);
		}
		free(p);
	}
	return rc;
}

/* The task's name, the trial folder and where its failures go. */
static int resolve_folders(struct eval_job *j, struct eval_opts *o, struct err *e)
{
	if (!fs_is_dir(o->task))
		return err_set(e, ERR_INPUT, "task folder '%s' does not exist", o->task);
	char *test_sh = path_join(o->task, "tests/test.sh");
	bool has_tests = fs_exists(test_sh);
	free(test_sh);
	if (!has_tests)
		return err_set(e, ERR_INPUT, "task folder '%s' has no tests/test.sh: not a Harbor/SkillsBench task "
			       "(needs task.toml, instruction.md, environment/, tests/test.sh)", o->task);
	if (check_task_files(o->task, e) < 0)
		return -1;
	j->task_dir = fs_real_path(o->task);
	j->task = xstrdup(path_base(j->task_dir));
	if (!name_is_safe(j->task))
		return err_set(e, ERR_INPUT, "bad task name '%s': use letters, digits, '.', '_' and '-'", j->task);

	j->out = fs_real_path(o->out);
	j->test = xstrdup(path_base(j->out));
	if (!name_is_safe(j->test))
		return err_set(e, ERR_INPUT, "bad trial folder name '%s'", j->test);
	if (!o->index) {
		o->index = trial_index(j->test);
		if (o->index < 1 || o->index > 100000)
			return err_set(e, ERR_INPUT, "--out '%s' is not named test-NNN "
			               "(NNN from 1 to 100000): pass --index", o->out);
	}
	char *parent = path_dir(j->out);
	j->stage = xstrdup(o->stage ? o->stage : path_base(parent));
	int r = 0;
	if (!name_is_safe(j->stage))
		r = err_set(e, ERR_INPUT, "bad stage name '%s'", j->stage);
	else if (fs_mkdirs(parent, e) < 0)
		r = -1;
	free(parent);
	if (r < 0)
		return -1;
	j->incomplete = o->incomplete ? fs_real_path(o->incomplete) : default_incomplete(j->out);
	/* in a matrix (skillc-rules sets SKILLC_MATRIX) runs differ by harness
	 * and model too: the line names them, or two runs' lines read alike */
	const char *m = getenv("SKILLC_MATRIX");
	char who[160] = "";
	if (m && *m)
		snprintf(who, sizeof who, " %s %s", o->harness, o->model);
	if (o->of)
		snprintf(j->prefix, sizeof j->prefix, "[%ld/%ld] %s%s %s %s", o->index, o->of, j->task, who, j->stage, j->test);
	else
		snprintf(j->prefix, sizeof j->prefix, "[%ld] %s%s %s %s", o->index, j->task, who, j->stage, j->test);
	return 0;
}

/* The tree hash of the one skill, of {name: hash} for several, or "no-skill". */
static int hash_skills(struct eval_job *j, struct err *e)
{
	const struct eval_opts *o = j->o;
	if (o->no_skill) {
		snprintf(j->skill_hash, sizeof j->skill_hash, "no-skill");
		return 0;
	}
	if (o->skills.n == 1)
		return hash_tree(o->skills.v[0], j->skill_hash, e);
	cJSON *m = cJSON_CreateObject();
	for (size_t i = 0; i < o->skills.n; i++) {
		hash_hex h;
		if (hash_tree(o->skills.v[i], h, e) < 0) {
			cJSON_Delete(m);
			return -1;
		}
		json_set_str(m, j->skill_names.v[i], h);
	}
	json_hash(m, j->skill_hash);
	cJSON_Delete(m);
	return 0;
}

int eval_job_setup(struct eval_job *j, struct eval_opts *o, struct err *e)
{
	memset(j, 0, sizeof *j);
	j->o = o;
	j->start = now_mono();
	if (resolve_folders(j, o, e) < 0)
		return -1;
	for (size_t i = 0; i < o->skills.n; i++) {
		char *n = skill_name(o->skills.v[i], e);
		if (!n)
			return -1;
		strlist_push_owned(&j->skill_names, n);
	}
	j->rules_dir = harness_rules_dir(o->rules, e);
	if (!j->rules_dir)
		return -1;
	if (harness_load(&j->h, j->rules_dir, o->harness, &j->skill_names, e) < 0)
		return -1;
	if (hash_tree(j->task_dir, j->task_hash, e) < 0 || hash_skills(j, e) < 0)
		return -1;
	j->identity = make_identity(j);
	trialstore_key(j->identity, j->key);
	return 0;
}

void eval_job_free(struct eval_job *j)
{
	cJSON_Delete(j->identity);
	harness_free(&j->h);
	strlist_free(&j->skill_names);
	free(j->task_dir);
	free(j->task);
	free(j->out);
	free(j->stage);
	free(j->test);
	free(j->incomplete);
	free(j->rules_dir);
	memset(j, 0, sizeof *j);
}

double eval_deadline(const struct eval_opts *o)
{
	return o->deadline > 0 ? o->deadline : o->agent_timeout > 0 ? 2 * o->agent_timeout + 900 : 14400;
}

void eval_progress(const struct eval_job *j, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	progressf("%s %s", j->prefix, b.data);
	buf_free(&b);
}
