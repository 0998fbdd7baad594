/* llm_test.c — the LLM client's pieces that need no server: .env parsing,
 * routes validation and model-id splitting, JSON extraction, cache
 * entries, usage lines and cross-process slots. The wire is tested in
 * tests/e2e/llm.sh against tests/helpers/fakellm. */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/dotenv.h"
#include "base/fs.h"
#include "base/json.h"
#include "llm/client.h"
#include "llm/cache.h"
#include "llm/routes.h"
#include "base/slots.h"
#include "t.h"
#include "llm/usage.h"

static char *dir;

static char *put(const char *name, const char *text)
{
	char *p = path_join(dir, name);
	struct err e;
	CHECK(fs_write_atomic(p, text, strlen(text), 0600, &e) == 0);
	return p;
}

static void test_dotenv_syntax(void)
{
	char *p = put("a.env",
		      "# a comment\n"
		      "\n"
		      "PLAIN=abc   # trailing comment\n"
		      "export EXPORTED = spaced value\n"
		      "SINGLE='a # b $HOME \\n'\n"
		      "DOUBLE=\"line\\none \\\"q\\\" \\$HOME\"\r\n"
		      "HASH=a#b\n"
		      "EMPTY=\n"
		      "DUP=first\n"
		      "DUP=second\n");
	struct dotenv d = DOTENV_INIT;
	struct err e = { 0 };
	CHECK(dotenv_load(&d, p, &e) == 0);
	unsetenv("PLAIN");
	enum dotenv_source src;
	CHECK_STR(dotenv_get(&d, "PLAIN", &src), "abc");
	CHECK_INT(src, DOTENV_FILE);
	CHECK_STR(dotenv_get(&d, "EXPORTED", NULL), "spaced value");
	CHECK_STR(dotenv_get(&d, "SINGLE", NULL), "a # b $HOME \\n");
	CHECK_STR(dotenv_get(&d, "DOUBLE", NULL), "line\none \"q\" $HOME");
	CHECK_STR(dotenv_get(&d, "HASH", NULL), "a#b");
	CHECK(dotenv_get(&d, "EMPTY", &src) == NULL);
	CHECK_INT(src, DOTENV_MISSING);
	CHECK_STR(dotenv_get(&d, "DUP", NULL), "second");
	dotenv_free(&d);
	free(p);
}

static void test_dotenv_errors_never_show_values(void)
{
	char *p = put("bad.env", "GOOD=1\nSECRET='sk-live-abcdef\n");
	struct dotenv d = DOTENV_INIT;
	struct err e = { 0 };
	CHECK(dotenv_load(&d, p, &e) < 0);
	CHECK_INT(e.code, ERR_INPUT);
	CHECK(strstr(e.msg, "line 2: unterminated quote in the value of SECRET") != NULL);
	CHECK(strstr(e.msg, "sk-live") == NULL);
	dotenv_free(&d);
	free(p);

	p = put("bad2.env", "sk-live-abcdef\n");
	d = (struct dotenv)DOTENV_INIT;
	CHECK(dotenv_load(&d, p, &e) < 0);
	CHECK(strstr(e.msg, "line 1: expected NAME=VALUE") != NULL);
	CHECK(strstr(e.msg, "sk-live") == NULL);
	dotenv_free(&d);
	free(p);

	p = put("bad3.env", "1BAD=x\n");
	d = (struct dotenv)DOTENV_INIT;
	CHECK(dotenv_load(&d, p, &e) < 0);
	CHECK(strstr(e.msg, "line 1: bad variable name") != NULL);
	dotenv_free(&d);
	free(p);

	/* over 1 MiB: says so (it once said "No such file or directory") */
	char *big = xmalloc(DOTENV_MAX + 2);
	memset(big, 'a', DOTENV_MAX + 1);
	big[DOTENV_MAX + 1] = '\0';
	p = put("big.env", big);
	d = (struct dotenv)DOTENV_INIT;
	CHECK(dotenv_load(&d, p, &e) < 0);
	CHECK_INT(e.code, ERR_INPUT);
	CHECK(strstr(e.msg, "big.env' is over 1 MiB: an env file holds a few NAME=VALUE lines") != NULL);
	dotenv_free(&d);
	free(p);
	free(big);
}

