#!/bin/sh
# End-to-end: every task of the SkillsBench corpus (../shared/corpus/skillsbench
# beside the repository) is ingested, its whole skill set, and compiled
# statically, every skill of the set, with the qwen profile (the tightest
# budget of the common targets): no crash, the guard holds on every output
# as written on disk (tests/helpers/static-verify, skill by skill), and
# every skill over the budget comes out within it with its moved sections
# under references/.
# No task is refused: fix-druid-loophole-cve's senior-java, whose frontmatter
# holds a flow list the spec's parser refuses, is taken with that warning.
# Figures (count, time, token reduction): bench/static-corpus.sh.
. "$(dirname "$0")/../lib.sh"

CORPUS=$T_ROOT/../shared/corpus/skillsbench
VERIFY=$T_ROOT/build/tests/helpers/static-verify
[ -x "$VERIFY" ] || { echo "FAIL static-corpus.sh: build/tests/helpers/static-verify is missing (make check builds it)"; exit 1; }
if [ ! -d "$CORPUS" ]; then
	t_skip "static compile over the corpus" "no corpus at ../shared/corpus/skillsbench"
	exit 0
fi
skillc-profile --model vllm/Qwen/Qwen3.5-27B --profiles "$T_ROOT/rules/profiles" --out "$T_TMP/profile.json" >/dev/null
find "$CORPUS" -mindepth 1 -maxdepth 1 -type d | sort >"$T_TMP/list"
total=$(wc -l <"$T_TMP/list" | tr -d ' ')
skills_total=$(find "$CORPUS" -path '*/environment/skills/*/SKILL.md' | wc -l | tr -d ' ')

t_begin "corpus: every task's set ingested and compiled, the guard holds on disk, long skills fit with references/"
n=0 sets=0 skills=0 long=0 fit=0 flow=0
while read -r task; do
	n=$((n + 1))
	P=$T_TMP/p$n
	mkdir -p "$P"
	if ! skillc-ingest --task "$task" --out "$P/in" --hash "$P/in.hash" >"$P/ingest.out" 2>"$P/err"; then
		t_fail "$task: ingest refused: $(grep -v warning "$P/err")"
		continue
	fi
	case $task in
	*/fix-druid-loophole-cve) grep -q "senior-java/SKILL.md:22:17: Invalid YAML in frontmatter: flow sequences" "$P/err" &&
		flow=1 ;;
	esac
	k=$(ls "$P/in" | wc -l)
	[ "$(grep -c "^skillc-ingest: skill '" "$P/ingest.out")" -eq "$k" ] || t_fail "$task: not a line a skill"
	[ "$k" -gt 1 ] && sets=$((sets + 1))
	if ! skillc-static --skill "$P/in" --profile "$T_TMP/profile.json" --out "$P/out" --report "$P/r.json" \
		>/dev/null 2>"$P/err"; then
		t_fail "$task: exit $?: $(cat "$P/err")"
		continue
	fi
	v=$("$VERIFY" "$P/in" "$P/out" 2>&1) || t_fail "$task: $v"
	skills=$((skills + $(jq '.skills | length' "$P/r.json")))
	long=$((long + $(jq '[.skills[] | select(.before.tokens > .profile.body_budget.tokens or .before.lines > .profile.body_budget.lines)] | length' "$P/r.json")))
	fit=$((fit + $(jq '[.skills[] | select(.before.tokens > .profile.body_budget.tokens or .before.lines > .profile.body_budget.lines)
		| select(.within_budget and ([.files_added[] | select(startswith("references/"))] | length) > 0
			and ([.files_added[] | select(startswith("references/") | not)] | length) == 0)] | length' "$P/r.json")))
	rm -rf "$P"
done <"$T_TMP/list"
t_eq "tasks ingested and compiled" $n "$total"
t_eq "the flow list in senior-java: a warning, not a refusal" $flow 1
t_eq "skills compiled: all" $skills "$skills_total"
t_check "most tasks carry several skills ($sets of $n)" test "$sets" -gt $((n / 2))
t_eq "long skills within budget" $fit $long
[ $long -gt 0 ] || t_fail "no long skill in the corpus: the test proves nothing"
t_end
