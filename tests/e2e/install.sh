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

t_begin "the installed skillc.so answers a no-op inside make (skillc-rules beside it)"
t_check "installed bin/skillc.so" test -f "$P/bin/skillc.so"
I="make --no-print-directory -f $P/share/skillc/skillc.mk task=csv-column-sum"
PATH=/usr/bin:/bin $I ingest >/dev/null 2>&1
PATH=/usr/bin:/bin $I ingest >/dev/null 2>&1
if command -v strace >/dev/null 2>&1; then
	out=$(PATH=/usr/bin:/bin strace -f -qq -e trace=execve -o "$T_TMP/exec.log" $I ingest 2>&1)
	t_contains "answered" "$out" "make: Nothing to be done for 'ingest'."
	t_eq "programs started" "$(grep -c 'execve(' "$T_TMP/exec.log")" 1
fi
t_end

t_begin "make install puts skillc(7) and a skillc-<tool>(1) for every tool in MANDIR, docs/ in DOCDIR"
for t in "$T_ROOT"/tools/skillc-*.c; do
	n=$(basename "$t" .c)
	t_check "man page of $n" test -f "$P/share/man/man1/$n.1"
done
t_check "skillc(7)" test -f "$P/share/man/man7/skillc.7"
t_check "the docs" test -f "$P/share/doc/skillc/pipeline.md"
t_check "the internals" test -f "$P/share/doc/skillc/internals/layout.md"
t_check "the model server stand-in" test -x "$P/libexec/skillc/fakellm"
t_check "the scripted agent" test -x "$P/libexec/skillc/acpagent"
t_end

if command -v groff >/dev/null 2>&1 && command -v man >/dev/null 2>&1; then
t_begin "every man page renders without a warning, with NAME, SYNOPSIS, DESCRIPTION and SEE ALSO"
	for m in "$P"/share/man/man1/*.1 "$P"/share/man/man7/*.7; do
		w=$(groff -man -Tutf8 -ww -z "$m" 2>&1)
		t_eq "groff warnings of $(basename "$m")" "$w" ""
		txt=$(MANWIDTH=80 man -l "$m" 2>&1)
		for sec in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
			case $txt in *"$sec"*) ;; *) t_fail "$(basename "$m") has no $sec section" ;; esac
		done
	done
	out=$(MANWIDTH=80 man -M "$P/share/man" skillc-doctor 2>&1)
	t_contains "man finds an installed page by name" "$out" "skillc-doctor - check what a run needs"
	out=$(MANWIDTH=80 man -M "$P/share/man" 7 skillc 2>&1)
	t_contains "and skillc(7)" "$out" "compile an Agent Skill for one model and harness"
t_end
else
	t_skip "man pages render" "no man or groff (apt-get install -y man-db groff-base)"
fi

t_begin "make uninstall removes what install put there"
out=$(make --no-print-directory -C "$T_ROOT" uninstall PREFIX="$P" 2>&1)
t_eq "exit" $? 0
t_check "no man page left" test -z "$(find "$P/share/man" -type f 2>/dev/null)"
t_check "no docs left" test ! -e "$P/share/doc/skillc"
t_check "no tool left" test ! -e "$P/bin/skillc-ingest"
t_check "no skillc.so left" test ! -e "$P/bin/skillc.so"
t_check "no stand-in left" test ! -e "$P/libexec/skillc"
t_end

t_begin "DESTDIR stages the same layout under another root"
out=$(make --no-print-directory -C "$T_ROOT" install DESTDIR="$T_TMP/stage" PREFIX=/opt/sk SANITIZE="${SANITIZE:-}" 2>&1)
t_eq "exit" $? 0
t_check "tool staged" test -x "$T_TMP/stage/opt/sk/bin/skillc-ingest"
t_check "man page staged" test -f "$T_TMP/stage/opt/sk/share/man/man7/skillc.7"
t_eq "paths name the final place, not DESTDIR" "$(grep SKILLC_BIN "$T_TMP/stage/opt/sk/share/skillc/paths.mk")" "SKILLC_BIN := /opt/sk/bin"
t_end
