#!/bin/sh
# End-to-end: the fast stage through real make, with the stand-in bench
# (tests/helpers/fake-bench.sh, outcomes by trial number from
# FAKE_BENCH_RULES) and the loopback server (tests/helpers/fakellm) as
# AgentRM: scores and groups, the static trials it needs, a second make
# that does nothing, AgentRM down, too few traces.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE REPEAT FAST_MIN_TRACES
W=$T_TMP/work
mkdir -p "$W/fake" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
ln -s "$T_ROOT/tests/helpers/fake-docker.sh" fake/docker
PATH=$W/fake:$PATH
export PATH
export FAKE_BENCH_LOG=$W/bench.log FAKE_BENCH_RULES=$W/rules
# trial 3 loops (AgentRM likes it: 0.9), trial 5 is expensive; 2 and 4 fail
# with failing tests, 6 times out
cat >rules <<'EOF'
* => pass ; fail tests=3/5 failing=test_db_count,test_http_count failcall=2 ; pass loop=3 ; fail tests=1/5 ; pass tokens=9000 ; timeout
EOF
D=$T_TMP/rm
t_fakellm "$D" '{"health": [{"body": {"status": "ok", "device": "cuda", "max_length": 8192}}],
 "score": [{"score": 0.5}], "rules": [{"match": "(repeated)", "endpoint": "score", "score": 0.9}]}'
RM=http://127.0.0.1:$(cat "$D/port")
SK=$T_SK
SET="task=log-error-report RUNNER=benchflow MODEL=vllm/q REPEAT=3 CACHE_DIR=$W/cache"
R=results/compile-pipeline/log-error-report--opencode--vllm_q
F=$R/artifacts/fast
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
static_starts() { grep '^start ' bench.log 2>/dev/null | grep -c '/static/' ; }
rm_requests() { grep -c "\"endpoint\":\"$1\"" "$D/log.jsonl" 2>/dev/null || echo 0; }
jget() { "$T_ROOT/build/tests/helpers/jget" "$@"; }

t_begin "make eval runs REPEAT static trials; make fast-score runs the rest of FAST_MIN_TRACES"
out=$($SK -j4 $SET eval 2>&1)
t_eq "exit" $? 0
t_eq "static trials for eval" "$(static_starts)" 3
t_contains "static index" "$(cat $R/traces/log-error-report/static/index.json)" '"trials": 3'
out=$($SK -j4 $SET fast-score RM_API_URL=$RM 2>&1)
t_eq "exit" $? 0
t_eq "three more static trials" "$(static_starts)" 6
t_contains "said" "$out" "scored 6 trace(s) (0 excluded) with AgentRM; groups: contrast, 3 unit(s)"
t_eq "one health check" "$(rm_requests health)" 1
# trials 1, 4 and 5 show the same trajectory: one request answers all three
t_eq "one score request per distinct trajectory" "$(rm_requests score)" 4
t_eq "every trace scored" "$(jget $F/scores.json traces.5.agentrm.score)" 0.5
t_check "static index still 3" grep -q '"trials": 3' $R/traces/log-error-report/static/index.json
t_end

