#!/bin/sh
# End-to-end: a skill run over two train tasks (docs/skill-runs.md, tuned
# over several): csv-sum tuned on tr-a and tr-b, pooled in the tuned run
# (POOL_TASKS), judged on te-c. The test device
# (tests/helpers/skill-device.sh): a skill holding GENMARK passes in every
# task, so deep's GENMARK edit is accepted by the exact stratified test over
# both train tasks: each stratum 0/3 against 3/3, p = (1/C(6,3))^2 = 0.0025.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR SKILLS MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE LLM_CACHE \
	SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS FINAL_FRESH FAST_MIN_TRACES FAST_TOP FAST_BOTTOM task tasks skill train test \
	POOL_TASKS
for t in tr-a tr-b te-c; do cp -R tasks/csv-column-sum tasks/$t; done
M=HOLDOUTMARK7
printf '\nThe %s ledger.\n' $M >>tasks/te-c/instruction.md
echo "$M" >tasks/te-c/tests/$M-expected.txt
# each train task's own instruction marker: Fast's map prompt of a trace holds its task's
printf '\nThe TUNEDMARKA ledger.\n' >>tasks/tr-a/instruction.md
printf '\nThe POOLMARKB ledger.\n' >>tasks/tr-b/instruction.md
# a literal only tr-b's tests hold, which the "leak" server's deep edit copies
printf '# LEAKB expected total 98765 for the ledger\n' >>tasks/tr-b/tests/test.sh
. "$T_ROOT/tests/helpers/skill-device.sh"
llm "$T_TMP/leak" "GENMARK: LEAKB expected total 98765 for the ledger"
llm "$T_TMP/k" "GENMARK: check the header first."
SPLIT='train=tr-a tr-b'
# AgentRM on a run's own loopback server, whose log then holds its requests too
rm_of() { echo "RM_API_URL=$(jq -r .providers.fake.base_url "$T_TMP/$1/routes.json" | sed 's|/v1$||')"; }
sum() { jq -r "$2" "$1"/skill-csv-sum--*/summary.json; }

t_begin "two train tasks and one test task run to final; Deep decides by the stratified test"
out=$($SK -j2 $(skill_settings gen gen) $(rm_of gen) "$SPLIT" test=te-c final 2>&1)
t_eq "exit (output: $(printf '%s' "$out" | tail -3))" $? 0
d=$(ls gen/tr-a--*/artifacts/deep/round-1/decision.json)
t_eq "the verdict" "$(jq -r .verdict "$d")" accept
t_eq "the test" "$(jq -r .statistics.rule.test "$d")" stratified
t_eq "both tasks' counts" \
	"$(jq -r '[.statistics.strata[] | "\(.task) \(.baseline.passed)/\(.baseline.trials) \(.candidate.passed)/\(.candidate.trials)"] | join(", ")' "$d")" \
	"tr-a 0/3 3/3, tr-b 0/3 3/3"
t_eq "the stratified p" "$(jq -r .statistics.p_value "$d")" 0.0025
t_eq "tr-b's trials ran with the candidate laid over its set" \
	"$(ls gen/tr-a--*/traces/tr-b/deep-1 | grep -c test-)" 3
t_eq "per train task raw -> final" \
	"$(sum gen '[.tasks[] | select(.role == "train") | "\(.task) \(.raw.passed)/\(.raw.scored) \(.final.passed)/\(.final.scored)"] | join(", ")')" \
	"tr-a 0/3 3/3, tr-b 0/3 3/3"
t_eq "the train figures pooled over both" "$(sum gen '"\(.train.tasks) \(.train.mean_delta)"')" "2 1"
t_eq "each task's final trials reuse its own selection trials" \
	"$(jq -r '.reused_from.trial | split("/") | .[-3]' gen/tr-a--*/traces/tr-?/final/test-00?/trial.json | sort | uniq -c | tr -s ' ')" \
	"$(printf ' 3 tr-a\n 3 tr-b')"
gen_requests=$(wc -l <"$T_TMP/gen/log.jsonl")
t_eq "held out" "$(sum gen '[.tasks[] | select(.role == "test") | "\(.task) \(.delta)"] | join(", ")')" "te-c 1"
t_end

t_begin "Fast read both train tasks' traces and nothing of the test task reached a request"
t_eq "scored traces of each train task" \
	"$(jq -r '[.traces[].trace | split("/") | if length > 1 then .[0] else "tr-a" end] | unique | join(" ")' \
		gen/tr-a--*/artifacts/fast/scores.json)" "tr-a tr-b"
t_check "the optimizer was asked" test -s "$T_TMP/gen/log.jsonl"
t_eq "requests naming the marker" "$(grep -c $M "$T_TMP/gen/log.jsonl")" 0
t_eq "requests naming the test task" "$(grep -c te-c "$T_TMP/gen/log.jsonl")" 0
t_end

