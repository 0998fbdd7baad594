#!/bin/sh
# End-to-end: the no-skill baseline in the summary and the report. Two runs
# made by real make with the stand-in bench (raw and static); HAND-BUILT (by
# this test, in the layout docs/pipeline.md gives the noskill stage, until
# noskill-eval lands): each run's traces/<task>/noskill/ trials, skill_hash
# "no-skill". log-error-report: no skill passes 2/3, the skill 1/3 (worse
# than no skill at all); csv-column-sum: no skill 0/3 (the skill helps).
. "$(dirname "$0")/../lib.sh"

t_bench_work
unset ROUTES ENV_FILE BENCH BUDGET_USD
SK="$T_SK RUNNER=benchflow MODEL=vllm/Qwen/Qwen3.5-27B BENCH=samples REPEAT=3"
P=results/compile-pipeline
A=$P/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
B=$P/csv-column-sum--opencode--vllm_Qwen_Qwen3.5-27B
printf '%s\n' "fail sleep=0" "pass sleep=0" "fail sleep=0" "fail sleep=0" "pass sleep=0" "fail sleep=0" >script
$SK task=log-error-report eval >out.log 2>&1 && rm -f script.n &&
	printf '%s\n' "pass sleep=0" "pass sleep=0" "fail sleep=0" "pass sleep=0" "pass sleep=0" "fail sleep=0" >script &&
	$SK task=csv-column-sum eval >>out.log 2>&1 ||
	{ echo "FAIL report-noskill.sh: make eval failed: $(tail -3 out.log)"; exit 1; }

# --- hand-built from here on -------------------------------------------
# noskill RUN TASK OUTCOMES...: copies of raw's trials as no-skill trials
noskill() {
	run=$1 task=$2; shift 2
	i=0
	for o; do
		i=$((i + 1)); n=$(printf '%03d' $i)
		mkdir -p $run/traces/$task/noskill && rm -rf $run/traces/$task/noskill/test-$n &&
			cp -R $run/traces/$task/raw/test-$n $run/traces/$task/noskill/test-$n
		python3 - "$run/traces/$task/noskill/test-$n/trial.json" "$o" <<'EOF'
import json, sys
p, o = sys.argv[1:]
t = json.load(open(p))
t.update(stage='noskill', skill_hash='no-skill', outcome=o, passed=o == 'passed',
         reward=1.0 if o == 'passed' else 0.0, reused=False)
t['skill'].update(injected=[], invoked=False, read=False, invoked_names=[], read_names=[])
json.dump(t, open(p, 'w'), indent=2)
EOF
	done
}
noskill $A log-error-report passed failed passed
noskill $B csv-column-sum failed failed failed
# --- end of the hand-built part ------------------------------------------

row() { jq -c "$1" "$2/summary.json"; }

t_begin "summary.json: each stage against no-skill too, and the tasks where the skill does worse"
skillc-summary $A $B --out $P >out.log 2>&1
t_eq "exit" $? 0
t_eq "rows" "$(jq -r '[.groups[] | "\(.task):\(.stage)"] | join(" ")' $P/summary.json)" \
	"csv-column-sum:noskill csv-column-sum:raw csv-column-sum:static log-error-report:noskill log-error-report:raw log-error-report:static"
t_eq "static vs noskill (worse)" "$(row '.groups[5] | [.delta_pp_vs_noskill, .delta_pp_vs_noskill_ci95, .worse_than_noskill]' $P)" \
	'[-33.33,[-71.78,31.58],true]'
t_eq "raw vs noskill (helps)" "$(row '.groups[1] | [.delta_pp_vs_noskill, .worse_than_noskill]' $P)" '[66.67,false]'
t_eq "noskill itself: no delta, never regressed" "$(row '.groups[3] | [.delta_pp_vs_noskill, .worse_than_noskill, .regressed]' $P)" \
	'[null,false,false]'
t_eq "by bench: static worse in 1 of 2 tasks" \
	"$(row '.by_bench[] | select(.stage == "static") | [.tasks_with_noskill, .worse_than_noskill_tasks, .tasks_with_raw]' $P)" '[2,1,2]'
