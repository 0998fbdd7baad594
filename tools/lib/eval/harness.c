#include "eval/harness.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <dirent.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"

static const char *const field_names[HF_COUNT] = {
	"kind", "title", "content", "status", "tool", "arguments", "system",
};
static const char *const use_names[HU_COUNT] = { "invoked", "read", "catalog" };
static const char *const src_names[HS_COUNT] = { "acp", "llm" };

struct harness_rule {
	pcre2_code *re[HF_COUNT];
};

struct harness_rules {
	struct harness_rule *v;
	size_t n;
};

/* Which fields each (use, source) may test. */
static bool field_allowed(int use, int src, int f)
{
	if (src == HS_ACP)
		return use != HU_CATALOG && (f == HF_KIND || f == HF_TITLE || f == HF_CONTENT || f == HF_STATUS);
	if (use == HU_CATALOG)
		return f == HF_SYSTEM;
	return f == HF_TOOL || f == HF_ARGUMENTS;
}

char *harness_rules_dir(const char *dir, struct err *e)
{
	if (dir && *dir) {
		if (!fs_is_dir(dir)) {
			err_set(e, ERR_INPUT, "rules folder '%s' does not exist", dir);
			return NULL;
		}
		return xstrdup(dir);
	}
	char *found = rules_dir();
	if (!found)
		err_set(e, ERR_INPUT, "cannot find the rules folder (rules/harness/*.json): pass --rules DIR or set SKILLC_RULES");
	return found;
}

/* "{skill}" -> the name with every non-alphanumeric byte escaped. */
static char *expand(const char *pat, const char *skill)
{
	struct buf b = BUF_INIT;
	for (const char *p = pat; *p;) {
		if (!strncmp(p, "{skill}", 7)) {
			for (const char *s = skill; *s; s++) {
				if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
					buf_addc(&b, '\\');
				buf_addc(&b, *s);
			}
			p += 7;
		} else {
			buf_addc(&b, *p++);
		}
	}
	return buf_detach(&b);
}

static pcre2_code *compile(const char *pat, const char *where, const char *file, struct err *e)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		err_set(e, ERR_INPUT, "'%s': %s: pattern does not compile at offset %zu: %s; fix the file",
			file, where, (size_t)off, (const char *)msg);
	}
	return re;
}

static void rule_free(struct harness_rule *r)
{
	for (int f = 0; f < HF_COUNT; f++)
		pcre2_code_free(r->re[f]);
}

/* Compiles doc.skill_use.<use>.<src> for one skill into out. */
static int compile_set(const cJSON *arr, int use, int src, const char *skill, const char *file,
		       struct harness_rules *out, struct err *e)
{
	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return err_set(e, ERR_INPUT, "'%s': skill_use.%s.%s must be an array of rule objects",
			       file, use_names[use], src_names[src]);
	size_t n = (size_t)cJSON_GetArraySize(arr);
	out->v = xcalloc(n, sizeof *out->v);
	size_t i = 0;
	for (const cJSON *r = arr->child; r; r = r->next, i++) {
		char where[96];
		snprintf(where, sizeof where, "skill_use.%s.%s[%zu]", use_names[use], src_names[src], i);
		if (!cJSON_IsObject(r) || !r->child)
			return err_set(e, ERR_INPUT, "'%s': %s must be an object of field: pattern", file, where);
		bool named = false;
		struct harness_rule *hr = &out->v[out->n++];
		for (const cJSON *m = r->child; m; m = m->next) {
			int f = 0;
			while (f < HF_COUNT && strcmp(field_names[f], m->string))
				f++;
			if (f == HF_COUNT || !field_allowed(use, src, f))
				return err_set(e, ERR_INPUT, "'%s': %s: field '%s' cannot be tested here", file, where, m->string);
			if (!cJSON_IsString(m))
				return err_set(e, ERR_INPUT, "'%s': %s.%s must be a string", file, where, m->string);
			if (strstr(m->valuestring, "{skill}"))
				named = true;
			char *pat = expand(m->valuestring, skill);
			hr->re[f] = compile(pat, where, file, e);
			free(pat);
			if (!hr->re[f])
				return -1;
		}
		if (!named)
			return err_set(e, ERR_INPUT, "'%s': %s has no {skill} placeholder: a rule must name our skill, "
				       "not any skill", file, where);
	}
	return 0;
}

