#!/bin/sh
# End-to-end: a matrix of runs (tasks= x harnesses= x models=, MATRIX= in
# our shape or Harbor's, filters) in one make: every combination is its own
# run folder and lock; a second make starts nothing; one task's changed
# byte re-runs that task's runs only; a busy run is named and nothing is
# touched; disjoint matrices run side by side; runs that share a skill,
# task, harness and model share trials (the store) and LLM answers (the
# cache). Trials go through the stand-in `bench` (tests/helpers/fake-bench.sh).
. "$(dirname "$0")/../lib.sh"

t_bench_work
RES=results/compile-pipeline
MX='tasks=csv-column-sum log-error-report'
MH='harnesses=opencode codex-acp'
MM='models=vllm/m1 vllm/m2'
script() { rm -rf script.n script.lock; printf '%s\n' "$@" >script; }
script pass
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
mtime() { stat -c %Y.%y "$1" 2>/dev/null; }

t_begin "tasks x harnesses x models: eight runs, each its own folder, in one make"
out=$($SK -j8 "$MX" "$MH" "$MM" eval REPEAT=1 RUNNER=benchflow 2>&1)
t_eq "exit" $? 0
t_eq "runs" "$(ls $RES | grep -c -- '--')" 8
for t in csv-column-sum log-error-report; do
	for h in opencode codex-acp; do
		for m in m1 m2; do
			r=$RES/$t--$h--vllm_$m
			t_check "$r has its index" test -f $r/traces/$t/raw/index.json
			t_contains "$r harness" "$(cat $r/settings.json)" "\"HARNESS\": \"$h\""
		done
	done
done
t_contains "a line names its run" "$out" "skillc: csv-column-sum--codex-acp--vllm_m1 raw-eval.001: started"
t_contains "a trial's line names its harness and model" "$out" "[1/1] csv-column-sum codex-acp vllm/m1 raw test-001 passed"
t_contains "the last line" "$out" "skillc: 8 runs: eval done; their skills are in $RES/<run>/artifacts/static/S_static"
t_end

t_begin "a second make starts nothing; make status over the matrix: one line a run, exit 0"
before=$(starts)
out=$($SK -j8 "$MX" "$MH" "$MM" eval REPEAT=1 RUNNER=benchflow 2>&1)
t_eq "exit" $? 0
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_eq "bench runs" "$(starts)" "$before"
out=$($SK "$MX" "$MH" "$MM" status GOAL=eval 2>&1)
t_eq "status exit" $? 0
t_eq "one line a run" "$(printf '%s\n' "$out" | grep -c 'up to date (eval)')" 8
t_contains "total" "$out" "8 runs, 0 with work due"
# GOAL=eval: the runs were made by eval; final (the default) also wants fast and deep
out=$($SK status GOAL=eval 2>&1)
t_eq "every run under RESULTS" $? 0
t_end

t_begin "one task's skill changed by a byte re-runs that task's runs only"
for r in $RES/*--*; do echo "$(mtime $r/status/ingest.json)" >"$T_TMP/$(basename $r).before"; done
sed -i 's/Skip the header line/Skip the header row/' tasks/csv-column-sum/environment/skills/csv-sum/SKILL.md
out=$($SK "$MX" "$MH" "$MM" status GOAL=eval 2>&1)
t_eq "status sees it" $? 1
t_eq "four runs due" "$(printf '%s\n' "$out" | grep -c '^csv-column-sum.*due')" 4
out=$($SK -j8 "$MX" "$MH" "$MM" eval REPEAT=1 RUNNER=benchflow 2>&1)
t_eq "exit" $? 0
for r in $RES/*--*; do
	was=$(cat "$T_TMP/$(basename $r).before")
	case $r in
	*/csv-column-sum--*) [ "$(mtime $r/status/ingest.json)" != "$was" ] || t_fail "$r did not ingest again" ;;
	*) [ "$(mtime $r/status/ingest.json)" = "$was" ] || t_fail "$r ran again" ;;
	esac
