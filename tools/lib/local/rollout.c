#include "local/rollout.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/redact.h"

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

int local_trial_redact(const struct local_trial *t, struct err *e)
{
	if (!t->route.key)
		return 0;
	struct strlist keys = STRLIST_INIT;
	strlist_push(&keys, t->route.key);
	int r = redact_tree(t->dir, &keys, e);
	explicit_bzero(keys.v[0], strlen(keys.v[0]));
	strlist_free(&keys);
	return r;
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