static bool valid_file_name(const char *name)
{
	return name_is_safe(name) && strlen(name) < 128;
}

static void list_names(const char *rules_dir, struct strlist *out)
{
	char *dir = path_join(rules_dir, "harness");
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 5 && !strcmp(de->d_name + n - 5, ".json") && de->d_name[0] != '.')
			strlist_push_owned(out, xstrndup(de->d_name, n - 5));
	}
	closedir(d);
	strlist_sort(out);
}

/* Space-separated names of every rules/harness/NAME.json. Caller frees. */
static char *harness_known(const char *rules_dir)
{
	struct strlist l = STRLIST_INIT;
	list_names(rules_dir, &l);
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < l.n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", l.v[i]);
	strlist_free(&l);
	return buf_detach(&b);
}

int harness_load(struct harness *h, const char *rules_dir, const char *name,
		 const struct strlist *skills, struct err *e)
{
	memset(h, 0, sizeof *h);
	if (!valid_file_name(name))
		return err_set(e, ERR_INPUT, "bad harness name '%s': use letters, digits, '.', '_' and '-'", name);
	h->name = xstrdup(name);
	char *file = xasprintf("%s.json", name), *dir = path_join(rules_dir, "harness");
	h->path = rules_find_in("HARNESS_PATH", dir, file, NULL); /* users' harnesses first */
	if (!h->path) {
		char *known = harness_known(rules_dir);
		err_set(e, ERR_INPUT, "unknown harness '%s': no %s in %s%s (known: %s)", name, file, dir,
			getenv("HARNESS_PATH") ? " or HARNESS_PATH" : "", *known ? known : "none");
		free(known);
	}
	free(file);
	free(dir);
	if (!h->path)
		return -1;
	h->doc = json_read_file(h->path, e);
	if (!h->doc)
		return -1;
	if (!cJSON_IsObject(h->doc))
		return err_set(e, ERR_INPUT, "'%s' must hold a JSON object", h->path);
	const cJSON *use = json_get(h->doc, "skill_use");
	if (use && !cJSON_IsObject(use))
		return err_set(e, ERR_INPUT, "'%s': skill_use must be an object", h->path);
	/* compile once with a stand-in name so a broken file fails even with no skills */
	struct strlist names = STRLIST_INIT;
	strlist_push(&names, "x");
	for (size_t i = 0; skills && i < skills->n; i++)
		strlist_push(&names, skills->v[i]);
	h->rules = xcalloc(names.n * HU_COUNT * HS_COUNT, sizeof *h->rules);
	for (size_t i = 0; skills && i < skills->n; i++)
		strlist_push(&h->skills, skills->v[i]);
	int r = 0;
	for (size_t s = 0; r == 0 && s < names.n; s++)
		for (int u = 0; r == 0 && u < HU_COUNT; u++)
			for (int src = 0; r == 0 && src < HS_COUNT; src++) {
				const cJSON *set = json_get(json_get(use, use_names[u]), src_names[src]);
				r = compile_set(set, u, src, names.v[s], h->path,
						&h->rules[(s * HU_COUNT + (size_t)u) * HS_COUNT + (size_t)src], e);
			}
	strlist_free(&names);
	return r;
}

void harness_free(struct harness *h)
{
	if (h->rules) {
		size_t n = (h->skills.n + 1) * HU_COUNT * HS_COUNT;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < h->rules[i].n; j++)
				rule_free(&h->rules[i].v[j]);
			free(h->rules[i].v);
		}
		free(h->rules);
	}
	strlist_free(&h->skills);
	cJSON_Delete(h->doc);
	free(h->name);
	free(h->path);
	memset(h, 0, sizeof *h);
}

const char *harness_agent(const struct harness *h, const char *runner)
{
	const char *a = json_str(json_get(json_get(h->doc, "runners"), runner), "agent");
	return a && *a ? a : h->name;
}

