#include "report/skillroles.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"

char *skillrun_role(const cJSON *t, bool final)
{
	const char *task = json_str(t, "task"), *role = json_str(t, "role");
	if (role && !strcmp(role, "train") && json_str(t, "pooled_in"))
		return xasprintf("train task %s, pooled in the tuned run (its trials there)", task);
	if (role && !strcmp(role, "train"))
		return xasprintf("train task %s, tuned here (raw to final)", task);
	if (!final)
		return xasprintf("test task %s, raw trials", task);
	if (!json_str(t, "final_set"))
		return xasprintf("test task %s, final trials: waiting for the tuned run's "
				 "S_final", task);
	return xasprintf("test task %s, final trials (S_final)", task);
}

/* The members of tasks, each label prefixed with pre. */
static void members_of(const cJSON *tasks, const char *pre, struct strlist *labels,
		       struct strlist *runs, struct strlist *names)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks) {
		const char *role = json_str(t, "role");
		bool train = role && !strcmp(role, "train");
		for (int final = 0; final < 2 - train; final++) {
			char *r = skillrun_role(t, final);
			const char *run = json_str(json_get(t, final ? "final" : "raw"), "run");
			strlist_push_owned(labels, xasprintf("%s%s", pre, r));
			strlist_push(runs, run && (!final || json_str(t, "final_set")) ? run : "");
			strlist_push(names, json_str(t, "task") ? json_str(t, "task") : "");
			free(r);
		}
	}
}

void skillrun_members(const cJSON *record, struct strlist *labels, struct strlist *runs,
                      struct strlist *tasks)
{
	members_of(json_get(record, "tasks"), "", labels, runs, tasks);
	const cJSON *x;
	cJSON_ArrayForEach(x, json_get(record, "transfer")) {
		char *pre = xasprintf("transfer, %s: ", json_str(x, "label"));
		members_of(json_get(x, "tasks"), pre, labels, runs, tasks);
		free(pre);
	}
}
