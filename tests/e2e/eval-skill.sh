#!/bin/sh
# End-to-end: skillc-eval-skill, the seed's evaluation wrapper as one
# command over the pipeline's make, with the stand-in bench: test-001 ...
# test-NNN in --output, nothing run the second time, only the missing
# trials after a kill, the no-skill baseline, and bad input in one line.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR REPEAT MODEL RUNNER HARNESS REQUIRE_SKILL
script() { rm -rf script.n script.lock; printf '%s\n' "$@" >script; }
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
mkdir -p other/col-total
printf -- '---\nname: col-total\ndescription: Sums a CSV column. Use when a task asks for a column total.\n---\n# col-total\n\nParse quoted fields.\n' \
	>other/col-total/SKILL.md
ES="skillc-eval-skill --task tasks/csv-column-sum --harness opencode --model vllm/qwen-27b --runner benchflow"

t_begin "a skill from elsewhere: --repeat 3 --max-parallel 3 writes test-001 ... test-003"
script pass
out=$($ES --skill-source other --output out --require-skill --repeat 3 --max-parallel 3 2>&1)
t_eq "exit" $? 0
for n in 001 002 003; do
	t_check "test-$n" test -f out/test-$n/trial.json
	t_contains "test-$n passed" "$(cat out/test-$n/trial.json)" '"outcome": "passed"'
done
t_check "no test-004" test ! -e out/test-004
t_eq "three trials" "$(starts)" 3
t_contains "the source's skill, required" "$(grep '^start ' bench.log | head -1)" "--skill-mode with-skill --skills-dir"
t_check "the source's skill ingested" cmp other/col-total/SKILL.md out/.run/inputs/skill/col-total/SKILL.md
t_contains "says so" "$out" "3 of 3 trials complete"
t_end

t_begin "run again on the same --output: nothing runs"
out=$($ES --skill-source other --output out --require-skill --repeat 3 --max-parallel 3 2>&1)
t_eq "exit" $? 0
t_eq "no new trial" "$(starts)" 3
case $out in *started*) t_fail "a stage ran: $out" ;; esac
t_end

t_begin "killed halfway and run again: only the missing trials run"
script "pass sleep=0.4"
before=$(starts)
setsid $ES --skill-source other/col-total --output killed --repeat 6 --max-parallel 2 >kill.out 2>&1 &
sid=$!
t_poll 60 test -f killed/.run/traces/csv-column-sum/raw/test-002/trial.json -o -f killed/.run/traces/csv-column-sum/raw/test-001/trial.json ||
	t_fail "no trial finished"
kill -TERM -$sid 2>/dev/null
wait $sid
t_poll 20 sh -c "! pgrep -s $sid" || t_fail "the killed make left processes"
done_list=$(cd killed/.run/traces/csv-column-sum/raw && ls -d test-* 2>/dev/null)
done_before=$(printf '%s\n' $done_list | grep -c .)
[ "$done_before" -ge 1 ] && [ "$done_before" -lt 6 ] || t_fail "killed with $done_before of 6 done"
ran_before=$(($(starts) - before))
script pass
out=$($ES --skill-source other/col-total --output killed --repeat 6 --max-parallel 2 2>&1)
t_eq "resume exit" $? 0
# a trial the kill caught after the trial store took it is reused, not run
[ $(($(starts) - before - ran_before)) -le $((6 - done_before)) ] || t_fail "more trials ran than were missing"
for t in $done_list; do
	case $out in *"raw $t start"*) t_fail "$t, done before the kill, ran again" ;; esac
done
t_eq "six trials" "$(ls -d killed/test-* | wc -l | tr -d ' ')" 6
t_end

t_begin "--no-skill: the baseline's trials, with --skill-mode no-skill"
before=$(starts)
out=$($ES --no-skill --output base --repeat 2 2>&1)
t_eq "exit" $? 0
t_check "test-002" test -f base/test-002/trial.json
t_contains "no skill" "$(cat base/test-001/trial.json)" '"skill_hash": "no-skill"'
t_eq "both with --skill-mode no-skill" "$(grep '^start ' bench.log | tail -n +$((before + 1)) | grep -c -- '--skill-mode no-skill')" 2
t_end

t_begin "a trial cut short: exit 1, no test-001, its attempt kept in .incomplete/"
script "crash"
mkdir -p crashing && cp -R other/col-total crashing/ && echo "A new line: not in the trial store." >>crashing/col-total/SKILL.md
out=$($ES --skill-source crashing --output bad --repeat 1 2>&1)
t_eq "exit" $? 1
t_contains "says so" "$out" "0 of 1 trials complete"
t_check "no test-001" test ! -e bad/test-001
t_check ".incomplete" test -d bad/.incomplete
t_end

t_begin "bad input: one line, exit 2, nothing made"
for args in "--skill-source nowhere --output x1" "--skill-source other --output x2 --repeat 0" \
	"--no-skill --skill-source other --output x3" "--skill-source other"; do
	out=$($ES $args 2>&1)
	t_eq "exit ($args)" $? 2
	t_eq "one line ($args): $out" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 1
done
t_check "nothing made" test ! -e x1 -a ! -e x2 -a ! -e x3
mkdir -p two && cp -R other/col-total two/a && cp -R other/col-total two/b
out=$($ES --skill-source two --output x4 2>&1)
t_contains "two skills of one name" "$out" "skillc-eval-skill: --skill-source: skills 'a' and 'b' of 'two' are both named 'col-total'"
t_check "nothing made" test ! -e x4
t_end
exit 0
