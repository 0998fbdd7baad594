/* agentrm.h — the one adapter between the fast stage and an AgentRM
 * scoring service (RM_API_URL). A deployment that speaks another shape
 * changes only this file. The protocol (docs/fast.md#agentrm):
 *
 *   GET  <url>/health  -> {"status": "ok", "device": "cuda", "max_length": 8192}
 *   POST <url>/score   {"adapter": AGENTRM_ADAPTER, "instruction": TEXT,
 *                       "trajectory": TEXT, "max_length": N}
 *                      -> {"score": S}  (or {"scores": [S, ...]}: the first; or {"reward": S})
 *
 * The trajectory is the condensed one (traces.h). When instruction plus
 * trajectory is estimated (skilldoc.h's estimate) over max_length minus a
 * reserve, the trajectory keeps its end (the outcome) and its start is
 * cut; the cut is recorded. Answers are cached by content like LLM calls
 * (the LLM cache folder, LLM_CACHE modes) and each request gets a usage
 * record. */
#ifndef SKILLC_OPTIMIZE_AGENTRM_H
#define SKILLC_OPTIMIZE_AGENTRM_H

#include <stdbool.h>
#include <cJSON.h>

#include "llm/cache.h"
#include "base/util.h"

#define AGENTRM_ADAPTER "skillc-agentrm-1"
#define AGENTRM_DEFAULT_MAX_LENGTH 8192
#define AGENTRM_RESERVE 256 /* tokens kept free for the service's own template */

struct agentrm {
	char *url;            /* without a trailing '/' */
	cJSON *health;        /* the /health answer; owned */
	long max_length;      /* from /health, else AGENTRM_DEFAULT_MAX_LENGTH */
	bool max_length_given;
	char *cache_dir;
	enum llm_cache_mode mode;
	char *usage_file;     /* NULL: none */
	void *curl;
};

/* GET <url>/health (one request, a few seconds): status must be "ok".
 * A service that is down or unhealthy is ERR_WORK with one line naming
 * RM_API_URL. *health (caller frees) gets the answer. make doctor asks
 * this, so it passes exactly when the fast stage can start. */
int agentrm_health(const char *url, cJSON **health, struct err *e);

/* Checks the service (agentrm_health) and reads the cache settings
 * (CACHE_DIR, LLM_CACHE, SKILLC_USAGE_FILE from the environment, each
 * overridable by a non-NULL argument). rm is freed with agentrm_close even
 * on error. */
int agentrm_open(struct agentrm *rm, const char *url, const char *cache_dir, struct err *e);
void agentrm_close(struct agentrm *rm);

struct agentrm_score {
	double score;
	bool truncated;
	long tokens;       /* estimated tokens of instruction + trajectory */
	long sent_tokens;  /* estimated tokens sent */
	bool cached;
	char key[33];
};

/* Scores one trajectory (label names it in the usage record). */
int agentrm_score(struct agentrm *rm, const char *label, const char *instruction, const char *trajectory,
		  struct agentrm_score *out, struct err *e);

/* The request body agentrm_score sends (exposed for tests); caller frees. */
cJSON *agentrm_request(long max_length, const char *instruction, const char *trajectory, bool *truncated,
		       long *tokens, long *sent_tokens);

#endif
