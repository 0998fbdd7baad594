/* skillc-llm — one LLM call through the routes, the .env file and the
 * shared cache, for one-off calls and debugging; the same client the
 * stages use (tools/lib/llm/client.h). It never prints a key. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "llm/client.h"
#include "base/log.h"
#include "base/versions.h"

static const char usage[] =
	"usage: skillc-llm [options] [PROMPT...]\n"
	"\n"
	"Sends one request through ROUTES, ENV_FILE and the LLM cache and prints\n"
	"the answer. The prompt is the arguments, else --file, else stdin.\n"
	"\n"
	"  -m, --model ID        provider/model-id (default: $MODEL)\n"
	"  -s, --system TEXT     a system message before the prompt\n"
	"  -f, --file FILE       read the prompt from FILE ('-': stdin)\n"
	"      --messages FILE   a JSON list of {\"role\", \"content\"} instead of a prompt\n"
	"      --json            the answer must be one JSON object; printed as canonical JSON\n"
	"      --require KEY     with --json: the object must have KEY (repeatable)\n"
	"      --repairs N       with --json: repair requests at most (default 2)\n"
	"  -t, --temperature T   sent only when given\n"
	"      --max-tokens N    sent only when given\n"
	"      --template V      prompt-template version (part of the cache key)\n"
	"      --label TEXT      label in the usage record\n"
	"      --cache MODE      use | refresh | off | only (default: $LLM_CACHE, else use)\n"
	"      --cache-dir DIR   cache root (default: $CACHE_DIR, else results/.cache)\n"
	"      --routes FILE     (default: $ROUTES, else provider_routes.json, else the shipped example)\n"
	"      --env-file FILE   (default: $ENV_FILE, else .env)\n"
	"      --usage FILE      append one usage record per request (default: $SKILLC_USAGE_FILE)\n"
	"      --stats           print a line of usage (tokens, cost, cache) on stderr\n"
	"      --show-route      print the model's route and where its key comes from; no request\n"
	"      --list-models     print the provider's model ids (GET /models); no tokens spent\n"
	"\n"
	"Exit 0 answered; 1 the call failed (retries ran out, no usable JSON);\n"
	"2 bad usage or input (unknown provider, missing or rejected key, wrong model,\n"
	"a miss with --cache only).\n";

enum { O_MESSAGES = 256, O_JSON, O_REQUIRE, O_REPAIRS, O_MAXTOK, O_TEMPLATE, O_LABEL, O_CACHE,
       O_CACHEDIR, O_ROUTES, O_ENVFILE, O_USAGE, O_STATS, O_SHOWROUTE, O_LIST };

struct opts {
	const char *model, *system, *file, *messages, *template, *label;
	struct llm_options llm;
	bool json, stats, show_route, list;
	struct strlist require;
	int repairs, max_tokens;
	bool has_temp;
	double temp;
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "model", required_argument, 0, 'm' },  { "system", required_argument, 0, 's' },
		{ "file", required_argument, 0, 'f' },   { "temperature", required_argument, 0, 't' },
		{ "messages", required_argument, 0, O_MESSAGES }, { "json", no_argument, 0, O_JSON },
		{ "require", required_argument, 0, O_REQUIRE }, { "repairs", required_argument, 0, O_REPAIRS },
		{ "max-tokens", required_argument, 0, O_MAXTOK }, { "template", required_argument, 0, O_TEMPLATE },
		{ "label", required_argument, 0, O_LABEL }, { "cache", required_argument, 0, O_CACHE },
		{ "cache-dir", required_argument, 0, O_CACHEDIR }, { "routes", required_argument, 0, O_ROUTES },
		{ "env-file", required_argument, 0, O_ENVFILE }, { "usage", required_argument, 0, O_USAGE },
		{ "stats", no_argument, 0, O_STATS }, { "show-route", no_argument, 0, O_SHOWROUTE },
		{ "list-models", no_argument, 0, O_LIST }, { 0, 0, 0, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+m:s:f:t:", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'm': o->model = optarg; break;
		case 's': o->system = optarg; break;
		case 'f': o->file = optarg; break;
		case 't':
			o->temp = strtod(optarg, &end);
			if (!*optarg || *end || o->temp < 0 || o->temp > 2)
				die(2, "bad temperature '%s': give a number from 0 to 2", optarg);
			o->has_temp = true;
			break;
		case O_MESSAGES: o->messages = optarg; break;
		case O_JSON: o->json = true; break;
		case O_REQUIRE: strlist_push(&o->require, optarg); break;
		case O_REPAIRS: o->repairs = (int)std_option_long("--repairs", optarg, 0, 10); break;
		case O_MAXTOK: o->max_tokens = (int)std_option_long("--max-tokens", optarg, 1, 10000000); break;
		case O_TEMPLATE: o->template = optarg; break;
		case O_LABEL: o->label = optarg; break;
		case O_CACHE: o->llm.cache_mode = optarg; break;
		case O_CACHEDIR: o->llm.cache_dir = optarg; break;
		case O_ROUTES: o->llm.routes = optarg; break;
		case O_ENVFILE: o->llm.env_file = optarg; break;
		case O_USAGE: o->llm.usage_file = optarg; break;
		case O_STATS: o->stats = true; break;
		case O_SHOWROUTE: o->show_route = true; break;
		case O_LIST: o->list = true; break;
		default:
			die(2, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (!o->model)
		o->model = getenv("MODEL");
	if (!o->model || !*o->model)
		die(2, "no model: give --model provider/model-id or set MODEL");
	if (o->require.n && !o->json)
		die(2, "--require needs --json");
}

static char *read_prompt(int argc, char **argv, const struct opts *o)
{
	struct buf b = BUF_INIT;
	struct err e;
	if (optind < argc) {
		if (o->file)
			die(2, "give the prompt as arguments or with --file, not both");
		for (int i = optind; i < argc; i++)
			buf_printf(&b, "%s%s", i > optind ? " " : "", argv[i]);
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
static struct llm_msg *build_messages(int argc, char **argv, const struct opts *o, char **prompt, cJSON **doc,
                                      size_t *n)
{
	struct llm_msg *msgs;
	*n = 0;
	if (o->messages) {
		if (optind < argc || o->file || o->system)
			die(2, "--messages replaces the prompt and --system: give one or the other");
		*doc = read_messages(o->messages, &msgs, n);
		return msgs;
	}
	*prompt = read_prompt(argc, argv, o);
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
	std_options(argc, argv, usage, V_LLM);
	struct opts o = { .repairs = -1, .require = STRLIST_INIT };
	parse_args(argc, argv, &o);
	struct err e = { 0 };
	struct llm_client *c = llm_open(&o.llm, &e);
	if (!c)
		die_err(&e);
	if (o.show_route || o.list) {
		int rc = o.show_route ? show_route(c, o.model) : list_models(c, o.model, &e);
		llm_close(c);
		strlist_free(&o.require);
		if (rc < 0)
			die_err(&e);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	char *prompt = NULL;
	cJSON *msgdoc = NULL;
	size_t n;
	struct llm_msg *msgs = build_messages(argc, argv, &o, &prompt, &msgdoc, &n);
	struct llm_request req = {
		.model = o.model, .msgs = msgs, .n_msgs = n, .has_temperature = o.has_temp,
		.temperature = o.temp, .max_tokens = o.max_tokens, .template = o.template,
		.label = o.label, .json = o.json, .json_keys = (const char *const *)o.require.v,
		.json_repairs = o.repairs,
	};
	struct llm_result res;
	int rc = llm_call(c, &req, &res, &e);
	if (rc == 0)
		print_answer(&o, &res);
	if (o.stats && (rc == 0 || res.requests || res.cache_hits))
		print_stats(&res);
	llm_result_free(&res);
	llm_close(c);
	free(prompt);
	free(msgs);
	cJSON_Delete(msgdoc);
	strlist_free(&o.require);
	if (rc < 0)
		die_err(&e);
	return fflush(stdout) == 0 ? 0 : 1;
}
