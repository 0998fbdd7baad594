#!/bin/sh
# End-to-end: the deep stage, S_final and the final evaluation through real
# make. The stand-in bench (tests/helpers/fake-bench.sh) scripts outcomes by
# skill content (FAKE_BENCH_RULES: an edit carrying HELPS passes every
# trial), the loopback server (tests/helpers/fakellm) answers the score and
# edit questions; the compiler's model name picks the case.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS FINAL_FRESH
W=$T_TMP/work
mkdir -p "$W/fake" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
ln -s "$T_ROOT/tests/helpers/fake-docker.sh" fake/docker
PATH=$W/fake:$PATH
export PATH
export FAKE_BENCH_LOG=$W/bench.log FAKE_BENCH_RULES=$W/rules
S=tasks/dt/environment/skills/count-skill
mkdir -p $S tasks/dt/tests
printf '#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n' >tasks/dt/tests/test.sh
printf 'Count the ERROR lines per component.\n' >tasks/dt/instruction.md
printf '[agent]\ntimeout_sec = 600\n' >tasks/dt/task.toml
printf 'FROM debian:12\n' >tasks/dt/environment/Dockerfile
cat >$S/SKILL.md <<'EOF'
---
name: count-skill
description: Count ERROR lines per component in a log. Use when a task asks for error counts per component.
---

# Count skill

## Steps

Run the count:

```sh
grep ERROR app.log
```

Then count per component.

## Notes

Components are in square brackets.
EOF
# the raw/static skill passes trials 2 and 5 of 6 (2/6); markers in an edit change that
cat >rules <<'EOF'
HELPS => pass sleep=0.3
USELESS => fail ; pass ; fail
HURTS => fail
TOKENS => pass tokens=9000
GREY => pass ; pass ; fail ; pass ; pass ; pass
* => fail ; pass ; fail ; fail ; pass ; fail
EOF
SCORES='{"scores": [
 {"unit": "count-skill/steps#1", "relevance": {"score": 3, "evidence": "ls /root"}, "correctness": {"score": 2, "evidence": "ls /root"},
  "actionability": {"score": 2, "evidence": "ls /root"}, "economy": {"score": 3, "evidence": "ls /root"}, "findability": {"score": 2, "evidence": "ls /root"}},
 {"unit": "count-skill/notes#1", "relevance": {"score": 4, "evidence": "ls /root"}, "correctness": {"score": 4, "evidence": "made up"}},
 {"unit": "nope#1", "relevance": {"score": 1, "evidence": "ls /root"}}]}'
