#!/bin/sh
# End-to-end: bad task folders get one clear line naming the file and the
# problem, exit status 2, and leave an earlier good ingest untouched.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W" && cd "$W" || exit 2
SK=$T_SK
R=results/compile-pipeline/t--opencode--no-model
S=tasks/t/environment/skills

fresh() {
	rm -rf tasks results
	mkdir -p tasks
	cp -R "$T_ROOT/tasks/csv-column-sum" tasks/t
	$SK task=t ingest >/dev/null 2>&1 || t_fail "the good ingest failed"
	good=$(skillc-hash $R/inputs/skill $R/inputs/skill.hash $R/inputs/check.json | cut -d' ' -f1)
}

# bad_case "name" "expected text" — runs make after the test broke the task
expect_refused() {
	out=$($SK task=t ingest 2>&1)
	rc=$?
	t_eq "exit status" $rc 2
	lines=$(printf '%s\n' "$out" | grep -c '^skillc-ingest: ')
	t_eq "one error line" "$lines" 1
	t_contains "message" "$(printf '%s\n' "$out" | grep '^skillc-ingest: ')" "$1"
	t_eq "earlier inputs untouched" "$(skillc-hash $R/inputs/skill $R/inputs/skill.hash $R/inputs/check.json | cut -d' ' -f1)" "$good"
	t_check "nothing marked done" test ! -e $R/status/ingest.ok
	t_contains "status says failed" "$(cat $R/status/ingest.json)" '"state": "failed"'
}

t_begin "a task with no skill"
fresh
rm -rf $S/csv-sum
expect_refused "no skill: no folder in 'tasks/t/environment/skills' holds a SKILL.md"
t_end

t_begin "a task with no environment/skills folder"
fresh
rm -rf $S
expect_refused "no skill: 'tasks/t/environment/skills' is missing"
t_end

t_begin "a task with three skills: the set is ingested, each skill hashed and reported on its own"
fresh
cp -R $S/csv-sum $S/b-skill && sed -i 's/^name: csv-sum$/name: b-skill/' $S/b-skill/SKILL.md
cp -R $S/csv-sum $S/Bad_Form && sed -i 's/^name: csv-sum$/name: Bad_Form/' $S/Bad_Form/SKILL.md
out=$($SK task=t ingest 2>&1)
t_eq "exit" $? 0
t_eq "every skill copied" "$(ls $R/inputs/skill | tr '\n' ' ')" "Bad_Form b-skill csv-sum "
t_contains "one line a skill" "$out" "skill 'b-skill' of task 't'"
t_contains "the set's line" "$out" "task 't': a set of 3 skills, hash $(cut -c1-12 $R/inputs/skill.hash)"
t_contains "the spec breaker is taken with a warning" "$out" "warning: skill 'Bad_Form' breaks the Agent Skills spec"
t_eq "the set hashed as one tree" "$(cat $R/inputs/skill.hash)" "$(skillc-hash $R/inputs/skill | cut -d' ' -f1)"
t_eq "per-skill hashes" "$(jq -r '.skills[] | .skill + " " + .hash' $R/inputs/check.json | tr '\n' ' ')" \
	"Bad_Form $(skillc-hash $R/inputs/skill/Bad_Form | cut -d' ' -f1) b-skill $(skillc-hash $R/inputs/skill/b-skill | cut -d' ' -f1) csv-sum $(skillc-hash $R/inputs/skill/csv-sum | cut -d' ' -f1) "
t_eq "per-skill verdicts" "$(jq -r '[.skills[].check.verdict] | join(" ")' $R/inputs/check.json)" "invalid valid valid"
t_end

t_begin "a flow list in a skill's frontmatter (as SkillsBench ships): an error of the spec, taken with a warning"
fresh
printf -- '---\nname: csv-sum\ndescription: Sums a CSV column. Use for totals.\nmetadata:\n  tags: [csv, sum]\n---\n# CSV sum\n\nUse awk.\n' >$S/csv-sum/SKILL.md
out=$($SK task=t ingest 2>&1)
t_eq "exit" $? 0
t_contains "the warning names the flow list" "$out" "warning: skill 'csv-sum' breaks the Agent Skills spec: tasks/t/environment/skills/csv-sum/SKILL.md:5:9: Invalid YAML in frontmatter: flow sequences"
t_eq "the verdict" "$(jq -r '.skills[0].check.verdict' $R/inputs/check.json)" "invalid"
t_check "copied as it is" cmp -s $S/csv-sum/SKILL.md $R/inputs/skill/csv-sum/SKILL.md
t_end

