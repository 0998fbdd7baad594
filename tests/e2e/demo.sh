#!/bin/sh
# End-to-end: `make demo` runs the whole pipeline offline against the
# project's own stand-ins (libexec/fakellm, libexec/acpagent), prints where
# the run, its summary and the deliverable skill are, resumes when run
# again, and leaves no process running, also when it is interrupted.
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

t_begin "make demo: doctor, every stage, the summary, where the deliverable is"
out=$($MK demo DEMO_DIR="$D" 2>&1)
t_eq "exit (output: $out)" $? 0
t_contains "the model server started" "$out" "demo: model server (libexec/fakellm) on 127.0.0.1:"
t_contains "doctor ran" "$out" "all good"
t_contains "raw trials" "$out" "[3/3] log-error-report raw test-003 passed reward=1 skill invoked"
t_contains "static trials" "$out" "log-error-report static test-003 passed reward=1 skill invoked"
case $out in *"fast-score: started"*) # the fast stage, once it exists: its trials come from the store
	t_contains "fast trials" "$out" "log-error-report fast test-003 passed reward=1 skill invoked" ;;
esac
t_contains "the table" "$out" "| samples | log-error-report | demo-agent | demo/scripted-agent | local | static |"
R=$D/results/log-error-report--demo-agent--demo_scripted-agent
t_contains "the run" "$out" "demo: the run:         $R"
t_contains "the deliverable" "$out" "demo: the deliverable: $R/artifacts"
deliv=$(printf '%s\n' "$out" | sed -n 's/^demo: the deliverable: \([^ ]*\).*/\1/p')
t_check "the deliverable is a compiled skill" test -f "$deliv/log-triage/SKILL.md"
t_check "the summary" test -f "$R/summary.md"
t_contains "the planning model was asked, through the LLM client" "$(cat "$R/artifacts/static/report.md")" "planner \`demo/planner\`"
t_eq "nothing left running" "$(settle "$D")" 0
t_check "the pid file is gone" test ! -e "$D/llm/pid"
t_contains "the agent is labelled a simulation" "$out" "the agent is a simulation"
t_contains "final says fast and deep changed nothing" "$out" "final done; final = static: fast 0 patches, deep 0 edits;"
t_contains "how to read it again" "$out" "demo: read it again:   make summary RESULTS="
t_end

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
