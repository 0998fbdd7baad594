#include "local/box.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void box_command(const struct trial_box *b, const struct box_run *run, char *const *argv, const struct strlist *env,
		 struct strlist *cmd, struct strlist *cmd_env)
{
	if (b->mode == SANDBOX_CONTAINER) {
		struct container_exec x = { .cwd = run->cwd, .env = env, .interactive = run->interactive };
		container_exec_command(b->engine, b->container, &x, argv, cmd, cmd_env);
		return;
	}
	struct sandbox_run sr = { .share_net = run->share_net, .cwd = run->cwd, .extra = run->extra, .nextra = run->nextra };
	sandbox_command(&b->sb, &sr, argv, cmd);
	for (size_t i = 0; i < env->n; i++)
		strlist_push(cmd_env, env->v[i]);
}

int box_stop_processes(const struct trial_box *b, struct err *e)
{
	return b->mode == SANDBOX_CONTAINER && b->container ? container_stop_processes(b->engine, b->container, e) : 0;
}

int box_cleanup(struct trial_box *b, bool keep, struct err *e)
{
	int r = 0;
	if (b->container) {
		r = container_remove(b->engine, b->container, e);
		if (r == 0)
			watchdog_done(&b->watchdog); /* it would remove an absent container: let it go */
	}
	struct err ce;
	if (!keep && b->sb.scratch && sandbox_cleanup(&b->sb, r < 0 ? &ce : e) < 0 && r == 0)
		r = -1;
	return r;
}

void box_free(struct trial_box *b)
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
	strlist_free(&b->unreproduced);
	free(b->image);
	free(b->image_tag);
	container_spec_free(&b->spec);
	free(b->container);
	if (b->watchdog.pid > 0 && b->watchdog.fd >= 0)
		close(b->watchdog.fd); /* not done: it removes the container */
}
