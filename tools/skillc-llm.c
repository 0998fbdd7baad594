/* skillc-llm — one LLM call through the routes, the .env file and the
 * shared cache, for one-off calls and debugging; the same client the
 * stages use (tools/lib/llm/client.h). It never prints a key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "llm/client.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-llm [options] [PROMPT...]\n"
	"\n"
	"Sends one request through ROUTES, ENV_FILE and the LLM cache and prints\n"
	"the answer. The prompt is the arguments (a word starting with '-' after --),\n"
	"else --file, else stdin.\n"
	"--json: the answer must be one JSON object, printed as canonical JSON; --require and\n"
	"--repairs go with it. --temperature and --max-tokens are sent only when given.\n"
	"Exit 0 answered; 1 the call failed (retries ran out, no usable JSON);\n"
	"2 bad usage or input (unknown provider, missing or rejected key, wrong model,\n"
	"a miss with --cache only).\n";

struct opts {
	const char *model, *system, *file, *messages, *template, *label;
	struct llm_options llm;
	bool json, stats, show_route, list;
	struct strlist require;
	int repairs, max_tokens;
	bool has_temp;
	double temp;
	struct strlist prompt; /* the words that are not options */
};

static struct opts opt = { .repairs = -1, .require = STRLIST_INIT };
#define SHORT(n, c, p, a, h) { (n), (c), OPT_STR, (p), (a), (h), 0, 0, NULL, NULL }
static const struct opt rows[] = {
	SHORT("model", 'm', &opt.model, "ID", "provider/model-id (default: $MODEL)"),
	SHORT("system", 's', &opt.system, "TEXT", "a system message before the prompt"),
	SHORT("file", 'f', &opt.file, "FILE", "read the prompt from FILE ('-': stdin)"),
	OPT_STRING("messages", &opt.messages, "FILE", "a JSON list of messages, not a prompt"),
	OPT_BOOL("json", &opt.json, "the answer must be one JSON object"),
	OPT_EACH("require", &opt.require, "KEY", "with --json: a key it must have (repeatable)"),
	OPT_SMALL("repairs", &opt.repairs, 0, 10, "N", "with --json: repair requests at most (2)"),
	{ "temperature", 't', OPT_NUM, &opt.temp, "T", "the sampling temperature", 0, 2, NULL,
	  &opt.has_temp },
	OPT_SMALL("max-tokens", &opt.max_tokens, 1, 10000000, "N", "the answer's tokens at most"),
	OPT_STRING("template", &opt.template, "V", "prompt-template version (in the cache key)"),
	OPT_STRING("label", &opt.label, "TEXT", "label in the usage record"),
	OPT_ONE_OF("cache", &opt.llm.cache_mode, "use|refresh|off|only",
		   "the LLM cache (default: $LLM_CACHE, else use)"),
	OPT_STRING("cache-dir", &opt.llm.cache_dir, "DIR", "cache root (default: $CACHE_DIR)"),
	OPT_STRING("routes", &opt.llm.routes, "FILE", "the routes (default: $ROUTES)"),
	OPT_STRING("env-file", &opt.llm.env_file, "FILE", "the keys (default: $ENV_FILE)"),
	OPT_STRING("usage", &opt.llm.usage_file, "FILE", "append usage records to FILE"),
	OPT_BOOL("stats", &opt.stats, "a line of usage (tokens, cost, cache) on stderr"),
	OPT_BOOL("show-route", &opt.show_route, "the model's route and key; no request"),
	OPT_BOOL("list-models", &opt.list, "the provider's model ids; no tokens spent"),
	OPT_END,
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	opts_std(argc, argv, usage, rows, V_LLM);
	opts_args_or_die(rows, argc, argv, 1, &o->prompt);
	if (!o->model)
		o->model = getenv("MODEL");
	if (!o->model || !*o->model)
		die(2, "no model: give --model provider/model-id or set MODEL");
	if (o->require.n && !o->json)
		die(2, "--require needs --json");
}

