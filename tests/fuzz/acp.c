/* acp — ACP session updates on any lines (one JSON value each, as an agent
 * writes them): the trajectory takes what it understands, and its text and
 * counts stay consistent. */
#include "fuzz.h"
#include "local/acp.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct acp_traj t;
	acp_traj_init(&t);
	acp_traj_user(&t, "the task");
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		cJSON *v = cJSON_ParseWithLength(p, n);
		if (v) {
			(void)acp_traj_update(&t, v);
			cJSON *pending = acp_traj_pending(&t);
			cJSON_Delete(pending);
		}
		cJSON_Delete(v);
		p += n + (nl ? 1 : 0);
	}
	acp_traj_finish(&t);
	(void)acp_traj_skill_calls(&t);
	(void)acp_traj_tool_calls(&t);
	struct buf text = BUF_INIT;
	acp_traj_text(&t, &text);
	size_t lines = 0; /* one JSON line each, none after the last */
	for (size_t i = 0; i < text.len; i++)
		lines += text.data[i] == '\n';
	FUZZ_CHECK(lines + 1 == (size_t)cJSON_GetArraySize(t.lines) || (!text.len && !cJSON_GetArraySize(t.lines)));
	buf_free(&text);
	acp_traj_free(&t);
	return 0;
}
