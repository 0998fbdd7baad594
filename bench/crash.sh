#!/bin/sh
# bench/crash.sh — the crash test at scale: `make -j3 final` (the hybrid
# static compile asking the loopback model server, the trials run by the
# stand-in bench) killed with SIGKILL, the whole session at once, at N
# random moments, then run again. After each resume it checks:
#   - the same final state as an uninterrupted run (skill and compile
#     hashes, the plan, each stage's trials and rewards; status up to date;
#     no temp file outside .incomplete/);
#   - 0 LLM requests paid twice: the resume asks the model server exactly
#     for the answers the cache did not hold at the kill;
#   - 0 complete trials paid twice: the stand-in bench finished at most one
#     run per trial key, and each is filed in the trial store.
# Each kill freezes the session first (SIGSTOP, again until no process of
# it runs), so what the caches hold at the kill is read before anything can
# finish. Prints one line per kill
# and `N/N identical`; exits 1 when any differs.
#   bench/crash.sh [N] (default 100)     REPEAT=3 by default; KEEP_TMP=1 keeps the folder
# Run from the repository after `./configure && make`.
set -u
N=${1:-100}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
for p in "$ROOT/bin/skillc-stage" "$ROOT/libexec/fakellm"; do
	[ -x "$p" ] || { echo "bench/crash.sh: $p is missing: run ./configure && make first" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench-crash.XXXXXX") || exit 2
PID=
stop() {
	[ -z "$PID" ] || kill "$PID" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] && echo "kept $W" >&2 || rm -rf "$W"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
cd "$W" || exit 2
mkdir -p fake llm
ln -s "$ROOT/tests/helpers/fake-bench.sh" fake/bench
PATH=$ROOT/bin:$W/fake:$PATH
export PATH
unset MAKEFLAGS MFLAGS MAKELEVEL MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE
export FAKE_BENCH_LOG FAKE_BENCH_SCRIPT=$W/script
echo "pass sleep=0.3" >script
TASK=log-error-report

# the model server: the plan answers slowly enough to be caught asking
cat >llm/script.json <<'JSON'
{"rules": [
  {"match": "You review how an AI agent used a skill", "json": {"findings": []}, "delay": 0.2},
  {"match": "You turn findings about a skill", "json": {"patches": []}, "delay": 0.2},
  {"match": "## Units to score", "json": {"scores": []}, "delay": 0.2},
  {"match": "You plan edits to an Agent Skill", "delay": 0.4, "json": {"operations": [
   {"op": "reorder", "section": "log-triage/gotchas", "before": "log-triage/quick-start"},
   {"op": "move_to_reference", "section": "log-triage/why-logtriage-suite", "when": "you want the product's background"}]}}],
 "chat": [{"text": "ok"}]}
JSON
"$ROOT/libexec/fakellm" --script llm/script.json --log llm/requests.jsonl --port-file llm/port 2>llm/err &
PID=$!
i=0
while [ ! -s llm/port ] && [ $i -lt 1000 ]; do sleep 0.02; i=$((i + 1)); done
[ -s llm/port ] || { echo "bench/crash.sh: the model server did not start: $(cat llm/err)" >&2; exit 1; }
printf '{"providers": {"fake": {"base_url": "http://127.0.0.1:%s/v1", "key_env": null}}}\n' "$(cat llm/port)" >routes.json

# run RESULTS-and-CACHE-name ARGS...: one make of the pipeline
REPEAT=${REPEAT:-3}
pipeline() {
	c=$1; shift
	make --no-print-directory -f "$ROOT/mk/skillc.mk" task=$TASK TASKS_DIR="$ROOT/tasks" RESULTS="$W/$c/results" \
		CACHE_DIR="$W/$c/cache" ROUTES="$W/routes.json" ENV_FILE="$W/none.env" RUNNER=benchflow \
		MODEL=vllm/qwen-27b STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner REPEAT=$REPEAT "$@"
}
run_dir() { echo "$W/$1/results/$TASK--opencode--vllm_qwen-27b"; }
requests() { grep -c '"endpoint":"chat"' llm/requests.jsonl 2>/dev/null || echo 0; }
# complete entries of the LLM cache and the trial store
llm_entries() { find "$W/$1/cache" -path '*/llm/*' -type f -name '*.json' ! -name '.*' 2>/dev/null | wc -l; }
store_entries() { find "$W/$1/cache/trials" -mindepth 3 -maxdepth 3 -name trial.json ! -path '*/.*' 2>/dev/null | wc -l; }
bench_starts() { grep -c '^start ' "$FAKE_BENCH_LOG" 2>/dev/null || echo 0; }
# distinct trial keys of the run's complete trials (every stage's)
keys() {
	find "$(run_dir "$1")" -name trial.json -path '*/test-*' ! -path '*/.incomplete/*' -exec jq -r 'select(.complete) | .key' {} + |
		sort -u | wc -l
}
bench_finished() { grep -c '^end .* 0$' "$FAKE_BENCH_LOG" 2>/dev/null || echo 0; }

# the final state that must not depend on a crash: hashes of the skill,
# the compile and the plan; per stage index the trial count and rewards
state() {
	R=$(run_dir "$1")
	echo "skill $(cat "$R/inputs/skill.hash" 2>/dev/null)"
	echo "static $(cat "$R/artifacts/static/S_static.hash" 2>/dev/null)"
	echo "plan $(jq -c "[.skills[].plan.operations]" "$R/artifacts/static/plan.json" 2>/dev/null)"
	for ix in "$R"/traces/*/*/index.json; do
		[ -f "$ix" ] || continue
		echo "$(basename "$(dirname "$ix")") $(jq -c '[.counts, ([.trials[] | [.key, .outcome, .reward]] | sort)]' "$ix")"
	done
	pipeline "$1" status GOAL=final >/dev/null 2>&1 && echo "status up to date" || echo "status not up to date"
	find "$R" -name '.*.tmp.*' -not -path '*/.incomplete/*' | sed 's/^/temp /'
}

# until the model server has no request in flight (at most 10 s)
settle() {
	i=0
	sleep 0.2
	while [ $i -lt 100 ] && ! curl -s "http://127.0.0.1:$(cat llm/port)/_fake/stats" | grep -q '"in_flight":0'; do
		sleep 0.1
		i=$((i + 1))
	done
}

now() { date +%s.%N; }
t0=$(now)
FAKE_BENCH_LOG=$W/ref.bench.log
pipeline ref -j3 final >ref.out 2>&1 || { echo "bench/crash.sh: the uninterrupted run failed:" >&2; tail -20 ref.out >&2; exit 1; }
ref_secs=$(echo "$t0 $(now)" | awk '{ printf "%.2f", $2 - $1 }')
state ref >ref.state
grep -q 'status up to date' ref.state || { echo "bench/crash.sh: the uninterrupted run is not up to date" >&2; exit 1; }
echo "uninterrupted make -j3 final: ${ref_secs} s, $(requests) LLM request(s), $(bench_starts) bench run(s), REPEAT=$REPEAT"

# session_freeze, session_kill
. "$ROOT/tests/helpers/session.sh"

ok=0 k=1
while [ $k -le "$N" ]; do
	c=k$k
	FAKE_BENCH_LOG=$W/$c.bench.log
	req0=$(requests)
	# a random moment of the uninterrupted run's length
	delay=$(od -An -N4 -tu4 /dev/urandom | awk -v t="$ref_secs" '{ printf "%.3f", ($1 / 4294967296) * t }')
	setsid sh -c 'exec "$@"' sh make --no-print-directory -f "$ROOT/mk/skillc.mk" task=$TASK TASKS_DIR="$ROOT/tasks" \
		RESULTS="$W/$c/results" CACHE_DIR="$W/$c/cache" ROUTES="$W/routes.json" ENV_FILE="$W/none.env" \
		RUNNER=benchflow MODEL=vllm/qwen-27b STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner REPEAT=$REPEAT \
		-j3 final >"$c.kill.out" 2>&1 &
	sid=$!
	sleep "$delay"
	session_freeze $sid || echo "kill $k: the session would not stop: $(ps -s $sid -o pid=,stat=,comm= | tr '\n' ' ')" >&2
	llm_at=$(llm_entries $c) store_at=$(store_entries $c)
	session_kill $sid
	wait $sid 2>/dev/null
	# a request sent before the kill was paid for: let the server log it
	settle
	req_at=$(requests)
	pipeline $c -j3 final >"$c.resume.out" 2>&1
	rc=$?
	why=
	[ $rc -eq 0 ] || why="resume exit $rc"
	state $c >$c.state
	cmp -s ref.state $c.state || why="${why:+$why; }state differs: $(diff ref.state $c.state | grep '^[<>]' | head -2 | tr '\n' ' ')"
	asked=$(( $(requests) - req_at )) owed=$(( $(llm_entries $c) - llm_at ))
	[ $asked -eq $owed ] || why="${why:+$why; }resume asked the model $asked time(s) for $owed missing answer(s)"
	keys=$(keys $c) filed=$(store_entries $c) finished=$(bench_finished)
	# (a bench killed after writing a complete result has no end line: the
	# resume reads that result, so fewer finished runs than keys is fine)
	[ "$finished" -le "$keys" ] || why="${why:+$why; }bench finished $finished run(s) for $keys trial key(s)"
	[ "$filed" -eq "$keys" ] || why="${why:+$why; }$filed of $keys trial(s) filed in the trial store"
	at="kill $k/$N at ${delay}s (cache held $llm_at answer(s), $store_at trial(s))"
	if [ -z "$why" ]; then
		ok=$((ok + 1))
		echo "ok $at"
		[ -n "${KEEP_TMP:-}" ] || rm -rf "$W/$c"
	else
		echo "DIFF $at: $why"
	fi
	k=$((k + 1))
done
echo "$ok/$N identical"
[ $ok -eq "$N" ]
