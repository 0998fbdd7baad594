#!/bin/sh
# Corruption is detected, not trusted: a stamp or record that does not parse
# is a stale target that rebuilds and says why; a garbage rules.mk (it is
# generated) is written again instead of stopping every make.
. "$(dirname "$0")/../lib.sh"

t_bench_work
SK="$T_SK task=csv-column-sum RUNNER=benchflow MODEL=vllm/qwen-27b REPEAT=2"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
T=$R/traces/csv-column-sum/raw
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
$SK raw-eval >/dev/null 2>&1 || exit 2

t_begin "garbage in a trial.json: status names it, make runs it again (from the trial store), the index counts 2 of 2"
echo garbage >$T/test-002/trial.json
out=$($SK status GOAL=raw-eval 2>&1); rc=$?
t_eq "status exit" $rc 1
t_contains "says why" "$out" "output traces/csv-column-sum/raw/test-002/trial.json does not parse"
out=$($SK raw-index 2>&1); rc=$?
t_eq "make exit" $rc 0
t_contains "the make says so" "$out" "raw-eval.002: output traces/csv-column-sum/raw/test-002/trial.json does not parse"
t_contains "reused, not paid again" "$out" "reused from the trial store"
t_eq "no new bench run" "$(starts)" 2
t_check "whole again" grep -q '"complete": true' $T/test-002/trial.json
t_eq "index counts both" "$(grep -c '"test": "test-00' $T/index.json)" 2
$SK status GOAL=raw-index >/dev/null 2>&1
t_eq "then up to date" $? 0
t_end

t_begin "a stored trial changed through a hard link is set aside, not reused, and runs again"
# a reused trial's files are links into the store: edit one in the run
f=$(find $T/test-002/raw -name result.json | head -1)
sed 's/"task_name"/"task_name" /' "$f" >"$f.new" && cat "$f.new" >"$f" && rm "$f.new"
echo garbage >$T/test-002/trial.json
out=$($SK raw-eval 2>&1); rc=$?
t_eq "exit" $rc 0
t_contains "says why" "$out" "changed after it was filed (a file edited through a hard link?); set aside in "
t_eq "run again at the bench" "$(starts)" 3
t_check "set aside" test -d results/.cache/trials/.corrupt
t_check "whole again" grep -q '"complete": true' $T/test-002/trial.json
t_end

t_begin "a trial.json that parses but is not a complete trial runs again"
printf '{"format": 1}\n' >$T/test-001/trial.json
out=$($SK raw-eval 2>&1)
t_contains "says why" "$out" "output traces/csv-column-sum/raw/test-001/trial.json is not a complete trial"
t_check "whole again" grep -q '"complete": true' $T/test-001/trial.json
t_end

t_begin "nothex in inputs/skill.hash: ingest runs again and says why"
good=$(cat $R/inputs/skill.hash)
echo nothex >$R/inputs/skill.hash
out=$($SK status GOAL=ingest 2>&1); rc=$?
t_eq "status exit" $rc 1
t_contains "status says why" "$out" "output inputs/skill.hash is not a hash stamp"
out=$($SK ingest 2>&1); rc=$?
t_eq "make exit" $rc 0
t_contains "make says why" "$out" "ingest: output inputs/skill.hash is not a hash stamp (32 hex digits and a newline); the stage will run again"
t_eq "the stamp is whole" "$(cat $R/inputs/skill.hash)" "$good"
t_end

t_begin "a garbage rules.mk is written again, not read"
echo 'garbage that is no makefile' >$R/rules.mk
out=$($SK raw-eval 2>&1); rc=$?
t_eq "exit" $rc 0
t_contains "says so" "$out" "rules.mk is not what skillc-rules wrote (corrupt?): writing it again"
case $out in *"missing separator"*) t_fail "make read the garbage: $out" ;; esac
t_eq "written again" "$(head -c 10 $R/rules.mk)" "# rules.mk"
t_end

t_begin "temp files of the run's bookkeeping whose writer is gone are removed, a live writer's are not"
# a kill before any stage began (no .inflight marker) leaves these behind
sh -c 'exit 0' & dead=$!
wait $dead
for f in inputs/.config.hash.tmp.$dead.0 "inputs/..task.src.cache.tmp.$dead.3" status/.ingest.json.tmp.$dead.1 \
	inputs/.config.hash.tmp.$$.0; do
	echo partial >"$R/$f"
done
out=$($SK raw-eval 2>&1); rc=$?
t_eq "exit" $rc 0
t_check "the config temp is gone" test ! -e $R/inputs/.config.hash.tmp.$dead.0
t_check "the source cache temp is gone" test ! -e "$R/inputs/..task.src.cache.tmp.$dead.3"
t_check "the status temp is gone" test ! -e $R/status/.ingest.json.tmp.$dead.1
t_check "a live writer's temp stays" test -e $R/inputs/.config.hash.tmp.$$.0
rm -f $R/inputs/.config.hash.tmp.$$.0
t_end
