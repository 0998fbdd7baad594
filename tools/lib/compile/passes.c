#include "compile/passes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/guard.h"
#include "base/json.h"
#include "compile/profile.h"

/* structure first, so the budget measures the body as it will be written */
const struct pass_def pass_table[] = {
	{ "structure", "heading levels without gaps, one H1 at most, normalised blank lines", pass_structure },
	{ "refs", "file references: relative from the skill root; dangling and escaping ones reported", pass_refs },
	{ "budget", "move low-value sections to references/ until the body fits the budget", pass_budget },
	{ "hoist", "move gotchas, pitfalls and critical notes near the top", pass_hoist },
};
const size_t pass_count = ARRAY_LEN(pass_table);

const struct pass_def *pass_find(const char *name)
{
	for (size_t i = 0; i < pass_count; i++)
		if (!strcmp(pass_table[i].name, name))
			return &pass_table[i];
	return NULL;
}

bool pass_selected(const struct pass_def *p, const cJSON *profile, char **why)
{
	int sw = profile_pass_switch(profile, p->name);
	if (sw >= 0) {
		*why = xasprintf("the profile sets passes.%s to %s", p->name, sw ? "true" : "false");
		return sw;
	}
	if (!strcmp(p->name, "hoist")) {
		bool pref = profile_has(profile, "prefers", "gotchas_first");
		bool weak = profile_has(profile, "weaknesses", "loses_late_instructions");
		*why = pref || weak ? xasprintf("the profile %s", pref ? "prefers gotchas_first" : "has the weakness loses_late_instructions")
		                    : xstrdup("the profile neither prefers gotchas_first nor has the weakness loses_late_instructions");
		return pref || weak;
	}
	if (!strcmp(p->name, "refs"))
		*why = xstrdup(profile_has(profile, "prefers", "explicit_paths")
			       ? "every profile; paths are rewritten because the profile prefers explicit_paths"
			       : "every profile; report only, since the profile does not prefer explicit_paths");
	else if (!strcmp(p->name, "budget"))
		*why = xasprintf("every profile; acts when the body is over %ld tokens or %ld lines",
				 profile_budget_tokens(profile), profile_budget_lines(profile));
	else
		*why = xstrdup("every profile");
	return true;
}

/* ---- measuring and classifying ---------------------------------------- */

struct body_size body_measure(const struct skilldoc *d)
{
	struct body_size s = { (long)sd_body_lines(d), (long)sd_estimate_tokens(d->src + d->body, d->len - d->body) };
	return s;
}

static size_t count_lines(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

const char *section_class_name(enum section_class k)
{
	static const char *const names[] = { "gotcha", "core", "marketing", "reference", "example", "other" };
	return names[k];
}

/* Keyword rules on the lowercased heading: a word, a word prefix ("install*")
 * or a phrase of several words ("quick start"). */
static const char *const kw_gotcha[] = {
	"gotcha", "gotchas", "pitfall", "pitfalls", "caveat", "caveats", "warning", "warnings",
	"common mistakes", "common errors", "common pitfalls", "common issues", "known issues",
	"known limitations", "do not", "don't", "dont", "avoid", "anti-pattern*", "antipattern*",
	"never", "must know", "important notes", "important note", "important rules",
	"critical notes", "critical rules", "critical requirements", NULL,
};
static const char *const kw_core[] = {
	"quick start", "quickstart", "getting started", "usage", "how to", "workflow", "step", "steps",
	"procedure", "instructions", "when to use", "overview", "output", "checklist", "verif*",
	"validat*", "essentials", "core", "basics", NULL,
};
static const char *const kw_marketing[] = {
	"why", "benefit*", "feature*", "pricing", "price*", "plans", "support", "testimonial*",
	"customer*", "community", "contribut*", "licen*", "changelog", "change log", "roadmap",
	"acknowledg*", "credit*", "sponsor*", "contact", "upgrade*", "premium", "enterprise",
	"what's new", "news", "award*", NULL,
};
static const char *const kw_reference[] = {
	"reference*", "appendix", "api", "cli", "command*", "flag*", "option*", "parameter*",
	"argument*", "glossary", "table*", "list of", "full list", "catalog*", "format*",
	"specification*", "spec", "schema*", "advanced", "configuration", "config", "setup",
	"set up", "setting up", "install*", "deploy*", "troubleshoot*", "faq", "history",
	"background", "related", "see also", "resources", "further reading", "additional", "extra*",
	"misc*", NULL,
};
static const char *const kw_example[] = {
	"example*", "sample*", "demo*", "tutorial*", "walkthrough*", "worked", NULL,
};
static const char *const kw_intro[] = {
	"overview", "introduction", "intro", "about", "summary", "purpose", "description",
	"when to use", "what is", "what it does", "what this", NULL,
};

static char *lower_words(const char *s, size_t n)
{
	/* " word word " with single spaces, so " kw " finds whole words */
	struct buf b = BUF_INIT;
	buf_addc(&b, ' ');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c) || c == '\'' || c == '-' || c >= 0x80)
			buf_addc(&b, (char)tolower(c));
		else if (b.data[b.len - 1] != ' ')
			buf_addc(&b, ' ');
	}
	if (b.data[b.len - 1] != ' ')
		buf_addc(&b, ' ');
	return buf_detach(&b);
}

