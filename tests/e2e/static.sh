#!/bin/sh
# End-to-end: the profile and static stages through real make, in
# deterministic mode: outputs, purity (same bytes twice, clean-stage and
# rebuild), the guard on the package written, profile precedence and
# re-runs when a profile file changes, and clear errors for bad input.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE
W=$T_TMP/work
mkdir -p "$W" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
SK=$T_SK
Q=MODEL=vllm/Qwen/Qwen3.5-27B
R=results/compile-pipeline/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
A=$R/artifacts/static
OUT=$A/S_static/log-triage
SRC=tasks/log-error-report/environment/skills/log-triage
[ -x "$T_ROOT/build/tests/helpers/static-verify" ] ||
	{ echo "FAIL static.sh: build/tests/helpers/static-verify is missing (make check builds it)"; exit 1; }
mtime() { stat -c %Y.%y "$1" 2>/dev/null; }
frontmatter() { awk 'NR == 1 || !done { print } NR > 1 && /^---$/ { done = 1 }' "$1"; }
body_lines() { awk 'NR > 1 && done { n++ } NR > 1 && /^---$/ && !done { done = 1 } END { print n + 0 }' "$1"; }

t_begin "make static: the qwen profile moves the padding of log-triage to references/ and reports it"
out=$($SK task=log-error-report $Q static 2>&1)
t_eq "exit" $? 0
t_contains "profile said why" "$out" "vllm/Qwen/Qwen3.5-27B -> qwen (builtin qwen.json)"
t_contains "static summary" "$out" "log-triage: body 504 -> "
t_check "profile.json" test -f $A/profile.json
t_eq "profile name" "$(jq -r .name $A/profile.json)" qwen
t_check "S_static.hash" test -f $A/S_static.hash
t_eq "hash is the tree hash" "$(cat $A/S_static.hash)" "$(skillc-hash $A/S_static | cut -d' ' -f1)"
frontmatter $OUT/SKILL.md >"$T_TMP/fm.out"; frontmatter $SRC/SKILL.md >"$T_TMP/fm.src"
t_check "frontmatter bytes" cmp "$T_TMP/fm.src" "$T_TMP/fm.out"
[ "$(body_lines $OUT/SKILL.md)" -le 300 ] || t_fail "body over 300 lines: $(body_lines $OUT/SKILL.md)"
t_eq "within budget" "$(jq -r '.skills[0].within_budget' $A/report.json)" true
t_check "marketing moved" test -f $OUT/references/why-logtriage-suite.md
t_check "format reference moved" test -f $OUT/references/log-format-reference.md
t_check "pointer says when" grep -qx 'Read \[references/log-format-reference.md\](references/log-format-reference.md) when you need to look up an entry of this reference (292 lines).' $OUT/SKILL.md
t_check "source reference kept" cmp $SRC/references/levels.md $OUT/references/levels.md
t_check "script kept" cmp $SRC/scripts/count_levels.sh $OUT/scripts/count_levels.sh
t_check "script still executable" test -x $OUT/scripts/count_levels.sh
# gotchas come before the quick start now
g=$(grep -n '^## Gotchas' $OUT/SKILL.md | cut -d: -f1); q=$(grep -n '^## Quick start' $OUT/SKILL.md | cut -d: -f1)
[ -n "$g" ] && [ -n "$q" ] && [ "$g" -lt "$q" ] || t_fail "gotchas not hoisted ($g, $q)"
t_eq "steps" "$(jq -r '[.skills[0].steps[] | .name + "=" + .status] | join(" ")' $A/report.json)" \
	"structure=unchanged refs=unchanged budget=applied hoist=applied"
t_eq "no rollbacks" "$(jq '.skills[0].rollbacks | length' $A/report.json)" 0
t_eq "lint before" "$(jq -r '.skills[0].lint_before.findings[0].rule' $A/report.json)" body-lines
t_eq "lint after" "$(jq '.skills[0].lint_after.count' $A/report.json)" 0
t_contains "report.md" "$(cat $A/report.md)" "| pass budget | applied | 504 -> 139 | 4364 -> 1101 |"
t_contains "report.md lint" "$(cat $A/report.md)" "After: valid, 0 finding(s)"
t_eq "plan.json" "$(jq -r '.skills[0].plan.mode' $A/plan.json)" deterministic
t_check "guard holds on disk" "$T_ROOT/build/tests/helpers/static-verify" $R/inputs/skill $A/S_static
t_end

t_begin "a second make does nothing"
before=$(mtime $A/report.json)
out=$($SK task=log-error-report $Q static 2>&1)
t_contains "nothing to do" "$out" "Nothing to be done"
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_eq "report untouched" "$(mtime $A/report.json)" "$before"
$SK task=log-error-report $Q status GOAL=static >/dev/null 2>&1
t_eq "status up to date" $? 0
t_end

t_begin "clean-stage STAGE=static then make static: the same bytes"
h1=$(skillc-hash $A/S_static $A/report.json $A/report.md $A/plan.json | cut -d' ' -f1)
out=$($SK task=log-error-report $Q clean-stage STAGE=static 2>&1)
t_check "gone" test ! -e $A/S_static
t_check "profile kept" test -f $A/profile.json
out=$($SK task=log-error-report $Q static 2>&1)
t_contains "ran" "$out" "skillc: static: done"
case $out in *"profile: started"*) t_fail "profile ran again" ;; esac
t_eq "same bytes" "$(skillc-hash $A/S_static $A/report.json $A/report.md $A/plan.json | cut -d' ' -f1)" "$h1"
t_end

