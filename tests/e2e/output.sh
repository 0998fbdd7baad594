#!/bin/sh
# End-to-end: output a user can pipe. As make does, progress lines and
# results go to stdout and diagnostics to stderr, so `make ... | tee log`
# captures the progress, and a stage's log holds both.
. "$(dirname "$0")/../lib.sh"

t_bench_work
SK="$T_SK task=log-error-report MODEL=vllm/qwen-27b RUNNER=benchflow"
R=results/compile-pipeline/log-error-report--opencode--vllm_qwen-27b

t_begin "make static | tee log: the progress and the tools' results are in the log, stderr is empty"
$SK static 2>err.txt | tee log.txt >/dev/null
t_eq "exit" $? 0
log=$(cat log.txt)
t_contains "stage start" "$log" "skillc: ingest: started"
t_contains "the tool's result" "$log" "skillc-ingest: skill 'log-triage' of task 'log-error-report'"
t_contains "the compile's result" "$log" "log-triage: body 504 ->"
t_contains "stage done" "$log" "skillc: static: done in"
t_eq "nothing on stderr" "$(cat err.txt)" ""
t_contains "the stage's log has it too" "$(cat $R/logs/static.log)" "log-triage: body 504 ->"
t_end

t_begin "trials: [i/N] lines on stdout; a failed trial's reason and make's error on stderr"
printf 'pass\ncrash\ncrash\ncrash\n' >script
$SK raw-eval REPEAT=2 2>err.txt | tee log.txt >/dev/null
log=$(cat log.txt) err=$(cat err.txt)
t_contains "trial 1 on stdout" "$log" "[1/2] log-error-report raw test-001 passed"
t_contains "trial 2 failed, on stdout" "$log" "[2/2] log-error-report raw test-002 FAILED"
t_contains "its reason on stderr" "$err" "skillc-eval: [2/2] log-error-report raw test-002: the runner exited 1"
t_contains "the stage failed, on stderr" "$err" "skillc: raw-eval.002: failed after"
case $log in *"the runner exited"*) t_fail "a diagnostic reached stdout: $(printf "%s\n" "$log" | grep "the runner exited")" ;; esac
t_contains "the stage's log has the reason" "$(cat $R/logs/raw-eval.002.log)" "the runner exited 1"
t_end

t_begin "make status and make doctor answer on stdout"
$SK status >out.txt 2>err.txt
t_contains "status" "$(cat out.txt)" "ingest"
t_eq "status: nothing on stderr" "$(cat err.txt)" ""
$SK doctor GOAL=static DOCTOR_PROBE=none >out.txt 2>err.txt
t_contains "doctor" "$(cat out.txt)" "all good"
t_eq "doctor: nothing on stderr" "$(cat err.txt)" ""
t_end

t_begin "a bad setting: one line on stderr, nothing on stdout"
$SK static REPEAT=x >out.txt 2>err.txt
t_eq "exit" $? 2
t_contains "stderr" "$(cat err.txt)" "bad REPEAT 'x'"
t_eq "stdout" "$(cat out.txt)" ""
t_end
