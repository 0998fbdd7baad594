#!/bin/sh
# End-to-end: the one settings table (tools/lib/pipeline/settings.c) is the
# only source: mk/defaults.mk, `make help` and the table in docs/settings.md
# say what it says, and make stops on a bad value of every setting, checked
# in C by the same table.
. "$(dirname "$0")/../lib.sh"

GEN=$T_ROOT/build/gen/settings
DOC=$T_ROOT/docs/settings.md
W=$T_TMP/work
mkdir -p "$W" && cd "$W" || exit 2
"$GEN" list >list || exit 2
SK=$T_SK

t_begin "mk/defaults.mk and docs/settings.md are what the table writes"
"$GEN" mk >defaults.mk
t_check "defaults.mk is current (run make and commit it)" cmp defaults.mk "$T_ROOT/mk/defaults.mk"
"$GEN" md "$DOC" >settings.md
t_check "docs/settings.md is current (run make and commit it)" cmp settings.md "$DOC"
t_end

t_begin "make sees every setting with the table's default"
printf 'include %s\nshow: ; @$(foreach v,$(SKILLC_SETTINGS),printf "%%s %%s\\n" "$v" "$($v)";)\n' \
	"$T_ROOT/mk/defaults.mk" >show.mk
env -i PATH="$PATH" make --no-print-directory -f show.mk show >seen || t_fail "make could not read defaults.mk"
awk '{ print $1, $3 }' list >want
t_check "same names, order and defaults" cmp seen want
t_eq "settings" "$(wc -l <seen)" "$(wc -l <list)"
t_end

t_begin "make help and docs/settings.md list every setting with its default"
help=$($T_SK help 2>&1)
while read -r name kind def; do
	t_contains "help: $name" "$help" "  $name=$def"
	if [ -n "$def" ]; then row="| \`$name\` | \`$def\` |"; else row="| \`$name\` | — |"; fi
	grep -qF "$row" "$DOC" || t_fail "docs/settings.md has no row '$row'"
done <list
t_end

t_begin "a bad value of every setting stops make with one line naming it, exit 2, nothing run"
while read -r name kind def; do
	case $kind in
	name) bad='a b' ;; names) bad='ok -bad' ;; args) bad='-p x;y' ;; model) bad='no-slash' ;; models) bad='a/b no-slash' ;;
	path) bad='a b' ;; url) bad='ftp://x' ;; int) bad='12x' ;; enum) bad='no-such-choice' ;; usd) bad='lots' ;; decimal) bad='0.1.2' ;; image) bad='-image' ;;
	*) t_fail "kind $kind has no bad value in this test"; continue ;;
	esac
	out=$($SK summary "$name=$bad" 2>&1)
	rc=$?
	[ $rc -eq 2 ] || t_fail "$name='$bad': exit $rc"
	case $out in *"skillc: bad $name '$bad': "*) ;; *) t_fail "$name='$bad': $out" ;; esac
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || t_fail "$name: more than one line: $out"
done <list
t_check "nothing written" test ! -e results
t_end

t_begin "a value with quotes, \$ and a newline is shown, never run"
out=$($SK summary "MODEL=a/\$(shell touch pwned)'\"
x" 2>&1)
t_eq "exit" $? 2
t_contains "named" "$out" "skillc: bad MODEL 'a/\$(shell touch pwned)'\""
t_check "not run" test ! -e pwned
t_end
