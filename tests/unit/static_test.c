/* static_test.c — the static compile's pieces: model profiles (checks and
 * precedence), the guard (each check), each deterministic pass, and the
 * hybrid plan's steps (applied, rejected, caught by the guard). */
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "compile/guard.h"
#include "base/json.h"
#include "compile/passes.h"
#include "compile/plan.h"
#include "compile/profile.h"
#include "compile/package.h"
#include "t.h"

static char *tmp;
static int serial;

/* A skills root <tmp>/pkgN/ holding <name>/SKILL.md and the extra files
 * ("path", "text", ..., NULL); loaded into s. */
static void load(struct skill_src *s, const char *md, ...)
{
	char *root = xasprintf("%s/pkg%d", tmp, ++serial);
	char *p = xasprintf("%s/demo/SKILL.md", root);
	t_put(NULL, p, md);
	free(p);
	va_list ap;
	va_start(ap, md);
	for (const char *f; (f = va_arg(ap, const char *));) {
		const char *text = va_arg(ap, const char *);
		p = xasprintf("%s/demo/%s", root, f);
		t_put(NULL, p, text);
		free(p);
	}
	va_end(ap);
	struct err e;
	if (skill_src_load(root, s, &e) < 0) {
		printf("FAIL setup: %s\n", e.msg);
		exit(2);
	}
	free(root);
}

static cJSON *profile(const char *json)
{
	cJSON *p = cJSON_Parse(json);
	if (!p) {
		printf("FAIL setup: bad profile JSON\n");
		exit(2);
	}
	return p;
}

#define PROV(k) "\"" k "\": {\"basis\": \"guess\", \"why\": \"test\"}"
#define PROFILE(name, match, tokens, lines, prefers, weak)                                              \
	"{\"profile\": \"" name "\", " match "\"context_window\": 100000, "                               \
	"\"body_budget\": {\"tokens\": " #tokens ", \"lines\": " #lines "}, \"prefers\": [" prefers "], " \
	"\"weaknesses\": [" weak "], \"provenance\": {" PROV("context_window") ", " PROV("body_budget")  \
	", " PROV("prefers") ", " PROV("weaknesses") "%s}}"

static char *profile_text(const char *fmt, const char *extra)
{
	return xasprintf(fmt, extra);
}

/* ---- profiles ---------------------------------------------------------- */

static void write_profile(const char *dir, const char *name, const char *match)
{
	char *m = match ? xasprintf("\"match\": \"%s\", ", match) : xstrdup("");
	char *body = xasprintf("{\"profile\": \"%s\", %s\"context_window\": 1000, \"body_budget\": {\"tokens\": 500, \"lines\": 50}, "
			       "\"prefers\": [], \"weaknesses\": [], \"provenance\": {" PROV("context_window") ", " PROV("body_budget")
			       ", " PROV("prefers") ", " PROV("weaknesses") "%s}}",
			       name, m, match ? ", " PROV("match") : "");
	char *path = xasprintf("%s/%s.json", dir, name);
	t_put(NULL, path, body);
	free(path);
	free(body);
	free(m);
}

static void test_profile_precedence(void)
{
	char *builtin = xasprintf("%s/prof/builtin", tmp), *user = xasprintf("%s/prof/user", tmp);
	write_profile(builtin, "default", NULL);
	write_profile(builtin, "deepseek", "(?i)deepseek");
	write_profile(builtin, "qwen", "(?i)qwen");
	struct err e;
	cJSON *r = profile_resolve("vllm/Qwen/Qwen3-32B", NULL, builtin, &e);
	CHECK(r != NULL);
	CHECK_STR(json_str(r, "name"), "qwen");
	CHECK_STR(json_str(r, "source"), "builtin");
	CHECK_STR(json_str(r, "matched"), "Qwen");
	CHECK_STR(json_str(json_get(r, "profile"), "profile"), "qwen");
	cJSON_Delete(r);
	/* two match: the first file wins, the other is named */
	r = profile_resolve("x/deepseek-r1-distill-qwen", NULL, builtin, &e);
	CHECK_STR(json_str(r, "name"), "deepseek");
	CHECK_STR(cJSON_GetArrayItem(json_get(r, "also_matched"), 0)->valuestring, "qwen (builtin)");
	cJSON_Delete(r);
	r = profile_resolve("x/unknown", NULL, builtin, &e);
	CHECK_STR(json_str(r, "name"), "default");
	CHECK_STR(json_str(r, "why"), "no profile's pattern matches model id 'x/unknown': the builtin default profile applies");
	cJSON_Delete(r);
	r = profile_resolve("", NULL, builtin, &e);
	CHECK_STR(json_str(r, "why"), "MODEL is empty: the builtin default profile applies");
	cJSON_Delete(r);
	/* a user profile is tried first, and a user default replaces the built-in one */
	write_profile(user, "myqwen", "Qwen3-32B");
	write_profile(user, "default", NULL);
	r = profile_resolve("vllm/Qwen/Qwen3-32B", user, builtin, &e);
	CHECK_STR(json_str(r, "name"), "myqwen");
	CHECK_STR(json_str(r, "source"), "user");
	cJSON_Delete(r);
	r = profile_resolve("x/unknown", user, builtin, &e);
	CHECK_STR(json_str(r, "source"), "user");
	cJSON_Delete(r);
	/* an absent user folder is no error */
	char *none = xasprintf("%s/prof/none", tmp);
	r = profile_resolve("x/qwen", none, builtin, &e);
	CHECK_STR(json_str(r, "name"), "qwen");
	cJSON_Delete(r);
	free(none);
	free(builtin);
	free(user);
}