edit() { # edit CASE UNIT OP TEXT [FIND]
	printf '{"match": ["\\"model\\":\\"%s\\"", "The unit to edit: [count-skill/%s#1]"], "json": {"edit": {"op": "%s", %s"text": "%s", "why": "w"}}}' \
		"$1" "$2" "$3" "${5:+\"find\": \"$5\", }" "$4"
}
THEN='Then count per component.'
L=$T_TMP/llm
t_fakellm "$L" "{\"chat\": [{\"json\": {\"findings\": []}}], \"rules\": [
 {\"match\": [\"\\\"model\\\":\\\"slow\\\"\", \"## Units to score\"], \"delay\": 1.5, \"json\": $SCORES},
 {\"match\": \"## Units to score\", \"json\": $SCORES},
 $(edit helps steps update "Then count per component (HELPS: strip the brackets)." "$THEN"),
 {\"match\": [\"\\\"model\\\":\\\"slow\\\"\", \"The unit to edit: [count-skill/steps#1]\"], \"delay\": 1.5, \"json\": {\"edit\": {\"op\": \"update\", \"find\": \"$THEN\", \"text\": \"Then count per component (HELPS: strip the brackets).\", \"why\": \"w\"}}},
 $(edit useless steps update "Then count per component (USELESS)." "$THEN"),
 $(edit hurts steps update "Then count per component (HURTS)." "$THEN"),
 $(edit tokens steps update "Then count per component (TOKENS)." "$THEN"),
 $(edit grey steps update "Then count per component (GREY)." "$THEN"),
 $(edit fence steps update "Run the count with grep and count per component."),
 $(edit fence notes add "HELPS: components are case-sensitive."),
 $(edit memory steps update "Then count per component (USELESS)." "$THEN"),
 $(edit memory notes add "HELPS: components are case-sensitive.")]}"
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' "$FAKELLM_URL" >"$L/routes.json"
SK=$T_SK
base() { echo "task=dt RUNNER=benchflow MODEL=vllm/q REPEAT=3 ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env EXTERNAL_MODEL=fake/$1 RESULTS=${3:-r-$1} CACHE_DIR=${2:-$W/cache}"; }
run_of() { echo r-$1/dt--opencode--vllm_q; }
jget() { "$T_ROOT/build/tests/helpers/jget" "$@"; }
asked() { grep -c -- "$1" "$L/log.jsonl" 2>/dev/null || echo 0; }
# bench runs of a run's stage folder: starts RUNS STAGE
starts() { n=$(grep -c "^start .*$1/dt--opencode--vllm_q/traces/dt/$2/" bench.log 2>/dev/null); echo "${n:-0}"; }
# of those, the trial numbers that completed more than once (a kill -9 leaves no end line)
twice() {
	grep "^start .*$1/dt--opencode--vllm_q/traces/dt/$2/" bench.log | while read -r _ _ pid rest; do
		grep -q "^end [0-9.]* $pid " bench.log && printf '%s\n' "$rest" | sed -n 's/.*\/\.test-\([0-9]*\)\..*/\1/p'
	done | sort | uniq -d | tr '\n' ' '
}

t_begin "an edit that helps is accepted: make -j4 final runs every stage once; S_final is its candidate"
out=$($SK -j4 $(base helps) DEEP_ROUNDS=1 final 2>&1)
t_eq "exit" $? 0
R=$(run_of helps)
D=$R/artifacts/deep
t_contains "start" "$out" "deep starts from static"
t_contains "accepted" "$out" "round 1: accept: 3/3 vs baseline 2/6: barnard p = 0.04952 <= level 0.09851: accepted; best: deep-1"
t_contains "extension not needed" "$out" "round 1 trial 4: not needed: look 1 decided"
t_eq "extension trials not run" "$(starts r-helps deep-1)" 3
t_eq "decision" "$(jget $D/round-1/decision.json verdict)" accept
t_eq "p-value recorded" "$(jget $D/round-1/decision.json statistics.p_value)" 0.049518
t_contains "false-accept rate recorded" "$(jget $D/round-1/decision.json statistics.false_accept.worst)" 0.0
t_eq "power recorded" "$(jget $D/round-1/decision.json statistics.operating.1.kind)" gain
t_eq "runtime within" "$(jget $D/round-1/decision.json runtime.verdict)" within
t_check "S_final is the candidate" cmp $D/S_final/count-skill/SKILL.md $D/round-1/candidate/count-skill/SKILL.md
t_check "edit in S_final" grep -q 'HELPS: strip the brackets' $D/S_final/count-skill/SKILL.md
t_eq "manifest names it" "$(jget $R/manifest.json final_skill.path)" artifacts/deep/S_final/count-skill
t_eq "with its hash" "$(jget $R/manifest.json final_skill.hash)" "$(cat $D/S_final.hash)"
t_contains "last line" "$out" "final done; the skill is $R/artifacts/deep/S_final;"
t_check "summary written" test -f $R/summary.md
t_eq "dropped score entry counted" "$(jget $D/round-1/scores.json counts.no_unit)" 1
t_eq "unquoted dimension not counted" "$(jget $D/round-1/scores.json units.1.dimensions_counted)" 1
t_end

t_begin "the final evaluation reuses the accepted round's trials, marked; FINAL_FRESH=1 runs fresh ones"
t_eq "no final trial ran" "$(starts r-helps final)" 0
t_eq "reused" "$(jget $R/traces/dt/final/test-002/trial.json selection_reuse)" true
t_eq "from" "$(jget $R/traces/dt/final/test-002/trial.json reused_from.trial)" traces/dt/deep-1/test-002
t_contains "final index" "$(cat $R/traces/dt/final/index.json)" '"trials": 3'
t_contains "summary row marked" "$(cat $R/summary.md)" "| final (selection trials reused) | 3 |"
out=$($SK -j4 $(base helps) DEEP_ROUNDS=1 FINAL_FRESH=1 final 2>&1)
t_eq "fresh exit" $? 0
t_eq "three fresh trials (never from the store)" "$(starts r-helps final)" 3
t_check "not marked" sh -c "! grep -q selection_reuse $R/traces/dt/final/test-001/trial.json"
t_end

t_begin "a second make starts nothing and sends no request"
n=$(wc -l <"$L/log.jsonl")
b=$(grep -c '^start ' bench.log)
out=$($SK -j4 $(base helps) DEEP_ROUNDS=1 FINAL_FRESH=1 final 2>&1)
t_eq "exit" $? 0
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_eq "no request" "$(wc -l <"$L/log.jsonl")" "$n"
t_eq "no trial" "$(grep -c '^start ' bench.log)" "$b"
$SK $(base helps) DEEP_ROUNDS=1 FINAL_FRESH=1 status >/dev/null 2>&1
t_eq "status up to date" $? 0
t_end

t_begin "a useless edit (a tie), one that hurts, one that doubles tokens: rejected; S_final is the start"
for c in useless hurts tokens; do
	out=$($SK -j4 $(base $c) DEEP_ROUNDS=1 final 2>&1)
	[ $? -eq 0 ] || t_fail "$c: make failed: $out"
	D=$(run_of $c)/artifacts/deep
	t_eq "$c rejected" "$(jget $D/round-1/decision.json verdict)" reject
	t_check "$c: S_final is the start" cmp $D/S_final/count-skill/SKILL.md r-helps/dt--opencode--vllm_q/artifacts/static/S_static/count-skill/SKILL.md
	t_eq "$c remembered" "$(jget $D/rejected.json 0.unit)" count-skill/steps#1
done
t_contains "tie" "$(jget r-useless/dt--opencode--vllm_q/artifacts/deep/round-1/decision.json why)" "tied: rejected"
t_contains "behind" "$(jget r-hurts/dt--opencode--vllm_q/artifacts/deep/round-1/decision.json why)" "behind the baseline: rejected"
D=r-tokens/dt--opencode--vllm_q/artifacts/deep
t_contains "runtime" "$(jget $D/round-1/decision.json why)" "but a runtime regression (tokens: median ratio 3.59 > 1.10"
t_eq "runtime over" "$(jget $D/round-1/decision.json runtime.verdict)" over
t_eq "tokens ratio" "$(jget $D/round-1/decision.json runtime.tokens.median)" 3.5947
t_contains "rejected with numbers" "$(jget $D/rejected.json 0.why)" "runtime regression"
t_eq "start not reused for the final evaluation" "$(jget r-useless/dt--opencode--vllm_q/traces/dt/final/test-001/trial.json reused)" false
t_end

t_begin "an edit that breaks a code fence is rolled back; the next weakest unit is edited and accepted"
out=$($SK -j4 $(base fence) DEEP_ROUNDS=1 final 2>&1)
t_eq "exit" $? 0
D=$(run_of fence)/artifacts/deep
t_eq "first attempt" "$(jget $D/round-1/edit.json attempts.0.status)" rolled_back
t_eq "by the guard" "$(jget $D/round-1/edit.json attempts.0.guard.check)" code-block
t_eq "second unit" "$(jget $D/round-1/edit.json edit.unit)" count-skill/notes#1
t_eq "accepted" "$(jget $D/round-1/decision.json verdict)" accept
t_check "fence kept" grep -q '^grep ERROR app.log$' $D/S_final/count-skill/SKILL.md
t_check "note added" grep -q 'HELPS: components are case-sensitive.' $D/S_final/count-skill/SKILL.md
t_end

t_begin "a candidate in the grey zone gets more trials, then is accepted"
out=$($SK -j4 $(base grey) DEEP_ROUNDS=1 final 2>&1)
t_eq "exit" $? 0
D=$(run_of grey)/artifacts/deep
t_contains "look" "$out" "round 1 look 1: extend: 2/3 vs baseline 2/6"
t_eq "six trials" "$(starts r-grey deep-1)" 6
t_eq "decided at look 2" "$(jget $D/round-1/decision.json decided_at_look)" 2
t_eq "accepted" "$(jget $D/round-1/decision.json verdict)" accept
t_eq "counts" "$(jget $D/round-1/decision.json statistics.counts.candidate.passed)" 5
t_eq "backed by six trials" "$(jget $D/round-1/best.json trials.5.index)" 6
t_end

t_begin "two rounds: a rejected edit is remembered and not proposed again; S_final is the best, not the last"
out=$($SK -j4 $(base memory) DEEP_ROUNDS=2 final 2>&1)
t_eq "exit" $? 0
D=$(run_of memory)/artifacts/deep
t_eq "round 1 rejected" "$(jget $D/round-1/decision.json verdict)" reject
t_eq "round 2 edits another unit" "$(jget $D/round-2/edit.json edit.unit)" count-skill/notes#1
t_eq "round 2 accepted" "$(jget $D/round-2/decision.json verdict)" accept
req=$(grep 'The unit to edit: \[count-skill/notes#1\]' "$L/log.jsonl" | grep '"model":"memory"' | head -1)
t_contains "memory in the prompt" "$req" "Rejected edits of earlier rounds"
t_contains "the rejected edit" "$req" "(USELESS)"
t_check "S_final from round 2" grep -q 'HELPS: components' $D/S_final/count-skill/SKILL.md
t_check "without the rejected edit" sh -c "! grep -q USELESS $D/S_final/count-skill/SKILL.md"
t_eq "report" "$(jget $D/report.json final_source)" deep-2
t_end

t_begin "clean-stage STAGE=deep-2, STAGE=final-eval.003, STAGE=deep: each removes its part and what follows"
R=$(run_of memory)
out=$($SK $(base memory) DEEP_ROUNDS=2 clean-stage STAGE=deep-2 2>&1)
t_contains "round 2" "$out" "deep-2-score: removed"
t_contains "final" "$out" "final-eval.001: removed"
case $out in *deep-1-*) t_fail "round 1 removed: $out" ;; esac
t_check "round 1 kept" test -f $R/artifacts/deep/round-1/decision.json
out=$($SK $(base memory) DEEP_ROUNDS=2 clean-stage STAGE=final-eval.003 2>&1)
t_contains "one trial" "$out" "final-eval.003: "
case $out in *final-eval.002*) t_fail "another trial removed: $out" ;; esac
R=$(run_of helps)
n=$(wc -l <"$L/log.jsonl")
b=$(grep -c '^start ' bench.log)
out=$($SK $(base helps) DEEP_ROUNDS=1 clean-stage STAGE=deep 2>&1)
t_contains "deep gone" "$out" "deep-start: removed"
case $out in *fast-*) t_fail "fast removed: $out" ;; esac
out=$($SK -j4 $(base helps) DEEP_ROUNDS=1 FINAL_FRESH=1 final 2>&1)
t_eq "exit" $? 0
t_contains "deep ran" "$out" "deep-start: started"
t_contains "final ran" "$out" "final-eval.001: started"
case $out in *"fast-score: started"*|*"static: started"*) t_fail "fast or static ran again: $out" ;; esac
t_eq "nothing asked again" "$(wc -l <"$L/log.jsonl")" "$n"
t_eq "no trial ran again" "$(grep -c '^start ' bench.log)" "$b"
t_end

