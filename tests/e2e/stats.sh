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
err=$(skillc-stats table --candidate 1/3 2>&1)
t_eq "exit: an option of another subcommand" $? 2
t_eq "names it" "$err" "skillc-stats: unknown option '--candidate' (see --help)"
err=$(skillc-stats pooled --draws=x a:1/3:2/3 2>&1)
t_eq "exit: a bad count" $? 2
t_eq "says what it wants" "$err" "skillc-stats: --draws wants a whole number from 0 to 100000, not 'x'"
t_end

t_begin "--help after a subcommand lists its options, alone the union"
out=$(skillc-stats plan --help | sed -n '/^options:$/,$p')
t_contains "plan's option" "$out" "--max-tasks K"
case $out in *--grey*) t_fail "plan's help names the rule's --grey" ;; esac
out=$(skillc-stats --help)
t_contains "the rule's" "$out" "--grey G"
t_contains "and plan's" "$out" "--max-tasks K"
t_eq "each option once" "$(printf '%s\n' "$out" | grep -c '^  --alpha ')" 1
t_end

t_begin "across: the figures across tasks as JSON; a small run says it was too small"
skillc-stats across a:1/3:3/3 b:0/3:1/3 c:2/3:2/3 d:2/3:1/3 >"$T_TMP/x.json" 2>&1
t_eq "exit" $? 0
t_eq "tasks" "$("$J" "$T_TMP/x.json" tasks)" 4
t_eq "mean delta" "$("$J" "$T_TMP/x.json" mean_delta)" 0.166667
t_eq "normalized gain" "$("$J" "$T_TMP/x.json" normalized_gain)" 0.285714
t_eq "sign test" "$("$J" "$T_TMP/x.json" sign_test.p)" 0.5
t_eq "stratified p" "$("$J" "$T_TMP/x.json" stratified.p)" 0.34
t_eq "holm" "$("$J" "$T_TMP/x.json" per_task.0.p_holm)" 0.8
t_eq "too small" "$("$J" "$T_TMP/x.json" too_small)" true
t_eq "reject" "$("$J" "$T_TMP/x.json" verdict)" reject
skillc-stats across t1:0/6:6/6 t2:1/6:5/6 t3:0/6:5/6 >"$T_TMP/y.json" 2>&1
t_eq "a clear gain is accepted" "$("$J" "$T_TMP/y.json" verdict)" accept
t_eq "and was not too small" "$("$J" "$T_TMP/y.json" too_small)" false
err=$(skillc-stats across a:1/3 2>&1)
t_eq "bad task: exit 2" $? 2
t_contains "says the form" "$err" "a task is NAME:PASS/N:PASS/N"
err=$(skillc-stats across a:4/3:1/3 2>&1)
t_eq "bad counts: exit 2" $? 2
t_end

t_begin "strata: the stratified test's false-accept rate and power, exact or Monte Carlo"
out=$(skillc-stats strata --tasks 3 2>&1)
t_eq "exit" $? 0
t_contains "exact gain" "$out" "0.4      0.7      gain            0.3598 exact"
t_contains "size" "$out" "worst false-accept rate 0.0498"
out=$(skillc-stats strata --tasks 10 --draws 2000 --effect .4:.7 2>&1)
t_contains "Monte Carlo" "$out" "Monte Carlo, 2000 draws, se"
t_end

t_begin "pooled: the deep rule over several tasks, tasks as strata, calibrated"
skillc-stats pooled --first 3 --max 12 --extend-baseline a:1/3:3/3 b:0/3:2/3 >"$T_TMP/p.json" 2>&1
t_eq "exit" $? 0
t_eq "per-stratum counts" "$(jq -c '[.strata[] | "\(.task) \(.baseline.passed)/\(.baseline.trials) \(.candidate.passed)/\(.candidate.trials)"]' "$T_TMP/p.json")" \
	'["a 1/3 3/3","b 0/3 2/3"]'
t_eq "the stratified p, the verdict" "$(jq -r '"\(.p_value) \(.verdict) \(.rule.test)"' "$T_TMP/p.json")" "0.04 accept stratified"
t_check "uncalibrated, five looks exceed alpha" jq -e '.false_accept.worst > 0.1' "$T_TMP/p.json"
skillc-stats pooled --first 3 --max 12 --extend-baseline --calibrate a:1/3:3/3 b:0/3:2/3 >"$T_TMP/q.json" 2>&1
t_check "calibrated: the worst false-accept rate is at most alpha" \
	jq -e '.false_accept.worst <= 0.1 and .rule.level < 0.1 and .false_accept.tasks == 2' "$T_TMP/q.json"
skillc-stats pooled a:1/3:2/3 b:1/3:2/3 >"$T_TMP/r.json" 2>&1
t_eq "one look, ahead but not significant: rejected" "$(jq -r .verdict "$T_TMP/r.json")" reject
skillc-stats pooled --max 6 a:1/3:2/3 b:1/3:2/3 >"$T_TMP/r.json" 2>&1
t_eq "with a look to come: more trials" "$(jq -c '[.verdict, .next.candidate]' "$T_TMP/r.json")" '["extend",6]'
err=$(skillc-stats pooled a:4/3:1/3 2>&1)
t_eq "bad counts: exit 2" $? 2
t_eq "in one line" "$(printf '%s\n' "$err" | wc -l)" 1
t_end

t_begin "plan: how many trials per arm and how many tasks a gain of 0.2 needs"
out=$(skillc-stats plan --effect 0.2 --power 0.8 2>&1)
t_eq "exit" $? 0
t_contains "one task" "$out" "one task: 61 trials per arm (fisher, power 0.802)"
t_contains "tasks" "$out" "across tasks: 22 tasks of 3 trials per arm"
err=$(skillc-stats plan --effect 0.6 --power 0.8 --base 0.5 2>&1)
t_eq "impossible effect: exit 2" $? 2
t_contains "says why" "$err" "--base + --effect at most 1"
t_end

t_begin "the stratified test's table agrees with the independent script, regenerated"
if command -v python3 >/dev/null 2>&1; then
	cut -d' ' -f1 "$T_ROOT/tests/fixtures/stats/strata-cases.txt" | python3 "$T_ROOT/tests/helpers/strata-exact.py" >"$T_TMP/cases"
	t_check "same table" cmp "$T_TMP/cases" "$T_ROOT/tests/fixtures/stats/strata-cases.txt"
else
	t_skip "no python3"
fi
t_end
