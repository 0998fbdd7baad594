/* validate.c — reading a skill as skills-ref does and its spec rules: the
 * verdict (checker.h; the warnings are lint.c's). */
#include "skill/validate.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "skill/checker.h"
#include "skill/frontmatter.h"
#include "base/fs.h"
#include "skill/skilldoc.h"
#include "base/strmap.h"
#include "base/unicode.h"

/* ---- the skill being checked ------------------------------------------- */

static void skill_free(struct skill *s)
{
	free(s->dirname);
	buf_free(&s->raw);
	buf_free(&s->text);
	fm_free(s->fm);
	sd_free(s->doc);
}

/* The directory name skills-ref compares: Path(dir).name; "." and ".."
 * (which Path cannot name) are resolved. */
static char *dir_name_of(const char *dir)
{
	char *t = xstrdup(dir);
	size_t n = strlen(t);
	while (n > 1 && t[n - 1] == '/')
		t[--n] = '\0';
	char *slash = strrchr(t, '/');
	char *base = xstrdup(slash ? slash + 1 : t);
	free(t);
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		char real[PATH_MAX];
		if (realpath(dir, real)) {
			slash = strrchr(real, '/');
			free(base);
			base = xstrdup(slash && slash[1] ? slash + 1 : real);
		}
	}
	return base;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcasecmp(s + n - k, suffix) && (n == k || s[n - k - 1] == '/');
}

/* Steps 1-2 of skills-ref: the path, the directory, the file. */
static int locate(struct skill *s)
{
	struct check_report *r = s->r;
	struct stat st;
	if (stat(r->path, &st) < 0) {
		check_error(r, "path-missing", 0, 0, "Path does not exist: %s", r->path);
		return -1;
	}
	if (S_ISREG(st.st_mode) && ends_with_ci(r->path, "skill.md")) {
		char *t = xstrdup(r->path);
		r->dir = xstrdup(dirname(t));
		free(t);
	} else if (!S_ISDIR(st.st_mode)) {
		check_error(r, "not-a-directory", 0, 0, "Not a directory: %s", r->path);
		return -1;
	} else {
		r->dir = xstrdup(r->path);
	}
	s->dirname = dir_name_of(r->dir);
	static const char *const names[] = { "SKILL.md", "skill.md" };
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		char *f = path_join(r->dir, names[i]);
		if (stat(f, &st) == 0) {
			r->file = f;
			if (!S_ISREG(st.st_mode)) {
				check_error(r, "skill-md-unreadable", 0, 0, "%s is not a regular file", names[i]);
				return -1;
			}
			if (i == 1 && s->o->lint)
				check_warn(r, "skill-md-lowercase", 0, 0, "the file is named skill.md; most "
				     "clients only look for SKILL.md: rename it");
			return 0;
		}
		free(f);
	}
	check_error(r, "skill-md-missing", 0, 0, "Missing required file: SKILL.md");
	return -1;
}

/* Reading, UTF-8, newlines. */
static int read_text(struct skill *s)
{
	struct check_report *r = s->r;
	struct err e = { 0, "" };
	const struct skilldoc *given = check_given_doc(s, path_base(r->file));
	if (given) {
		buf_add(&s->raw, given->src, given->len);
		s->doc = sd_share(given);
	} else if (fs_read(r->file, CHECK_FILE_MAX, &s->raw, &e) < 0) {
		check_error(r, "skill-md-unreadable", 0, 0, "cannot read the file: %s", e.msg);
		return -1;
	}
	size_t bad = utf8_check(s->raw.data, s->raw.len);
	if (bad < s->raw.len) {
		const char *ls = bad ? memrchr(s->raw.data, '\n', bad) : NULL;
		ls = ls ? ls + 1 : s->raw.data;
		int line = 1, col = (int)utf8_count(ls, (size_t)(s->raw.data + bad - ls)) + 1;
		for (size_t i = 0; i < bad; i++)
			line += s->raw.data[i] == '\n';
		struct check_finding *f = check_error(r, "not-utf8", line, col, "SKILL.md is not valid UTF-8 "
						"(byte 0x%02X)", (unsigned char)s->raw.data[bad]);
		check_set_fix(f, "save the file as UTF-8");
		return -1;
	}
	/* CRLF and CR to LF: the runs between CRs copied whole */
	buf_grow(&s->text, s->raw.len);
	for (const char *p = s->raw.data, *end = p + s->raw.len; p < end;) {
		const char *cr = memchr(p, '\r', (size_t)(end - p));
		buf_add(&s->text, p, (size_t)((cr ? cr : end) - p));
		if (!cr)
			break;
		buf_addc(&s->text, '\n');
		p = cr + 1 + (cr + 1 < end && cr[1] == '\n');
	}
	if (!s->text.cap)
		buf_add(&s->text, "", 0);
	if (!s->doc)
		s->doc = sd_parse(s->raw.data, s->raw.len);
	return 0;
}

