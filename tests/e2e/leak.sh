#!/bin/sh
# End-to-end: the leakage guard in a real make run. The compiler's model
# (the loopback server) answers Fast's reduce with two patches, one of which
# copies the expected counts from the task's tests/test.sh into the skill:
# that one is rolled back and recorded with the text it copied, the other
# applies, the report counts it, and the stage goes on to its trials.
# Deep's edit goes through the same guard: the round's first edit copies the
# same counts and is rolled back, the next unit's edit holds and the round
# runs its trials (docs/leakage.md). make audit prints both findings.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE REPEAT FAST_MIN_TRACES
W=$T_TMP/work
mkdir -p "$W/fake" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
ln -s "$T_ROOT/tests/helpers/fake-docker.sh" fake/docker
PATH=$W/fake:$PATH
export PATH
export FAKE_BENCH_LOG=$W/bench.log FAKE_BENCH_RULES=$W/rules
cat >rules <<'EOF2'
* => pass ; fail tests=3/5 failing=test_db_count,test_http_count ; pass ; fail tests=1/5 failing=test_db_count ; pass ; fail
EOF2
L=$T_TMP/llm
t_fakellm "$L" '{"chat": [{"json": {"findings": [{"section": "log-triage/gotchas#1", "kind": "missing", "evidence": "ls /root", "suggestion": "Say that levels are exact."}]}}], "rules": [
 {"match": "## Findings, by section and kind", "json": {"patches": [
   {"op": "add", "section": "log-triage/gotchas#1", "text": "- The right answer here is {\"cache-v2\": 1, \"db\": 3, \"http\": 1}.", "why": "copied from the tests"},
   {"op": "add", "section": "log-triage/gotchas#1", "text": "- Count only lines whose level field is exactly `ERROR`.", "why": "exact levels"}]}},
 {"match": "## Units to score", "json": {"scores": [
   {"unit": "log-triage/quick-start#1", "relevance": {"score": 2, "evidence": "ls /root"}, "correctness": {"score": 2, "evidence": "ls /root"}, "actionability": {"score": 2, "evidence": "ls /root"}},
   {"unit": "log-triage/gotchas#1", "relevance": {"score": 3, "evidence": "ls /root"}, "correctness": {"score": 3, "evidence": "ls /root"}, "actionability": {"score": 3, "evidence": "ls /root"}}]}},
 {"match": "The unit to edit: [log-triage/quick-start#1]", "json": {"edit": {"op": "add",
   "text": "Write exactly {\"cache-v2\": 1, \"db\": 3, \"http\": 1} to the report.", "why": "copied from the tests"}}},
 {"match": "The unit to edit: [log-triage/gotchas#1]", "json": {"edit": {"op": "add",
   "text": "- Strip only the brackets around a level.", "why": "w"}}}]}'
