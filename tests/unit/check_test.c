/* check_test — skillc-check's verdicts: the reference validator's own test
 * cases (skills-ref tests/test_validator.py and test_parser.py, rewritten),
 * the extra conformance cases of reference/skill-format.md §2.4, the strict
 * YAML rules and the lint findings. */
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "skill/validate.h"
#include "base/fs.h"
#include "skill/frontmatter.h"
#include "base/json.h"

static char *root;

/* Writes <root>/<dir>/<file> = text (creating dirs); returns the dir path. */
static char *put(const char *dir, const char *file, const char *text)
{
	char *d = path_join(root, dir);
	struct err e;
	if (fs_mkdirs(d, &e) < 0)
		exit(2);
	if (file) {
		char *f = path_join(d, file);
		char *fdir = xstrdup(f);
		*strrchr(fdir, '/') = '\0';
		fs_mkdirs(fdir, &e);
		free(fdir);
		if (fs_write_atomic(f, text, strlen(text), 0644, &e) < 0)
			exit(2);
		free(f);
	}
	return d;
}

/* A skill dir whose SKILL.md has the given frontmatter lines and body. */
static char *skill(const char *dir, const char *fm, const char *body)
{
	char *text = xasprintf("---\n%s---\n%s", fm, body ? body : "# My Skill\n\nDo the thing.\n");
	char *d = put(dir, "SKILL.md", text);
	free(text);
	return d;
}

static bool has_error(const struct check_report *r, const char *needle)
{
	for (size_t i = 0; i < r->nerrors; i++)
		if (strstr(r->errors[i].message, needle))
			return true;
	return false;
}

static const struct check_finding *warning(const struct check_report *r, const char *rule)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].rule, rule))
			return &r->warnings[i];
	return NULL;
}

static int verdict_of(const char *dir, struct check_report **r)
{
	return check_skill(dir, r);
}

/* Runs the check and expects exactly one error containing needle, or none. */
static void expect(const char *dir, int verdict, const char *needle)
{
	struct check_report *r;
	int v = verdict_of(dir, &r);
	CHECK_INT(v, verdict);
	CHECK_INT(r->verdict, verdict);
	if (needle) {
		CHECK(has_error(r, needle));
		if (!has_error(r, needle))
			printf("    errors of %s: %s\n", dir, r->nerrors ? r->errors[0].message : "(none)");
	} else {
		CHECK_INT(r->nerrors, 0);
		if (r->nerrors)
			printf("    unexpected: %s\n", r->errors[0].message);
	}
	check_report_free(r);
}

#define OK_FM(n) "name: " n "\ndescription: A test skill. Use when testing.\n"

/* ---- skills-ref tests/test_validator.py ---- */

static void v02_nonexistent_path(void)
{
	char *d = path_join(root, "v02/nope");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_UNUSABLE);
	CHECK_INT(r->nerrors, 1);
	char *want = xasprintf("Path does not exist: %s", d);
	CHECK_STR(r->errors[0].message, want);
	CHECK(strstr(r->errors[0].message, "does not exist") != NULL);
	free(want);
	check_report_free(r);
	free(d);
}

static void v03_not_a_directory(void)
{
	char *d = put("v03", "file.txt", "hello\n");
	char *f = path_join(d, "file.txt");
	struct check_report *r;
	CHECK_INT(check_skill(f, &r), CHECK_UNUSABLE);
	CHECK_INT(r->nerrors, 1);
	char *want = xasprintf("Not a directory: %s", f);
	CHECK_STR(r->errors[0].message, want);
	free(want);
	check_report_free(r);
	free(f);
	free(d);
}

static void v04_missing_skill_md(void)
{
	char *d = put("v04/my-skill", NULL, NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_UNUSABLE);
	CHECK_INT(r->nerrors, 1);
	CHECK_STR(r->errors[0].message, "Missing required file: SKILL.md");
	check_report_free(r);
	free(d);
}

static void v06_too_long(void)
{
	char name[71];
	memset(name, 'a', 70);
	name[70] = '\0';
	char *dir = xasprintf("v06/%s", name), *fm = xasprintf("name: %s\ndescription: x\n", name);
	char *d = skill(dir, fm, NULL);
	char *want = xasprintf("Skill name '%s' exceeds 64 character limit (70 chars)", name);
	expect(d, CHECK_INVALID, want);
	free(want), free(d), free(dir), free(fm);
}

static void v18_description_too_long(void)
{
	char desc[1101];
	memset(desc, 'x', 1100);
	desc[1100] = '\0';
	char *fm = xasprintf("name: my-skill\ndescription: %s\n", desc);
	char *d = skill("v18/my-skill", fm, NULL);
	expect(d, CHECK_INVALID, "Description exceeds 1024 character limit (1100 chars)");
	free(d), free(fm);
}

