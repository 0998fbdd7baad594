/* lint.c — the warnings skillc-check adds on top of the spec verdict
 * (docs/check.md lists them): keys and values, the name, the description,
 * the body's size and the file references, each reference chain read once. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "base/fs.h"
#include "base/strmap.h"
#include "base/unicode.h"
#include "skill/checker.h"
#include "skill/validate.h"

/* Keys Claude Code reads that the spec does not define. */
static const char *const claude_code_keys[] = {
	"user-invocable", "disable-model-invocation", "argument-hint", "model", "context", "agent",
	"hooks", "when_to_use",
};

static void lint_keys(struct skill *s)
{
	const struct fm_node *m = s->fm;
	for (size_t i = 0; i < m->n; i++) {
		const struct fm_node *k = m->pairs[i].key;
		if (check_key_allowed(k->str))
			continue;
		struct check_finding *f;
		if (str_in(k->str, claude_code_keys, ARRAY_LEN(claude_code_keys)))
			f = check_warn(s->r, "unknown-key", k->line, k->col, "'%s' is a Claude Code extension, not a "
				 "spec field; other clients reject the skill", k->str);
		else
			f = check_warn(s->r, "unknown-key", k->line, k->col, "'%s' is not a spec field; keep it as "
				 "metadata.%s", k->str, k->str);
		check_set_fix(f, "metadata:\n  %s: ...", k->str);
	}
}