t_begin "two skills of one name: the set is refused"
fresh
cp -R $S/csv-sum $S/other-skill
expect_refused "skills 'csv-sum' and 'other-skill' of 'tasks/t/environment/skills' are both named 'csv-sum'"
t_end

t_begin "a stray file beside the skills"
fresh
echo notes > $S/README.md
expect_refused "stray file 'tasks/t/environment/skills/README.md' beside the skills"
t_end

t_begin "an unreadable skill of a set refuses the set"
fresh
cp -R $S/csv-sum $S/b-skill && printf -- '---\nname: [b\n---\n' > $S/b-skill/SKILL.md
expect_refused "tasks/t/environment/skills/b-skill/SKILL.md"
t_end

t_begin "a folder without SKILL.md is not a skill (licenses/ and the like)"
fresh
mkdir -p $S/licenses && echo MIT > $S/licenses/LICENSE
out=$($SK task=t ingest 2>&1)
t_eq "exit" $? 0
t_check "only the skill copied" test ! -e $R/inputs/skill/licenses
t_end

t_begin "a SKILL.md that is not UTF-8"
fresh
printf -- '---\nname: csv-sum\ndescription: caf\351 au lait. Use when testing.\n---\n# x\n' > $S/csv-sum/SKILL.md
expect_refused "tasks/t/environment/skills/csv-sum/SKILL.md"
t_contains "says UTF-8" "$out" "UTF-8"
t_end

t_begin "a SKILL.md with unclosed frontmatter"
fresh
printf -- '---\nname: csv-sum\ndescription: Use when testing.\n# Title\n\nbody\n' > $S/csv-sum/SKILL.md
expect_refused "not properly closed"
t_contains "names the file" "$out" "SKILL.md"
t_end

t_begin "a skill symlink pointing outside the skill"
fresh
ln -s /etc/passwd $S/csv-sum/leak
expect_refused "symlink 'tasks/t/environment/skills/csv-sum/leak' points outside the skill folder (-> /etc/passwd)"
rm $S/csv-sum/leak
ln -s ../../../instruction.md $S/csv-sum/rel-leak
expect_refused "symlink 'tasks/t/environment/skills/csv-sum/rel-leak' points outside the skill folder"
t_end

t_begin "a symlink inside the skill is kept as a link"
fresh
ln -s scripts/sum.awk $S/csv-sum/sum-link.awk
out=$($SK task=t ingest 2>&1)
t_eq "exit" $? 0
t_eq "still a link" "$(readlink $R/inputs/skill/csv-sum/sum-link.awk)" "scripts/sum.awk"
t_end

t_begin "a 50 MB file"
fresh
head -c 52428800 /dev/zero > $S/csv-sum/big.bin
expect_refused "'tasks/t/environment/skills/csv-sum/big.bin' is 50.0 MB, over the 25 MB cap (MAX_FILE_MB); move it out of the skill or raise MAX_FILE_MB"
out=$($SK task=t ingest MAX_FILE_MB=60 2>&1)
t_eq "accepted with a higher cap" $? 0
t_end

t_begin "a task name with a space or \$(shell ...), given to the tool directly"
mkdir -p "$W/odd/a b" "$W/odd/\$(touch pwned)"
out=$(skillc-ingest --task "$W/odd/a b" --out "$T_TMP/o" --hash "$T_TMP/h" 2>&1)
t_eq "space exit" $? 2
t_contains "space" "$out" "skillc-ingest: bad task name 'a b'"
out=$(skillc-ingest --task "$W/odd/\$(touch pwned)" --out "$T_TMP/o" --hash "$T_TMP/h" 2>&1)
t_eq "shell exit" $? 2
t_contains "shell" "$out" "bad task name '\$(touch pwned)'"
t_check "nothing written" test ! -e "$T_TMP/o" -a ! -e "$T_TMP/h" -a ! -e pwned
t_end

t_begin "usage errors"
out=$(skillc-ingest --task x 2>&1)
t_eq "exit" $? 2
t_contains "message" "$out" "skillc-ingest: --task, --out and --hash are required (see --help)"
out=$(skillc-ingest --bogus 1 2>&1)
t_contains "unknown" "$out" "unknown option '--bogus'"
out=$(skillc-ingest --task x --out o --hash h --max-file-mb 25MB 2>&1)
t_eq "a cap that is not a number: exit" $? 2
t_eq "says the range" "$out" "skillc-ingest: --max-file-mb wants a whole number from 1 to 4096, not '25MB'"
t_eq "version" "$(skillc-ingest --version)" "skillc-ingest 1"
t_end