t_begin "scores: verifier class first, then AgentRM, then the pre-score; groups pair best with worst"
order=$(jget $F/groups.json order)
# passes: 3 (AgentRM 0.9) before 1 and 5 (0.5; 5 costs more tokens); failures
# by tests passed: 2 (3/5) before 4 (1/5); the timeout last
t_eq "order" "$order" '["test-003","test-001","test-005","test-002","test-004","test-006"]'
t_eq "unit 1 better" "$(jget $F/groups.json units.0.better)" test-003
t_eq "unit 1 worse" "$(jget $F/groups.json units.0.worse)" test-006
t_eq "unit 1 kind" "$(jget $F/groups.json units.0.kind)" contrast
t_eq "mode" "$(jget $F/groups.json mode)" contrast
t_eq "AgentRM score recorded" "$(jget $F/scores.json traces.0.agentrm.score)" 0.9
t_eq "not truncated" "$(jget $F/scores.json traces.0.agentrm.truncated)" false
t_eq "health recorded" "$(jget $F/scores.json agentrm.health.device)" cuda
t_eq "loops counted" "$(jget $F/scores.json traces.0.prescore.parts.repeats.count)" 2
t_eq "failed calls counted" "$(jget $F/scores.json traces.3.prescore.parts.failed_calls.count)" 2
t_eq "partial credit" "$(jget $F/scores.json traces.3.credit.value)" 0.6
t_eq "failing test named" "$(jget $F/scores.json traces.3.verifier.failing.0.name)" test_db_count
t_eq "tokens against the median" "$(jget $F/scores.json traces.2.prescore.parts.tokens.points)" -20
body=$(grep '"endpoint":"score"' "$D/log.jsonl" | head -1)
t_contains "request carries the instruction" "$body" 'Count the lines with level `ERROR`'
t_contains "and the condensed trajectory" "$body" '[1] skill completed: skill'
t_contains "and max_length" "$body" '"max_length":8192'
t_check "AgentRM usage recorded" grep -q '"provider":"agentrm"' $R/status/fast-score.usage.jsonl
t_end

t_begin "a second make starts nothing and sends nothing"
before=$(starts)
n=$(wc -l <"$D/log.jsonl")
out=$($SK -j4 $SET fast-score RM_API_URL=$RM 2>&1)
t_eq "exit" $? 0
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_eq "no bench run" "$(starts)" "$before"
t_eq "no request" "$(wc -l <"$D/log.jsonl")" "$n"
$SK $SET status GOAL=fast-score RM_API_URL=$RM >/dev/null 2>&1
t_eq "status up to date" $? 0
t_end

