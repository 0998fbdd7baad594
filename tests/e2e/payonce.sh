#!/bin/sh
# Pay once for a trial: a trial whose key (task, skill, harness, model,
# runner, settings, index) is already running elsewhere is waited for and
# reused, never run twice -- under make -j, between stages whose skills are
# the same bytes, and between runs that share CACHE_DIR. Counted at the
# stand-in bench (tests/helpers/fake-bench.sh).
. "$(dirname "$0")/../lib.sh"

t_bench_work
M=anthropic/claude-sonnet-4
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
# distinct trial keys among the complete trials under a folder
keys() { find "$@" -name trial.json -path '*/test-*' -exec grep -h '"key":' {} + | sort -u | wc -l; }
echo "pass sleep=1" >script

t_begin "make -j8 eval REPEAT=24: each key runs once; a stage whose skill has the same bytes reuses (waiting when it runs)"
# an ingested skill that the static compile leaves byte for byte: its
# static trials have the raw trials' keys
$SK task=csv-column-sum static RUNNER=benchflow MODEL=$M >/dev/null 2>&1
R=results/compile-pipeline/csv-column-sum--opencode--anthropic_claude-sonnet-4
same=$(cmp -s $R/inputs/skill.hash $R/artifacts/static/S_static.hash && echo yes || echo no)
out=$($SK -j8 task=csv-column-sum eval REPEAT=24 RUNNER=benchflow MODEL=$M 2>&1); rc=$?
t_eq "exit" $rc 0
n=$(starts) k=$(keys $R/traces)
t_eq "bench runs = distinct keys ($k)" "$n" "$k"
trials=$(find $R/traces -name trial.json -path '*/test-*' | wc -l)
t_eq "48 trials published" "$trials" 48
t_eq "the static compile kept the bytes (else this case proves less)" "$same" yes
if [ "$same" = yes ]; then
	t_eq "24 keys for 48 trials" "$k" 24
	# whether a static trial finds its twin still running or already done
	# depends on the load; waiting itself is checked deterministically below
	t_contains "a twin is reused" "$out" ", reused from the trial store"
fi
t_end

t_begin "two runs sharing CACHE_DIR at once: 6 keys, 6 bench runs"
rm -f bench.log
$SK -j3 task=csv-column-sum raw-eval REPEAT=6 RUNNER=benchflow MODEL=vllm/a-b RESULTS=one CACHE_DIR=$W/shared >one.out 2>&1 &
a=$!
$SK -j3 task=csv-column-sum raw-eval REPEAT=6 RUNNER=benchflow MODEL=vllm/a-b RESULTS=two CACHE_DIR=$W/shared >two.out 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
t_eq "exits" "$ra $rb" "0 0"
t_eq "bench runs" "$(starts)" 6
t_eq "keys" "$(keys one two)" 6
t_eq "complete in both" "$(grep -l '"complete": true' one/*/traces/*/raw/test-*/trial.json two/*/traces/*/raw/test-*/trial.json | wc -l)" 12
t_end

t_begin "the holder killed -9: the waiter runs the trial itself"
rm -f bench.log
# the holder's agent works until it is killed (wait=: at most 120 s), however
# long the second make takes to get there on a busy machine
printf 'pass sleep=0 wait=%s\n' "$W/never" >script
$SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/c-d RESULTS=k1 CACHE_DIR=$W/k >k1.out 2>&1 &
first=$!
t_poll 100 sh -c '[ "$(grep -c "^start " bench.log 2>/dev/null)" -ge 1 ]'
echo "pass sleep=1" >script
rm -f script.n
$SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/c-d RESULTS=k2 CACHE_DIR=$W/k >k2.out 2>&1 &
second=$!
t_check "the second waits" t_poll 100 grep -q 'waiting: the same trial' k2.out
# the first make's whole session goes, as a kill -9 of a terminal would
# the holder named by its lock (the line a waiter prints)
holder=$(sed -n 's/^pid \([0-9]*\) on .*/\1/p' "$W"/k/trials/*/*.lock)
t_eq "the holder is our first make's trial" "$(cat /proc/$holder/comm 2>/dev/null)" skillc-eval
[ -n "$holder" ] && kill -9 $holder
wait $second; rc=$?
wait $first 2>/dev/null
t_eq "second exit" $rc 0
t_eq "bench runs: the killed one and the waiter's own" "$(starts)" 2
t_check "second complete" grep -q '"complete": true' k2/*/traces/*/raw/test-001/trial.json
t_end
