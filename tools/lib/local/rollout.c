#include "local/rollout.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/envlist.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/pyjson.h"
#include "base/redact.h"

const char local_sandbox_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

void local_sandbox_env(struct strlist *env)
{
	envlist_set(env, "HOME", "/root");
	envlist_set(env, "USER", "root");
	envlist_set(env, "PATH", local_sandbox_path);
	envlist_set(env, "LANG", "C.UTF-8");
	envlist_set(env, "TMPDIR", "/tmp");
}

void agent_outcome_error(struct agent_outcome *a, const char *category, const char *fmt, ...)
{
	if (a->error)
		return;
	va_list ap;
	va_start(ap, fmt);
	struct buf b = BUF_INIT;
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	a->error = buf_detach(&b);
	a->category = xstrdup(category);
}

void agent_outcome_sandbox_failure(struct agent_outcome *a, const char *msg)
{
	if (a->error)
		return;
	agent_outcome_error(a, "sandbox_setup", "Sandbox startup failed: %s", msg);
	cJSON *info = a->sandbox_info = cJSON_CreateObject();
	cJSON_AddStringToObject(info, "reason", "sandbox_startup_failed");
	cJSON_AddNullToObject(info, "sandbox_id");
	cJSON_AddNullToObject(info, "sandbox_state");
	cJSON_AddNumberToObject(info, "attempts", 1);
	cJSON_AddNullToObject(info, "build_timeout_sec");
	cJSON_AddStringToObject(info, "raw_message", msg);
}

bool agent_outcome_timed_out(const struct agent_outcome *a)
{
	return a->category && (!strcmp(a->category, "timeout") || !strcmp(a->category, "idle_timeout"));
}

bool verdict_scored(const struct verdict *v)
{
	return v->rewards && !v->error;
}

/* Lines that say a program or module the task needed was not there. */
static const char *const missing_marks[] = { "command not found", ": not found", "No module named" };

/* Lines of a verifier's output saying it could not set itself up: its
 * installer reached no network or trusted no certificate, or its test
 * runner is not there (SkillsBench's test.sh installs uv, then runs uvx pytest). */
static const char *const setup_marks[] = {
	"uvx: command not found", "uv: command not found", "pytest: command not found", "No module named pytest",
	"Could not resolve host", "Temporary failure resolving", "Temporary failure in name resolution",
	"Failed to fetch", "Unable to locate package", "Network is unreachable", "SSL certificate problem",
	"SELF_SIGNED_CERT_IN_CHAIN", "CERTIFICATE_VERIFY_FAILED", "getaddrinfo", "ENOTFOUND", "EAI_AGAIN",
};

/* The first line of text holding one of marks; *len its length. */
static const char *marked_line(const char *text, const char *const *marks, size_t nmarks, size_t *len)
{
	const char *first = NULL;
	for (size_t k = 0; k < nmarks; k++) {
		const char *hit = strstr(text, marks[k]);
		if (hit && (!first || hit < first))
			first = hit;
	}
	if (!first)
		return NULL;
	while (first > text && first[-1] != '\n')
		first--;
	*len = strcspn(first, "\n");
	return first;
}

char *verifier_line(const char *rollout_dir, const char *const *marks, size_t nmarks)
{
	char *out = path_join(rollout_dir, "verifier/test-stdout.txt");
	struct buf b = BUF_INIT;
	struct err e;
	size_t len = 0;
	const char *hit = NULL;
	if (fs_read(out, 8 << 20, &b, &e) == 0 && b.len)
		hit = marked_line(b.data, marks, nmarks, &len);
	char *line = hit ? xstrndup(hit, len) : NULL;
	buf_free(&b);
	free(out);
	return line;
}

/* What says the environment was missing something: the verifier's output,
 * else the agent's tool results. Caller frees; NULL: nothing does. */
