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
# the kill -9 races run 20 rounds; under SANITIZE 5, whose paths are the
# same and whose every make costs several times more (docs/testing.md)
ROUNDS=20
[ -z "${SANITIZE:-}" ] || ROUNDS=5
# whether a runner's mark (.resume.json) holds its exit status: the shell's
# own read, so the polling loops below start no process but sleep
has_exit() {
	for f in "$@"; do
		[ -f "$f" ] || continue
		while IFS= read -r l || [ -n "$l" ]; do
			case $l in *exit_code*) return 0 ;; esac
		done <"$f"
	done
	return 1
}
# whether any of the paths (a glob's words) exists, without ls
any_exists() {
	for f in "$@"; do [ -e "$f" ] && return 0; done
	return 1
}

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
# every agent works until release exists (wait=, at most 120 s): the holder
# until it is killed, however long the second make takes to get there on a
# busy machine (the script is not changed under a bench that may not have
# read it yet)
rm -f "$W/release"
printf 'pass sleep=0 wait=%s\n' "$W/release" >script
$SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/c-d RESULTS=k1 CACHE_DIR=$W/k >k1.out 2>&1 &
first=$!
t_poll 100 sh -c '[ "$(grep -c "^start " bench.log 2>/dev/null)" -ge 1 ]'
$SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/c-d RESULTS=k2 CACHE_DIR=$W/k >k2.out 2>&1 &
second=$!
t_check "the second waits" t_poll 100 grep -q 'waiting: the same trial' k2.out
# the first make's whole session goes, as a kill -9 of a terminal would
# the holder named by its lock (the line a waiter prints)
holder=$(sed -n 's/^pid \([0-9]*\) on .*/\1/p' "$W"/k/trials/*/*.lock)
t_eq "the holder is our first make's trial" "$(cat /proc/$holder/comm 2>/dev/null)" skillc-eval
[ -n "$holder" ] && kill -9 $holder
touch "$W/release"
wait $second; rc=$?
wait $first 2>/dev/null
t_eq "second exit" $rc 0
t_eq "bench runs: the killed one and the waiter's own" "$(starts)" 2
t_check "second complete" grep -q '"complete": true' k2/*/traces/*/raw/test-001/trial.json
t_end

t_begin "skillc-eval killed after its runner finished: the next make reads what the runner left, bench runs no more"
# the agent's last message is large, so reading the run takes a moment: the
# session is frozen as soon as the runner is recorded done (.resume.json
# gets its exit status), and killed;
# tried again until a freeze lands before the trial is published
head -c 30000000 /dev/zero | tr '\0' 'a' >big.msg
export FAKE_BENCH_MESSAGE=$W/big.msg
echo "pass sleep=0" >script
RK=rk/csv-column-sum--opencode--vllm_e-f
T1=$RK/traces/csv-column-sum/raw/test-001
caught=0 tries=0
while [ $caught -eq 0 ] && [ $tries -lt 20 ]; do
	tries=$((tries + 1))
	rm -rf rk "$W/rkc" bench.log
	setsid $SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/e-f RESULTS=rk CACHE_DIR=$W/rkc >rk.out 2>&1 &
	sid=$!
	i=0
	while [ $i -lt 6000 ] && ! has_exit $RK/traces/csv-column-sum/raw/.test-001.tmp.*/.resume.json; do
		kill -0 $sid 2>/dev/null || break
		sleep 0.005
		i=$((i + 1))
	done
	pkill -STOP -s $sid 2>/dev/null
	[ ! -e $T1/trial.json ] && [ -z "$(find "$W/rkc/trials" -name trial.json -not -path '*.tmp.*' 2>/dev/null)" ] &&
		has_exit $RK/traces/csv-column-sum/raw/.test-001.tmp.*/.resume.json && caught=1
	while pkill -9 -s $sid 2>/dev/null; do sleep 0.01; done
	wait $sid 2>/dev/null
done
t_eq "a freeze landed between the runner's end and the filing (in $tries tries)" $caught 1
# what the killed one may have been writing: never published
sh -c 'exit 0' & dead=$!
wait $dead
for d in $RK/traces/csv-column-sum/raw/.test-001.tmp.*/; do echo partial >"$d/.trial.json.tmp.$dead.0"; done
before=$(starts)
# another run sharing the store comes later (it never waited): it takes the
# output over from the lock's last holder, and files it
out=$($SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/e-f RESULTS=rk3 CACHE_DIR=$W/rkc 2>&1)
t_eq "a later run sharing the store: exit" $? 0
t_contains "a later run takes the output over" "$out" "was killed after its runner finished: its output in"
t_eq "a later run: bench runs no more" "$(starts)" "$before"
t_check "a later run: complete" grep -q '"complete": true' rk3/*/traces/csv-column-sum/raw/test-001/trial.json
out=$($SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/e-f RESULTS=rk CACHE_DIR=$W/rkc 2>&1)
t_eq "resume exit" $? 0
t_contains "says so" "$out" "its runner had finished when a skillc-eval was killed: the output is read, not run again"
t_eq "bench runs: only the first" "$(starts)" "$before"
t_eq "bench run once" "$before" 1
t_check "complete" grep -q '"complete": true' $T1/trial.json
t_check "filed in the store" test -n "$(find $W/rkc/trials -name '*.sum')"
t_eq "no temp left, none published" "$(find $RK -name '.*.tmp.*' -not -path '*/.incomplete/*' | wc -l)" 0
unset FAKE_BENCH_MESSAGE
t_end

t_begin "the runner killed with its result complete (it had not exited yet): the next make reads it, bench runs no more"
# a bench that writes the whole result, then lingers until it is killed
mkdir -p "$W/slow"
cat >"$W/slow/bench" <<SH
#!/bin/sh
sh "$T_ROOT/tests/helpers/fake-bench.sh" "\$@"
: >"$W/bench-done"
sleep 60
SH
chmod +x "$W/slow/bench"
rm -f bench.log "$W/bench-done" script.n
echo "pass sleep=0" >script
RL=rl/csv-column-sum--opencode--vllm_g-h
setsid env PATH="$W/slow:$PATH" $SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/g-h RESULTS=rl CACHE_DIR=$W/rlc >rl.out 2>&1 &
sid=$!
t_poll 60 test -e "$W/bench-done" || t_fail "the bench never finished writing"
while pkill -9 -s $sid 2>/dev/null; do sleep 0.01; done
wait $sid 2>/dev/null
out=$($SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/g-h RESULTS=rl CACHE_DIR=$W/rlc 2>&1)
t_eq "resume exit" $? 0
t_contains "says so" "$out" "its runner had written a complete result when a skillc-eval was killed"
t_eq "bench runs: the first only" "$(starts)" 1
t_check "complete" grep -q '"complete": true' $RL/traces/csv-column-sum/raw/test-001/trial.json
t_end

t_begin "two runs sharing the store, the first killed -9 as its trial is published, $ROUNDS times: never more bench runs than keys"
# the second run waits on the key; the first is frozen and killed the moment
# its trial.json is published, and the second must find the trial in the
# store, not run it again. The runs live on a tmpfs and the store on disk,
# with a large agent message: filing copies (no hard links across
# filesystems) and syncs it, which takes a moment, as a real trajectory does
export FAKE_BENCH_MESSAGE=$W/big.msg
head -c 8000000 /dev/zero | tr '\0' 'a' >big.msg
SHM=$(mktemp -d /dev/shm/skillc-payonce.XXXXXX) || SHM=$W/shm
t_rm_shm() { rm -rf "$SHM"; }
T_AT_EXIT="$T_AT_EXIT t_rm_shm"
rm -f bench.log
kills=0 i=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	rm -f "$W/go"
	printf 'pass sleep=0 wait=%s\n' "$W/go" >script
	before=$(starts)
	P1=$SHM/p1/csv-column-sum--opencode--vllm_p-$i/traces/csv-column-sum/raw/test-001
	setsid $SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/p-$i RESULTS=$SHM/p1 CACHE_DIR=$W/pc >p1.out 2>&1 &
	sid=$!
	t_poll 100 sh -c "[ \"\$(grep -c '^start ' bench.log 2>/dev/null)\" -gt $before ]"
	$SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/p-$i RESULTS=$SHM/p2 CACHE_DIR=$W/pc >p2.out 2>&1 &
	second=$!
	t_poll 100 grep -q 'waiting: the same trial' p2.out || t_fail "run $i: the second run did not wait"
	touch "$W/go"
	j=0 # at most 100000 sleeps of 2 ms or more: 300 s and longer
	while [ ! -e $P1/trial.json ] && kill -0 $sid 2>/dev/null && [ $j -lt 100000 ]; do
		sleep 0.002
		j=$((j + 1))
	done
	pkill -STOP -s $sid 2>/dev/null
	[ -e $P1/trial.json ] && kills=$((kills + 1))
	while pkill -9 -s $sid 2>/dev/null; do sleep 0.01; done
	wait $sid 2>/dev/null
	wait $second || t_fail "run $i: the second make failed: $(tail -n 3 p2.out)"
	[ "$(starts)" -eq $((before + 1)) ] || t_fail "run $i: $(($(starts) - before)) bench runs for one key"
	# what the runs hold is counted, then freed (the tmpfs is memory)
	keys $SHM/p1 $SHM/p2 >>keys.txt
	rm -rf "$SHM/p1" "$SHM/p2" "$W/pc"
done
t_eq "kills that landed after publishing" $kills $ROUNDS
t_eq "bench runs = keys" "$(starts)" "$(awk '{ n += $1 } END { print n }' keys.txt)"
t_eq "bench runs" "$(starts)" $ROUNDS
unset FAKE_BENCH_MESSAGE
t_end

t_begin "two runs sharing the store, the holder killed -9 after its runner ended but before filing, $ROUNDS times: the waiter takes its output over"
# the window the case above leaves: the holder's runner has ended (its mark
# holds the exit status) and the trial is not in the store yet. The waiter
# finds the holder gone, nothing in the store, and the output the holder's
# runner left beside its trial folder: it takes it over instead of paying
# for the trial again. A freeze that lands after the filing still counts
# toward "never more runs than keys", but not toward the ROUNDS.
head -c 30000000 /dev/zero | tr '\0' 'a' >big.msg
export FAKE_BENCH_MESSAGE=$W/big.msg
rm -f bench.log keys.txt
kills=0 tries=0
while [ $kills -lt $ROUNDS ] && [ $tries -lt $((2 * ROUNDS)) ]; do
	tries=$((tries + 1))
	rm -f "$W/go"
	printf 'pass sleep=0 wait=%s\n' "$W/go" >script
	before=$(starts)
	Q1=$SHM/q1/csv-column-sum--opencode--vllm_q-$tries/traces/csv-column-sum/raw
	setsid $SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/q-$tries RESULTS=$SHM/q1 CACHE_DIR=$W/qc >q1.out 2>&1 &
	sid=$!
	t_poll 100 sh -c "[ \"\$(grep -c '^start ' bench.log 2>/dev/null)\" -gt $before ]"
	$SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/q-$tries RESULTS=$SHM/q2 CACHE_DIR=$W/qc >q2.out 2>&1 &
	second=$!
	t_poll 100 grep -q 'waiting: the same trial' q2.out || t_fail "try $tries: the second run did not wait"
	touch "$W/go"
	i=0
	while [ $i -lt 30000 ] && ! has_exit $Q1/.test-001.tmp.*/.resume.json; do
		kill -0 $sid 2>/dev/null || break
		sleep 0.005
		i=$((i + 1))
	done
	pkill -STOP -s $sid 2>/dev/null
	landed=0
	if [ -z "$(find "$W/qc/trials" -name trial.json -not -path '*.tmp.*' 2>/dev/null)" ] &&
		has_exit $Q1/.test-001.tmp.*/.resume.json; then
		landed=1 kills=$((kills + 1))
	fi
	while pkill -9 -s $sid 2>/dev/null; do sleep 0.01; done
	wait $sid 2>/dev/null
	wait $second || t_fail "try $tries: the second make failed: $(tail -n 3 q2.out)"
	if [ "$(starts)" -ne $((before + 1)) ] || { [ $landed = 1 ] && ! grep -q 'its output in .* is taken over' q2.out; }; then
		t_fail "try $tries (killed before filing: $landed): $(($(starts) - before)) bench runs for one key: $(tail -n 4 q2.out | tr '\n' ' ')"
	fi
	t_check "try $tries: the second run's trial is complete" grep -q '"complete": true' $SHM/q2/*/traces/*/raw/test-001/trial.json
	keys $SHM/q1 $SHM/q2 >>keys.txt
	rm -rf "$SHM/q1" "$SHM/q2" "$W/qc"
done
runs=$(starts) nkeys=$(awk '{ n += $1 } END { print n }' keys.txt)
# the figures, on the case's own line
t_name="$t_name: never more finished bench runs than trial keys ($runs bench runs for $nkeys keys, $kills kills before filing in $tries tries)"
t_eq "kills that landed after the runner ended and before filing" $kills $ROUNDS
t_eq "bench runs = keys" "$runs" "$nkeys"
unset FAKE_BENCH_MESSAGE
t_end

t_begin "skillc-eval killed -9 while it files its finished trial in the store: the next make files it, bench runs no more"
# the trial folder holds its complete trial.json and is being copied into
# the store (runs on a tmpfs, the store on disk: a copy, with a large agent
# message); the runner's mark must still be in the folder then, or the next
# make sets the folder aside and pays for the trial again
head -c 30000000 /dev/zero | tr '\0' 'a' >big.msg
export FAKE_BENCH_MESSAGE=$W/big.msg
echo "pass sleep=0" >script
rm -f bench.log
caught=0 tries=0
while [ $caught -eq 0 ] && [ $tries -lt 20 ]; do
	tries=$((tries + 1))
	rm -rf "$SHM/f1" "$W/fc"
	F1=$SHM/f1/csv-column-sum--opencode--vllm_f-$tries/traces/csv-column-sum/raw
	setsid $SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/f-$tries RESULTS=$SHM/f1 CACHE_DIR=$W/fc >f1.out 2>&1 &
	sid=$!
	i=0
	while [ $i -lt 30000 ] && ! any_exists $F1/.test-001.tmp.*/trial.json; do
		kill -0 $sid 2>/dev/null || break
		sleep 0.002
		i=$((i + 1))
	done
	session_freeze $sid
	any_exists $F1/.test-001.tmp.*/trial.json && [ ! -e $F1/test-001 ] &&
		[ -z "$(find "$W/fc/trials" -name trial.json -not -path '*.tmp.*' 2>/dev/null)" ] && caught=1
	session_kill $sid
	wait $sid 2>/dev/null
done
t_eq "a freeze landed while the finished trial was being filed (in $tries tries)" $caught 1
before=$(starts)
out=$($SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=vllm/f-$tries RESULTS=$SHM/f1 CACHE_DIR=$W/fc 2>&1)
t_eq "resume exit" $? 0
t_contains "says so" "$out" "its runner had finished when a skillc-eval was killed: the output is read, not run again"
t_eq "bench runs no more" "$(starts)" "$before"
t_check "complete" grep -q '"complete": true' $F1/test-001/trial.json
t_check "filed in the store" test -n "$(find $W/fc/trials -name '*.sum')"
t_eq "the runner's mark is in neither the trial nor the store" \
	"$(find $F1/test-001 $W/fc/trials -name .resume.json -not -path '*.tmp.*' | wc -l)" 0
rm -rf "$SHM/f1" "$W/fc"
unset FAKE_BENCH_MESSAGE
t_end