static void expect_bad_profile(const char *text, const char *name, const char *msg)
{
	char *path = xasprintf("%s/bad/%s.json", tmp, name);
	t_put(NULL, path, text);
	struct err e = { 0 };
	cJSON *p = profile_load(path, &e);
	CHECK(p == NULL);
	char *want = xasprintf("%s: %s", path, msg);
	CHECK_STR(e.msg, want);
	CHECK_INT(e.code, ERR_INPUT);
	free(want);
	free(path);
	cJSON_Delete(p);
}

static void test_profile_errors(void)
{
	char *ok = profile_text(PROFILE("x", "\"match\": \"x\", ", 10, 10, "", ""), ", " PROV("match"));
	char *path = xasprintf("%s/bad/x.json", tmp);
	t_put(NULL, path, ok);
	struct err e;
	cJSON *p = profile_load(path, &e);
	CHECK(p != NULL);
	cJSON_Delete(p);
	free(path);
	free(ok);
	char *t = profile_text(PROFILE("x", "\"match\": \"(x\", ", 10, 10, "", ""), ", " PROV("match"));
	expect_bad_profile(t, "x", "bad \"match\" pattern at offset 2: missing closing parenthesis");
	free(t);
	t = profile_text(PROFILE("x", "\"match\": \"x\", ", 10, 10, "", ""), "");
	expect_bad_profile(t, "x", "provenance.match needs {\"basis\": \"guess\"|\"vendor\"|\"measured\", \"why\": \"...\"}");
	free(t);
	t = profile_text(PROFILE("x", "\"match\": \"x\", ", 10, 10, "\"tables_please\"", ""), ", " PROV("match"));
	expect_bad_profile(t, "x", "unknown prefers term 'tables_please': use numbered_steps, explicit_paths, gotchas_first");
	free(t);
	t = profile_text(PROFILE("y", "\"match\": \"x\", ", 10, 10, "", ""), ", " PROV("match"));
	expect_bad_profile(t, "x", "\"profile\" is 'y' but the file is named 'x.json': name the file y.json");
	free(t);
	t = profile_text(PROFILE("x", "", 10, 10, "", ""), "");
	expect_bad_profile(t, "x", "\"match\" is missing (only the default profile has none)");
	free(t);
	t = profile_text(PROFILE("x", "\"match\": \"x\", ", 200000, 10, "", ""), ", " PROV("match"));
	expect_bad_profile(t, "x", "body_budget.tokens must be below context_window");
	free(t);
	expect_bad_profile("{\"profile\": \"x\", \"colour\": 1}", "x", "unknown field \"colour\" (see docs/static.md#model-profiles)");
}

