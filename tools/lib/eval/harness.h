/* harness.h — what we know about one agent harness, kept as data in
 * rules/harness/<name>.json: the name each runner knows it by, and the
 * PCRE2 patterns that tell from a trajectory whether one of OUR skills was
 * invoked, read, or listed in the harness's skill catalog. Patterns carry a
 * {skill} placeholder and are compiled once per injected skill name, so a
 * harness's built-in skills never count. See docs/eval.md for the keys. */
#ifndef SKILLC_EVAL_HARNESS_H
#define SKILLC_EVAL_HARNESS_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

/* The fields a rule may test. ACP tool_call events offer kind, title,
 * content (each text block, or a diff's path, tested separately) and status;
 * LLM exchanges offer tool and arguments (each tool call an assistant
 * made) and system (the system text of the first request). */
enum harness_field { HF_KIND, HF_TITLE, HF_CONTENT, HF_STATUS, HF_TOOL, HF_ARGUMENTS, HF_SYSTEM, HF_COUNT };

/* What a rule set detects, and where. */
enum harness_use { HU_INVOKED, HU_READ, HU_CATALOG, HU_COUNT };
enum harness_src { HS_ACP, HS_LLM, HS_COUNT };

struct harness_rule;   /* one object of patterns that must all match */
struct harness_rules;  /* every rule of one (use, source), for one skill */

struct harness {
	char *name;
	char *path;     /* the rules file it came from */
	cJSON *doc;     /* the whole file, for keys other tools read */
	/* compiled per skill: rules[(skill * HU_COUNT + use) * HS_COUNT + src] */
	struct harness_rules *rules;
	struct strlist skills; /* the names the rules were compiled for */
};

/* Finds the rules folder: dir if given, else $SKILLC_RULES, else rules/
 * next to the tools (bin/../rules, bin/../share/skillc/rules). Caller frees. */
char *harness_rules_dir(const char *dir, struct err *e);

/* Loads rules/harness/<name>.json and compiles its patterns for the given
 * skill names (may be empty: nothing can then match). Unknown harness,
 * bad JSON, a pattern that does not compile or lacks {skill}: ERR_INPUT
 * naming the file. h is freed with harness_free even on error. */
int harness_load(struct harness *h, const char *rules_dir, const char *name,
		 const struct strlist *skills, struct err *e);
void harness_free(struct harness *h);

/* The harness whose runners.<runner>.agent is `agent` (e.g. benchflow's
 * result.json "agent": "opencode"); NULL name when none. Caller frees. */
char *harness_for_agent(const char *rules_dir, const char *runner, const char *agent);

/* runners.<runner>.agent, else the harness name. Borrowed from h->doc. */
const char *harness_agent(const struct harness *h, const char *runner);

/* Evidence found so far in one trial. The name lists hold each of our
 * skills at most once, in the order first seen. */
struct skill_use {
	bool invoked, read, catalog;
	bool catalog_seen; /* an LLM request with a system text was inspected */
	long acp_invocations, llm_invocations;
	struct strlist invoked_names, read_names, catalog_names;
};
void skill_use_free(struct skill_use *u);

/* Feeds one ACP trajectory event (only "tool_call" events are tested). */
void harness_scan_acp(const struct harness *h, const cJSON *event, struct skill_use *u);
/* Feeds one llm_trajectory.jsonl exchange: the tool calls in its response,
 * and the system text of its request (the catalog), unless the exchange is
 * a helper call (metadata.call_purpose other than "agent"). */
void harness_scan_llm(const struct harness *h, const cJSON *exchange, struct skill_use *u);
/* Feeds one tool call the model made (name, JSON arguments), as the llm
 * rules see it; for runners whose trajectories are not LLM exchanges. */
void harness_scan_tool_call(const struct harness *h, const char *tool, const char *args, struct skill_use *u);

#endif
