#!/bin/sh
# End-to-end: make gate and make watch over a skill run (docs/ci.md,
# docs/skill-runs.md). csv-sum is tuned on tr-a and judged on the held-out
# te-b and te-c: the gate's verdict is the test tasks' raw -> S_final
# across them, never the train task's gain, which it prints beside.
#
# The test device: tests/helpers/skill-device.sh (as skill-run.sh uses it).
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR SKILLS MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE LLM_CACHE \
	SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS FINAL_FRESH FAST_MIN_TRACES FAST_TOP FAST_BOTTOM task tasks skill train test \
	GATE_STAGE GATE_RULE GATE_MIN_DELTA GATE_MAX_REGRESSED GATE_VS GATE_ACROSS WATCH_TIMEOUT
for t in tr-a te-b te-c; do cp -R tasks/csv-column-sum tasks/$t; done
. "$T_ROOT/tests/helpers/skill-device.sh"
run() { echo "$(skill_settings "$@") train=tr-a"; }
SPLIT_ARGS='test=te-b te-c'

t_begin "before final: make gate is refused in one line"
out=$($SK $(run gen gen) "$SPLIT_ARGS" gate 2>&1)
t_eq "exit" $? 2
t_contains "says why and what to do" "$out" "skill run csv-sum: no final trials yet on the test tasks te-b te-c"
t_eq "one line" "$(printf '%s\n' "$out" | wc -l)" 1
out=$($SK $(run gen gen) "$SPLIT_ARGS" final gate 2>&1)
t_eq "with final in one command: exit" $? 2
t_contains "says to run it alone" "$out" "run make gate on its own"
t_end

t_begin "a change that helps every task passes the held-out gate"
out=$($SK -j2 $(run gen gen) "$SPLIT_ARGS" final 2>&1)
t_eq "final exit (output: $(printf '%s' "$out" | tail -3))" $? 0
out=$($SK $(run gen gen) "$SPLIT_ARGS" GATE_RULE=gain gate 2>&1)
t_eq "gate exit (output: $out)" $? 0
t_contains "a test task's line" "$out" "ok te-b (opencode, vllm/qwen-27b, benchflow): final 3/3 = 100.0% [43.9%, 100.0%] vs raw 0/3 = 0.0% [0.0%, 56.1%]"
t_contains "across the test tasks, Holm-adjusted" "$out" "across 2 test tasks: final - raw mean +100.0 pp [+100.0, +100.0] (95%, clustered by task)"
t_contains "... the stratified test, Holm" "$out" "stratified exact p = 0.0025; Holm-adjusted p: te-b 0.1 te-c 0.1"
t_contains "the train task beside it, labelled" "$out" "train task tr-a (tuned here; beside the verdict, not part of it): final 3/3"
t_contains "the verdict" "$out" "gate: PASS: 2 test tasks, 2 pass, 0 fail, 0 cannot be judged"
t_contains "the rule" "$out" "rule gain across test tasks (the mean change, clustered by task): final - raw, lower 95% bound >= 0 pp"
$SK $(run gen gen) "$SPLIT_ARGS" gate >/dev/null 2>&1
t_eq "the default rule (no-regression) passes too" $? 0
out=$($SK $(run gen gen) "$SPLIT_ARGS" GATE_STAGE=static gate 2>&1)
t_eq "GATE_STAGE=static: exit" $? 2
t_contains "says what judges the tuned run" "$out" "a skill run's gate judges S_final on the held-out test tasks (final)"
t_eq "in one line" "$(printf '%s\n' "$out" | wc -l)" 1
t_end

t_begin "a change that helps only the train task fails it, while its train figures show the gain"
out=$($SK -j2 $(run lit lit) "$SPLIT_ARGS" final 2>&1)
t_eq "final exit (output: $(printf '%s' "$out" | tail -3))" $? 0
out=$($SK $(run lit lit) "$SPLIT_ARGS" GATE_RULE=gain gate 2>&1)
t_eq "gate exit (output: $out)" $? 1
t_contains "the train gain, beside" "$out" "train task tr-a (tuned here; beside the verdict, not part of it): final 3/3 = 100.0% [43.9%, 100.0%] vs raw 0/3 = 0.0% [0.0%, 56.1%]; final - raw +100.0 pp"
t_contains "the gap" "$out" "train gain +100.0 pp, held-out gain +0.0 pp: gap +100.0 pp"
t_contains "no held-out gain" "$out" "across 2 test tasks: final - raw mean +0.0 pp [+0.0, +0.0]"
t_contains "why" "$out" "no gain shown: stratified exact p = 1 > 0.05"
t_contains "the verdict" "$out" "gate: FAIL: 2 test tasks"
t_end

t_begin "make watch over a skill run names each member run's role"
out=$($SK $(run gen gen) "$SPLIT_ARGS" WATCH_TIMEOUT=60 watch 2>&1)
t_eq "exit: nothing due, one screen" $? 0
t_contains "the tuned run" "$out" "## train task tr-a, tuned here (raw to final)"
t_contains "a test task's raw trials" "$out" "## test task te-b, raw trials"
t_contains "a test task's S_final trials" "$out" "## test task te-c, final trials (S_final)"
t_contains "their table" "$(printf '%s\n' "$out" | sed -n '/## test task te-c, final trials/,/^##/p')" "| te-c (src-csv-sum-"
t_contains "the count" "$out" "due trials complete"
t_end
