#!/bin/sh
# End-to-end: a task's skill set is the unit. Fixture tasks built here from
# the csv-column-sum sample: set-two (2 skills whose sections share names)
# and set-five (5 skills: one breaking the spec, ingested with a warning;
# the stand-in bench's scripted agent uses only the first, so the others
# are never used), beside the one-skill sample. Through the stand-in bench
# (BenchFlow's --skills-dir): every set is ingested, compiled statically
# skill by skill and evaluated, each trial's skills folder holding the whole
# set; SKILLS= compiles only the named skills and leaves the others
# byte-identical (Harbor's job config names every skill too); a task whose set cannot be taken fails alone with one line
# under make -k. Fast and deep on a set: tests/e2e/skill-set-opt.sh.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR SKILLS
M=vllm/qwen-27b
P=results/compile-pipeline
EV="RUNNER=benchflow MODEL=$M REPEAT=1 FAST_MIN_TRACES=1"
t_csv_set "" set-two csv-quote
t_csv_set "" set-five csv-a csv-b csv-c
t_csv_skill set-five Csv_Odd Csv_Odd Csv_Odd # breaks the spec (capitals): a warning, not a refusal
names() { ls "$1" | tr '\n' ' '; }
skills_of() { # the skill folders a trial's bench saw, from trial.json
	jq -r '[.. | objects | select(has("skills")) | .skills | if type == "array" then .[] else keys[] end
		| if type == "object" then .name else . end] | unique | join(" ")' "$1" 2>/dev/null
}

t_begin "make -k over tasks of 1, 2 and 5 skills: every set ingested, compiled and evaluated whole"
out=$($SK -k tasks="csv-column-sum set-two set-five" $EV static-eval 2>&1)
t_eq "exit" $? 0
for t in csv-column-sum set-two set-five; do
	R=$P/$t--opencode--vllm_qwen-27b
	t_eq "$t: every skill ingested" "$(names $R/inputs/skill)" "$(names tasks/$t/environment/skills)"
	t_eq "$t: every skill compiled" "$(names $R/artifacts/static/S_static)" "$(names tasks/$t/environment/skills)"
	t_eq "$t: a report part a skill" "$(jq -r '[.skills[].skill] | join(" ")' $R/artifacts/static/report.json) " \
		"$(names tasks/$t/environment/skills)"
	tr=$R/traces/$t/static/test-001/trial.json
	t_check "$t: its trial" test -f $tr
	for s in $(ls tasks/$t/environment/skills); do
		t_contains "$t: the trial saw $s" "$(cat $tr)" "\"$s\""
	done
done
t_contains "the spec breaker is taken with a warning" "$out" "warning: skill 'Csv_Odd' breaks the Agent Skills spec"
t_contains "a line a skill" "$out" "skill 'csv-c' of task 'set-five'"
t_contains "bench got the set's folder" "$(grep '^start ' bench.log | grep set-five | head -1)" "--skills-dir"
t_end

t_begin "RUNNER=harbor: the job config names every skill of the set"
ln -s "$T_ROOT/tests/helpers/fake-harbor.sh" fake/harbor
out=$(FAKE_HARBOR_LOG=$W/harbor.log $SK task=set-five RUNNER=harbor MODEL=$M REPEAT=1 raw-eval 2>&1)
t_eq "exit" $? 0
T=$P/set-five--opencode--vllm_qwen-27b/traces/set-five/raw/test-001
t_contains "a Harbor trial" "$(cat $T/trial.json)" '"schema": "harbor"'
t_eq "Harbor's agent got each skill" "$(jq -r '.agents[0].skills | map(split("/") | last) | join(" ")' $T/raw/trial/config.json)" \
	"Csv_Odd csv-a csv-b csv-c csv-sum"
t_end

t_begin "SKILLS= compiles only the named skills; the others stay byte-identical"
R=$P/set-five--opencode--vllm_qwen-27b
out=$($SK task=set-five $EV SKILLS="csv-sum csv-b" static 2>&1)
t_eq "exit" $? 0
t_contains "the others said so" "$out" "csv-a: not named in SKILLS, copied unchanged"
for s in Csv_Odd csv-a csv-c; do
	t_eq "$s untouched" "$(skillc-hash $R/artifacts/static/S_static/$s | cut -d' ' -f1)" "$(skillc-hash $R/inputs/skill/$s | cut -d' ' -f1)"
done
t_eq "compiled flags" "$(jq -r '[.skills[] | .skill + "=" + (.compiled | tostring)] | join(" ")' $R/artifacts/static/report.json)" \
	"Csv_Odd=false csv-a=false csv-b=true csv-c=false csv-sum=true"
t_eq "remembered" "$(jq -r .SKILLS $R/inputs/config.json)" "csv-sum csv-b"
out=$($SK task=set-five $EV SKILLS=nosuch static 2>&1)
t_eq "a name the set lacks: exit" $? 2
t_contains "says which" "$out" "SKILLS names 'nosuch', which the skill set in"
t_end

t_begin "a task whose set cannot be taken fails alone with one line"
t_csv_set "" set-dup
cp -R tasks/set-dup/environment/skills/csv-sum tasks/set-dup/environment/skills/csv-sum-copy
out=$($SK -k tasks="set-dup set-two" $EV static 2>&1)
t_eq "exit" $? 2
t_eq "one error line" "$(printf '%s\n' "$out" | grep -c "^skillc-ingest: .*are both named 'csv-sum'")" 1
t_check "the other task done" test -f $P/set-two--opencode--vllm_qwen-27b/status/static.ok
t_end

exit 0
