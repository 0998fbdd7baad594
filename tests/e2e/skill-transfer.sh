#!/bin/sh
# End-to-end: transfer in a skill run (docs/skill-runs.md). csv-sum is tuned
# for opencode and vllm/qwen-27b on the train task tr-a; models= and
# harnesses= evaluate the raw skill and S_final, paired, on the held-out
# task te-b with the other harnesses and models, labelled "tuned for X,
# evaluated on Y".
#
# The test device: the stand-in bench's scripted agent decides each trial
# by the skill's content, the task, the model and the agent
# (FAKE_BENCH_RULES): a skill holding GENMARK passes everywhere but with
# vllm/other (where nothing passes) and with claude-agent-acp (where it
# passes trials 1 and 3 of 3). So the gain carries over to claude-agent-acp
# in part and to vllm/other not at all, and each figure is one that only
# the right harness and model give. A member run whose trials all crash
# (codex-acp) must end make non-zero, naming that member run.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR SKILLS MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE LLM_CACHE \
	SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS FINAL_FRESH FAST_MIN_TRACES FAST_TOP FAST_BOTTOM task tasks skill train test \
	harnesses models HARNESS
for t in tr-a te-b; do cp -R tasks/csv-column-sum tasks/$t; done
cat >rules <<'EOF'
model=vllm/other * => fail
agent=codex-acp * => crash
agent=claude-agent-acp GENMARK => pass ; fail ; pass
GENMARK => pass
* => fail
EOF
export FAKE_BENCH_RULES=$W/rules
dims() {
	printf '"relevance": {"score": %s, "evidence": "ls /root"}, "correctness": {"score": %s, "evidence": "ls /root"}, "actionability": {"score": %s, "evidence": "ls /root"}, "economy": {"score": %s, "evidence": "ls /root"}, "findability": {"score": %s, "evidence": "ls /root"}' \
		"$1" "$1" "$1" "$1" "$1"
}
t_fakellm "$T_TMP/llm" "{\"chat\": [{\"json\": {\"findings\": []}}], \"rules\": [
 {\"match\": \"## Findings, by section and kind\", \"json\": {\"patches\": []}},
 {\"match\": \"## Units to score\", \"json\": {\"scores\": [{\"unit\": \"csv-column-sums/steps#1\", $(dims 1)}]}},
 {\"match\": \"The unit to edit: [\", \"json\": {\"edit\": {\"op\": \"add\", \"text\": \"GENMARK: check the header first.\", \"why\": \"w\"}}}]}"
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' "$FAKELLM_URL" >"$T_TMP/llm/routes.json"
run="RUNNER=benchflow MODEL=vllm/qwen-27b REPEAT=3 FAST_MIN_TRACES=3 FAST_TOP=1 FAST_BOTTOM=1 DEEP_ROUNDS=1
 EXTERNAL_MODEL=fake/compiler ROUTES=$T_TMP/llm/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache
 RESULTS=out skill=csv-sum train=tr-a test=te-b"
H='harnesses=opencode claude-agent-acp'
M='models=vllm/qwen-27b vllm/other'
sum() { jq -r "$1" out/skill-csv-sum--*/summary.json; }
xf() { sum ".transfer[] | select(.harness == \"$1\" and .model == \"$2\") | $3"; }

t_begin "models= and harnesses=: the tuned skill on the held-out task with other targets"
out=$($SK -j2 $run "$H" "$M" final 2>&1)
t_eq "exit (output: $(printf '%s' "$out" | tail -3))" $? 0
t_eq "the skill run itself" "$(sum '"\(.label): \(.train.mean_delta) \(.test.mean_delta)"')" \
	"tuned for opencode vllm/qwen-27b, evaluated on opencode vllm/qwen-27b: 1 1"
t_eq "the targets, the tuned one not among them" \
	"$(sum '[.transfer[] | .label] | join("; ")')" \
	"tuned for opencode vllm/qwen-27b, evaluated on claude-agent-acp vllm/other; tuned for opencode vllm/qwen-27b, evaluated on claude-agent-acp vllm/qwen-27b; tuned for opencode vllm/qwen-27b, evaluated on opencode vllm/other"
t_eq "another harness: raw -> final paired on te-b" \
	"$(xf claude-agent-acp vllm/qwen-27b '.tasks[] | "\(.task) \(.raw.passed)/\(.raw.scored) \(.final.passed)/\(.final.scored)"')" \
	"te-b 0/3 2/3"
t_eq "... its pooled gain and the gap" "$(xf claude-agent-acp vllm/qwen-27b '"\(.test.mean_delta) \(.gap)"')" \
	"0.666667 0.333333"
t_eq "another model: no gain, the whole gap" "$(xf opencode vllm/other '"\(.test.mean_delta) \(.gap)"')" "0 1"
t_eq "the runs are the target's" \
	"$(xf opencode vllm/other '.tasks[0].final.run' | sed 's|.*/||; s|--src.*||')" "te-b--opencode--vllm_other"
md=$(cat out/skill-csv-sum--*/summary.md)
t_contains "summary.md: the label" "$md" \
	"## Transfer: tuned for opencode vllm/qwen-27b, evaluated on claude-agent-acp vllm/qwen-27b"
t_contains "summary.md: the gap" "$md" "Gap (train gain - this held-out gain): +100.0 pp"
t_eq "the final trials of a target are S_final's" \
	"$(grep -l GENMARK out/te-b--claude-agent-acp--vllm_qwen-27b--src-*/inputs/skill/csv-sum/SKILL.md | wc -l)" 1
t_end

t_begin "report.html: train, held out and each target side by side, the disclosure"
# the side-by-side table as "row: cell | cell ..." lines, parsed as HTML
side=$(python3 - out/skill-csv-sum--*/report.html <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.on = False; self.rows = []; self.cell = None
    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("id", "side") in attrs: self.on = True
        elif self.on and tag == "tr": self.rows.append([])
        elif self.on and tag in ("td", "th"): self.cell = ""
    def handle_endtag(self, tag):
        if tag == "table": self.on = False
        elif self.on and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip()); self.cell = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
for r in p.rows: print(r[0] + ": " + " | ".join(r[1:]))
PY
)
t_eq "the columns" "$(printf '%s\n' "$side" | sed -n 1p)" \
	": Train | Held out | Held out, on claude-agent-acp vllm/other | Held out, on claude-agent-acp vllm/qwen-27b | Held out, on opencode vllm/other"
t_eq "raw -> final, paired" "$(printf '%s\n' "$side" | grep '^Mean change')" \
	"Mean change, raw → final: +100.0 pp | +100.0 pp | +0.0 pp | +66.7 pp | +0.0 pp"
t_eq "the gaps" "$(printf '%s\n' "$side" | grep '^Gap')" \
	"Gap from the train gain: – | +0.0 pp | +100.0 pp | +33.3 pp | +100.0 pp"
t_eq "one task: no interval" "$(printf '%s\n' "$side" | grep '^95%')" \
	"95% interval across tasks: – (one task) | – (one task) | – (one task) | – (one task) | – (one task)"
t_eq "too small to show its own gain: 2 of 3 against 0 of 3" "$(printf '%s\n' "$side" | grep '^Too small')" \
	"Too small to show its own gain: no | no | no | yes | no"
page=$(cat out/skill-csv-sum--*/report.html)
t_contains "the label" "$page" "tuned for opencode vllm/qwen-27b, evaluated on opencode vllm/qwen-27b"
t_contains "a per-task table" "$page" '<td>te-b</td><td class="n">0/3</td><td class="n">2/3</td>'
t_contains "... and that target's section says why" "$(printf '%s' "$page" | sed -n '/id="transfer-2"/,/<\/section>/p')" \
	"Too small to show its own gain: the stratified test would accept"
t_contains "the optimizer model" "$page" "Optimizer model (EXTERNAL_MODEL): fake/compiler"
t_contains "deep's calls" "$page" '<td>deep-1-edit</td><td class="n">1</td>'
t_end

t_begin "status and clean-stage reach the transfer runs"
out=$($SK $run "$H" "$M" status 2>&1)
t_eq "status exit" $? 0
t_contains "a target's line" "$out" "transfer, tuned for opencode vllm/qwen-27b, evaluated on opencode vllm/other:"
t_eq "member runs shown" "$(printf '%s\n' "$out" | grep -c 'test task te-b, final trials (S_final):')" 4
$SK $run "$H" "$M" STAGE=raw-eval clean-stage >/dev/null 2>&1
t_eq "clean-stage raw exit" $? 0
raw=$(jq -r '.transfer[] | select(.model == "vllm/other" and .harness == "opencode") | .tasks[0].raw.run' out/skill-csv-sum--*/skillrun.json)
fin=$(jq -r '.transfer[] | select(.model == "vllm/other" and .harness == "opencode") | .tasks[0].final.run' out/skill-csv-sum--*/skillrun.json)
t_check "a target's raw trials gone" test -d "$raw" -a ! -e "$raw/traces/te-b/raw/index.json"
t_check "its S_final trials kept" test -e "$fin/traces/te-b/raw/index.json"
out=$($SK $run "$H" "$M" status 2>&1)
t_eq "status after: work due" $? 1
t_contains "what is due, and what makes it" "$out" "4 of 5 stages need work (the skill run's make final makes them)"
t_eq "no member's own make command offered" "$(printf '%s\n' "$out" | grep -c 'run: make')" 0
t_end

t_begin "a member run that fails ends make non-zero and names it"
out=$($SK $run "harnesses=opencode codex-acp" final 2>&1)
rc=$?
t_check "exit non-zero (got $rc)" test "$rc" -ne 0
t_contains "names the member run" "$out" "skill run csv-sum: member run out/te-b--codex-acp--vllm_qwen-27b--src-"
t_end

t_begin "MATRIX= is refused for a skill run, in one line; make gate judges the held-out task"
out=$($SK $run MATRIX=m.yaml final 2>&1)
t_eq "exit" $? 2
t_contains "says what to give" "$out" "give harnesses= and models="
t_eq "one line" "$(printf '%s\n' "$out" | wc -l)" 1
out=$($SK $run "$H" "$M" gate 2>&1)
t_eq "gate: exit (output: $out)" $? 0
t_contains "gate: one test task, its own interval" "$out" "gate: PASS: 1 test task, 1 pass"
# (the targets' raw trials were cleaned above)
t_contains "gate: a transfer target beside the verdict" "$out" \
	"transfer, tuned for opencode vllm/qwen-27b, evaluated on opencode vllm/other (beside the verdict): no test task with both arms yet"
t_end
