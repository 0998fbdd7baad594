/* plan.h — hybrid static compile: one planning call to EXTERNAL_MODEL whose
 * answer is a typed plan, applied step by step by the same machinery as the
 * deterministic passes (and guarded the same way). A plan is
 *   {"operations": [op, ...]}   at most PLAN_MAX_OPS operations, each one of
 *   {"op": "reorder", "section": ID, "before": ID}
 *   {"op": "move_to_reference", "section": ID, "when": "the condition to read it"}
 *   {"op": "split", "section": ID, "at": QUOTE, "heading": "new subheading"}
 *   {"op": "rewrite", "section": ID, "paragraph": QUOTE, "text": "new paragraph"}
 * IDs are section ids (skilldoc.h) of the source; a QUOTE is the text of
 * one whole paragraph or list item of that section as it stands in the
 * source (whitespace runs compare as one space; "at" may quote the first
 * 20 characters or more). A rewrite keeps to one paragraph, at most 25%
 * longer, and may use only literals (paths, flags, numbers, code) that the
 * paragraph already had. See docs/static.md. */
#ifndef SKILLC_COMPILE_PLAN_H
#define SKILLC_COMPILE_PLAN_H

#include <stdbool.h>
#include <cJSON.h>

#include "compile/package.h"
#include "base/util.h"

#define PLAN_MAX_OPS 20
#define PLAN_TEMPLATE "skillc-static-plan-1"

struct plan_info {
	int requests, cache_hits, repairs;
	bool cached;          /* the plan came from the cache (no request) */
	char key[33];         /* the cache key of the planning call */
};

/* The schema check the client runs on the answer (llm_json_check): 0 when
 * the object is a plan, else -1 with the reason in why. */
int plan_check_shape(const cJSON *obj, void *arg, struct buf *why);

/* Asks model for the plan through the LLM client (routes, .env and cache
 * from the environment: ROUTES, ENV_FILE, CACHE_DIR, LLM_CACHE). With
 * dry_run the cache is only read: when the plan is not cached the result
 * is {"cached": false, "note": ...} and no request is made. Returns the
 * plan document (caller frees) or NULL with e set. */
cJSON *plan_obtain(const char *model, const cJSON *profile, const struct skill_src *src,
		   bool dry_run, struct plan_info *info, struct err *e);

/* Applies one operation to o. 0 applied; 1 rejected (e->msg says why: a
 * missing section, a quote that is not in the source, a bad field);
 * -1 when applying failed. notes gets what was done. */
int plan_step(const cJSON *profile, const struct skill_src *src, struct skill_out *o,
	      const void *op, cJSON *notes, struct err *e);

#endif
