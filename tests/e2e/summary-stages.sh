#!/bin/sh
# End-to-end: the summary counts a stage's current trials only (issue 10.2).
# A stage's numbers are the trials of its current skill with indexes
# 1..REPEAT (the trial targets the run's manifest lists); every other trial
# folder is listed as stale, kept and never counted. Each row names its
# bench (the task source) and runner. Real make, the stand-in bench.
. "$(dirname "$0")/../lib.sh"

t_bench_work
unset ROUTES ENV_FILE BENCH
M=vllm/qwen-27b
SK="$T_SK task=csv-column-sum RUNNER=benchflow MODEL=$M BENCH=samples"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
SKILL=tasks/csv-column-sum/environment/skills/csv-sum/SKILL.md
script() { rm -f script.n; printf '%s\n' "$@" >script; }
py_row() { # stage field: the value of field in the csv row of that stage
	python3 - "$R/summary.csv" "$1" "$2" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
print([r[sys.argv[3]] for r in rows if r['stage'] == sys.argv[2]][0])
EOF
}

t_begin "REPEAT=4, then a changed skill and REPEAT=3: test-004 is stale, not counted"
script "pass sleep=0"
$SK eval REPEAT=4 >out.log 2>&1
t_eq "first make" $? 0
sed -i 's/Skip the header line/Skip the header row/' "$SKILL"
$SK eval REPEAT=3 >out.log 2>&1
t_eq "second make" $? 0
$SK summary REPEAT=3 >out.log 2>&1
t_eq "summary" $? 0
t_eq "raw trials" "$(py_row raw trials)" 3
t_eq "raw stale" "$(py_row raw stale)" 1
t_eq "static trials" "$(py_row static trials)" 3
t_eq "static stale" "$(py_row static stale)" 1
t_contains "md says stale" "$(cat $R/summary.md)" "| samples | csv-column-sum | opencode | $M | benchflow | raw | 3 (+1 stale) |"
js=$(jq -c '[.groups[] | select(.stage == "raw") | .stale[]]' $R/summary.json)
t_eq "json lists it with why" "$js" '[{"test":"test-004","why":"index 4 is beyond the 3 trials due"}]'
t_end

t_begin "a trial of an earlier skill inside 1..REPEAT is set aside by its failed rerun, never counted (make -k)"
sed -i 's/Skip the header row/Skip the header row!/' "$SKILL"
script "pass sleep=0" "crash sleep=0" "crash sleep=0" "crash sleep=0" "crash sleep=0" "crash sleep=0" "crash sleep=0"
$SK -k raw-eval REPEAT=3 >out.log 2>&1
t_eq "make -k fails: the trials errored (1)" $? 1
$SK summary REPEAT=3 >out.log 2>&1
t_eq "raw trials: only test-001 has the current skill" "$(py_row raw trials)" 1
# test-002 and test-003 of the earlier skill leave the run when their reruns start (the
# trial store keeps them); test-004, outside 1..REPEAT, is the one stale trial
t_eq "raw stale" "$(py_row raw stale)" 1
t_eq "raw passed" "$(py_row raw passed)" 1
js=$(jq -c '[.groups[] | select(.stage == "raw") | .stale[] | .why]' $R/summary.json)
t_eq "why" "$js" '["index 4 is beyond the 3 trials due"]'
t_end

t_begin "bench and runner columns; csv loads with one header row"
t_eq "bench" "$(py_row raw bench)" samples
t_eq "runner" "$(py_row raw runner)" benchflow
n=$(python3 -c "import csv,sys; r=list(csv.reader(open('$R/summary.csv', newline=''))); print(len(r), len({len(x) for x in r}))")
t_eq "rows and one width" "$n" "3 1"
t_eq "header once" "$(grep -c '^bench,task,' $R/summary.csv)" 1
t_end

t_begin "bench defaults to the task source's folder name (TASKS_DIR, or its parent when named tasks)"
mkdir -p suite/skillsbench && cp -R tasks suite/skillsbench/tasks
$T_SK task=csv-column-sum RUNNER=benchflow MODEL=$M REPEAT=1 \
	TASKS_DIR=suite/skillsbench/tasks RESULTS=other raw-eval >out.log 2>&1
t_eq "make" $? 0
t_contains "recorded" "$(cat other/csv-column-sum--opencode--vllm_qwen-27b/inputs/config.json)" '"BENCH": "skillsbench"'
skillc-summary other >/dev/null 2>&1
t_contains "summary row" "$(cat other/summary.csv)" "skillsbench,csv-column-sum,opencode,$M,benchflow,raw,1,0,"
t_end
