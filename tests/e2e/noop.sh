#!/bin/sh
# End-to-end: the no-op journal (docs/internals/make.md). A make that found
# nothing to do is answered the next time from the stat data it recorded,
# starting no skillc-rules run (the run's .lock keeps its note) and no
# inner make; any change to a task, an output, a stamp, a setting or the
# lock takes the whole path again, which notices it as before. The journal
# is probed inside make by skillc.so: skillc-rules is started only when it
# cannot vouch for the answer (a stray variable, a change) or cannot load.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
SET="task=csv-column-sum MODEL=vllm/Qwen/Qwen3.5-27B"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_Qwen_Qwen3.5-27B
S=tasks/csv-column-sum/environment/skills/csv-sum/SKILL.md
$SK $SET static >/dev/null 2>&1 || { echo "FAIL noop.sh: the first make failed"; exit 1; }
slow=$($SK $SET static 2>&1)

t_begin "a second no-op is answered from the journal: the same last line, no skillc-rules run, no inner make"
t_contains "the whole path's no-op" "$slow" "make[1]: Nothing to be done for 'static'."
t_check "a journal" sh -c "ls results/compile-pipeline/.skillc/noop.* >/dev/null"
lock=$(cat $R/.lock)
out=$($SK $SET static 2>&1)
t_eq "make exit" $? 0
t_contains "make's own line" "$out" "make: Nothing to be done for 'static'."
t_eq "the same last line" "$(echo "$out" | grep '^skillc: ')" "$(echo "$slow" | grep '^skillc: ')"
t_eq "the lock untouched (no skillc-rules run)" "$(cat $R/.lock)" "$lock"
t_end

t_begin "a stage's log written to after the journal: still answered from it (no answer reads logs/)"
t_check "a log to write to" test -f $R/logs/static.log
echo "a line" >>$R/logs/static.log
t_check "status/ records not in the journal" sh -c "! grep -q '/status/static.json\$' results/compile-pipeline/.skillc/noop.*"
t_check "logs/ not in the journal" sh -c "! grep -q '/logs' results/compile-pipeline/.skillc/noop.*"
t_check "stamps in the journal" grep -q '/status/static.ok$' results/compile-pipeline/.skillc/noop.*
out=$($SK $SET static 2>&1)
t_contains "journal" "$out" "make: Nothing to be done for 'static'."
t_eq "the lock untouched (no skillc-rules run)" "$(cat $R/.lock)" "$lock"
t_end

t_begin "a task file touched with the same bytes: the whole path once, nothing runs, then the journal again"
touch $S
out=$($SK $SET static 2>&1)
t_contains "whole path" "$out" "make[1]: Nothing to be done"
case $out in *started*) t_fail "a stage ran: $out" ;; esac
out=$($SK $SET static 2>&1)
t_contains "journal" "$out" "make: Nothing to be done"
t_end

t_begin "SKILL.md changed with its size and mtime kept: the change time tells, ingest runs again"
cp -p $S ref.md
sed -i 's/a/b/' $S
touch -r ref.md $S
t_check "same size" test "$(wc -c <$S)" = "$(wc -c <ref.md)"
out=$($SK $SET static 2>&1)
t_eq "make exit" $? 0
t_contains "ingest again" "$out" "ingest: started"
t_end

t_begin "an output edited by hand after the journal: named, set aside, made again"
$SK $SET static >/dev/null 2>&1
$SK $SET static >/dev/null 2>&1
echo "hand edit" >>$R/artifacts/static/S_static/SKILL.md
out=$($SK $SET static 2>&1)
t_contains "named" "$out" "modified by hand: artifacts/static/S_static"
t_contains "made again" "$out" "static: started"
t_end

t_begin "a stamp removed after the journal: the stage runs again"
$SK $SET static >/dev/null 2>&1
$SK $SET static >/dev/null 2>&1
rm $R/status/profile.ok
out=$($SK $SET static 2>&1)
t_contains "profile again" "$out" "profile: started"
t_check "a make that ran a stage leaves no journal" sh -c "! ls results/compile-pipeline/.skillc/noop.* 2>/dev/null"
t_end

t_begin "a run held by another make: busy, exit 2, journal or not"
$SK $SET static >/dev/null 2>&1
$SK $SET static >/dev/null 2>&1
t_hold_lock $R 2
out=$($SK $SET static 2>&1)
t_eq "make exit" $? 2
t_contains "busy" "$out" "is busy"
wait $t_holder
t_end

