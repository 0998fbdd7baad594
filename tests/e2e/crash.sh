#!/bin/sh
# End-to-end: a make killed with SIGKILL mid-stage, then run again, ends in
# the state of an uninterrupted run; a second make on a busy run fails at
# once naming the holder while the first finishes. The skill holds a large
# file so ingest takes long enough to be caught in the middle; each catch is
# checked (the session is frozen before it is judged and killed) and tried
# again until one lands, so a fast machine cannot slip through.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W/tasks" "$W/fake" && cp -R "$T_ROOT/tasks/csv-column-sum" "$W/tasks/" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
SK=$T_SK
SKILL=tasks/csv-column-sum/environment/skills/csv-sum
head -c 150000000 /dev/zero | tr '\0' 'a' > "$SKILL/assets.bin" 2>/dev/null || head -c 150000000 /dev/zero > "$SKILL/assets.bin"
export MAX_FILE_MB=200

# the reference: an uninterrupted run in its own results folder
$SK task=csv-column-sum ingest RESULTS=ref >/dev/null 2>&1
REF=ref/csv-column-sum--opencode--no-model
R=results/compile-pipeline/csv-column-sum--opencode--no-model

# SIGKILL everything of the session, again until nothing is left (a
# process forked while pkill walks the list would escape one pass)
kill_all() {
	while pkill -9 -s "$1" 2>/dev/null; do sleep 0.01; done
}