t_begin "kill -9 mid-score, mid-edit, mid-trials and after a look: the same bytes, nothing paid twice"
# the reference: uninterrupted
out=$($SK -j4 $(base slow $W/cache-ref ref) DEEP_ROUNDS=1 final 2>&1)
t_eq "reference exit" $? 0
REF=ref/dt--opencode--vllm_q
score0=$(asked '## Units to score'); edit0=$(asked 'The unit to edit')
sid=
kill_when() { # kill_when TEST...: start (or resume) make final, kill -9 everything once TEST holds
	setsid $SK -j4 $(base slow $W/cache-kill) DEEP_ROUNDS=1 final >>kill.out 2>&1 &
	sid=$!
	i=0
	while [ $i -lt 1200 ] && ! "$@"; do sleep 0.05; i=$((i + 1)); done
	kill -9 $(pgrep -s $sid) 2>/dev/null
	wait $sid 2>/dev/null
	i=0
	while [ $i -lt 200 ] && pgrep -s $sid >/dev/null; do sleep 0.05; i=$((i + 1)); done
}
K=r-slow/dt--opencode--vllm_q
asking() { [ "$(asked "$1")" -gt "$2" ]; }
kill_when asking '## Units to score' "$score0"
t_check "killed before the scores" test ! -e $K/artifacts/deep/round-1/scores.json
kill_when asking 'The unit to edit' "$edit0"
t_check "killed before the edit" test ! -e $K/artifacts/deep/round-1/edit.json
kill_when test -s $K/traces/dt/deep-1/test-002/trial.json
kill_when test -f $K/status/deep-1-look.001.ok
out=$($SK -j4 $(base slow $W/cache-kill) DEEP_ROUNDS=1 final 2>&1)
t_eq "resumed exit" $? 0
for f in artifacts/deep/S_final.hash artifacts/deep/round-1/decision.json artifacts/deep/round-1/best.json \
	artifacts/deep/round-1/edit.json artifacts/deep/round-1/scores.json artifacts/deep/report.json artifacts/fast/patches.json; do
	t_check "same $f" cmp $K/$f $REF/$f
