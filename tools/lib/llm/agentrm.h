/* agentrm.h — the AgentRM scoring service (RM_API_URL) as far as the
 * pipeline's preflight (skillc-doctor) needs it: is it up. The scoring
 * client of the fast stage is its own module. */
#ifndef SKILLC_LLM_AGENTRM_H
#define SKILLC_LLM_AGENTRM_H

#include "base/util.h"

/* GET <base_url>/health within timeout seconds. 0 when it answers 200;
 * else -1 with e saying what came back (the status, or why no answer). */
int agentrm_ping(const char *base_url, double timeout, struct err *e);

#endif
