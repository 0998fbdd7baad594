#!/bin/sh
# End-to-end: the static compile over every SKILL.md of the SkillsBench
# corpus (../shared/corpus/skillsbench beside the repository), each wrapped
# as a one-skill package, with the qwen profile (the tightest budget of the
# common targets): no crash, the guard holds on every output as written on
# disk (tests/helpers/static-verify), and every skill over the budget comes
# out within it with its moved sections under references/.
# Figures (token reduction, time per skill): bench/static-corpus.sh.
. "$(dirname "$0")/../lib.sh"

CORPUS=$T_ROOT/../shared/corpus/skillsbench
VERIFY=$T_ROOT/build/tests/helpers/static-verify
[ -x "$VERIFY" ] || { echo "FAIL static-corpus.sh: build/tests/helpers/static-verify is missing (make check builds it)"; exit 1; }
if [ ! -d "$CORPUS" ]; then
	t_skip "static compile over the corpus" "no corpus at ../shared/corpus/skillsbench"
	exit 0
fi
skillc-profile --model vllm/Qwen/Qwen3.5-27B --profiles "$T_ROOT/rules/profiles" --out "$T_TMP/profile.json" >/dev/null
find "$CORPUS" -name SKILL.md | sort >"$T_TMP/list"
total=$(wc -l <"$T_TMP/list" | tr -d ' ')

t_begin "corpus: every skill compiles, the guard holds on disk, long skills fit with references/"
n=0 long=0 fit=0
while read -r f; do
	n=$((n + 1))
	P=$T_TMP/p$n
	mkdir -p "$P/in"
	cp -R "$(dirname "$f")" "$P/in/"
	if ! skillc-static --skill "$P/in" --profile "$T_TMP/profile.json" --out "$P/out" --report "$P/r.json" \
		>/dev/null 2>"$P/err"; then
		t_fail "$f: exit $?: $(cat "$P/err")"
		continue
	fi
	v=$("$VERIFY" "$P/in" "$P/out" 2>&1) || t_fail "$f: $v"
	over=$(jq '.before.tokens > .profile.body_budget.tokens or .before.lines > .profile.body_budget.lines' "$P/r.json")
	if [ "$over" = true ]; then
		long=$((long + 1))
		if [ "$(jq .within_budget "$P/r.json")" = true ] &&
			[ "$(jq '[.files_added[] | select(startswith("references/"))] | length' "$P/r.json")" -gt 0 ] &&
			[ "$(jq '[.files_added[] | select(startswith("references/") | not)] | length' "$P/r.json")" -eq 0 ]; then
			fit=$((fit + 1))
		else
			t_fail "$f: over budget after: $(jq -c '[.after, .files_added]' "$P/r.json")"
		fi
	fi
	rm -rf "$P"
done <"$T_TMP/list"
t_eq "skills compiled" $n "$total"
t_eq "long skills within budget" $fit $long
[ $long -gt 0 ] || t_fail "no long skill in the corpus: the test proves nothing"
t_end