/* Steps 3-4 of skills-ref: the frontmatter delimiters. */
static int split_frontmatter(struct skill *s)
{
	struct check_report *r = s->r;
	if (s->text.len >= 6 && !memcmp(s->text.data, "\xEF\xBB\xBF---", 6)) {
		struct check_finding *f = check_error(r, "frontmatter-missing", 1, 1,
						"SKILL.md must start with YAML frontmatter (---): it starts with "
						"a UTF-8 byte order mark (BOM) before the ---");
		check_set_fix(f, "save the file as UTF-8 without a BOM");
		return -1;
	}
	if (s->text.len < 3 || memcmp(s->text.data, "---", 3)) {
		struct check_finding *f = check_error(r, "frontmatter-missing", 1, 1,
						"SKILL.md must start with YAML frontmatter (---)");
		check_set_fix(f, "start the file with:\n---\nname: %s\ndescription: <what it does and "
			"when to use it>\n---", s->dirname);
		return -1;
	}
	const char *close = memmem(s->text.data + 3, s->text.len - 3, "---", 3);
	if (!close) {
		struct check_finding *f = check_error(r, "frontmatter-unclosed", 1, 1,
						"SKILL.md frontmatter not properly closed with ---");
		check_set_fix(f, "end the frontmatter with a line holding only ---");
		return -1;
	}
	s->close_at = (size_t)(close - s->text.data);
	return 0;
}

/* What skills-ref read-properties gives: the string fields (name and
 * description stripped) and metadata's string values. */
static cJSON *properties(const struct fm_node *fm)
{
	static const char *const keys[] = { "name", "description", "license", "compatibility",
					    "allowed-tools" };
	cJSON *o = cJSON_CreateObject();
	for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
		const struct fm_node *v = fm_get(fm, keys[i]);
		if (!v || v->kind != FM_SCALAR)
			continue;
		const char *p = v->str;
		size_t n = v->len;
		if (i < 2)
			uc_strip(&p, &n);
		char *t = xstrndup(p, n);
		cJSON_AddStringToObject(o, keys[i], t);
		free(t);
	}
	const struct fm_node *md = fm_get(fm, "metadata");
	if (md && md->kind == FM_MAP && md->n) {
		cJSON *m = cJSON_CreateObject();
		for (size_t i = 0; i < md->n; i++)
			if (md->pairs[i].val->kind == FM_SCALAR)
				cJSON_AddStringToObject(m, md->pairs[i].key->str, md->pairs[i].val->str);
		cJSON_AddItemToObject(o, "metadata", m);
	}
	return o;
}

/* Step 5: strict YAML that is a mapping. */
static int parse_yaml(struct skill *s)
{
	struct check_report *r = s->r;
	struct fm_error fe;
	int rc = fm_parse(s->text.data + 3, s->close_at - 3, 1, 4, &s->fm, &fe);
	if (rc != 0) {
		struct check_finding *f = check_error(r, "yaml-invalid", fe.line, fe.col,
						"Invalid YAML in frontmatter: %s", fe.msg);
		if (fe.fix[0])
			check_set_fix(f, "%s", fe.fix);
		if (rc < 0)
			return -1; /* 1: a flow collection, reported; the rules still run */
	}
	if (!s->fm || s->fm->kind != FM_MAP) {
		int line = s->fm ? s->fm->line : 1, col = s->fm ? s->fm->col : 1;
		check_error(r, "yaml-not-mapping", line, col, "SKILL.md frontmatter must be a YAML mapping");
		return -1;
	}
	r->properties = properties(s->fm);
	return 0;
}

