#!/bin/sh
# End-to-end: fast and deep on a skill set. Fixture tasks built here from the
# csv-column-sum sample: set-two (2 skills) and set-five (5 skills, one whose
# name differs from its folder: a spec warning), every skill with the same
# sections as csv-sum (the same H1, so the same section ids), beside the
# one-skill sample. The stand-in bench's scripted agent uses only the first
# skill of a set; the loopback model server answers the map, reduce, score
# and edit questions. make -k final compiles every set through every stage;
# a patch and an edit each change one unit of one skill and leave the others
# byte-identical; the unused skill's weaker unit is passed over for the used
# one's; SKILLS= confines fast and deep to the named skills.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR SKILLS MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE LLM_CACHE \
	SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS FINAL_FRESH FAST_MIN_TRACES FAST_TOP FAST_BOTTOM
P=results/compile-pipeline
t_csv_set "CSV column sums" set-two csv-quote
t_csv_set "CSV column sums" set-five csv-a csv-b csv-c
t_csv_skill set-five csv-d csv-dee "CSV column sums" # its name is not its folder's: ingested with a warning
dims() { # dims SCORE — the five dimensions, each quoting the traces
	printf '"relevance": {"score": %s, "evidence": "ls /root"}, "correctness": {"score": %s, "evidence": "ls /root"}, "actionability": {"score": %s, "evidence": "ls /root"}, "economy": {"score": %s, "evidence": "ls /root"}, "findability": {"score": %s, "evidence": "ls /root"}' \
		"$1" "$1" "$1" "$1" "$1"
}
unit() { printf '{"unit": "%s", %s}' "$1" "$(dims "$2")"; }
finding() { printf '{"section": "%s", "kind": "missing", "evidence": "ls /root", "suggestion": "say how to quote"}' "$1"; }
patch() { printf '{"op": "add", "section": "%s", "text": "- FASTMARK: quote every field.", "why": "unit 1"}' "$1"; }
G=csv-column-sums/gotchas#1
S=csv-column-sums/steps#1
SCORES="{\"scores\": [$(unit "csv-a:$S" 2), $(unit "csv-b:$G" 1), $(unit "csv-quote:$S" 2), $(unit "csv-sum:$G" 1),
 $(unit "$S" 2)]}"
