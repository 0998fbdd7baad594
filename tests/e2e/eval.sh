#!/bin/sh
# End-to-end: evaluation trials as make targets, through a stand-in `bench`
# (tests/helpers/fake-bench.sh) that writes BenchFlow's production layout
# and logs every invocation.
. "$(dirname "$0")/../lib.sh"

t_bench_work
M=vllm/qwen-27b
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
T=$R/traces/csv-column-sum/raw

# the outcome script; a kill can leave the stand-in's line lock behind
script() { rm -rf script.n script.lock; printf '%s\n' "$@" >script; }
# bench runs so far (0 before the first: one number, never grep's 0 and a second)
starts() { cat bench.log 2>/dev/null | grep -c '^start '; }
# the most bench processes alive at once, from the start/end lines
overlap() {
	awk '$1 == "start" { print $2, 1 } $1 == "end" { print $2, -1 }' bench.log | sort -n |
		awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'
}
complete_trials() {
	n=0
	for f in "$1"/test-*/trial.json; do
		[ -f "$f" ] && grep -q '"complete": true' "$f" && n=$((n + 1))
	done
	echo $n
}

t_begin "make -j3 raw-eval REPEAT=6: six complete trials, three at a time"
script "pass sleep=1"
out=$($SK -j3 task=csv-column-sum raw-eval REPEAT=6 RUNNER=benchflow MODEL=$M 2>&1)
t_eq "exit" $? 0
t_eq "bench runs" "$(starts)" 6
t_eq "complete trials" "$(complete_trials $T)" 6
t_eq "at most and at least 3 at once" "$(overlap)" 3
t_contains "start line" "$out" "[1/6] csv-column-sum raw test-001 start: benchflow opencode $M csv-sum"
t_contains "end line" "$out" "[6/6] csv-column-sum raw test-006 passed reward=1 skill invoked in "
t_contains "trial.json" "$(cat $T/test-004/trial.json)" '"outcome": "passed"'
t_check "raw files kept" test -f $T/test-004/raw/summary.json
t_check "trajectory lifted" test -s $T/test-004/trajectory/acp_trajectory.jsonl
t_check "no temp left" sh -c "! ls -a $T | grep -q tmp"
t_end

t_begin "a second make starts nothing"
out=$($SK -j3 task=csv-column-sum raw-eval REPEAT=6 RUNNER=benchflow MODEL=$M 2>&1)
t_eq "exit" $? 0
t_eq "bench runs" "$(starts)" 6
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_end

t_begin "the command line holds no key; keys reach the runner through the environment"
args=$(grep '^start ' bench.log | head -1)
t_contains "tasks dir" "$args" "eval run --tasks-dir $W/tasks/csv-column-sum --agent opencode --model $M --sandbox docker --skill-mode with-skill --skills-dir "
t_contains "fresh jobs dir" "$args" "/.test-"
t_check "no secret on argv" sh -c "! grep -q secret-on-argv bench.log"
echo 'OPENAI_API_KEY="sk-test-0123456789"' >.env
script "pass leak=OPENAI_API_KEY"
$SK task=csv-column-sum raw-eval REPEAT=7 RUNNER=benchflow MODEL=$M >/dev/null 2>&1
t_eq "one more run" "$(starts)" 7
t_check "key visible to bench" grep -q "^env [0-9]* OPENAI_API_KEY" bench.log
t_check "key value nowhere on disk (trial folder and trial store)" sh -c "! grep -rq sk-test-0123456789 bench.log results"
t_eq "nor in a file name" "$(find results -name '*sk-test-0123456789*')" ""
t_check "the leaked file is kept, redacted" test -f $T/test-007/raw/*/*/artifacts/name-***REDACTED***
t_check "and its contents" grep -q 'key=\*\*\*REDACTED' $T/test-007/raw/*/*/artifacts/leak.txt
rm .env
t_end