done
t_eq "S_final" "$(skillc-hash $K/artifacts/deep/S_final | cut -d' ' -f1)" "$(skillc-hash $REF/artifacts/deep/S_final | cut -d' ' -f1)"
# each question answered once per run, plus the one cut short by each kill
t_eq "score asked: reference 1, killed run 1 cut short + 1" "$(( $(asked '## Units to score') - score0 ))" 2
t_eq "edit asked: 1 cut short + 1" "$(( $(asked 'The unit to edit') - edit0 ))" 2
t_eq "no candidate trial completed twice" "$(twice r-slow deep-1)" ""
t_eq "no static trial completed twice" "$(twice r-slow static)" ""
t_eq "no fast trial completed twice" "$(twice r-slow fast)" ""
t_eq "final trials reused" "$(jget $K/traces/dt/final/test-003/trial.json selection_reuse)" true
t_end

t_begin "skillc-deep run: a front over make (deep from given traces, no fast stage); resume pays nothing"
R=$(run_of helps)
n=$(wc -l <"$L/log.jsonl")
export ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache-alone
out=$(skillc-deep run --skill $S --traces $R/traces/dt/static --output alone --model fake/helps --task tasks/dt \
	--target-model vllm/q --runner benchflow --rounds 1 2>&1)
t_eq "exit" $? 0
t_contains "accepted" "$out" "round 1: accept: 3/3 vs baseline 2/6"
t_contains "said where" "$out" "S_final: alone/artifacts/deep/S_final"
t_check "S_final" grep -q 'HELPS: strip the brackets' alone/artifacts/deep/S_final/count-skill/SKILL.md
t_eq "three candidate trials" "$(grep -c '^start .*alone/.run/traces/dt/deep-1/' bench.log)" 3
t_check "the traces imported as static trials" test -f alone/traces/dt/static/test-006/trial.json
t_check "make ran deep-start" test -f alone/.run/status/deep-start.ok
t_check "no fast stage" test ! -e alone/.run/status/fast-score.json
t_eq "start: the skill alone" "$(jget alone/artifacts/deep/round-0/best.json source)" static
t_eq "the rule recorded" "$(jget alone/deep-run.json max)" 6
asked_now=$(wc -l <"$L/log.jsonl")
b=$(grep -c '^start ' bench.log)
before=$(skillc-hash alone/artifacts/deep | cut -d' ' -f1)
out=$(skillc-deep resume --run alone 2>&1)
t_eq "resume exit" $? 0
t_contains "up to date" "$out" "alone: up to date"
t_eq "no request on resume" "$(wc -l <"$L/log.jsonl")" "$asked_now"
t_eq "no trial on resume" "$(grep -c '^start ' bench.log)" "$b"
t_eq "same bytes" "$(skillc-hash alone/artifacts/deep | cut -d' ' -f1)" "$before"
t_hold_lock alone/.run 3
out=$(skillc-deep resume --run alone 2>&1)
t_eq "resume of a run another make holds: make's 2, not 1" $? 2
t_contains "busy" "$out" "is busy"
wait $t_holder
out=$(skillc-deep resume --run nowhere 2>&1)
t_eq "resume of nothing" $? 2
t_contains "says so" "$out" "resume --run DIR needs a folder made by skillc-deep run"
# the same traces as BenchFlow runs (each trial's raw/ output): the same start and S_final
mkdir bf && for t in $R/traces/dt/static/test-*; do cp -R $t/raw bf/$(basename $t); done
out=$(skillc-deep run --skill $S --traces bf --output from-bf --model fake/helps --task tasks/dt \
	--target-model vllm/q --runner benchflow --rounds 1 2>&1)
