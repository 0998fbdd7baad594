#!/bin/sh
# End-to-end: a make that exits 0 leaves every goal up to date, with -j too,
# through evaluation stages (trials through the stand-in `bench`,
# tests/helpers/fake-bench.sh). Each case is followed by `make status`,
# which must then say "up to date" (exit 0).
. "$(dirname "$0")/../lib.sh"

t_bench_work
# final runs the optimizing stages: their compiler's model finds nothing to change
t_fakellm "$T_TMP/llm" '{"chat": [{"json": {"findings": [], "patches": [], "scores": []}}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null}}}\n' "$FAKELLM_URL" >"$T_TMP/llm/routes.json"
X="EXTERNAL_MODEL=fake/compiler ROUTES=$T_TMP/llm/routes.json ENV_FILE=$T_TMP/none.env"
M=vllm/qwen-27b
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
RAW=$R/traces/csv-column-sum/raw
# the outcome script; a kill can leave the stand-in's line lock behind
script() { rm -rf script.n script.lock; printf '%s\n' "$@" >script; }
script pass
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
index_trials() { sed -n 's/.*"trials": \([0-9]*\).*/\1/p' "$1/index.json" 2>/dev/null | head -1; }
up_to_date() { # up_to_date GOAL [settings...]: make status says so, exit 0
	g=$1; shift
	out=$($SK task=csv-column-sum status GOAL=$g RUNNER=benchflow MODEL=$M "$@" 2>&1)
	rc=$?
	[ $rc -eq 0 ] || t_fail "status after a make that exited 0: exit $rc: $out"
}

t_begin "make -j2 eval REPEAT=8, then REPEAT=10: both indexes hold every trial at once"
out=$($SK -j2 task=csv-column-sum eval REPEAT=8 RUNNER=benchflow MODEL=$M 2>&1)
t_eq "first exit" $? 0
out=$($SK -j2 task=csv-column-sum eval REPEAT=10 RUNNER=benchflow MODEL=$M 2>&1)
t_eq "second exit" $? 0
t_eq "raw index" "$(index_trials $RAW)" 10
t_eq "static index" "$(index_trials $R/traces/csv-column-sum/static)" 10
up_to_date eval REPEAT=10
out=$($SK -j2 task=csv-column-sum eval REPEAT=10 RUNNER=benchflow MODEL=$M 2>&1)
case $out in *started*) t_fail "a third make ran a stage: $out" ;; esac
t_end

t_begin "make -j3 final REPEAT=12 after a kill mid-trial: the resumed make leaves final up to date"
script "pass sleep=0.3"
setsid $SK -j3 task=csv-column-sum final REPEAT=12 RUNNER=benchflow MODEL=$M $X >kill.out 2>&1 &
sid=$!
before=$(starts)
i=0
while [ $i -lt 600 ] && [ "$(starts)" -lt $((before + 1)) ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM -$sid
wait $sid
i=0
while [ $i -lt 200 ] && pgrep -s $sid >/dev/null; do sleep 0.05; i=$((i + 1)); done
script pass
out=$($SK -j3 task=csv-column-sum final REPEAT=12 RUNNER=benchflow MODEL=$M $X 2>&1)
t_eq "resume exit" $? 0
t_eq "raw index" "$(index_trials $RAW)" 12
up_to_date final REPEAT=12 $X
t_end

t_begin "status: trials not run yet say so, the index waits for them, one column for every name"
out=$($SK task=csv-column-sum status GOAL=eval REPEAT=13 RUNNER=benchflow MODEL=$M 2>&1)
t_eq "exit" $? 1
t_contains "new trial" "$out" "raw-eval.013     not yet run"
t_contains "index waits" "$out" "raw-index        waiting for raw-eval.013 (not yet run)"
t_contains "static trial" "$out" "static-eval.013  not yet run"
case $out in *"input changed"*) t_fail "a trial not run yet was called a changed input: $out" ;; esac
cols=$(printf '%s\n' "$out" | sed -n 's/^  \([a-z0-9.-]*  *\)[a-z].*/\1/p' | awk '{ print length($0) }' | sort -u)
t_eq "one column" "$cols" 17
t_end

t_begin "a failed trial stops a plain make, and the failure line says make -k runs the rest"
script "pass" "crash" "pass"
rm -f bench.log
out=$($SK task=csv-column-sum raw-eval REPEAT=15 RUNNER=benchflow MODEL=$M 2>&1)
[ $? -ne 0 ] || t_fail "make succeeded"
t_contains "hint" "$out" "(log: results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b/logs/raw-eval.014.log); make -k runs the stages that do not need it"
script "crash"
out=$($SK -k task=csv-column-sum raw-eval REPEAT=15 RUNNER=benchflow MODEL=$M 2>&1)
case $out in *"make -k runs"*) t_fail "the hint under -k: $out" ;; esac
t_end

t_begin "skillc-traces --first N indexes test-001 to test-N only (static-index: the fast stage's extra trials are not the stage's)"
cp -R $RAW "$T_TMP/first"
skillc-traces "$T_TMP/first" --first 3
t_eq "exit" $? 0
t_eq "three" "$(index_trials "$T_TMP/first")" 3
t_eq "the first three" "$(jq -r '[.trials[].dir] | join(" ")' "$T_TMP/first/index.json")" "test-001 test-002 test-003"
out=$(skillc-traces "$T_TMP/first" --first 0 2>&1)
t_eq "0 is refused" $? 2
t_contains "says so" "$out" "--first"
t_end