static void test_builtin_profiles(void)
{
	/* every shipped profile passes the check, and the families resolve */
	struct err e;
	static const char *const cases[][2] = {
		{ "vllm/Qwen/Qwen3.5-27B", "qwen" }, { "ollama/qwen3:32b", "qwen" },
		{ "ollama/llama3.1:8b", "llama" }, { "openrouter/deepseek/deepseek-chat", "deepseek" },
		{ "zhipu/glm-4.6", "glm" }, { "moonshot/kimi-k2", "kimi" }, { "minimax/MiniMax-M2", "minimax" },
		{ "mistral/devstral-small", "mistral" }, { "openai/gpt-4o", "gpt" }, { "openai/o3", "gpt" },
		{ "anthropic/claude-sonnet-4", "claude" }, { "google/gemini-2.5-pro", "gemini" },
		{ "local/mystery-7b", "default" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		cJSON *r = profile_resolve(cases[i][0], NULL, "rules/profiles", &e);
		CHECK(r != NULL);
		if (!r) {
			printf("  %s\n", e.msg);
			continue;
		}
		if (strcmp(json_str(r, "name"), cases[i][1]))
			printf("FAIL test_builtin_profiles: %s -> %s, want %s\n", cases[i][0], json_str(r, "name"), cases[i][1]);
		CHECK(!strcmp(json_str(r, "name"), cases[i][1]));
		cJSON_Delete(r);
	}
}

/* ---- guard ---------------------------------------------------------------- */

static const char guard_md[] =
	"---\nname: demo\ndescription: A demo skill used by the guard tests here.\n---\n\n"
	"# Demo\n\n## Steps\n\nRun `./scripts/run.sh --fast` with 16 GB.\n\n"
	"```sh\nscripts/run.sh --fast\n```\n\n## Notes\n\nSee https://example.com/x.\n";

static int check_with(const struct skill_src *s, const char *md, struct guard_fail *f)
{
	struct guard_base g;
	guard_init(&g, s);
	struct skill_out o;
	skill_out_init(&o, s);
	struct buf b = BUF_INIT;
	buf_adds(&b, md);
	skill_out_set_md(&o, &b);
	int rc = guard_check(&g, s, &o, f);
	skill_out_free(&o);
	guard_free(&g);
	return rc;
}

static char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	if (!at)
		return xstrdup(s);
	return xasprintf("%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
}

static void expect_guard(const struct skill_src *s, const char *from, const char *to, const char *check,
			 const char *item)
{
	char *md = replace(guard_md, from, to);
	struct guard_fail f;
	int rc = check_with(s, md, &f);
	CHECK_INT(rc, 1);
	if (rc) {
		CHECK_STR(f.check, check);
		CHECK_STR(f.item, item);
	}
	guard_fail_free(&f);
	free(md);
}

static void test_guard_checks(void)
{
	struct skill_src s;
	load(&s, guard_md, "scripts/run.sh", "echo\n", NULL);
	struct guard_fail f;
	CHECK_INT(check_with(&s, guard_md, &f), 0);
	/* moves, level changes and added text keep everything */
	char *md = replace(guard_md, "## Notes", "### Notes");
	CHECK_INT(check_with(&s, md, &f), 0);
	free(md);
	/* "./scripts/x" and "scripts/x" are the same literal */
	md = replace(guard_md, "`./scripts/run.sh --fast`", "`scripts/run.sh --fast`");
	CHECK_INT(check_with(&s, md, &f), 0);
	free(md);
	expect_guard(&s, "name: demo", "name: demo2", "frontmatter", "the frontmatter bytes changed");
	expect_guard(&s, "```sh\nscripts/run.sh --fast\n```\n", "", "code-block", "```sh scripts/run.sh --fast ``` ");
	expect_guard(&s, "```sh\nscripts/run.sh --fast\n```\n", "```sh\nscripts/run.sh  --fast\n```\n", "code-block",
		     "```sh scripts/run.sh --fast ``` ");
	expect_guard(&s, "## Notes", "## Remarks", "heading", "Notes");
	expect_guard(&s, " with 16 GB", " with plenty", "literal", "16 GB");
	expect_guard(&s, "https://example.com/x", "the site", "literal", "https://example.com/x");
	expect_guard(&s, "`./scripts/run.sh --fast`", "`./scripts/run.sh`", "literal", "`scripts/run.sh --fast`");
	skill_src_free(&s);
}

static void test_guard_counts_and_outside(void)
{
	static const char two[] = "---\nname: demo\ndescription: d\n---\n\nUse `x` and then `x` again.\n";
	struct skill_src s;
	load(&s, two, "references/old.md", "old\n", NULL);
	struct guard_fail f;
	CHECK_INT(check_with(&s, "---\nname: demo\ndescription: d\n---\n\nUse `x` again.\n", &f), 1);
	CHECK_STR(f.check, "literal");
	CHECK_INT(f.want, 2);
	CHECK_INT(f.have, 1);
	guard_fail_free(&f);
	/* a literal that moved into an added Markdown file still counts */
	struct guard_base g;
	guard_init(&g, &s);
	struct skill_out o;
	skill_out_init(&o, &s);
	struct buf b = BUF_INIT;
	buf_adds(&b, "---\nname: demo\ndescription: d\n---\n\nUse `x` again.\n");
	skill_out_set_md(&o, &b);
	skill_out_add(&o, "references/moved.md", "# Moved\n\nand `x`\n", 18);
	CHECK_INT(guard_check(&g, &s, &o, &f), 0);
	/* files may only be added inside the skill, never over a source file */
	static const char *const bad[] = { "../escape.md", "/abs.md", "references/old.md", "./references/a.md", ".hidden/x.md", "SKILL.md" };
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct skill_out o2;
		skill_out_copy(&o2, &o);
		skill_out_add(&o2, bad[i], "x\n", 2);
		CHECK_INT(guard_check(&g, &s, &o2, &f), 1);
		CHECK_STR(f.check, "outside");
		CHECK_STR(f.item, bad[i]);
		guard_fail_free(&f);
		skill_out_free(&o2);
	}
	skill_out_free(&o);
	guard_free(&g);
	skill_src_free(&s);
}

