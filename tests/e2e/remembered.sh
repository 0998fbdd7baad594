#!/bin/sh
# End-to-end: a run remembers the settings it was created with
# (<run>/settings.json). A later command that leaves one out resumes with
# the recorded value; one that gives a new value says, in one line, what
# changed and what will run again; `make status` and its hint use the
# recorded settings, and the hint works when pasted back.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
SK=$T_SK
M=vllm/qwen-27b
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
T="task=csv-column-sum MODEL=$M"
status() { $SK $T status "$@" 2>&1; }

t_begin "a new run records its settings"
out=$($SK $T MAX_FILE_MB=30 REPEAT=2 ingest 2>&1)
t_eq "exit" $? 0
t_contains "recorded" "$(cat $R/settings.json)" '"MAX_FILE_MB": "30"'
t_contains "recorded REPEAT" "$(cat $R/settings.json)" '"REPEAT": "2"'
case $(cat $R/settings.json) in *LLM_CACHE*|*CACHE_DIR*) t_fail "a setting of one command was recorded" ;; esac
case $out in *"the run remembers"*) t_fail "a new run said a setting changed: $out" ;; esac
t_end

t_begin "left out: the recorded value, nothing runs again, status up to date"
out=$($SK $T ingest 2>&1)
t_eq "exit" $? 0
case $out in *started*) t_fail "a stage ran: $out" ;; esac
out=$(status GOAL=ingest)
t_eq "status exit" $? 0
t_contains "status" "$out" "up to date"
out=$(status GOAL=raw-eval)
t_contains "REPEAT=2 remembered" "$out" "raw-eval.002"
case $out in *raw-eval.003*) t_fail "status judged with the default REPEAT: $out" ;; esac
t_end

t_begin "given again with the same value: no message, nothing runs"
out=$($SK $T MAX_FILE_MB=30 ingest 2>&1)
case $out in *started*|*"remembers"*) t_fail "$out" ;; esac
t_end

t_begin "given a new value: one line says what changed and what runs again; then it is remembered"
out=$($SK $T MAX_FILE_MB=31 ingest 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "skillc: csv-column-sum--opencode--vllm_qwen-27b: MAX_FILE_MB 30 -> 31; due again: ingest, raw-eval, raw-index, static, static-eval, static-index, fast-score,"
t_contains "up to the final evaluation" "$out" "final-eval, final-index (the run remembers it)"
t_eq "one line" "$(printf '%s\n' "$out" | grep -c 'the run remembers')" 1
t_contains "ran" "$out" "skillc: ingest: done"
t_contains "recorded" "$(cat $R/settings.json)" '"MAX_FILE_MB": "31"'
out=$(status GOAL=ingest)
t_eq "status exit, left out" $? 0
out=$($SK $T STAGE_TIMEOUT=99 ingest 2>&1)
t_contains "a limit changes no stage" "$out" "STAGE_TIMEOUT 3600 -> 99; no stage runs again for it"
t_end

t_begin "status with a value the run does not have judges with it and its hint carries it"
out=$(status GOAL=raw-eval REPEAT=4)
t_eq "exit" $? 1
t_contains "judged with it" "$out" "raw-eval.004"
t_contains "hint, with the -f it was given" "$out" "run: make -f $T_ROOT/mk/skillc.mk task=csv-column-sum MODEL=$M REPEAT=4 raw-eval"
t_contains "not recorded" "$(cat $R/settings.json)" '"REPEAT": "2"'
t_end

t_begin "the hint status prints works when pasted back"
hint=$(status GOAL=static | sed -n 's/.*; run: make //p')
t_eq "hint" "$hint" "-f $T_ROOT/mk/skillc.mk task=csv-column-sum MODEL=$M static"
out=$(make --no-print-directory $hint 2>&1)
t_eq "pasted hint exit" $? 0
out=$(status GOAL=static)
t_eq "then up to date" $? 0
t_end

t_begin "make -n with a new value records nothing"
$SK -n $T MAX_FILE_MB=40 ingest >/dev/null 2>&1
t_contains "still 31" "$(cat $R/settings.json)" '"MAX_FILE_MB": "31"'
t_end

t_begin "a remembered TASKS_DIR: the task is found there when it is left out"
mkdir -p elsewhere && cp -R tasks/log-error-report elsewhere/
out=$($SK task=log-error-report MODEL=$M TASKS_DIR=elsewhere ingest 2>&1)
t_eq "created" $? 0
out=$($SK task=log-error-report MODEL=$M ingest 2>&1)
t_eq "left out" $? 0
case $out in *started*) t_fail "ran again: $out" ;; esac
out=$($SK task=log-error-report MODEL=$M status GOAL=ingest 2>&1)
t_eq "status" $? 0
t_end

t_begin "without MODEL the error names the runs of the task"
out=$($SK task=csv-column-sum static 2>&1)
t_eq "exit" $? 2
t_contains "names the run" "$out" "runs of task csv-column-sum: csv-column-sum--opencode--vllm_qwen-27b"
t_end