static bool has_keyword(const char *words, const char *const *kw)
{
	for (size_t i = 0; kw[i]; i++) {
		/* " kw " for a word or phrase, " kw" for a prefix ("install*") */
		char needle[64];
		size_t n = strlen(kw[i]);
		bool prefix = kw[i][n - 1] == '*';
		n -= prefix;
		if (n + 3 > sizeof needle)
			BUG("keyword '%s' is too long", kw[i]);
		needle[0] = ' ';
		memcpy(needle + 1, kw[i], n);
		needle[1 + n] = prefix ? '\0' : ' ';
		needle[2 + n] = '\0';
		if (strstr(words, needle))
			return true;
	}
	return false;
}

/* "Important", "CRITICAL!", "Critical notes": a short heading of alarm. */
static bool alarm_heading(const char *words)
{
	int n = 0;
	for (const char *p = words; *p; p++)
		n += p[0] == ' ' && p[1];
	return n <= 2 && (strstr(words, " important ") || strstr(words, " critical "));
}

enum section_class section_classify(const char *heading, size_t n)
{
	char *w = lower_words(heading, n);
	enum section_class k = has_keyword(w, kw_gotcha) || alarm_heading(w) ? SC_GOTCHA
	                       : has_keyword(w, kw_core)      ? SC_CORE
	                       : has_keyword(w, kw_marketing) ? SC_MARKETING
	                       : has_keyword(w, kw_reference) ? SC_REFERENCE
	                       : has_keyword(w, kw_example)   ? SC_EXAMPLE
	                                                      : SC_OTHER;
	free(w);
	return k;
}

static bool is_intro(const char *heading, size_t n)
{
	char *w = lower_words(heading, n);
	bool r = has_keyword(w, kw_intro);
	free(w);
	return r;
}

static const char *const stop_words[] = {
	"about", "after", "all", "allowed", "also", "and", "any", "apache", "are", "asks", "before",
	"but", "can", "compatibility", "description", "does", "each", "for", "from", "has", "have",
	"how", "into", "its", "license", "metadata", "mit", "more", "most", "name", "not", "one",
	"only", "other", "out", "over", "should", "skill", "some", "such", "task", "than", "that",
	"the", "their", "them", "then", "there", "these", "they", "this", "those", "tool", "tools",
	"two", "use", "used", "uses", "using", "very", "was", "what", "when", "which", "while",
	"who", "why", "will", "with", "you", "your",
};

/* The normal form of one word into w: lowercased, a plural 's' cut;
 * false for stop words and words under 3 letters. */
static bool norm_word(const char *s, size_t len, char w[41])
{
	if (len < 3 || len > 40)
		return false;
	for (size_t k = 0; k < len; k++)
		w[k] = (char)tolower((unsigned char)s[k]);
	w[len] = '\0';
	const char *key = w;
	if (bsearch(&key, stop_words, ARRAY_LEN(stop_words), sizeof *stop_words, cmp_str))
		return false;
	if (len > 3 && w[len - 1] == 's' && w[len - 2] != 's')
		w[len - 1] = '\0';
	return true;
}

/* Every content word of text, repeats kept, unsorted. */
static void word_tokens(const char *s, size_t n, struct strlist *out)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && !isalpha((unsigned char)s[i]))
			i++;
		size_t a = i;
		while (i < n && isalpha((unsigned char)s[i]))
			i++;
		char w[41];
		if (norm_word(s + a, i - a, w))
			strlist_push(out, w);
	}
}

/* The content words of text (lowercased, stop words and words under 3
 * letters dropped, a plural 's' cut), sorted and unique, added to out. */
static void text_words(const char *s, size_t n, struct strlist *out)
{
	struct strlist all = STRLIST_INIT;
	word_tokens(s, n, &all);
	strlist_sort(&all);
	for (size_t k = 0; k < all.n; k++)
		if (!k || strcmp(all.v[k], all.v[k - 1]))
			strlist_push(out, all.v[k]);
	strlist_free(&all);
	strlist_sort(out);
}

static const char *const marketing_lexicon[] = {
	"award", "beautiful", "best-in-class", "blazing", "customers", "cutting-edge", "effortless",
	"enterprise", "free trial", "friendliest", "industry-leading", "licence", "love",
	"powerful", "premium", "pricing", "revolutionary", "seamless", "subscription", "testimonial",
	"trusted", "unlock", "upgrade", "world-class",
};