static char *missing_evidence(const struct local_trial *t)
{
	char *line = verifier_line(t->paths.dir, missing_marks, ARRAY_LEN(missing_marks));
	char *found = line ? xasprintf("the verifier said: %s", line) : NULL;
	free(line);
	size_t len = 0;
	const char *hit;
	for (const cJSON *l = t->agent.acp.traj.lines ? t->agent.acp.traj.lines->child : NULL; l && !found; l = l->next) {
		if (strcmp(json_str(l, "type") ? json_str(l, "type") : "", "tool_call"))
			continue;
		for (const cJSON *c = json_get(l, "content") ? json_get(l, "content")->child : NULL; c && !found; c = c->next) {
			const char *text = json_str(json_get(c, "content"), "text");
			if (text && (hit = marked_line(text, missing_marks, ARRAY_LEN(missing_marks), &len)))
				found = xasprintf("a tool call of the agent said: %.*s", (int)len, hit);
		}
	}
	return found;
}

/* The trial becomes the infra error category: msg (taken); its verdict goes. */
static void make_infra(struct local_trial *t, const char *category, char *msg)
{
	struct verdict *v = &t->verdict;
	free(t->agent.error);
	free(t->agent.category);
	t->agent.error = msg;
	t->agent.category = xstrdup(category);
	cJSON_Delete(v->rewards);
	v->rewards = NULL;
	free(v->error);
	free(v->category);
	v->error = v->category = NULL;
}

/* Under bwrap: a trial that did not pass for want of the Dockerfile's steps. */
static bool judge_unreproduced(struct local_trial *t)
{
	char *why = missing_evidence(t);
	if (!why)
		return false; /* nothing points at the environment: the verdict stands */
	struct buf what = BUF_INIT;
	for (size_t i = 0; i < t->box.unreproduced.n; i++)
		buf_printf(&what, "%s%s", i ? ", " : "", t->box.unreproduced.v[i]);
	make_infra(t, "environment_not_reproduced",
		   xasprintf("environment not reproduced: the sandbox runs this machine's programs without the "
			     "Dockerfile's %s steps and %s; run the task with SANDBOX=docker", what.data, why));
	buf_free(&what);
	free(why);
	return true;
}

void local_trial_judge(struct local_trial *t)
{
	struct verdict *v = &t->verdict;
	if (t->agent.error && !agent_outcome_timed_out(&t->agent))
		return; /* already an infra error */
	if (verdict_scored(v) && pyjson_number(json_get(v->rewards, "reward")) == 1.0)
		return; /* it passed all the same */
	if (t->box.unreproduced.n && judge_unreproduced(t))
		return;
	if (!v->ran || agent_outcome_timed_out(&t->agent))
		return;
	/* a verifier whose set-up failed judged nothing: not the agent's failure */
	char *line = verifier_line(t->paths.dir, setup_marks, ARRAY_LEN(setup_marks));
	if (line)
		make_infra(t, "verifier_setup",
			   xasprintf("the verifier could not set itself up: %s (its tests/test.sh installs what it runs: "
				     "give the task network, or an image holding it)", line));
	free(line);
}

int local_trial_redact(const struct local_trial *t, struct err *e)
{
	if (!t->route.key)
		return 0;
	struct strlist keys = STRLIST_INIT;
	strlist_push(&keys, t->route.key);
	int r = redact_tree(t->paths.dir, &keys, e);
	explicit_bzero(keys.v[0], strlen(keys.v[0]));
	strlist_free(&keys);
	return r;
}

static void paths_free(struct rollout_paths *p)
{
	free(p->rollout);
	free(p->dir);
	free(p->agent_log);
	free(p->scratch);
}

static void agent_outcome_free(struct agent_outcome *a)
{
	acp_result_free(&a->acp);
	free(a->error);
	free(a->category);
	cJSON_Delete(a->sandbox_info);
	cJSON_Delete(a->transport_info);
}

static void verdict_free(struct verdict *v)
{
	cJSON_Delete(v->rewards);
	free(v->error);
	free(v->category);
	cJSON_Delete(v->timeout_info);
}

void local_trial_free(struct local_trial *t)
{
	task_free(&t->task);
	launch_free(&t->h);
	model_route_free(&t->route);
	paths_free(&t->paths);
	box_free(&t->box);
	agent_outcome_free(&t->agent);
	verdict_free(&t->verdict);
}