static void test_guard_path_form(void)
{
	static const char *const cases[][2] = {
		{ "run ./scripts/a.py now", "run scripts/a.py now" },
		{ "{baseDir}/scripts/a.py", "scripts/a.py" },
		{ "${SKILL_DIR}/references/b.md", "references/b.md" },
		{ "$SKILL_ROOT/./assets/c.png", "assets/c.png" },
		{ "x./scripts/a.py", "x./scripts/a.py" },
		{ "./other/a.py", "./other/a.py" },
		{ "$HOME/scripts/a.py", "$HOME/scripts/a.py" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct buf b = BUF_INIT;
		guard_path_form(cases[i][0], strlen(cases[i][0]), &b);
		CHECK_STR(b.data, cases[i][1]);
		buf_free(&b);
	}
}

/* ---- passes ----------------------------------------------------------------- */

static int run_pass(int (*fn)(const struct pass_ctx *, struct skill_out *, cJSON *, struct err *),
		    const struct skill_src *s, const char *prof, struct skill_out *o, cJSON **notes)
{
	cJSON *p = profile(prof);
	struct pass_ctx c = { s, p };
	skill_out_init(o, s);
	*notes = cJSON_CreateObject();
	struct err e = { 0 };
	int rc = fn(&c, o, *notes, &e);
	if (rc)
		printf("  pass error: %s\n", e.msg);
	struct guard_base g;
	guard_init(&g, s);
	struct guard_fail f;
	int bad = guard_check(&g, s, o, &f);
	if (bad)
		printf("  guard: %s %s\n", f.check, f.item);
	CHECK_INT(bad, 0);
	guard_fail_free(&f);
	guard_free(&g);
	cJSON_Delete(p);
	return rc;
}

static char *plain_profile(int tokens, int lines, const char *prefers, const char *weak)
{
	return xasprintf("{\"profile\": \"t\", \"context_window\": 100000, \"body_budget\": {\"tokens\": %d, \"lines\": %d}, "
			 "\"prefers\": [%s], \"weaknesses\": [%s], \"provenance\": {}}",
			 tokens, lines, prefers, weak);
}

static void test_structure_pass(void)
{
	static const char md[] =
		"---\nname: demo\ndescription: d\n---\n# Demo\n\n\n\nIntro.\n#### Deep\nText.\n   \n\n"
		"# Second\n## Child\n\n```\na\n\n\n\nb\n```\n\n\n";
	static const char want[] =
		"---\nname: demo\ndescription: d\n---\n\n# Demo\n\nIntro.\n\n## Deep\n\nText.\n\n"
		"## Second\n\n### Child\n\n```\na\n\n\n\nb\n```\n";
	struct skill_src s;
	load(&s, md, NULL);
	char *prof = plain_profile(5000, 500, "", "");
	struct skill_out o;
	cJSON *notes;
	CHECK_INT(run_pass(pass_structure, &s, prof, &o, &notes), 0);
	CHECK_STR(o.md.data, want);
	CHECK_INT(cJSON_GetArraySize(json_get(notes, "headings")), 3);
	/* a second run changes nothing */
	struct skill_src s2;
	load(&s2, want, NULL);
	struct skill_out o2;
	cJSON *n2;
	run_pass(pass_structure, &s2, prof, &o2, &n2);
	CHECK_STR(o2.md.data, want);
	cJSON_Delete(n2);
	skill_out_free(&o2);
	skill_src_free(&s2);
	cJSON_Delete(notes);
	skill_out_free(&o);
	skill_src_free(&s);
	free(prof);
}

static void test_refs_pass(void)
{
	static const char md[] =
		"---\nname: demo\ndescription: d\n---\n\nRun `./scripts/a.sh` or {baseDir}/scripts/a.sh or $SKILL_DIR/scripts/a.sh, see "
		"[the guide](./references/guide.md) and `scripts/missing.py` and [up](../../x/README.md).\n\n"
		"```sh\n./scripts/a.sh\n```\n";
	static const char want[] =
		"---\nname: demo\ndescription: d\n---\n\nRun `scripts/a.sh` or scripts/a.sh or scripts/a.sh, see "
		"[the guide](references/guide.md) and `scripts/missing.py` and [up](../../x/README.md).\n\n"
		"```sh\n./scripts/a.sh\n```\n";
	struct skill_src s;
	load(&s, md, "scripts/a.sh", "echo\n", "references/guide.md", "# Guide\n", NULL);
	char *prof = plain_profile(5000, 500, "\"explicit_paths\"", "");
	struct skill_out o;
	cJSON *notes;
	CHECK_INT(run_pass(pass_refs, &s, prof, &o, &notes), 0);
	CHECK_STR(o.md.data, want);
	CHECK_INT(cJSON_GetArraySize(json_get(notes, "rewritten")), 4);
	cJSON *d = json_get(notes, "dangling");
	CHECK_INT(cJSON_GetArraySize(d), 1);
	CHECK_STR(json_str(cJSON_GetArrayItem(d, 0), "path"), "scripts/missing.py");
	cJSON *x = json_get(notes, "escaping");
	CHECK_INT(cJSON_GetArraySize(x), 1);
	CHECK_STR(json_str(cJSON_GetArrayItem(x, 0), "path"), "../../x/README.md");
	cJSON_Delete(notes);
	skill_out_free(&o);
	free(prof);
	/* without explicit_paths: reported, not rewritten */
	prof = plain_profile(5000, 500, "", "");
	run_pass(pass_refs, &s, prof, &o, &notes);
	CHECK_STR(o.md.data, md);
	CHECK_INT(cJSON_GetArraySize(json_get(notes, "dangling")), 1);
	cJSON_Delete(notes);
	skill_out_free(&o);
	free(prof);
	skill_src_free(&s);
}

static void repeat_line(struct buf *b, const char *line, int n)
{
	for (int i = 0; i < n; i++)
		buf_printf(b, line, i);
}

/* A skill over a small budget: marketing, a long flag list, an unrelated
 * workflow, the core steps and gotchas at the end. */
static char *long_skill(void)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "---\nname: demo\ndescription: Count error lines in a log file by component.\n---\n\n# Demo\n\n"
		     "## Steps\n\n1. Count error lines per component with `scripts/count.sh`.\n2. Check one component by hand.\n\n"
		     "## Why DemoSuite\n\n");
	repeat_line(&b, "Our award winning, blazing fast, trusted platform %d: customers love the premium upgrade.\n", 8);
	buf_adds(&b, "\n## Flag reference\n\n| flag | meaning |\n|---|---|\n");
	repeat_line(&b, "| `--opt-%d` | an option nobody needs here |\n", 30);
	buf_adds(&b, "\n## Running a cluster\n\n");
	repeat_line(&b, "Provision node %d of the Kubernetes pool and attach the shared volume to it.\n", 12);
	buf_adds(&b, "\n## Gotchas\n\n- The component name may hold digits: `cache-v2`.\n");
	return buf_detach(&b);
}