t_begin "make eval writes index.json; make summary the tables"
before=$(starts)
out=$($SK task=csv-column-sum eval REPEAT=7 RUNNER=benchflow MODEL=$M 2>&1)
t_eq "exit" $? 0
t_contains "index" "$(cat $T/index.json)" '"trials": 7'
# the short csv-sum skill comes out of static compile byte-identical, so its
# static trials are the raw ones, from the store: no bench run
if [ "$(skillc-hash $R/artifacts/static/S_static | cut -d' ' -f1)" = "$(skillc-hash $R/inputs/skill | cut -d' ' -f1)" ]; then
	t_eq "static eval ran nothing" "$(starts)" "$before"
	t_contains "static reused" "$out" "static test-007 passed reward=1 skill invoked, reused from the trial store"
	t_contains "static index" "$(cat $R/traces/csv-column-sum/static/index.json)" '"trials": 7'
else
	t_fail "static compile changed the csv-sum skill; this case needs a skill it leaves alone"
fi
out=$($SK summary task=csv-column-sum REPEAT=7 RUNNER=benchflow MODEL=$M 2>&1)
t_contains "said where" "$out" "summary.{md,csv,json}"
t_contains "md row" "$(cat $R/summary.md)" "| csv-column-sum | opencode | $M | benchflow | raw | 7 | 7/7 = 100.0% [64.6%, 100.0%] |"
t_contains "csv row" "$(cat $R/summary.csv)" ",csv-column-sum,opencode,$M,benchflow,raw,7,0,7,7,1.0000,0.6457,1.0000,1.0000,1.0000,1.0000,"
t_end

t_begin "make watch: done when every due trial is, exit 2 after WATCH_TIMEOUT otherwise"
out=$($SK watch task=csv-column-sum REPEAT=7 MODEL=$M WATCH_TIMEOUT=5 2>&1)
t_eq "exit" $? 0
t_contains "counted raw and static trials" "$out" "14 of 14 due trials complete"
# a make running raw-eval: watch waits for its trials only (not the static
# ones it never starts), and says when it gives up
printf 'pass sleep=2\n' >watch-script
WR="RESULTS=watched CACHE_DIR=cache-watch"
FAKE_BENCH_LOG=$W/watch-bench.log FAKE_BENCH_SCRIPT=$W/watch-script \
	$SK task=csv-column-sum raw-eval REPEAT=2 RUNNER=benchflow MODEL=$M $WR >watch-make.out 2>&1 &