t_eq "by bench: noskill is not compared with itself or counted against raw" \
	"$(row '.by_bench[] | select(.stage == "noskill") | [.tasks_with_noskill, .tasks_with_raw]' $P)" '[0,0]'
t_eq "rows worse than no skill" "$(jq .worse_than_noskill_rows $P/summary.json)" 2
t_end

t_begin "summary.csv and summary.md carry the same"
got=$(python3 - $P/summary.csv <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
r = [x for x in rows if x['task'] == 'log-error-report' and x['stage'] == 'static'][0]
n = [x for x in rows if x['task'] == 'log-error-report' and x['stage'] == 'noskill'][0]
print(r['delta_pp_vs_noskill'], r['delta_noskill_ci95_low'], r['delta_noskill_ci95_high'], r['worse_than_noskill'],
      repr(n['delta_pp_vs_noskill']), repr(n['regressed']), len(rows))
EOF
)
t_eq "csv" "$got" "-33.3 -71.8 +31.6 1 '' '' 6"
md=$(cat $P/summary.md)
t_contains "md column" "$md" "| Δ vs raw [95% CI] | Δ vs no-skill [95% CI] | Mean reward |"
t_contains "md static row" "$md" "| static | 3 | 1/3 = 33.3% [6.1%, 79.2%] | @1 0.33, @3 1.00 | +0.0 pp [-53.3, +53.3] | -33.3 pp [-71.8, +31.6] |"
t_contains "md by bench" "$md" "| static | 2 | 50.0% | 0 of 2 | 1 of 2 |"
t_contains "md noskill by bench" "$md" "| noskill | 2 | 33.3% | – | – |"
t_end

t_begin "the report: a no-skill KPI, a column, a bar; the index counts tasks worse than no skill"
skillc-report $P >out.log 2>&1
t_eq "exit" $? 0
html=$(cat $A/report.html)
t_contains "kpi no skill" "$html" '<div class="k">No skill</div><div class="v">67%</div>'
t_contains "kpi change vs no-skill" "$html" '<div class="kpi bad"><div class="k">Change vs no-skill</div><div class="v">-33 pp</div>'
t_contains "column" "$html" '<th class="n">Δ vs no-skill</th>'
t_eq "no skill to invoke" "$(row '.groups[] | select(.stage == "noskill") | .skill_invocation_rate' $P)" 'null
null'
t_contains "static vs no-skill cell" "$html" '<span class="neg">-33.3 pp</span><br><span class="muted small">[-71.8, +31.6]</span>'
t_eq "noskill bar first" "$(grep -o 'data-key="[a-z]*"' $A/charts/pass-rate.svg | tr '\n' ' ')" 'data-key="noskill" data-key="raw" data-key="static" '
t_check "chart valid" xmllint --noout $A/charts/pass-rate.svg
idx=$(cat $P/index.html)
t_contains "index kpi" "$idx" '<div class="k">Worse than no skill</div><div class="v">1 of 2</div>'
t_contains "index column" "$idx" '<th>No skill</th>'
t_check "forest against no skill valid" xmllint --noout $P/charts/delta-noskill.svg
t_eq "its points = summary.json" "$(grep -o 'data-value="[^"]*"' $P/charts/delta-noskill.svg | tr '\n' ' ')" \
	'data-value="0.666667" data-value="-0.333333" '
t_end

t_begin "a run without the baseline has no no-skill columns"
rm -rf $A/traces/log-error-report/noskill $B/traces/csv-column-sum/noskill
skillc-summary $A >out.log 2>&1 && skillc-report $P >>out.log 2>&1
t_eq "exit" $? 0
case $(cat $A/summary.md $A/report.html $P/index.html) in
*"| Δ vs no-skill [95% CI] |"* | *"| Worse than no-skill |"* | *"Δ vs no-skill</th>"* | *">No skill<"*) t_fail "a no-skill column without the baseline" ;;
esac
t_check "the forest against no skill is gone" test ! -e $P/charts/delta-noskill.svg
t_check "the one against raw stays" test -f $P/charts/delta.svg
t_eq "json fields null" "$(row '.groups[1] | [.delta_pp_vs_noskill, .worse_than_noskill]' $A)" '[null,false]'
t_end