static int count_marketing(const char *s, size_t n)
{
	char *w = lower_words(s, n);
	int k = 0;
	for (size_t i = 0; i < ARRAY_LEN(marketing_lexicon); i++) {
		char needle[32] = " ";
		size_t len = strlen(marketing_lexicon[i]) + 1;
		memcpy(needle + 1, marketing_lexicon[i], len);
		for (const char *p = w; (p = strstr(p, needle)); p += len)
			k++;
	}
	free(w);
	return k;
}

/* Lines led by a flag or a code span, as bullets or table cells: an
 * exhaustive API or flag list looks like this. */
static int count_list_items(const char *s, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && s[e] != '\n')
			e++;
		size_t p = i;
		while (p < e && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p + 1 < e && strchr("-*+|", s[p]) && s[p + 1] == ' ')
			p += 2;
		while (p < e && s[p] == ' ')
			p++;
		if (p + 1 < e && (s[p] == '`' || (s[p] == '-' && s[p + 1] == '-')))
			k++;
		i = e + 1;
	}
	return k;
}

/* % of the words of the section's prose (code blocks left out) that are
 * words of the name and description: low for marketing and for workflows
 * the skill is not about. */
static int relevance(const struct skilldoc *d, int s, const struct strlist *desc)
{
	const struct sd_section *sec = &d->sections[s];
	struct strlist w = STRLIST_INIT;
	for (size_t b = sec->block; b < sec->block_end; b++) {
		const struct sd_block *bl = &d->blocks[b];
		if (bl->kind != SD_FENCE && bl->kind != SD_INDENTED_CODE)
			word_tokens(d->src + bl->off, bl->len, &w);
	}
	size_t hit = 0;
	for (size_t i = 0; desc->n && i < w.n; i++) /* bsearch on an empty (NULL) list is UB */
		hit += bsearch(&w.v[i], desc->v, desc->n, sizeof *desc->v, cmp_str) != NULL;
	int r = w.n ? (int)(100 * hit / w.n) : 0;
	strlist_free(&w);
	return r;
}

static const char *heading_of(const struct skilldoc *d, int s, size_t *n)
{
	const struct sd_section *sec = &d->sections[s];
	if (sec->heading < 0) {
		*n = 0;
		return "";
	}
	*n = d->blocks[sec->heading].text.len;
	return d->src + d->blocks[sec->heading].text.off;
}

/* Scores section s of d, of class cls, against the description words
 * (sorted) for the profile. */
static void score_as(const struct skilldoc *d, int s, enum section_class cls, const struct strlist *desc_words,
		     const cJSON *profile, struct section_score *out)
{
	const struct sd_section *sec = &d->sections[s];
	memset(out, 0, sizeof *out);
	out->cls = cls;
	out->protected_ = out->cls == SC_GOTCHA || out->cls == SC_CORE;
	const char *text = d->src + sec->off;
	size_t len = sec->end - sec->off;
	size_t table_lines = 0, lines = 0;
	for (size_t b = sec->block; b < sec->block_end; b++) {
		const struct sd_block *bl = &d->blocks[b];
		if (bl->kind == SD_BLANK)
			continue;
		size_t k = count_lines(d->src + bl->off, bl->len);
		lines += k;
		if (bl->kind == SD_TABLE)
			table_lines += k;
	}
	out->table_pct = lines ? (int)(100 * table_lines / lines) : 0;
	out->list_items = count_list_items(text, len);
	out->marketing_words = count_marketing(text, len);
	out->relevance = relevance(d, s, desc_words);
	int score = 50;
	switch (out->cls) {
	case SC_MARKETING: score -= 40; break;
	case SC_REFERENCE: score -= 25; break;
	case SC_EXAMPLE: score -= 10; break;
	default: break;
	}
	if (out->table_pct >= 40)
		score -= profile_has(profile, "weaknesses", "tables") ? 25 : 10;
	if (out->list_items >= 12)
		score -= 15;
	if (out->marketing_words >= 3)
		score -= 20;
	score += out->relevance > 40 ? 40 : out->relevance;
	out->score = score < 0 ? 0 : score > 100 ? 100 : score;
	out->unrelated = out->relevance < 10 && (out->cls == SC_OTHER || out->cls == SC_EXAMPLE);
}

/* ---- edits shared by passes and plans ----------------------------------- */

int out_apply(struct skill_out *o, const struct skilldoc *d, const struct sd_edits *ed, struct err *e)
{
	struct buf b = BUF_INIT;
	if (sd_apply(d, ed, &b, e) < 0) {
		buf_free(&b);
		return -1;
	}
	skill_out_set_md(o, &b);
	return 0;
}