t_begin "Fast's map prompt holds each trace's own task's instruction"
# the map request(s): the user message of each question about a unit
jq -r 'select(.body.messages[0].content | startswith("You review how")) | .body.messages[1].content' \
	"$T_TMP/gen/log.jsonl" >map.txt
t_check "a map question about a tr-b trace" grep -q '^## Trace [AB].*: tr-b/test-' map.txt
# the instruction section of each trace: its task's marker, not the other's
inst() { awk -v h="$1" '$0 == h { on = 1; next } /^## / { on = 0 } on' map.txt; }
if grep -q '^## Trace B (worse): tr-b/' map.txt && grep -q '^## Trace A.*: test-' map.txt; then
	t_contains "trace A (tr-a's): tr-a's instruction" "$(inst '## Task instruction of trace A')" TUNEDMARKA
	t_contains "trace B (tr-b's): tr-b's instruction" "$(inst '## Task instruction of trace B')" POOLMARKB
	t_check "not tr-a's" sh -c "! printf '%s' \"$(inst '## Task instruction of trace B')\" | grep -q TUNEDMARKA"
else
	t_fail "the unit is not tr-a's trace A against tr-b's trace B: $(grep '^## Trace' map.txt | tr '\n' ' ')"
fi
t_end

t_begin "Fast's AgentRM request of each trace holds that trace's own task's instruction"
# the score step's requests in the order sent, beside its usage records of them (a label
# names the trace; a "hit" sent nothing): the n-th sent request is the n-th "miss"
jq -c 'select(.endpoint == "score") | .body.instruction' "$T_TMP/gen/log.jsonl" >rm-sent.txt
jq -r 'select(.cache == "miss") | .label' gen/tr-a--*/status/fast-score.usage.jsonl >rm-labels.txt
t_eq "a request per miss" "$(wc -l <rm-sent.txt)" "$(wc -l <rm-labels.txt)"
paste -d ' ' rm-labels.txt rm-sent.txt >rm.txt
t_check "a request of its own for a tr-b trace (not tr-a's, cached)" grep -q '^agentrm tr-b/test-' rm.txt
t_check "a request for a tr-a trace" grep -q '^agentrm test-' rm.txt
t_eq "tr-b's traces: tr-b's instruction" \
	"$(grep '^agentrm tr-b/' rm.txt | grep -v POOLMARKB | grep -c TUNEDMARKA)/$(grep '^agentrm tr-b/' rm.txt | grep -vc POOLMARKB)" 0/0
t_eq "tr-a's traces: tr-a's instruction" \
	"$(grep '^agentrm test-' rm.txt | grep -c POOLMARKB)/$(grep '^agentrm test-' rm.txt | grep -vc TUNEDMARKA)" 0/0
t_end

t_begin "an edit of a pooled task's file: its trials and what follows run again, nothing else; the no-op notices"
R=$(ls -d gen/tr-a--* | head -1)
$SK $(skill_settings gen gen) "$SPLIT" test=te-c final >/dev/null 2>&1 # a no-op: the journal
lock=$(cat $R/.lock)
out=$($SK $(skill_settings gen gen) "$SPLIT" test=te-c final 2>&1)
t_eq "a no-op: exit" $? 0
t_eq "answered from the journal (no skillc-rules run)" "$(cat $R/.lock)" "$lock"
cp -p tasks/tr-b/instruction.md ref.md
sed -i 's/POOLMARKB/POOLMARKC/' tasks/tr-b/instruction.md
touch -r ref.md tasks/tr-b/instruction.md # same size, same mtime: the change time tells
out=$($SK $(skill_settings gen gen) "$SPLIT" test=te-c status 2>&1)
t_eq "status: work due" $? 1
t_check "tr-b's pooled trials: its task changed" \
	sh -c "printf '%s\n' \"\$1\" | grep -q 'raw-eval-pool.tr-b.001 *input changed: .*tasks/tr-b\$'" - "$out"
# (fast-map reads tr-b's instruction: fast and what follows wait for it, their trials from the store)
for t in raw-eval.001 raw-eval.003 static-eval.001 static-eval.003; do
	t_check "$t (tr-a's) up to date" sh -c "printf '%s\n' \"\$1\" | grep -q '^  $t  *up to date\$'" - "$out"
done
t_eq "the test task's runs up to date" "$(printf '%s\n' "$out" | grep -c '^up to date$')" 2
from=$(($(wc -l <bench.log) + 1))
out=$($SK -j2 $(skill_settings gen gen) "$SPLIT" test=te-c final 2>&1)
t_eq "final: exit (output: $(printf '%s' "$out" | tail -3))" $? 0
t_check "tr-b's trials ran again" grep -q -- '--tasks-dir [^ ]*/tasks/tr-b ' bench.log
t_eq "no trial of tr-a or te-c ran" "$(tail -n +$from bench.log | grep '^start' | grep -c -e '/tasks/tr-a ' -e '/tasks/te-c ')" 0
# static's, fast's and final's bytes equal raw's and deep's: reused, as in the first run
t_eq "tr-b's ran: 3 raw, 3 deep" "$(tail -n +$from bench.log | grep '^start' | grep -c '/tasks/tr-b ')" 6
t_check "Fast's map asked again, with tr-b's new instruction" grep -q POOLMARKC "$T_TMP/gen/log.jsonl"
t_check "AgentRM asked again, with tr-b's new instruction" \
	sh -c "jq -r 'select(.endpoint == \"score\") | .body.instruction' \"\$1\" | grep -q POOLMARKC" - \
	"$T_TMP/gen/log.jsonl"
