#!/bin/sh
# End-to-end: a skill run (docs/skill-runs.md). One skill, csv-sum, tuned on
# the train task tr-a and judged on the held-out tasks te-b and te-c (copies
# of csv-column-sum; te-c's set holds a second skill that must stay raw).
#
# The test device: the stand-in bench's scripted agent decides each trial by
# the skill's content (FAKE_BENCH_RULES): a skill holding GENMARK passes in
# every task, one holding LITMARK passes in tr-a alone (a task-specific
# literal), any other fails. The loopback model server answers deep's edit
# with one of those texts. So a general edit must show a train gain and a
# held-out gain, a task-specific one a train gain, no held-out gain and the
# gap. A marker planted in every test task's instruction, tests and a file
# name must reach no request and no cached answer.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR SKILLS MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE LLM_CACHE \
	SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS FINAL_FRESH FAST_MIN_TRACES FAST_TOP FAST_BOTTOM task tasks skill train test
for t in tr-a te-b te-c; do cp -R tasks/csv-column-sum tasks/$t; done
t_csv_skill te-c csv-extra csv-extra "CSV extra"
M=HOLDOUTMARK7
for t in te-b te-c; do
	printf '\nThe %s ledger.\n' $M >>tasks/$t/instruction.md
	printf '# %s expected\n' $M >>tasks/$t/tests/test.sh
	echo "$M" >tasks/$t/tests/$M-expected.txt
done
. "$T_ROOT/tests/helpers/skill-device.sh"
run() { skill_settings "$@"; }
SPLIT_ARGS='test=te-b te-c'
sum() { jq -r "$2" "$1"/skill-csv-sum--*/summary.json; }

t_begin "a general edit: a train gain and a held-out gain"
out=$($SK -j2 $(run gen gen) train=tr-a "$SPLIT_ARGS" final 2>&1)
t_eq "exit (output: $(printf '%s' "$out" | tail -3))" $? 0
t_eq "train raw -> final" "$(sum gen '.tasks[] | select(.role == "train") | "\(.raw.passed)/\(.raw.scored) \(.final.passed)/\(.final.scored)"')" "0/3 3/3"
t_eq "held-out per task" "$(sum gen '[.tasks[] | select(.role == "test") | "\(.task) \(.delta)"] | join(", ")')" "te-b 1, te-c 1"
t_eq "pooled train gain" "$(sum gen .train.mean_delta)" 1
t_eq "pooled held-out gain, its interval" "$(sum gen '"\(.test.mean_delta) \(.test.ci95)"' | tr -d ' \n')" '1[1,1]'
t_eq "no gap" "$(sum gen .gap)" 0
t_check "te-c's other skill stayed raw in its final trials" \
	cmp -s tasks/te-c/environment/skills/csv-extra/SKILL.md gen/skill-csv-sum--*/sets/final/te-c/csv-extra/SKILL.md
t_check "te-c's csv-sum is S_final" grep -q GENMARK gen/skill-csv-sum--*/sets/final/te-c/csv-sum/SKILL.md
t_end

t_begin "a task-specific literal: a train gain, no held-out gain, and the report shows the gap"
out=$($SK -j2 $(run lit lit) train=tr-a "$SPLIT_ARGS" final 2>&1)
t_eq "exit (output: $(printf '%s' "$out" | tail -3))" $? 0
t_eq "pooled train gain" "$(sum lit .train.mean_delta)" 1
t_eq "pooled held-out gain" "$(sum lit .test.mean_delta)" 0
t_eq "the gap" "$(sum lit .gap)" 1
md=$(cat lit/skill-csv-sum--*/summary.md)
t_contains "summary.md: the held-out row" "$md" "| test (held out) | 2 | +0.0 pp |"
t_contains "summary.md: the gap" "$md" "what the tuning did not carry over): +100.0 pp"
t_end

t_begin "disclosure: the optimizer model, the split, reused trials, LLM calls and tokens per stage"
t_eq "EXTERNAL_MODEL" "$(sum gen .settings.EXTERNAL_MODEL)" fake/compiler
t_eq "the split" "$(sum gen '"\(.split.how) \(.split.train) \(.split.test)"' | tr -d ' \n')" 'given["tr-a"]["te-b","te-c"]'
t_eq "the final evaluation reused the selection trials" "$(sum gen '.tasks[0].final.reused_trials')" 3
t_eq "deep's calls and tokens" "$(sum gen '[.llm[] | select(.stage == "deep-1-edit") | .calls, (.tokens_in > 0)] | join(" ")')" "1 true"
t_contains "summary.md says so" "$md" "Optimizer model (EXTERNAL_MODEL): fake/compiler"
t_eq "a run's own summary.json: the optimizer, its calls and tokens" \
	"$(jq -r '.groups[] | select(.stage == "deep-1") | "\(.external_model) \(.llm_calls) \(.llm_tokens_in > 0)"' gen/tr-a--*/summary.json)" \
	"fake/compiler 2 true"
