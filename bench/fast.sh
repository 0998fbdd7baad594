#!/bin/sh
# bench/fast.sh [RUNS] — the fast stage's own overhead per trace: 6 static
# traces of the sample task log-error-report (stand-in bench), the project's
# loopback model server answering at once, LLM_CACHE=off so every call is
# really sent. Times `make fast` (fast-score, 3 map calls, reduce, apply)
# RUNS times (default 5) after clean-stage STAGE=fast, subtracts the
# model's time (the latency the usage records note) and prints the median
# per trace, serial (-j1) and with -j4. Needs a built tree (make).
# First, with a fresh server that reports as cached the longest prefix a
# request shares with an earlier one (fakellm's prefix_cache, as a
# provider's prompt cache would), it prints the share of the map calls'
# prompt tokens that prefix covers (the first call excluded: it has nothing
# to share with). The goal is >= 80 % where the inputs allow.
set -u
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench-fast.XXXXXX") || exit 2
srv=
trap '[ -z "$srv" ] || kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
mkdir fake && cp -R "$root/tasks" tasks
ln -s "$root/tests/helpers/fake-bench.sh" fake/bench
ln -s "$root/tests/helpers/fake-docker.sh" fake/docker
PATH=$tmp/fake:$root/bin:$PATH
export PATH FAKE_BENCH_RULES=$tmp/rules
echo '* => pass ; fail tests=3/5 failcall=2 ; pass loop=3 ; fail tests=1/5 ; pass ; fail' >rules
cat >script.json <<'EOF'
{"prefix_cache": true, "chat": [{"text": "unused"}], "rules": [
 {"match": "Trace A", "json": {"findings": [{"section": "log-triage/gotchas#1", "kind": "missing", "evidence": "ls /root", "suggestion": "Say that levels are exact."}]}},
 {"match": "Findings, by section and kind", "json": {"patches": [{"op": "add", "section": "log-triage/gotchas#1", "text": "- Levels are exact.", "why": "all"}]}}]}
EOF
"$root/build/tests/helpers/fakellm" --script script.json --port-file port 2>/dev/null &
srv=$!
i=0
while [ ! -s port ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
cat >routes.json <<EOF
{"providers": {"fake": {"base_url": "http://127.0.0.1:$(cat port)/v1", "key_env": null}}}
EOF
SK="make --no-print-directory -f $root/mk/skillc.mk task=log-error-report RUNNER=benchflow MODEL=vllm/q EXTERNAL_MODEL=fake/m ROUTES=$tmp/routes.json ENV_FILE=$tmp/none.env CACHE_DIR=$tmp/cache"
R=results/compile-pipeline/log-error-report--opencode--vllm_q
$SK -j4 static-eval >/dev/null 2>&1 || { echo "bench/fast.sh: the static trials failed" >&2; exit 1; }

now() { date +%s.%N; }
# one measured `make fast`: prints "<wall s> <model s>"
once() {
	$SK clean-stage STAGE=fast >/dev/null 2>&1
	t0=$(now)
	$SK "$1" LLM_CACHE=off fast >/dev/null 2>&1 || { echo "bench/fast.sh: make fast failed" >&2; exit 1; }
	t1=$(now)
	model=$(cat $R/status/fast-*.usage.jsonl 2>/dev/null | sed -n 's/.*"latency_s":\([0-9.e-]*\).*/\1/p' |
		awk '{ s += $1 } END { printf "%.6f", s }')
	echo "$(echo "$t1 - $t0" | bc -l) $model"
}
# the median of a column of numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
report() {
	for r in $(seq "$runs"); do once "$1"; done >runs.txt
	wall=$(awk '{ print $1 * 1000 }' runs.txt | median)
	model=$(awk '{ print $2 * 1000 }' runs.txt | median)
	own=$(awk '{ print ($1 - $2) / 6 * 1000 }' runs.txt | median)
	printf 'make fast %s, 6 traces, server answering at once: wall %.0f ms, model time %.1f ms, own overhead %.1f ms per trace (median of %d)\n' \
		"$1" "$wall" "$model" "$own" "$runs"
}
# the map calls' shared prefix, from the first run's usage records (in the
# order the calls were sent; the server has seen no other prompt)
$SK clean-stage STAGE=fast >/dev/null 2>&1
$SK -j1 LLM_CACHE=off fast >/dev/null 2>&1 || { echo "bench/fast.sh: make fast failed" >&2; exit 1; }
cat $R/status/fast-map*.usage.jsonl | jq -s -r 'sort_by(.time) | .[1:] |
	"fast map calls: \(length + 1), prompt tokens of calls 2..n \(map(.tokens_in) | add), served by the shared prefix \(map(.tokens_cached) | add): \((map(.tokens_cached) | add) * 100 / (map(.tokens_in) | add) | floor)% (goal >= 80%)"'
report -j1
report -j4
