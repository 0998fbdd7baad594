#!/bin/sh
# End-to-end: make gate and make junit (issue 18.1, 18.2) over real run
# folders made by real make with the stand-in bench, and over run folders
# built here by hand in the documented trial layout
# (traces/<task>/<stage>/test-NNN/trial.json) for the stages the pipeline
# does not run yet (final). The JUnit files are validated with
# xmllint against tests/fixtures/junit/junit.xsd.
. "$(dirname "$0")/../lib.sh"

command -v xmllint >/dev/null 2>&1 || { t_skip "gate.sh" "xmllint is not installed (apt-get install libxml2-utils)"; exit 0; }
XSD=$T_ROOT/tests/fixtures/junit/junit.xsd
t_bench_work
unset ROUTES ENV_FILE BENCH CACHE_DIR RESULTS GATE_STAGE GATE_RULE GATE_MIN_DELTA GATE_MAX_REGRESSED GATE_VS
M=vllm/Qwen/Qwen3.5-27B
RUNNAME=log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
# log-error-report: the qwen profile's static compile changes the skill, so
# static runs its own trials (raw, then static, in order with -j1)
mk() { # RESULTS-folder make-args...
	r=$1; shift
	$T_SK task=log-error-report RUNNER=benchflow MODEL=$M \
		REPEAT=5 RESULTS=$r CACHE_DIR=$r/.cache "$@"
}
script() { rm -f script.n; printf '%s sleep=0\n' "$@" >script; }
valid() { xmllint --noout --schema "$XSD" "$1"; }

# --- real runs -----------------------------------------------------------
t_begin "static beats raw (1/5 -> 5/5): make gate GATE_STAGE=static passes, with the summary's interval"
script fail fail fail fail pass pass pass pass pass pass
mk win eval >out.log 2>&1
t_eq "eval" $? 0
out=$(mk win gate GATE_STAGE=static 2>&1)
t_eq "exit" $? 0
t_contains "ok line" "$out" "ok log-error-report (opencode, $M, benchflow, bench work): static 5/5 = 100.0% [56.6%, 100.0%] vs raw 1/5 = 20.0% [3.6%, 62.4%]; static - raw +80.0 pp [+19.3, +96.4]"
t_contains "verdict" "$out" "gate: PASS: 1 run, 1 pass, 0 fail"
# judged on the lower bound summary.json holds: a margin at it passes, one above fails
mk win summary >/dev/null 2>&1
lo=$(jq '.groups[] | select(.stage == "static") | .delta_pp_ci95[0]' win/$RUNNAME/summary.json)
t_eq "the summary's lower bound" "$lo" 19.26
skillc-gate --stage static --rule gain --min-delta 19.26 win >/dev/null 2>&1
t_eq "a margin at the lower bound passes" $? 0
skillc-gate --stage static --rule gain --min-delta 19.27 win >/dev/null 2>&1
t_eq "a margin just above it fails" $? 1
out=$(mk win gate GATE_STAGE=static GATE_RULE=gain GATE_MIN_DELTA=20 2>&1)
t_eq "make gate GATE_MIN_DELTA=20" $? 1
t_contains "why" "$out" "static - raw: lower bound +19.3 pp < GATE_MIN_DELTA 20"
t_end

t_begin "the final stage has not run: make gate (GATE_STAGE=final) cannot judge, exit 2"
out=$(mk win gate 2>&1)
t_eq "exit" $? 2
t_contains "why" "$out" "ERROR log-error-report (opencode, $M, benchflow, bench work): cannot be judged: no final trials"
t_contains "make says" "$out" "skillc: gate cannot judge the runs"
t_end

t_begin "make junit: one test case per stage, valid against the JUnit schema, no failure"
out=$(mk win junit 2>&1)
t_eq "exit" $? 0
J=win/$RUNNAME/junit.xml
t_contains "said" "$out" "2 test cases (0 failures, 0 errors) from 1 run -> $J"
t_check "valid" valid $J
t_eq "cases" "$(grep -c '<testcase ' $J)" 2
t_eq "failures" "$(grep -c '<failure' $J)" 0
t_contains "message" "$(cat $J)" "<system-out>static 5/5 = 100.0% [56.6%, 100.0%]; vs raw 1/5 = 20.0% [3.6%, 62.4%]: +80.0 pp [+19.3, +96.4]</system-out>"
t_end