bg=$!
i=0
while [ $i -lt 600 ] && ! grep -q '^due: ' watched/*/.lock 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
out=$($SK watch task=csv-column-sum MODEL=$M $WR WATCH_TIMEOUT=1 2>&1)
t_eq "exit while it runs" $? 2
t_contains "said why" "$out" "timed out after 1s with 0 of 2 due trials complete"
out=$($SK watch task=csv-column-sum MODEL=$M $WR WATCH_TIMEOUT=120 2>&1)
t_eq "exit when done" $? 0
t_contains "the make's trials only" "$out" "2 of 2 due trials complete"
wait $bg
t_eq "the make" $? 0
t_end

t_begin "another run with the same task, skill and model reuses the stored trials"
out=$($SK -j3 task=csv-column-sum raw-eval REPEAT=6 RUNNER=benchflow MODEL=$M RESULTS=other 2>&1)
t_eq "exit" $? 0
t_eq "no bench run" "$(starts)" 7
t_contains "said so" "$out" "[3/6] csv-column-sum raw test-003 passed reward=1 skill invoked, reused from the trial store"
t_eq "complete" "$(complete_trials other/csv-column-sum--opencode--vllm_qwen-27b/traces/csv-column-sum/raw)" 6
t_contains "marked" "$(cat other/csv-column-sum--opencode--vllm_qwen-27b/traces/csv-column-sum/raw/test-001/trial.json)" '"reused": true'
t_end

t_begin "kill make in the middle: cut-short trials go to .incomplete/, only they run again"
rm -f bench.log
script "pass sleep=0.2" "pass sleep=0.2" "pass sleep=0.2" hang hang hang
K=killed/csv-column-sum--opencode--vllm_qwen-27b
setsid $SK -j3 task=csv-column-sum raw-eval REPEAT=6 RUNNER=benchflow MODEL=$M RESULTS=killed CACHE_DIR=cache2 \
	>make.out 2>&1 &
sid=$!
# the three hanging trials are at work: all six started, the first three
# published, and each of the others has written its rollout's config.json
hanging() {
	[ "$(starts)" -eq 6 ] && [ "$(complete_trials $K/traces/csv-column-sum/raw)" -eq 3 ] &&
		[ "$(find $K/traces/csv-column-sum/raw -path '*/.test-*' -name config.json | wc -l)" -eq 3 ]
}
t_poll 60 hanging || t_fail "the three hanging trials never got to work"
# SIGTERM to the whole session, as a killed terminal would send (a background
# job of sh ignores SIGINT, so Ctrl-C cannot be played here)
kill -TERM -$sid
wait $sid
i=0
while [ $i -lt 200 ] && pgrep -s $sid >/dev/null; do sleep 0.05; i=$((i + 1)); done
t_eq "nothing left running" "$(pgrep -s $sid | head -1)" ""
t_eq "bench runs before the kill" "$(starts)" 6
t_eq "finished trials kept" "$(complete_trials $K/traces/csv-column-sum/raw)" 3
t_eq "cut-short trials kept aside" "$(ls $K/.incomplete/raw | wc -l)" 3
t_contains "reason" "$(cat $K/.incomplete/raw/*/reason.txt | head -1)" "interrupted by signal 15"
script "pass"
out=$($SK -j3 task=csv-column-sum raw-eval REPEAT=6 RUNNER=benchflow MODEL=$M RESULTS=killed CACHE_DIR=cache2 2>&1)
t_eq "exit" $? 0
t_eq "only the missing three ran" "$(starts)" 9
t_eq "all complete" "$(complete_trials $K/traces/csv-column-sum/raw)" 6
t_end

t_begin "REQUIRE_SKILL=1: a trial that never invoked the skill fails and is kept aside"
script "pass skill=read"
out=$($SK task=csv-column-sum raw-eval REPEAT=1 RUNNER=benchflow MODEL=$M RESULTS=req CACHE_DIR=cache4 REQUIRE_SKILL=1 2>&1)
[ $? -ne 0 ] || t_fail "make succeeded"
t_contains "reason" "$out" "incomplete: REQUIRE_SKILL=1: our skill (csv-sum) was never invoked (only read)"
t_check "not published" test ! -e req/csv-column-sum--opencode--vllm_qwen-27b/traces/csv-column-sum/raw/test-001
t_check "kept aside" test -f req/csv-column-sum--opencode--vllm_qwen-27b/.incomplete/raw/test-001.*/trial.json
t_end

# --- skillc-eval by hand: bad input and failed trials
E="skillc-eval --task tasks/csv-column-sum --skills-root tasks/csv-column-sum/environment/skills --model $M --runner benchflow --cache $W/cache3"

t_begin "unknown harness: one line, exit 2"
out=$($E --harness nope --out x/traces/t/raw/test-001 2>&1)
t_eq "exit" $? 2
t_contains "message" "$out" "skillc-eval: unknown harness 'nope': no "
t_contains "known" "$out" "(known: claude-agent-acp codex-acp gemini opencode openhands)"
t_eq "one line" "$(printf '%s\n' "$out" | wc -l)" 1
t_end

t_begin "runner not installed: one line naming the install command or another RUNNER, exit 2"
out=$(PATH=$T_BIN:/usr/bin:/bin $E --harness opencode --out x/traces/t/raw/test-001 2>&1)
t_eq "exit" $? 2
t_contains "message" "$out" "skillc-eval: RUNNER=benchflow needs the \`bench\` command, which is not on PATH: install it with \`uv tool install --python 3.12 benchflow\`, or pick RUNNER=local"
out=$(PATH=$T_BIN:/usr/bin:/bin skillc-eval --task tasks/csv-column-sum --no-skill --model $M --runner harbor --harness opencode --out x/traces/t/raw/test-001 2>&1)
t_contains "harbor" "$out" "RUNNER=harbor needs the \`harbor\` command"
t_end

