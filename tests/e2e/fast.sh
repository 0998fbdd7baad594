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
SK="make --no-print-directory -f $T_ROOT/mk/skillc.mk"
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
out=$($SK $SET status GOAL=fast-score 2>&1)
t_contains "status names the setting" "$out" "setting changed: RM_API_URL"
out=$($SK -j4 $SET fast-score 2>&1)
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
t_contains "previous scores kept" "$(jget $F/scores.json agentrm_note)" "RM_API_URL is not set"
t_check "not marked done" test ! -e $R/status/fast-score.ok
out=$($SK doctor MODEL=vllm/q RM_API_URL=$DOWN DOCTOR_PROBE=models 2>&1)
t_contains "doctor problem" "$out" "problem RM_API_URL: AgentRM at RM_API_URL 'http://127.0.0.1:1' is down"
out=$($SK doctor MODEL=vllm/q RM_API_URL=$RM 2>&1)
t_contains "doctor ok" "$out" "ok      RM_API_URL: $RM: AgentRM status ok, device cuda, max_length 8192"
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
