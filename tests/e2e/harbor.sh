#!/bin/sh
# End-to-end: Harbor both ways. RUNNER=harbor runs our trials through a
# stand-in `harbor` (tests/helpers/fake-harbor.sh, Harbor 0.20's layout), and
# skillc-summary / make summary import Harbor job folders that Harbor wrote
# elsewhere (our own fixtures in tests/fixtures/harbor-jobs: a finished
# 2 x 2 matrix, a registry dataset and model with '/' in their names and
# integer rewards, a Harbor <= 0.3 job, a job still running) into the same
# table: pass@1 by bench x agent x model, md/csv/json.
. "$(dirname "$0")/../lib.sh"

if ! command -v jq >/dev/null 2>&1; then
	t_skip "Harbor jobs" "no jq (apt-get install -y jq), which the stand-in harbor needs"
	exit 0
fi
W=$T_TMP/work
mkdir -p "$W/fake" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-harbor.sh" fake/harbor
ln -s "$T_ROOT/tests/helpers/fake-docker.sh" fake/docker
PATH=$W/fake:$PATH
export PATH FAKE_HARBOR_LOG=$W/harbor.log FAKE_HARBOR_SCRIPT=$W/script
SK="$T_SK task=csv-column-sum RUNNER=harbor MODEL=vllm/qwen-27b"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
T=$R/traces/csv-column-sum/raw
script() { rm -f script.n; printf '%s\n' "$@" >script; }
starts() { grep -c '^start ' harbor.log 2>/dev/null || echo 0; }
cp -R "$T_ROOT/tests/fixtures/harbor-jobs" jobs
JOBS=jobs

t_begin "RUNNER=harbor: each trial is one 'harbor run -c' job; skillc reads Harbor's trial folder"
script pass pass fail
out=$($SK -j2 raw-eval REPEAT=3 2>&1)
t_eq "exit" $? 0
t_eq "harbor runs" "$(starts)" 3
for n in 001 002 003; do
	t_contains "trial $n read as Harbor's" "$(cat $T/test-$n/trial.json)" '"schema": "harbor"'
	t_contains "trial $n complete" "$(cat $T/test-$n/trial.json)" '"complete": true'
	t_contains "trial $n: the skill was invoked (from ATIF)" "$(cat $T/test-$n/trial.json)" '"invoked": true'
done
t_eq "passed" "$(grep -l '"outcome": "passed"' $T/test-*/trial.json | wc -l)" 2
t_eq "failed" "$(grep -l '"outcome": "failed"' $T/test-*/trial.json | wc -l)" 1
cfg=$T/test-001/harbor-job.json
t_eq "the job config names the agent" "$(jq -r '.agents[0].name' $cfg)" opencode
t_eq "and the model" "$(jq -r '.agents[0].model_name' $cfg)" vllm/qwen-27b
t_contains "and the skill to inject" "$(jq -r '.agents[0].skills[0]' $cfg)" "/csv-sum"
t_eq "one attempt" "$(jq -r .n_attempts $cfg)" 1
t_check "Harbor's layout kept" test -f "$(ls -d $T/test-001/raw/trial/csv-column-sum__*)/agent/trajectory.json"
t_end

t_begin "RUNNER=harbor: an agent timeout is scored, an environment failure is an infra error"
script timeout infra
out=$($SK -k raw-eval REPEAT=5 2>&1)
t_contains "timeout" "$(cat $T/test-004/trial.json)" '"outcome": "timeout"'
t_contains "its category" "$(cat $T/test-004/trial.json)" '"error_category": "AgentTimeoutError"'
t_contains "infra, retried" "$(cat $R/.incomplete/raw/*/reason.txt)" "infra error (EnvironmentStartTimeoutError): Environment start timed out after 600.0 seconds; attempt 1 of 3"
$SK raw-eval REPEAT=5 >/dev/null 2>&1
out=$($SK raw-eval REPEAT=5 2>&1)
t_eq "the third attempt is kept" $? 0
t_contains "as an infra error" "$(cat $T/test-005/trial.json)" '"outcome": "infra_error"'
t_contains "complete: no trajectory is due from an agent that never ran" "$(cat $T/test-005/trial.json)" '"complete": true'
t_end

