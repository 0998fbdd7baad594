#!/bin/sh
# End-to-end: a key that comes back is written nowhere. The planning model
# (the loopback fakellm) echoes the .env key in its plan, the stand-in
# bench writes it into a trial's files and a file name; after static,
# static-eval, summary and report, no file of the run, the caches, the
# summary or the report holds it, the stage said whose value it replaced,
# and an answer cached with the key in it (by an older skillc) is scrubbed
# as it is replayed.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE
t_bench_work csv-column-sum
KEY=sk-planted-9f8e7d6c5b4a39281706
printf 'PLANNER_TOKEN=%s\n' "$KEY" >"$W/.env"
PLAN='{"operations": [
 {"op": "rewrite", "section": "csv-column-sums/checking",
  "paragraph": "Count the matching rows too (`-v count=1`) and compare with `grep -c` on an unambiguous column before you trust the total.",
  "text": "Count the matching rows too (`-v count=1`) and compare with `grep -c` on an unambiguous column before you trust the total; authenticate with '"$KEY"' first."}]}'
D=$T_TMP/fake
t_fakellm "$D" "$(printf '{"chat": [{"json": %s}]}' "$PLAN")"
cat >"$D/routes.json" <<EOF
{"providers": {"fake": {"base_url": "$FAKELLM_URL", "key_env": "PLANNER_TOKEN",
  "timeout": 10, "connect_timeout": 2, "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.05}}}}
EOF
printf 'pass leak=PLANNER_TOKEN\n' >"$W/script"
SET="task=csv-column-sum MODEL=vllm/Qwen/Qwen3.5-27B STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner RUNNER=benchflow
 REPEAT=2 ROUTES=$D/routes.json CACHE_DIR=$T_TMP/cache ENV_FILE=$W/.env"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_Qwen_Qwen3.5-27B
# every file (contents and names) a run leaves: the run, the caches, the summary, the report
holding_key() {
	{ grep -rlF "$KEY" results "$T_TMP/cache" 2>/dev/null; find results "$T_TMP/cache" -name "*$KEY*"; } | sort -u
}

t_begin "a key in the planner's answer and in a trial's files reaches no file"
out=$($SK $SET static-eval 2>&1)
t_eq "exit" $? 0
t_eq "the planner was asked" "$(wc -l <"$D/log.jsonl" | tr -d ' ')" 1
t_contains "the stage says whose value" "$out" \
	"skillc-static: warning: stage 'static': the answer of model 'fake/planner' held the value of PLANNER_TOKEN (1 copy): replaced by ***REDACTED***"
t_check "the plan was applied, redacted" grep -qF 'authenticate with ***REDACTED*** first.' $R/artifacts/static/S_static/csv-sum/SKILL.md
$SK $SET summary >/dev/null 2>&1 || t_fail "make summary failed"
$SK $SET report >/dev/null 2>&1 || t_fail "make report failed"
t_check "a report was written" test -s $R/report.html
t_eq "files holding the key" "$(holding_key)" ""
t_check "the trial's leak is kept, redacted" sh -c "grep -rqF 'key=***REDACTED***' $R/traces"
t_end

t_begin "an answer cached with the key in it is scrubbed when replayed"
entry=$(grep -rlF 'REDACTED' "$T_TMP/cache/llm" | head -n 1)
t_check "one cache entry" test -n "$entry"
# an older skillc cached answers as they came: put the key back in
sed -i "s/\*\*\*REDACTED\*\*\*/$KEY/g" "$entry"
$SK $SET clean-stage STAGE=static >/dev/null 2>&1
out=$($SK $SET static 2>&1)
t_eq "exit" $? 0
t_eq "no new request" "$(wc -l <"$D/log.jsonl" | tr -d ' ')" 1
t_contains "said so" "$out" "the cached answer of model 'fake/planner' held the value of PLANNER_TOKEN"
rm -f "$entry"
t_eq "files holding the key" "$(holding_key)" ""
t_end
exit $T_FAILED
