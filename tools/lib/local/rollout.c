#include "local/rollout.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"

const char local_sandbox_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

void local_trial_error(struct local_trial *t, const char *category, const char *fmt, ...)
{
	if (t->error)
		return;
	va_list ap;
	va_start(ap, fmt);
	struct buf b = BUF_INIT;
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	t->error = buf_detach(&b);
	t->error_category = xstrdup(category);
}

void local_trial_sandbox_failure(struct local_trial *t, const char *msg)
{
	local_trial_error(t, "sandbox_setup", "Sandbox startup failed: %s", msg);
	t->sandbox_info = cJSON_CreateObject();
	cJSON_AddStringToObject(t->sandbox_info, "reason", "sandbox_startup_failed");
	cJSON_AddNullToObject(t->sandbox_info, "sandbox_id");
	cJSON_AddNullToObject(t->sandbox_info, "sandbox_state");
	cJSON_AddNumberToObject(t->sandbox_info, "attempts", 1);
	cJSON_AddNullToObject(t->sandbox_info, "build_timeout_sec");
	cJSON_AddStringToObject(t->sandbox_info, "raw_message", msg);
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
	return t->route.key ? redact_tree(t->dir, t->route.key, e) : 0;
}

void local_trial_free(struct local_trial *t)
{
	task_free(&t->task);
	launch_free(&t->h);
	model_route_free(&t->route);
	free(t->bwrap);
	sandbox_free(&t->sb);
	free(t->jobs);
	free(t->job_dir);
	free(t->job_name);
	free(t->rollout);
	free(t->dir);
	free(t->scratch);
	free(t->agent_log);
	free(t->skill_source);
	free(t->effective_skills);
	free(t->program);
	strlist_free(&t->agent_argv);
	for (size_t i = 0; i < t->agent_env.n; i++)
		memset(t->agent_env.v[i], 0, strlen(t->agent_env.v[i])); /* it holds the key */
	strlist_free(&t->agent_env);
	relay_free(t->relay);
	acp_result_free(&t->acp);
	free(t->error);
	free(t->error_category);
	cJSON_Delete(t->sandbox_info);
	cJSON_Delete(t->transport_info);
	cJSON_Delete(t->rewards);
	free(t->verifier_error);
	free(t->verifier_category);
	cJSON_Delete(t->verifier_timeout_info);
}