static void test_budget_pass(void)
{
	char *md = long_skill();
	struct skill_src s;
	load(&s, md, "scripts/count.sh", "echo\n", NULL);
	char *prof = plain_profile(5000, 40, "", "");
	struct skill_out o;
	cJSON *notes;
	CHECK_INT(run_pass(pass_budget, &s, prof, &o, &notes), 0);
	cJSON *moved = json_get(notes, "moved");
	/* the marketing first, then the flag list: then it fits */
	CHECK_INT(cJSON_GetArraySize(moved), 2);
	CHECK_STR(json_str(cJSON_GetArrayItem(moved, 0), "file"), "references/why-demosuite.md");
	CHECK_STR(json_str(cJSON_GetArrayItem(moved, 0), "class"), "marketing");
	CHECK_STR(json_str(cJSON_GetArrayItem(moved, 1), "file"), "references/flag-reference.md");
	CHECK_STR(json_str(notes, "result"), "within budget after moving");
	CHECK(strstr(o.md.data, "## Why DemoSuite\n\nRead [references/why-demosuite.md](references/why-demosuite.md) "
				"when you want background on the product; the task does not need it.\n\n## Flag reference\n") != NULL);
	CHECK(strstr(o.md.data, "## Gotchas\n") != NULL);
	CHECK(strstr(o.md.data, "## Running a cluster\n\nProvision node 0") != NULL);
	/* the references file holds the section's bytes */
	struct pkg_file *f = skill_out_find(&o, "references/flag-reference.md");
	CHECK(f != NULL);
	if (f) {
		const char *sec = strstr(md, "## Flag reference");
		size_t n = (size_t)(strstr(md, "\n## Running") - sec);
		CHECK_INT(f->data.len, n);
		CHECK(!memcmp(f->data.data, sec, n));
	}
	cJSON_Delete(notes);
	skill_out_free(&o);
	free(prof);
	/* tighter: the unrelated workflow goes too; gotchas and steps never */
	prof = plain_profile(5000, 20, "", "");
	run_pass(pass_budget, &s, prof, &o, &notes);
	CHECK_INT(cJSON_GetArraySize(json_get(notes, "moved")), 3);
	CHECK(strstr(o.md.data, "when the task involves this topic; skip it otherwise") != NULL);
	CHECK(strstr(o.md.data, "1. Count error lines") != NULL);
	CHECK(strstr(o.md.data, "- The component name") != NULL);
	cJSON_Delete(notes);
	skill_out_free(&o);
	free(prof);
	/* within budget: nothing moves */
	prof = plain_profile(5000, 500, "", "");
	run_pass(pass_budget, &s, prof, &o, &notes);
	CHECK_STR(o.md.data, md);
	CHECK_INT(o.n, 0);
	CHECK_STR(json_str(notes, "result"), "within budget: nothing moved");
	cJSON_Delete(notes);
	skill_out_free(&o);
	free(prof);
	skill_src_free(&s);
	free(md);
}