char *harness_for_agent(const char *rules_dir, const char *runner, const char *agent)
{
	struct strlist l = STRLIST_INIT;
	list_names(rules_dir, &l);
	char *found = NULL;
	for (size_t i = 0; !found && i < l.n; i++) {
		char *p = xasprintf("%s/harness/%s.json", rules_dir, l.v[i]);
		cJSON *doc = json_read_opt(p);
		free(p);
		const char *a = json_str(json_get(json_get(doc, "runners"), runner), "agent");
		if ((a && !strcmp(a, agent)) || !strcmp(l.v[i], agent))
			found = xstrdup(l.v[i]);
		cJSON_Delete(doc);
	}
	strlist_free(&l);
	return found;
}

/* ---- matching ---- */

static bool re_match(const pcre2_code *re, const char *s, pcre2_match_data *md)
{
	return pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL) >= 0;
}

/* The text blocks of an ACP tool_call's content: text, or a diff's path. */
static bool content_match(const pcre2_code *re, const cJSON *content, pcre2_match_data *md)
{
	if (cJSON_IsString(content))
		return re_match(re, content->valuestring, md);
	for (const cJSON *c = cJSON_IsArray(content) ? content->child : NULL; c; c = c->next) {
		const char *t = json_str(json_get(c, "content"), "text");
		if (!t)
			t = json_str(c, "text");
		if (!t)
			t = json_str(c, "path");
		if (t && re_match(re, t, md))
			return true;
	}
	return false;
}

struct fields {
	const char *v[HF_COUNT];
	const cJSON *content;
};

static bool rule_match(const struct harness_rule *r, const struct fields *f, pcre2_match_data *md)
{
	for (int i = 0; i < HF_COUNT; i++) {
		if (!r->re[i])
			continue;
		if (i == HF_CONTENT) {
			if (!content_match(r->re[i], f->content, md))
				return false;
		} else if (!re_match(r->re[i], f->v[i] ? f->v[i] : "", md)) {
			return false;
		}
	}
	return true;
}

static const struct harness_rules *rules_for(const struct harness *h, size_t skill, int use, int src)
{
	/* slot 0 holds the stand-in "x"; our skills start at 1 */
	return &h->rules[((skill + 1) * HU_COUNT + (size_t)use) * HS_COUNT + (size_t)src];
}

/* Tests one set of fields against (use, src) for every skill; true if any matched. */
static bool scan(const struct harness *h, int use, int src, const struct fields *f, struct skill_use *u,
		 pcre2_match_data *md)
{
	bool any = false;
	for (size_t s = 0; s < h->skills.n; s++) {
		const struct harness_rules *rs = rules_for(h, s, use, src);
		for (size_t i = 0; i < rs->n; i++) {
			if (!rule_match(&rs->v[i], f, md))
				continue;
			any = true;
			struct strlist *names = use == HU_INVOKED ? &u->invoked_names
						: use == HU_READ ? &u->read_names : &u->catalog_names;
			strlist_push_new(names, h->skills.v[s]);
			break;
		}
	}
	if (any) {
		if (use == HU_INVOKED)
			u->invoked = true;
		else if (use == HU_READ)
			u->read = true;
		else
			u->catalog = true;
	}
	return any;
}

void harness_scan_acp(const struct harness *h, const cJSON *event, struct skill_use *u)
{
	const char *type = json_str(event, "type");
	if (!type || strcmp(type, "tool_call") || !h->skills.n)
		return;
	struct fields f = { { 0 }, NULL };
	f.v[HF_KIND] = json_str(event, "kind");
	f.v[HF_TITLE] = json_str(event, "title");
	f.v[HF_STATUS] = json_str(event, "status");
	f.content = json_get(event, "content");
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	if (scan(h, HU_INVOKED, HS_ACP, &f, u, md))
		u->acp_invocations++;
	scan(h, HU_READ, HS_ACP, &f, u, md);
	pcre2_match_data_free(md);
}

