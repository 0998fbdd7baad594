#!/bin/sh
# End-to-end: mistakes caught before any work starts. A command-line
# variable that looks like a setting but is none (REPAET, repeat) is refused
# with the setting it is near, standalone and in the source tree, and only
# warned about when a Makefile of the user's includes skillc.mk; a goal near
# one of skillc's is refused naming it; a task that does not exist leaves no
# run behind; make status says when a run's task is gone.
. "$(dirname "$0")/../lib.sh"

unset MODEL REPEAT TASKS_DIR RESULTS
t_bench_work log-error-report
R=results/compile-pipeline

t_begin "REPAET=5 and repeat=5 are refused with 'did you mean REPEAT?', and nothing is made"
out=$($SK task=log-error-report REPAET=5 ingest 2>&1)
t_eq "exit" $? 2
t_contains "REPAET" "$out" "skillc: REPAET is not a setting: did you mean REPEAT? (make help lists the settings)"
out=$($SK task=log-error-report repeat=5 ingest 2>&1)
t_eq "exit" $? 2
t_contains "repeat" "$out" "skillc: repeat is not a setting: did you mean REPEAT?"
out=$($SK task=log-error-report REPEAT=5 DEEP_ROUND=2 status 2>&1)
t_contains "a status too" "$out" "DEEP_ROUND is not a setting: did you mean DEEP_ROUNDS?"
t_check "no run" test ! -e $R
out=$(make --no-print-directory -C "$T_ROOT" task=log-error-report TASKS_DIR=$W/tasks RESULTS=$W/$R REPAET=5 ingest 2>&1)
t_eq "source tree exit" $? 2
t_contains "source tree" "$out" "did you mean REPEAT?"
t_check "still no run" test ! -e $R
t_end

t_begin "a variable far from every setting is the user's; included in a user's Makefile a near one is only a warning"
out=$($SK task=log-error-report FLAVOUR=mint ingest 2>&1)
t_eq "exit" $? 0
printf 'include %s/mk/skillc.mk\n' "$T_ROOT" >Makefile
out=$(make --no-print-directory task=log-error-report REPAET=5 ingest 2>&1)
t_eq "included exit" $? 0
t_contains "warned" "$out" "skillc: warning: REPAET is not a setting: did you mean REPEAT?"
rm Makefile
t_end

t_begin "a misspelt goal names the goal it is near"
out=$($SK task=log-error-report statc 2>&1)
t_eq "exit" $? 2
t_contains "statc" "$out" "skillc: unknown goal 'statc': did you mean static? (make help lists the goals)"
out=$($SK task=log-error-report fnal 2>&1)
t_contains "fnal" "$out" "did you mean final?"
out=$(make --no-print-directory -C "$T_ROOT" chek 2>&1)
t_contains "the source tree's own goals too" "$out" "did you mean check?"
t_end

t_begin "a task that does not exist leaves no run behind"
out=$($SK task=no-such-task ingest 2>&1)
t_eq "exit" $? 2
t_contains "message" "$out" "skillc: task 'no-such-task' not found: no folder tasks/no-such-task (TASKS_DIR=tasks)"
t_check "no run folder" test ! -e $R/no-such-task--opencode--no-model
t_end

t_begin "make status says when a run's task is gone"
mv tasks/log-error-report tasks/gone
out=$($SK status 2>&1)
t_contains "one run" "$out" "its task is gone: no folder tasks/log-error-report (TASKS_DIR=tasks)"
mv tasks/gone tasks/log-error-report
t_end
