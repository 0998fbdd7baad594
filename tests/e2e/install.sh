#!/bin/sh
# End-to-end: make install lays out tools, make fragments and rules data so
# the installed skillc.mk drives a run outside the source tree.
. "$(dirname "$0")/../lib.sh"

P=$T_TMP/prefix
t_begin "make install, then make -f <datadir>/skillc.mk outside the tree"
out=$(make --no-print-directory -C "$T_ROOT" install PREFIX="$P" SANITIZE="${SANITIZE:-}" 2>&1)
t_eq "install exit" $? 0
for f in bin/skillc-ingest bin/skillc-stage bin/skillc-rules bin/skillc-hash share/skillc/skillc.mk share/skillc/defaults.mk share/skillc/paths.mk; do
	t_check "installed $f" test -e "$P/$f"
done
mkdir -p "$T_TMP/elsewhere" && cp -R "$T_ROOT/tasks" "$T_TMP/elsewhere/tasks" && cd "$T_TMP/elsewhere"
out=$(PATH=/usr/bin:/bin make --no-print-directory -f "$P/share/skillc/skillc.mk" task=csv-column-sum ingest 2>&1)
t_eq "make exit" $? 0
t_contains "ran the installed tools" "$out" "skillc: ingest: done"
t_check "run made here" test -f results/compile-pipeline/csv-column-sum--opencode--no-model/inputs/skill.hash
out=$(PATH=/usr/bin:/bin make --no-print-directory -f "$P/share/skillc/skillc.mk" help 2>&1)
t_contains "help" "$out" "make task=T status"
t_end

t_begin "DESTDIR stages the same layout under another root"
out=$(make --no-print-directory -C "$T_ROOT" install DESTDIR="$T_TMP/stage" PREFIX=/opt/sk SANITIZE="${SANITIZE:-}" 2>&1)
t_eq "exit" $? 0
t_check "tool staged" test -x "$T_TMP/stage/opt/sk/bin/skillc-ingest"
t_eq "paths name the final place, not DESTDIR" "$(grep SKILLC_BIN "$T_TMP/stage/opt/sk/share/skillc/paths.mk")" "SKILLC_BIN := /opt/sk/bin"
t_end
