#!/bin/sh
# End-to-end: bench/crash.sh with a small N, as CI runs it: `make -j3 final`
# (hybrid static compile against the loopback model server, trials through
# the stand-in bench) killed -9 at random moments and resumed, each time in
# the uninterrupted run's state with no LLM request and no trial paid twice.
. "$(dirname "$0")/../lib.sh"

t_begin "bench/crash.sh 3: every kill resumes to the uninterrupted state, nothing paid twice"
out=$(REPEAT=2 sh "$T_ROOT/bench/crash.sh" 3 2>&1)
rc=$?
t_eq "exit" $rc 0; [ $rc -eq 0 ] || printf "%s\n" "$out" | cut -c1-300 >&2
t_contains "the count" "$out" "3/3 identical"
case $out in *DIFF*) t_fail "$(printf '%s\n' "$out" | grep DIFF | head -2)" ;; esac
t_end