t_begin "without RM_API_URL the stage re-runs, on the verifier and the pre-score alone, and says so"
# the run remembers RM_API_URL: leaving it out keeps it, an empty value unsets it
out=$($SK $SET status GOAL=fast-score RM_API_URL= 2>&1)
t_contains "status names the setting" "$out" "setting changed: RM_API_URL"
out=$($SK -j4 $SET fast-score RM_API_URL= 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "without AgentRM (RM_API_URL unset)"
t_contains "note" "$(jget $F/scores.json agentrm_note)" "RM_API_URL is not set"
t_contains "pre-score orders the passes" "$(jget $F/groups.json order)" '["test-001","test-003","test-005",'
t_end

t_begin "AgentRM down: the stage fails with one line, keeps what it had; make doctor says so"
port=$(cat "$D/port")
DOWN=http://127.0.0.1:1
out=$($SK -j4 $SET fast-score RM_API_URL=$DOWN 2>&1)
[ $? -ne 0 ] || t_fail "make succeeded"
t_contains "one line" "$out" "AgentRM at RM_API_URL 'http://127.0.0.1:1' is down"
t_contains "doctor named" "$out" "; make doctor checks it"
t_contains "previous scores kept" "$(jget $F/scores.json agentrm_note)" "RM_API_URL is not set"
t_check "not marked done" test ! -e $R/status/fast-score.ok
out=$($SK doctor MODEL=vllm/q RM_API_URL=$DOWN DOCTOR_PROBE=models 2>&1)
t_contains "doctor problem" "$out" "problem RM_API_URL: AgentRM at RM_API_URL 'http://127.0.0.1:1' is down"
out=$($SK doctor MODEL=vllm/q RM_API_URL=$RM 2>&1)
t_contains "doctor ok" "$out" "ok      RM_API_URL: $RM: AgentRM answers /health"
t_end

t_begin "five complete traces when six are needed: one clear line naming the count and the way out"
cat >rules <<'EOF'
* => pass ; fail ; pass ; fail ; pass ; infra
EOF
S2="task=log-error-report RUNNER=benchflow MODEL=vllm/q REPEAT=3 CACHE_DIR=$W/cache2 RESULTS=few"
# an infra error is retried by the next two makes, then kept as an infra_error trial
$SK -j4 $S2 fast-score >/dev/null 2>&1
$SK -j4 $S2 fast-score >/dev/null 2>&1
out=$($SK -j4 $S2 fast-score 2>&1)
t_eq "exit" $? 2
t_contains "message" "$out" "fast needs 6 complete scored traces of the skill, but there are 5 (6 trials, 1 excluded as infra or verifier errors): static-eval ran 6 trials; raise REPEAT above 6"
t_end

t_begin "clean-stage STAGE=fast-score removes the scores and nothing upstream"
out=$($SK $SET clean-stage STAGE=fast-score 2>&1)
t_contains "removed" "$out" "fast-score: removed"
t_check "scores gone" test ! -e $F/scores.json
t_check "static trials kept" test -f $R/traces/log-error-report/static/test-006/trial.json
t_end

# ---------------------------------------------------------------- map, reduce, apply
# The compiler's model: map answers by unit (the worse trace names it), a
# reduce answer with every kind of patch. Units 1 and 2 take a second, unit 3
# (not JSON, twice) two seconds: the map calls overlap under -j4.
cat >rules <<'EOF2'
* => pass ; fail tests=3/5 failing=test_db_count,test_http_count failcall=2 ; pass ; fail tests=1/5 failing=test_db_count ; pass ; fail
EOF2
L=$T_TMP/llm
t_fakellm "$L" '{"chat": [{"text": "unscripted"}], "rules": [
 {"match": "Trace B (worse): test-006", "delay": 1, "json": {"findings": [{"section": "log-triage/gotchas#1", "kind": "missing", "evidence": "ls /root", "suggestion": "Say that levels are exact."}]}},
 {"match": "Trace B (worse): test-004", "delay": 1, "json": {"findings": [
   {"section": "log-triage/gotchas#1", "kind": "unclear", "evidence": "ls /root => data", "suggestion": "Name the field."},
   {"section": "nope#1", "kind": "missing", "evidence": "ls /root", "suggestion": "x"},
   {"section": "log-triage/quick-start", "kind": "wrong", "evidence": "the agent was confused", "suggestion": "y"}]}},
 {"match": "Trace B (worse): test-002", "delay": 2, "text": "I think the skill is fine."},
 {"match": "## Findings, by section and kind", "json": {"patches": [
   {"op": "add", "section": "log-triage/gotchas#1", "text": "- Count only lines whose level field is exactly `ERROR`.", "why": "units 1, 2"},
   {"op": "update", "section": "log-triage/quick-start#1", "find": "4. Check the counts by hand on one component with `grep -c`.", "text": "4. Check the counts by hand on one component with `grep -c`, then compare with the report.", "why": "u"},
   {"op": "delete", "section": "log-triage/quick-start#1", "find": "```sh\nscripts/count_levels.sh ERROR /root/app.log > /root/report.json\ncat /root/report.json\n```", "why": "shorter"},
   {"op": "update", "section": "nope#1", "text": "x", "why": "?"},
   {"op": "add", "section": "log-triage/overview#1", "text": "Start with the Gotchas.", "why": "order"},
   {"op": "add", "section": "log-triage/overview#1", "text": "One more.", "why": "surplus"}]}}]}'
