#!/bin/sh
# make style: tools/gen/check-style passes on the project and names every
# rule it breaks in a small repository of its own.
. "$(dirname "$0")/../lib.sh"

if git -C "$T_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	t_begin "the project passes check-style (the rules on every line)"
	out=$(STYLE_BASE=HEAD "$T_ROOT/tools/gen/check-style" "$T_ROOT" 2>&1)
	t_eq "exit (output: $out)" $? 0
	t_end
else
	t_skip "the project passes check-style" "the project is not a git checkout here"
fi

R=$T_TMP/repo
mkdir -p "$R/tests/t"
cd "$R" || exit 1
git init -q -b main . && git config user.email t@e && git config user.name t
printf 'int old(void)\n{\n\treturn 1; /* %s */\n}\n' "$(printf '%0120d' 0)" >tests/t/old.c
git add . && git commit -qm base && git checkout -q -b work
printf 'int f(void)\n{\n\treturn 1; \n}\n' >tests/t/trail.c
printf 'int g(void)\n{\n        return 2;\n}\n' >tests/t/spaces.c
printf 'int h(int a,\n          int b);\n' >tests/t/cont.h
printf 'x=1\n \tfalse\n' >tests/t/mixed.sh
printf 'int n(void);' >tests/t/nonl.h
printf 'int w(void) { return %s; }\n' "$(printf '1 + %.0s' $(seq 40))1" >tests/t/wide.c
{ printf 'int long81(void)\n{\n'; seq 81 | sed 's/.*/\tf();/'; printf '}\n'; } >tests/t/long81.c
{ printf 'int long80(void)\n{\n'; seq 80 | sed 's/.*/\tf();/'; printf '}\n'; } >tests/t/long80.c
{ printf 'static int kr81(int a) {\n'; seq 81 | sed 's/.*/\tf();/'; printf '}\n'; } >tests/t/kr81.c
git add . && git commit -qm work
t_begin "check-style names each broken rule with file and line, and fails"
out=$("$T_ROOT/tools/gen/check-style" "$R" 2>&1)
t_eq "exit" $? 1
t_contains "trailing white space" "$out" "tests/t/trail.c:3: trailing white space"
t_contains "space indentation" "$out" "tests/t/spaces.c:3: indented with spaces"
t_contains "space before tab" "$out" "tests/t/mixed.sh:2: a space before a tab"
t_contains "final newline" "$out" "tests/t/nonl.h: no newline at the end"
t_contains "an added long line" "$out" "tests/t/wide.c:1: 185 columns, over 100"
t_contains "a function over 80 lines" "$out" "tests/t/long81.c:2: a function of 81 lines, over 80"
t_contains "one whose brace ends the signature line" "$out" "tests/t/kr81.c:1: a function of 81 lines, over 80"
t_eq "a function of 80 lines is fine" "$(printf '%s\n' "$out" | grep -c long80.c)" 0
t_eq "a continuation aligned with spaces is fine" "$(printf '%s\n' "$out" | grep -c cont.h)" 0
t_eq "a long line older than the branch is fine" "$(printf '%s\n' "$out" | grep -c old.c)" 0
t_end

t_begin "without a main branch the column rule is skipped, and it says so"
git branch -q -m main trunk
out=$("$T_ROOT/tools/gen/check-style" "$R" 2>&1)
t_contains "said" "$out" "the 100-column rule on added lines is skipped"
t_eq "no column finding" "$(printf '%s\n' "$out" | grep -c 'over 100')" 0
t_end
exit $T_FAILED