t_eq "from BenchFlow runs: exit" $? 0
t_check "BenchFlow runs normalized" test -f from-bf/traces/dt/static/test-006/trial.json
t_eq "the skill's use seen (its name given)" "$(jget from-bf/traces/dt/static/test-002/trial.json skill.invoked)" \
	"$(jget $R/traces/dt/static/test-002/trial.json skill.invoked)"
t_eq "and it was used" "$(jget $R/traces/dt/static/test-002/trial.json skill.invoked)" true
t_check "the same decision" cmp from-bf/artifacts/deep/round-1/decision.json alone/artifacts/deep/round-1/decision.json
t_check "the same S_final" cmp from-bf/artifacts/deep/S_final.hash alone/artifacts/deep/S_final.hash
t_end

t_begin "kill -9 of skillc-deep run mid-edit: resume ends with the bytes and requests of an uninterrupted run"
front() { # front OUTPUT: skillc-deep run of the slow model into OUTPUT
	skillc-deep run --skill $S --traces $R/traces/dt/static --output "$1" --model fake/slow --task tasks/dt \
		--target-model vllm/q --runner benchflow --rounds 1
}
CACHE_DIR=$W/cache-front-ref front front-ref >front-ref.out 2>&1
t_eq "reference exit" $? 0
score0=$(asked '## Units to score'); edit0=$(asked 'The unit to edit')
export CACHE_DIR=$W/cache-front-kill
setsid sh -c "$(command -v skillc-deep) run --skill $S --traces $R/traces/dt/static --output front-kill \
	--model fake/slow --task tasks/dt --target-model vllm/q --runner benchflow --rounds 1" >front-kill.out 2>&1 &