t_begin "skillc-summary imports Harbor job folders: one row per bench x task x agent x model, stage job"
out=$(skillc-summary --out sum "$JOBS" 2>err)
t_eq "exit" $? 0
t_contains "said" "$out" "6 rows from 0 runs and 4 Harbor jobs"
csv=$(cat sum/summary.csv)
t_contains "a pass" "$csv" "my-bench,hello-world,claude-code,anthropic/claude-sonnet-4-5,harbor,job,1,0,1,1,1.0000"
t_contains "a fail" "$csv" "my-bench,hello-world,mini-swe-agent,openai/gpt-5,harbor,job,1,0,1,0,0.0000"
# fix-git x claude-code: the timeout of matrix-001 (reward 0) and the pass of running-004
t_contains "two jobs, one row" "$csv" "my-bench,fix-git,claude-code,anthropic/claude-sonnet-4-5,harbor,job,2,0,2,1,0.5000"
t_contains "infra: counted, not scored" "$csv" "my-bench,fix-git,mini-swe-agent,openai/gpt-5,harbor,job,1,0,0,0,"
t_contains "'/' in dataset and model, integer rewards, 2 attempts" "$csv" \
	"scale-ai/swe-bench-pro,django-11099,qwen-coder,qwen3.6-35b,harbor,job,2,0,2,1,0.5000"
t_contains "Harbor <= 0.3, no dataset: adhoc" "$csv" "adhoc,hello-world,claude-code,anthropic/claude-sonnet-4-5,harbor,job,1,0,1,1,1.0000"
by=$(jq -c '.by_bench[] | [.bench, .harness, .model, .tasks, .mean_pass_at_1]' sum/summary.json | tr '\n' ' ')
t_contains "pass@1 by bench x agent x model" "$by" '["my-bench","claude-code","anthropic/claude-sonnet-4-5",2,0.75]'
t_contains "pass@1 by bench x agent x model" "$by" '["my-bench","mini-swe-agent","openai/gpt-5",2,0]'
t_contains "pass@1 by bench x agent x model" "$by" '["scale-ai/swe-bench-pro","qwen-coder","qwen3.6-35b",1,0.5]'
t_contains "md" "$(cat sum/summary.md)" "| my-bench | claude-code | anthropic/claude-sonnet-4-5 | harbor | job | 2 | 75.0% |"
t_contains "the timeout is one" "$(jq -c '.groups[] | select(.task == "fix-git" and .harness == "claude-code") | .timeouts' sum/summary.json)" 1
t_contains "the runner's cost" "$(jq -c '.groups[] | select(.task == "hello-world" and .harness == "claude-code" and .bench == "my-bench") | .total_cost_usd' sum/summary.json)" 0.0123
t_contains "a running job is said" "$(cat err)" "Harbor job $JOBS/running-004 has not finished (no finished_at): 1 trial done of 3, 1 running"
t_contains "a result.json being written is not counted, and said" "$(cat err)" "Harbor trial not counted: $JOBS/running-004/hello-world__Kl5Mn6O"
t_end

t_begin "one Harbor job folder alone; a folder with neither runs nor jobs is an error"
out=$(skillc-summary --out one "$JOBS/swe-pro-002" 2>&1)
t_eq "exit" $? 0
t_contains "one job" "$out" "1 row from 0 runs and 1 Harbor job"
mkdir empty
out=$(skillc-summary empty 2>&1)
t_eq "exit" $? 2
t_contains "says what it looked for" "$out" "no traces/ folder found (run make eval first), and no Harbor job folder"
t_end

t_begin "make summary HARBOR_JOBS=: our runs and Harbor's jobs in the same table"
out=$($SK summary task= HARBOR_JOBS="$JOBS" 2>&1)
t_eq "exit" $? 0
t_contains "both" "$out" "from 1 run and 4 Harbor jobs -> results/compile-pipeline/summary"
csv=$(cat results/compile-pipeline/summary.csv)
t_contains "our run's row" "$csv" ",csv-column-sum,opencode,vllm/qwen-27b,harbor,raw,"
t_contains "Harbor's rows" "$csv" "scale-ai/swe-bench-pro,django-11099,qwen-coder"
out=$($T_SK summary RESULTS=none HARBOR_JOBS="$JOBS" 2>&1)
t_eq "no runs yet: exit" $? 0
t_check "the summary goes into HARBOR_JOBS" test -f jobs/summary.csv
t_end
