#include "local/launch.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/fs.h"
#include "base/json.h"

static int string_list(const struct launch *h, const char *key, struct strlist *out, bool need, struct err *e)
{
	cJSON *a = json_get(h->doc, key);
	if (!a && !need)
		return 0;
	if (!cJSON_IsArray(a) || (need && !a->child))
		return err_set(e, ERR_INPUT, "%s: \"%s\" must be a non-empty list of strings", h->file, key);
	for (cJSON *c = a->child; c; c = c->next) {
		if (!cJSON_IsString(c) || !*c->valuestring)
			return err_set(e, ERR_INPUT, "%s: \"%s\" must be a list of strings", h->file, key);
		strlist_push(out, c->valuestring);
	}
	return 0;
}

int launch_load(const char *name, struct launch *h, struct err *e)
{
	memset(h, 0, sizeof *h);
	if (!name_is_safe(name))
		return err_set(e, ERR_INPUT, "harness name '%s' is not a safe name ([A-Za-z0-9._-])", name);
	h->name = xstrdup(name);
	struct strlist tried = STRLIST_INIT;
	char *file = xasprintf("%s.json", name);
	h->file = rules_find("HARNESS_PATH", "harness", file, &tried);
	free(file);
	if (!h->file) {
		struct buf b = BUF_INIT;
		for (size_t i = 0; i < tried.n; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", tried.v[i]);
		err_set(e, ERR_INPUT, "no harness file %s.json in %s (add one there or to a HARNESS_PATH directory)",
			name, b.len ? b.data : "any rules directory");
		buf_free(&b);
		strlist_free(&tried);
		return -1;
	}
	strlist_free(&tried);
	h->doc = json_read_file(h->file, e);
	if (!h->doc)
		return -1;
	if (!cJSON_IsObject(h->doc))
		return err_set(e, ERR_INPUT, "%s: must hold a JSON object", h->file);
	if (!json_get(h->doc, "acp_command"))
		return err_set(e, ERR_INPUT, "harness '%s' cannot run with RUNNER=local: %s has no \"acp_command\" "
			       "(the command starting its ACP server, e.g. [\"opencode\", \"acp\"]); add one, in a copy "
			       "of the file in a HARNESS_PATH folder, or use RUNNER=benchflow", name, h->file);
	if (string_list(h, "acp_command", &h->argv, true, e) < 0 ||
	    string_list(h, "skill_paths", &h->skill_paths, false, e) < 0)
		return -1;
	for (size_t i = 0; i < h->skill_paths.n; i++) {
		const char *d = h->skill_paths.v[i];
		char *norm = path_normalize_rel(d[0] == '~' && d[1] == '/' ? d + 2 : d[0] == '/' ? d + 1 : d);
		bool ok = norm && *norm && (d[0] == '/' || (d[0] == '~' && d[1] == '/'));
		free(norm);
		if (!ok)
			return err_set(e, ERR_INPUT, "%s: skill_paths entry '%s' must be ~/path or /path", h->file, d);
	}
	h->config_files = json_get(h->doc, "config_files");
	if (h->config_files && !cJSON_IsArray(h->config_files))
		return err_set(e, ERR_INPUT, "%s: \"config_files\" must be a list", h->file);
	for (const cJSON *c = h->config_files ? h->config_files->child : NULL; c; c = c->next) {
		if (!json_str(c, "path") || (!json_get(c, "json") && !cJSON_IsString(json_get(c, "text"))))
			return err_set(e, ERR_INPUT, "%s: each config_files entry needs \"path\" and \"json\" or \"text\"", h->file);
	}
	h->env = json_get(h->doc, "env");
	if (h->env && !cJSON_IsObject(h->env))
		return err_set(e, ERR_INPUT, "%s: \"env\" must be an object of strings", h->file);
	for (const cJSON *c = h->env ? h->env->child : NULL; c; c = c->next)
		if (!cJSON_IsString(c))
			return err_set(e, ERR_INPUT, "%s: env %s must be a string", h->file, c->string);
	h->key_env = json_str(h->doc, "key_env");
	if (!h->key_env)
		h->key_env = "SKILLC_MODEL_API_KEY";
	return 0;
}

void launch_free(struct launch *h)
{
	free(h->name);
	free(h->file);
	cJSON_Delete(h->doc);
	strlist_free(&h->argv);
	strlist_free(&h->skill_paths);
	memset(h, 0, sizeof *h);
}

char *launch_subst(const char *s, const char *const *vars, struct err *e)
{
	struct buf b = BUF_INIT;
	buf_add(&b, "", 0);
	while (*s) {
		const char *open = strstr(s, "${");
		if (!open) {
			buf_adds(&b, s);
			break;
		}
		buf_add(&b, s, (size_t)(open - s));
		const char *close = strchr(open, '}');
		if (!close) {
			buf_free(&b);
			err_set(e, ERR_INPUT, "unterminated ${ in '%s'", s);
			return NULL;
		}
		size_t n = (size_t)(close - open - 2);
		const char *val = NULL;
		for (size_t i = 0; vars[i]; i += 2)
			if (strlen(vars[i]) == n && !strncmp(vars[i], open + 2, n))
				val = vars[i + 1];
		if (!val) {
			err_set(e, ERR_INPUT, "unknown variable ${%.*s}", (int)n, open + 2);
			buf_free(&b);
			return NULL;
		}
		buf_adds(&b, val);
		s = close + 1;
	}
	return buf_detach(&b);
}

cJSON *launch_render(const cJSON *tmpl, const char *const *vars, struct err *e)
{
	if (cJSON_IsString(tmpl)) {
		char *s = launch_subst(tmpl->valuestring, vars, e);
		if (!s)
			return NULL;
		cJSON *v = cJSON_CreateString(s);
		free(s);
		return v;
	}
	if (!cJSON_IsArray(tmpl) && !cJSON_IsObject(tmpl))
		return cJSON_Duplicate(tmpl, true);
	cJSON *out = cJSON_IsArray(tmpl) ? cJSON_CreateArray() : cJSON_CreateObject();
	for (const cJSON *c = tmpl->child; c; c = c->next) {
		cJSON *v = launch_render(c, vars, e);
		if (!v) {
			cJSON_Delete(out);
			return NULL;
		}
		if (cJSON_IsArray(tmpl)) {
			cJSON_AddItemToArray(out, v);
			continue;
		}
		char *k = launch_subst(c->string, vars, e);
		if (!k) {
			cJSON_Delete(v);
			cJSON_Delete(out);
			return NULL;
		}
		cJSON_AddItemToObject(out, k, v);
		free(k);
	}
	return out;
}