/* Found by a sanitizer run: a skill whose frontmatter holds no words
 * scored its sections with bsearch over an empty (NULL) word list. */
static void test_budget_no_description_words(void)
{
	char *full = long_skill();
	const char *body = strstr(full, "\n---\n") + 5;
	char *md = xasprintf("---\nname: x\n---\n%s", body);
	struct skill_src s;
	load(&s, md, "scripts/count.sh", "echo\n", NULL);
	char *prof = plain_profile(5000, 40, "", "");
	struct skill_out o;
	cJSON *notes;
	CHECK_INT(run_pass(pass_budget, &s, prof, &o, &notes), 0);
	CHECK(cJSON_GetArraySize(json_get(notes, "moved")) > 0);
	cJSON_Delete(notes);
	skill_out_free(&o);
	free(prof);
	skill_src_free(&s);
	free(md);
	free(full);
}

static void test_budget_name_collision(void)
{
	char *md = long_skill();
	struct skill_src s;
	load(&s, md, "references/why-demosuite.md", "already here\n", NULL);
	char *prof = plain_profile(5000, 40, "", "");
	struct skill_out o;
	cJSON *notes;
	run_pass(pass_budget, &s, prof, &o, &notes);
	CHECK_STR(json_str(cJSON_GetArrayItem(json_get(notes, "moved"), 0), "file"), "references/why-demosuite-2.md");
	cJSON_Delete(notes);
	skill_out_free(&o);
	free(prof);
	skill_src_free(&s);
	free(md);
}

static void test_hoist_pass(void)
{
	static const char md[] =
		"---\nname: demo\ndescription: d\n---\n\n# Demo\n\n## Overview\n\nWhat it is.\n\n## Steps\n\n1. Do it.\n\n"
		"## Details\n\nMore.\n\n## Common pitfalls\n\n- Never do that.\n";
	static const char want[] =
		"---\nname: demo\ndescription: d\n---\n\n# Demo\n\n## Overview\n\nWhat it is.\n\n## Common pitfalls\n\n- Never do that.\n\n"
		"## Steps\n\n1. Do it.\n\n## Details\n\nMore.\n";
	struct skill_src s;
	load(&s, md, NULL);
	char *prof = plain_profile(5000, 500, "", "\"loses_late_instructions\"");
	struct skill_out o;
	cJSON *notes;
	CHECK_INT(run_pass(pass_hoist, &s, prof, &o, &notes), 0);
	CHECK_STR(o.md.data, want);
	CHECK_STR(json_str(cJSON_GetArrayItem(json_get(notes, "hoisted"), 0), "before"), "Steps");
	cJSON_Delete(notes);
	skill_out_free(&o);
	skill_src_free(&s);
	/* already early: unchanged */
	load(&s, want, NULL);
	run_pass(pass_hoist, &s, prof, &o, &notes);
	CHECK_STR(o.md.data, want);
	CHECK_INT(cJSON_GetArraySize(json_get(notes, "already_early")), 1);
	cJSON_Delete(notes);
	skill_out_free(&o);
	skill_src_free(&s);
	free(prof);
}

