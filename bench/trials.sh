#!/bin/sh
# bench/trials.sh — what skillc adds to a trial, and how well a matrix of
# trials fills -jN. Run from the repository root after `make`.
#   bench/trials.sh [TRIALS] [JOBS] [N]   (defaults 200, 8, 5)
# 1. Sandbox start (bwrap): `bwrap --ro-bind / / --dev /dev --proc /proc
#    true` (median of 11) beside the wall time per trial of `make raw-eval
#    REPEAT=N -j1` of the log-error-report sample task under RUNNER=local
#    SANDBOX=bwrap with the scripted ACP agent (libexec/acpagent) and the
#    loopback model server: a trial's start, agent, verifier and filing,
#    all of it skillc's but the agent's few steps. Docker's side, against
#    `docker run --rm IMAGE true`, is bench/containers.sh (a private daemon).
# 2. Parallel efficiency: TRIALS trials (TRIALS/10 copies of the
#    csv-column-sum sample task, REPEAT=10) in one make -jJOBS raw-eval
#    with RUNNER=benchflow and the stand-in bench
#    (tests/helpers/fake-bench.sh), whose trials only sleep 0.2, 0.5, 1 or
#    2 s in turn. Prints the wall time, the sum of the stand-in's run
#    times (from its log), the ideal wall (that sum / JOBS, at least the
#    longest), efficiency = ideal / wall, and skillc's own time per trial
#    (JOBS * wall - the stand-in's sum, / TRIALS: an upper bound, as it
#    counts waiting for a core too).
# Figures only; nothing is asserted. Quote the load average with them.
set -eu
TRIALS=${1:-200} JOBS=${2:-8} N=${3:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$ROOT/bin/skillc-eval" ] && [ -x "$ROOT/libexec/acpagent" ] || { echo "bench/trials.sh: run make first" >&2; exit 2; }
# the loopback model server of the tests (t_fakellm), which `make check` builds
[ -x "$ROOT/build/tests/helpers/fakellm" ] || make -C "$ROOT" --no-print-directory build/tests/helpers/fakellm >/dev/null ||
	{ echo "bench/trials.sh: cannot build build/tests/helpers/fakellm (make check builds it)" >&2; exit 2; }
T_ROOT=$ROOT
. "$ROOT/tests/lib.sh"
W=$T_TMP/work
mkdir -p "$W/fake" "$W/tasks"
cd "$W"
echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
ms() { python3 -c 'import time; print("%.0f" % (time.time() * 1000))'; }
median() { sort -n | awk '{ v[NR] = $0 } END { print v[int((NR + 1) / 2)] }'; }

# 1. bwrap
if command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null; then
	i=0
	while [ $i -lt 11 ]; do
		s=$(date +%s%N); bwrap --ro-bind / / --dev /dev --proc /proc true; e=$(date +%s%N)
		echo $(( (e - s) / 1000000 )); i=$((i + 1))
	done >bw.txt
	cp -R "$ROOT/tasks/log-error-report" tasks/
	H=$W/harness
	mkdir -p "$H"
	cp "$ROOT/libexec/acpagent" "$H/acpagent" # the sandbox shows the harness folder, not the tree
	printf '{"agent_name": "Scripted", "steps": [{"message": "done"}]}\n' >"$H/agent.script.json"
	printf '{"acp_command": ["%s/acpagent", "%s/agent.script.json"], "skill_paths": ["~/.opencode/skills"]}\n' \
		"$H" "$H" >"$H/onhost.json"
	t_fakellm "$T_TMP/llm" '{"chat": []}'
	printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >routes.json
	LK="make --no-print-directory -f $ROOT/mk/skillc.mk task=log-error-report MODEL=fake/m1 HARNESS=onhost RUNNER=local SANDBOX=bwrap RESULTS=r-bwrap CACHE_DIR=c-bwrap"
	HARNESS_PATH=$H ROUTES=$W/routes.json $LK ingest >/dev/null 2>&1
	s=$(ms)
	HARNESS_PATH=$H ROUTES=$W/routes.json $LK -j1 raw-eval REPEAT="$N" >bwrap.out 2>&1 || { tail -5 bwrap.out >&2; exit 1; }
	e=$(ms)
	echo "bwrap: bare start (bwrap ... true) $(median <bw.txt) ms; a trial under SANDBOX=bwrap $(( (e - s) / N )) ms" \
		"(make raw-eval REPEAT=$N -j1, $N trials in $(( e - s )) ms)"
else
	echo "bwrap: not usable here (bwrap --ro-bind / / true fails): no figure"
fi

# 2. parallel efficiency against a stand-in that sleeps
ln -s "$ROOT/tests/helpers/fake-bench.sh" fake/bench
# by trial number: trial NNN sleeps line (NNN-1) mod 4
printf '* => pass sleep=0.2 ; pass sleep=0.5 ; pass sleep=1 ; pass sleep=2\n' >rules
tasks=
i=1
while [ $((i * 10)) -le "$TRIALS" ]; do
	cp -R "$ROOT/tasks/csv-column-sum" "tasks/csv-$i"
	tasks="$tasks csv-$i"
	i=$((i + 1))
done
n=$(( (i - 1) * 10 ))
SK="make --no-print-directory -f $ROOT/mk/skillc.mk MODEL=vllm/m RUNNER=benchflow REPEAT=10 RESULTS=r-par CACHE_DIR=c-par"
PATH=$W/fake:$PATH FAKE_BENCH_RULES=$W/rules FAKE_BENCH_LOG=$W/bench.log $SK tasks="${tasks# }" -j"$JOBS" ingest >/dev/null 2>&1
s=$(ms)
PATH=$W/fake:$PATH FAKE_BENCH_RULES=$W/rules FAKE_BENCH_LOG=$W/bench.log $SK tasks="${tasks# }" -j"$JOBS" raw-eval \
	>par.out 2>&1 || { tail -5 par.out >&2; exit 1; }
e=$(ms)
awk -v wall=$((e - s)) -v j="$JOBS" -v n="$n" '
	$1 == "start" { t[$3] = $2 }
	$1 == "end" && ($3 in t) { d = ($2 - t[$3]) * 1000; sum += d; if (d > max) max = d; k++ }
	END {
		ideal = sum / j; if (ideal < max) ideal = max
		printf "%d trials (%d stand-in runs), -j%d: wall %.1f s; stand-in runs %.1f s in all (sleeps 0.2/0.5/1/2 s), longest %.1f s\n", n, k, j, wall / 1000, sum / 1000, max / 1000
		printf "ideal wall %.1f s, parallel efficiency %.0f%%; skillc own time a trial at most %.0f ms\n", ideal / 1000, 100 * ideal / wall, (j * wall - sum) / n
	}' bench.log
echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