t_begin "static regresses (5/5 -> 1/5): the gate fails with the reason; junit shows one failure with the numbers"
script pass pass pass pass pass fail fail fail fail pass
mk reg eval >out.log 2>&1
t_eq "eval" $? 0
out=$(mk reg gate GATE_STAGE=static 2>&1)
t_eq "exit" $? 1
t_contains "why" "$out" "FAIL log-error-report (opencode, $M, benchflow, bench work): static 1/5 = 20.0% [3.6%, 62.4%] vs raw 5/5 = 100.0% [56.6%, 100.0%]; static - raw -80.0 pp [-96.4, -19.3]: static - raw: upper bound -19.3 pp < 0, a loss beyond the noise; regressed below raw (more than GATE_MAX_REGRESSED 0)"
t_contains "verdict" "$out" "gate: FAIL: 1 run, 0 pass, 1 fail, 0 cannot be judged; 1 regressed (at most 0)"
mk reg gate GATE_STAGE=static GATE_RULE=gain GATE_MIN_DELTA=-100 GATE_MAX_REGRESSED=1 >/dev/null 2>&1
t_eq "a rule that allows it passes" $? 0
mk reg junit >/dev/null 2>&1
J=reg/$RUNNAME/junit.xml
t_check "valid" valid $J
t_eq "one failure" "$(grep -c '<failure' $J)" 1
t_contains "with the numbers" "$(grep '<failure' $J)" '<failure type="regression" message="static 1/5 = 20.0% [3.6%, 62.4%]; vs raw 5/5 = 100.0% [56.6%, 100.0%]: -80.0 pp [-96.4, -19.3]">'
t_contains "counted" "$(grep '<testsuites' $J)" 'tests="2" failures="1" errors="0"'
t_end

t_begin "an infra-only run is a 2, not a pass; junit reports errors"
script infra
for i in 1 2 3; do mk inf -k eval >out.log 2>&1; done
t_eq "third make keeps them as infra errors" $? 0
out=$(mk inf gate GATE_STAGE=static 2>&1)
t_eq "exit" $? 2
t_contains "why" "$out" "cannot be judged: static has no scored trials (5 infra errors, 0 verifier errors)"
mk inf junit >/dev/null 2>&1
J=inf/$RUNNAME/junit.xml
t_check "valid" valid $J
t_eq "errors" "$(grep -c '<error type="no-scored-trials"' $J)" 2
t_end

# --- run folders built by hand, in the documented trial layout ----------
trial() { # results run stage n passed
	d=$1/$2/traces/${TASK:-demo}/$3/test-$4
	mkdir -p "$d"
	printf '{"format": 1, "complete": true, "task": "%s", "harness": "%s", "model": "vllm/q", "runner": "local", "stage": "%s", "skill_hash": "%s", "outcome": "%s", "passed": %s, "reward": %s, "durations": {"total": 10}}\n' \
		"${TASK:-demo}" "${HARNESS_NAME:-opencode}" "$3" "$([ "$3" = noskill ] && echo no-skill || echo hand-built)" "$([ "$5" = true ] && echo passed || echo failed)" \
		"$5" "$([ "$5" = true ] && echo 1.0 || echo 0.0)" >"$d/trial.json"
}
stage() { # results run stage passes of-n
	i=1
	while [ $i -le $5 ]; do
		trial "$1" "$2" "$3" "$(printf %03d $i)" "$([ $i -le $4 ] && echo true || echo false)"
		i=$((i + 1))
	done
}

t_begin "hand-built runs: final beats raw and noskill; GATE_VS=noskill judges both"
stage hb run1 raw 1 6
stage hb run1 final 6 6
stage hb run1 noskill 0 6
out=$(skillc-gate hb 2>&1)
t_eq "exit" $? 0
t_contains "line" "$out" "ok demo (opencode, vllm/q, local): final 6/6 = 100.0% [61.0%, 100.0%] vs raw 1/6 = 16.7% [3.0%, 56.4%]; final - raw +83.3 pp"
out=$($T_SK RESULTS=hb gate GATE_VS=noskill 2>&1)
t_eq "make gate GATE_VS=noskill" $? 0
t_contains "both" "$out" "final - noskill +100.0 pp"
t_contains "rule" "$out" "rule no-regression: final - raw and - noskill, upper 95% bound >= 0 pp"
t_end

t_begin "hand-built runs: final beats raw but not noskill fails with GATE_VS=noskill; no noskill is a 2"
stage hb2 run1 raw 1 6
stage hb2 run1 final 6 6
stage hb2 run1 noskill 6 6
out=$(skillc-gate --rule gain --vs noskill hb2 2>&1)
t_eq "exit" $? 1
t_contains "why" "$out" "final - noskill: lower bound -39.0 pp < GATE_MIN_DELTA 0"
skillc-gate hb2 >/dev/null 2>&1
t_eq "without GATE_VS it passes" $? 0
skillc-gate --vs noskill win >/dev/null 2>&1
t_eq "no noskill stage" $? 2
t_end

