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

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "skill/frontmatter.h"
#include "base/fs.h"
#include "skill/skilldoc.h"
#include "base/unicode.h"

/* A SKILL.md larger than this is not read (skills are a few KB). */
#define CHECK_FILE_MAX (16u << 20)

static const char *const allowed_fields[] = {
	"allowed-tools", "compatibility", "description", "license", "metadata", "name",
};

/* Keys Claude Code reads that the spec does not define. */
static const char *const claude_code_keys[] = {
	"user-invocable", "disable-model-invocation", "argument-hint", "model", "context", "agent",
	"hooks", "when_to_use",
};

/* ---- findings ----------------------------------------------------------- */

static struct check_finding *add(struct check_finding **v, size_t *n, size_t *cap, const char *rule,
				 const char *file, int line, int col, const char *fmt, va_list ap)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	struct check_finding *f = &(*v)[(*n)++];
	struct buf b = BUF_INIT;
	buf_vprintf(&b, fmt, ap);
	f->rule = rule;
	f->message = buf_detach(&b);
	f->file = xstrdup(file ? file : "");
	f->line = line;
	f->col = col;
	f->fix = NULL;
	return f;
}

static struct check_finding *error(struct check_report *r, const char *rule, int line, int col,
				   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static struct check_finding *error(struct check_report *r, const char *rule, int line, int col,
				   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct check_finding *f = add(&r->errors, &r->nerrors, &r->errors_cap, rule,
				      r->file ? r->file : r->path, line, col, fmt, ap);
	va_end(ap);
	return f;
}

static struct check_finding *warn(struct check_report *r, const char *rule, int line, int col,
				  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static struct check_finding *warn(struct check_report *r, const char *rule, int line, int col,
				  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct check_finding *f = add(&r->warnings, &r->nwarnings, &r->warnings_cap, rule,
				      r->file ? r->file : r->path, line, col, fmt, ap);
	va_end(ap);
	return f;
}

static void set_fix(struct check_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_fix(struct check_finding *f, const char *fmt, ...)
{
	va_list ap;
	struct buf b = BUF_INIT;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(f->fix);
	f->fix = buf_detach(&b);
}

/* ---- the skill being checked ------------------------------------------- */

struct skill {
	struct check_report *r;
	const struct check_options *o;
	char *dirname;          /* the directory's name as given (Path.name) */
	struct buf raw;         /* SKILL.md bytes */
	struct buf text;        /* the same with CRLF / CR turned into LF (Python's read_text) */
	struct fm_node *fm;     /* the frontmatter mapping */
	size_t close_at;        /* offset in text of the "---" closing the frontmatter */
	struct skilldoc *doc;   /* the model of raw */
};

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
		error(r, "path-missing", 0, 0, "Path does not exist: %s", r->path);
		return -1;
	}
	if (S_ISREG(st.st_mode) && ends_with_ci(r->path, "skill.md")) {
		char *t = xstrdup(r->path);
		r->dir = xstrdup(dirname(t));
		free(t);
	} else if (!S_ISDIR(st.st_mode)) {
		error(r, "not-a-directory", 0, 0, "Not a directory: %s", r->path);
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
				error(r, "skill-md-unreadable", 0, 0, "%s is not a regular file", names[i]);
				return -1;
			}
			if (i == 1 && s->o->lint)
				warn(r, "skill-md-lowercase", 0, 0, "the file is named skill.md; most "
				     "clients only look for SKILL.md: rename it");
			return 0;
		}
		free(f);
	}
	error(r, "skill-md-missing", 0, 0, "Missing required file: SKILL.md");
	return -1;
}