static void test_pass_selection(void)
{
	cJSON *p = profile("{\"prefers\": [], \"weaknesses\": []}");
	char *why;
	CHECK(!pass_selected(pass_find("hoist"), p, &why));
	free(why);
	cJSON_Delete(p);
	p = profile("{\"prefers\": [], \"weaknesses\": [\"loses_late_instructions\"]}");
	CHECK(pass_selected(pass_find("hoist"), p, &why));
	CHECK_STR(why, "the profile has the weakness loses_late_instructions");
	free(why);
	cJSON_Delete(p);
	p = profile("{\"prefers\": [\"gotchas_first\"], \"weaknesses\": [], \"passes\": {\"hoist\": false}}");
	CHECK(!pass_selected(pass_find("hoist"), p, &why));
	CHECK_STR(why, "the profile sets passes.hoist to false");
	free(why);
	cJSON_Delete(p);
}

static void test_classify(void)
{
	static const struct {
		const char *h;
		enum section_class k;
	} cases[] = {
		{ "Gotchas", SC_GOTCHA }, { "Common Pitfalls", SC_GOTCHA }, { "IMPORTANT", SC_GOTCHA },
		{ "Localize important files", SC_OTHER }, { "Quick start", SC_CORE }, { "Step 2: Run `x`", SC_CORE },
		{ "Why LogTriage Suite", SC_MARKETING }, { "Pricing and plans", SC_MARKETING },
		{ "Command reference", SC_REFERENCE }, { "Appendix: levels", SC_REFERENCE },
		{ "Worked example", SC_EXAMPLE }, { "Shipping logs to a cluster", SC_OTHER },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		enum section_class k = section_classify(cases[i].h, strlen(cases[i].h));
		if (k != cases[i].k)
			printf("  %s: %s\n", cases[i].h, section_class_name(k));
		CHECK_INT(k, cases[i].k);
	}
}

/* ---- plan steps ------------------------------------------------------------- */

static const char plan_md[] =
	"---\nname: demo\ndescription: Count error lines.\n---\n\n# Demo\n\n## Steps\n\n"
	"First count the lines with `grep -c ERROR app.log` and write the total.\n\n"
	"- Check one file:\n\n  ```sh\n  wc -l app.log\n  ```\n\n"
	"Then compare the total with the expected 42 lines of the report.\n\n"
	"## Background\n\nHistory of logging, long and unneeded here.\n";

static int plan_on(const struct skill_src *s, struct skill_out *o, const char *op_json, struct err *e,
		   struct guard_fail *f, int *guard_rc)
{
	cJSON *op = cJSON_Parse(op_json);
	cJSON *notes = cJSON_CreateObject();
	skill_out_init(o, s);
	memset(e, 0, sizeof *e);
	int rc = plan_step(NULL, s, o, op, notes, e);
	struct guard_base g;
	guard_init(&g, s);
	*guard_rc = rc == 0 ? guard_check(&g, s, o, f) : 0;
	guard_free(&g);
	cJSON_Delete(notes);
	cJSON_Delete(op);
	return rc;
}

static void expect_rejected(const struct skill_src *s, const char *op, const char *msg)
{
	struct skill_out o;
	struct err e;
	struct guard_fail f = { 0 };
	int g;
	CHECK_INT(plan_on(s, &o, op, &e, &f, &g), 1);
	CHECK_STR(e.msg, msg);
	CHECK_STR(o.md.data, plan_md);
	skill_out_free(&o);
}