static void test_dotenv_environment_wins_and_missing_file(void)
{
	char *p = put("w.env", "SKILLC_T_KEY=from-file\nSKILLC_T_OTHER=file2\n");
	struct dotenv d = DOTENV_INIT;
	struct err e = { 0 };
	CHECK(dotenv_load(&d, p, &e) == 0);
	setenv("SKILLC_T_KEY", "from-env", 1);
	setenv("SKILLC_T_OTHER", "", 1); /* empty counts as unset */
	enum dotenv_source src;
	CHECK_STR(dotenv_get(&d, "SKILLC_T_KEY", &src), "from-env");
	CHECK_INT(src, DOTENV_ENVIRON);
	CHECK_STR(dotenv_get(&d, "SKILLC_T_OTHER", &src), "file2");
	CHECK_INT(src, DOTENV_FILE);
	unsetenv("SKILLC_T_KEY");
	unsetenv("SKILLC_T_OTHER");
	dotenv_free(&d);
	free(p);

	char *none = path_join(dir, "absent.env");
	d = (struct dotenv)DOTENV_INIT;
	CHECK(dotenv_load(&d, none, &e) == 0);
	CHECK(d.path == NULL);
	dotenv_free(&d);
	free(none);
}

static int routes_error(const char *text, struct err *e)
{
	char *p = put("r.json", text);
	struct routes r = ROUTES_INIT;
	int rc = routes_load(&r, p, e);
	routes_free(&r);
	free(p);
	return rc;
}

static void test_routes_shipped_example_parses(void)
{
	struct routes r = ROUTES_INIT;
	struct err e = { 0 };
	CHECK(routes_load(&r, "rules/provider_routes.json", &e) == 0);
	if (e.msg[0])
		printf("# %s\n", e.msg);
	const struct route *v = routes_find(&r, "vllm");
	CHECK(v != NULL);
	if (v) {
		CHECK_STR(v->base_url, "http://127.0.0.1:8000/v1");
		CHECK(!v->key_required);
	}
	const struct route *o = routes_find(&r, "ollama");
	CHECK(o && o->key_env == NULL && o->base_url && strstr(o->base_url, ":11434/"));
	const struct route *oa = routes_find(&r, "openai");
	CHECK(oa && !strcmp(oa->key_env, "OPENAI_API_KEY") && oa->key_required);
	CHECK(oa && oa->retry.attempts == 6 && oa->timeout == 600);
	routes_free(&r);
}

static void test_routes_validation_messages(void)
{
	struct err e = { 0 };
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h/v1\", \"base_ur\": 1}}}", &e) < 0);
	CHECK(strstr(e.msg, "provider 'x': unknown field 'base_ur'") != NULL);
	CHECK_INT(e.code, ERR_INPUT);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"ftp://h\"}}}", &e) < 0);
	CHECK(strstr(e.msg, "'base_url' must be an http:// or https:// URL") != NULL);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h\", \"headers\": {\"Authorization\": \"Bearer k\"}}}}", &e) < 0);
	CHECK(strstr(e.msg, "keys never go in 'headers'") != NULL);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h\", \"api\": \"anthropic\"}}}", &e) < 0);
	CHECK(strstr(e.msg, "api 'anthropic' is not supported") != NULL);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h\", \"max_concurrency\": -1}}}", &e) < 0);
	CHECK(strstr(e.msg, "'max_concurrency' must be a number from 0 to 1024") != NULL);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h\", \"key_env\": \"A-B\"}}}", &e) < 0);
	CHECK(strstr(e.msg, "'key_env' must name a variable") != NULL);
	CHECK(routes_error("{\"providers\": {\"../x\": {\"base_url\": \"http://h\"}}}", &e) < 0);
	CHECK(strstr(e.msg, "bad provider name '../x'") != NULL);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h\", \"prices\": {\"m\": {\"input\": 1}}}}}", &e) < 0);
	CHECK(strstr(e.msg, "needs both 'input' and 'output'") != NULL);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h\", \"retry\": {\"attempts\": 0}}}}", &e) < 0);
	CHECK(strstr(e.msg, "retry: 'attempts' must be a number from 1 to 100") != NULL);
	CHECK(routes_error("{\"providers\": {\n\"x\": {,}}}", &e) < 0);
	CHECK(strstr(e.msg, "is not valid JSON (near line 2)") != NULL);
	CHECK(routes_error("{\"version\": 2, \"providers\": {}}", &e) < 0);
	CHECK(strstr(e.msg, "version 2 is not supported") != NULL);
	CHECK(routes_error("{\"providers\": {\"x\": {\"base_url\": \"http://h/v1/\", \"_note\": \"ok\"}}, \"_c\": 1}", &e) == 0);
}