static char *read_prompt(const struct opts *o)
{
	struct buf b = BUF_INIT;
	struct err e;
	if (o->prompt.n) {
		if (o->file)
			die(2, "give the prompt as arguments or with --file, not both");
		for (size_t i = 0; i < o->prompt.n; i++)
			buf_printf(&b, "%s%s", i ? " " : "", o->prompt.v[i]);
	} else if (o->file && strcmp(o->file, "-")) {
		if (fs_read(o->file, 64 << 20, &b, &e) < 0)
			die(2, "cannot read the prompt: %s", e.msg);
	} else {
		if (!o->file && isatty(0))
			die(2, "no prompt: give it as arguments, with --file, or on stdin");
		char chunk[65536];
		size_t n;
		while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
			buf_add(&b, chunk, n);
		buf_add(&b, "", 0);
	}
	if (!b.len)
		die(2, "the prompt is empty");
	return buf_detach(&b);
}

/* --messages: a JSON list of {"role", "content"}; the tree owns the strings. */
static cJSON *read_messages(const char *path, struct llm_msg **msgs, size_t *n)
{
	struct err e;
	cJSON *doc = json_read_file(path, &e);
	if (!doc)
		die(2, "%s", e.msg);
	if (!cJSON_IsArray(doc) || !cJSON_GetArraySize(doc))
		die(2, "messages '%s' must be a non-empty JSON list of {\"role\", \"content\"}", path);
	*msgs = xcalloc((size_t)cJSON_GetArraySize(doc), sizeof **msgs);
	*n = 0;
	for (const cJSON *m = doc->child; m; m = m->next) {
		const char *role = json_str(m, "role"), *content = json_str(m, "content");
		if (!role || !content)
			die(2, "messages '%s': message %zu needs string \"role\" and \"content\"", path, *n + 1);
		(*msgs)[(*n)++] = (struct llm_msg){ role, content };
	}
	return doc;
}

static int show_route(struct llm_client *c, const char *model_id)
{
	struct err e = { 0 };
	char *model;
	const struct route *rt = routes_resolve(llm_routes(c), model_id, &model, &e);
	if (!rt)
		die_err(&e);
	printf("model           %s\nprovider        %s\nmodel id        %s\nroutes          %s\n", model_id,
	       rt->provider, model, llm_routes(c)->path);
	printf("base_url        %s\napi             %s\n", rt->base_url, rt->api);
	const char *src = llm_key_source(c, rt);
	if (!rt->key_env)
		printf("key             none (the route has no key_env)\n");
	else if (!strcmp(src, "ENV_FILE"))
		printf("key             %s, from ENV_FILE '%s'\n", rt->key_env, llm_env_file(c));
	else
		printf("key             %s, %s%s\n", rt->key_env, !strcmp(src, "environment") ? "from the " : "", src);
	printf("timeout         %g s (connect %g s)\nmax_concurrency %d%s\n", rt->timeout, rt->connect_timeout,
	       rt->max_concurrency, rt->max_concurrency ? "" : " (unlimited)");
	printf("retry           %d attempts, base %g s, max %g s, total %g s\n", rt->retry.attempts,
	       rt->retry.base_delay, rt->retry.max_delay, rt->retry.total);
	printf("response_format %s\n", rt->response_format ? "yes" : "no (JSON is extracted from text)");
	double in, out;
	if (route_price(rt, model, &in, &out))
		printf("price           $%g in, $%g out per million tokens\n", in, out);
	else
		printf("price           unknown\n");
	printf("cache           %s in %s/llm\n", llmcache_mode_name(llm_cache_mode(c)), llm_cache_dir(c));
	free(model);
	return 0;
}