t_begin "a new setting given: the whole path says what the run remembers"
out=$($SK $SET REPEAT=5 static 2>&1)
t_contains "said" "$out" "(the run remembers it)"
t_end

# SKILLC_BIN with skillc-rules behind a script that notes each start (the
# other tools linked as they are): which no-op starts it, which does not
mkdir wbin
for f in "$T_ROOT"/bin/*; do ln -s "$f" wbin/; done
rm wbin/skillc-rules
printf '#!/bin/sh\necho "$1" >>%s/rules.log\nexec %s/bin/skillc-rules "$@"\n' "$PWD" "$T_ROOT" >wbin/skillc-rules
chmod +x wbin/skillc-rules
WSK="$SK SKILLC_BIN=$PWD/wbin $SET"

t_begin "the journal's answer is skillc.so's, inside make: no skillc-rules at all"
$WSK static >/dev/null 2>&1
$WSK static >/dev/null 2>&1
: >rules.log
out=$($WSK static 2>&1)
t_eq "make exit" $? 0
t_contains "make's own line" "$out" "make: Nothing to be done for 'static'."
t_eq "skillc-rules started" "$(cat rules.log)" ""
t_end

if command -v strace >/dev/null 2>&1; then
	t_begin "a no-op answered from the journal starts no process: make alone"
	strace -f -qq -e trace=execve -o exec.log $SK $SET static >/dev/null 2>&1
	t_eq "programs started" "$(grep -c 'execve(' exec.log)" 1
	t_end
else
	t_skip "a no-op answered from the journal starts no process: make alone" "strace is not installed"
fi

if command -v nm >/dev/null 2>&1; then
	t_begin "skillc.so needs nothing from outside but libc and make's gmk_ functions"
	t_eq "other undefined symbols" "$(nm -D --undefined-only "$T_ROOT/bin/skillc.so" | awk '$1 == "U" && $2 !~ /^gmk_/ && $2 !~ /@GLIBC/ { print $2 }')" ""
	t_eq "what it exports" "$(nm -D --defined-only "$T_ROOT/bin/skillc.so" | awk '{ print $3 }' | sort | tr '\n' ' ')" \
		"plugin_is_GPL_compatible skillc_gmk_setup "
	t_end
else
	t_skip "skillc.so needs nothing from outside but libc and make's gmk_ functions" "nm is not installed"
fi

# without skillc.so (a make that cannot load it): skillc-rules check probes
# the same journal and gives the same answer
mkdir nbin
for f in wbin/*; do cp -P "$f" nbin/; done
rm nbin/skillc.so
NSK="$SK SKILLC_BIN=$PWD/nbin $SET"
$NSK static >/dev/null 2>&1
want=$($WSK static 2>&1)
# answered_by_check NAME: the no-op through nbin gives want, skillc-rules
# check started once and nothing else of skillc-rules
answered_by_check() {
	t_begin "$1"
	: >rules.log
	out=$($NSK static 2>&1)
	t_eq "make exit" $? 0
	t_eq "the same answer" "$out" "$want"
	t_eq "checked once, no run" "$(cat rules.log)" "check"
	t_end
}
answered_by_check "no skillc.so: skillc-rules check answers from the same journal, the same line"
echo "not an object" >nbin/skillc.so
answered_by_check "a skillc.so make cannot load: ignored, skillc-rules check answers"

t_begin "a misspelt variable after the journal: still refused by skillc-rules check, exit 2"
out=$($WSK REPAET=5 static 2>&1)
t_eq "make exit" $? 2
t_contains "refused" "$out" "REPAET"
t_contains "checked" "$(cat rules.log)" "check"
t_end

t_begin "an instruction.md rewritten with its mtime put back: the change time tells"
$SK $SET static >/dev/null 2>&1
$SK $SET static >/dev/null 2>&1
I=tasks/csv-column-sum/instruction.md
cp -p $I ref.md
printf 'Sum the column. ' | cat - ref.md >$I
touch -r ref.md $I
out=$($SK $SET static 2>&1)
t_eq "make exit" $? 0
case $out in *"make: Nothing to be done"*) t_fail "answered from the journal: $out" ;; esac
t_end
