#!/bin/sh
# End-to-end: STATIC_MODE=hybrid through real make, with the loopback fake
# LLM server (tests/helpers/fakellm) answering the planning call: a valid
# plan is applied step by step; steps naming a missing section, quoting
# text that is not in the source or dropping a code block are rejected or
# rolled back, and the report says which and why; the plan is cached (a
# second run asks nothing); --dry-run never calls the model.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE
FAKELLM=$T_ROOT/build/tests/helpers/fakellm
[ -x "$FAKELLM" ] || { echo "FAIL static-hybrid.sh: build/tests/helpers/fakellm is missing (make check builds it)"; exit 1; }
W=$T_TMP/work
mkdir -p "$W" && cd "$W" || exit 2
S=tasks/fence/environment/skills/fence-skill
mkdir -p $S/scripts tasks/fence/tests
printf '#!/bin/sh\necho ok\n' >tasks/fence/tests/test.sh
printf '#!/bin/sh\njq -r . "$1"\n' >$S/scripts/convert.sh
cat >$S/SKILL.md <<'EOF'
---
name: fence-skill
description: Convert CSV reports to JSON with jq and check the totals. Use when a task asks to convert or validate a CSV report.
---

# Fence skill

## Steps

Convert the report with `scripts/convert.sh` and keep the 2 decimals of every total.

- Check the output:

  ```sh
  jq . out.json
  ```

## Background

Reports came from the old billing system, which wrote CSV with a header row.
EOF

