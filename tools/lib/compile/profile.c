#include "compile/profile.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <dirent.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"

const struct profile_term profile_prefers[] = {
	{ "numbered_steps", "hybrid: the planner is asked to keep procedures as numbered steps" },
	{ "explicit_paths", "refs: file references are rewritten as relative paths from the skill root" },
	{ "gotchas_first", "hoist: gotchas, pitfalls and critical notes move near the top" },
};
const size_t profile_prefers_count = ARRAY_LEN(profile_prefers);

const struct profile_term profile_weaknesses[] = {
	{ "loses_late_instructions", "hoist: gotchas, pitfalls and critical notes move near the top" },
	{ "tables", "budget: sections made mostly of tables are moved out first" },
	{ "long_prose", "hybrid: the planner is asked to split long sections and tighten long paragraphs" },
};
const size_t profile_weaknesses_count = ARRAY_LEN(profile_weaknesses);

const char *const profile_pass_names[] = { "structure", "refs", "budget", "hoist" };
const size_t profile_pass_count = ARRAY_LEN(profile_pass_names);

/* Fields a profile file may hold; those marked need a provenance note. */
static const struct {
	const char *key;
	bool provenance;
} fields[] = {
	{ "profile", false }, { "match", true }, { "about", false },
	{ "context_window", true }, { "body_budget", true }, { "prefers", true },
	{ "weaknesses", true }, { "passes", true }, { "provenance", false },
};

static const char *const bases[] = { "guess", "vendor", "measured" };

static bool in_terms(const struct profile_term *t, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, s))
			return true;
	return false;
}

static bool is_pass(const char *s)
{
	for (size_t i = 0; i < profile_pass_count; i++)
		if (!strcmp(profile_pass_names[i], s))
			return true;
	return false;
}

static bool known_field(const char *k)
{
	for (size_t i = 0; i < ARRAY_LEN(fields); i++)
		if (!strcmp(fields[i].key, k))
			return true;
	return false;
}

static bool positive_int(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= 1e9 &&
	       v->valuedouble == (double)(long)v->valuedouble;
}

static int check_terms(const cJSON *p, const char *key, const struct profile_term *t, size_t n,
		       const char *what, struct err *e)
{
	const cJSON *a = json_get(p, key);
	if (!cJSON_IsArray(a))
		return err_set(e, ERR_INPUT, "%s: \"%s\" must be a list of terms (use [] for none)", what, key);
	for (const cJSON *c = a->child; c; c = c->next) {
		if (!cJSON_IsString(c) || !in_terms(t, n, c->valuestring)) {
			struct buf allowed = BUF_INIT;
			for (size_t i = 0; i < n; i++)
				buf_printf(&allowed, "%s%s", i ? ", " : "", t[i].name);
			err_set(e, ERR_INPUT, "%s: unknown %s term '%s': use %s", what, key,
				cJSON_IsString(c) ? c->valuestring : "(not a string)", allowed.data);
			buf_free(&allowed);
			return -1;
		}
	}
	return 0;
}

static int compile_match(const char *pattern, pcre2_code **out, const char *what, struct err *e)
{
	int code;
	PCRE2_SIZE at;
	*out = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &at, NULL);
	if (!*out) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(code, msg, sizeof msg);
		return err_set(e, ERR_INPUT, "%s: bad \"match\" pattern at offset %zu: %s", what, (size_t)at, (char *)msg);
	}
	return 0;
}

static int check_provenance(const cJSON *p, const char *what, struct err *e)
{
	const cJSON *prov = json_get(p, "provenance");
	if (!cJSON_IsObject(prov))
		return err_set(e, ERR_INPUT, "%s: \"provenance\" must be an object with a note per field", what);
	for (size_t i = 0; i < ARRAY_LEN(fields); i++) {
		if (!fields[i].provenance || !json_get(p, fields[i].key))
			continue;
		const cJSON *n = json_get(prov, fields[i].key);
		const char *basis = json_str(n, "basis"), *why = json_str(n, "why");
		bool ok = false;
		for (size_t k = 0; basis && k < ARRAY_LEN(bases); k++)
			ok |= !strcmp(basis, bases[k]);
		if (!ok || !why || !*why)
			return err_set(e, ERR_INPUT, "%s: provenance.%s needs {\"basis\": \"guess\"|\"vendor\"|\"measured\", \"why\": \"...\"}",
				       what, fields[i].key);
	}
	for (const cJSON *c = prov->child; c; c = c->next)
		if (!known_field(c->string) || !json_get(p, c->string))
			return err_set(e, ERR_INPUT, "%s: provenance.%s names no field of the profile", what, c->string);
	return 0;
}

