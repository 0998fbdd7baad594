#!/bin/sh
# End-to-end: the no-skill baseline (BASELINE=1, noskill-eval/noskill-index)
# with the stand-in bench: the trials run with --skill-mode no-skill and no
# skills dir, are shared through the trial store by a second run that
# differs only in its skill (SKILL_SOURCE), appear in summary.md/csv/json
# and the report against every stage, count the tasks where the skill is
# worse than no skill, and make gate GATE_VS=noskill judges real rows.
. "$(dirname "$0")/../lib.sh"

t_bench_work csv-column-sum
unset SKILL_SOURCE BASELINE RESULTS CACHE_DIR RUN_DIR ROUTES ENV_FILE BENCH GATE_STAGE GATE_RULE GATE_MIN_DELTA GATE_MAX_REGRESSED GATE_VS
M=vllm/qwen-27b
P=results/compile-pipeline
R=$P/csv-column-sum--opencode--vllm_qwen-27b
EV="task=csv-column-sum RUNNER=benchflow MODEL=$M REPEAT=3"
script() { rm -f script.n; printf '%s sleep=0\n' "$@" >script; }
noskill_starts() { grep '^start ' bench.log 2>/dev/null | grep -c '/noskill/'; }
starts() { grep -c '^start ' bench.log 2>/dev/null || echo 0; }
mkdir -p variant/col-total
printf -- '---\nname: col-total\ndescription: Sums a CSV column. Use when a task asks for a column total.\n---\n# col-total\n\nSplit on commas.\n' \
	>variant/col-total/SKILL.md

# the skill's trials fail, the no-skill ones pass: the skill is worse than none
t_begin "BASELINE off (the default): eval runs no no-skill trial and is up to date"
script fail
out=$($SK $EV -j2 eval 2>&1)
t_eq "exit" $? 0
t_eq "no no-skill trial" "$(noskill_starts)" 0
t_check "no noskill folder" test ! -e $R/traces/csv-column-sum/noskill
case $(cat $R/manifest.json) in *noskill*) t_fail "the manifest lists noskill targets as due" ;; esac
out=$($SK $EV status GOAL=eval 2>&1)
t_eq "status" $? 0
t_end

t_begin "make noskill-eval: REPEAT trials with --skill-mode no-skill and no skills dir"
script pass
out=$($SK $EV -j3 noskill-index 2>&1)
t_eq "exit" $? 0
t_eq "three no-skill trials" "$(noskill_starts)" 3
lines=$(grep '^start ' bench.log | grep '/noskill/')
t_eq "each with --skill-mode no-skill" "$(printf '%s\n' "$lines" | grep -c -- '--skill-mode no-skill')" 3
case $lines in *--skills-dir*) t_fail "a no-skill trial got --skills-dir: $lines" ;; esac
t_contains "trial says no-skill" "$(cat $R/traces/csv-column-sum/noskill/test-001/trial.json)" '"skill_hash": "no-skill"'
t_contains "index" "$(cat $R/traces/csv-column-sum/noskill/index.json)" '"trials": 3'
t_end

t_begin "BASELINE=1 make -j4 eval: no-skill rows in summary.md/csv/json, the skill worse than no skill"
out=$($SK $EV BASELINE=1 -j4 eval 2>&1)
t_eq "exit" $? 0
t_eq "no new no-skill trial" "$(noskill_starts)" 3
out=$($SK $EV status GOAL=eval 2>&1)
t_eq "status up to date (BASELINE remembered)" $? 0
out=$($SK task=csv-column-sum MODEL=$M summary 2>&1)
t_eq "summary exit" $? 0
md=$(cat $R/summary.md)
t_contains "md column" "$md" "| Δ vs raw [95% CI] | Δ vs no-skill [95% CI] |"
t_contains "md noskill row" "$md" "| csv-column-sum | opencode | $M | benchflow | noskill | 3 | 3/3 = 100.0%"
t_contains "md raw vs noskill" "$md" "| raw | 3 | 0/3 = 0.0% [0.0%, 56.1%] | @1 0.00, @3 0.00 | – | -100.0 pp [-100.0, -20.6] |"
t_contains "md by bench" "$md" "| Regressed vs raw | Worse than no-skill |"
t_contains "md raw worse than no-skill" "$md" "| raw | 1 | 0.0% | – | 1 of 1 |"
csv=$(python3 -c "
import csv
rows = {r['stage']: r for r in csv.DictReader(open('$R/summary.csv', newline=''))}
print(rows['raw']['delta_pp_vs_noskill'], rows['raw']['worse_than_noskill'], rows['noskill']['delta_pp_vs_noskill'], rows['noskill']['regressed'])")
t_eq "csv" "$csv" "-100.0 1  "
js=$(python3 -c "
import json
d = json.load(open('$R/summary.json'))
g = {x['stage']: x for x in d['groups']}
a = {x['stage']: x for x in d['by_bench']}
print(g['raw']['delta_pp_vs_noskill'], g['raw']['worse_than_noskill'], g['noskill']['worse_than_noskill'], d['worse_than_noskill_rows'], a['raw']['worse_than_noskill_tasks'], a['raw']['tasks_with_noskill'])")
t_eq "json" "$js" "-100 True False 2 1 1"
t_end

t_begin "a second run that differs only in its skill reuses the no-skill trials"
before=$(starts)
out=$($SK $EV BASELINE=1 SKILL_SOURCE=variant -j4 eval 2>&1)
t_eq "exit" $? 0
t_eq "no new no-skill trial" "$(noskill_starts)" 3
[ "$(starts)" -gt "$before" ] || t_fail "the variant's own trials did not run"
RV=$P/csv-column-sum--opencode--vllm_qwen-27b--$(skillc-rules source-tag variant)
t_contains "reused" "$(cat $RV/traces/csv-column-sum/noskill/test-002/trial.json)" '"reused": true'
out=$($SK summary 2>&1)
md=$(cat $P/summary.md)
t_contains "both runs' rows apart" "$md" "| csv-column-sum ($(skillc-rules source-tag variant)) | opencode | $M | benchflow | noskill | 3 |"
t_end

t_begin "the report shows each stage against no-skill, and the index counts the tasks worse than no skill"
out=$($SK report 2>&1)
t_eq "exit" $? 0
t_contains "run page column" "$(cat $R/report.html)" "Δ vs no-skill</th>"
t_contains "run page kpi" "$(cat $R/report.html)" "Change vs no-skill"
t_contains "index kpi" "$(cat $P/index.html)" "Worse than no skill"
t_end

t_begin "make gate GATE_VS=noskill judges the real no-skill rows"
# static = raw = 0/3: static - raw is 0 [-56.1, +56.1]; static - noskill -100 [-100, -20.6]
out=$($SK task=csv-column-sum MODEL=$M gate GATE_STAGE=static GATE_RULE=gain GATE_MIN_DELTA=-60 GATE_VS=noskill 2>&1)
rc=$?
t_eq "exit (static is below no-skill)" $rc 1
t_contains "names noskill" "$out" "static - noskill -100.0 pp [-100.0, -20.6]"
out=$($SK task=csv-column-sum MODEL=$M gate GATE_STAGE=static GATE_RULE=gain GATE_MIN_DELTA=-60 2>&1)
t_eq "without GATE_VS the same rows pass" $? 0
t_end
exit 0