static void test_routes_split_and_resolve(void)
{
	char *p, *m;
	struct err e = { 0 };
	CHECK(routes_split("siliconflow/Qwen/Qwen3.5-27B", &p, &m, &e) == 0);
	CHECK_STR(p, "siliconflow");
	CHECK_STR(m, "Qwen/Qwen3.5-27B");
	free(p);
	free(m);
	CHECK(routes_split("ollama/qwen3:8b", &p, &m, &e) == 0);
	CHECK_STR(m, "qwen3:8b");
	free(p);
	free(m);
	CHECK(routes_split("gpt-4o", &p, &m, &e) < 0);
	CHECK_STR(e.msg, "model 'gpt-4o' has no provider: write provider/model-id (e.g. openai/gpt-4o)");
	static const char *const bad[] = { "openai/", "/gpt", "a/../b", "a/b c", "a/b;rm", "a/-x", "a/b/", "" };
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		CHECK(routes_split(bad[i], &p, &m, &e) < 0);
		CHECK_INT(e.code, ERR_INPUT);
		CHECK(p == NULL && m == NULL);
	}

	char *rp = put("ok.json", "{\"providers\": {\"b\": {\"base_url\": \"http://h/v1/\", \"prices\": {\"*\": {\"input\": 1, \"output\": 2}, \"m1\": {\"input\": 3, \"output\": 4}}}, \"a\": {\"base_url\": \"http://h\"}}}");
	struct routes r = ROUTES_INIT;
	CHECK(routes_load(&r, rp, &e) == 0);
	const struct route *rt = routes_resolve(&r, "b/m1", &m, &e);
	CHECK(rt && !strcmp(rt->base_url, "http://h/v1"));
	double in, out;
	CHECK(rt && route_price(rt, m, &in, &out) && in == 3 && out == 4);
	CHECK(rt && route_price(rt, "other", &in, &out) && in == 1 && out == 2);
	free(m);
	CHECK(routes_resolve(&r, "zz/m", &m, &e) == NULL);
	CHECK(strstr(e.msg, "unknown provider 'zz' in model 'zz/m': add it to routes") != NULL);
	CHECK(strstr(e.msg, "(known: b, a)") != NULL);
	CHECK(!route_price(routes_find(&r, "a"), "m", &in, &out));
	routes_free(&r);
	free(rp);
}

static char *extract(const char *text)
{
	cJSON *v = llm_extract_json(text);
	if (!v)
		return NULL;
	struct buf b = BUF_INIT;
	json_canon(v, false, &b);
	cJSON_Delete(v);
	return buf_detach(&b);
}

static void test_extract_json(void)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "{\"a\": 1}", "{\"a\":1}" },
		{ "  {\"a\": [1, {\"b\": \"}\"}]}\n", "{\"a\":[1,{\"b\":\"}\"}]}" },
		{ "Here:\n```json\n{\"x\": true}\n```\nDone.", "{\"x\":true}" },
		{ "```\nnot json\n```\n```\n{\"y\": 2}\n```", "{\"y\":2}" },
		{ "Sure! The plan is {\"steps\": [\"a\"]} as asked. {\"z\": 1}", "{\"steps\":[\"a\"]}" },
		{ "broken {\"a\": } then {\"b\": 3}", "{\"b\":3}" },
		{ "[1, 2]", NULL },
		{ "no object here", NULL },
		{ "{\"cut\": \"short", NULL },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = extract(cases[i].in);
		if (cases[i].want)
			CHECK_STR(got, cases[i].want);
		else
			CHECK(got == NULL);
		free(got);
	}
}