char *move_to_reference(const struct skill_src *src, struct skill_out *o, const struct skilldoc *d,
			int s, const char *when, struct sd_edits *ed)
{
	const struct sd_section *sec = &d->sections[s];
	char *file = skill_free_name(src, o, "references", *sec->slug ? sec->slug : "section", ".md");
	struct buf body = BUF_INIT;
	buf_add(&body, d->src + sec->off, sec->trim_end - sec->off);
	if (!body.len || body.data[body.len - 1] != '\n')
		buf_addc(&body, '\n');
	skill_out_add(o, file, body.data, body.len);
	buf_free(&body);
	char *ptr = xasprintf("\nRead [%s](%s) when %s.\n%s", file, file, when, sec->end < d->len ? "\n" : "");
	sd_edits_replace(ed, sec->content_off, sec->end - sec->content_off, ptr, strlen(ptr));
	free(ptr);
	return file;
}

int move_section_before(const struct skilldoc *d, int s, size_t dest, struct sd_edits *ed,
			struct err *e)
{
	const struct sd_section *sec = &d->sections[s];
	if ((dest > sec->off && dest < sec->end) || dest > d->len || dest < d->body)
		return err_set(e, ERR_INPUT, "cannot move section '%s' inside itself or out of the body", sec->id);
	struct buf t = BUF_INIT;
	buf_add(&t, d->src + sec->off, sec->trim_end - sec->off);
	buf_adds(&t, t.len && t.data[t.len - 1] == '\n' ? "\n" : "\n\n");
	if (dest == d->len && d->len > d->body && d->src[d->len - 1] != '\n') {
		/* after a last line without newline: end it first */
		sd_edits_insert(ed, dest, "\n\n", 2);
	}
	sd_edits_insert(ed, dest, t.data, t.len);
	/* the last section leaves no blank lines behind at the end */
	size_t from = sec->off;
	const struct sd_block *before = sec->block ? &d->blocks[sec->block - 1] : NULL; /* the block ending at off */
	if (sec->end == d->len && before && before->kind == SD_BLANK && before->off > dest)
		from = before->off;
	sd_edits_delete(ed, from, sec->end - from);
	buf_free(&t);
	return 0;
}

/* ---- refs ----------------------------------------------------------------- */

static void note_ref(cJSON *list, const char *file, const struct sd_ref *r, const char *why)
{
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "file", file);
	json_set_num(o, "line", r->line);
	json_set_str(o, "path", r->path);
	json_set_str(o, "origin", sd_ref_origin_name(r->origin));
	if (why)
		json_set_str(o, "why", why);
	cJSON_AddItemToArray(list, o);
}

/* The bytes of a reference as written, with a root prefix before it. */
static size_t ref_start(const struct skilldoc *d, const struct sd_ref *r)
{
	for (size_t k = 1; k <= 64 && k <= r->off; k++)
		if (guard_root_prefix(d->src + r->off - k, k) == k)
			return r->off - k;
	return r->off;
}

/* Checks the references of one Markdown text (model d); the rewritten
 * text goes to out when there is any. */
static int refs_in(const struct pass_ctx *c, const struct skill_out *o, const char *file,
		   const struct skilldoc *d, struct buf *out, bool rewrite, cJSON *notes, struct err *e)
{
	struct sd_edits ed = SD_EDITS_INIT;
	cJSON *dangling = json_get(notes, "dangling"), *escaping = json_get(notes, "escaping");
	cJSON *rewritten = json_get(notes, "rewritten");
	for (size_t i = 0; i < d->nrefs; i++) {
		const struct sd_ref *r = &d->refs[i];
		if (r->origin == SD_REF_BLOCK)
			continue; /* code blocks are never changed; lint reports them */
		const char *p = r->path;
		while (p[0] == '.' && p[1] == '/')
			p += 2;
		char *norm = *p == '/' ? NULL : path_normalize_rel(p);
		if (!norm) {
			note_ref(escaping, file, r, "leaves the skill folder; not followed");
			continue;
		}
		if (!skill_path_taken(c->src, o, norm)) {
			note_ref(dangling, file, r, "no such file in the skill");
			free(norm);
			continue;
		}
		free(norm);
		size_t start = ref_start(d, r);
		bool as_written = r->len == strlen(r->path) && !memcmp(d->src + r->off, r->path, r->len);
		if (rewrite && as_written && (start < r->off || p != r->path)) {
			sd_edits_replace(&ed, start, r->off + r->len - start, p, strlen(p));
			cJSON *o1 = cJSON_CreateObject();
			json_set_str(o1, "file", file);
			json_set_num(o1, "line", r->line);
			char *from = xstrndup(d->src + start, r->off + r->len - start);
			json_set_str(o1, "from", from);
			free(from);
			json_set_str(o1, "to", p);
			cJSON_AddItemToArray(rewritten, o1);
		}
	}
	int rc = ed.n ? sd_apply(d, &ed, out, e) : 0;
	sd_edits_free(&ed);
	return rc;
}

