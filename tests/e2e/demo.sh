#!/bin/sh
# End-to-end: `make demo` runs the whole pipeline offline against the
# project's own stand-ins (libexec/fakellm, libexec/acpagent) and its
# simulated model (mk/demo-agent.sh); the scenario's shape (raw failing part
# of the time, static fixing part, a fast patch, a deep accept and a reject,
# a gain, known costs) is read from the run's files, never from figures
# written here. It prints where the run, its summary and the deliverable
# are, make summary/report/status read it with no settings, it resumes when
# run again, and leaves no process running, also when it is interrupted.
. "$(dirname "$0")/../lib.sh"

if ! command -v bwrap >/dev/null 2>&1; then
	t_skip "make demo" "no bwrap (apt-get install -y bubblewrap)"
	exit 0
fi
D=$T_TMP/demo
# processes whose command line names the demo folder (the model server, the
# agents); the pattern comes from a file, so grep's own command line lacks it
left() {
	printf '%s\n' "$1" >"$T_TMP/pattern"
	grep -lF -f "$T_TMP/pattern" /proc/[0-9]*/cmdline 2>/dev/null | wc -l | tr -d ' '
}
# polls until nothing of the demo runs, 20 s at most; prints what is left
settle() {
	i=0
	while [ "$(left "$1")" != 0 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	left "$1"
}
MK="make --no-print-directory -C $T_ROOT SANITIZE=${SANITIZE:-}"

J=$T_ROOT/build/tests/helpers/jget
# the summary row of a stage: row STAGE FIELD (groups in summary.json)
row() {
	i=0
	while st=$("$J" "$R/summary.json" groups.$i.stage 2>/dev/null); do
		[ "$st" = "$1" ] && { "$J" "$R/summary.json" groups.$i.$2; return; }
		i=$((i + 1))
	done
	echo "no-$1-row"
}
# awk's verdict on a comparison of numbers: is A OP B (true/false)
cmp_num() { awk -v a="$1" -v b="$3" "BEGIN { print (a $2 b) ? \"true\" : \"false\" }"; }

t_begin "make demo: doctor, every stage, the summary, where the deliverable is"
out=$($MK demo DEMO_DIR="$D" 2>&1)
t_eq "exit (output: $out)" $? 0
t_contains "the model server started" "$out" "demo: model server (libexec/fakellm) on 127.0.0.1:"
t_contains "doctor ran" "$out" "all good"
t_contains "the table" "$out" "| samples | log-error-report | simulated-agent | demo/simulated-model | local | raw |"
R=$D/results/log-error-report--simulated-agent--demo_simulated-model
t_contains "the run" "$out" "demo: the run:         $R"
t_contains "the deliverable" "$out" "demo: the deliverable: $R/artifacts/deep/S_final/"
t_check "the deliverable is a compiled skill" test -f "$R/artifacts/deep/S_final/log-triage/SKILL.md"
t_check "the summary" test -f "$R/summary.md"
t_contains "the report's path" "$out" "demo: its report:      $R/report.html"
t_check "the report" test -f "$R/report.html"
t_contains "the planning model was asked, through the LLM client" "$(cat "$R/artifacts/static/report.md")" "planner \`demo/simulated-planner\`"
t_eq "nothing left running" "$(settle "$D")" 0
t_check "the pid file is gone" test ! -e "$D/llm/pid"
t_contains "how to read it again" "$out" "demo: read it again:   make summary; make report; make status"
t_end

t_begin "make demo: the scenario's shape, read from the run's files"
n=$(row raw trials) p=$(row raw passed)
t_eq "raw fails part of the time ($p of $n passed)" "$(cmp_num "$p" '>' 0)$(cmp_num "$p" '<' "$n")" truetrue
ps=$(row static passed)
t_eq "static fixes part ($ps of $(row static trials) against raw's $p)" "$(cmp_num "$ps" '>' "$p")$(cmp_num "$ps" '<' "$(row static trials)")" truetrue
t_eq "a fast patch applied" "$(cmp_num "$("$J" "$R/artifacts/fast/report.json" counts.applied)" '>=' 1)" true
verdicts= pvals=0
for d in "$R"/artifacts/deep/round-[1-9]*/decision.json; do
	verdicts="$verdicts $("$J" "$d" verdict)"
	"$J" "$d" statistics.p_value >/dev/null && pvals=$((pvals + 1))
done
t_contains "a deep edit accepted (verdicts:$verdicts)" "$verdicts" "accept"
t_contains "a deep edit rejected (verdicts:$verdicts)" "$verdicts" "reject"
t_eq "every decision has its p-value" "$pvals" "$(echo $verdicts | wc -w)"
t_eq "a final gain over raw" "$(cmp_num "$(row final delta_pp_vs_raw)" '>' 0)" true
t_contains "with its interval" "$(row final delta_pp_ci95)" ","
t_eq "no cost unknown" "$("$J" "$R/summary.json" cost.unknown_items)" 0
t_eq "a cost" "$(cmp_num "$("$J" "$R/summary.json" cost.spent_usd)" '>' 0)" true
t_eq "tokens per trial differ raw vs final" "$(cmp_num "$(row raw mean_tokens)" '!=' "$(row final mean_tokens)")" true
t_contains "labelled a simulation on the console" "$out" "demo: SIMULATION:"
t_contains "labelled a simulation in the summary" "$(cat "$R/summary.md")" "| simulated-agent | demo/simulated-model |"
t_contains "labelled a simulation in the report" "$(cat "$R/report.html")" "simulated-agent"
t_end

if [ -n "$(ls "$T_ROOT"/results/compile-pipeline/*/settings.json 2>/dev/null)" ]; then
	t_skip "right after the demo: make summary, report, audit, status read its runs" "$T_ROOT/results/compile-pipeline holds runs"
else
	t_begin "right after the demo: make summary, report, audit, status with no settings read its runs"
	for g in summary report audit status; do
		o=$(DEMO_DIR=$D $MK $g 2>&1)
		t_eq "make $g exit (output: $o)" $? 0
		t_contains "make $g says what it reads" "$o" "skillc: no run under results/compile-pipeline: reading $D/results (make demo's runs)"
	done
	a=$(DEMO_DIR=$D $MK audit 2>&1)
	t_contains "audit: the deep rounds' leakage guard" "$a" "; leakage guard: 0 edits rolled back"
	t_contains "audit: skill use" "$a" " trials; skill log-triage invoked "
	t_contains "audit: fast's" "$a" "; leakage guard: 0 patches rolled back"
	t_contains "audit: the final skill used" "$a" "  final skill: log-triage used (invoked or read) in "
	t_contains "status lists the demo's run" "$o" "log-error-report--simulated-agent--demo_simulated-model"
	t_end
fi

t_begin "make demo again: resumes, nothing redone"
out=$($MK demo DEMO_DIR="$D" 2>&1)
t_eq "exit" $? 0
case $out in *" start: "*) t_fail "a trial ran again: $out" ;; esac
t_contains "deliverable" "$out" "demo: the deliverable:"
t_eq "nothing left running" "$(settle "$D")" 0
t_end

t_begin "make demo interrupted (Ctrl-C) mid-run: nothing left running"
D2=$T_TMP/demo2 O=$T_TMP/int.out
# a background job of sh starts with SIGINT ignored: give make the default
# disposition, as a terminal would; signal the whole session, as Ctrl-C does
setsid env --default-signal=INT $MK demo DEMO_DIR="$D2" >"$O" 2>&1 &
sid=$!
i=0
while ! grep -q ' start: ' "$O" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
/bin/kill -s INT -- -"$sid" || t_fail "could not signal the make"
wait "$sid"
t_eq "nothing left running (output: $(tail -3 "$O"))" "$(settle "$D2")" 0
i=0
while [ -n "$(pgrep -s "$sid")" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "no process left in its session" "$(pgrep -s "$sid" | head -1)" ""
t_check "the model server's pid file is gone" test ! -e "$D2/llm/pid"
t_contains "says it was interrupted, not failed" "$(cat "$O")" "demo: interrupted: run make demo again"
case $(cat "$O") in *"the pipeline failed"*) t_fail "an interrupt read as a failure: $(tail -3 "$O")" ;; esac
out=$($MK demo DEMO_DIR="$D2" 2>&1)
t_eq "make demo again finishes it (output: $out)" $? 0
t_end