/* ---- spec rules (skills-ref validator, step 6) ------------------------- */

static void rule_fields(struct skill *s)
{
	const struct fm_node *m = s->fm;
	struct strlist extra = STRLIST_INIT;
	const struct fm_node *first = NULL;
	for (size_t i = 0; i < m->n; i++) {
		const struct fm_node *k = m->pairs[i].key;
		if (check_key_allowed(k->str))
			continue;
		if (!first)
			first = k;
		strlist_push(&extra, k->str);
	}
	if (!extra.n)
		return;
	strlist_sort(&extra);
	struct buf b = BUF_INIT, allowed = BUF_INIT;
	for (size_t i = 0; i < extra.n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", extra.v[i]);
	check_allowed_keys(&allowed);
	struct check_finding *f = check_error(s->r, "unexpected-fields", first->line, first->col,
					"Unexpected fields in frontmatter: %s. Only [%s] are allowed.",
					b.data, allowed.data);
	check_set_fix(f, "move them under metadata: (e.g. metadata:, then   %s: ... indented)", extra.v[0]);
	buf_free(&b);
	buf_free(&allowed);
	strlist_free(&extra);
}

/* A scalar string that is not empty after Python's strip(). */
static bool nonblank_string(const struct fm_node *v)
{
	if (!v || v->kind != FM_SCALAR)
		return false;
	const char *p = v->str;
	size_t n = v->len;
	uc_strip(&p, &n);
	return n > 0;
}

/* The name as the spec text wants it: a-z, 0-9, single inner hyphens. */
static char *spec_slug(const char *s)
{
	struct buf b = BUF_INIT;
	bool dash = false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) && c < 0x80) {
			if (dash && b.len)
				buf_addc(&b, '-');
			buf_addc(&b, (char)tolower(c));
			dash = false;
		} else if (c < 0x80 || (c & 0xC0) != 0x80) {
			dash = true;
		}
	}
	if (b.len > 64)
		b.len = 64, b.data[64] = '\0';
	while (b.len && b.data[b.len - 1] == '-')
		b.data[--b.len] = '\0';
	if (!b.len)
		buf_adds(&b, "skill");
	return buf_detach(&b);
}

static void rule_name(struct skill *s)
{
	struct check_report *r = s->r;
	const struct fm_node *v = fm_get(s->fm, "name");
	if (!v) {
		check_error(r, "name-missing", 1, 1, "Missing required field in frontmatter: name");
		return;
	}
	if (!nonblank_string(v)) {
		check_error(r, "name-type", v->line, v->col, "Field 'name' must be a non-empty string");
		return;
	}
	const char *p = v->str;
	size_t n = v->len;
	uc_strip(&p, &n);
	struct buf name = BUF_INIT;
	uc_nfkc(p, n, &name);
	r->name = xstrdup(name.data);
	size_t before = r->nerrors;
	size_t chars = utf8_count(name.data, name.len);
	if (chars > 64)
		check_error(r, "name-length", v->line, v->col, "Skill name '%s' exceeds 64 character limit (%zu chars)",
		      name.data, chars);
	bool upper = false, bad = false;
	for (size_t i = 0; i < name.len;) {
		size_t k;
		uint32_t cp = utf8_decode(name.data + i, name.len - i, &k);
		upper |= uc_changes_lower(cp);
		bad |= !(uc_is_alnum(cp) || cp == '-');
		i += k;
	}
	if (upper)
		check_error(r, "name-lowercase", v->line, v->col, "Skill name '%s' must be lowercase", name.data);
	if (name.data[0] == '-' || name.data[name.len - 1] == '-')
		check_error(r, "name-hyphen-edge", v->line, v->col, "Skill name cannot start or end with a hyphen");
	if (strstr(name.data, "--"))
		check_error(r, "name-consecutive-hyphens", v->line, v->col,
		      "Skill name cannot contain consecutive hyphens");
	if (bad)
		check_error(r, "name-characters", v->line, v->col, "Skill name '%s' contains invalid characters. "
		      "Only letters, digits, and hyphens are allowed.", name.data);
	char *slug = spec_slug(name.data);
	if (r->nerrors > before)
		check_set_fix(&r->errors[r->nerrors - 1], "name: %s (and a directory of that name)", slug);
	struct buf dir = BUF_INIT;
	uc_nfkc(s->dirname, strlen(s->dirname), &dir);
	if (strcmp(dir.data, name.data)) {
		struct check_finding *f = check_error(r, "name-directory", v->line, v->col,
						"Directory name '%s' must match skill name '%s'",
						s->dirname, name.data);
		char *dslug = spec_slug(s->dirname);
		if (!strcmp(dslug, s->dirname))
			check_set_fix(f, "name: %s (or rename the directory to '%s')", s->dirname, slug);
		else
			check_set_fix(f, "name: %s, and rename the directory to '%s'", slug, slug);
		free(dslug);
	}
	free(slug);
	buf_free(&dir);
	buf_free(&name);
}