sid=$!
i=0
while [ $i -lt 1200 ] && ! [ "$(asked 'The unit to edit')" -gt "$edit0" ]; do sleep 0.05; i=$((i + 1)); done
t_check "killed before the edit" test ! -e front-kill/artifacts/deep/round-1/edit.json
# the front, its make and every stage at once
kill -9 $(pgrep -s $sid) 2>/dev/null
wait $sid 2>/dev/null
i=0
while [ $i -lt 200 ] && pgrep -s $sid >/dev/null; do sleep 0.05; i=$((i + 1)); done
out=$(skillc-deep resume --run front-kill 2>&1)
t_eq "resume exit" $? 0
for f in S_final.hash round-1/decision.json round-1/best.json round-1/edit.json round-1/scores.json report.json; do
	t_check "same $f" cmp front-kill/artifacts/deep/$f front-ref/artifacts/deep/$f
done
# reference 1 + 1; the killed run: the scores once, the edit cut short + once
t_eq "score asked once" "$(( $(asked '## Units to score') - score0 ))" 1
t_eq "edit asked: 1 cut short + 1" "$(( $(asked 'The unit to edit') - edit0 ))" 2
t_eq "three candidate trials" "$(grep -c '^start .*front-kill/.run/traces/dt/deep-1/' bench.log)" 3
unset ROUTES ENV_FILE CACHE_DIR
t_end

t_begin "each step takes only its own options"
out=$(skillc-deep score --run x --round 1 --rounds 3 2>&1)
t_eq "score --rounds" $? 2
t_contains "unknown" "$out" "unknown option"
out=$(skillc-deep run --round 1 2>&1)
t_eq "run --round" $? 2
out=$(skillc-deep final --run x --rounds 1 --first 3 2>&1)
t_eq "final takes no RULE" $? 2
out=$(skillc-deep look --run x --round 1 --look 1 -- true 2>&1)
t_eq "look runs no command" $? 2
help=$(skillc-deep score --help)
rows=${help#*options:}
t_contains "score's help: --round" "$rows" "--round K"
case $rows in *--rounds*|*--first*) t_fail "score's help lists another step's rows: $rows" ;; esac
t_contains "run's help: --target-model" "$(skillc-deep run --help)" "--target-model M"
t_end

t_begin "make ingest alone of a changed skill: S_final is named stale, not the skill"
cd "$W"
echo "A line added after final." >>$S/SKILL.md
out=$($SK $(base helps) DEEP_ROUNDS=1 FINAL_FRESH=1 ingest 2>&1)
t_eq "exit" $? 0
case $out in *"the skill is"*) t_fail "claims a skill: $out" ;; esac
t_contains "says what is due" "$out" "ingest done; still due for final: "
t_end
