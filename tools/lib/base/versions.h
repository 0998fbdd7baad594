/* versions.h — the format version of each tool: what `--version` prints and
 * what the stage graph records. Bump one when its tool's output or meaning
 * changes; the stages it runs then re-run. Rebuilding a tool with the same
 * version re-runs nothing (paid-for LLM calls and trials are kept). */
#ifndef SKILLC_BASE_VERSIONS_H
#define SKILLC_BASE_VERSIONS_H

#define V_HASH "1"
#define V_INGEST "1"
#define V_RULES "2"
#define V_STAGE "1"
#define V_PROFILE "1"
#define V_STATIC "1"
#define V_EVAL "1"
#define V_EVAL_SKILL "1"
#define V_TRACES "1"
#define V_SUMMARY "2"
#define V_REPORT "1"
#define V_LLM "1"
#define V_DOCTOR "1"
#define V_FAST "1"
#define V_DEEP "1"
#define V_STATS "1"
#define V_GATE "1"
#define V_JUNIT "1"
#define V_IMAGE "1"
#define V_RUNTIME "1"
#define V_EXPORT "1"
#define V_VERIFY "1"
#define V_SKILLRUN "1"
#define V_AUDIT "1"

#endif