t_begin "skillc-static is a pure function: two runs by hand give the same bytes"
for i in 1 2; do
	skillc-static --skill $R/inputs/skill --profile $A/profile.json --out "$T_TMP/pure$i/S" \
		--report "$T_TMP/pure$i/r.json" --report-md "$T_TMP/pure$i/r.md" >/dev/null 2>&1 || t_fail "run $i failed"
done
t_eq "trees" "$(skillc-hash "$T_TMP/pure1/S" | cut -d' ' -f1)" "$(skillc-hash "$T_TMP/pure2/S" | cut -d' ' -f1)"
t_check "reports" cmp "$T_TMP/pure1/r.json" "$T_TMP/pure2/r.json"
t_eq "same as make's" "$(skillc-hash "$T_TMP/pure1/S" | cut -d' ' -f1)" "$(cat $A/S_static.hash)"
t_end

t_begin "skillc-static --timings: each phase's time on stderr, the outputs the same bytes"
skillc-static --skill $R/inputs/skill --profile $A/profile.json --out "$T_TMP/timed/S" \
	--report "$T_TMP/timed/r.json" --timings >/dev/null 2>"$T_TMP/timed.err"
t_eq "exit" $? 0
for phase in "load (read, parse, profile)" lint "pass budget" "package (files, report.md)" "write (publish, hash, reports)" total; do
	t_check "phase '$phase' timed" grep -q "^skillc-static: timing: $phase  *[0-9.]* ms$" "$T_TMP/timed.err"
done
t_check "report" cmp "$T_TMP/pure1/r.json" "$T_TMP/timed/r.json"
t_eq "tree" "$(skillc-hash "$T_TMP/timed/S" | cut -d' ' -f1)" "$(cat $A/S_static.hash)"
t_end

t_begin "a skill within budget: claude's profile moves nothing and only tidies"
out=$($SK task=csv-column-sum MODEL=anthropic/claude-sonnet-4 static 2>&1)
t_eq "exit" $? 0
C=results/compile-pipeline/csv-column-sum--opencode--anthropic_claude-sonnet-4/artifacts/static
t_eq "profile" "$(jq -r .name $C/profile.json)" claude
t_check "SKILL.md unchanged" cmp tasks/csv-column-sum/environment/skills/csv-sum/SKILL.md $C/S_static/csv-sum/SKILL.md
t_eq "hoist skipped" "$(jq -r '.skills[0].steps[] | select(.name == "hoist") | .status' $C/report.json)" skipped
t_eq "budget" "$(jq -r '.skills[0].steps[] | select(.name == "budget") | .notes.result' $C/report.json)" "within budget: nothing moved"
t_end

t_begin "a user profile in PROFILES_DIR wins; editing it re-runs profile and static"
mkdir -p myprofiles
jq '.profile = "tight" | .match = "Qwen3\\.5" | .body_budget = {"tokens": 900, "lines": 90}' \
	"$T_ROOT/rules/profiles/qwen.json" >myprofiles/tight.json
out=$($SK task=log-error-report $Q PROFILES_DIR=myprofiles status GOAL=static 2>&1)
t_contains "status names the folder" "$out" "input changed: myprofiles"
out=$($SK task=log-error-report $Q PROFILES_DIR=myprofiles static 2>&1)
t_contains "matched" "$out" "-> tight (user tight.json)"
t_eq "report profile" "$(jq -r .profile.name $A/report.json)" tight
t_eq "within the tighter budget" "$(jq -r '.skills[0].within_budget' $A/report.json)" true
t_eq "more moved" "$(jq '.skills[0].files_added | length' $A/report.json)" 6
jq '.body_budget.lines = 120' myprofiles/tight.json >myprofiles/t && mv myprofiles/t myprofiles/tight.json
out=$($SK task=log-error-report $Q PROFILES_DIR=myprofiles static 2>&1)
t_contains "profile re-ran" "$out" "skillc: profile: done"
t_contains "static re-ran" "$out" "skillc: static: done"
t_eq "new budget used" "$(jq .profile.body_budget.lines $A/report.json)" 120
t_end

t_begin "a broken profile file: one line naming the file, exit 2, nothing marked done"
echo '{"profile": "tight", "match": "(unclosed"}' >myprofiles/tight.json
out=$($SK task=log-error-report $Q PROFILES_DIR=myprofiles static 2>&1)
t_contains "message" "$(printf '%s\n' "$out" | grep '^skillc-profile: ')" \
	'skillc-profile: myprofiles/tight.json: bad "match" pattern at offset 9: missing closing parenthesis'
t_check "not done" test ! -e $R/status/profile.ok
t_contains "status failed" "$(cat $R/status/profile.json)" '"state": "failed"'
rm -rf myprofiles
out=$($SK task=log-error-report $Q static 2>&1)
t_eq "fixed by removing it" $? 0
t_end

t_begin "STATIC_MODE=hybrid without EXTERNAL_MODEL is a clear error"
out=$($SK task=log-error-report $Q STATIC_MODE=hybrid static 2>&1)
t_contains "message" "$out" "skillc-static: STATIC_MODE=hybrid needs EXTERNAL_MODEL (the planning model, provider/model-id)"
t_contains "status failed" "$(cat $R/status/static.json)" '"state": "failed"'
t_end

t_begin "skillc-profile by hand: bad options and the default profile"
out=$(skillc-profile --model '' --profiles "$T_ROOT/rules/profiles" --out "$T_TMP/p.json" 2>&1)
t_contains "default" "$out" "(no MODEL) -> default (builtin default.json): MODEL is empty"
out=$(skillc-profile --bogus 2>&1)
t_eq "usage exit" $? 2
t_contains "usage message" "$out" "skillc-profile: unknown option '--bogus' (see --help)"
t_end