int pass_refs(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e)
{
	bool rewrite = profile_has(c->profile, "prefers", "explicit_paths");
	cJSON_AddItemToObject(notes, "rewritten", cJSON_CreateArray());
	cJSON_AddItemToObject(notes, "dangling", cJSON_CreateArray());
	cJSON_AddItemToObject(notes, "escaping", cJSON_CreateArray());
	json_set_bool(notes, "rewrite", rewrite);
	struct buf b = BUF_INIT;
	int rc = refs_in(c, o, c->src->md_name, skill_out_model(o), &b, rewrite, notes, e);
	if (rc == 0 && b.len)
		skill_out_set_md(o, &b);
	for (size_t i = 0; rc == 0 && i < o->n; i++) {
		size_t n = strlen(o->files[i].path);
		if (n <= 3 || strcmp(o->files[i].path + n - 3, ".md"))
			continue;
		rc = refs_in(c, o, o->files[i].path, pkg_file_model(&o->files[i]), &b, rewrite, notes, e);
		if (rc == 0 && b.len)
			pkg_file_set(&o->files[i], &b);
	}
	buf_free(&b);
	return rc;
}

/* ---- budget ----------------------------------------------------------------- */

static bool fits(struct body_size s, long tokens, long lines)
{
	return s.tokens <= tokens && s.lines <= lines;
}

static bool inside(const struct skilldoc *d, int s, int anc)
{
	for (int p = s; p >= 0; p = d->sections[p].parent)
		if (p == anc)
			return true;
	return false;
}

/* What the budget and hoist passes ask of every section, computed once
 * per model so that no question costs a walk over all sections. */
struct outline {
	enum section_class *cls;
	bool *gotcha_in;      /* the section or one inside it is a gotcha */
	int *kids, *kid_off;  /* children of s, in order: kids[kid_off[s] .. kid_off[s + 1]) */
	int container;        /* the one H1 holding the whole body, else the root (0) */
};

static void outline_init(struct outline *ol, const struct skilldoc *d)
{
	size_t n = d->nsections;
	ol->cls = xcalloc(n, sizeof *ol->cls);
	ol->gotcha_in = xcalloc(n, sizeof *ol->gotcha_in);
	ol->kid_off = xcalloc(n + 1, sizeof *ol->kid_off);
	ol->kids = xcalloc(n, sizeof *ol->kids);
	for (size_t k = 0; k < n; k++) {
		size_t hn;
		const char *h = heading_of(d, (int)k, &hn);
		ol->cls[k] = k ? section_classify(h, hn) : SC_OTHER;
		if (k)
			ol->kid_off[d->sections[k].parent + 1]++;
	}
	for (size_t k = 0; k < n; k++)
		ol->kid_off[k + 1] += ol->kid_off[k];
	int *fill = xcalloc(n, sizeof *fill);
	for (size_t k = 1; k < n; k++) {
		int p = d->sections[k].parent;
		ol->kids[ol->kid_off[p] + fill[p]++] = (int)k;
	}
	free(fill);
	for (size_t k = n; k-- > 1;) { /* children come after their parent */
		ol->gotcha_in[k] |= ol->cls[k] == SC_GOTCHA;
		ol->gotcha_in[d->sections[k].parent] |= ol->gotcha_in[k];
	}
	int top = ol->kid_off[1] - ol->kid_off[0];
	int h1 = top == 1 ? ol->kids[0] : 0;
	ol->container = h1 && d->sections[h1].level == 1 ? h1 : 0;
}

static void outline_free(struct outline *ol)
{
	free(ol->cls);
	free(ol->gotcha_in);
	free(ol->kids);
	free(ol->kid_off);
}

struct cand {
	int s;
	struct section_score sc;
	long tokens, lines;       /* what moving it saves */
};

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->sc.score != b->sc.score)
		return a->sc.score < b->sc.score ? -1 : 1;
	if (a->tokens != b->tokens)
		return a->tokens > b->tokens ? -1 : 1;
	return a->s - b->s;
}

static const char *when_text(const struct section_score *sc, long lines, char *buf, size_t n)
{
	if (sc->cls == SC_MARKETING || sc->marketing_words >= 3)
		snprintf(buf, n, "you want background on the product; the task does not need it");
	else if (sc->cls == SC_REFERENCE || sc->list_items >= 12 || sc->table_pct >= 40)
		snprintf(buf, n, "you need to look up an entry of this reference (%ld lines)", lines);
	else if (sc->cls == SC_CORE)
		snprintf(buf, n, "you carry out this part of the task: it holds the steps (%ld lines)", lines);
	else if (sc->unrelated)
		snprintf(buf, n, "the task involves this topic; skip it otherwise (%ld lines)", lines);
	else
		snprintf(buf, n, "you need the details of this section (%ld lines)", lines);
	return buf;
}