static void rule_description(struct skill *s)
{
	struct check_report *r = s->r;
	const struct fm_node *v = fm_get(s->fm, "description");
	if (!v) {
		struct check_finding *f = check_error(r, "description-missing", 1, 1,
						"Missing required field in frontmatter: description");
		check_set_fix(f, "add description: <what the skill does and when to use it>");
		return;
	}
	if (!nonblank_string(v)) {
		check_error(r, "description-type", v->line, v->col, "Field 'description' must be a non-empty string");
		return;
	}
	r->description = xstrdup(v->str);
	size_t chars = utf8_count(v->str, v->len);
	r->description_chars = (long)chars;
	if (chars > 1024)
		check_error(r, "description-length", v->line, v->col,
		      "Description exceeds 1024 character limit (%zu chars)", chars);
}

static void rule_compatibility(struct skill *s)
{
	const struct fm_node *v = fm_get(s->fm, "compatibility");
	if (!v)
		return;
	if (v->kind != FM_SCALAR) {
		check_error(s->r, "compatibility-type", v->line, v->col, "Field 'compatibility' must be a string");
		return;
	}
	size_t chars = utf8_count(v->str, v->len);
	if (chars > 500)
		check_error(s->r, "compatibility-length", v->line, v->col,
		      "Compatibility exceeds 500 character limit (%zu chars)", chars);
}

/* ---- the whole check ------------------------------------------------------ */

static void finish(struct check_report *r)
{
	if (r->nerrors) {
		const struct check_finding *f = &r->errors[0];
		if (f->line)
			r->first_error = xasprintf("%s:%d:%d: %s", f->file, f->line, f->col, f->message);
		else
			r->first_error = xasprintf("%s: %s", f->file, f->message);
	}
}

int check_skill_opts(const char *path, const struct check_options *o, struct check_report **out)
{
	static const struct check_options defaults = { true, NULL, 0 };
	struct check_report *r = xcalloc(1, sizeof *r);
	struct skill s;
	memset(&s, 0, sizeof s);
	s.raw = s.text = (struct buf)BUF_INIT;
	s.r = r;
	s.o = o ? o : &defaults;
	r->path = xstrdup(path);
	r->body_lines = r->body_tokens = r->description_chars = -1;
	*out = r;
	if (locate(&s) < 0 || read_text(&s) < 0) {
		r->verdict = CHECK_UNUSABLE;
	} else if (split_frontmatter(&s) < 0 || parse_yaml(&s) < 0) {
		r->verdict = CHECK_INVALID; /* a skill, but its frontmatter does not parse */
	} else {
		r->frontmatter_parsed = true;
		rule_fields(&s);
		rule_name(&s);
		rule_description(&s);
		rule_compatibility(&s);
		r->verdict = r->nerrors ? CHECK_INVALID : CHECK_VALID;
		if (s.o->lint)
			lint_skill(&s);
	}
	skill_free(&s);
	finish(r);
	return r->verdict;
}