static void test_cache_entries(void)
{
	char *cache = path_join(dir, "cache");
	struct err e = { 0 };
	const char *key = "0123456789abcdef0123456789abcdef";
	CHECK(llmcache_get(cache, key) == NULL);
	cJSON *req = cJSON_Parse("{\"body\": {\"model\": \"m\"}}");
	cJSON *resp = cJSON_Parse("{\"choices\": [{\"message\": {\"content\": \"hi\"}}]}");
	CHECK(llmcache_put(cache, key, req, resp, 1.5, &e) == 0);
	char *path = llmcache_path(cache, key);
	CHECK(strstr(path, "/cache/llm/01/0123456789abcdef0123456789abcdef.json") != NULL);
	CHECK(fs_exists(path));
	cJSON *got = llmcache_get(cache, key);
	CHECK(got && !strcmp(json_str(json_get(cJSON_GetArrayItem(json_get(got, "choices"), 0), "message"), "content"), "hi"));
	cJSON_Delete(got);
	/* a damaged entry is a miss, never an answer */
	CHECK(fs_write_atomic(path, "{\"format\": 1, \"key\": \"0123", 26, 0644, &e) == 0);
	CHECK(llmcache_get(cache, key) == NULL);
	/* an entry filed under another key is a miss too */
	CHECK(llmcache_put(cache, key, req, resp, 0, &e) == 0);
	char *other = llmcache_path(cache, "01ffffffffffffffffffffffffffffff");
	CHECK(rename(path, other) == 0);
	CHECK(llmcache_get(cache, "01ffffffffffffffffffffffffffffff") == NULL);
	enum llm_cache_mode m;
	CHECK(llmcache_mode_parse("only", &m, &e) == 0 && m == LLM_CACHE_ONLY);
	CHECK(llmcache_mode_parse("sometimes", &m, &e) < 0);
	CHECK_STR(e.msg, "bad LLM_CACHE 'sometimes': use use, refresh, off or only");
	cJSON_Delete(req);
	cJSON_Delete(resp);
	free(other);
	free(path);
	free(cache);
}

static void test_usage_lines(void)
{
	char *p = path_join(dir, "usage.jsonl");
	struct err e = { 0 };
	cJSON *rec = cJSON_Parse("{\"b\": 2, \"a\": \"x\\ny\"}");
	CHECK(usage_append(p, rec, &e) == 0);
	CHECK(usage_append(p, rec, &e) == 0);
	struct buf b = BUF_INIT;
	CHECK(fs_read(p, 0, &b, &e) == 0);
	CHECK_STR(b.data, "{\"a\":\"x\\ny\",\"b\":2}\n{\"a\":\"x\\ny\",\"b\":2}\n");
	buf_free(&b);
	cJSON_Delete(rec);
	free(p);
}

static void test_slots_cap_across_processes(void)
{
	char *sd = path_join(dir, "slots");
	struct err e = { 0 };
	unsigned seed = 1;
	int a = slot_acquire(sd, "p", 2, &seed, &e);
	int b = slot_acquire(sd, "p", 2, &seed, &e);
	CHECK(a >= 0 && b >= 0);
	int fds[2];
	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(a); /* the parent's locks, shared through fork: not ours to hold */
		close(b);
		unsigned s = 2;
		int got = slot_acquire(sd, "p", 2, &s, &e);
		if (write(fds[1], "x", 1) < 0 || got < 0)
			_exit(1);
		_exit(0);
	}
	struct pollfd pf = { fds[0], POLLIN, 0 };
	CHECK(poll(&pf, 1, 200) == 0); /* both slots are held: the child waits */
	slot_release(a);
	CHECK(poll(&pf, 1, 5000) == 1); /* one freed: the child gets it */
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	slot_release(b);
	close(fds[0]);
	close(fds[1]);
	free(sd);
}

/* Starts tests/helpers/fakellm with script text; returns its pid and
 * writes a routes file for provider "fake" (no key) to *routes. */
static pid_t start_fake(const char *script, char **routes)
{
	char *sp = put("fake-script.json", script);
	char *port_file = path_join(dir, "fake.port");
	char *log = path_join(dir, "fake.log");
	unlink(port_file);
	unlink(log);
	pid_t pid = fork();
	if (pid == 0) {
		execl("build/tests/helpers/fakellm", "fakellm", "--script", sp, "--port-file", port_file, "--log",
		      log, (char *)NULL);
		_exit(127);
	}
	struct buf port = BUF_INIT;
	struct err e;
	for (int i = 0; i < 500 && !fs_exists(port_file); i++) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	CHECK(fs_read(port_file, 0, &port, &e) == 0);
	char *text = xasprintf("{\"providers\": {\"fake\": {\"base_url\": \"http://127.0.0.1:%d/v1\", \"key_env\": null, "
			       "\"retry\": {\"base_delay\": 0.01}, \"prices\": {\"m\": {\"input\": 10, \"output\": 20}}}}}",
			       port.len ? atoi(port.data) : 1);
	*routes = put("fake-routes.json", text);
	free(text);
	buf_free(&port);
	free(sp);
	free(port_file);
	free(log);
	return pid;
}