static cJSON *score_json(const struct skilldoc *d, const struct cand *c, bool moved)
{
	size_t hn;
	const char *h = heading_of(d, c->s, &hn);
	cJSON *o = cJSON_CreateObject();
	json_set_str(o, "id", d->sections[c->s].id);
	char *ht = xstrndup(h, hn);
	json_set_str(o, "heading", ht);
	free(ht);
	json_set_str(o, "class", section_class_name(c->sc.cls));
	json_set_num(o, "score", c->sc.score);
	json_set_num(o, "relevance", c->sc.relevance);
	json_set_num(o, "table_pct", c->sc.table_pct);
	json_set_num(o, "list_items", c->sc.list_items);
	json_set_num(o, "marketing_words", c->sc.marketing_words);
	json_set_bool(o, "protected", c->sc.protected_);
	json_set_num(o, "lines", c->lines);
	json_set_num(o, "tokens", c->tokens);
	json_set_bool(o, "moved", moved);
	return o;
}

static bool moved_near(const struct skilldoc *d, int s, const char *moved)
{
	for (int p = s; p > 0; p = d->sections[p].parent)
		if (moved[p])
			return true;
	for (size_t k = (size_t)s + 1; k < d->nsections && inside(d, (int)k, s); k++)
		if (moved[k])
			return true;
	return false;
}

static void cand_init(const struct skilldoc *d, const struct outline *ol, int s, const struct strlist *desc,
		      const cJSON *profile, struct cand *cd)
{
	const struct sd_section *sec = &d->sections[s];
	cd->s = s;
	score_as(d, s, ol->cls[s], desc, profile, &cd->sc);
	/* what the move saves: the content, less the pointer paragraph */
	cd->lines = (long)count_lines(d->src + sec->content_off, sec->end - sec->content_off) - 3;
	cd->tokens = (long)sd_estimate_tokens(d->src + sec->content_off, sec->end - sec->content_off) - 40;
}

static bool worth_moving(const struct cand *cd)
{
	return cd->lines >= 3 && cd->tokens >= 40;
}

/* Chooses the sections to move (moved[s] = 1) until size fits, and lists
 * every candidate it scored in scores. Tier by tier: the container's
 * children first, then the children of what stayed, so a few big moves come
 * before many small ones; gotcha and core sections stay (and so does a
 * section holding a gotcha: those notes stay in the body for every profile).
 * When that is not enough, a last round may move core sections too
 * (largest saving first among the lowest scores), never gotchas, never an
 * introduction. */
static void select_moves(const struct skilldoc *d, const struct outline *ol, const struct strlist *desc,
			 const cJSON *profile, long max_t, long max_l, struct body_size *size, char *moved,
			 cJSON *scores)
{
	struct cand *v = xcalloc(d->nsections, sizeof *v);
	int *parents = xcalloc(d->nsections + 1, sizeof *parents), np = 0;
	parents[np++] = ol->container;
	for (int tier = 0; tier < 3 && np && !fits(*size, max_t, max_l); tier++) {
		size_t nv = 0;
		for (int k = 0; k < np; k++)
			for (int i = ol->kid_off[parents[k]]; i < ol->kid_off[parents[k] + 1]; i++)
				cand_init(d, ol, ol->kids[i], desc, profile, &v[nv++]);
		qsort(v, nv, sizeof *v, cand_cmp);
		np = 0;
		for (size_t i = 0; i < nv; i++) {
			struct cand *cd = &v[i];
			bool go = !cd->sc.protected_ && !ol->gotcha_in[cd->s] && worth_moving(cd) &&
				  !fits(*size, max_t, max_l);
			if (go) {
				moved[cd->s] = 1;
				size->lines -= cd->lines;
				size->tokens -= cd->tokens;
			} else {
				parents[np++] = cd->s;
			}
			cJSON_AddItemToArray(scores, score_json(d, cd, go));
		}
	}
	if (!fits(*size, max_t, max_l)) {
		size_t nv = 0;
		for (size_t s = 1; s < d->nsections; s++) {
			size_t hn;
			const char *h = heading_of(d, (int)s, &hn);
			bool first = s == 1 || (int)s == ol->container;
			if (!first && !is_intro(h, hn) && !ol->gotcha_in[s] && !moved_near(d, (int)s, moved))
				cand_init(d, ol, (int)s, desc, profile, &v[nv++]);
		}
		qsort(v, nv, sizeof *v, cand_cmp);
		for (size_t i = 0; i < nv && !fits(*size, max_t, max_l); i++) {
			struct cand *cd = &v[i];
			if (!worth_moving(cd) || moved_near(d, cd->s, moved))
				continue;
			moved[cd->s] = 1;
			size->lines -= cd->lines;
			size->tokens -= cd->tokens;
			cJSON *j = score_json(d, cd, true);
			json_set_bool(j, "last_resort", true);
			cJSON_AddItemToArray(scores, j);
		}
	}
	free(parents);
	free(v);
}