static void v20_compatibility_too_long(void)
{
	char c[551];
	memset(c, 'x', 550);
	c[550] = '\0';
	char *fm = xasprintf(OK_FM("my-skill") "compatibility: %s\n", c);
	char *d = skill("v20/my-skill", fm, NULL);
	expect(d, CHECK_INVALID, "Compatibility exceeds 500 character limit (550 chars)");
	free(d), free(fm);
}

static void v21_nfkc_directory_and_name(void)
{
	/* directory "café" precomposed, name "cafe" + U+0301 decomposed */
	char *d = skill("v21/caf\xC3\xA9", OK_FM("cafe\xCC\x81"), NULL);
	expect(d, CHECK_VALID, NULL);
	free(d);
}

/* ---- skills-ref tests/test_parser.py ---- */

static void p01_valid_frontmatter(void)
{
	char *d = skill("p01/my-skill", OK_FM("my-skill"), "# My Skill\n\nInstructions here.\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	CHECK_STR(r->name, "my-skill");
	CHECK_STR(json_str(r->properties, "description"), "A test skill. Use when testing.");
	check_report_free(r);
	free(d);
}

static void p02_missing_frontmatter(void)
{
	char *d = put("p02/my-skill", "SKILL.md", "# No frontmatter\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(!r->frontmatter_parsed);
	CHECK_INT(r->nerrors, 1);
	CHECK_STR(r->errors[0].message, "SKILL.md must start with YAML frontmatter (---)");
	check_report_free(r);
	free(d);
}

static void p03_unclosed_frontmatter(void)
{
	char *d = put("p03/my-skill", "SKILL.md", "---\nname: my-skill\ndescription: x\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(!r->frontmatter_parsed);
	CHECK_INT(r->nerrors, 1);
	CHECK_STR(r->errors[0].message, "SKILL.md frontmatter not properly closed with ---");
	check_report_free(r);
	free(d);
}

static void p04_invalid_yaml(void)
{
	char *d = skill("p04/my-skill", "name: [invalid\ndescription: x\n", NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(!r->frontmatter_parsed);
	CHECK_INT(r->nerrors, 1);
	CHECK(!strncmp(r->errors[0].message, "Invalid YAML in frontmatter: ", 29));
	CHECK_INT(r->errors[0].line, 2);
	CHECK_INT(r->errors[0].col, 7);
	check_report_free(r);
	free(d);
}

static void p05_not_a_mapping(void)
{
	char *d = skill("p05/my-skill", "- item1\n- item2\n", NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(!r->frontmatter_parsed);
	CHECK_INT(r->nerrors, 1);
	CHECK_STR(r->errors[0].message, "SKILL.md frontmatter must be a YAML mapping");
	check_report_free(r);
	free(d);
}

static void p06_license_read(void)
{
	char *d = skill("p06/my-skill", OK_FM("my-skill") "license: MIT\n", NULL);
	struct check_report *r;
	check_skill(d, &r);
	CHECK_STR(json_str(r->properties, "license"), "MIT");
	check_report_free(r);
	free(d);
}

static void p07_metadata_values_are_strings(void)
{
	char *d = skill("p07/my-skill", OK_FM("my-skill") "metadata:\n  author: Test Author\n  version: 1.0\n",
			NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	cJSON *m = json_get(r->properties, "metadata");
	CHECK_STR(json_str(m, "author"), "Test Author");
	CHECK_STR(json_str(m, "version"), "1.0"); /* a string, not the number 1.0 */
	check_report_free(r);
	free(d);
}

static void p08_no_skill_md(void)
{
	char *d = put("p08/my-skill", "README.md", "hi\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_UNUSABLE);
	CHECK_STR(r->errors[0].message, "Missing required file: SKILL.md");
	check_report_free(r);
	free(d);
}

static void p11_prefers_uppercase(void)
{
	char *d = skill("p11/my-skill", OK_FM("my-skill"), NULL);
	char *low = path_join(d, "skill.md");
	struct err e;
	fs_write_atomic(low, "not frontmatter\n", 16, 0644, &e);
	struct check_report *r;
	/* on case-insensitive file systems both names are one file */
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	CHECK(strstr(r->file, "SKILL.md") != NULL);
	check_report_free(r);
	free(low);
	free(d);
}

static void p12_lowercase_accepted(void)
{
	char *d = put("p12/my-skill", "skill.md", "---\n" OK_FM("my-skill") "---\nBody.\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	CHECK(strstr(r->file, "skill.md") != NULL);
	CHECK(warning(r, "skill-md-lowercase") != NULL);
	check_report_free(r);
	free(d);
}

static void p13_skill_md_path(void)
{
	/* a path to SKILL.md means its directory */
	char *d = skill("p13/my-skill", OK_FM("my-skill"), NULL);
	char *f = path_join(d, "SKILL.md");
	struct check_report *r;
	CHECK_INT(check_skill(f, &r), CHECK_VALID);
	CHECK_STR(r->dir, d);
	check_report_free(r);
	free(f);
	free(d);
}

static void p14_allowed_tools_key(void)
{
	char *d = skill("p14/my-skill", OK_FM("my-skill") "allowed-tools: Bash(jq:*) Read\n", NULL);
	struct check_report *r;
	check_skill(d, &r);
	CHECK_STR(json_str(r->properties, "allowed-tools"), "Bash(jq:*) Read");
	check_report_free(r);
	free(d);
}

/* ---- extra conformance cases (skill-format.md §2.4) ---- */

static void x01_nfkc_ligature(void)
{
	char *d = skill("x01/file", OK_FM("\xEF\xAC\x81le"), NULL); /* U+FB01 "fi" ligature */
	expect(d, CHECK_VALID, NULL);
	free(d);
}

static void x02_nfkc_superscript(void)
{
	char *d = skill("x02/a\xC2\xB2", OK_FM("a\xC2\xB2"), NULL); /* a² -> a2 */
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	CHECK_STR(r->name, "a2");
	check_report_free(r);
	free(d);
}

static void x03_nfkc_titlecase_digraph(void)
{
	char *d = skill("x03/\xC7\x85", OK_FM("\xC7\x85"), NULL); /* U+01C5 -> "Dž" */
	expect(d, CHECK_INVALID, "must be lowercase");
	free(d);
}

static void x04_nfkc_roman_numeral(void)
{
	char *d = skill("x04/\xE2\x85\xAB", OK_FM("\xE2\x85\xAB"), NULL); /* U+216B -> "XII" */
	expect(d, CHECK_INVALID, "Skill name 'XII' must be lowercase");
	free(d);
}

static void x05_description_counts_code_points(void)
{
	/* 1024 two-byte characters (2048 bytes) are within the limit, 1025 are not */
	struct buf b = BUF_INIT;
	buf_adds(&b, "name: my-skill\ndescription: ");
	for (int i = 0; i < 1024; i++)
		buf_adds(&b, "\xC3\xA9");
	buf_addc(&b, '\n');
	char *d = skill("x05/my-skill", b.data, NULL);
	expect(d, CHECK_VALID, NULL);
	free(d);
	b.len--;
	buf_adds(&b, "\xC3\xA9\n");
	d = skill("x05b/my-skill", b.data, NULL);
	expect(d, CHECK_INVALID, "Description exceeds 1024 character limit (1025 chars)");
	free(d);
	buf_free(&b);
}

static void x06_flow_sequence_anywhere(void)
{
	char *d = skill("x06/my-skill", OK_FM("my-skill") "metadata:\n  tags: [a, b]\n", NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(r->frontmatter_parsed); /* reported, but read: ingest takes it with a warning */
	CHECK_INT(r->nerrors, 1);
	CHECK(!strncmp(r->errors[0].message, "Invalid YAML in frontmatter: flow sequences", 43));
	CHECK_INT(r->errors[0].line, 5);
	CHECK_INT(r->errors[0].col, 9);
	check_report_free(r);
	free(d);
}

static void x07_unquoted_colon(void)
{
	char *d = skill("x07/my-skill", "name: my-skill\ndescription: Use when: x\n", NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(!r->frontmatter_parsed);
	CHECK_INT(r->nerrors, 1);
	CHECK_STR(r->errors[0].message, "Invalid YAML in frontmatter: the value of 'description' contains "
		  "\": \" (a colon and a space), which YAML reads as a nested key; quote the value: "
		  "description: \"Use when: x\"");
	CHECK_INT(r->errors[0].line, 3);
	CHECK_INT(r->errors[0].col, 22);
	CHECK_STR(r->errors[0].fix, "description: \"Use when: x\"");
	char *want = xasprintf("%s/SKILL.md:3:22: %s", d, r->errors[0].message);
	CHECK_STR(check_first_error(r), want);
	free(want);
	check_report_free(r);
	free(d);
}

static void x09_unquoted_colon_with_quotes_in_value(void)
{
	char *d = skill("x09/my-skill", "name: my-skill\ndescription: Say \"hi\": then go\n", NULL);
	struct check_report *r;
	check_skill(d, &r);
	CHECK_STR(r->errors[0].fix, "description: 'Say \"hi\": then go'");
	check_report_free(r);
	free(d);
}

/* ---- strict YAML ---- */

/* parsed: a flow collection is an error of the spec's parser, but the
 * frontmatter is read (every agent's YAML loader reads it) */
static void yaml_error_parsed(const char *dir, const char *fm, const char *msg_part, int line, int col, bool parsed)
{
	char *d = skill(dir, fm, NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(r->frontmatter_parsed == parsed);
	CHECK_INT(r->nerrors, 1);
	CHECK(strstr(r->errors[0].message, "Invalid YAML in frontmatter: ") == r->errors[0].message);
	CHECK(strstr(r->errors[0].message, msg_part) != NULL);
	if (!strstr(r->errors[0].message, msg_part))
		printf("    got: %s\n", r->errors[0].message);
	CHECK_STR(r->errors[0].rule, "yaml-invalid");
	CHECK_INT(r->errors[0].line, line);
	CHECK_INT(r->errors[0].col, col);
	check_report_free(r);
	free(d);
}

static void yaml_error_at(const char *dir, const char *fm, const char *msg_part, int line, int col)
{
	yaml_error_parsed(dir, fm, msg_part, line, col, false);
}

static void y01_duplicate_key(void)
{
	yaml_error_at("y01/my-skill", OK_FM("my-skill") "name: other\n", "duplicate key 'name' (first at line 2)",
		      4, 1);
}

static void y02_flow_mapping(void)
{
	yaml_error_parsed("y02/my-skill", OK_FM("my-skill") "metadata: {author: x}\n", "flow mappings", 4, 11, true);
}

static void y03_anchor_and_alias(void)
{
	yaml_error_at("y03/my-skill", "name: &n my-skill\ndescription: *n\n", "anchors (&n)", 2, 7);
}

static void y04_tag(void)
{
	yaml_error_at("y04/my-skill", "name: !!str my-skill\ndescription: x\n", "tags (tag:yaml.org,2002:str)",
		      2, 7);
}

static void y05_multiline_colon(void)
{
	yaml_error_at("y05/my-skill", "name: my-skill\ndescription: Does things\n  when: asked\n",
		      "a line of a multi-line value contains \": \"", 4, 7);
}

static void y06_not_string_where_string_wanted(void)
{
	char *d = skill("y06/my-skill", "name:\n  - my-skill\ndescription:\n  text: x\ncompatibility:\n  - a\n",
			NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK_INT(r->nerrors, 3);
	CHECK_STR(r->errors[0].message, "Field 'name' must be a non-empty string");
	CHECK_INT(r->errors[0].line, 3);
	CHECK_INT(r->errors[0].col, 3);
	CHECK_STR(r->errors[1].message, "Field 'description' must be a non-empty string");
	CHECK_INT(r->errors[1].line, 5);
	CHECK_STR(r->errors[2].message, "Field 'compatibility' must be a string");
	CHECK_INT(r->errors[2].line, 7);
	check_report_free(r);
	free(d);
}

static void y07_blank_name_and_description(void)
{
	char *d = skill("y07/my-skill", "name: \"  \"\ndescription:\n", NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK_INT(r->nerrors, 2);
	CHECK_STR(r->errors[0].message, "Field 'name' must be a non-empty string");
	CHECK_STR(r->errors[1].message, "Field 'description' must be a non-empty string");
	check_report_free(r);
	free(d);
}

static void y08_errors_in_rule_order(void)
{
	char *d = skill("y08/dir", "zeta: 1\nname: -Bad_Name-\nalpha: 2\n", NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK_INT(r->nerrors, 6);
	if (r->nerrors == 6) {
		CHECK_STR(r->errors[0].message, "Unexpected fields in frontmatter: alpha, zeta. Only ['allowed-tools', "
			  "'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.");
		CHECK_STR(r->errors[1].message, "Skill name '-Bad_Name-' must be lowercase");
		CHECK_STR(r->errors[2].message, "Skill name cannot start or end with a hyphen");
		CHECK_STR(r->errors[3].message, "Skill name '-Bad_Name-' contains invalid characters. Only letters, "
			  "digits, and hyphens are allowed.");
		CHECK_STR(r->errors[4].message, "Directory name 'dir' must match skill name '-Bad_Name-'");
		CHECK_STR(r->errors[5].message, "Missing required field in frontmatter: description");
		CHECK_STR(r->errors[3].fix, "name: bad-name (and a directory of that name)");
	}
	check_report_free(r);
	free(d);
}

static void y10_not_utf8(void)
{
	char *d = put("y10/my-skill", "SKILL.md", "---\nname: my-skill\ndescription: caf\xE9\n---\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_UNUSABLE);
	CHECK_STR(r->errors[0].message, "SKILL.md is not valid UTF-8 (byte 0xE9)");
	CHECK_INT(r->errors[0].line, 3);
	CHECK_INT(r->errors[0].col, 17);
	check_report_free(r);
	free(d);
}

static void y11_crlf(void)
{
	char *d = put("y11/my-skill", "SKILL.md", "---\r\nname: my-skill\r\ndescription: |\r\n  a\r\n  b\r\n---\r\nBody\r\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	CHECK_STR(r->description, "a\nb\n");
	check_report_free(r);
	free(d);
}

static void y12_bom(void)
{
	char *d = put("y12/my-skill", "SKILL.md", "\xEF\xBB\xBF---\nname: my-skill\ndescription: x\n---\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(!r->frontmatter_parsed);
	CHECK_STR(r->errors[0].message, "SKILL.md must start with YAML frontmatter (---): it starts with "
		  "a UTF-8 byte order mark (BOM) before the ---");
	CHECK_STR(r->errors[0].fix, "save the file as UTF-8 without a BOM");
	check_report_free(r);
	free(d);
}

static void y13_naive_split(void)
{
	/* skills-ref splits at the first "---" anywhere, even inside a value */
	char *d = skill("y13/my-skill", "name: my-skill\ndescription: a --- b\n", NULL);
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	CHECK_STR(r->description, "a");
	CHECK(warning(r, "frontmatter-dashes") != NULL);
	check_report_free(r);
	free(d);
}

static void y14_empty_frontmatter(void)
{
	char *d = put("y14/my-skill", "SKILL.md", "---\n# only a comment\n---\nBody\n");
	struct check_report *r;
	CHECK_INT(check_skill(d, &r), CHECK_INVALID);
	CHECK(!r->frontmatter_parsed);
	CHECK_STR(r->errors[0].message, "SKILL.md frontmatter must be a YAML mapping");
	check_report_free(r);
	free(d);
}

/* ---- lint ---- */

static struct check_report *lint_of(const char *dir, const char *fm, const char *body)
{
	char *d = skill(dir, fm, body);
	struct check_report *r;
	check_skill(d, &r);
	free(d);
	return r;
}

static void l01_clean_skill_has_no_warnings(void)
{
	const char *fm = "name: my-skill\ndescription: Runs the a script. Use when the user asks for the a report.\n";
	struct check_report *r = lint_of("l01/my-skill", fm, "# Do\n\nRun `scripts/a.py`.\n");
	char *s = path_join(root, "l01/my-skill/scripts");
	struct err e;
	fs_mkdirs(s, &e);
	char *f = path_join(s, "a.py");
	fs_write_atomic(f, "pass\n", 5, 0644, &e);
	check_report_free(r);
	char *d = path_join(root, "l01/my-skill");
	CHECK_INT(check_skill(d, &r), CHECK_VALID);
	CHECK_INT(r->nwarnings, 0);
	if (r->nwarnings)
		printf("    %s\n", r->warnings[0].message);
	check_report_free(r);
	free(d), free(f), free(s);
}

static void l02_body_budgets(void)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < 501; i++)
		buf_adds(&b, "line\n");
	struct check_report *r = lint_of("l02/my-skill", OK_FM("my-skill"), b.data);
	CHECK_INT(r->verdict, CHECK_VALID);
	CHECK_INT(r->body_lines, 501);
	const struct check_finding *w = warning(r, "body-lines");
	CHECK(w != NULL);
	CHECK(warning(r, "body-tokens") == NULL);
	if (w)
		CHECK_INT(w->line, 5);
	check_report_free(r);
	buf_reset(&b);
	for (int i = 0; i < 60; i++)
		buf_adds(&b, "A long line of words that goes on and on to fill the body with text for "
			 "the token estimate, four hundred characters a line or so, again and again and "
			 "again so that it crosses five thousand tokens in the end. One more sentence to "
			 "get there sooner, and another, and another one after that, and then some words "
			 "more than that, until the line is long enough.\n");
	r = lint_of("l02b/my-skill", OK_FM("my-skill"), b.data);
	CHECK(warning(r, "body-tokens") != NULL);
	CHECK(warning(r, "body-lines") == NULL);
	CHECK(r->body_tokens > 5000);
	check_report_free(r);
	buf_free(&b);
}

static void l03_description(void)
{
	struct check_report *r = lint_of("l03/my-skill", "name: my-skill\ndescription: Converts <b> tags into "
					 "markdown emphasis for documents.\n", NULL);
	CHECK(warning(r, "description-no-cue") != NULL);
	CHECK(warning(r, "description-angle") != NULL);
	CHECK(warning(r, "description-short") == NULL);
	check_report_free(r);
	r = lint_of("l03b/my-skill", "name: my-skill\ndescription: Use when asked.\n", NULL);
	CHECK(warning(r, "description-no-cue") == NULL);
	CHECK(warning(r, "description-short") != NULL);
	check_report_free(r);
	struct buf b = BUF_INIT;
	buf_adds(&b, "name: my-skill\ndescription: Use when");
	for (int i = 0; i < 60; i++)
		buf_adds(&b, " more text");
	buf_addc(&b, '\n');
	r = lint_of("l03c/my-skill", b.data, NULL);
	CHECK(warning(r, "description-long") != NULL);
	CHECK_INT(r->verdict, CHECK_VALID);
	check_report_free(r);
	buf_free(&b);
}

static void l04_references(void)
{
	char *d = skill("l04/my-skill", OK_FM("my-skill"),
			"# Refs\n\n"
			"Read [the guide](references/guide.md) and [api](references/api.md#auth).\n"
			"Run `python scripts/missing.py --in x` or see ../../COMMANDS.md and <https://x.org/a.md>.\n"
			"Also [up](../other/SKILL.md), [web](https://example.com/scripts/x.py) and `src/app.py`.\n\n"
			"```bash\npython scripts/gone.py\ncat ../outside.txt\n```\n\n"
			"Again: scripts/missing.py.\n");
	char *dir = xstrdup(d);
	free(put("l04/my-skill/references", "guide.md", "# Guide\n\nSee [deeper](deep.md) and [api](api.md).\n"));
	free(put("l04/my-skill/references", "deep.md", "# Deep\n"));
	free(put("l04/my-skill/references", "api.md", "# API\n"));
	struct check_report *r;
	CHECK_INT(check_skill(dir, &r), CHECK_VALID);
	int dangling = 0, escapes = 0, chain = 0;
	for (size_t i = 0; i < r->nwarnings; i++) {
		const struct check_finding *w = &r->warnings[i];
		dangling += !strcmp(w->rule, "ref-dangling");
		escapes += !strcmp(w->rule, "ref-escapes");
		chain += !strcmp(w->rule, "ref-chain");
		if (!strcmp(w->rule, "ref-dangling") && strstr(w->message, "scripts/missing.py")) {
			CHECK_STR(w->message, "scripts/missing.py does not exist in the skill folder (2 mentions)");
			CHECK_INT(w->line, 8);
			CHECK_INT(w->col, 13);
		}
		if (!strcmp(w->rule, "ref-chain"))
			CHECK_STR(w->message, "references/guide.md refers to references/deep.md (line 3), which "
				  "SKILL.md does not reference: agents may never read it; reference it from "
				  "SKILL.md (one level deep)");
	}
	CHECK_INT(dangling, 2);  /* scripts/missing.py, scripts/gone.py */
	CHECK_INT(escapes, 2);   /* ../../COMMANDS.md, ../other/SKILL.md */
	CHECK_INT(chain, 1);     /* deep.md (api.md is referenced directly) */
	check_report_free(r);
	free(dir);
	free(d);
}

static void l05_keys_and_types(void)
{
	struct check_report *r = lint_of("l05/技能", "name: 技能\ndescription: Use when x happens in y.\n"
					 "version: 1.2\nuser-invocable: true\nlicense: yes\n"
					 "metadata:\n  version: 1.0\n  tags:\n    - a\n", NULL);
	CHECK_INT(r->verdict, CHECK_INVALID);
	int unknown = 0, implicit = 0;
	for (size_t i = 0; i < r->nwarnings; i++) {
		unknown += !strcmp(r->warnings[i].rule, "unknown-key");
		implicit += !strcmp(r->warnings[i].rule, "yaml-implicit-type");
	}
	CHECK_INT(unknown, 2);
	CHECK_INT(implicit, 2); /* license: yes, metadata.version: 1.0 */
	const struct check_finding *w = warning(r, "unknown-key");
	CHECK_STR(w->message, "'version' is not a spec field; keep it as metadata.version");
	CHECK_STR(w->fix, "metadata:\n  version: ...");
	CHECK(warning(r, "metadata-type") != NULL);
	CHECK(warning(r, "name-non-ascii") != NULL);
	check_report_free(r);
}

static void l06_no_lint_option(void)
{
	char *d = skill("l06/my-skill", "name: my-skill\ndescription: short\n", "see scripts/x.py\n");
	struct check_options o = { false, NULL, 0 };
	struct check_report *r;
	CHECK_INT(check_skill_opts(d, &o, &r), CHECK_VALID);
	CHECK_INT(r->nwarnings, 0);
	check_report_free(r);
	free(d);
}

static void j01_json_schema(void)
{
	char *d = skill("j01/My-Skill", "name: My-Skill\ndescription: x\n", NULL);
	struct check_report *r;
	check_skill(d, &r);
	cJSON *j = check_report_json(r);
	CHECK_INT(json_num(j, "format", 0), 1);
	CHECK_STR(json_str(j, "verdict"), "invalid");
	CHECK_STR(json_str(j, "name"), "My-Skill");
	CHECK_STR(json_str(j, "path"), d);
	cJSON *errs = json_get(j, "errors");
	CHECK_INT(cJSON_GetArraySize(errs), 1);
	cJSON *e0 = cJSON_GetArrayItem(errs, 0);
	CHECK_STR(json_str(e0, "rule"), "name-lowercase");
	CHECK_STR(json_str(e0, "message"), "Skill name 'My-Skill' must be lowercase");
	CHECK_INT(json_num(e0, "line", 0), 2);
	CHECK_INT(json_num(e0, "col", 0), 7);
	CHECK(strstr(json_str(e0, "file"), "SKILL.md") != NULL);
	CHECK(cJSON_IsArray(json_get(j, "warnings")));
	CHECK_INT(json_num(json_get(j, "stats"), "description_chars", 0), 1);
	cJSON_Delete(j);
	check_report_free(r);
	free(d);
}

/* Random YAML-ish text: the strict parser never crashes or leaks, and
 * every failure has a position and a message. */
static void f01_random_frontmatter(void)
{
	static const char *const frag[] = {
		"name: x\n", "description: ", "a: b: c\n", "[", "]", "{", "}", "- ", "  ", "\t", "&a ", "*a",
		"!!str ", "|\n", ">-\n", "\"q\\\"\"", "'s''", "key:\n", "...\n", "%YAML 1.2\n", "#c\n",
		"\n", "? k\n", ": v\n", "\xC3\xA9", "\\0", "\"\\0\"", "x: 1.0\n", "y: ~\n",
	};
	unsigned seed = 99;
	int bad = 0;
	for (int n = 0; n < 3000; n++) {
		struct buf b = BUF_INIT;
		int parts = (int)(seed % 30);
		for (int i = 0; i < parts; i++) {
			seed = seed * 1103515245u + 12345u;
			buf_adds(&b, frag[(seed >> 16) % ARRAY_LEN(frag)]);
		}
		seed = seed * 1103515245u + 12345u;
		struct fm_node *top;
		struct fm_error fe;
		if (fm_parse(b.data, b.len, 1, 4, &top, &fe) < 0)
			bad += !fe.msg[0] || fe.line < 1 || fe.col < 1 || top != NULL;
		fm_free(top);
		buf_free(&b);
	}
	CHECK_INT(bad, 0);
}

/* The cases of one shape, as data (jq's tests/jq.test): a skill folder whose
 * SKILL.md has this frontmatter and a plain body, the verdict, and the text
 * its one error holds (NULL: no error). */
static const struct fm_case {
	const char *name, *dir, *fm;
	int verdict;
	const char *error;
} fm_cases[] = {
	{ "v01_valid_skill", "v01/my-skill",
	  OK_FM("my-skill"),
	  CHECK_VALID, NULL },
	{ "v05_uppercase", "v05/MySkill",
	  OK_FM("MySkill"),
	  CHECK_INVALID, "Skill name 'MySkill' must be lowercase" },
	{ "v07_leading_hyphen", "v07/-my-skill",
	  OK_FM("-my-skill"),
	  CHECK_INVALID, "Skill name cannot start or end with a hyphen" },
	{ "v08_consecutive_hyphens", "v08/my--skill",
	  OK_FM("my--skill"),
	  CHECK_INVALID, "Skill name cannot contain consecutive hyphens" },
	{ "v09_invalid_characters", "v09/my_skill",
	  OK_FM("my_skill"),
	  CHECK_INVALID, "Skill name 'my_skill' contains invalid characters. Only letters, digits, "
	  "and hyphens are allowed." },
	{ "v10_directory_mismatch", "v10/wrong-name",
	  OK_FM("correct-name"),
	  CHECK_INVALID, "Directory name 'wrong-name' must match skill name 'correct-name'" },
	{ "v11_unexpected_fields", "v11/my-skill",
	  OK_FM("my-skill") "unknown_field: should not be here\n",
	  CHECK_INVALID, "Unexpected fields in frontmatter: unknown_field. Only ['allowed-tools', "
	  "'compatibility', 'description', 'license', 'metadata', 'name'] are allowed." },
	{ "v12_license_and_metadata", "v12/my-skill",
	  OK_FM("my-skill") "license: MIT\nmetadata:\n  author: Test\n",
	  CHECK_VALID, NULL },
	{ "v13_allowed_tools", "v13/my-skill",
	  OK_FM("my-skill") "allowed-tools: Bash(jq:*) Bash(git:*)\n",
	  CHECK_VALID, NULL },
	{ "v14_chinese_name", "v14/技能",
	  OK_FM("技能"),
	  CHECK_VALID, NULL },
	{ "v15_russian_with_hyphens", "v15/мой-навык",
	  OK_FM("мой-навык"),
	  CHECK_VALID, NULL },
	{ "v16_russian_lowercase", "v16/навык",
	  OK_FM("навык"),
	  CHECK_VALID, NULL },
	{ "v17_russian_uppercase", "v17/НАВЫК",
	  OK_FM("НАВЫК"),
	  CHECK_INVALID, "Skill name 'НАВЫК' must be lowercase" },
	{ "v19_compatibility", "v19/my-skill",
	  OK_FM("my-skill") "compatibility: Requires Python 3.11+\n",
	  CHECK_VALID, NULL },
	{ "p09_missing_name", "p09/my-skill",
	  "description: A test skill\n",
	  CHECK_INVALID, "Missing required field in frontmatter: name" },
	{ "p10_missing_description", "p10/my-skill",
	  "name: my-skill\n",
	  CHECK_INVALID, "Missing required field in frontmatter: description" },
	{ "x08_empty_compatibility", "x08/my-skill",
	  OK_FM("my-skill") "compatibility:\n",
	  CHECK_VALID, NULL },
	{ "y09_name_is_stripped", "y09/my-skill",
	  "name: \"  my-skill\\t\"\ndescription: x\n",
	  CHECK_VALID, NULL },
};

static const struct fm_case *fm_case_now;

static void fm_case_run(void)
{
	char *d = skill(fm_case_now->dir, fm_case_now->fm, NULL);
	expect(d, fm_case_now->verdict, fm_case_now->error);
	free(d);
}

/* Each row is a case of its own in the output, named as before. */
static void run_fm_cases(void)
{
	for (size_t i = 0; i < ARRAY_LEN(fm_cases); i++) {
		fm_case_now = &fm_cases[i];
		t_case_name = fm_cases[i].name;
		t_case_failed = 0;
		fm_case_run();
		if (!t_case_failed)
			printf("ok %s\n", fm_cases[i].name);
		t_failed_total += t_case_failed;
		fflush(stdout);
	}
}

int main(void)
{
	root = t_tmpdir();
	run_fm_cases();
	RUN(v02_nonexistent_path);
	RUN(v03_not_a_directory);
	RUN(v04_missing_skill_md);
	RUN(v06_too_long);
	RUN(v18_description_too_long);
	RUN(v20_compatibility_too_long);
	RUN(v21_nfkc_directory_and_name);
	RUN(p01_valid_frontmatter);
	RUN(p02_missing_frontmatter);
	RUN(p03_unclosed_frontmatter);
	RUN(p04_invalid_yaml);
	RUN(p05_not_a_mapping);
	RUN(p06_license_read);
	RUN(p07_metadata_values_are_strings);
	RUN(p08_no_skill_md);
	RUN(p11_prefers_uppercase);
	RUN(p12_lowercase_accepted);
	RUN(p13_skill_md_path);
	RUN(p14_allowed_tools_key);
	RUN(x01_nfkc_ligature);
	RUN(x02_nfkc_superscript);
	RUN(x03_nfkc_titlecase_digraph);
	RUN(x04_nfkc_roman_numeral);
	RUN(x05_description_counts_code_points);
	RUN(x06_flow_sequence_anywhere);
	RUN(x07_unquoted_colon);
	RUN(x09_unquoted_colon_with_quotes_in_value);
	RUN(y01_duplicate_key);
	RUN(y02_flow_mapping);
	RUN(y03_anchor_and_alias);
	RUN(y04_tag);
	RUN(y05_multiline_colon);
	RUN(y06_not_string_where_string_wanted);
	RUN(y07_blank_name_and_description);
	RUN(y08_errors_in_rule_order);
	RUN(y10_not_utf8);
	RUN(y11_crlf);
	RUN(y12_bom);
	RUN(y13_naive_split);
	RUN(y14_empty_frontmatter);
	RUN(l01_clean_skill_has_no_warnings);
	RUN(l02_body_budgets);
	RUN(l03_description);
	RUN(l04_references);
	RUN(l05_keys_and_types);
	RUN(l06_no_lint_option);
	RUN(j01_json_schema);
	RUN(f01_random_frontmatter);
	struct err e;
	fs_remove_tree(root, &e);
	free(root);
	T_EXIT();
}