t_begin "task without tests/test.sh: one line, exit 2"
mkdir -p notask/environment && echo x >notask/instruction.md
out=$(skillc-eval --task notask --no-skill --harness opencode --model $M --runner benchflow --out x/traces/t/raw/test-001 2>&1)
t_eq "exit" $? 2
t_eq "message" "$out" "skillc-eval: task folder 'notask' has no tests/test.sh: not a Harbor/SkillsBench task (needs task.toml, instruction.md, environment/, tests/test.sh)"
t_end

t_begin "truncated result.json, a crashed runner, an empty trajectory: failed trials, exit 1"
script truncated
out=$($E --harness opencode --out x/traces/csv-column-sum/raw/test-001 2>&1)
t_eq "exit" $? 1
t_contains "reason" "$out" "'raw/"
t_contains "reason" "$out" "result.json' is not valid JSON (truncated, or still being written)"
t_check "kept" test -f x/.incomplete/raw/test-001.*/reason.txt
t_check "with the runner's exit recorded" grep -q '"exit_code": 0' x/.incomplete/raw/test-001.*/.resume.json
script crash
out=$($E --harness opencode --out x/traces/csv-column-sum/raw/test-002 2>&1)
t_eq "exit" $? 1
t_contains "reason, with the runner's last line" "$out" "the runner exited 1 and wrote no raw/ output: Traceback (most recent call last): RuntimeError: fake crash (see runner.log)"
script "pass acp=empty"
out=$($E --harness opencode --out x/traces/csv-column-sum/raw/test-003 2>&1)
t_eq "exit" $? 1
t_contains "reason" "$out" "acp_trajectory.jsonl is empty although the agent ran"
t_check "nothing published" test ! -e x/traces/csv-column-sum/raw/test-003
t_end

t_begin "BenchFlow's own retry and an agent timeout are complete trials"
script retry
$E --harness opencode --out x/traces/csv-column-sum/raw/test-004 >/dev/null 2>&1
t_eq "exit" $? 0
t_contains "retries" "$(cat x/traces/csv-column-sum/raw/test-004/trial.json)" '"retries": 1'
script "timeout reward=0.0"
out=$($E --harness opencode --out x/traces/csv-column-sum/raw/test-005 2>&1)
t_contains "timeout" "$out" "test-005 timeout reward=0 skill invoked"
t_end

t_begin "infra errors retry up to --attempts, then count as infra_error trials"
script infra
for n in 1 2; do
	$E --harness opencode --attempts 3 --out x/traces/csv-column-sum/raw/test-006 >/dev/null 2>&1
	t_eq "attempt $n fails" $? 1
done
out=$($E --harness opencode --attempts 3 --out x/traces/csv-column-sum/raw/test-006 2>&1)
t_eq "third is kept" $? 0
t_contains "outcome" "$out" "infra_error reward=-"
t_contains "the console line says why" "$out" "s: sandbox_setup: Sandbox startup failed: docker compose command failed"
skillc-summary x >/dev/null
# test-004 passed after a retry, test-005 timed out with reward 0, test-006 infra:
# 1 of 2 scored; Wilson 1/2 = .5 -+ 1.96*sqrt(.125+.2401)/2.9207 = [9.5%, 90.5%]
t_contains "excluded" "$(cat x/summary.md)" "| 3 | 1/2 = 50.0% [9.5%, 90.5%] |"
t_contains "reported" "$(cat x/summary.md)" "1 infra, 0 verifier"
t_end