int pass_budget(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e)
{
	long max_t = profile_budget_tokens(c->profile), max_l = profile_budget_lines(c->profile);
	struct skilldoc *d = sd_share(skill_out_model(o));
	struct body_size size = body_measure(d);
	json_set_num(notes, "budget_tokens", max_t);
	json_set_num(notes, "budget_lines", max_l);
	cJSON *moves = cJSON_AddArrayToObject(notes, "moved");
	cJSON *scores = cJSON_AddArrayToObject(notes, "scores");
	if (fits(size, max_t, max_l)) {
		json_set_str(notes, "result", "within budget: nothing moved");
		sd_free(d);
		return 0;
	}
	struct strlist desc = STRLIST_INIT;
	text_words(d->src + d->fm_yaml.off, d->fm_yaml.len, &desc);
	char *moved = xcalloc(d->nsections, 1);
	struct outline ol;
	outline_init(&ol, d);
	select_moves(d, &ol, &desc, c->profile, max_t, max_l, &size, moved, scores);
	struct sd_edits ed = SD_EDITS_INIT;
	for (size_t s = 1; s < d->nsections; s++) {
		if (!moved[s])
			continue;
		struct section_score sc;
		score_as(d, (int)s, ol.cls[s], &desc, c->profile, &sc);
		const struct sd_section *sec = &d->sections[s];
		long lines = (long)count_lines(d->src + sec->off, sec->trim_end - sec->off);
		char when[160];
		when_text(&sc, lines, when, sizeof when);
		char *file = move_to_reference(c->src, o, d, (int)s, when, &ed);
		cJSON *m = cJSON_CreateObject();
		json_set_str(m, "id", sec->id);
		json_set_str(m, "file", file);
		json_set_str(m, "class", section_class_name(sc.cls));
		json_set_num(m, "score", sc.score);
		json_set_num(m, "lines", lines);
		json_set_str(m, "when", when);
		cJSON_AddItemToArray(moves, m);
		free(file);
	}
	int rc = ed.n ? out_apply(o, d, &ed, e) : 0;
	if (rc == 0) {
		struct body_size now = body_measure(skill_out_model(o));
		json_set_str(notes, "result", fits(now, max_t, max_l) ? "within budget after moving"
			     : "still over budget: what is left is protected (gotchas, core steps) or too small to move");
	}
	sd_edits_free(&ed);
	outline_free(&ol);
	free(moved);
	strlist_free(&desc);
	sd_free(d);
	return rc;
}

/* ---- hoist ----------------------------------------------------------------- */

/* The first working child of each section: not the title, an
 * introduction, a gotcha, marketing or reference material (-1: none). */
static int *first_working(const struct skilldoc *d, const struct outline *ol)
{
	int *first = xmalloc(d->nsections * sizeof *first);
	for (size_t k = 0; k < d->nsections; k++)
		first[k] = -1;
	for (size_t k = 1; k < d->nsections; k++) {
		int parent = d->sections[k].parent;
		if (first[parent] >= 0)
			continue;
		size_t kn;
		const char *kh = heading_of(d, (int)k, &kn);
		bool title = k == 1 && d->sections[k].level == 1;
		enum section_class kc = ol->cls[k];
		if (!title && !is_intro(kh, kn) && kc != SC_GOTCHA && kc != SC_MARKETING && kc != SC_REFERENCE)
			first[parent] = (int)k;
	}
	return first;
}

int pass_hoist(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e)
{
	(void)c;
	struct skilldoc *d = sd_share(skill_out_model(o));
	cJSON *list = cJSON_AddArrayToObject(notes, "hoisted");
	cJSON *kept = cJSON_AddArrayToObject(notes, "already_early");
	struct sd_edits ed = SD_EDITS_INIT;
	struct outline ol;
	outline_init(&ol, d);
	int *first = first_working(d, &ol);
	int rc = 0;
	for (size_t s = 1; s < d->nsections && rc == 0; s++) {
		if (ol.cls[s] != SC_GOTCHA)
			continue;
		bool nested = false;
		for (int p = d->sections[s].parent; p > 0 && !nested; p = d->sections[p].parent)
			nested = ol.cls[p] == SC_GOTCHA;
		if (nested)
			continue;
		size_t hn;
		const char *h = heading_of(d, (int)s, &hn);
		int dest = first[d->sections[s].parent];
		char *ht = xstrndup(h, hn);
		if (dest < 0 || d->sections[dest].off > d->sections[s].off) {
			cJSON_AddItemToArray(kept, cJSON_CreateString(ht));
		} else {
			rc = move_section_before(d, (int)s, d->sections[dest].off, &ed, e);
			cJSON *m = cJSON_CreateObject();
			json_set_str(m, "id", d->sections[s].id);
			json_set_str(m, "heading", ht);
			char *before = xstrndup(d->src + d->blocks[d->sections[dest].heading].text.off,
						d->blocks[d->sections[dest].heading].text.len);
			json_set_str(m, "before", before);
			free(before);
			cJSON_AddItemToArray(list, m);
		}
		free(ht);
	}
	if (rc == 0 && ed.n)
		rc = out_apply(o, d, &ed, e);
	free(first);
	outline_free(&ol);
	sd_edits_free(&ed);
	sd_free(d);
	return rc;
}

