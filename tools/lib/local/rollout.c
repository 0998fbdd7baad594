#include "local/rollout.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"

const char local_sandbox_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

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

/* Replaces every occurrence of secret in the files under dir (an agent can
 * print its environment into its output, its log or its artifacts). */
static int redact_tree(const char *dir, const char *secret, struct err *e)
{
	size_t n = strlen(secret);
	if (n < 4)
		return 0; /* too short to tell from ordinary text */
	struct fs_tree t = { 0 };
	if (fs_list_tree(dir, &t, e) < 0)
		return -1;
	int r = 0;
	for (size_t i = 0; i < t.n && r == 0; i++) {
		if (!S_ISREG(t.v[i].mode) || t.v[i].size > (256 << 20))
			continue;
		char *p = path_join(dir, t.v[i].path);
		struct buf b = BUF_INIT, out = BUF_INIT;
		if (fs_read(p, 0, &b, e) == 0 && b.data && memmem(b.data, b.len, secret, n)) {
			const char *s = b.data, *end = b.data + b.len;
			for (const char *hit; (hit = memmem(s, (size_t)(end - s), secret, n)); s = hit + n) {
				buf_add(&out, s, (size_t)(hit - s));
				buf_adds(&out, "***REDACTED***");
			}
			buf_add(&out, s, (size_t)(end - s));
			r = fs_write_atomic(p, out.data, out.len, t.v[i].mode & 0777, e);
		}
		if (b.data)
			memset(b.data, 0, b.len);
		buf_free(&b);
		buf_free(&out);
		free(p);
	}
	fs_tree_free(&t);
	return r;
}

int local_trial_redact(const struct local_trial *t, struct err *e)
{
	return t->route.key ? redact_tree(t->paths.dir, t->route.key, e) : 0;
}

static void paths_free(struct rollout_paths *p)
{
	free(p->jobs);
	free(p->job_dir);
	free(p->job_name);
	free(p->rollout);
	free(p->dir);
	free(p->agent_log);
	free(p->scratch);
}

static void box_free(struct trial_box *b)
{
	free(b->bwrap);
	sandbox_free(&b->sb);
	free(b->skill_source);
	free(b->effective_skills);
	free(b->program);
	strlist_free(&b->agent_argv);
	for (size_t i = 0; i < b->agent_env.n; i++)
		memset(b->agent_env.v[i], 0, strlen(b->agent_env.v[i])); /* it holds the key */
	strlist_free(&b->agent_env);
	relay_free(b->relay);
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