/* A message's text: a string, or the text parts of an array. */
static void add_text(struct buf *b, const cJSON *content)
{
	if (cJSON_IsString(content)) {
		buf_adds(b, content->valuestring);
		buf_addc(b, '\n');
		return;
	}
	for (const cJSON *c = cJSON_IsArray(content) ? content->child : NULL; c; c = c->next) {
		const char *t = json_str(c, "text");
		if (t) {
			buf_adds(b, t);
			buf_addc(b, '\n');
		}
	}
}

static void scan_tool_call(const struct harness *h, const char *tool, const char *args, struct skill_use *u,
			   pcre2_match_data *md)
{
	struct fields f = { { 0 }, NULL };
	f.v[HF_TOOL] = tool;
	f.v[HF_ARGUMENTS] = args;
	if (scan(h, HU_INVOKED, HS_LLM, &f, u, md))
		u->llm_invocations++;
	scan(h, HU_READ, HS_LLM, &f, u, md);
}

void harness_scan_tool_call(const struct harness *h, const char *tool, const char *args, struct skill_use *u)
{
	if (!h->skills.n)
		return;
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	scan_tool_call(h, tool, args, u, md);
	pcre2_match_data_free(md);
}

void harness_scan_llm(const struct harness *h, const cJSON *exchange, struct skill_use *u)
{
	if (!h->skills.n)
		return;
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	const char *purpose = json_str(json_get(exchange, "metadata"), "call_purpose");
	const cJSON *req = json_get(json_get(exchange, "request"), "body");
	if (!purpose || !strcmp(purpose, "agent")) {
		struct buf sys = BUF_INIT;
		for (const cJSON *m = json_get(req, "messages") ? json_get(req, "messages")->child : NULL; m; m = m->next) {
			const char *role = json_str(m, "role");
			if (role && (!strcmp(role, "system") || !strcmp(role, "developer")))
				add_text(&sys, json_get(m, "content"));
		}
		add_text(&sys, json_get(req, "system"));        /* Anthropic messages */
		add_text(&sys, json_get(req, "instructions"));  /* Responses API */
		if (sys.len) {
			u->catalog_seen = true;
			struct fields f = { { 0 }, NULL };
			f.v[HF_SYSTEM] = sys.data;
			scan(h, HU_CATALOG, HS_LLM, &f, u, md);
		}
		buf_free(&sys);
	}
	const cJSON *body = json_get(json_get(exchange, "response"), "body");
	/* OpenAI chat completions */
	for (const cJSON *ch = json_get(body, "choices") ? json_get(body, "choices")->child : NULL; ch; ch = ch->next) {
		const cJSON *tcs = json_get(json_get(ch, "message"), "tool_calls");
		for (const cJSON *tc = tcs ? tcs->child : NULL; tc; tc = tc->next) {
			const cJSON *fn = json_get(tc, "function");
			scan_tool_call(h, json_str(fn, "name"), json_str(fn, "arguments"), u, md);
		}
	}
	/* Anthropic messages (content[].tool_use) and Responses API (output[].function_call) */
	static const char *const lists[] = { "content", "output" };
	for (size_t l = 0; l < ARRAY_LEN(lists); l++) {
		const cJSON *arr = json_get(body, lists[l]);
		for (const cJSON *c = cJSON_IsArray(arr) ? arr->child : NULL; c; c = c->next) {
			const char *type = json_str(c, "type");
			if (!type)
				continue;
			if (!strcmp(type, "tool_use")) {
				struct buf args = BUF_INIT;
				const cJSON *in = json_get(c, "input");
				if (in)
					json_canon(in, false, &args);
				scan_tool_call(h, json_str(c, "name"), args.data, u, md);
				buf_free(&args);
			} else if (!strcmp(type, "function_call")) {
				scan_tool_call(h, json_str(c, "name"), json_str(c, "arguments"), u, md);
			}
		}
	}
	pcre2_match_data_free(md);
}

void skill_use_free(struct skill_use *u)
{
	strlist_free(&u->invoked_names);
	strlist_free(&u->read_names);
	strlist_free(&u->catalog_names);
}
