#!/bin/sh
# Checked writes: every tool checks its standard output at exit, as git
# does, so `skillc-<tool> ... >/dev/full` exits non-zero with a message
# instead of saying it succeeded.
. "$(dirname "$0")/../lib.sh"
F=$T_ROOT/tests/fixtures/skills

t_begin "every tool: --version and --help to a full disk exit 1 with one line saying so"
n=0
for tool in "$T_BIN"/skillc-*; do
	name=$(basename "$tool")
	n=$((n + 1))
	for opt in --version --help; do
		"$tool" $opt >/dev/full 2>"$T_TMP/err"; rc=$?
		t_eq "$name $opt exit" $rc 1
		t_contains "$name $opt message" "$(cat "$T_TMP/err")" "$name: cannot write standard output: No space left on device"
	done
done
t_check "at least 15 tools" test $n -ge 15
t_end

t_begin "results to a full disk: skillc-hash and skillc-check fail, a bad input keeps its own status"
skillc-hash "$T_ROOT/README.md" >/dev/full 2>"$T_TMP/err"
t_eq "hash exit" $? 1
t_contains "hash message" "$(cat "$T_TMP/err")" "skillc-hash: cannot write standard output"
skillc-check "$F/pdf-tables" >/dev/full 2>"$T_TMP/err"
t_eq "check exit" $? 1
t_contains "check message" "$(cat "$T_TMP/err")" "skillc-check: cannot write standard output"
skillc-check --json "$F/pdf-tables" >/dev/full 2>/dev/null
t_eq "check --json exit" $? 1
skillc-check "$T_TMP/nope" >/dev/full 2>"$T_TMP/err"
t_eq "unusable keeps 2" $? 2
t_contains "and says both" "$(cat "$T_TMP/err")" "skillc-check: cannot write standard output"
out=$(skillc-hash "$T_ROOT/README.md"); rc=$?
t_eq "a working stdout is fine" "$rc" 0
t_check "and prints the hash" test -n "$out"
t_end
