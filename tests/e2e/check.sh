#!/bin/sh
# skillc-check from the command line: verdicts and exit statuses, the text
# and JSON reports, the one-line stderr message for unusable input, usage.
. "$(dirname "$0")/../lib.sh"
F=tests/fixtures/skills

t_begin "check: a valid skill exits 0 and says so"
out=$(skillc-check $F/pdf-tables); rc=$?
t_eq "exit" "$rc" 0
t_eq "report" "$out" "$F/pdf-tables/SKILL.md: valid skill 'pdf-tables' (0 errors, 0 warnings)"
t_end

t_begin "check: SKILL.md path works like its directory"
out=$(skillc-check $F/pdf-tables/SKILL.md); rc=$?
t_eq "exit" "$rc" 0
t_end

t_begin "check: an invalid skill exits 1 with skills-ref messages and a fix"
out=$(skillc-check $F/Bad_Name 2>"$T_TMP/err"); rc=$?
t_eq "exit" "$rc" 1
t_contains "lowercase" "$out" "$F/Bad_Name/SKILL.md:2:7: error: Skill name 'Bad_Name' must be lowercase [name-lowercase]"
t_contains "chars" "$out" "Skill name 'Bad_Name' contains invalid characters. Only letters, digits, and hyphens are allowed. [name-characters]"
t_contains "fix" "$out" "fix: name: bad-name (and a directory of that name)"
t_eq "stderr" "$(cat "$T_TMP/err")" ""
t_end

t_begin "check: unquoted colon is invalid (1) as in skills-ref, with line:column and the quoted fix"
out=$(skillc-check $F/colon-description 2>"$T_TMP/err"); rc=$?
t_eq "exit" "$rc" 1
t_contains "error line" "$out" "$F/colon-description/SKILL.md:3:22: error: Invalid YAML in frontmatter: the value of 'description' contains \": \" (a colon and a space), which YAML reads as a nested key; quote the value: description: \"Use when: the user wants a colon\" [yaml-invalid]"
t_contains "verdict" "$out" "$F/colon-description/SKILL.md: invalid skill (1 error, 0 warnings)"
t_eq "stderr" "$(cat "$T_TMP/err")" ""
t_end

t_begin "check: flow list and missing frontmatter are invalid (1), as skills-ref reports them"
out=$(skillc-check $F/flow-list 2>/dev/null); rc=$?
t_eq "exit flow" "$rc" 1
t_contains "flow" "$out" "$F/flow-list/SKILL.md:5:9: error: Invalid YAML in frontmatter: flow sequences"
out=$(skillc-check $F/no-frontmatter 2>/dev/null); rc=$?
t_eq "exit nofm" "$rc" 1
t_contains "nofm" "$out" "$F/no-frontmatter/SKILL.md:1:1: error: SKILL.md must start with YAML frontmatter (---) [frontmatter-missing]"
t_end

t_begin "check: missing path, plain file, no SKILL.md, not UTF-8"
skillc-check "$T_TMP/nope" >/dev/null 2>"$T_TMP/err"; rc=$?
t_eq "exit missing" "$rc" 2
t_eq "missing" "$(cat "$T_TMP/err")" "skillc-check: $T_TMP/nope: Path does not exist: $T_TMP/nope"
echo x >"$T_TMP/file.txt"
skillc-check "$T_TMP/file.txt" >/dev/null 2>"$T_TMP/err"; rc=$?
t_eq "exit file" "$rc" 2
t_contains "file" "$(cat "$T_TMP/err")" "Not a directory: $T_TMP/file.txt"
mkdir -p "$T_TMP/empty-skill"
skillc-check "$T_TMP/empty-skill" >/dev/null 2>"$T_TMP/err"; rc=$?
t_eq "exit empty" "$rc" 2
t_contains "empty" "$(cat "$T_TMP/err")" "Missing required file: SKILL.md"
mkdir -p "$T_TMP/latin1"
printf -- '---\nname: latin1\ndescription: caf\351\n---\n' >"$T_TMP/latin1/SKILL.md"
skillc-check "$T_TMP/latin1" >/dev/null 2>"$T_TMP/err"; rc=$?
t_eq "exit latin1" "$rc" 2
t_eq "latin1" "$(cat "$T_TMP/err")" "skillc-check: $T_TMP/latin1/SKILL.md:3:17: SKILL.md is not valid UTF-8 (byte 0xE9)"
t_end

t_begin "check: lint warnings keep the verdict valid"
out=$(skillc-check $F/broken-refs); rc=$?
t_eq "exit" "$rc" 0
t_contains "dangling" "$out" "SKILL.md:8:8: warning: scripts/missing.sh does not exist in the skill folder [ref-dangling]"
t_contains "escapes" "$out" "warning: ../shared/NOTES.md points outside the skill folder"
t_contains "chain" "$out" "references/guide.md refers to references/deeper.md (line 3)"
t_contains "verdict" "$out" "valid skill 'broken-refs' (0 errors, 3 warnings)"
case $out in *example.com*|*src/app.py*) t_fail "URL or non-skill path reported" ;; esac
out=$(skillc-check --no-lint $F/broken-refs)
t_contains "no-lint" "$out" "(0 errors, 0 warnings)"
t_end

t_begin "check: --json reports one canonical object per skill"
skillc-check --json $F/pdf-tables $F/Bad_Name "$T_TMP/nope" >"$T_TMP/out.jsonl" 2>/dev/null; rc=$?
t_eq "exit is the worst verdict" "$rc" 2
t_eq "lines" "$(wc -l <"$T_TMP/out.jsonl")" 3
line2=$(sed -n 2p "$T_TMP/out.jsonl")
t_contains "verdict" "$line2" '"verdict":"invalid"'
t_contains "error" "$line2" "{\"col\":7,\"file\":\"$F/Bad_Name/SKILL.md\",\"fix\":null,\"line\":2,\"message\":\"Skill name 'Bad_Name' must be lowercase\",\"rule\":\"name-lowercase\"}"
t_contains "name" "$line2" '"name":"Bad_Name"'
t_contains "format" "$line2" '"format":1'
line1=$(sed -n 1p "$T_TMP/out.jsonl")
t_contains "properties" "$line1" '"metadata":{"author":"skillc tests","version":"1.0"}'
t_contains "stats" "$line1" '"stats":{"body_lines":'
t_contains "unusable" "$(sed -n 3p "$T_TMP/out.jsonl")" '"verdict":"unusable"'
t_end

t_begin "check: usage, --help, --version"
skillc-check >/dev/null 2>"$T_TMP/err"; rc=$?
t_eq "no args exit" "$rc" 2
t_contains "no args" "$(cat "$T_TMP/err")" "skillc-check: no skill given"
skillc-check --bogus x >/dev/null 2>"$T_TMP/err"; rc=$?
t_eq "bad option exit" "$rc" 2
t_eq "version" "$(skillc-check --version)" "skillc-check 1"
t_contains "help" "$(skillc-check --help)" "usage: skillc-check"
t_end