/* Reading, UTF-8, newlines. */
static int read_text(struct skill *s)
{
	struct check_report *r = s->r;
	struct err e = { 0, "" };
	if (fs_read(r->file, CHECK_FILE_MAX, &s->raw, &e) < 0) {
		error(r, "skill-md-unreadable", 0, 0, "cannot read the file: %s", e.msg);
		return -1;
	}
	size_t bad = utf8_check(s->raw.data ? s->raw.data : "", s->raw.len);
	if (bad < s->raw.len) {
		struct skilldoc *tmp = sd_parse(s->raw.data, s->raw.len);
		int line, col;
		sd_line_col(tmp, bad, &line, &col);
		sd_free(tmp);
		struct check_finding *f = error(r, "not-utf8", line, col, "SKILL.md is not valid UTF-8 "
						"(byte 0x%02X)", (unsigned char)s->raw.data[bad]);
		set_fix(f, "save the file as UTF-8");
		return -1;
	}
	for (size_t i = 0; i < s->raw.len; i++) {
		char c = s->raw.data[i];
		if (c == '\r') {
			buf_addc(&s->text, '\n');
			if (i + 1 < s->raw.len && s->raw.data[i + 1] == '\n')
				i++;
		} else {
			buf_addc(&s->text, c);
		}
	}
	if (!s->text.data)
		buf_add(&s->text, "", 0);
	s->doc = sd_parse(s->raw.data ? s->raw.data : "", s->raw.len);
	return 0;
}