int profile_check(const cJSON *p, const char *what, struct err *e)
{
	if (!cJSON_IsObject(p))
		return err_set(e, ERR_INPUT, "%s: a profile must be a JSON object", what);
	for (const cJSON *c = p->child; c; c = c->next)
		if (!known_field(c->string))
			return err_set(e, ERR_INPUT, "%s: unknown field \"%s\" (see docs/static.md#model-profiles)", what, c->string);
	const char *name = json_str(p, "profile");
	if (!name || !name_is_safe(name))
		return err_set(e, ERR_INPUT, "%s: \"profile\" must be a name of letters, digits, '.', '_' and '-'", what);
	const cJSON *m = json_get(p, "match");
	if (m) {
		pcre2_code *re;
		if (!cJSON_IsString(m) || !*m->valuestring)
			return err_set(e, ERR_INPUT, "%s: \"match\" must be a PCRE2 pattern", what);
		if (compile_match(m->valuestring, &re, what, e) < 0)
			return -1;
		pcre2_code_free(re);
	} else if (strcmp(name, "default")) {
		return err_set(e, ERR_INPUT, "%s: \"match\" is missing (only the default profile has none)", what);
	}
	const cJSON *ctx = json_get(p, "context_window");
	if (!positive_int(ctx))
		return err_set(e, ERR_INPUT, "%s: \"context_window\" must be a whole number of tokens", what);
	const cJSON *b = json_get(p, "body_budget");
	if (!positive_int(json_get(b, "tokens")) || !positive_int(json_get(b, "lines")) ||
	    cJSON_GetArraySize(b) != 2)
		return err_set(e, ERR_INPUT, "%s: \"body_budget\" must be {\"tokens\": N, \"lines\": N} with whole numbers", what);
	if (json_num(b, "tokens", 0) >= ctx->valuedouble)
		return err_set(e, ERR_INPUT, "%s: body_budget.tokens must be below context_window", what);
	if (check_terms(p, "prefers", profile_prefers, profile_prefers_count, what, e) < 0 ||
	    check_terms(p, "weaknesses", profile_weaknesses, profile_weaknesses_count, what, e) < 0)
		return -1;
	const cJSON *passes = json_get(p, "passes");
	if (passes && !cJSON_IsObject(passes))
		return err_set(e, ERR_INPUT, "%s: \"passes\" must be an object like {\"hoist\": false}", what);
	for (const cJSON *c = passes ? passes->child : NULL; c; c = c->next)
		if (!is_pass(c->string) || !cJSON_IsBool(c))
			return err_set(e, ERR_INPUT, "%s: passes.%s: name one of structure, refs, budget, hoist with true or false", what, c->string);
	return check_provenance(p, what, e);
}

cJSON *profile_load(const char *path, struct err *e)
{
	cJSON *p = json_read_file(path, e);
	if (!p)
		return NULL;
	if (profile_check(p, path, e) < 0) {
		cJSON_Delete(p);
		return NULL;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *name = json_str(p, "profile");
	size_t n = strlen(name);
	if (strncmp(base, name, n) || strcmp(base + n, ".json")) {
		err_set(e, ERR_INPUT, "%s: \"profile\" is '%s' but the file is named '%s': name the file %s.json", path, name, base, name);
		cJSON_Delete(p);
		return NULL;
	}
	return p;
}

/* The *.json files of dir in byte order (hidden files skipped). */
static int list_profiles(const char *dir, struct strlist *out, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, ERR_INPUT, "cannot read profiles folder '%s':", dir);
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] != '.' && n > 5 && !strcmp(de->d_name + n - 5, ".json"))
			strlist_push_owned(out, path_join(dir, de->d_name));
	}
	closedir(d);
	strlist_sort(out);
	return 0;
}

struct candidate {
	cJSON *p;
	const char *source; /* "user" or "builtin" */
	char *file;
};

struct search {
	struct candidate *v;
	size_t n, cap;
};

