#!/bin/sh
# End-to-end: GNU Make drives a run from content-hash stamps. Each case
# drives real make on a copy of the sample tasks in a scratch folder.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
SK=$T_SK
R=results/compile-pipeline/csv-column-sum--opencode--no-model
SKILL=tasks/csv-column-sum/environment/skills/csv-sum
mtime() { stat -c %Y.%y "$1" 2>/dev/null; }

t_begin "first make ingests; the run has its inputs, stamps, status and manifest"
out=$($SK task=csv-column-sum ingest 2>&1)
t_eq "exit" $? 0
t_contains "progress" "$out" "skillc: ingest: done"
t_check "skill copied" cmp "$SKILL/SKILL.md" "$R/inputs/skill/csv-sum/SKILL.md"
t_check "script keeps its bytes" cmp "$SKILL/scripts/sum.awk" "$R/inputs/skill/csv-sum/scripts/sum.awk"
t_eq "skill.hash is the tree hash" "$(cat $R/inputs/skill.hash)" "$(skillc-hash $R/inputs/skill | cut -d' ' -f1)"
t_check "stamp" test -f $R/status/ingest.ok
t_contains "status json" "$(cat $R/status/ingest.json)" '"state": "done"'
t_contains "manifest" "$(cat $R/manifest.json)" '"ingest"'
t_contains "config" "$(cat $R/inputs/config.json)" '"MAX_FILE_MB": "25"'
t_check "log" grep -q 'skillc-ingest' $R/logs/ingest.log
t_end

t_begin "a second make does nothing"
before=$(mtime $R/status/ingest.json)
cfg=$(mtime $R/inputs/config.json)
out=$($SK task=csv-column-sum ingest 2>&1)
t_eq "exit" $? 0
t_contains "nothing to do" "$out" "Nothing to be done"
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_eq "status untouched" "$(mtime $R/status/ingest.json)" "$before"
t_eq "config.json untouched" "$(mtime $R/inputs/config.json)" "$cfg"
t_end

t_begin "a no-op make trusts rules.mk by its key line; another key rewrites it"
sed -i '1a # left alone' $R/rules.mk # inside: the trailer stays last (a cut-short file is written again)
$SK task=csv-column-sum ingest >/dev/null 2>&1
t_check "same key: rules.mk is not regenerated" grep -q '^# left alone' $R/rules.mk
sed -i 's/^# key .*/# key 00000000000000000000000000000000/' $R/rules.mk
out=$($SK task=csv-column-sum ingest 2>&1)
t_eq "exit" $? 0
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_check "another key: rules.mk written again" sh -c "! grep -q '^# left alone' $R/rules.mk"
t_check "with the key it is made from" sh -c "! grep -q '^# key 0000' $R/rules.mk"
t_end

t_begin "a setting that changes no result rewrites nothing and runs nothing"
cfg=$(mtime $R/inputs/config.json)
out=$($SK task=csv-column-sum ingest STAGE_TIMEOUT=99 LLM_CACHE=off 2>&1)
t_eq "exit" $? 0
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_eq "config.json untouched" "$(mtime $R/inputs/config.json)" "$cfg"
t_end

t_begin "touch and re-copy with identical bytes rebuild nothing"
hash_before=$(mtime $R/inputs/skill.hash)
sleep 1.1
touch "$SKILL/SKILL.md" "$SKILL/scripts/sum.awk"
cp -p "$SKILL/SKILL.md" "$T_TMP/s.md" && rm "$SKILL/SKILL.md" && cp "$T_TMP/s.md" "$SKILL/SKILL.md"
out=$($SK task=csv-column-sum ingest 2>&1)
case $out in *started*) t_fail "a stage ran after touch: $out" ;; esac
t_eq "skill.hash untouched" "$(mtime $R/inputs/skill.hash)" "$hash_before"
$SK task=csv-column-sum status GOAL=ingest >/dev/null 2>&1
t_eq "status up to date" $? 0
t_end

t_begin "one changed byte re-runs ingest; status names the input first"
old=$(cat $R/inputs/skill.hash)
sed -i 's/Skip the header line/Skip the header row/' "$SKILL/SKILL.md"
out=$($SK task=csv-column-sum status GOAL=ingest 2>&1)
t_eq "status exit" $? 1
t_contains "reason" "$out" "input changed: tasks/csv-column-sum/environment/skills"
out=$($SK task=csv-column-sum ingest 2>&1)
t_contains "ran" "$out" "skillc: ingest: done"
t_check "new bytes copied" cmp "$SKILL/SKILL.md" "$R/inputs/skill/csv-sum/SKILL.md"
[ "$(cat $R/inputs/skill.hash)" != "$old" ] || t_fail "skill.hash did not change"
$SK task=csv-column-sum status GOAL=ingest >/dev/null 2>&1
t_eq "status up to date after" $? 0
t_end

t_begin "a setting change re-runs what reads it; same output leaves the stamp alone"
hash_before=$(mtime $R/inputs/skill.hash)
out=$($SK task=csv-column-sum status MAX_FILE_MB=30 2>&1)
t_contains "reason" "$out" "setting changed: MAX_FILE_MB (25 -> 30)"
out=$($SK task=csv-column-sum ingest MAX_FILE_MB=30 2>&1)
t_contains "ran" "$out" "skillc: ingest: done"
t_eq "skill.hash untouched (same content)" "$(mtime $R/inputs/skill.hash)" "$hash_before"
t_contains "config.json" "$(cat $R/inputs/config.json)" '"MAX_FILE_MB": "30"'
out=$($SK task=csv-column-sum ingest MAX_FILE_MB=30 2>&1)
case $out in *started*) t_fail "ran again with the same setting" ;; esac
t_end