L=$T_TMP/llm
t_fakellm "$L" "{\"chat\": [{\"json\": {\"findings\": []}}], \"rules\": [
 {\"match\": [\"## Findings, by section and kind\", \"### Skill csv-a\"], \"json\": {\"patches\": [$(patch "csv-a:$G"), $(patch "nosuch:$G")]}},
 {\"match\": [\"## Findings, by section and kind\", \"### Skill csv-quote\"], \"json\": {\"patches\": [$(patch "csv-quote:$G")]}},
 {\"match\": \"## Findings, by section and kind\", \"json\": {\"patches\": []}},
 {\"match\": \"### Skill csv-a\", \"json\": {\"findings\": [$(finding "csv-a:$G"), $(finding "nosuch:$G")]}},
 {\"match\": \"### Skill csv-quote\", \"json\": {\"findings\": [$(finding "csv-quote:$G")]}},
 {\"match\": \"## Units to score\", \"json\": $SCORES},
 {\"match\": \"The unit to edit: [\", \"json\": {\"edit\": {\"op\": \"add\", \"text\": \"DEEPMARK: check the header first.\", \"why\": \"w\"}}}]}"
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' "$FAKELLM_URL" >"$L/routes.json"
RUN="RUNNER=benchflow MODEL=vllm/qwen-27b REPEAT=1 FAST_MIN_TRACES=1 FAST_TOP=1 FAST_BOTTOM=1 DEEP_ROUNDS=1
 EXTERNAL_MODEL=fake/compiler ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache"
names() { ls "$1" | tr '\n' ' '; }
h() { skillc-hash "$1" | cut -d' ' -f1; }
jget() { "$T_ROOT/build/tests/helpers/jget" "$@"; }

t_begin "make -k final over tasks of 1, 2 and 5 skills: every set through every stage"
out=$($SK -k -j2 tasks="csv-column-sum set-two set-five" $RUN final 2>&1)
t_eq "exit" $? 0
for t in csv-column-sum set-two set-five; do
	R=$P/$t--opencode--vllm_qwen-27b
	for a in artifacts/fast/S_fast artifacts/deep/S_final; do
		t_eq "$t: $a holds the whole set" "$(names $R/$a)" "$(names tasks/$t/environment/skills)"
	done
	t_check "$t: its final trial" test -f $R/traces/$t/final/test-001/trial.json
done
t_contains "every run done" "$out" "3 runs"
t_end

R=$P/set-five--opencode--vllm_qwen-27b
F=$R/artifacts/fast
t_begin "fast: a finding and a patch name their skill; the patch changes csv-a alone"
t_eq "the patch's section" "$(jget $F/patches.json patches.0.section)" "csv-a:$G"
t_eq "one patch kept" "$(jq '.patches | length' $F/patches.json)" 1
t_contains "a skill the set lacks dropped" "$(jq -c .dropped $F/patches.json)" "names no section of a skill of the set the stage may edit"
t_eq "map dropped nosuch" "$(jget $F/map/001.json counts.no_section)" 1
t_eq "applied to csv-a" "$(jq -r '.patches[0] | .skill + " " + .status' $F/report.json)" "csv-a applied"
t_check "S_fast's csv-a has it" grep -q FASTMARK $F/S_fast/csv-a/SKILL.md
for s in csv-b csv-c csv-d csv-sum; do
	t_eq "$s byte-identical to S_static" "$(h $F/S_fast/$s)" "$(h $R/artifacts/static/S_static/$s)"
done
t_eq "report skill by skill" "$(jq -r '[.skills[] | .skill + "=" + (.changed | tostring)] | join(" ")' $F/report.json)" \
	"csv-a=true csv-b=false csv-c=false csv-d=false csv-sum=false"
t_contains "report.md says so" "$(cat $F/report.md)" "| csv-b | yes | 0 | "
map=$(grep 'Trace A' "$L/log.jsonl" | grep -F '### Skill csv-a' | head -1)
t_contains "the map prompt shows each skill's use" "$map" "skills: csv-a invoked, csv-b not used, csv-c not used, csv-d not used, csv-sum not used"
t_end

t_begin "deep: units from every skill; the edit takes the weakest used unit and changes csv-a alone"
D=$R/artifacts/deep/round-1
t_eq "a unit names its skill" "$(jq -r '[.units[].unit] | map(split(":")[0]) | unique | join(" ")' $D/scores.json)" \
	"csv-a csv-b csv-sum"
t_eq "the edit's unit" "$(jget $D/edit.json edit.unit)" "csv-a:$S"
t_eq "the edit's skill" "$(jget $D/edit.json edit.skill)" csv-a
base=$R/$(jget $R/artifacts/deep/round-0/best.json skill)
t_check "the candidate's csv-a has it" grep -q DEEPMARK $D/candidate/csv-a/SKILL.md
for s in csv-b csv-c csv-d csv-sum; do
	t_eq "$s byte-identical to the start" "$(h $D/candidate/$s)" "$(h $base/$s)"
done
score=$(grep -F '## Units to score' "$L/log.jsonl" | grep -F 'csv-a:' | head -1)
t_contains "the score prompt shows each skill's use" "$score" "skills: csv-a invoked, csv-b not used"
t_eq "S_final named as the set" "$(jget $R/artifacts/deep/report.json final_skill)" artifacts/deep/S_final
t_eq "in the manifest too" "$(jget $R/manifest.json final_skill.path)" artifacts/deep/S_final
t_end

t_begin "a one-skill task keeps its ids; set-two edits its used skill"
R1=$P/csv-column-sum--opencode--vllm_qwen-27b
t_eq "one-skill unit id" "$(jget $R1/artifacts/deep/round-1/edit.json edit.unit)" "$S"
t_eq "one-skill S_final" "$(jget $R1/artifacts/deep/report.json final_skill)" artifacts/deep/S_final/csv-sum
R2=$P/set-two--opencode--vllm_qwen-27b
t_eq "set-two: csv-quote's unit before csv-sum's weaker, unused one" \
	"$(jget $R2/artifacts/deep/round-1/edit.json edit.unit)" "csv-quote:$S"
t_check "set-two: patched csv-quote" grep -q FASTMARK $R2/artifacts/fast/S_fast/csv-quote/SKILL.md
t_eq "set-two: csv-sum untouched by fast" "$(h $R2/artifacts/fast/S_fast/csv-sum)" "$(h $R2/artifacts/static/S_static/csv-sum)"
t_end

t_begin "the report's diffs go skill by skill"
out=$($SK task=set-five $RUN report 2>&1)
t_eq "exit" $? 0
html=$(cat $R/report.html)
t_contains "a changed skill's heading" "$html" "Skill <code>csv-a</code>"
t_contains "the unchanged ones in a line" "$html" "Unchanged skills (byte-identical): csv-b, csv-c, csv-d, csv-sum"
t_end

t_begin "SKILLS= confines fast and deep to the named skills"
out=$($SK -j2 task=set-five $RUN SKILLS=csv-b RESULTS=only final 2>&1)
t_eq "exit" $? 0
O=only/set-five--opencode--vllm_qwen-27b
t_eq "scored units: csv-b's only" "$(jq -r '[.units[].unit, .unscored[].unit] | map(split(":")[0]) | unique | join(" ")' \
	$O/artifacts/deep/round-1/scores.json)" csv-b
t_eq "the edit: csv-b's" "$(jget $O/artifacts/deep/round-1/edit.json edit.skill)" csv-b
for s in csv-a csv-c csv-d csv-sum; do
	t_eq "$s: S_final byte-identical to the raw skill" "$(h $O/artifacts/deep/round-1/candidate/$s)" "$(h $O/inputs/skill/$s)"
done
t_eq "fast found nothing to patch" "$(h $O/artifacts/fast/S_fast)" "$(h $O/artifacts/static/S_static)"
t_check "a map prompt with csv-b alone" sh -c "grep -F 'Trace A' $L/log.jsonl | grep -F '### Skill csv-b' | grep -vqF '### Skill csv-a'"
t_end
exit 0
