#!/bin/sh
# End-to-end: skillc-audit and make audit over run folders built here in the
# documented layout (traces/<task>/<stage>/test-NNN/trial.json, Fast's
# artifacts/fast/report.json, a Deep round's edit.json): skill use per skill
# of a set, a set of one detected without names, infra errors and
# unchecked trials left out, the warning for a final skill never used, a
# Deep round with no trials, the guard off, a matrix, and bad input. The
# findings of a real run are checked in leak.sh, the demo's in demo.sh.
. "$(dirname "$0")/../lib.sh"

cd "$T_TMP" || exit 2
# trial RESULTS RUN TASK STAGE NNN OUTCOME SKILL-JSON
trial() {
	d=$1/$2/traces/$3/$4/test-$5
	mkdir -p "$d"
	printf '{"format": 1, "complete": true, "task": "%s", "harness": "opencode", "model": "vllm/q", "runner": "local", "stage": "%s", "skill_hash": "h", "outcome": "%s", "passed": %s, "reward": %s, "durations": {"total": 1}, "skill": %s}\n' \
		"$3" "$4" "$6" "$([ "$6" = passed ] && echo true || echo false)" "$([ "$6" = passed ] && echo 1.0 || echo 0.0)" "$7" >"$d/trial.json"
}
# skill INJECTED INVOKED-NAMES READ-NAMES [INVOKED READ CHECKED]
skill() {
	printf '{"injected": [%s], "invoked_names": [%s], "read_names": [%s], "invoked": %s, "read": %s, "checked": %s}' \
		"$1" "$2" "$3" "${4:-false}" "${5:-false}" "${6:-true}"
}
SET='"a", "b"'
# run1: a set of two; a invoked in 2 raw trials, b read in 1; final: a in every trial, b never
trial m run1 t1 raw 001 passed "$(skill "$SET" '"a"' '')"
trial m run1 t1 raw 002 failed "$(skill "$SET" '"a"' '"b"')"
trial m run1 t1 raw 003 failed "$(skill "$SET" '' '')"
for i in 001 002 003; do trial m run1 t1 final $i passed "$(skill "$SET" '"a"' '')"; done
# run2: a set of one seen used without a name; an infra error; one trial its harness could not check
trial m run2 t2 raw 001 passed "$(skill '"x"' '' '' true false)"
trial m run2 t2 raw 002 failed "$(skill '"x"' '' '' false true)"
trial m run2 t2 raw 003 infra_error "$(skill '"x"' '' '' false false)"
trial m run2 t2 raw 004 failed "$(skill '"x"' '' '' false false false)"
# fast applied by hand (no guard); a deep round whose only edit leaked (no trials), with a control byte
mkdir -p m/run2/artifacts/fast m/run2/artifacts/deep/round-1
echo '{"format": 1, "leak_guard": false, "patches": [], "counts": {"leaks": 0}}' >m/run2/artifacts/fast/report.json
printf '{"format": 1, "round": 1, "leaks": 1, "attempts": [{"unit": "x/steps#1", "status": "rolled_back", "guard": {"check": "leak", "item": "number from solution/solve.sh: 4521\\u001b[2J"}, "why": "rolled back by the leakage guard"}], "edit": null}\n' \
	>m/run2/artifacts/deep/round-1/edit.json

t_begin "a matrix: skill use per skill and stage, the final skill's use, a warning for one never used"
out=$(skillc-audit m 2>&1)
t_eq "exit" $? 0
t_contains "run1" "$out" "m/run1 (t1, opencode, vllm/q)"
t_contains "raw, per skill of the set" "$out" \
	"  raw: 3 trials; skill a invoked 2/3 (67%), read 0/3 (0%), either 2/3 (67%); b invoked 0/3 (0%), read 1/3 (33%), either 1/3 (33%)"
t_contains "final" "$out" "  final: 3 trials; skill a invoked 3/3 (100%)"
t_contains "final skill a" "$out" "  final skill: a used (invoked or read) in 3 of 3 final trials"
t_contains "final skill b" "$out" "  final skill: b used (invoked or read) in 0 of 3 final trials"
t_contains "the warning" "$out" "warning: m/run1: the agent never invoked or read the skill b in its 3 final trials"
t_contains "no warning for a" "$(printf '%s\n' "$out" | grep -c 'warning: m/run1')" 1
t_contains "run2: a set of one, infra and unchecked left out" "$out" \
	"  raw: 4 trials; skill x invoked 1/2 (50%), read 1/2 (50%), either 2/2 (100%); 1 trial not checked"
t_contains "before final: the latest stage's" "$out" "  final skill: x used (invoked or read) in 2 of 2 raw trials (no final trials yet: the latest stage's)"
t_contains "fast without the guard" "$out" "  fast: no trials; leakage guard off (applied by hand without --task)"
t_contains "a deep round without trials" "$out" "  deep-1: no trials; leakage guard: 1 edit rolled back"
t_contains "its finding, control bytes out" "$out" "    leak: attempt 1 (x/steps#1) rolled back: number from solution/solve.sh: 4521 [2J"
t_contains "totals" "$out" "skillc-audit: 2 runs, 1 leakage finding rolled back, 1 warning"
out=$(skillc-audit m/run2 2>&1)
t_contains "one run" "$out" "skillc-audit: 1 run, 1 leakage finding rolled back, 0 warnings"
t_end

t_begin "make audit reads RESULTS, and one run with RUN_DIR"
out=$($T_SK RESULTS=m audit 2>&1)
t_eq "exit" $? 0
t_contains "both runs" "$out" "skillc-audit: 2 runs, 1 leakage finding rolled back, 1 warning"
out=$($T_SK RESULTS=m RUN_DIR=m/run1 audit 2>&1)
t_eq "exit" $? 0
t_contains "one" "$out" "skillc-audit: 1 run, 0 leakage findings rolled back, 1 warning"
t_end

t_begin "bad input: exit 2 with one line naming it"
mkdir -p empty
out=$(skillc-audit empty 2>&1)
t_eq "no runs" $? 2
t_contains "says" "$out" "skillc-audit: no runs under empty: no traces/ folder found (run make eval first)"
out=$(skillc-audit nope 2>&1)
t_eq "no folder" $? 2
t_contains "names it" "$out" "'nope' is not a folder"
skillc-audit --bogus m >/dev/null 2>&1
t_eq "unknown option" $? 2
skillc-audit >/dev/null 2>&1
t_eq "nothing given" $? 2
t_end
