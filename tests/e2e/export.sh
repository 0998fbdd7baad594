#!/bin/sh
# End-to-end: trajectories in ATIF, pinned datasets and artifact bundles
# (docs/export.md), on trials of the stand-in bench. Every trial's ATIF file
# validates against the checked-in schema (tests/fixtures/atif/, written from
# Harbor's RFC); make pin and DATASET_PIN stop a changed task with one line,
# exit 2 and nothing run; make export writes a bundle skillc-verify passes,
# names a changed byte's file, and whose Harbor copy reads back to the same
# summary.
. "$(dirname "$0")/../lib.sh"

if ! command -v python3 >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
	t_skip "ATIF, pins and bundles" "no python3 or git (apt-get install -y python3 git)"
	exit 0
fi
t_bench_work csv-column-sum
M=vllm/qwen-27b
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
RUN="task=csv-column-sum RUNNER=benchflow MODEL=$M"
SCHEMA=$T_ROOT/tests/fixtures/atif/atif-v1.4.schema.json
VALIDATE="python3 $T_ROOT/tests/helpers/atif-validate.py $SCHEMA"
script() { rm -rf script.n script.lock; printf '%s\n' "$@" >script; }
starts() { cat bench.log 2>/dev/null | grep -c '^start '; }
git -C tasks init -q && git -C tasks -c user.name=t -c user.email=t@t add -A &&
	git -C tasks -c user.name=t -c user.email=t@t commit -qm tasks || exit 2
commit=$(git -C tasks rev-parse HEAD)