cat >"$L/routes.json" <<EOF2
{"providers": {"fake": {"base_url": "$FAKELLM_URL", "key_env": null, "timeout": 20, "connect_timeout": 2,
  "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.05}}}}
EOF2
# RM_API_URL= : the run remembers the AgentRM that was down above
FS="task=log-error-report RUNNER=benchflow MODEL=vllm/q EXTERNAL_MODEL=fake/compiler ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env RM_API_URL="
M=results/compile-pipeline/log-error-report--opencode--vllm_q
MF=$M/artifacts/fast
chat() { grep -c '"endpoint":"chat"' "$L/log.jsonl" 2>/dev/null || echo 0; }
asked() { grep -c -- "$1" "$L/log.jsonl" 2>/dev/null || echo 0; }
hash_of() { skillc-hash "$1" | cut -d' ' -f1; }

t_begin "no EXTERNAL_MODEL: make fast says which stage asks it before any work; make eval needs none"
n=$(starts)
out=$($SK $SET fast 2>&1)
t_eq "exit" $? 2
t_contains "one line" "$out" "set EXTERNAL_MODEL=provider/model-id, the compiler's model: make fast runs fast-map, which asks it"
t_eq "nothing started" "$(starts)" "$n"
out=$($SK $SET eval 2>&1)
t_eq "eval exit" $? 0
t_end

t_begin "make -j4 fast-eval: static trials, scores, map calls side by side, reduce, apply, fast trials"
out=$($SK -j4 $FS CACHE_DIR=$W/cache-main fast-eval 2>&1)
t_eq "exit" $? 0
t_contains "map 1" "$out" "unit 1: ok; 1 finding(s) kept, 0 dropped"
t_contains "map 2" "$out" "unit 2: ok; 1 finding(s) kept, 2 dropped"
t_contains "map 3" "$out" "unit 3: bad_answer; 0 finding(s) kept"
t_contains "reduce" "$out" "2 finding(s) in 2 group(s), 1 call(s): 4 patch(es) kept of 6 (1 invalid, 1 over FAST_MAX_PATCHES=4)"
t_contains "apply" "$out" "log-triage: 3 patch(es) applied, 1 rolled back, 0 rejected"
t_contains "fast trials" "$out" "[3/3] log-error-report fast test-003 passed"
peak=$(grep '"endpoint":"chat"' "$L/log.jsonl" | sed -n 's/.*"in_flight":\([0-9]*\).*/\1/p' | sort -n | tail -1)
[ "${peak:-0}" -ge 2 ] || t_fail "map calls did not overlap at the server (peak in flight ${peak:-0})"
t_eq "requests: 3 maps, 1 repair, 1 reduce" "$(chat)" 5
t_check "S_fast hash" test "$(cat $MF/S_fast.hash)" = "$(hash_of $MF/S_fast)"
t_check "three fast trials" test -f $M/traces/log-error-report/fast/test-003/trial.json
t_end

t_begin "the map prompt carries the skill's sections, the instruction, the trajectory and the failing tests"
req=$(grep 'Trace B (worse): test-002' "$L/log.jsonl" | head -1)
t_contains "failing test names" "$req" "- test_db_count: AssertionError"
t_contains "second failing test" "$req" "test_http_count"
t_contains "tests counted" "$req" "tests 3 of 5 passed"
t_contains "section index" "$req" "[log-triage/gotchas#1] Gotchas"
t_contains "instruction" "$req" "Count the lines with level"
t_contains "failed tool call" "$req" "execute failed: logtriage count --level ERROR app.log => logtriage: command not found"
t_contains "typed answer asked" "$req" 'missing|wrong|unclear|unused|too_long'
t_end

t_begin "bad answers are dropped and counted; a patch that deletes a code fence is rolled back"
t_eq "map 3 status" "$(jget $MF/map/003.json status)" bad_answer
t_eq "no section dropped" "$(jget $MF/map/002.json counts.no_section)" 1
t_eq "no quote dropped" "$(jget $MF/map/002.json counts.no_quote)" 1
t_eq "invalid patch" "$(jget $MF/patches.json dropped.0.why)" "names no section of the skill"
t_eq "surplus patch" "$(jget $MF/patches.json dropped.1.why)" "more patches than FAST_MAX_PATCHES"
t_eq "fence delete rolled back" "$(jget $MF/report.json patches.2.status)" rolled_back
t_eq "by the code-block check" "$(jget $MF/report.json patches.2.guard.check)" code-block
md=$(cat $MF/report.md)
t_contains "report counts findings" "$md" "Findings: 2 kept of 4; dropped: 1 naming no section, 1 quoting nothing from the traces"
t_contains "report counts patches" "$md" "Reduce: 6 patch(es) proposed, 4 kept; dropped: 1 invalid, 0 duplicate, 1 over FAST_MAX_PATCHES."
t_contains "report row" "$md" '| 3 | delete | `log-triage/quick-start#1` | rolled_back |'
S=$MF/S_fast/log-triage/SKILL.md
t_check "fence kept" grep -q '^scripts/count_levels.sh ERROR /root/app.log > /root/report.json$' $S
t_check "add applied, joined to the list" grep -q -- '^- Count only lines whose level field is exactly `ERROR`.$' $S
t_check "update applied" grep -q 'then compare with the report.$' $S
head -5 $S >fm.fast && head -5 $M/artifacts/static/S_static/log-triage/SKILL.md >fm.static
t_check "frontmatter bytes kept" cmp fm.fast fm.static
t_check "scripts carried over" cmp $M/artifacts/static/S_static/log-triage/scripts/count_levels.sh $MF/S_fast/log-triage/scripts/count_levels.sh
t_end

t_begin "a second make starts nothing and sends no request"
n=$(chat)
b=$(starts)
out=$($SK -j4 $FS CACHE_DIR=$W/cache-main fast-eval 2>&1)
t_eq "exit" $? 0
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_eq "no request" "$(chat)" "$n"
t_eq "no trial" "$(starts)" "$b"
$SK $FS CACHE_DIR=$W/cache-main status GOAL=fast-eval >/dev/null 2>&1
t_eq "status up to date" $? 0
t_end

t_begin "kill -9 in the middle of the map calls: finished calls are not sent again, S_fast is the same bytes"
u1=$(asked 'Trace B (worse): test-006')
u3=$(asked 'Trace B (worse): test-002')
setsid $SK -j4 $FS CACHE_DIR=$W/cache-kill RESULTS=killed fast >kill.out 2>&1 &
sid=$!
K=killed/log-error-report--opencode--vllm_q/artifacts/fast
KS=killed/log-error-report--opencode--vllm_q/status
i=0
while [ $i -lt 1200 ] && ! { [ -f $KS/fast-map.001.ok ] && [ -f $KS/fast-map.002.ok ]; }; do sleep 0.05; i=$((i + 1)); done
t_check "map 3 still asking" test ! -e $K/map/003.json
# every process of that make at once, as a power cut would: no one cleans up
kill -9 $(pgrep -s $sid) 2>/dev/null
wait $sid 2>/dev/null
i=0
while [ $i -lt 200 ] && pgrep -s $sid >/dev/null; do sleep 0.05; i=$((i + 1)); done
t_eq "units 1 and 2 asked once" "$(( $(asked 'Trace B (worse): test-006') - u1 ))" 1
t_eq "unit 3 asked once before the kill" "$(( $(asked 'Trace B (worse): test-002') - u3 ))" 1
out=$($SK -j4 $FS CACHE_DIR=$W/cache-kill RESULTS=killed fast 2>&1)
t_eq "exit" $? 0
t_contains "said so" "$out" "fast-map.003: the previous run was cut short"
case $out in *"fast-map.001: started"*) t_fail "finished map 1 ran again" ;; esac
t_eq "units 1 and 2 not sent again" "$(( $(asked 'Trace B (worse): test-006') - u1 ))" 1
t_eq "unit 3 sent again (and its repair)" "$(( $(asked 'Trace B (worse): test-002') - u3 ))" 3
t_eq "reduce asked once" "$(grep -c 'Findings, by section and kind' "$L/log.jsonl")" 2
t_eq "S_fast byte-identical" "$(hash_of $K/S_fast)" "$(hash_of $MF/S_fast)"
t_check "report identical" cmp $K/report.json $MF/report.json
t_end

t_begin "skillc-fast by hand on the run's traces: the same S_fast; a second run reuses everything"
n=$(chat)
export ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache-main
out=$(skillc-fast --traces $M/traces/log-error-report/static --skill $M/artifacts/static/S_static/log-triage \
	--model fake/compiler --task tasks/log-error-report --profile $M/artifacts/static/profile.json --output by-hand --max-parallel 3 2>&1)
t_eq "exit" $? 0
t_contains "said where" "$out" "S_fast: by-hand/S_fast/log-triage"
t_eq "same S_fast" "$(hash_of by-hand/S_fast/)" "$(hash_of $MF/S_fast)"
t_eq "answers from the cache" "$(chat)" "$n"
out=$(skillc-fast --traces $M/traces/log-error-report/static --skill $M/artifacts/static/S_static/log-triage \
	--model fake/compiler --task tasks/log-error-report --profile $M/artifacts/static/profile.json --output by-hand 2>&1)
t_contains "up to date" "$out" "by-hand: up to date"
t_hold_lock by-hand/.run 3
out=$(skillc-fast --traces $M/traces/log-error-report/static --skill $M/artifacts/static/S_static/log-triage \
	--model fake/compiler --task tasks/log-error-report --profile $M/artifacts/static/profile.json --output by-hand 2>&1)
t_eq "a run another make holds: make's 2, not 1" $? 2
t_contains "busy" "$out" "is busy"
wait $t_holder
rm by-hand/.run/artifacts/fast/report.md
out=$(skillc-fast --traces $M/traces/log-error-report/static --skill $M/artifacts/static/S_static/log-triage \
	--model fake/compiler --task tasks/log-error-report --profile $M/artifacts/static/profile.json --output by-hand 2>&1)
case $out in *"up to date"*) t_fail "a missing artifact was taken for done" ;; esac
t_check "report back" test -f by-hand/report.md
out=$(skillc-fast --traces $M/traces/log-error-report/static --skill $M/artifacts/static/S_static/log-triage \
	--model fake/compiler --task tasks/log-error-report --profile $M/artifacts/static/profile.json --output by-hand --force 2>&1)
t_eq "--force asks again" "$(( $(chat) - n ))" 5
# a folder of BenchFlow runs (no trial.json): the runner's own files
mkdir bf && for t in $M/traces/log-error-report/static/test-*; do cp -R $t/raw bf/$(basename $t); done
out=$(skillc-fast --traces bf --skill $M/artifacts/static/S_static --model fake/compiler --task tasks/log-error-report \
	--profile $M/artifacts/static/profile.json --output from-bf 2>&1)
t_eq "BenchFlow folder exit" $? 0
t_eq "same groups" "$(jget from-bf/groups.json order)" "$(jget $MF/groups.json order)"
t_eq "same S_fast from BenchFlow runs" "$(hash_of from-bf/S_fast/)" "$(hash_of $MF/S_fast)"
unset ROUTES ENV_FILE CACHE_DIR
t_end

t_begin "kill -9 of the standalone front mid-map: rerun resumes, no model call paid twice"
export ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache-front
u1=$(asked 'Trace B (worse): test-006')
u3=$(asked 'Trace B (worse): test-002')
front() {
	skillc-fast --traces $M/traces/log-error-report/static --skill $M/artifacts/static/S_static/log-triage \
		--model fake/compiler --task tasks/log-error-report --profile $M/artifacts/static/profile.json \
		--output front-kill --max-parallel 3
}
setsid sh -c "$(command -v skillc-fast) --traces $M/traces/log-error-report/static \
	--skill $M/artifacts/static/S_static/log-triage --model fake/compiler --task tasks/log-error-report \
	--profile $M/artifacts/static/profile.json --output front-kill --max-parallel 3" >front-kill.out 2>&1 &
sid=$!
FK=front-kill/.run/status
i=0
while [ $i -lt 1200 ] && ! { [ -f $FK/fast-map.001.ok ] && [ -f $FK/fast-map.002.ok ]; }; do sleep 0.05; i=$((i + 1)); done
t_check "map 3 still asking" test ! -e front-kill/.run/artifacts/fast/map/003.json
# the front, its make and every stage at once
kill -9 $(pgrep -s $sid) 2>/dev/null
wait $sid 2>/dev/null
i=0
while [ $i -lt 200 ] && pgrep -s $sid >/dev/null; do sleep 0.05; i=$((i + 1)); done
t_eq "units 1 and 2 asked once" "$(( $(asked 'Trace B (worse): test-006') - u1 ))" 1
out=$(front 2>&1)
t_eq "rerun exit" $? 0
t_contains "said where" "$out" "S_fast: front-kill/S_fast/log-triage"
t_eq "units 1 and 2 not sent again" "$(( $(asked 'Trace B (worse): test-006') - u1 ))" 1
t_eq "unit 3 sent again (and its repair)" "$(( $(asked 'Trace B (worse): test-002') - u3 ))" 3
t_eq "same S_fast" "$(hash_of front-kill/S_fast/)" "$(hash_of $MF/S_fast)"
n=$(chat)
out=$(front 2>&1)
t_contains "then up to date" "$out" "front-kill: up to date"
t_eq "nothing asked" "$(chat)" "$n"
unset ROUTES ENV_FILE CACHE_DIR
t_end

t_begin "a reduce answer with 12 patches: at most FAST_MAX_PATCHES kept, the rest counted"
L2=$T_TMP/llm2
P12=$(i=1; sep=; printf '['; while [ $i -le 12 ]; do printf '%s{"op": "add", "section": "log-triage/overview#1", "text": "Note %s.", "why": "n"}' "$sep" $i; sep=', '; i=$((i + 1)); done; printf ']')
t_fakellm "$L2" "{\"chat\": [{\"json\": {\"findings\": [{\"section\": \"log-triage/gotchas#1\", \"kind\": \"missing\", \"evidence\": \"ls /root\", \"suggestion\": \"s\"}]}}],
 \"rules\": [{\"match\": \"Findings, by section and kind\", \"json\": {\"patches\": $P12}}]}"
cat >"$L2/routes.json" <<EOF2
{"providers": {"fake": {"base_url": "$FAKELLM_URL", "key_env": null, "timeout": 20, "connect_timeout": 2}}}
EOF2
out=$(ROUTES=$L2/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache12 skillc-fast --traces $M/traces/log-error-report/static \
	--skill $M/artifacts/static/S_static --model fake/compiler --output twelve 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "4 patch(es) kept of 12 (0 invalid, 8 over FAST_MAX_PATCHES=4)"
t_eq "over limit counted" "$(jget twelve/reduce.json counts.over_limit)" 8
t_eq "applied" "$(jget twelve/report.json counts.applied)" 4
t_check "note 5 not applied" sh -c "! grep -q 'Note 5' twelve/S_fast/log-triage/SKILL.md"
t_end

t_begin "clean-stage STAGE=fast removes the whole fast stage and what follows, nothing before it"
out=$($SK $FS CACHE_DIR=$W/cache-main clean-stage STAGE=fast 2>&1)
t_contains "scores" "$out" "fast-score: removed"
t_contains "trials" "$out" "fast-eval.002: removed"
t_check "S_fast gone" test ! -e $MF/S_fast
t_check "static kept" test -f $M/artifacts/static/S_static.hash
t_check "static trials kept" test -f $M/traces/log-error-report/static/test-006/trial.json
n=$(chat)
out=$($SK -j4 $FS CACHE_DIR=$W/cache-main fast 2>&1)
t_eq "make fast again" $? 0
t_eq "nothing asked again (cache)" "$(chat)" "$n"
t_end
