#!/bin/sh
# End-to-end: skillc-summary's numbers against values computed by hand, on
# trial.json files written here (only the keys the summary reads).
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/results
trial() { # run stage n outcome passed reward tokens
	d=$W/$1/traces/demo/$2/test-$3
	mkdir -p "$d"
	cat >"$d/trial.json" <<JSON
{"format": 1, "complete": true, "task": "demo", "harness": "opencode", "model": "vllm/q", "runner": "local", "stage": "$2",
 "outcome": "$4", "passed": $5, "reward": $6, "tokens": {"total": $7}, "cost_usd": 0.5,
 "durations": {"total": 100, "agent_execution": 60},
 "skill": {"injected": ["s"], "invoked": $5, "read": false}}
JSON
}
# raw: 6 passed, 2 failed, 1 timeout (reward 0), 1 infra error -> 6 of 9 scored
for n in 001 002 003 004 005 006; do trial run1 raw $n passed true 1.0 1000; done
trial run1 raw 007 failed false 0.0 3000
trial run1 raw 008 failed false 0.0 3000
trial run1 raw 009 timeout false 0.0 3000
trial run1 raw 010 infra_error false null 0
# static, in another run folder of the same results: 4 of 4
for n in 001 002 003 004; do trial run2 static $n passed true 1.0 500; done
mkdir -p "$W/run1/.incomplete/raw/test-011.20261129T000000Z"

t_begin "pass rate, Wilson interval, pass@k, infra exclusion and delta, computed by hand"
out=$(skillc-summary "$W" 2>&1)
t_eq "exit" $? 0
csv=$(cat "$W/summary.csv")
# raw: p = 6/9; Wilson: center .88009/1.42683 = .61681, half 1.95996*sqrt(.024691+.011856)/1.42683
# = .26261 -> [.3542, .8794]; pass@3 = 1 - C(3,3)/C(9,3) = 1 - 1/84 = .9881; pass@5 = 1 (n-c < 5)
t_contains "raw row" "$csv" ",demo,opencode,vllm/q,local,raw,10,0,9,6,0.6667,0.3542,0.8794,0.6667,0.9881,1.0000,,0.6667,0.6667,0.0000,1,1,0,1,0,"
# static: 4/4: Wilson lo = 4/(4+3.8415) = .5101; delta = (1 - .6667) * 100 = +33.3 pp
t_contains "static row" "$csv" ",demo,opencode,vllm/q,local,static,4,0,4,4,1.0000,0.5101,1.0000,1.0000,1.0000,,,1.0000,1.0000,"
# Newcombe: d = .3333; lo = d - sqrt((1 - .5101)^2 + (.8794 - .6667)^2) = -.2008,
# hi = d + sqrt(0 + (.6667 - .3542)^2) = .6458; not regressed
t_contains "delta and its interval" "$csv" ",+33.3,-20.1,+64.6,+0.3333,"
t_eq "not regressed" "$(python3 -c "import csv; print([r['regressed'] for r in csv.DictReader(open('$W/summary.csv', newline=''))])")" "['', '0']"
md=$(cat "$W/summary.md")
t_contains "md raw" "$md" "| – | demo | opencode | vllm/q | local | raw | 10 | 6/9 = 66.7% [35.4%, 87.9%] | @1 0.67, @3 0.99, @5 1.00 | – |"
t_contains "md excluded" "$md" "| 1 infra, 0 verifier (+1 incomplete) | 1 |"
t_contains "md static" "$md" "| static | 4 | 4/4 = 100.0% [51.0%, 100.0%] | @1 1.00, @3 1.00 | +33.3 pp [-20.1, +64.6] |"
t_contains "md by bench" "$md" "| – | opencode | vllm/q | local | static | 1 | 100.0% | 0 of 1 |"
js=$(cat "$W/summary.json")
t_contains "pass@k for every k" "$js" '"9": 1'
t_contains "mean tokens over trials with tokens" "$js" '"mean_tokens": 1500'
t_end

t_begin "bad input: no runs, a file, several folders without --out"
mkdir -p "$T_TMP/empty/a"
out=$(skillc-summary "$T_TMP/empty" 2>&1)
t_eq "no runs exit" $? 2
t_contains "no runs" "$out" "skillc-summary: no runs under $T_TMP/empty: no traces/ folder found (run make eval first)"
out=$(skillc-summary "$W/summary.csv" 2>&1)
t_eq "file exit" $? 2
out=$(skillc-summary "$W/run1" "$W/run2" 2>&1)
t_eq "two exit" $? 2
t_contains "two" "$out" "say where the summary goes with --out DIR"
t_end

t_begin "csv: RFC 4180 quoting of a name holding a comma and quotes; python's csv module reads it back"
Q=$T_TMP/quoted
d=$Q/run/traces/demo/raw/test-001
mkdir -p "$d"
cat >"$d/trial.json" <<'JSON'
{"format": 1, "complete": true, "task": "demo", "harness": "my,\"odd\" harness", "model": "vllm/q", "runner": "local",
 "outcome": "passed", "passed": true, "reward": 1.0}
JSON
skillc-summary "$Q/run" >/dev/null 2>&1
t_eq "exit" $? 0
t_contains "quoted" "$(cat $Q/run/summary.csv)" ',demo,"my,""odd"" harness",vllm/q,'
got=$(python3 -c "import csv; r=list(csv.DictReader(open('$Q/run/summary.csv', newline=''))); print(len(r), r[0]['harness'], r[0]['passed'])")
t_eq "read back" "$got" '1 my,"odd" harness 1'
t_contains "md cell" "$(cat $Q/run/summary.md)" '| my,"odd" harness |'
t_end