/* ---- structure ------------------------------------------------------------- */

/* New heading levels: only the first H1 stays one (later H1s and what they
 * hold go one level down), then no level is more than one below its
 * parent's; a top-level heading that is not an H1 becomes an H2. */
static void fix_levels(const struct skilldoc *d, int *level)
{
	int h1 = 0;
	bool shift = false;
	for (size_t b = 0; b < d->nblocks; b++) {
		if (d->blocks[b].kind != SD_HEADING)
			continue;
		int l = d->blocks[b].level;
		if (l == 1 && h1++)
			shift = true;
		else if (l == 1)
			shift = false;
		level[b] = shift && l < 6 ? l + 1 : l;
	}
	int orig[8], now[8], depth = 0;
	for (size_t b = 0; b < d->nblocks; b++) {
		if (d->blocks[b].kind != SD_HEADING)
			continue;
		int l = level[b];
		while (depth > 0 && orig[depth - 1] >= l)
			depth--;
		int want = depth ? now[depth - 1] + 1 : (l == 1 ? 1 : 2);
		int n = l < want ? l : want;
		if (depth < 8) {
			orig[depth] = l;
			now[depth] = n;
			depth++;
		}
		level[b] = n;
	}
}

static bool is_code_block(const struct sd_block *b)
{
	return b->kind == SD_FENCE || b->kind == SD_INDENTED_CODE;
}

/* An ATX heading written again at level `to`, and noted in relevel. */
static void put_heading(struct buf *out, const char *text, size_t len, int from, int to, cJSON *relevel)
{
	for (int k = 0; k < to; k++)
		buf_addc(out, '#');
	buf_addc(out, ' ');
	buf_add(out, text, len);
	buf_addc(out, '\n');
	cJSON *h = cJSON_CreateObject();
	char *t = xstrndup(text, len);
	json_set_str(h, "heading", t);
	free(t);
	json_set_num(h, "from", from);
	json_set_num(h, "to", to);
	cJSON_AddItemToArray(relevel, h);
}

int pass_structure(const struct pass_ctx *c, struct skill_out *o, cJSON *notes, struct err *e)
{
	(void)c;
	(void)e;
	struct skilldoc *d = sd_share(skill_out_model(o));
	int *level = xcalloc(d->nblocks + 1, sizeof *level);
	fix_levels(d, level);
	cJSON *relevel = cJSON_AddArrayToObject(notes, "headings");
	long collapsed = 0, inserted = 0;
	struct buf out = BUF_INIT;
	buf_add(&out, d->src, d->body);
	bool any = false, blank = d->has_frontmatter;
	const struct sd_block *prev = NULL;
	for (size_t b = 0; b < d->nblocks; b++) {
		const struct sd_block *bl = &d->blocks[b];
		if (bl->kind == SD_BLANK) {
			collapsed += (long)count_lines(d->src + bl->off, bl->len) > 1 ||
				     bl->len != count_lines(d->src + bl->off, bl->len);
			blank = any || d->has_frontmatter;
			continue;
		}
		bool heading_edge = prev && (bl->kind == SD_HEADING || prev->kind == SD_HEADING);
		if (prev && !blank && heading_edge) {
			inserted++;
			blank = true;
		}
		if (blank)
			buf_addc(&out, '\n');
		if (prev && prev->len && d->src[prev->off + prev->len - 1] != '\n')
			buf_addc(&out, '\n'); /* cannot happen but a block must end its line */
		const char *text = d->src + bl->text.off;
		if (bl->kind == SD_HEADING && level[b] != bl->level && !memchr(text, '\n', bl->text.len))
			put_heading(&out, text, bl->text.len, bl->level, level[b], relevel);
		else
			buf_add(&out, d->src + bl->off, bl->len);
		any = true;
		blank = false;
		prev = bl;
	}
	/* a file ends with one newline, unless its last block is code (whose
	 * bytes are kept exactly) */
	if (prev && !is_code_block(prev) && out.len && out.data[out.len - 1] != '\n')
		buf_addc(&out, '\n');
	json_set_num(notes, "blank_runs_normalised", (double)collapsed);
	json_set_num(notes, "blank_lines_added", (double)inserted);
	skill_out_set_md(o, &out);
	free(level);
	sd_free(d);
	return 0;
}