t_eq "the same p" "$(jq -r .statistics.p_value gen/tr-a--*/artifacts/deep/round-1/decision.json)" 0.0025
t_end

t_begin "status shows both train tasks; clean-stage STAGE=deep works"
out=$($SK $(skill_settings gen gen) "$SPLIT" test=te-c status 2>&1)
t_eq "status exit ($out)" $? 0
t_contains "the tuned train task" "$out" "train task tr-a, tuned here"
t_contains "the pooled train task" "$out" "train task tr-b, pooled in the tuned run"
all="raw: 3 done, 0 running, 0 due; static: 3 done, 0 running, 0 due; fast: 3 done, 0 running, 0 due"
all="$all; deep-1: 6 done, 0 running, 0 due; final: 3 done, 0 running, 0 due"
t_contains "the tuned run's trials of tr-a by stage" "$out" "  trials of tr-a (tuned here): $all"
t_contains "... of tr-b, under tr-b's own line" "$out" \
	"(its trials there):
  trials of tr-b (pooled): $all"
out=$($SK $(skill_settings gen gen) "$SPLIT" test=te-c WATCH_TIMEOUT=20 watch 2>&1)
t_eq "watch: exit" $? 0
t_contains "watch: tr-b's trials" "$out" "Trials of tr-b: $all"
t_contains "watch: the test task's" "$out" "Trials of te-c: raw: 3 done, 0 running, 0 due"
t_contains "watch: the tuned run counted once" "$out" "44 of 44 due trials complete"
$SK $(skill_settings gen gen) "$SPLIT" test=te-c STAGE=deep clean-stage >/dev/null 2>&1
t_eq "clean-stage exit" $? 0
t_check "tr-b's deep trials gone" test ! -e "$(ls -d gen/tr-a--* | head -1)/traces/tr-b/deep-1/test-001"
out=$($SK $(skill_settings gen gen) "$SPLIT" test=te-c status 2>&1)
t_eq "status after: work due" $? 1
t_contains "tr-b's deep trials due" "$out" "deep-1: 0 done, 0 running, 6 due; final: 0 done, 0 running, 3 due"
out=$($SK -j2 $(skill_settings gen gen) "$SPLIT" test=te-c final 2>&1)
t_eq "final again: exit (output: $(printf '%s' "$out" | tail -3))" $? 0
t_eq "the same p" "$(jq -r .statistics.p_value gen/tr-a--*/artifacts/deep/round-1/decision.json)" 0.0025
t_end

t_begin "a Deep edit copying the second train task's tests/ is rolled back"
$SK -j2 $(skill_settings leak leak) "$SPLIT" test=te-c deep >leak.out 2>&1
E=$(ls leak/tr-a--*/artifacts/deep/round-1/edit.json)
t_eq "rolled back ($(tail -3 leak.out))" "$(jq -r '.attempts[0].status' "$E")" rolled_back
t_eq "by the leakage guard" "$(jq -r '.attempts[0].guard.check' "$E")" leak
t_contains "from tr-b's tests" "$(jq -r '.attempts[0].why' "$E")" "tests/test.sh"
t_check "not in the candidate" sh -c "! grep -rq 98765 leak/tr-a--*/artifacts/deep/round-1/candidate"
t_end

t_begin "kill -9 mid-run, then the same command: the same summary, nothing paid twice"
setsid $SK -j2 $(skill_settings killed k) $(rm_of k) "$SPLIT" test=te-c final >killed.out 2>&1 &
sid=$!
t_poll 300 sh -c 'ls killed/tr-a--*/traces/tr-b/fast/test-001/trial.json' || t_fail "the run never reached tr-b's fast trials"
while pkill -9 -s $sid 2>/dev/null; do sleep 0.01; done
wait $sid 2>/dev/null
t_check "it was cut short" test ! -e killed/skill-csv-sum--*/summary.json
out=$($SK -j2 $(skill_settings killed k) $(rm_of k) "$SPLIT" test=te-c final 2>&1)
t_eq "rerun exit (output: $(printf '%s' "$out" | tail -3))" $? 0
pick='[.tasks[] | "\(.task) \(.raw.passed)/\(.raw.scored) \(.final.passed)/\(.final.scored)"] + [.train.mean_delta, .test.mean_delta] | map(tostring) | join(", ")'
t_eq "the summary's figures" "$(sum killed "$pick")" "$(sum gen "$pick")"
t_eq "LLM requests: as many as the run never killed" "$(wc -l <"$T_TMP/k/log.jsonl")" "$gen_requests"
t_end
