#!/bin/sh
# End-to-end: skillc-stats prints the figures of optimization.md §8 and a
# decision as JSON; bad input is exit 2 with one line naming what to fix.
. "$(dirname "$0")/../lib.sh"
J=$T_ROOT/build/tests/helpers/jget

t_begin "table: one-sided Fisher at N=6 accepts a useless edit 2.9% of the time"
out=$(skillc-stats table --test fisher --alpha 0.10 --first 6 2>&1)
t_eq "exit" $? 0
t_contains "useless" "$out" "0.5      0.5      useless         0.0291     0.0291             6.00"
t_contains "gain" "$out" "0.4      0.7      gain            0.1909"
t_contains "size" "$out" "worst false-accept rate 0.0338"
t_end

t_begin "table: a calibrated sequential Barnard rule keeps its false-accept rate under alpha"
out=$(skillc-stats table --test barnard --first 3 --max 12 --step 3 --extend-baseline --calibrate 2>&1)
t_eq "exit" $? 0
t_contains "level" "$out" "level 0.07208 per look"
t_contains "size" "$out" "worst false-accept rate 0.0926"
t_end

t_begin "decide: ahead but not significant asks for more trials, as JSON"
skillc-stats decide --baseline 1/3 --candidate 3/3 --max 9 --rewards 0.3:0.9 >"$T_TMP/d.json" 2>"$T_TMP/d.err"
t_eq "exit" $? 0
t_eq "verdict" "$("$J" "$T_TMP/d.json" verdict)" extend
t_eq "p" "$("$J" "$T_TMP/d.json" p_value)" 0.2
t_eq "next" "$("$J" "$T_TMP/d.json" next.candidate)" 6
t_end

t_begin "decide: a tie is rejected; strong evidence is accepted"
skillc-stats decide --baseline 2/6 --candidate 2/6 >"$T_TMP/t.json" 2>&1
t_eq "tie" "$("$J" "$T_TMP/t.json" verdict)" reject
skillc-stats decide --test barnard --baseline 1/6 --candidate 5/6 >"$T_TMP/a.json" 2>&1
t_eq "accept" "$("$J" "$T_TMP/a.json" verdict)" accept
t_end

t_begin "bad input: exit 2 and one line"
err=$(skillc-stats decide --baseline 4/3 --candidate 1/3 2>&1)
t_eq "exit" $? 2
t_contains "names it" "$err" "baseline 4/3 is not a pass count"
err=$(skillc-stats table --test median 2>&1)
t_eq "exit test" $? 2
t_contains "test" "$err" "unknown test 'median'"
err=$(skillc-stats table --first 3 --max 2 2>&1)
t_eq "exit max" $? 2
t_contains "max" "$err" "first (3) <= max (2)"
err=$(skillc-stats 2>&1)
t_eq "exit usage" $? 2
t_end