t_begin "several runs: one line per failing run; GATE_MAX_REGRESSED counts runs below raw; a 2 wins"
stage many good raw 1 6
stage many good static 6 6
cp -R reg/$RUNNAME many/bad
out=$(skillc-gate --stage static many 2>&1)
t_eq "one regression, none allowed" $? 1
t_eq "one failing line" "$(printf '%s\n' "$out" | grep -c '^FAIL ')" 1
t_contains "the good one" "$out" "ok demo (opencode, vllm/q, local): static 6/6"
t_contains "counted" "$out" "gate: FAIL: 2 runs, 1 pass, 1 fail, 0 cannot be judged; 1 regressed (at most 0)"
skillc-gate --stage static --rule gain --min-delta -100 --max-regressed 1 many >/dev/null 2>&1
t_eq "one allowed, no margin" $? 0
skillc-gate --stage static --rule gain --min-delta -100 many >/dev/null 2>&1
t_eq "no margin, but none allowed" $? 1
TASK=other stage many nostatic raw 1 6
TASK=other stage many nostatic final 6 6
out=$(skillc-gate --stage static many 2>&1)
t_eq "a run without the stage makes it a 2" $? 2
t_contains "why" "$out" "cannot be judged: no static trials"
t_end

t_begin "the default rule (no-regression) passes a tie and noise, fails evidence of a loss; gain wants evidence of a gain"
stage tie run1 raw 3 3
stage tie run1 final 3 3
out=$($T_SK RESULTS=tie gate 2>&1)
t_eq "a tie at 3 trials passes" $? 0
t_contains "rule" "$out" "rule no-regression: final - raw, upper 95% bound >= 0 pp"
stage noise run1 raw 3 3
stage noise run1 final 2 3
skillc-gate noise >/dev/null 2>&1
t_eq "3/3 -> 2/3 is noise: passes, and is not counted regressed" $? 0
out=$($T_SK RESULTS=tie gate GATE_RULE=gain 2>&1)
t_eq "gain fails the tie" $? 1
t_contains "why" "$out" "lower bound"
t_contains "rule" "$out" "rule gain: final - raw, lower 95% bound >= 0 pp"
skillc-gate --rule gain --min-delta -60 tie >/dev/null 2>&1
t_eq "gain with a stated non-inferiority margin passes the tie" $? 0
out=$($T_SK RESULTS=tie gate GATE_RULE=best 2>&1)
t_eq "a bad rule" $? 2
t_contains "says" "$out" "bad GATE_RULE 'best'"
t_end

t_begin "bad input: exit 2 with one line"
out=$(mk win gate GATE_MIN_DELTA=abc 2>&1)
t_eq "min delta" $? 2
t_contains "says" "$out" "bad GATE_MIN_DELTA 'abc': a whole number from -100 to 100"
out=$(mk win gate GATE_VS=raw 2>&1)
t_eq "vs" $? 2
t_contains "says vs" "$out" "bad GATE_VS 'raw': one of none noskill"
skillc-gate --min-delta 1e400 win >/dev/null 2>&1
t_eq "skillc-gate checks too" $? 2
out=$(skillc-gate --max-regressed -1 win 2>&1)
t_eq "a negative count" $? 2
t_contains "says count" "$out" "skillc-gate: --max-regressed (GATE_MAX_REGRESSED) wants a whole number from 0 to 1000000, not '-1'"
out=$(mk win summary gate 2>&1)
t_eq "gate with other goals" $? 2
t_contains "says alone" "$out" "run make gate on its own"
mkdir -p empty
out=$($T_SK RESULTS=empty gate 2>&1)
t_eq "no runs" $? 2
t_contains "says none" "$out" "no runs under empty"
skillc-junit 2>/dev/null
t_eq "junit without a folder" $? 2
t_end

t_begin "junit escapes what it quotes: a harness named x&y\"<z>' still gives a valid file"
HARNESS_NAME='x&y\"<z>'\' stage odd run1 raw 1 3  # JSON-escaped quote
skillc-junit odd >/dev/null 2>&1
t_eq "written" $? 0
t_check "valid" valid odd/junit.xml
t_contains "escaped" "$(cat odd/junit.xml)" 'value="x&amp;y&quot;&lt;z&gt;&apos;"'
t_end

t_begin "the schema check can fail: a test case without a name is refused"
sed 's/<testcase name="raw"/<testcase/' win/$RUNNAME/junit.xml >broken.xml
valid broken.xml 2>/dev/null
t_eq "refused" $? 3
t_end

t_begin "several tasks: small gains no single task can show pass GATE_ACROSS=tasks, judged on the mean's interval"
for t in t1 t2 t3 t4 t5 t6; do
	n=3
	case $t in t5 | t6) n=2 ;; esac
	TASK=$t stage across $t raw 1 3
	TASK=$t stage across $t final $n 3