PLAN='{"operations": [
 {"op": "rewrite", "section": "fence-skill/steps", "paragraph": "Convert the report with `scripts/convert.sh` and keep the 2 decimals of every total.",
  "text": "Convert the report with `scripts/convert.sh`; keep the 2 decimals of every total."},
 {"op": "reorder", "section": "fence-skill/usage", "before": "fence-skill/steps"},
 {"op": "rewrite", "section": "fence-skill/background", "paragraph": "Reports always come from the new system.", "text": "New."},
 {"op": "rewrite", "section": "fence-skill/steps", "paragraph": "- Check the output: ```sh jq . out.json ```", "text": "- Check the output."},
 {"op": "move_to_reference", "section": "fence-skill/background", "when": "you need the history of the reports."}
]}'
D=$T_TMP/fake
t_fakellm "$D" "$(printf '{"chat": [{"json": %s}]}' "$PLAN")"
cat >"$D/routes.json" <<EOF
{"providers": {"fake": {"base_url": "http://127.0.0.1:$(cat "$D/port")/v1", "key_env": null,
  "timeout": 10, "connect_timeout": 2, "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.05}}}}
EOF
requests() { if [ -f "$D/log.jsonl" ]; then wc -l <"$D/log.jsonl" | tr -d ' '; else echo 0; fi; }

SK=$T_SK
SET="task=fence MODEL=vllm/Qwen/Qwen3.5-27B STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner ROUTES=$D/routes.json CACHE_DIR=$T_TMP/cache ENV_FILE=$T_TMP/none.env"
R=results/compile-pipeline/fence--opencode--vllm_Qwen_Qwen3.5-27B
A=$R/artifacts/static
OUT=$A/S_static/fence-skill/SKILL.md
step() { jq -r ".skills[0].steps[] | select(.step == \"$1\") | $2" $A/report.json; }

t_begin "hybrid: one planning request; the valid steps are applied"
out=$($SK $SET static 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "plan from fake/planner: 1 request(s), 0 cache hit(s), 0 repair(s), 5 operation(s)"
t_eq "requests" "$(requests)" 1
t_contains "prompt has the outline" "$(jq -r '.body.messages[1].content' "$D/log.jsonl")" '- id "fence-skill/steps#1" (H2,'
t_contains "prompt has the skill" "$(jq -r '.body.messages[1].content' "$D/log.jsonl")" 'Reports came from the old billing system'
t_eq "temperature 0" "$(jq -r '.body.temperature' "$D/log.jsonl")" 0
t_eq "plan 1" "$(step 'plan 1: rewrite' .status)" applied
t_check "rewritten" grep -qx 'Convert the report with `scripts/convert.sh`; keep the 2 decimals of every total.' $OUT
t_eq "plan 5" "$(step 'plan 5: move_to_reference' .status)" applied
t_check "pointer" grep -qx 'Read \[references/background.md\](references/background.md) when you need the history of the reports.' $OUT
t_check "moved" grep -q 'old billing system' $A/S_static/fence-skill/references/background.md
t_eq "plan.json" "$(jq '.skills[0].plan.operations | length' $A/plan.json)" 5
t_eq "plan.json planner" "$(jq -r .skills[0].plan.planner $A/plan.json)" fake/planner
t_eq "report planner" "$(jq -r .skills[0].plan.planner $A/report.json)" fake/planner
t_check "guard holds on disk" "$T_ROOT/build/tests/helpers/static-verify" $R/inputs/skill $A/S_static
t_end

t_begin "hybrid: bad steps are rejected or rolled back one by one, and the report says why"
t_eq "missing section" "$(step 'plan 2: reorder' '.status + ": " + .reason')" \
	"rejected: section 'fence-skill/usage' names no section of the skill"
t_eq "quote not in source" "$(step 'plan 3: rewrite' '.status + ": " + .reason')" \
	"rejected: \"paragraph\" quotes text that is not in the source: 'Reports always come from the new system.'"
t_eq "dropped code block" "$(step 'plan 4: rewrite' '.status + ": " + .guard.check')" "rolled_back: code-block"
t_contains "lost item" "$(step 'plan 4: rewrite' .guard.item)" '```sh   jq . out.json   ```'
t_check "code block kept" grep -qx '  jq . out.json' $OUT
t_eq "rollbacks" "$(jq -r '[.skills[0].rollbacks[].step] | join(",")' $A/report.json)" "plan 4: rewrite"
md=$(cat $A/report.md)
t_contains "report.md rejected" "$md" "| plan 2: reorder | rejected | 16 -> 16 |"
t_contains "report.md rollback" "$md" "- plan 4: rewrite: check **code-block** failed on"
t_end

t_begin "hybrid: the plan is cached: make again, and clean-stage + make, ask nothing"
h=$(cat $A/S_static.hash)
out=$($SK $SET static 2>&1)
t_contains "nothing to do" "$out" "Nothing to be done"
$SK $SET clean-stage STAGE=static >/dev/null 2>&1
out=$($SK $SET static 2>&1)
t_contains "ran" "$out" "skillc: static: done"
t_contains "from the cache" "$out" "plan from fake/planner: 0 request(s), 1 cache hit(s)"
t_eq "requests" "$(requests)" 1
t_eq "same bytes" "$(cat $A/S_static.hash)" "$h"
t_eq "report says cached" "$(jq .skills[0].plan.cached $A/report.json)" true
t_end

t_begin "--dry-run: prints a cached plan and what each step would do; writes nothing"
cd "$W"
export ROUTES=$D/routes.json CACHE_DIR=$T_TMP/cache ENV_FILE=$T_TMP/none.env
out=$(skillc-static --skill $R/inputs/skill --profile $A/profile.json --mode hybrid --external-model fake/planner \
	--dry-run --out "$T_TMP/dry" 2>"$T_TMP/dry.err")
t_eq "exit" $? 0
t_contains "progress on stderr" "$(cat "$T_TMP/dry.err")" "plan from fake/planner: 0 request(s), 1 cache hit(s)"
t_eq "steps" "$(printf '%s' "$out" | jq -r '[.skills[0].steps[].status] | join(" ")')" "applied rejected rejected rolled_back applied"
t_eq "operations" "$(printf '%s' "$out" | jq '.skills[0].plan.operations | length')" 5
t_check "nothing written" test ! -e "$T_TMP/dry"
t_eq "requests" "$(requests)" 1
t_end

t_begin "--dry-run with a plan not cached: says so and makes no request"
out=$(skillc-static --skill $R/inputs/skill --profile $A/profile.json --mode hybrid --external-model fake/other \
	--dry-run --out "$T_TMP/dry" 2>&1)
t_eq "exit" $? 0
t_eq "cached" "$(printf '%s' "$out" | jq .skills[0].plan.cached)" false
t_contains "note" "$(printf '%s' "$out" | jq -r .skills[0].plan.note)" "the plan is not cached: a real run asks the planner once"
t_check "nothing written" test ! -e "$T_TMP/dry"
t_eq "requests" "$(requests)" 1
t_check "no cache entry made" test "$(find "$T_TMP/cache/llm" -name '*.json' | wc -l)" -eq 1
t_end

t_begin "hybrid: the planner cannot be reached: the stage fails with one line, nothing marked done"
cat >"$T_TMP/down.json" <<EOF
{"providers": {"fake": {"base_url": "http://127.0.0.1:9/v1", "key_env": null, "connect_timeout": 1,
  "retry": {"attempts": 1, "base_delay": 0.01, "max_delay": 0.01}}}}
EOF
out=$($SK task=fence MODEL=vllm/Qwen/Qwen3.5-27B STATIC_MODE=hybrid EXTERNAL_MODEL=fake/down ROUTES=$T_TMP/down.json \
	CACHE_DIR=$T_TMP/cache2 ENV_FILE=$T_TMP/none.env static 2>&1)
[ $? -ne 0 ] || t_fail "make succeeded"
t_contains "one line" "$(printf '%s\n' "$out" | grep '^skillc-static: ')" "skillc-static: provider 'fake'"
t_check "not done" test ! -e $R/status/static.ok
t_end

t_begin "STAGE_TIMEOUT: a stage that runs too long is stopped, its whole process group with it"
D2=$T_TMP/slow
t_fakellm "$D2" '{"chat": [{"delay": 60, "text": "too late"}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 120}}}\n' "$FAKELLM_URL" >"$D2/routes.json"
start=$(date +%s)
out=$($SK task=fence MODEL=vllm/Qwen/Qwen3.5-27B STATIC_MODE=hybrid EXTERNAL_MODEL=fake/slow ROUTES=$D2/routes.json \
	CACHE_DIR=$T_TMP/cache3 ENV_FILE=$T_TMP/none.env STAGE_TIMEOUT=2 static 2>&1)
rc=$?
[ $rc -ne 0 ] || t_fail "make succeeded"
[ $(( $(date +%s) - start )) -lt 30 ] || t_fail "the stage was not stopped in time"
t_contains "said" "$out" "skillc: static: failed after"
t_contains "why" "$out" "timed out after 2 s (STAGE_TIMEOUT)"
t_contains "recorded" "$(cat $R/status/static.json)" '"error": "timed out after 2 s (STAGE_TIMEOUT)"'
t_check "not done" test ! -e $R/status/static.ok
# only ours: other tests may run skillc-static at the same time, in other folders
ours_left() {
	left=
	for p in $(pgrep -x skillc-static); do
		[ "$(readlink /proc/$p/cwd)" = "$(pwd -P)" ] && left="$left $p"
	done
	[ -z "$left" ]
}
t_poll 10 ours_left
ours_left
t_eq "no skillc-static left" "$left" ""
t_end