t_begin "make pin: the task tree's git commit and each task's digest"
out=$($SK pin DATASET_PIN=pin.json 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "skillc: pin.json: 1 tasks of tasks at git ${commit%"${commit#????????????}"}"
t_eq "the commit" "$(jq -r .git.commit pin.json)" "$commit"
t_eq "clean" "$(jq -r .git.dirty pin.json)" false
t_eq "the task's digest" "$(jq -r '.tasks["csv-column-sum"] | length' pin.json)" 32
t_end

t_begin "a pinned run: trials run, dataset.json records the tree, the report shows it"
script pass fail timeout "pass skill=none"
# one at a time: test-NNN takes the script's line NNN
out=$($SK $RUN raw-eval static-eval REPEAT=3 FAST_MIN_TRACES=3 DATASET_PIN=pin.json 2>&1)
t_eq "exit" $? 0
# the sample skill compiles to itself: static-eval reuses raw's trials
t_eq "bench runs" "$(starts)" 3
t_eq "trial folders" "$(ls -d $R/traces/csv-column-sum/*/test-* | wc -l)" 6
t_eq "recorded commit" "$(jq -r .git.commit $R/dataset.json)" "$commit"
t_eq "recorded digest = pinned" "$(jq -r '.tasks["csv-column-sum"]' $R/dataset.json)" \
	"$(jq -r '.tasks["csv-column-sum"]' pin.json)"
t_eq "recorded pin" "$(jq -r .pin $R/dataset.json)" pin.json
$SK report task=csv-column-sum MODEL=$M >/dev/null 2>&1
t_contains "report: the tree" "$(cat $R/report.html)" "<h2>Task tree</h2>"
t_contains "report: the commit" "$(cat $R/report.html)" "$commit (clean)"
echo note >tasks/NOTES.txt # outside every task: dirty, no digest changes
$SK $RUN raw-eval REPEAT=3 DATASET_PIN=pin.json >/dev/null 2>&1
t_eq "an untracked file: dirty" "$(jq -r .git.dirty $R/dataset.json)" true
t_end

t_begin "every trial's trajectory is also ATIF, valid against the schema written from Harbor's RFC"
files=$(ls $R/traces/csv-column-sum/*/test-*/trajectory/atif.json)
t_eq "one per trial" "$(echo "$files" | wc -l)" 6
out=$($VALIDATE $files 2>&1)
t_eq "valid" "$?:$out" "0:"
a=$R/traces/csv-column-sum/raw/test-001/trajectory/atif.json
t_eq "version" "$(jq -r .schema_version $a)" ATIF-v1.4
t_eq "steps: the user's, then the agent's turn" "$(jq -c '[.steps[].source]' $a)" '["user","agent"]'
t_eq "the skill call" "$(jq -c '.steps[1].tool_calls[0] | [.function_name, .arguments]' $a)" '["skill",{"name":"csv-sum"}]'
t_eq "its output" "$(jq -r '.steps[1].observation.results[0].source_call_id' $a)" \
	"$(jq -r '.steps[1].tool_calls[0].tool_call_id' $a)"
t_eq "tokens" "$(jq -c '.final_metrics | [.total_prompt_tokens, .total_completion_tokens]' $a)" '[2500,160]'
t_eq "the report's facts" "$(jq -c '.extra.skillc.trial | [.stage, .outcome, .skill.invoked]' $a)" '["raw","passed",true]'
s=$R/traces/csv-column-sum/static/test-001/trajectory/atif.json
t_eq "a reused trial's ATIF names its own stage" "$(jq -c '.extra.skillc.trial | [.stage, .reused]' $s)" '["static",true]'
t_eq "trial.json names it" "$(jq -r .files.atif $R/traces/csv-column-sum/raw/test-001/trial.json)" trajectory/atif.json
# the validator can fail: a step out of order, a call id that names nothing, an unknown key
jq '.steps[1].step_id = 5 | .steps[1].observation.results[0].source_call_id = "nope" | .agent.x = 1' $a >bad.json
out=$($VALIDATE bad.json 2>&1)
t_eq "a broken file fails" $? 1
t_contains "step order" "$out" "bad.json: steps[1]: step_id 5, not 2"
t_contains "call id" "$out" "source_call_id 'nope' names no tool call"
t_contains "unknown key" "$out" "\$.agent: 'x' is not allowed"
t_end

t_begin "DATASET_PIN: a changed task stops make with one line, exit 2, nothing run"
before=$(starts)
echo changed >>tasks/csv-column-sum/instruction.md
out=$($SK $RUN raw-eval REPEAT=5 DATASET_PIN=pin.json 2>&1)
t_eq "exit" $? 2
t_eq "one line" "$(echo "$out" | wc -l)" 1
t_contains "names the task and the pin" "$out" "task 'csv-column-sum' differs from the dataset pin 'pin.json'"
t_eq "nothing run" "$(starts)" "$before"
t_check "no trial 4" test ! -e $R/traces/csv-column-sum/raw/test-004
git -C tasks checkout -q -- csv-column-sum
out=$($SK $RUN raw-eval REPEAT=3 DATASET_PIN=missing.json 2>&1)
t_eq "a missing pin: exit" $? 2
t_contains "says so" "$out" "missing.json"
t_end

t_begin "make export: one bundle; skillc-verify passes it, and its Harbor copy reads back the same"
# keys that reached a file of the run (a note beside the static skill) stay out of the bundle
printf 'PROVIDER_X=sk-envfile-secret-0451\n' >keys.env
printf 'a sk-envfile-secret-0451 b sk-environ-secret-0452\n' >$R/artifacts/static/note.txt
out=$(MY_API_KEY=sk-environ-secret-0452 $SK export OUT=study.tar.gz DATASET_PIN=pin.json ENV_FILE=keys.env 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "skillc-export: 1 run -> study.tar.gz"
list=$(tar -tzf study.tar.gz)
B=study/runs/csv-column-sum--opencode--vllm_qwen-27b
for f in study/MANIFEST.xxh128 study/summary.json study/summary.csv study/summary.md study/dataset-pin.json \
	$B/inputs/skill/csv-sum/SKILL.md $B/artifacts/static/S_static/csv-sum/SKILL.md $B/inputs/config.json \
	$B/report.html $B/dataset.json $B/traces/csv-column-sum/static/test-003/trial.json \
	$B/traces/csv-column-sum/raw/test-002/trajectory/atif.json \
	study/harbor/csv-column-sum--opencode--vllm_qwen-27b/csv-column-sum--raw/test-001/agent/trajectory.json; do
	t_contains "holds $f" "$list" "$f"
done
case $list in *"/raw/test-001/raw/"*|*runner.log*|*.incomplete*) t_fail "holds the runner's raw output or logs" ;; esac
out=$(skillc-verify study.tar.gz 2>&1)
t_eq "verify: exit" $? 0
t_contains "verify: says" "$out" "study.tar.gz checks out"
mkdir u && tar -C u -xzf study.tar.gz
t_eq "the keys are out" "$(cat u/study/runs/*/artifacts/static/note.txt)" "a ***REDACTED*** b ***REDACTED***"
t_check "nowhere else either" sh -c '! grep -rq "secret-045" u'
$VALIDATE u/study/harbor/*/*/test-*/agent/trajectory.json >/dev/null 2>&1
t_eq "the Harbor copy's ATIF is valid" $? 0
out=$(skillc-summary --out s2 u/study/harbor/csv-column-sum--opencode--vllm_qwen-27b 2>&1)
t_eq "skillc-summary imports the Harbor copy" $? 0
pick='[.groups[] | [.stage, .runner, .harness, .trials, .scored, .passed, .timeouts, .total_tokens, .total_cost_usd, .skill_invocation_rate, .mean_seconds]]'
t_eq "the same rows" "$(jq -c "$pick" s2/summary.json)" "$(jq -c "$pick" u/study/summary.json)"
t_eq "of both stages" "$(jq -c '[.groups[].stage]' s2/summary.json)" '["raw","static"]'
t_end

t_begin "skillc-verify: one byte changed fails naming the file; a consistent lie fails on the summary"
tr=u/study/runs/csv-column-sum--opencode--vllm_qwen-27b/traces/csv-column-sum/raw/test-002/trial.json
sed -i 's/"outcome": "failed"/"outcome": "passex"/' $tr
(cd u && tar -czf ../t1.tar.gz study)
out=$(skillc-verify t1.tar.gz 2>&1)
t_eq "exit" $? 1
t_eq "one line, naming the file" "$out" \
	"t1.tar.gz: runs/csv-column-sum--opencode--vllm_qwen-27b/traces/csv-column-sum/raw/test-002/trial.json: checksum differs: the file was changed"
# the lie made whole: the trial says passed and the manifest agrees
sed -i 's/"outcome": "passex"/"outcome": "passed"/; s/"passed": false/"passed": true/' $tr
rel=${tr#u/study/}
sed -i "s|^[0-9a-f]*  $rel\$|$(skillc-hash $tr | cut -c1-32)  $rel|" u/study/MANIFEST.xxh128
(cd u && tar -czf ../t2.tar.gz study)
out=$(skillc-verify t2.tar.gz 2>&1)
t_eq "exit" $? 1
t_contains "the summary" "$out" "t2.tar.gz: summary.json does not follow from the trial records under runs/"
echo x >u/study/extra.txt
(cd u && tar -czf ../t3.tar.gz study)
t_contains "an added file" "$(skillc-verify t3.tar.gz 2>&1)" "extra.txt: not in MANIFEST.xxh128 (added to the bundle)"
t_end

t_begin "bad input: no OUT, another kind of file, a file that is no bundle"
out=$($SK export 2>&1)
t_eq "no OUT: exit" $? 2
t_contains "says what to do" "$out" "--out FILE.tar.gz or FILE.tar.zst (make export OUT=...)"
out=$($SK export OUT=x.zip 2>&1)
t_eq "a .zip: exit" $? 2
t_check "nothing written" test ! -e x.zip
echo junk >junk.tar.gz
out=$(skillc-verify junk.tar.gz 2>&1)
t_eq "junk: exit" $? 2
t_contains "names it" "$out" "junk.tar.gz"
t_end

if command -v zstd >/dev/null 2>&1; then
	t_begin "OUT=.tar.zst: the same bundle through zstd"
	out=$($SK export OUT=study.tar.zst 2>&1)
	t_eq "exit" $? 0
	t_check "zstd's magic" sh -c "head -c4 study.tar.zst | od -An -tx1 | grep -q '28 b5 2f fd'"
	out=$(skillc-verify study.tar.zst 2>&1)
	t_eq "verify" "$?" 0
	t_end
else
	t_skip "OUT=.tar.zst" "no zstd (apt-get install -y zstd)"
fi