t_begin "hard deadline: the runner's process group is killed, this trial's containers removed"
script hang
start=$(date +%s)
out=$(FAKE_DOCKER_LOG=$W/docker.log FAKE_DOCKER_TRIALS=$W/x/traces/csv-column-sum/raw \
	$E --harness opencode --deadline 1 --out x/traces/csv-column-sum/raw/test-007 2>&1)
t_eq "exit" $? 1
t_contains "reason" "$out" "hard deadline of 1s passed: the runner was killed"
[ $(($(date +%s) - start)) -lt 10 ] || t_fail "took too long"
t_contains "asked docker" "$(cat docker.log)" "ps -aq --no-trunc"
t_check "removed the trial's container" grep -qx "rm -f c-trial" docker.log
t_check "left the other alone" sh -c "! grep -q '^rm .*c-other' docker.log"
t_end

t_begin "a trial whose runner finished when its skillc-eval was killed is read, not run again"
# what such a kill leaves: the temp folder beside the trial folder, the runner's exit recorded
X=x/traces/csv-column-sum/raw
script pass
$E --harness opencode --out $X/test-008 >/dev/null 2>&1
t_eq "first run" $? 0
t_check "the record is not part of the trial" test ! -e $X/test-008/.resume.json
key=$("$T_ROOT/build/tests/helpers/jget" $X/test-008/trial.json key)
dead=$(sh -c 'echo $$')
leave() { # leave KEY: test-008 back as the temp folder of a killed skillc-eval, its runner done
	cp -R $X/test-008 $X/.test-008.tmp.$dead && rm -r $X/test-008 $X/.test-008.tmp.$dead/trial.json
	printf '{"key": "%s", "exit_code": 0, "seconds": 3}\n' "$1" >$X/.test-008.tmp.$dead/.resume.json
}
leave "$key"
b=$(starts)
out=$($E --harness opencode --out $X/test-008 2>&1)
t_eq "exit" $? 0
t_contains "says so" "$out" "its runner had finished when a skillc-eval was killed: the output is read, not run again"
t_contains "then the end line" "$out" "test-008 passed reward=1"
t_eq "not run again" "$(starts)" "$b"
t_check "published whole" grep -q '"complete": true' $X/test-008/trial.json
t_check "without the record" test ! -e $X/test-008/.resume.json
t_check "nothing left beside it" test ! -e $X/.test-008.tmp.$dead
leave 00000000000000000000000000000000
out=$($E --harness opencode --out $X/test-008 2>&1)
t_eq "another key's: exit" $? 0
t_contains "another key's: not read but taken from the store" "$out" "reused from the trial store"
t_check "another key's: kept aside" test -f x/.incomplete/raw/test-008.*/.resume.json
t_end


t_begin "a trial that runs long says so, at doubling gaps; a short one says nothing more"
# the first line after a tenth of the hard deadline (here 2 s of 20), then
# after 4 s and 8 s more: a 7 s agent gets two lines, not one a second
script "pass sleep=7"
out=$(skillc-eval --task tasks/csv-column-sum --skills-root tasks/csv-column-sum/environment/skills --harness opencode --model $M --runner benchflow \
	--out long/raw/test-001 --deadline 20 --no-cache 2>&1)
t_eq "exit" $? 0
t_eq "two progress lines" "$(printf '%s\n' "$out" | grep -c 'test-001 still running: ')" 2
t_contains "the first after 2 s" "$out" "test-001 still running: 2 s so far, runner.log 1 KB, the hard deadline in 18 s"
t_contains "the second 4 s later" "$out" "test-001 still running: 6 s so far"
t_contains "then the end line" "$out" "test-001 passed reward=1"
script "pass sleep=0"
out=$(skillc-eval --task tasks/csv-column-sum --skills-root tasks/csv-column-sum/environment/skills --harness opencode --model $M --runner benchflow \
	--out long/raw/test-002 --no-cache 2>&1)
t_eq "short: exit" $? 0
t_eq "short: no progress line" "$(printf '%s\n' "$out" | grep -c 'still running')" 0
t_end