/* --list: the model ids the route serves, one a line. */
static int list_models(struct llm_client *c, const char *model, struct err *e)
{
	struct strlist ids = STRLIST_INIT;
	int rc = llm_list_models(c, model, &ids, e);
	for (size_t i = 0; rc == 0 && i < ids.n; i++)
		printf("%s\n", ids.v[i]);
	strlist_free(&ids);
	return rc;
}

/* The conversation: --messages as given, or the prompt after --system.
 * *prompt and *doc hold what the messages point into (caller frees). */
static struct llm_msg *build_messages(const struct opts *o, char **prompt, cJSON **doc, size_t *n)
{
	struct llm_msg *msgs;
	*n = 0;
	if (o->messages) {
		if (o->prompt.n || o->file || o->system)
			die(2, "--messages replaces the prompt and --system: give one or the other");
		*doc = read_messages(o->messages, &msgs, n);
		return msgs;
	}
	*prompt = read_prompt(o);
	msgs = xcalloc(2, sizeof *msgs);
	if (o->system)
		msgs[(*n)++] = (struct llm_msg){ "system", o->system };
	msgs[(*n)++] = (struct llm_msg){ "user", *prompt };
	return msgs;
}

/* The answer on stdout: canonical JSON with --json, else the text, ending in a newline. */
static void print_answer(const struct opts *o, const struct llm_result *res)
{
	if (o->json) {
		struct buf b = BUF_INIT;
		json_canon(res->json, true, &b);
		printf("%s\n", b.data);
		buf_free(&b);
		return;
	}
	size_t len = strlen(res->text);
	fwrite(res->text, 1, len, stdout);
	if (!len || res->text[len - 1] != '\n')
		putchar('\n');
}

/* --stats: what the call cost, on stderr (stdout is the answer). */
static void print_stats(const struct llm_result *res)
{
	char cost[32] = "unknown";
	if (res->cost >= 0)
		snprintf(cost, sizeof cost, "$%.6f", res->cost);
	warnf("key %s: %ld tokens in (%ld from the provider's prompt cache), %ld out, %d request%s, %d cached, %d repair%s, cost %s",
	      res->key, res->tokens_in, res->tokens_cached, res->tokens_out, res->requests, res->requests == 1 ? "" : "s", res->cache_hits,
	      res->repairs, res->repairs == 1 ? "" : "s", cost);
}

int main(int argc, char **argv)
{
	log_init(argv[0]);
	parse_args(argc, argv, &opt);
	struct err e = { 0 };
	struct llm_client *c = llm_open(&opt.llm, &e);
	if (!c)
		die_err(&e);
	if (opt.show_route || opt.list) {
		int rc = opt.show_route ? show_route(c, opt.model) : list_models(c, opt.model, &e);
		llm_close(c);
		strlist_free(&opt.require);
		strlist_free(&opt.prompt);
		if (rc < 0)
			die_err(&e);
		return 0;
	}
	char *prompt = NULL;
	cJSON *msgdoc = NULL;
	size_t n;
	struct llm_msg *msgs = build_messages(&opt, &prompt, &msgdoc, &n);
	struct llm_request req = {
		.model = opt.model, .msgs = msgs, .n_msgs = n, .has_temperature = opt.has_temp,
		.temperature = opt.temp, .max_tokens = opt.max_tokens, .template = opt.template,
		.label = opt.label, .json = opt.json, .json_repairs = opt.repairs,
		.json_keys = (const char *const *)opt.require.v,
	};
	struct llm_result res;
	int rc = llm_call(c, &req, &res, &e);
	if (rc == 0)
		print_answer(&opt, &res);
	if (opt.stats && (rc == 0 || res.requests || res.cache_hits))
		print_stats(&res);
	llm_result_free(&res);
	llm_close(c);
	free(prompt);
	free(msgs);
	cJSON_Delete(msgdoc);
	strlist_free(&opt.require);
	strlist_free(&opt.prompt);
	if (rc < 0)
		die_err(&e);
	return 0;
}
