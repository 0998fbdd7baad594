#!/bin/sh
# End-to-end: SKILL_SOURCE=<dir> evaluates a skill from another folder on a
# task (trials through the stand-in `bench`): the run folder is named by the
# skill's content, switching sources back and forth runs nothing new the
# second time round, a task with no skill of its own can be evaluated this
# way, and a bad source is one line, exit 2, with nothing built damaged.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR
M=vllm/qwen-27b
P=results/compile-pipeline
EV="task=csv-column-sum RUNNER=benchflow MODEL=$M REPEAT=2"
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
# a skill of our own, in two variants (its folder is its name, as the spec wants)
skill() { # skill DIR NAME TEXT
	mkdir -p "$1/$2"
	printf -- '---\nname: %s\ndescription: Sums a CSV column. Use when a task asks for a column total.\n---\n# %s\n\n%s\n' \
		"$2" "$2" "$3" >"$1/$2/SKILL.md"
}
skill src-a col-total "Parse quoted fields before you add."
skill src-b col-total "Use python's csv module; never split on commas."
run_of() { ls -d $P/csv-column-sum--opencode--vllm_qwen-27b--src-col-total-* 2>/dev/null | grep -F -- "-$1" ; }
tag_of() { skillc-rules source-tag "$1"; }

t_begin "a skill from another folder, evaluated on a sample task"
out=$($SK $EV SKILL_SOURCE=src-a/col-total raw-eval 2>&1)
t_eq "exit" $? 0
ta=$(tag_of src-a/col-total)
case $ta in src-col-total-??????????) ;; *) t_fail "tag: $ta" ;; esac
RA=$P/csv-column-sum--opencode--vllm_qwen-27b--$ta
t_check "the run folder names the source" test -d $RA
t_check "the source skill ingested" cmp src-a/col-total/SKILL.md $RA/inputs/skill/col-total/SKILL.md
t_check "not the task's own skill" test ! -e $RA/inputs/skill/csv-sum
t_eq "two trials" "$(starts)" 2
t_contains "bench got a skills dir" "$(grep '^start ' bench.log | head -1)" "--skill-mode with-skill --skills-dir $W/$RA/traces/csv-column-sum/raw/"
t_contains "trial records the source's skill" "$(cat $RA/traces/csv-column-sum/raw/test-001/trial.json)" '"col-total"'
t_end

t_begin "switching SKILL_SOURCE back and forth runs nothing new the second time round"
out=$($SK $EV SKILL_SOURCE=src-b/col-total raw-eval 2>&1)
t_eq "b exit" $? 0
tb=$(tag_of src-b/col-total)
[ "$tb" != "$ta" ] || t_fail "two sources, one tag: $ta"
t_check "b is another run" test -d $P/csv-column-sum--opencode--vllm_qwen-27b--$tb/traces/csv-column-sum/raw/test-002
t_eq "b ran its own trials" "$(starts)" 4
for src in src-a/col-total src-b/col-total src-a/col-total src-b/col-total; do
	out=$($SK $EV SKILL_SOURCE=$src raw-eval 2>&1)
	t_eq "again $src exit" $? 0
	case $out in *started*) t_fail "switching back to $src ran a stage: $out" ;; esac
done
t_eq "no new trial" "$(starts)" 4
t_eq "a skills root names the same run" "$(tag_of src-a)" "$ta"
out=$($SK $EV SKILL_SOURCE=src-a raw-eval 2>&1)
t_eq "the root: exit" $? 0
t_eq "the root: the same skill, no new trial" "$(starts)" 4
out=$($SK $EV SKILL_SOURCE=src-a status GOAL=raw-eval 2>&1)
t_eq "status up to date" $? 0
t_end

t_begin "an edited source is another run; the task's own skill is still its own run"
printf '\nOne more line.\n' >>src-a/col-total/SKILL.md
t_check "edited: another tag" test "$(tag_of src-a/col-total)" != "$ta"
out=$($SK task=csv-column-sum ingest 2>&1)
t_eq "own skill exit" $? 0
t_check "own run, own skill" test -d $P/csv-column-sum--opencode--no-model/inputs/skill/csv-sum
t_end

t_begin "a task with no skill of its own, evaluated with SKILL_SOURCE"
cp -R tasks/csv-column-sum tasks/bare
rm -rf tasks/bare/environment/skills
out=$($SK task=bare ingest 2>&1)
t_eq "without a source: refused" $? 2
out=$($SK task=bare RUNNER=benchflow MODEL=$M REPEAT=1 SKILL_SOURCE=src-b raw-eval 2>&1)
t_eq "with a source exit" $? 0
t_check "its trial" test -f $P/bare--opencode--vllm_qwen-27b--$tb/traces/bare/raw/test-001/trial.json
t_end

t_begin "SKILL_SOURCE holding a set of skills: every trial sees the whole set"
skill set-src col-total "Use python's csv module."
skill set-src csv-helper "Quote every field."
out=$($SK $EV SKILL_SOURCE=set-src raw-eval 2>&1)
t_eq "exit" $? 0
ts=$(tag_of set-src)
case $ts in src-set-src-??????????) ;; *) t_fail "tag: $ts" ;; esac
RS=$P/csv-column-sum--opencode--vllm_qwen-27b--$ts
t_eq "both ingested" "$(ls $RS/inputs/skill | tr '\n' ' ')" "col-total csv-helper "
t_contains "a line a skill" "$out" "skill 'csv-helper' of task 'csv-column-sum'"
tr=$(cat $RS/traces/csv-column-sum/raw/test-001/trial.json)
t_contains "the trial records the first skill" "$tr" '"col-total"'
t_contains "and the second" "$tr" '"csv-helper"'
t_end

# bad sources: one line, exit 2, the earlier runs' folders unchanged
snapshot() { find results -type f | sort | xargs cksum | cksum; }
refused() { # refused "what" SOURCE "expected text"
	before=$(snapshot)
	out=$($SK $EV SKILL_SOURCE=$2 raw-eval 2>&1)
	rc=$?
	t_eq "$1: exit" $rc 2
	t_eq "$1: one line" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 1
	t_contains "$1: message" "$out" "$3"
	t_eq "$1: nothing built changed" "$(snapshot)" "$before"
}
t_begin "bad SKILL_SOURCE: missing, two of one name, a stray file, a symlink leaving it"
refused "missing" no-such-dir "SKILL_SOURCE: no skill: 'no-such-dir' is missing"
mkdir -p two && cp -R src-b/col-total two/one && cp -R src-b/col-total two/other
refused "two skills of one name" two "SKILL_SOURCE: skills 'one' and 'other' of 'two' are both named 'col-total'"
mkdir -p stray && cp -R src-b/col-total stray/ && echo x >stray/notes.txt
refused "a stray file beside the skills" stray "SKILL_SOURCE: stray file 'stray/notes.txt' beside the skills"
mkdir -p leaky && cp -R src-b/col-total leaky/ && ln -s ../../../tasks/csv-column-sum/instruction.md leaky/col-total/notes.md
refused "a symlink leaving it" leaky "SKILL_SOURCE: symlink 'leaky/col-total/notes.md' points outside the skill folder"
mkdir -p linked && ln -s ../src-b/col-total linked/col-total
refused "a symlinked skill folder" linked "SKILL_SOURCE: skill folder 'linked/col-total' is a symlink"
mkdir -p empty/licenses
refused "no skill in it" empty "SKILL_SOURCE: no skill: no folder in 'empty' holds a SKILL.md"
t_eq "no trial ran" "$(starts)" 7
t_end
exit 0
