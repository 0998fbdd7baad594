#!/bin/sh
# End-to-end: goals with no task= act on the runs under RESULTS, each with
# its remembered settings, as make status does: after make task=X static, a
# bare make -j3 eval evaluates that run, a bare clean-stage STAGE=static
# forgets its static stage, a bare make final resumes it; with no run at
# all one line says how to start one.
. "$(dirname "$0")/../lib.sh"

unset MODEL REPEAT RUNNER TASKS_DIR RESULTS RUN_DIR STATIC_MODE
t_bench_work log-error-report
R=results/compile-pipeline/log-error-report--opencode--vllm_q
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }

t_begin "with no run under RESULTS, a bare make eval says how to start one"
out=$($SK -j3 eval 2>&1)
t_eq "exit" $? 2
t_contains "one line" "$out" "skillc: no run under RESULTS=results/compile-pipeline to work on: start one with make task=<name> MODEL=<provider/model-id> final"
t_check "nothing made" test ! -e results/compile-pipeline/log-error-report--opencode--vllm_q
t_end

t_begin "after make task=X static, a bare make -j3 eval evaluates that run with its settings"
out=$($SK task=log-error-report MODEL=vllm/q RUNNER=benchflow REPEAT=2 static 2>&1)
t_eq "static" $? 0
t_eq "no trial yet" "$(starts)" 0
out=$($SK -j3 eval 2>&1)
t_eq "exit" $? 0
t_eq "raw and static trials, REPEAT=2 remembered" "$(starts)" 4
t_contains "the run's last line" "$out" "skillc: log-error-report--opencode--vllm_q: eval done"
t_check "benchflow remembered" grep -q '"RUNNER": "benchflow"' $R/settings.json
out=$($SK -j3 eval 2>&1)
t_eq "again: nothing to do" "$(starts)" 4
t_end

t_begin "a bare clean-stage STAGE=static and make eval act on the run too"
out=$($SK clean-stage STAGE=static 2>&1)
t_eq "exit" $? 0
t_check "static forgotten" test ! -e $R/artifacts/static/S_static.hash
out=$($SK eval 2>&1)
t_eq "eval again" $? 0
t_check "static made again" test -e $R/artifacts/static/S_static.hash
t_eq "the same trials reused from the store" "$(starts)" 4
t_end

t_begin "trials made under other settings are never counted: a re-run that fails leaves none of the old ones"
out=$($SK task=log-error-report MODEL=vllm/q RUNNER=benchflow REPEAT=2 summary 2>&1)
t_contains "two raw trials counted" "$(cat $R/summary.md)" "| raw | 2 |"
echo 'crash' >script
out=$($SK -k AGENT_TIMEOUT=77 eval 2>&1)
t_eq "the re-run fails (the trial errored: 1)" $? 1
t_contains "says what is due again" "$out" "AGENT_TIMEOUT 0 -> 77; due again: raw-eval"
case $out in *noskill*) t_fail "due again names no-skill trials, which BASELINE=0 never runs: $out" ;; esac
t_check "no old trial left" test ! -e $R/traces/log-error-report/raw/test-001/trial.json
out=$($SK task=log-error-report MODEL=vllm/q RUNNER=benchflow REPEAT=2 summary 2>&1)
case $(cat $R/summary.md) in *"| raw | 2 |"*) t_fail "the summary counts the old trials: $(cat $R/summary.md)" ;; esac
t_end
