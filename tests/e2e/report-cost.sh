#!/bin/sh
# End-to-end: cost accounting with known prices. A hybrid static compile
# asks the loopback model server (priced on its route), trials come from
# the stand-in bench with and without a runner cost; the per-stage totals
# of summary.json and the report equal the sums of the usage records and
# the trials; a model without a price shows as unknown, never as $0; and
# BUDGET_USD stops a run before a stage once the run has paid it.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE BENCH BUDGET_USD
[ -x "$T_ROOT/build/tests/helpers/fakellm" ] || { echo "FAIL report-cost.sh: fakellm is missing (make check builds it)"; exit 1; }
t_bench_work
D=$T_TMP/llm
t_fakellm "$D" '{"chat": [{"json": {"operations": []}}]}'
# planner: $3 / $15 per million tokens; vllm: $0.50 / $1 for every model; "free" has no price
cat >routes.json <<EOF
{"providers": {
 "fake": {"base_url": "$FAKELLM_URL", "key_env": null, "timeout": 10, "connect_timeout": 2,
          "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.05},
          "prices": {"planner": {"input": 3, "output": 15}}},
 "vllm": {"base_url": "http://127.0.0.1:9/v1", "key_env": null, "prices": {"*": {"input": 0.5, "output": 1}}},
 "free": {"base_url": "http://127.0.0.1:9/v1", "key_env": null}}}
EOF
SK="$T_SK task=log-error-report RUNNER=benchflow REPEAT=3 ROUTES=routes.json CACHE_DIR=$T_TMP/cache ENV_FILE=none.env"
R=results/compile-pipeline/log-error-report--opencode--vllm_qwen-27b
py() { python3 -c "$1"; }
approx() { py "import sys; sys.exit(0 if abs(float('$1') - float('$2')) < 1e-9 else 1)"; }

t_begin "per-stage totals are the sums of the usage records and of the trials"
# raw trials report no cost (priced from the route), static ones report $0.01
printf '%s\n' "pass sleep=0 cost=null" "fail sleep=0 cost=null" "pass sleep=0 cost=null" \
	"pass sleep=0 cost=0.01" "pass sleep=0 cost=0.01" "fail sleep=0 cost=0.01" >script
$SK MODEL=vllm/qwen-27b STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner eval >out.log 2>&1
t_eq "eval" $? 0
U=$R/status/static.usage.jsonl
t_check "usage records" test -s $U
# each record is priced at the route's prices: in * 3e-6 + out * 15e-6
t_check "records priced" py "
import json
for l in open('$U'):
    r = json.loads(l)
    assert abs(r['cost_usd'] - (r['tokens_in'] * 3 + r['tokens_out'] * 15) / 1e6) < 1e-12, r"
llm=$(py "import json; print(sum(json.loads(l)['cost_usd'] for l in open('$U')))")
calls=$(wc -l <$U | tr -d ' ')
$SK MODEL=vllm/qwen-27b summary >out.log 2>&1
J=$R/summary.json
row() { py "import json; print([g for g in json.load(open('$J'))['groups'] if g['stage'] == '$1'][0]['$2'])"; }
t_eq "static llm calls" "$(row static llm_calls)" "$calls"
t_check "static llm cost = sum of records" approx "$(row static llm_cost_usd)" "$llm"
# raw: 3 trials of 2500 in + 160 out tokens at $0.50 / $1 per million = 0.00141 each
t_check "raw trials priced from the route" approx "$(row raw total_cost_usd)" 0.00423
t_check "raw stage cost" approx "$(row raw stage_cost_usd)" 0.00423
t_check "static stage cost = records + trials" approx "$(row static stage_cost_usd)" "$(py "print($llm + 0.03)")"
t_eq "nothing unknown" "$(row static stage_cost_unknown_items)" 0
t_check "run total" approx "$(py "import json; print(json.load(open('$J'))['cost']['spent_usd'])")" "$(py "print(round($llm + 0.03 + 0.00423, 6))")"
$SK MODEL=vllm/qwen-27b report >out.log 2>&1
t_eq "report" $? 0
html=$(cat $R/report.html)
t_contains "pipeline static cell" "$html" "<td class=\"n\">\$$(py "print('%.4f' % $llm)")</td>"
t_contains "pipeline raw-eval cell" "$html" '<td class="n">$0.0042</td>'
t_contains "stage table static" "$html" "\$$(py "print('%.4f' % ($llm + 0.03))")"
t_check "cost chart" xmllint --noout $R/charts/cost.svg
t_check "cost chart = summary" py "
import json, xml.etree.ElementTree as ET
bars = {g.get('data-key'): float(g.get('data-value')) for g in ET.parse('$R/charts/cost.svg').getroot().iter('{http://www.w3.org/2000/svg}g') if g.get('class') == 'bar'}
rows = {g['stage']: g['stage_cost_usd'] for g in json.load(open('$J'))['groups']}
assert set(bars) == set(rows) and all(abs(bars[k] - rows[k]) < 1e-6 for k in rows), (bars, rows)"
t_end

t_begin "a model whose route has no price: unknown, never \$0"
printf '%s\n' "pass sleep=0 cost=null" >script
rm -f script.n
$SK MODEL=free/m raw-eval >out.log 2>&1
t_eq "eval" $? 0
F=results/compile-pipeline/log-error-report--opencode--free_m
$SK MODEL=free/m summary >out.log 2>&1
t_eq "stage cost null" "$(py "import json; print([g for g in json.load(open('$F/summary.json'))['groups']][0]['stage_cost_usd'])")" None
t_eq "unknown items" "$(py "import json; print(json.load(open('$F/summary.json'))['cost']['unknown_items'])")" 3
t_eq "csv cell empty" "$(py "import csv; print(repr([r['stage_cost_usd'] for r in csv.DictReader(open('$F/summary.csv', newline=''))][0]))")" "''"
t_contains "md" "$(cat $F/summary.md)" "| unknown |"
$SK MODEL=free/m report >out.log 2>&1
t_contains "page says unknown" "$(cat $F/report.html)" '<span class="muted">unknown</span>'
t_check "no \$0 anywhere" sh -c "! grep -qF '\$0.0000' $F/report.html"
t_end

t_begin "BUDGET_USD: the run stops before the stage that would start with the budget spent"
printf '%s\n' "pass sleep=0 cost=null" >script
rm -f script.n
B=results/compile-pipeline/log-error-report--opencode--vllm_budget
out=$($SK MODEL=vllm/budget RUN_DIR=$B BUDGET_USD=0.002 raw-eval 2>&1)
t_eq "stopped: exit 1, the goal is not done (no input was bad)" $? 1
t_eq "two trials ran" "$(ls -d $B/traces/log-error-report/raw/test-* | wc -l | tr -d ' ')" 2
t_contains "one line" "$out" "skillc: raw-eval.003: not started: BUDGET_USD=0.002 is spent: the run has paid \$0.0028 (0 LLM calls, 2 trials run here); raise BUDGET_USD to go on"
out=$($SK MODEL=vllm/budget RUN_DIR=$B BUDGET_USD=1 raw-eval 2>&1)
t_eq "raised: resumes" $? 0
t_eq "the third ran" "$(ls -d $B/traces/log-error-report/raw/test-* | wc -l | tr -d ' ')" 3
out=$($SK MODEL=vllm/budget RUN_DIR=$B BUDGET_USD=lots raw-eval 2>&1)
t_eq "bad value exit" $? 2
t_contains "bad value" "$out" "bad BUDGET_USD 'lots': an amount of US dollars"
t_end
