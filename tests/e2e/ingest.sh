#!/bin/sh
# End-to-end: bad task folders get one clear line naming the file and the
# problem, exit status 2, and leave an earlier good ingest untouched.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W" && cd "$W" || exit 2
SK="make --no-print-directory -f $T_ROOT/mk/skillc.mk"
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

t_begin "a task with two skills"
fresh
cp -R $S/csv-sum $S/other-skill
expect_refused "2 skills in 'tasks/t/environment/skills' (csv-sum, other-skill); skillc compiles one skill per task: keep one"
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