/* Steps 3-4 of skills-ref: the frontmatter delimiters. */
static int split_frontmatter(struct skill *s)
{
	struct check_report *r = s->r;
	if (s->text.len >= 6 && !memcmp(s->text.data, "\xEF\xBB\xBF---", 6)) {
		struct check_finding *f = error(r, "frontmatter-missing", 1, 1,
						"SKILL.md must start with YAML frontmatter (---): it starts with "
						"a UTF-8 byte order mark (BOM) before the ---");
		set_fix(f, "save the file as UTF-8 without a BOM");
		return -1;
	}
	if (s->text.len < 3 || memcmp(s->text.data, "---", 3)) {
		struct check_finding *f = error(r, "frontmatter-missing", 1, 1,
						"SKILL.md must start with YAML frontmatter (---)");
		set_fix(f, "start the file with:\n---\nname: %s\ndescription: <what it does and "
			"when to use it>\n---", s->dirname);
		return -1;
	}
	const char *close = memmem(s->text.data + 3, s->text.len - 3, "---", 3);
	if (!close) {
		struct check_finding *f = error(r, "frontmatter-unclosed", 1, 1,
						"SKILL.md frontmatter not properly closed with ---");
		set_fix(f, "end the frontmatter with a line holding only ---");
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
	if (fm_parse(s->text.data + 3, s->close_at - 3, 1, 4, &s->fm, &fe) < 0) {
		struct check_finding *f = error(r, "yaml-invalid", fe.line, fe.col,
						"Invalid YAML in frontmatter: %s", fe.msg);
		if (fe.fix[0])
			set_fix(f, "%s", fe.fix);
		return -1;
	}
	if (!s->fm || s->fm->kind != FM_MAP) {
		int line = s->fm ? s->fm->line : 1, col = s->fm ? s->fm->col : 1;
		error(r, "yaml-not-mapping", line, col, "SKILL.md frontmatter must be a YAML mapping");
		return -1;
	}
	r->properties = properties(s->fm);
	return 0;
}

/* ---- spec rules (skills-ref validator, step 6) ------------------------- */

static bool is_allowed(const char *key)
{
	for (size_t i = 0; i < ARRAY_LEN(allowed_fields); i++)
		if (!strcmp(key, allowed_fields[i]))
			return true;
	return false;
}

static int strcmp_p(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void rule_fields(struct skill *s)
{
	const struct fm_node *m = s->fm;
	struct strlist extra = STRLIST_INIT;
	const struct fm_node *first = NULL;
	for (size_t i = 0; i < m->n; i++) {
		const struct fm_node *k = m->pairs[i].key;
		if (is_allowed(k->str))
			continue;
		if (!first)
			first = k;
		strlist_push(&extra, k->str);
	}
	if (!extra.n)
		return;
	qsort(extra.v, extra.n, sizeof(*extra.v), strcmp_p);
	struct buf b = BUF_INIT, allowed = BUF_INIT;
	for (size_t i = 0; i < extra.n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", extra.v[i]);
	for (size_t i = 0; i < ARRAY_LEN(allowed_fields); i++)
		buf_printf(&allowed, "%s'%s'", i ? ", " : "", allowed_fields[i]);
	struct check_finding *f = error(s->r, "unexpected-fields", first->line, first->col,
					"Unexpected fields in frontmatter: %s. Only [%s] are allowed.",
					b.data, allowed.data);
	set_fix(f, "move them under metadata: (e.g. metadata:, then   %s: ... indented)", extra.v[0]);
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
		error(r, "name-missing", 1, 1, "Missing required field in frontmatter: name");
		return;
	}
	if (!nonblank_string(v)) {
		error(r, "name-type", v->line, v->col, "Field 'name' must be a non-empty string");
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
		error(r, "name-length", v->line, v->col, "Skill name '%s' exceeds 64 character limit (%zu chars)",
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
		error(r, "name-lowercase", v->line, v->col, "Skill name '%s' must be lowercase", name.data);
	if (name.data[0] == '-' || name.data[name.len - 1] == '-')
		error(r, "name-hyphen-edge", v->line, v->col, "Skill name cannot start or end with a hyphen");
	if (strstr(name.data, "--"))
		error(r, "name-consecutive-hyphens", v->line, v->col,
		      "Skill name cannot contain consecutive hyphens");
	if (bad)
		error(r, "name-characters", v->line, v->col, "Skill name '%s' contains invalid characters. "
		      "Only letters, digits, and hyphens are allowed.", name.data);
	char *slug = spec_slug(name.data);
	if (r->nerrors > before)
		set_fix(&r->errors[r->nerrors - 1], "name: %s (and a directory of that name)", slug);
	struct buf dir = BUF_INIT;
	uc_nfkc(s->dirname, strlen(s->dirname), &dir);
	if (strcmp(dir.data, name.data)) {
		struct check_finding *f = error(r, "name-directory", v->line, v->col,
						"Directory name '%s' must match skill name '%s'",
						s->dirname, name.data);
		char *dslug = spec_slug(s->dirname);
		if (!strcmp(dslug, s->dirname))
			set_fix(f, "name: %s (or rename the directory to '%s')", s->dirname, slug);
		else
			set_fix(f, "name: %s, and rename the directory to '%s'", slug, slug);
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
		struct check_finding *f = error(r, "description-missing", 1, 1,
						"Missing required field in frontmatter: description");
		set_fix(f, "add description: <what the skill does and when to use it>");
		return;
	}
	if (!nonblank_string(v)) {
		error(r, "description-type", v->line, v->col, "Field 'description' must be a non-empty string");
		return;
	}
	r->description = xstrdup(v->str);
	size_t chars = utf8_count(v->str, v->len);
	r->description_chars = (long)chars;
	if (chars > 1024)
		error(r, "description-length", v->line, v->col,
		      "Description exceeds 1024 character limit (%zu chars)", chars);
}

static void rule_compatibility(struct skill *s)
{
	const struct fm_node *v = fm_get(s->fm, "compatibility");
	if (!v)
		return;
	if (v->kind != FM_SCALAR) {
		error(s->r, "compatibility-type", v->line, v->col, "Field 'compatibility' must be a string");
		return;
	}
	size_t chars = utf8_count(v->str, v->len);
	if (chars > 500)
		error(s->r, "compatibility-length", v->line, v->col,
		      "Compatibility exceeds 500 character limit (%zu chars)", chars);
}

/* ---- lint ----------------------------------------------------------------- */

static bool in_list(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return true;
	return false;
}

static void lint_keys(struct skill *s)
{
	const struct fm_node *m = s->fm;
	for (size_t i = 0; i < m->n; i++) {
		const struct fm_node *k = m->pairs[i].key;
		if (is_allowed(k->str))
			continue;
		struct check_finding *f;
		if (in_list(k->str, claude_code_keys, ARRAY_LEN(claude_code_keys)))
			f = warn(s->r, "unknown-key", k->line, k->col, "'%s' is a Claude Code extension, not a "
				 "spec field; other clients reject the skill", k->str);
		else
			f = warn(s->r, "unknown-key", k->line, k->col, "'%s' is not a spec field; keep it as "
				 "metadata.%s", k->str, k->str);
		set_fix(f, "metadata:\n  %s: ...", k->str);
	}
}

static void lint_implicit(struct skill *s, const char *label, const struct fm_node *v)
{
	const char *what;
	if (!v || !fm_implicit_type(v, &what))
		return;
	struct check_finding *f = warn(s->r, "yaml-implicit-type", v->line, v->col,
				       "%s: the unquoted value '%s' is read as %s by most YAML parsers "
				       "(PyYAML, js-yaml); quote it", label, v->str, what);
	set_fix(f, "%s: \"%s\"", strrchr(label, '.') ? strrchr(label, '.') + 1 : label, v->str);
}

static void lint_values(struct skill *s)
{
	static const char *const strings[] = { "name", "description", "license", "compatibility",
					       "allowed-tools" };
	for (size_t i = 0; i < ARRAY_LEN(strings); i++) {
		const struct fm_node *v = fm_get(s->fm, strings[i]);
		if (!v)
			continue;
		/* an empty description or name is already an error */
		if (v->kind == FM_SCALAR && !v->len && (!strcmp(strings[i], "name") ||
							!strcmp(strings[i], "description")))
			continue;
		lint_implicit(s, strings[i], v);
		if (v->kind != FM_SCALAR && (!strcmp(strings[i], "license") || !strcmp(strings[i], "allowed-tools")))
			warn(s->r, "field-type", v->line, v->col, "%s should be a string%s", strings[i],
			     !strcmp(strings[i], "allowed-tools") ? " of space-separated tools" : "");
	}
	const struct fm_node *md = fm_get(s->fm, "metadata");
	if (!md)
		return;
	if (md->kind != FM_MAP) {
		warn(s->r, "metadata-type", md->line, md->col, "metadata should be a mapping of string keys "
		     "to string values");
		return;
	}
	for (size_t i = 0; i < md->n; i++) {
		const struct fm_node *v = md->pairs[i].val;
		char *label = xasprintf("metadata.%s", md->pairs[i].key->str);
		if (v->kind != FM_SCALAR)
			warn(s->r, "metadata-type", v->line, v->col, "%s should be a string, not a %s", label,
			     v->kind == FM_MAP ? "mapping" : "list");
		else
			lint_implicit(s, label, v);
		free(label);
	}
}

static bool has_non_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return true;
	return false;
}

static void lint_name(struct skill *s)
{
	const struct fm_node *v = fm_get(s->fm, "name");
	if (s->r->name && has_non_ascii(s->r->name))
		warn(s->r, "name-non-ascii", v->line, v->col, "the name '%s' is valid for skills-ref, but "
		     "the spec text allows only a-z, 0-9 and '-', and some clients refuse other "
		     "characters", s->r->name);
}

/* The description says when to use the skill. */
static bool has_cue(const char *d)
{
	static const char pat[] =
		"\\bwhen(ever)?\\b|\\bif (you|the user|a user|asked|needed)\\b|\\bbefore\\b|"
		"\\buse (this|it|the skill|this skill)?\\s*(for|to|on|with|during|after|in)\\b|"
		"\\buse for\\b|\\buseful (for|when|to)\\b|\\btrigger(s|ed)? (on|by|when)\\b|\\bfor (tasks|requests|questions)\\b";
	int code;
	PCRE2_SIZE where;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS, &code,
				       &where, NULL);
	if (!re)
		return true;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc = pcre2_match(re, (PCRE2_SPTR)d, strlen(d), 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc >= 0;
}

static void lint_description(struct skill *s)
{
	const struct fm_node *v = fm_get(s->fm, "description");
	const char *d = s->r->description;
	if (!d)
		return;
	long n = s->r->description_chars;
	if (!has_cue(d))
		warn(s->r, "description-no-cue", v->line, v->col, "the description does not say when to use "
		     "the skill; agents pick skills by it: add e.g. \"Use when ...\"");
	if (n > CHECK_DESC_BUDGET && n <= 1024)
		warn(s->r, "description-long", v->line, v->col, "the description is %ld characters; over %d "
		     "it eats the skill-listing budget of agents (and gets cut): shorten it", n,
		     CHECK_DESC_BUDGET);
	if (n < CHECK_DESC_MIN)
		warn(s->r, "description-short", v->line, v->col, "the description is %ld characters; under "
		     "%d it rarely says both what the skill does and when to use it", n, CHECK_DESC_MIN);
	if (strchr(d, '<') || strchr(d, '>'))
		warn(s->r, "description-angle", v->line, v->col, "the description contains '<' or '>'; "
		     "Claude apps and skill-creator's validator refuse them");
}

static void lint_body(struct skill *s)
{
	struct skilldoc *d = s->doc;
	size_t body = s->close_at + 3;
	/* the body as skills-ref sees it: after the closing "---", in the LF text */
	const char *b = s->text.data + body;
	size_t n = s->text.len - body;
	size_t lines = sd_body_lines(d), tokens = sd_estimate_tokens(b, n);
	s->r->body_lines = (long)lines;
	s->r->body_tokens = (long)tokens;
	int line = 1, col = 1;
	if (d->has_frontmatter)
		sd_line_col(d, d->body, &line, &col);
	const char *p = b;
	size_t k = n;
	uc_strip(&p, &k);
	if (!k)
		warn(s->r, "body-empty", line, 1, "the body is empty: the skill has no instructions");
	if (lines > CHECK_BODY_LINES_MAX)
		warn(s->r, "body-lines", line, 1, "the body has %zu lines (recommended: under %d); move "
		     "detail to references/ and say when to read it", lines, CHECK_BODY_LINES_MAX);
	if (tokens > CHECK_BODY_TOKENS_MAX)
		warn(s->r, "body-tokens", line, 1, "the body is about %zu tokens (recommended: under %d); "
		     "move detail to references/ and say when to read it", tokens, CHECK_BODY_TOKENS_MAX);
	/* skills-ref ends the frontmatter at the first "---" anywhere */
	const char *t = s->text.data;
	size_t at = s->close_at, e = at + 3;
	while (e < s->text.len && (t[e] == ' ' || t[e] == '\t'))
		e++;
	if ((at > 0 && t[at - 1] != '\n') || (e < s->text.len && t[e] != '\n')) {
		int l = 1;
		for (size_t i = 0; i < at; i++)
			l += t[i] == '\n';
		const char *ls = at ? memrchr(t, '\n', at) : NULL;
		ls = ls ? ls + 1 : t;
		warn(s->r, "frontmatter-dashes", l, (int)utf8_count(ls, (size_t)(t + at - ls)) + 1,
		     "this \"---\" ends the frontmatter for skills-ref, which splits at the first \"---\" "
		     "anywhere, while other clients wait for a line holding only ---: reword or quote it");
	}
}

/* ---- file references ----------------------------------------------------- */

struct seen {
	struct strlist keys;   /* "rule\tpath" already reported */
	size_t *index;         /* of the warning reporting each key */
	size_t *count;
};

/* Reports once per (rule, path); later mentions only bump the count. */
static struct check_finding *ref_warn(struct skill *s, struct seen *sn, const char *rule, const char *path,
				      int line, int col, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static struct check_finding *ref_warn(struct skill *s, struct seen *sn, const char *rule, const char *path,
				      int line, int col, const char *fmt, ...)
{
	char *key = xasprintf("%s\t%s", rule, path);
	for (size_t i = 0; i < sn->keys.n; i++)
		if (!strcmp(sn->keys.v[i], key)) {
			sn->count[i]++;
			free(key);
			return NULL;
		}
	strlist_push_owned(&sn->keys, key);
	sn->index = xrealloc(sn->index, sn->keys.n * sizeof(*sn->index));
	sn->count = xrealloc(sn->count, sn->keys.n * sizeof(*sn->count));
	va_list ap;
	va_start(ap, fmt);
	struct check_finding *f = add(&s->r->warnings, &s->r->nwarnings, &s->r->warnings_cap, rule,
				      s->r->file, line, col, fmt, ap);
	va_end(ap);
	sn->index[sn->keys.n - 1] = s->r->nwarnings - 1;
	sn->count[sn->keys.n - 1] = 1;
	return f;
}

static void seen_finish(struct skill *s, struct seen *sn)
{
	for (size_t i = 0; i < sn->keys.n; i++) {
		if (sn->count[i] < 2)
			continue;
		struct check_finding *f = &s->r->warnings[sn->index[i]];
		char *m = xasprintf("%s (%zu mentions)", f->message, sn->count[i]);
		free(f->message);
		f->message = m;
	}
	strlist_free(&sn->keys);
	free(sn->index);
	free(sn->count);
}

static bool is_md(const char *p)
{
	size_t n = strlen(p);
	return n > 3 && !strcasecmp(p + n - 3, ".md");
}

/* Where a path written in the skill lands: NULL when it leaves the skill. */
static char *resolve(const char *path)
{
	return path_normalize_rel(path);
}

static bool exists_in(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);
	struct stat st;
	bool ok = lstat(p, &st) == 0;
	free(p);
	return ok;
}

/* SKILL.md -> a.md -> b.md: b is read only if the agent follows a's
 * reference, and agents tend to read such files partially. */
static void lint_chain(struct skill *s, struct seen *sn, const char *rel, const struct sd_ref *from,
		       struct strlist *direct)
{
	char *file = path_join(s->r->dir, rel);
	struct buf b = BUF_INIT;
	struct err e = { 0, "" };
	struct stat st;
	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode) || fs_read(file, CHECK_FILE_MAX, &b, &e) < 0) {
		free(file);
		buf_free(&b);
		return;
	}
	struct skilldoc *d = sd_parse(b.data ? b.data : "", b.len);
	char *base = xstrdup(rel);
	char *slash = strrchr(base, '/');
	if (slash)
		slash[1] = '\0';
	else
		base[0] = '\0';
	for (size_t i = 0; i < d->nrefs; i++) {
		const struct sd_ref *r = &d->refs[i];
		if (r->origin == SD_REF_BLOCK || !is_md(r->path))
			continue;
		char *joined = xasprintf("%s%s", base, r->path);
		char *target = resolve(joined);
		free(joined);
		if (!target || !exists_in(s->r->dir, target)) {
			free(target);
			target = resolve(r->path); /* some authors write paths from the skill root */
		}
		if (target && exists_in(s->r->dir, target) && strcmp(target, rel) &&
		    strcasecmp(target, "SKILL.md")) {
			bool listed = false;
			for (size_t k = 0; k < direct->n; k++)
				listed |= !strcmp(direct->v[k], target);
			if (!listed)
				ref_warn(s, sn, "ref-chain", target, from->line, from->col,
					 "%s refers to %s (line %d), which SKILL.md does not reference: agents "
					 "may never read it; reference it from SKILL.md (one level deep)",
					 rel, target, r->line);
		}
		free(target);
	}
	free(base);
	sd_free(d);
	buf_free(&b);
	free(file);
}

static void lint_refs(struct skill *s)
{
	struct skilldoc *d = s->doc;
	struct seen sn = { STRLIST_INIT, NULL, NULL };
	struct strlist direct = STRLIST_INIT;
	for (size_t i = 0; i < d->nrefs; i++) {
		char *t = resolve(d->refs[i].path);
		if (t)
			strlist_push_owned(&direct, t);
	}
	struct strlist chained = STRLIST_INIT;
	for (size_t i = 0; i < d->nrefs; i++) {
		const struct sd_ref *r = &d->refs[i];
		char *t = resolve(r->path);
		if (!t) {
			ref_warn(s, &sn, "ref-escapes", r->path, r->line, r->col, "%s points outside the skill "
				 "folder; only files inside it travel with the skill", r->path);
			continue;
		}
		if (!*t) {
			free(t);
			continue;
		}
		if (!exists_in(s->r->dir, t)) {
			ref_warn(s, &sn, "ref-dangling", t, r->line, r->col, "%s does not exist in the skill "
				 "folder", r->path);
		} else if (is_md(t)) {
			bool done = false;
			for (size_t k = 0; k < chained.n; k++)
				done |= !strcmp(chained.v[k], t);
			if (!done) {
				strlist_push(&chained, t);
				lint_chain(s, &sn, t, r, &direct);
			}
		}
		free(t);
	}
	strlist_free(&chained);
	strlist_free(&direct);
	seen_finish(s, &sn);
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
	static const struct check_options defaults = { true };
	struct check_report *r = xcalloc(1, sizeof *r);
	struct skill s;
	memset(&s, 0, sizeof s);
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
		if (s.o->lint) {
			lint_keys(&s);
			lint_values(&s);
			lint_name(&s);
			lint_description(&s);
			lint_body(&s);
			lint_refs(&s);
		}
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