t_begin "a deleted output is rebuilt"
rm -rf $R/inputs/skill
out=$($SK task=csv-column-sum ingest MAX_FILE_MB=30 2>&1)
t_contains "said why" "$out" "output inputs/skill is missing"
t_check "rebuilt" test -f $R/inputs/skill/csv-sum/SKILL.md
t_end

t_begin "clean-stage removes the stage and nothing else"
$SK task=log-error-report ingest >/dev/null 2>&1
R2=results/compile-pipeline/log-error-report--opencode--no-model
other=$(skillc-hash $R2 | cut -d' ' -f1)
out=$($SK task=csv-column-sum clean-stage STAGE=ingest 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "ingest: removed"
t_check "outputs gone" test ! -e $R/inputs/skill
t_check "stamp gone" test ! -e $R/status/ingest.ok
t_check "status gone" test ! -e $R/status/ingest.json
t_check "hash gone" test ! -e $R/inputs/skill.hash
t_eq "other run untouched" "$(skillc-hash $R2 | cut -d' ' -f1)" "$other"
t_check "tasks untouched" cmp "$SKILL/scripts/sum.awk" "$T_ROOT/tasks/csv-column-sum/environment/skills/csv-sum/scripts/sum.awk"
out=$($SK task=csv-column-sum clean-stage STAGE=nope 2>&1)
t_eq "unknown stage exit" $? 2
t_contains "unknown stage message" "$out" "unknown STAGE=nope: the stages are ingest, raw-eval"
out=$($SK task=csv-column-sum clean-stage 2>&1)
t_eq "no STAGE exit" $? 2
t_contains "no STAGE message" "$out" "clean-stage needs STAGE=<stage>"
t_end

t_begin "values from outside never reach the shell"
for bad in 'a b' '$(shell touch pwned)' 'x;touch pwned' '../tasks' '-rf'; do
	out=$($SK "task=$bad" ingest 2>&1)
	rc=$?
	[ $rc -eq 2 ] || t_fail "task='$bad' exit $rc"
	case $out in *"bad task"*) ;; *) t_fail "task='$bad': $out" ;; esac
done
out=$($SK task=csv-column-sum 'MODEL=$(shell touch pwned)' ingest 2>&1)
t_contains "model" "$out" "bad MODEL"
out=$($SK task=csv-column-sum "RESULTS=/tmp/x y" ingest 2>&1)
t_contains "path with a space" "$out" "bad RESULTS"
out=$($SK task=csv-column-sum REPEAT=lots ingest 2>&1)
t_contains "number" "$out" "bad REPEAT 'lots': a whole number from 1 to 1000"
t_check "nothing ran" test ! -e pwned
out=$($SK task=nosuch ingest 2>&1)
t_contains "missing task" "$out" "task 'nosuch' not found: no folder tasks/nosuch"
out=$($SK RESULTS=none-yet ingest 2>&1)
t_contains "no task, no run" "$out" "skillc: no run under RESULTS=none-yet to work on: start one with make task=<name>"
out=$($SK task=csv-column-sum final 2>&1)
t_eq "no model exit" $? 2
t_contains "no model" "$out" "skillc: set MODEL=provider/model-id, the target model"
t_end

t_begin "a matrix: tasks=\"a b\" runs one make per task"
out=$($SK tasks="csv-column-sum log-error-report" -j2 ingest MAX_FILE_MB=31 2>&1)
t_eq "exit" $? 0
t_contains "both" "$(cat $R/status/ingest.json $R2/status/ingest.json | grep -c '"MAX_FILE_MB": "31"')" 2
t_end

t_begin "make doctor answers 0 when all is well, 1 with one line per problem"
out=$($SK doctor GOAL=static STATIC_MODE=hybrid MODEL=vllm/Qwen/Qwen3-8B EXTERNAL_MODEL=ollama/qwen3:8b DOCTOR_PROBE=none 2>&1)
t_eq "all good exit (output: $out)" $? 0
t_contains "said" "$out" "all good"
out=$($SK doctor GOAL=static STATIC_MODE=hybrid MODEL=vllm/Qwen/Qwen3-8B EXTERNAL_MODEL=nosuch/model DOCTOR_PROBE=none 2>&1)
t_eq "problem exit" $? 1
t_contains "names the provider" "$(printf '%s\n' "$out" | grep '^problem EXTERNAL_MODEL')" "nosuch"
t_end

t_begin "make -n shows what would run and runs nothing"
$SK task=log-error-report clean-stage STAGE=ingest >/dev/null 2>&1
out=$($SK -n task=log-error-report ingest 2>&1)
t_eq "exit" $? 0
t_contains "would run" "$out" "skillc-stage run results/compile-pipeline/log-error-report--opencode--no-model ingest"
t_check "nothing ran" test ! -e results/compile-pipeline/log-error-report--opencode--no-model/status/ingest.json
t_end

t_begin "make -n and -q in the source tree tell the truth: built tools are up to date, a due stage is named"
out=$(make --no-print-directory -C "$T_ROOT" -n all SANITIZE="${SANITIZE:-}" 2>&1 | grep -v 'Nothing to be done')
t_eq "make -n all prints no command" "$out" ""
make --no-print-directory -C "$T_ROOT" -q all SANITIZE="${SANITIZE:-}" >/dev/null 2>&1
t_eq "make -q all" $? 0
out=$(make --no-print-directory -C "$T_ROOT" -n task=csv-column-sum TASKS_DIR="$W/tasks" RESULTS="$T_TMP/src-results" \
	SANITIZE="${SANITIZE:-}" ingest 2>&1)
t_eq "one line" "$out" "$T_ROOT/bin/skillc-stage run $T_TMP/src-results/csv-column-sum--opencode--no-model ingest"
t_check "nothing ran" test ! -e "$T_TMP/src-results"
t_end