/* A caller's check: "n" must be a number above 1. */
static int check_n(const cJSON *obj, void *arg, struct buf *why)
{
	int *calls = arg;
	(*calls)++;
	if (json_num(obj, "n", 0) > 1)
		return 0;
	buf_adds(why, "\"n\" must be a number above 1");
	return -1;
}

static void test_client_api(void)
{
	char *routes;
	pid_t pid = start_fake("{\"chat\": [{\"text\": \"{\\\"n\\\": 1}\", \"usage\": {\"prompt_tokens\": 100000, \"completion_tokens\": 1000}},"
			       " {\"json\": {\"n\": 5}, \"usage\": {\"prompt_tokens\": 200000, \"completion_tokens\": 2000}}],"
			       " \"models\": [{\"models\": [\"m\", \"other\"]}]}", &routes);
	char *cache = path_join(dir, "api-cache");
	char *usage = path_join(dir, "api-usage.jsonl");
	char *absent = path_join(dir, "absent.env"); /* never written */
	struct llm_options o = { .routes = routes, .env_file = absent, .cache_dir = cache,
				 .cache_mode = "use", .usage_file = usage };
	struct err e = { 0 };
	struct llm_client *c = llm_open(&o, &e);
	CHECK(c != NULL);
	if (!c)
		goto out;
	struct llm_msg msgs[] = { { "system", "Answer in JSON." }, { "user", "Give n." } };
	int calls = 0;
	struct llm_request req = { .model = "fake/m", .msgs = msgs, .n_msgs = 2, .json = true,
				   .json_check = check_n, .json_arg = &calls, .json_repairs = -1,
				   .template = "t1", .label = "unit" };
	struct llm_result res;
	CHECK(llm_call(c, &req, &res, &e) == 0);
	CHECK(res.json && json_num(res.json, "n", 0) == 5);
	CHECK_INT(res.requests, 2);
	CHECK_INT(res.cache_hits, 0);
	CHECK_INT(res.repairs, 1);
	CHECK_INT(res.tokens_in, 300000);
	CHECK_INT(res.tokens_out, 3000);
	CHECK(res.cost > 3.059999 && res.cost < 3.060001); /* 0.3 M * $10 + 3000 * $20 / M */
	CHECK_INT(calls, 2);
	llm_result_free(&res);

	CHECK(llm_call(c, &req, &res, &e) == 0); /* both requests replay from the cache */
	CHECK_INT(res.requests, 0);
	CHECK_INT(res.cache_hits, 2);
	CHECK(res.cost == 0);
	CHECK(res.json && json_num(res.json, "n", 0) == 5);
	llm_result_free(&res);

	struct strlist ids = STRLIST_INIT;
	CHECK(llm_list_models(c, "fake/m", &ids, &e) == 0);
	CHECK_INT(ids.n, 2);
	CHECK(ids.n == 2 && !strcmp(ids.v[1], "other"));
	strlist_free(&ids);

	req.model = "fake";
	CHECK(llm_call(c, &req, &res, &e) < 0);
	CHECK_INT(e.code, ERR_INPUT);
	llm_result_free(&res);
	llm_close(c);

	struct buf u = BUF_INIT;
	CHECK(fs_read(usage, 0, &u, &e) == 0);
	int lines = 0;
	for (char *p = u.data; *p; p++)
		lines += *p == '\n';
	CHECK_INT(lines, 4);
	CHECK(u.data && strstr(u.data, "\"label\":\"unit\"") && strstr(u.data, "\"repair\":1"));
	buf_free(&u);

	o.cache_mode = "sometimes";
	CHECK(llm_open(&o, &e) == NULL);
	CHECK_STR(e.msg, "bad LLM_CACHE 'sometimes': use use, refresh, off or only");
out:
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	free(cache);
	free(usage);
	free(absent);
	free(routes);
}

int main(void)
{
	dir = t_tmpdir();
	RUN(test_dotenv_syntax);
	RUN(test_dotenv_errors_never_show_values);
	RUN(test_dotenv_environment_wins_and_missing_file);
	RUN(test_routes_shipped_example_parses);
	RUN(test_routes_validation_messages);
	RUN(test_routes_split_and_resolve);
	RUN(test_extract_json);
	RUN(test_cache_entries);
	RUN(test_usage_lines);
	RUN(test_slots_cap_across_processes);
	RUN(test_client_api);
	struct err e;
	fs_remove_tree(dir, &e);
	free(dir);
	T_EXIT();
}