done
$SK "$MX" "$MH" "$MM" status GOAL=eval >/dev/null 2>&1
t_eq "then up to date" $? 0
t_end

t_begin "a busy run is named; the matrix make touches nothing; disjoint matrices run side by side"
B=$RES/log-error-report--opencode--vllm_m2
skillc-stage lock $B --what 'the test' -- sleep 30 &
holder=$!
i=0; while [ $i -lt 500 ] && ! grep -q 'the test' $B/.lock 2>/dev/null; do sleep 0.02; i=$((i + 1)); done
other=$(mtime $RES/csv-column-sum--opencode--vllm_m1/settings.json)
out=$($SK "$MX" "$MH" "$MM" eval REPEAT=2 RUNNER=benchflow 2>&1)
t_eq "exit" $? 2
t_contains "names it" "$out" "run '$B' is busy: locked by pid"
t_contains "and its holder" "$out" "(the test)"
t_eq "other runs untouched" "$(mtime $RES/csv-column-sum--opencode--vllm_m1/settings.json)" "$other"
t_contains "nothing recorded" "$(cat $RES/csv-column-sum--opencode--vllm_m1/settings.json)" '"REPEAT": "1"'
# the csv runs are not busy: a matrix of them runs while the other is held
out=$($SK tasks=csv-column-sum "$MH" "$MM" eval REPEAT=1 RUNNER=benchflow 2>&1)
t_eq "a disjoint matrix runs" $? 0
kill $holder 2>/dev/null
wait $holder 2>/dev/null
script "pass sleep=1"
$SK -j2 tasks=csv-column-sum "$MH" "$MM" raw-eval REPEAT=2 RUNNER=benchflow >a.out 2>&1 &
a=$!
$SK -j2 tasks=log-error-report "$MH" "$MM" raw-eval REPEAT=2 RUNNER=benchflow >b.out 2>&1
t_eq "second matrix" $? 0
wait $a
t_eq "first matrix" $? 0
script pass
t_end

t_begin "MATRIX=file.yaml lists the runs; TASK_FILTER, HARNESS_FILTER and MODEL_FILTER narrow them"
cat >m.yaml <<'EOF'
tasks: [csv-column-sum, log-error-report]
harnesses:
  - opencode
  - codex-acp
models: vllm/m1 vllm/m2
EOF
out=$($SK MATRIX=m.yaml status GOAL=raw-eval 2>&1)
t_eq "eight runs" "$(printf '%s\n' "$out" | grep -c -- '--vllm_m')" 8
out=$($SK MATRIX=m.yaml TASK_FILTER=csv HARNESS_FILTER=codex-acp status GOAL=raw-eval 2>&1)
t_eq "filtered" "$(printf '%s\n' "$out" | grep -c -- '--vllm_m')" 2
t_contains "the csv codex runs" "$out" "csv-column-sum--codex-acp--vllm_m1"
out=$($SK MATRIX=m.yaml MODEL_FILTER=vllm/m2 HARNESS_FILTER=opencode TASK_FILTER=log,csv status GOAL=raw-eval 2>&1)
t_eq "by model" "$(printf '%s\n' "$out" | grep -c -- '--opencode--vllm_m2')" 2
out=$($SK MATRIX=m.yaml TASK_FILTER=nothing status 2>&1)
t_eq "no run left" $? 2
t_contains "said" "$out" "leave no run of the 8 there are"
out=$($SK MATRIX=m.yaml task=csv-column-sum status 2>&1)
t_contains "not both" "$out" "give it or task=/tasks=/harnesses=/models=, not both"
printf 'tasks: [a b]\nmodles: [x]\n' >bad.yaml
out=$($SK MATRIX=bad.yaml status 2>&1)
t_eq "bad file exit" $? 2
t_contains "bad key named" "$out" "bad.yaml: unknown key 'modles'"
t_end