t_end

t_begin "nothing of a test task reaches a prompt or the LLM cache"
t_check "the optimizer was asked" test -s "$T_TMP/gen/log.jsonl"
t_eq "requests naming the marker" "$(cat "$T_TMP"/gen/log.jsonl "$T_TMP"/lit/log.jsonl | grep -c $M)" 0
t_eq "requests naming a test task" "$(cat "$T_TMP"/gen/log.jsonl "$T_TMP"/lit/log.jsonl | grep -c -e te-b -e te-c)" 0
t_eq "cached answers and prompts naming the marker" "$(grep -rl $M cache-gen/llm cache-lit/llm | wc -l)" 0
t_check "the log holds the prompts (the skill is in them)" grep -q csv-column-sums "$T_TMP/gen/log.jsonl"
t_check "the test tasks were evaluated, marker and all" grep -q $M tasks/te-b/instruction.md
t_check "... their trials ran" test -f gen/skill-csv-sum--*/summary.json -a -n "$(ls gen/te-b--*/traces/te-b/raw/test-003/trial.json)"
t_end

t_begin "a drawn split is recorded with its seed; bad skill runs are refused in one line"
out=$($SK $(run drawn gen) tasks="tr-a te-b te-c" SPLIT=0.6 SPLIT_SEED=7 ingest 2>&1)
t_eq "exit" $? 0
rec=$(cat drawn/skill-csv-sum--*/skillrun.json)
t_eq "how, fraction, seed" "$(printf '%s' "$rec" | jq -c '[.split.how, .split.fraction, .split.seed, (.split.test | length)]')" '["drawn",0.6,7,2]'
out=$($SK $(run bad gen) train=tr-a test=tr-a final 2>&1)
t_eq "a task in both: exit" $? 2
t_contains "says so" "$out" "task 'tr-a' is in both train= and test="
t_eq "in one line" "$(printf '%s\n' "$out" | wc -l)" 1
out=$($SK $(run bad gen) skill=nosuch train=tr-a test=te-b final 2>&1)
t_eq "an unknown skill: exit" $? 2
t_contains "says so" "$out" "no train task holds a skill folder 'nosuch'"
out=$($SK -n $(run bad gen) train=tr-a "$SPLIT_ARGS" final 2>&1)
t_eq "make -n: exit" $? 2
t_contains "make -n: refused, runs nothing" "$out" "make -n and -q do not take a skill run"
t_check "nothing made" test ! -e bad
t_end

t_begin "status shows the train and test tasks; clean-stage works per stage"
out=$($SK $(run gen gen) train=tr-a "$SPLIT_ARGS" status 2>&1)
t_eq "status exit" $? 0
t_contains "the train task" "$out" "train task tr-a, tuned here"
t_contains "a test task's final trials" "$out" "test task te-c, final trials (S_final):"
$SK $(run gen gen) train=tr-a "$SPLIT_ARGS" STAGE=deep-final clean-stage >/dev/null 2>&1
t_eq "clean-stage exit" $? 0
t_check "S_final gone" test ! -e gen/tr-a--*/artifacts/deep/S_final
out=$($SK $(run gen gen) train=tr-a "$SPLIT_ARGS" status 2>&1)
t_eq "status after: work due" $? 1
out=$($SK $(run gen gen) train=tr-a "$SPLIT_ARGS" final 2>&1)
t_eq "final again: exit" $? 0
t_eq "the same figures" "$(sum gen '[.train.mean_delta, .test.mean_delta, .gap] | join(" ")')" "1 1 0"
t_end

t_begin "kill -9 of a skill run, then the same command: the same end state"
setsid $SK -j2 $(run killed gen) train=tr-a "$SPLIT_ARGS" final >killed.out 2>&1 &
sid=$!
t_poll 120 sh -c 'ls killed/tr-a--*/traces/tr-a/fast/test-001/trial.json' || t_fail "the run never reached fast-eval"
while pkill -9 -s $sid 2>/dev/null; do sleep 0.01; done
wait $sid 2>/dev/null
t_check "it was cut short" test ! -e killed/skill-csv-sum--*/summary.json
out=$($SK -j2 $(run killed gen) train=tr-a "$SPLIT_ARGS" final 2>&1)
t_eq "rerun exit (output: $(printf '%s' "$out" | tail -3))" $? 0
pick='[.tasks[] | "\(.task) \(.raw.passed)/\(.raw.scored) \(.final.passed)/\(.final.scored)"] + [.train.mean_delta, .test.mean_delta, .gap] | map(tostring) | join(", ")'
t_eq "the summary's figures" "$(sum killed "$pick")" "$(sum gen "$pick")"
t_eq "S_final" "$(skillc-hash killed/tr-a--*/artifacts/deep/S_final | cut -d' ' -f1)" \
	"$(skillc-hash gen/tr-a--*/artifacts/deep/S_final | cut -d' ' -f1)"
t_end
