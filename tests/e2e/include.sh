#!/bin/sh
# End-to-end: skillc.mk included in a Makefile that has its own all, help,
# check and clean: those stay the user's (no "overriding recipe" warning),
# the user's default goal stays, `make skillc-help` is skillc's text, the
# pipeline goals work, and every variable skillc.mk defines is a setting or
# named SKILLC_* / skillc_*.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
cat >Makefile <<MK
include $T_ROOT/mk/skillc.mk
all: ; @echo user-all
help: ; @echo user-help
check: ; @echo user-check
clean: ; @echo user-clean
MK

t_begin "the user's all, help, check and clean stay theirs, with no warning"
for g in "" help check clean; do
	out=$(make --no-print-directory $g 2>&1)
	t_eq "make $g" "$out" "user-${g:-all}"
done
t_end

t_begin "skillc-help is skillc's, and the pipeline works from the user's Makefile"
out=$(make --no-print-directory skillc-help 2>&1)
t_contains "help text" "$out" "skillc — compile an Agent Skill"
t_contains "settings" "$out" "  REPEAT=3"
out=$(make --no-print-directory task=csv-column-sum ingest 2>&1)
t_eq "exit" $? 0
t_contains "ran" "$out" "skillc: ingest: done"
case $out in *overriding*|*warning*) t_fail "a warning: $out" ;; esac
t_end

t_begin "without a help of the user's, make help is skillc's"
printf 'include %s/mk/skillc.mk\nall: ; @echo user-all\n' "$T_ROOT" >Other.mk
t_contains "help" "$(make --no-print-directory -f Other.mk help 2>&1)" "skillc — compile an Agent Skill"
t_eq "default goal" "$(make --no-print-directory -f Other.mk 2>&1)" "user-all"
t_end

t_begin "every variable skillc.mk defines is a setting or SKILLC_* / skillc_*"
settings=$("$T_ROOT/build/gen/settings" list | cut -d' ' -f1 | tr '\n' ' ')
# the variables of the database that skillc.mk and defaults.mk define (make -p marks them "makefile")
bad=$($T_SK -pq skillc-help 2>/dev/null |
	awk '/^# makefile \(from/ { getline; split($0, a, " "); print a[1] }' |
	while read -r v; do
		case " $settings " in *" $v "*) continue ;; esac
		case $v in SKILLC_*|skillc_*|MAKEFLAGS|MAKEFILE_LIST|.DEFAULT_GOAL) continue ;; esac
		echo "$v"
	done)
t_eq "unprefixed" "$bad" ""
n=$($T_SK -pq skillc-help 2>/dev/null | grep -c '^skillc_[a-z_]* :\{0,1\}= ')
[ "$n" -gt 5 ] || t_fail "the database shows only $n skillc_* variables: the check reads nothing"
t_end
