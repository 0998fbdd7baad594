#!/bin/sh
# End-to-end: outputs carry their hashes and are checked. A trial record,
# an index or a skill edited by hand after its stage published it is
# named by `make status` ("modified by hand: <file>"), set aside by the next
# make and made again -- a paid trial filed back from the trial store, not
# run again -- so an edited record never reaches a figure.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
M=vllm/Qwen/Qwen3.5-27B
SET="task=csv-column-sum RUNNER=benchflow MODEL=$M REPEAT=3 CACHE_DIR=$W/cache"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_Qwen_Qwen3.5-27B
T=$R/traces/csv-column-sum
# the status line of one target ("  raw-eval.002     up to date")
st_line() { $SK $SET status 2>&1 | grep "^  $1 " | tr -s ' '; }
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
$SK $SET raw-index static >/dev/null 2>&1 || { echo "FAIL handedit.sh: the first make failed"; exit 1; }
n=$(starts)

t_begin "a trial.json edited by hand (reward 1 -> 0): status names it, make files the original back, bench runs no more"
t_eq "three trials ran" "$n" 3
sed -i 's/"reward": 1\([,}]\)/"reward": 0\1/' $T/raw/test-002/trial.json
t_check "the edit took" grep -q '"reward": 0[,}]' $T/raw/test-002/trial.json
out=$($SK $SET status 2>&1)
t_eq "status exit" $? 1
t_contains "status says" "$out" "modified by hand: traces/csv-column-sum/raw/test-002/trial.json"
out=$($SK $SET raw-index 2>&1)
t_eq "make exit" $? 0
t_contains "make says" "$out" "raw-eval.002: modified by hand: traces/csv-column-sum/raw/test-002/trial.json (set aside in .incomplete/modified/"
t_contains "reused" "$out" "reused from the trial store"
t_eq "no bench run" "$(starts)" "$n"
t_check "the original is back" grep -q '"reward": 1[,}]' $T/raw/test-002/trial.json
t_eq "the index counts it" "$(jq '[.trials[] | select(.reward == 1)] | length' $T/raw/index.json 2>/dev/null || jq .passed $T/raw/index.json)" 3
t_check "the edit is kept aside" sh -c "grep -rq '\"reward\": 0' $R/.incomplete/modified/"
t_eq "status up to date again" "$(st_line raw-eval.002)" " raw-eval.002 up to date"
t_end

t_begin "\"complete\": false written into a trial.json: the trial is made again"
sed -i 's/"complete": true/"complete": false/' $T/raw/test-001/trial.json
out=$($SK $SET raw-index 2>&1)
t_eq "make exit" $? 0
t_contains "make says" "$out" "raw-eval.001: output traces/csv-column-sum/raw/test-001/trial.json is not a complete trial"
t_contains "reused" "$out" "reused from the trial store"
t_check "kept aside" sh -c "grep -rq '\"complete\": false' $R/.incomplete/raw-eval/ $R/.incomplete/raw/"
t_check "complete again" grep -q '"complete": true' $T/raw/test-001/trial.json
t_eq "no bench run" "$(starts)" "$n"
t_end

t_begin "index.json and S_static's SKILL.md edited by hand: status names them, make rebuilds them"
h=$(cat $R/artifacts/static/S_static.hash)
echo "hand edit" >>$R/artifacts/static/S_static/csv-sum/SKILL.md
cp $T/raw/index.json idx && jq '.edited = true' idx >$T/raw/index.json
out=$($SK $SET status 2>&1)
t_eq "status exit" $? 1
t_contains "skill named" "$out" "modified by hand: artifacts/static/S_static"
t_contains "index named" "$out" "modified by hand: traces/csv-column-sum/raw/index.json"
out=$($SK $SET raw-index static 2>&1)
t_eq "make exit" $? 0
t_check "skill rebuilt" sh -c "! grep -q 'hand edit' $R/artifacts/static/S_static/csv-sum/SKILL.md"
t_eq "same hash" "$(cat $R/artifacts/static/S_static.hash)" "$h"
t_eq "index rebuilt" "$(jq .edited $T/raw/index.json)" null
t_eq "static up to date" "$(st_line static)" " static up to date"
t_eq "raw-index up to date" "$(st_line raw-index)" " raw-index up to date"
t_end
t_begin "inputs/config.json edited and manifest.json cut short: a no-op make repairs both"
cp $R/inputs/config.json cfg.orig
cp $R/manifest.json man.orig
jq '.MODEL = "someone/else"' cfg.orig >$R/inputs/config.json 2>/dev/null || echo '{"edited": 1}' >$R/inputs/config.json
head -c 100 man.orig >$R/manifest.json
out=$($SK $SET raw-index 2>&1)
t_eq "make exit" $? 0
t_check "config.json repaired" cmp -s cfg.orig $R/inputs/config.json
t_check "manifest.json parses" jq -e .run $R/manifest.json
t_eq "no bench run" "$(starts)" "$n"
t_end
t_begin "temp files of a killed make report are removed by the next make; a live writer's are not"
sh -c 'exit 0' & dead=$!
wait $dead
mkdir -p results/compile-pipeline/charts $R/charts
for f in results/compile-pipeline/.index.html.tmp.$dead.0 results/compile-pipeline/charts/.delta.svg.tmp.$dead.1 \
	$R/charts/.stages.svg.tmp.$dead.2 $R/.report.html.tmp.$dead.3; do echo partial >$f; done
echo live >results/compile-pipeline/.index.html.tmp.$$.0
out=$($SK $SET raw-index 2>&1)
t_eq "make exit" $? 0
t_eq "orphans left" "$(find results -name "*.tmp.$dead.*" | wc -l)" 0
t_check "a live writer's temp kept" test -e results/compile-pipeline/.index.html.tmp.$$.0
rm -f results/compile-pipeline/.index.html.tmp.$$.0
t_end
exit $T_FAILED