t_begin "a Harbor job config: agents x datasets, n_attempts as REPEAT"
cat >job.yaml <<'EOF'
job_name: matrix-001
n_attempts: 2
agents:
  - {name: opencode, model_name: vllm/m1}
  - name: codex
    model_name: vllm/m2
datasets:
  - {path: tasks, task_names: ["csv*"]}
EOF
out=$($SK MATRIX=job.yaml RESULTS=harbor ingest 2>&1)
t_eq "exit" $? 0
t_check "opencode run" test -f harbor/csv-column-sum--opencode--vllm_m1/status/ingest.ok
t_check "codex is codex-acp" test -f harbor/csv-column-sum--codex-acp--vllm_m2/status/ingest.ok
t_eq "two runs" "$(ls harbor | grep -c -- '--')" 2
t_contains "n_attempts" "$(cat harbor/csv-column-sum--opencode--vllm_m1/settings.json)" '"REPEAT": "2"'
printf 'agents: [{name: aider, model_name: vllm/m1}]\ndatasets: [{path: tasks}]\n' >aider.yaml
out=$($SK MATRIX=aider.yaml RESULTS=harbor ingest 2>&1)
t_contains "an agent with no harness" "$out" "Harbor agent 'aider' is no skillc harness"
printf 'agents: [{name: opencode}]\ndatasets: [{name: terminal-bench/terminal-bench-2}]\n' >reg.yaml
out=$($SK MATRIX=reg.yaml RESULTS=harbor ingest 2>&1)
t_contains "a registry dataset" "$out" "give path: to a folder of tasks"
t_end

t_begin "pay once: another results folder with the same matrix reuses every trial"
before=$(starts)
out=$($SK -j4 "$MX" "$MH" "$MM" eval REPEAT=1 RUNNER=benchflow RESULTS=again 2>&1)
t_eq "exit" $? 0
t_eq "no bench run" "$(starts)" "$before"
t_contains "reused" "$out" "reused from the trial store"
t_end

t_begin "pay once: the planning call of a hybrid static compile is asked once for the runs that share it"
D=$T_TMP/fake-llm
t_fakellm "$D" '{"chat": [{"json": {"operations": []}}]}'
cat >"$D/routes.json" <<EOF
{"providers": {"fake": {"base_url": "http://127.0.0.1:$(cat "$D/port")/v1", "key_env": null,
  "timeout": 10, "connect_timeout": 2, "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.05}}}}
EOF
out=$($SK -j2 tasks=log-error-report "$MH" models=vllm/Qwen/Qwen3.5-27B STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner \
	ROUTES=$D/routes.json ENV_FILE=$T_TMP/none.env RESULTS=hybrid static 2>&1)
t_eq "exit" $? 0
t_eq "two runs compiled" "$(ls hybrid/*/artifacts/static/S_static.hash | wc -l)" 2
t_eq "one request" "$(wc -l <"$D/log.jsonl" | tr -d ' ')" 1
t_end

t_begin "a matrix stopped by a failure says how many runs were not started, and that -k goes on"
script crash
out=$($SK "$MX" 'models=vllm/m7 vllm/m8' eval REPEAT=1 RUNNER=benchflow 2>&1)
t_eq "exit: the trial errored (1)" $? 1
line=$(printf '%s\n' "$out" | grep 'runs not started')
t_contains "the line" "$line" "of 4 runs not started: make stopped at the first failure; make -k goes on past a failure"
n=${line#skillc: } n=${n%% *}
t_check "some runs were never started ($line)" test "${n:-0}" -ge 1 -a "${n:-0}" -le 3
out=$($SK -k "$MX" 'models=vllm/m7 vllm/m8' eval REPEAT=1 RUNNER=benchflow 2>&1)
case $out in *"not started"*) t_fail "under -k every run starts: $out" ;; esac
t_end