cat >"$L/routes.json" <<EOF2
{"providers": {"fake": {"base_url": "$FAKELLM_URL", "key_env": null, "timeout": 20, "connect_timeout": 2,
  "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.05}}}}
EOF2
SK=$T_SK
FS="task=log-error-report RUNNER=benchflow MODEL=vllm/q REPEAT=3 EXTERNAL_MODEL=fake/compiler ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache"
R=results/compile-pipeline/log-error-report--opencode--vllm_q
F=$R/artifacts/fast
jget() { "$T_ROOT/build/tests/helpers/jget" "$@"; }

t_begin "a Fast patch that copies the expected counts from tests/ is rolled back; the stage carries on"
out=$($SK -j2 $FS fast-eval 2>&1)
t_eq "exit" $? 0
t_contains "apply" "$out" "log-triage: 1 patch(es) applied, 1 rolled back, 0 rejected"
t_contains "said" "$out" "log-triage: the leakage guard rolled back 1 patch(es) that copied the task's held-out files"
t_eq "rolled back" "$(jget $F/report.json patches.0.status)" rolled_back
t_eq "by the leakage guard" "$(jget $F/report.json patches.0.guard.check)" leak
t_contains "with the copied text and its source" "$(jget $F/report.json patches.0.guard.item)" \
	'literal from tests/test.sh: "cache-v2": 1, "db": 3, "http": 1'
t_eq "counted" "$(jget $F/report.json counts.leaks)" 1
t_eq "the other patch applied" "$(jget $F/report.json patches.1.status)" applied
t_contains "report.md counts it" "$(cat $F/report.md)" "Leakage guard: 1 patch(es) rolled back"
t_check "the value is not in S_fast" sh -c "! grep -rq 'answer here is' $F/S_fast"
t_check "the good patch is" grep -q 'exactly `ERROR`' $F/S_fast/log-triage/SKILL.md
t_check "fast trials ran" test -f $R/traces/log-error-report/fast/test-003/trial.json
t_end

t_begin "by hand: the same verdict; without --task no guard; verifier output is held out too"
# the instruction's example {"db": 3, "http": 1} is known: only cache-v2 made it a leak
t_check "instruction has the example" grep -q '{"db": 3, "http": 1}' tasks/log-error-report/instruction.md
H=$W/byhand
mkdir -p $H && cp $F/patches.json $H/
skillc-fast apply --skill $R/artifacts/static/S_static --dir $H --budget 5000 \
	--task tasks/log-error-report --traces $R/traces/log-error-report/static --trials 6 >out.txt 2>&1
t_eq "exit" $? 0
t_contains "same verdict" "$(cat out.txt)" "1 patch(es) applied, 1 rolled back"
skillc-fast apply --skill $R/artifacts/static/S_static --dir $H --budget 5000 >out.txt 2>&1
t_contains "without --task" "$(cat out.txt)" "2 patch(es) applied, 0 rolled back"
# another train task's tests (a skill run's pooled train tasks): held out too, named by task
skillc-fast apply --skill $R/artifacts/static/S_static --dir $H --budget 5000 \
	--task tasks/csv-column-sum --leak-task tasks/log-error-report >out.txt 2>&1
t_contains "--leak-task: the other task's tests hold it" "$(cat out.txt)" "1 patch(es) applied, 1 rolled back"
t_contains "named by task" "$(jget $H/report.json patches.0.guard.item)" "from log-error-report: tests/"
# a failing test's message as the verifier printed it (fake-bench's ctrf.json)
cat >$H/patches.json <<'EOF2'
{"patches": [{"n": 1, "op": "add", "section": "log-triage/gotchas#1", "why": "v",
  "text": "- Beware test_db_count: AssertionError: test_db_count: counts differ for component db."}]}
EOF2
skillc-fast apply --skill $R/artifacts/static/S_static --dir $H --budget 5000 --task tasks/log-error-report >out.txt 2>&1
t_contains "tests and solution alone do not hold it" "$(cat out.txt)" "1 patch(es) applied, 0 rolled back"
skillc-fast apply --skill $R/artifacts/static/S_static --dir $H --budget 5000 --task tasks/log-error-report \
	--traces $R/traces/log-error-report/static --trials 6 >out.txt 2>&1
t_contains "the verifier output does" "$(cat out.txt)" "0 patch(es) applied, 1 rolled back"
t_contains "named" "$(jget $H/report.json patches.0.guard.item)" "shingle from the verifier output of test-002"
skillc-fast apply --skill $R/artifacts/static/S_static --dir $H --budget 5000 --task $W/nope >out.txt 2>&1
t_eq "a missing task folder: exit 2" $? 2
t_contains "names it" "$(cat out.txt)" "nope"
t_end

t_begin "a Deep edit that copies the expected counts from tests/ is rolled back, recorded; the round carries on"
D=$R/artifacts/deep
out=$($SK -j2 $FS DEEP_ROUNDS=1 deep 2>&1)
t_eq "exit (output: $(printf '%s' "$out" | tail -3))" $? 0
E=$D/round-1/edit.json
t_eq "the first attempt: the copying unit" "$(jget $E attempts.0.unit)" log-triage/quick-start#1
t_eq "rolled back" "$(jget $E attempts.0.status)" rolled_back
t_eq "by the leakage guard" "$(jget $E attempts.0.guard.check)" leak
t_contains "why, with the copied text and its source" "$(jget $E attempts.0.why)" \
	'rolled back by the leakage guard: literal from tests/test.sh: "cache-v2": 1, "db": 3, "http": 1'
t_eq "counted in the round" "$(jget $E leaks)" 1
t_eq "the next unit's edit held" "$(jget $E attempts.1.status)" applied
t_eq "the round's edit" "$(jget $E edit.unit)" log-triage/gotchas#1
t_check "the value is not in the round's candidate" sh -c "! grep -rq 'Write exactly' $D/round-1/candidate"
t_check "the round's trials ran" test -f $R/traces/log-error-report/deep-1/test-001/trial.json
t_check "the round was decided" test -f $D/round-1/decision.json
t_check "S_final is published" test -f $D/S_final.hash
t_check "the value is not in S_final" sh -c "! grep -rq 'Write exactly' $D/S_final"
t_eq "counted in deep's report" "$(jget $D/report.json leaks)" 1
t_eq "per round" "$(jget $D/report.json rounds.0.leaks)" 1
t_contains "report.md says so" "$(cat $D/report.md)" "Leakage guard: 1 edit(s) rolled back"
t_end

t_begin "make audit: each stage's leakage findings with the text and its source, skill use, the final skill"
out=$($SK $FS audit 2>&1)
t_eq "exit" $? 0
t_contains "the run" "$out" "$R (log-error-report, opencode, vllm/q)"
t_contains "fast" "$out" "  fast: 3 trials; skill log-triage invoked "
t_contains "fast's count" "$out" "; leakage guard: 1 patch rolled back"
t_contains "fast's finding" "$out" '    leak: patch 1 (log-triage/gotchas#1) rolled back: literal from tests/test.sh: "cache-v2": 1, "db": 3, "http": 1'
t_contains "deep's count" "$out" "; leakage guard: 1 edit rolled back"
t_contains "deep's finding" "$out" '    leak: attempt 1 (log-triage/quick-start#1) rolled back: literal from tests/test.sh: "cache-v2": 1, "db": 3, "http": 1'
t_contains "totals" "$out" "skillc-audit: 1 run, 2 leakage findings rolled back, "
t_end