done
out=$(skillc-gate --rule gain across 2>&1)
t_eq "per run: no task shows a gain" $? 1
t_contains "the across line" "$out" "across 6 runs: final - raw mean +55.6 pp [+37.5, +73.6] (95%, clustered by task), normalized gain 0.83; sign test 6 up 0 down p = 0.0156; stratified exact p = 0.00162"
t_contains "Holm per run" "$out" "Holm-adjusted p: t1 "
out=$($T_SK RESULTS=across gate GATE_RULE=gain GATE_ACROSS=tasks 2>&1)
t_eq "across tasks: a gain" $? 0
t_contains "rule" "$out" "rule gain across runs (the mean change, clustered by task): final - raw, lower 95% bound >= 0 pp"
skillc-gate --rule gain --min-delta 40 --across tasks across >/dev/null 2>&1
t_eq "a margin above the mean's lower bound fails" $? 1
for t in r1 r2 r3; do
	TASK=$t stage down $t raw 3 3
	TASK=$t stage down $t final 1 3
done
out=$(skillc-gate --across tasks down 2>&1)
t_eq "no-regression across tasks: a loss shown across them fails" $? 1
t_contains "the loss" "$out" "across 3 runs: final - raw mean -66.7 pp [-66.7, -66.7]"
skillc-gate --across sometimes down >/dev/null 2>&1
t_eq "a bad --across: exit 2" $? 2
t_end

t_begin "the summary of several tasks: the across-task figures in summary.json and summary.md"
skillc-summary --out sum across >/dev/null 2>&1
t_eq "exit" $? 0
a=$(jq -c '.by_bench[] | select(.stage == "final") | .across | [.tasks, .mean_delta, .ci95, .normalized_gain, .sign_test.p, .stratified.p, .too_small]' sum/summary.json)
t_eq "across figures" "$a" '[6,0.555556,[0.374884,0.736227],0.833333,0.015625,0.001616,false]'
t_eq "raw has none" "$(jq -c '.by_bench[] | select(.stage == "raw") | .across' sum/summary.json)" null
t_contains "md section" "$(cat sum/summary.md)" "## Across tasks (vs raw, the task is the unit"
t_contains "md row" "$(cat sum/summary.md)" "| final | 6 | +55.6 pp [+37.5, +73.6] | 0.83 | 0.0156 | 0.00162 |"
skillc-summary --out sum2 down >/dev/null 2>&1
t_contains "no gain: said" "$(cat sum2/summary.md)" "no gain observed"
TASK=s1 stage small s1 raw 1 3
TASK=s1 stage small s1 final 2 3
TASK=s2 stage small s2 raw 1 3
TASK=s2 stage small s2 final 1 3
skillc-summary --out sum3 small >/dev/null 2>&1
t_eq "a small run is too small to show its own gain" "$(jq '.by_bench[] | select(.stage == "final") | .across.too_small' sum3/summary.json)" true
t_contains "and the table says so" "$(cat sum3/summary.md)" "too small to show its own gain"
t_end

t_begin "the report of several tasks: index.html shows the across-task figures summary.json holds"
skillc-report across >/dev/null 2>&1
t_eq "exit" $? 0
# the section's text, tags dropped
sect() { sed -n '/<section class="card" id="across">/,/<\/section>/p' "$1" | sed 's/<[^>]*>//g'; }
a=$(sect across/index.html)
t_contains "the mean, clustered by task" "$a" "final vs raw · opencode · vllm/q · 6 tasks"
t_contains "figures" "$a" "Mean change +55.6 pp [+37.5, +73.6] (95%, clustered by task); normalized gain 0.83; sign test 6 up, 0 down, 0 tied, p = 0.0156; stratified exact p = 0.00162 (accept at α = 0.05)."
p1=$(jq -r '.by_bench[] | select(.stage == "final") | .across.per_task[] | select(.task == "t1") | "\(.p) \(.p_holm)"' sum/summary.json)
t_eq "summary's per-task p of t1" "$p1" "0.2 1"
t_contains "per task: paired counts, delta, p, Holm" "$a" "t11/33/3+66.7 pp0.21"
t_contains "t5" "$a" "t51/32/3+33.3 pp0.51"
t_check "not too small" sh -c "! grep -q 'Too small' across/index.html"
skillc-report small >/dev/null 2>&1
t_contains "a small run says so" "$(sect small/index.html)" "Too small to show its own gain"
skillc-report down >/dev/null 2>&1
t_contains "no gain: said" "$(sect down/index.html)" "No gain observed."
skillc-report win >/dev/null 2>&1
t_check "one task: no section" sh -c "! grep -q 'id=\"across\"' win/index.html"
t_end
