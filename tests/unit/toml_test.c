/* toml_test.c — the TOML subset parser: what task.toml files hold, and the
 * exact messages for what it refuses. */
#include "t.h"

#include "base/json.h"
#include "base/pyjson.h"
#include "base/toml.h"

static cJSON *parse(const char *s, struct err *e)
{
	return toml_parse(s, strlen(s), "task.toml", e);
}

static char *compact(const cJSON *v)
{
	struct buf b = BUF_INIT;
	pyjson_print(v, -1, &b);
	return buf_detach(&b);
}

static void t_task_toml(void)
{
	struct err e = { 0 };
	const char *src =
		"version = \"1.0\"  # schema\n"
		"\n"
		"[metadata]\n"
		"author_name = \"A. Author\"\n"
		"tags = [\"x\", 'y',\n   \"z\", # trailing\n]\n"
		"requires_programs = []\n"
		"[verifier]\n"
		"timeout_sec = 900.0\n"
		"[verifier.env]\n"
		"MODE = \"strict\"\n"
		"[agent]\r\n"
		"timeout_sec = 1_800\r\n"
		"[environment]\n"
		"allow_internet = true\n"
		"cpus = 1\n"
		"limits = { memory_mb = 2048, \"storage mb\" = -1.5e3 }\n"
		"a.b.c = false\n";
	cJSON *v = parse(src, &e);
	CHECK(v != NULL);
	if (!v) {
		printf("# %s\n", e.msg);
		return;
	}
	char *s = compact(v);
	CHECK_STR(s, "{\"version\": \"1.0\", \"metadata\": {\"author_name\": \"A. Author\", "
		     "\"tags\": [\"x\", \"y\", \"z\"], \"requires_programs\": []}, \"verifier\": "
		     "{\"timeout_sec\": 900, \"env\": {\"MODE\": \"strict\"}}, \"agent\": {\"timeout_sec\": 1800}, "
		     "\"environment\": {\"allow_internet\": true, \"cpus\": 1, \"limits\": {\"memory_mb\": 2048, "
		     "\"storage mb\": -1500}, \"a\": {\"b\": {\"c\": false}}}}");
	free(s);
	cJSON_Delete(v);
}

static void t_strings(void)
{
	struct err e = { 0 };
	cJSON *v = parse("a = \"tab\\there \\u00e9\"\n"
			 "b = 'C:\\path'\n"
			 "c = \"\"\"\nline1\n  line2 \\\n   joined\"\"\"\n"
			 "d = '''\nraw \\n'''\n"
			 "[[steps]]\nname = \"one\"\n[[steps]]\nname = \"two\"\n", &e);
	CHECK(v != NULL);
	if (!v) {
		printf("# %s\n", e.msg);
		return;
	}
	CHECK_STR(json_str(v, "a"), "tab\there \xc3\xa9");
	CHECK_STR(json_str(v, "b"), "C:\\path");
	CHECK_STR(json_str(v, "c"), "line1\n  line2 joined");
	CHECK_STR(json_str(v, "d"), "raw \\n");
	CHECK_INT(cJSON_GetArraySize(json_get(v, "steps")), 2);
	CHECK_STR(json_str(cJSON_GetArrayItem(json_get(v, "steps"), 1), "name"), "two");
	cJSON_Delete(v);
}

static void expect_error(const char *src, const char *msg)
{
	struct err e = { 0 };
	cJSON *v = parse(src, &e);
	CHECK(v == NULL);
	cJSON_Delete(v);
	CHECK_STR(e.msg, msg);
	CHECK_INT(e.code, ERR_INPUT);
}

static void t_refusals(void)
{
	expect_error("a = 1\na = 2\n", "task.toml:2: key 'a' is defined twice");
	expect_error("[x]\nb = 1\n[x]\n", "task.toml:3: table [x] is defined twice");
	expect_error("d = 1979-05-27\n", "task.toml:1: dates and times are not supported");
	expect_error("h = 0x1f\n", "task.toml:1: hexadecimal, octal and binary integers are not supported");
	expect_error("f = inf\n", "task.toml:1: inf and nan are not supported");
	expect_error("s = \"open\n", "task.toml:1: newline inside a one-line string");
	expect_error("a = 1 b = 2\n", "task.toml:1: unexpected text after the value (one key = value per line)");
	expect_error("x = [1, 2\n", "task.toml:2: unterminated array");
	expect_error("[t\n", "task.toml:1: expected ']' to close the header");
	expect_error("k = \n", "task.toml:1: missing value");
	expect_error("k = yes\n", "task.toml:1: expected a value (string, number, true/false, array or table)");
	expect_error("a = 1\na.b = 2\n", "task.toml:2: key 'a' is already a value, not a table");
	expect_error("n = 1__0\n", "task.toml:1: misplaced '_' in a number");
	expect_error("n = .5\n", "task.toml:1: expected a value (string, number, true/false, array or table)");
	expect_error("n = 01\n", "task.toml:1: expected a value (string, number, true/false, array or table)");
	/* found by a sanitizer run: the key parts read before the bad one leaked */
	expect_error("a = { c..d = 1 }\n", "task.toml:1: expected a key");
}

static void t_pyjson(void)
{
	cJSON *o = cJSON_CreateObject();
	pyjson_add_float(o, "reward", 1.0);
	pyjson_add_float(o, "t", 309.6);
	pyjson_add_float(o, "small", 1e-5);
	cJSON_AddNumberToObject(o, "n", 4);
	cJSON_AddStringToObject(o, "s", "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\"\n");
	cJSON_AddItemToObject(o, "empty", cJSON_CreateObject());
	cJSON_AddItemToObject(o, "list", cJSON_CreateArray());
	cJSON_AddNullToObject(o, "none");
	char *s = compact(o);
	CHECK_STR(s, "{\"reward\": 1.0, \"t\": 309.6, \"small\": 1e-05, \"n\": 4, "
		     "\"s\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\"\\n\", \"empty\": {}, \"list\": [], \"none\": null}");
	free(s);
	cJSON *a = cJSON_CreateObject();
	cJSON *in = cJSON_AddObjectToObject(a, "timing");
	pyjson_add_float(in, "total", 2.0);
	struct buf b = BUF_INIT;
	pyjson_print(a, 2, &b);
	CHECK_STR(b.data, "{\n  \"timing\": {\n    \"total\": 2.0\n  }\n}");
	buf_free(&b);
	cJSON_Delete(a);
	cJSON_Delete(o);
}

int main(void)
{
	RUN(t_task_toml);
	RUN(t_strings);
	RUN(t_refusals);
	RUN(t_pyjson);
	T_EXIT();
}