# wait (up to 20 s) until the run's ingest is recorded as running
wait_running() {
	i=0
	while [ $i -lt 2000 ]; do
		grep -q '"state": "running"' "$1/status/ingest.json" 2>/dev/null && return 0
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

# freeze SID, then say whether ingest is still mid-work: recorded running
# and not marked done. Stopped, nothing can finish before the kill lands.
caught_mid_ingest() {
	pkill -STOP -s "$1" 2>/dev/null
	grep -q '"state": "running"' $R/status/ingest.json 2>/dev/null && [ ! -e $R/status/ingest.ok ]
}

t_begin "kill -9 of the whole make mid-stage, then make: same state as an uninterrupted run"
caught=0 tries=0
# the kill at five points of the stage, then at its start until one landed
for delay in 0 0.02 0.05 0.1 0.15 $(seq 20 | sed 's/.*/0/'); do
	[ $tries -lt 5 ] || [ $caught -eq 0 ] || break
	tries=$((tries + 1))
	rm -rf results
	setsid $SK task=csv-column-sum ingest >/dev/null 2>&1 &
	sid=$!
	if wait_running $R; then
		sleep $delay
		caught_mid_ingest $sid && caught=$((caught + 1))
		kill_all $sid
	fi
	wait $sid 2>/dev/null
	# after the crash nothing may pass for done unless it is whole
	if [ -e $R/status/ingest.ok ]; then
		[ "$(cat $R/inputs/skill.hash)" = "$(cat $REF/inputs/skill.hash)" ] || t_fail "a stamp survived a partial ingest (delay $delay)"
	fi
	out=$($SK task=csv-column-sum ingest 2>&1)
	[ $? -eq 0 ] || t_fail "make after the crash failed: $out"
	[ "$(cat $R/inputs/skill.hash)" = "$(cat $REF/inputs/skill.hash)" ] || t_fail "skill.hash differs after resume (delay $delay)"
	[ "$(skillc-hash $R/inputs/skill | cut -d' ' -f1)" = "$(skillc-hash $REF/inputs/skill | cut -d' ' -f1)" ] ||
		t_fail "inputs/skill differs after resume (delay $delay)"
	grep -q '"state": "done"' $R/status/ingest.json || t_fail "status not done after resume"
	left=$(find $R -name '.*.tmp.*' -not -path '*/.incomplete/*' | head -1)
	[ -z "$left" ] || ls -la "$(dirname "$left")" >&2
	[ -z "$left" ] || t_fail "temp file outside .incomplete/: $left"
	$SK task=csv-column-sum status GOAL=ingest >/dev/null 2>&1 || t_fail "status not up to date after resume"
done
[ $caught -ge 1 ] || t_fail "no kill landed while ingest was running in $tries tries"
t_end

t_begin "the cut-short output goes to .incomplete/ or is gone, never reused"
# one more crash that lands mid-ingest (tried until one does), then the sweep
caught=0 tries=0
while [ $caught -eq 0 ] && [ $tries -lt 20 ]; do
	tries=$((tries + 1))
	rm -rf results
	setsid $SK task=csv-column-sum ingest >/dev/null 2>&1 &
	sid=$!
	wait_running $R && caught_mid_ingest $sid && caught=1
	kill_all $sid
	wait $sid 2>/dev/null
done
[ $caught -eq 1 ] || t_fail "no kill landed while ingest was running in $tries tries"
leftover=$(find $R/inputs -maxdepth 1 -name '.*.tmp.*' | head -1)
out=$($SK task=csv-column-sum ingest 2>&1)
if [ -n "$leftover" ]; then
	t_contains "sweep said so" "$out" "moved leftover"
	t_check ".incomplete holds it" test -n "$(ls -A $R/.incomplete/ingest 2>/dev/null)"
fi
t_contains "a cut-short run is named" "$out" "was cut short"
t_end

t_begin "a second make on a busy run fails at once naming the holder; the first finishes"
# the first make's trial works until the test lets it go: the run is busy
# for exactly as long as this case needs
M=vllm/qwen-27b
RB=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
BUSY="$SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=$M"
printf 'pass sleep=0 wait=%s\n' "$W/release" >script
export FAKE_BENCH_SCRIPT=$W/script FAKE_BENCH_LOG=$W/bench.log
started() { grep -q '^start ' bench.log; }
PATH=$W/fake:$PATH $BUSY >first.out 2>&1 &
first=$!
t_poll 60 started || t_fail "the first make never started its trial"
start=$(date +%s)
out=$(PATH=$W/fake:$PATH $BUSY 2>&1)
rc=$?
touch release
t_eq "second exit" $rc 2
t_contains "names the holder" "$out" "is busy: locked by pid"
t_contains "names the command" "$out" "(make task=csv-column-sum "
t_contains "and its goal" "$out" " raw-eval)"
[ $(( $(date +%s) - start )) -le 5 ] || t_fail "the second make waited"
wait $first
t_eq "first exit" $? 0
t_check "first finished" grep -q '"state": "done"' $RB/status/raw-eval.001.json
PATH=$W/fake:$PATH $SK task=csv-column-sum status GOAL=raw-eval REPEAT=1 RUNNER=benchflow MODEL=$M >/dev/null 2>&1
t_eq "up to date" $? 0
unset FAKE_BENCH_SCRIPT FAKE_BENCH_LOG
t_end

t_begin "the lock taker killed -9 while its children work: the message says so and names them"
L=$T_TMP/lockrun
skillc-stage lock $L --what 'test' -- sh -c 'sleep 30 & echo $! >"$0/child"; wait' "$T_TMP" &
taker=$!
i=0; while [ ! -s "$T_TMP/child" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
child=$(cat "$T_TMP/child")
kill -9 $taker
wait $taker 2>/dev/null
out=$(skillc-stage lock $L -- true 2>&1); rc=$?
t_eq "exit" $rc 2
t_contains "the taker is gone" "$out" "(test); that process is gone (killed?), but processes it started still hold the lock:"
t_contains "names the child" "$out" " $child"
kill $child 2>/dev/null
t_end

t_begin "Ctrl-C mid-stage: the stage is recorded interrupted, nothing counts as done, make resumes"
rm -rf results
# a background job of sh starts with SIGINT ignored; give make the default
# disposition, as a terminal would
setsid env --default-signal=INT $SK task=csv-column-sum ingest >int.out 2>&1 &
sid=$!
wait_running $R || t_fail "ingest never started"
/bin/kill -s INT -- -$sid || t_fail "could not signal the make"
wait $sid
rc=$?
t_poll 20 sh -c "! pgrep -s $sid" || t_fail "processes left in the session: $(pgrep -s $sid | head -3 | tr '\n' ' ')"
if grep -q '"state": "done"' $R/status/ingest.json; then
	: # the stage finished before the signal arrived: then it must be whole
	[ "$(cat $R/inputs/skill.hash)" = "$(cat $REF/inputs/skill.hash)" ] || t_fail "done but not whole"
else
	[ $rc -ne 0 ] || t_fail "make exited 0 after Ctrl-C"
	t_check "not marked done" test ! -e $R/status/ingest.ok
	t_contains "recorded" "$(cat $R/status/ingest.json)" '"state": "interrupted"'
fi
out=$($SK task=csv-column-sum ingest 2>&1)
t_eq "resume exit" $? 0
t_eq "resumed whole" "$(cat $R/inputs/skill.hash)" "$(cat $REF/inputs/skill.hash)"
t_end