static int load_dir(struct search *s, const char *dir, const char *source, struct err *e)
{
	struct strlist files = STRLIST_INIT;
	int rc = list_profiles(dir, &files, e);
	for (size_t i = 0; rc == 0 && i < files.n; i++) {
		cJSON *p = profile_load(files.v[i], e);
		if (!p) {
			rc = -1;
			break;
		}
		GROW(s->v, s->n, s->cap);
		s->v[s->n++] = (struct candidate){ p, source, xstrdup(files.v[i]) };
	}
	strlist_free(&files);
	return rc;
}

/* 1 and the matched text when the candidate's pattern finds the model. */
static int matches(const struct candidate *c, const char *model, char **text)
{
	const char *pat = json_str(c->p, "match");
	pcre2_code *re;
	struct err e;
	if (!pat || compile_match(pat, &re, c->file, &e) < 0)
		return 0;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc = pcre2_match(re, (PCRE2_SPTR)model, strlen(model), 0, 0, md, NULL);
	if (rc >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		*text = xstrndup(model + ov[0], ov[1] - ov[0]);
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc >= 0;
}

static cJSON *resolved(const struct candidate *c, const char *model, const char *why,
		       const char *text, cJSON *also)
{
	cJSON *r = cJSON_CreateObject();
	json_set_num(r, "format", PROFILE_FORMAT);
	json_set_str(r, "model", model);
	json_set_str(r, "name", json_str(c->p, "profile"));
	json_set_str(r, "source", c->source);
	const char *base = strrchr(c->file, '/');
	json_set_str(r, "file", base ? base + 1 : c->file);
	json_set_str(r, "why", why);
	json_set_str(r, "matched", text);
	json_set(r, "also_matched", also);
	json_set(r, "profile", cJSON_Duplicate(c->p, 1));
	return r;
}

cJSON *profile_resolve(const char *model, const char *user_dir, const char *builtin_dir,
		       struct err *e)
{
	struct search s = { 0 };
	cJSON *out = NULL;
	if (user_dir && *user_dir && fs_is_dir(user_dir) && load_dir(&s, user_dir, "user", e) < 0)
		goto done;
	if (!fs_is_dir(builtin_dir)) {
		err_set(e, ERR_INPUT, "no built-in profiles at '%s': set SKILLC_RULES to the rules folder (make does)", builtin_dir);
		goto done;
	}
	if (load_dir(&s, builtin_dir, "builtin", e) < 0)
		goto done;
	const struct candidate *win = NULL;
	char *text = NULL;
	cJSON *also = cJSON_CreateArray();
	for (size_t i = 0; *model && i < s.n; i++) {
		char *t = NULL;
		if (!matches(&s.v[i], model, &t))
			continue;
		if (!win) {
			win = &s.v[i];
			text = t;
		} else {
			char *a = xasprintf("%s (%s)", json_str(s.v[i].p, "profile"), s.v[i].source);
			cJSON_AddItemToArray(also, cJSON_CreateString(a));
			free(a);
			free(t);
		}
	}
	char *why;
	if (win) {
		why = xasprintf("model id '%s' matches /%s/ of the %s profile %s at '%s' (first match; user profiles are tried before built-in ones, in file-name order)",
				model, json_str(win->p, "match"), win->source, json_str(win->p, "profile"), text);
	} else {
		for (size_t i = 0; i < s.n && !win; i++)
			if (!strcmp(json_str(s.v[i].p, "profile"), "default"))
				win = &s.v[i];
		if (!win) {
			err_set(e, ERR_INPUT, "no profile matches model '%s' and there is no default.json in '%s'", model, builtin_dir);
			cJSON_Delete(also);
			goto done;
		}
		why = *model ? xasprintf("no profile's pattern matches model id '%s': the %s default profile applies", model, win->source)
		             : xasprintf("MODEL is empty: the %s default profile applies", win->source);
	}
	out = resolved(win, model, why, text ? text : "", also);
	free(why);
	free(text);
done:
	for (size_t i = 0; i < s.n; i++) {
		cJSON_Delete(s.v[i].p);
		free(s.v[i].file);
	}
	free(s.v);
	return out;
}

bool profile_has(const cJSON *p, const char *list, const char *term)
{
	return json_has_str(json_get(p, list), term);
}

long profile_budget_tokens(const cJSON *p)
{
	return (long)json_num(json_get(p, "body_budget"), "tokens", 5000);
}

long profile_budget_lines(const cJSON *p)
{
	return (long)json_num(json_get(p, "body_budget"), "lines", 500);
}

int profile_pass_switch(const cJSON *p, const char *pass)
{
	const cJSON *v = json_get(json_get(p, "passes"), pass);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}