int check_skill(const char *path, struct check_report **out)
{
	return check_skill_opts(path, NULL, out);
}

const char *check_first_error(const struct check_report *r)
{
	return r->first_error;
}

const char *check_verdict_name(int verdict)
{
	return verdict == CHECK_VALID ? "valid" : verdict == CHECK_INVALID ? "invalid" : "unusable";
}

static cJSON *findings_json(const struct check_finding *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "rule", v[i].rule);
		cJSON_AddStringToObject(o, "message", v[i].message);
		cJSON_AddStringToObject(o, "file", v[i].file);
		if (v[i].line) {
			cJSON_AddNumberToObject(o, "line", v[i].line);
			cJSON_AddNumberToObject(o, "col", v[i].col);
		} else {
			cJSON_AddNullToObject(o, "line");
			cJSON_AddNullToObject(o, "col");
		}
		if (v[i].fix)
			cJSON_AddStringToObject(o, "fix", v[i].fix);
		else
			cJSON_AddNullToObject(o, "fix");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void add_num_or_null(cJSON *o, const char *k, long v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, k, (double)v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *check_report_json(const struct check_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "format", atoi(CHECK_FORMAT_VERSION));
	cJSON_AddStringToObject(o, "path", r->path);
	add_str_or_null(o, "file", r->file);
	cJSON_AddStringToObject(o, "verdict", check_verdict_name(r->verdict));
	add_str_or_null(o, "name", r->name);
	cJSON_AddItemToObject(o, "errors", findings_json(r->errors, r->nerrors));
	cJSON_AddItemToObject(o, "warnings", findings_json(r->warnings, r->nwarnings));
	cJSON *st = cJSON_CreateObject();
	add_num_or_null(st, "body_lines", r->body_lines);
	add_num_or_null(st, "body_tokens", r->body_tokens);
	add_num_or_null(st, "description_chars", r->description_chars);
	cJSON_AddItemToObject(o, "stats", st);
	if (r->properties)
		cJSON_AddItemToObject(o, "properties", cJSON_Duplicate(r->properties, true));
	else
		cJSON_AddNullToObject(o, "properties");
	return o;
}

static void finding_text(const struct check_finding *f, const char *kind, struct buf *out)
{
	if (f->line)
		buf_printf(out, "%s:%d:%d: %s: %s [%s]\n", f->file, f->line, f->col, kind, f->message, f->rule);
	else
		buf_printf(out, "%s: %s: %s [%s]\n", f->file, kind, f->message, f->rule);
	if (f->fix && !strstr(f->message, f->fix)) {
		/* a fix may span lines: indent every one */
		buf_adds(out, "    fix: ");
		for (const char *p = f->fix; *p; p++) {
			buf_addc(out, *p);
			if (*p == '\n')
				buf_adds(out, "         ");
		}
		buf_addc(out, '\n');
	}
}

void check_report_text(const struct check_report *r, struct buf *out)
{
	for (size_t i = 0; i < r->nerrors; i++)
		finding_text(&r->errors[i], "error", out);
	for (size_t i = 0; i < r->nwarnings; i++)
		finding_text(&r->warnings[i], "warning", out);
	const char *what = r->file ? r->file : r->path;
	if (r->verdict == CHECK_VALID)
		buf_printf(out, "%s: valid skill '%s'", what, r->name ? r->name : "");
	else
		buf_printf(out, "%s: %s skill", what, check_verdict_name(r->verdict));
	buf_printf(out, " (%zu error%s, %zu warning%s)\n", r->nerrors, r->nerrors == 1 ? "" : "s",
		   r->nwarnings, r->nwarnings == 1 ? "" : "s");
}

static void findings_free(struct check_finding *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].message);
		free(v[i].file);
		free(v[i].fix);
	}
	free(v);
}

void check_report_free(struct check_report *r)
{
	if (!r)
		return;
	findings_free(r->errors, r->nerrors);
	findings_free(r->warnings, r->nwarnings);
	free(r->path);
	free(r->dir);
	free(r->file);
	free(r->name);
	free(r->description);
	free(r->first_error);
	cJSON_Delete(r->properties);
	free(r);
}