static void lint_implicit(struct skill *s, const char *label, const struct fm_node *v)
{
	const char *what;
	if (!v || !fm_implicit_type(v, &what))
		return;
	struct check_finding *f = check_warn(s->r, "yaml-implicit-type", v->line, v->col,
				       "%s: the unquoted value '%s' is read as %s by most YAML parsers "
				       "(PyYAML, js-yaml); quote it", label, v->str, what);
	check_set_fix(f, "%s: \"%s\"", strrchr(label, '.') ? strrchr(label, '.') + 1 : label, v->str);
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
			check_warn(s->r, "field-type", v->line, v->col, "%s should be a string%s", strings[i],
			     !strcmp(strings[i], "allowed-tools") ? " of space-separated tools" : "");
	}
	const struct fm_node *md = fm_get(s->fm, "metadata");
	if (!md)
		return;
	if (md->kind != FM_MAP) {
		check_warn(s->r, "metadata-type", md->line, md->col, "metadata should be a mapping of string keys "
		     "to string values");
		return;
	}
	for (size_t i = 0; i < md->n; i++) {
		const struct fm_node *v = md->pairs[i].val;
		char *label = xasprintf("metadata.%s", md->pairs[i].key->str);
		if (v->kind != FM_SCALAR)
			check_warn(s->r, "metadata-type", v->line, v->col, "%s should be a string, not a %s", label,
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
		check_warn(s->r, "name-non-ascii", v->line, v->col, "the name '%s' is valid for skills-ref, but "
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
		check_warn(s->r, "description-no-cue", v->line, v->col, "the description does not say when to use "
		     "the skill; agents pick skills by it: add e.g. \"Use when ...\"");
	if (n > CHECK_DESC_BUDGET && n <= 1024)
		check_warn(s->r, "description-long", v->line, v->col, "the description is %ld characters; over %d "
		     "it eats the skill-listing budget of agents (and gets cut): shorten it", n,
		     CHECK_DESC_BUDGET);
	if (n < CHECK_DESC_MIN)
		check_warn(s->r, "description-short", v->line, v->col, "the description is %ld characters; under "
		     "%d it rarely says both what the skill does and when to use it", n, CHECK_DESC_MIN);
	if (strchr(d, '<') || strchr(d, '>'))
		check_warn(s->r, "description-angle", v->line, v->col, "the description contains '<' or '>'; "
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
		check_warn(s->r, "body-empty", line, 1, "the body is empty: the skill has no instructions");
	if (lines > CHECK_BODY_LINES_MAX)
		check_warn(s->r, "body-lines", line, 1, "the body has %zu lines (recommended: under %d); move "
		     "detail to references/ and say when to read it", lines, CHECK_BODY_LINES_MAX);
	if (tokens > CHECK_BODY_TOKENS_MAX)
		check_warn(s->r, "body-tokens", line, 1, "the body is about %zu tokens (recommended: under %d); "
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
		check_warn(s->r, "frontmatter-dashes", l, (int)utf8_count(ls, (size_t)(t + at - ls)) + 1,
		     "this \"---\" ends the frontmatter for skills-ref, which splits at the first \"---\" "
		     "anywhere, while other clients wait for a line holding only ---: reword or quote it");
	}
}

/* ---- file references ----------------------------------------------------- */

/* What the reference lint has seen; hash maps, so a skill with many
 * references costs linear time. */
struct seen {
	struct strmap reported; /* "rule\tpath" -> 1 + index of its warning */
	struct strmap count;    /* "rule\tpath" -> mentions */
	struct strmap exists;   /* skill-relative path -> 1 + (1 when it exists) */
	struct strmap direct;   /* paths SKILL.md itself references */
	struct strmap chained;  /* .md files whose references were read */
};

/* Reports once per (rule, path); later mentions only bump the count. */
static struct check_finding *ref_warn(struct skill *s, struct seen *sn, const char *rule, const char *path,
				      int line, int col, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static struct check_finding *ref_warn(struct skill *s, struct seen *sn, const char *rule, const char *path,
				      int line, int col, const char *fmt, ...)
{
	char *key = xasprintf("%s\t%s", rule, path);
	bool fresh;
	size_t *at = strmap_put(&sn->reported, key, &fresh);
	++*strmap_put(&sn->count, key, NULL);
	free(key);
	if (!fresh)
		return NULL;
	va_list ap;
	va_start(ap, fmt);
	struct check_finding *f = check_add(&s->r->warnings, &s->r->nwarnings, &s->r->warnings_cap, rule,
				      s->r->file, line, col, fmt, ap);
	va_end(ap);
	*at = s->r->nwarnings;
	return f;
}

static void seen_finish(struct skill *s, struct seen *sn)
{
	for (size_t i = 0; i < sn->reported.cap; i++) {
		const struct strmap_slot *k = &sn->reported.v[i];
		size_t n = k->key ? *strmap_get(&sn->count, k->key) : 0;
		if (n < 2)
			continue;
		struct check_finding *f = &s->r->warnings[k->value - 1];
		char *m = xasprintf("%s (%zu mentions)", f->message, n);
		free(f->message);
		f->message = m;
	}
	strmap_free(&sn->reported);
	strmap_free(&sn->count);
	strmap_free(&sn->exists);
	strmap_free(&sn->direct);
	strmap_free(&sn->chained);
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

/* lstat once per path, however often it is mentioned. */
static bool exists_in(struct seen *sn, const char *dir, const char *rel)
{
	bool fresh;
	size_t *v = strmap_put(&sn->exists, rel, &fresh);
	if (fresh) {
		char *p = path_join(dir, rel);
		struct stat st;
		*v = 1 + (lstat(p, &st) == 0);
		free(p);
	}
	return *v == 2;
}

/* The model of a referenced .md file: the caller's, or read and parsed
 * here (caller frees with sd_free); NULL when it cannot be read. */
static struct skilldoc *chain_doc(const struct skill *s, const char *rel)
{
	const struct skilldoc *given = check_given_doc(s, rel);
	if (given)
		return sd_share(given);
	char *file = path_join(s->r->dir, rel);
	struct buf b = BUF_INIT;
	struct err e = { 0, "" };
	struct stat st;
	struct skilldoc *d = NULL;
	if (stat(file, &st) == 0 && S_ISREG(st.st_mode) && fs_read(file, CHECK_FILE_MAX, &b, &e) == 0)
		d = sd_parse(b.data, b.len);
	buf_free(&b);
	free(file);
	return d;
}

/* SKILL.md -> a.md -> b.md: b is read only if the agent follows a's
 * reference, and agents tend to read such files partially. */
static void lint_chain(struct skill *s, struct seen *sn, const char *rel, const struct sd_ref *from)
{
	struct skilldoc *d = chain_doc(s, rel);
	if (!d)
		return;
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
		if (!target || !exists_in(sn, s->r->dir, target)) {
			free(target);
			target = resolve(r->path); /* some authors write paths from the skill root */
		}
		if (target && exists_in(sn, s->r->dir, target) && strcmp(target, rel) &&
		    strcasecmp(target, "SKILL.md") && !strmap_get(&sn->direct, target))
			ref_warn(s, sn, "ref-chain", target, from->line, from->col,
				 "%s refers to %s (line %d), which SKILL.md does not reference: agents "
				 "may never read it; reference it from SKILL.md (one level deep)",
				 rel, target, r->line);
		free(target);
	}
	free(base);
	sd_free(d);
}

static void lint_refs(struct skill *s)
{
	struct skilldoc *d = s->doc;
	struct seen sn;
	memset(&sn, 0, sizeof sn);
	for (size_t i = 0; i < d->nrefs; i++) {
		char *t = resolve(d->refs[i].path);
		if (t)
			strmap_put(&sn.direct, t, NULL);
		free(t);
	}
	for (size_t i = 0; i < d->nrefs; i++) {
		const struct sd_ref *r = &d->refs[i];
		char *t = resolve(r->path);
		bool fresh;
		if (!t) {
			ref_warn(s, &sn, "ref-escapes", r->path, r->line, r->col, "%s points outside the skill "
				 "folder; only files inside it travel with the skill", r->path);
		} else if (*t && !exists_in(&sn, s->r->dir, t)) {
			ref_warn(s, &sn, "ref-dangling", t, r->line, r->col, "%s does not exist in the skill "
				 "folder", r->path);
		} else if (*t && is_md(t) && (strmap_put(&sn.chained, t, &fresh), fresh)) {
			lint_chain(s, &sn, t, r);
		}
		free(t);
	}
	seen_finish(s, &sn);
}

void lint_skill(struct skill *s)
{
	lint_keys(s);
	lint_values(s);
	lint_name(s);
	lint_description(s);
	lint_body(s);
	lint_refs(s);
}