static void test_plan_steps(void)
{
	struct skill_src s;
	load(&s, plan_md, NULL);
	struct skill_out o;
	struct err e;
	struct guard_fail f = { 0 };
	int g;
	CHECK_INT(plan_on(&s, &o, "{\"op\": \"reorder\", \"section\": \"demo/background\", \"before\": \"demo/steps\"}", &e, &f, &g), 0);
	CHECK_INT(g, 0);
	CHECK(strstr(o.md.data, "# Demo\n\n## Background\n\nHistory of logging, long and unneeded here.\n\n## Steps\n") != NULL);
	skill_out_free(&o);
	CHECK_INT(plan_on(&s, &o, "{\"op\": \"move_to_reference\", \"section\": \"demo/background#1\", \"when\": \"you need the history.\"}", &e, &f, &g), 0);
	CHECK_INT(g, 0);
	CHECK(strstr(o.md.data, "## Background\n\nRead [references/background.md](references/background.md) when you need the history.\n") != NULL);
	CHECK_INT(o.n, 1);
	skill_out_free(&o);
	CHECK_INT(plan_on(&s, &o, "{\"op\": \"split\", \"section\": \"demo/steps\", \"at\": \"Then compare the total with\", \"heading\": \"Verify\"}", &e, &f, &g), 0);
	CHECK_INT(g, 0);
	CHECK(strstr(o.md.data, "\n### Verify\n\nThen compare") != NULL);
	skill_out_free(&o);
	CHECK_INT(plan_on(&s, &o, "{\"op\": \"rewrite\", \"section\": \"demo/steps\", \"paragraph\": \"First count the lines with `grep -c ERROR app.log`   and write the total.\", "
			  "\"text\": \"Count the ERROR lines: `grep -c ERROR app.log`. Write the total.\"}", &e, &f, &g), 0);
	CHECK_INT(g, 0);
	CHECK(strstr(o.md.data, "\n\nCount the ERROR lines: `grep -c ERROR app.log`. Write the total.\n\n- Check") != NULL);
	skill_out_free(&o);

	expect_rejected(&s, "{\"op\": \"reorder\", \"section\": \"demo/nothing\", \"before\": \"demo/steps\"}",
			"section 'demo/nothing' names no section of the skill");
	expect_rejected(&s, "{\"op\": \"rewrite\", \"section\": \"demo/steps\", \"paragraph\": \"Always run the tests first.\", \"text\": \"x\"}",
			"\"paragraph\" quotes text that is not in the source: 'Always run the tests first.'");
	expect_rejected(&s, "{\"op\": \"rewrite\", \"section\": \"demo/steps\", \"paragraph\": \"Then compare the total with the expected 42 lines of the report.\", "
			"\"text\": \"Compare the total with the expected 42 lines; see `scripts/check.py`.\"}",
			"\"text\" adds the literal '`scripts/check.py`', which the paragraph does not have");
	expect_rejected(&s, "{\"op\": \"split\", \"section\": \"demo/background\", \"at\": \"Then compare the total with\", \"heading\": \"V\"}",
			"\"at\" starts no paragraph of section 'demo/background#1': 'Then compare the total with'");
	expect_rejected(&s, "{\"op\": \"reorder\", \"section\": \"demo\", \"before\": \"demo/steps\"}",
			"cannot move section 'demo#1' before 'demo/steps#1', which it holds");
	/* a rewrite that drops a code block passes the plan's checks but not the guard */
	CHECK_INT(plan_on(&s, &o, "{\"op\": \"rewrite\", \"section\": \"demo/steps\", \"paragraph\": \"- Check one file: ```sh wc -l app.log ```\", "
			  "\"text\": \"- Check one file.\"}", &e, &f, &g), 0);
	CHECK_INT(g, 1);
	CHECK_STR(f.check, "code-block");
	guard_fail_free(&f);
	skill_out_free(&o);
	/* a rewrite that drops a literal: the guard names it */
	CHECK_INT(plan_on(&s, &o, "{\"op\": \"rewrite\", \"section\": \"demo/steps\", \"paragraph\": \"Then compare the total with the expected 42 lines of the report.\", "
			  "\"text\": \"Then compare the total with the report.\"}", &e, &f, &g), 0);
	CHECK_INT(g, 1);
	CHECK_STR(f.check, "literal");
	CHECK_STR(f.item, "42 lines");
	guard_fail_free(&f);
	skill_out_free(&o);
	skill_src_free(&s);
}

static void test_plan_shape(void)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{ "{\"operations\": []}", NULL },
		{ "{\"operations\": {}}", "\"operations\" must be a list" },
		{ "{\"operations\": [{\"op\": \"delete\"}]}", "operation 1: \"op\" must be reorder, move_to_reference, split or rewrite" },
		{ "{\"operations\": [{\"op\": \"split\", \"section\": \"a\", \"at\": \"b\"}]}", "operation 1 (split) needs the string field \"heading\"" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		cJSON *p = cJSON_Parse(cases[i].json);
		struct buf why = BUF_INIT;
		int rc = plan_check_shape(p, NULL, &why);
		CHECK_INT(rc, cases[i].why ? -1 : 0);
		if (cases[i].why)
			CHECK_STR(why.data, cases[i].why);
		buf_free(&why);
		cJSON_Delete(p);
	}
}

int main(void)
{
	tmp = t_tmpdir();
	RUN(test_profile_precedence);
	RUN(test_profile_errors);
	RUN(test_builtin_profiles);
	RUN(test_guard_checks);
	RUN(test_guard_counts_and_outside);
	RUN(test_guard_path_form);
	RUN(test_structure_pass);
	RUN(test_refs_pass);
	RUN(test_budget_pass);
	RUN(test_budget_name_collision);
	RUN(test_budget_no_description_words);
	RUN(test_hoist_pass);
	RUN(test_pass_selection);
	RUN(test_classify);
	RUN(test_plan_steps);
	RUN(test_plan_shape);
	struct err e;
	fs_remove_tree(tmp, &e);
	free(tmp);
	T_EXIT();
}
