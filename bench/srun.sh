#!/bin/sh
# bench/srun.sh — what LAUNCHER=srun costs per trial, against a private
# single-node Slurm cluster started here (tests/lib.sh t_slurm; needs root,
# slurm-wlm and munge). Run from the repository root after `make`.
#   bench/srun.sh [N]     (default N=20 trials per side)
# 1. srun -N1 -n1 true beside plain true: Slurm's own start-up, median of 21.
# 2. make raw-eval REPEAT=N -j1 with the stand-in bench (tests/helpers/
#    fake-bench.sh, "pass sleep=0"), LAUNCHER=local and LAUNCHER=srun, each
#    in a fresh results folder and cache: wall time per trial, and the
#    difference, which is what srun adds to a trial.
# Figures only; nothing is asserted.
set -eu
N=${1:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$ROOT/bin/skillc-stage" ] || { echo "bench/srun.sh: run make first" >&2; exit 2; }
T_ROOT=$ROOT
. "$ROOT/tests/lib.sh"
if ! t_slurm "$T_TMP/slurm"; then echo "bench/srun.sh: no cluster: $T_SLURM_WHY" >&2; exit 2; fi
W=$T_TMP/work
mkdir -p "$W/fake" && cp -R "$ROOT/tasks" "$W/tasks" && cd "$W"
ln -s "$ROOT/tests/helpers/fake-bench.sh" fake/bench
ln -s "$ROOT/tests/helpers/fake-docker.sh" fake/docker
PATH=$W/fake:$PATH
export PATH FAKE_BENCH_SCRIPT=$W/script
echo "pass sleep=0" >script

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
seconds() { # seconds <cmd...>: wall time of one run
	s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }'
}

plain=$(for k in $(seq 21); do seconds true; done | median)
srun1=$(for k in $(seq 21); do seconds srun -N1 -n1 true; done | median)
echo "srun -N1 -n1 true: median $srun1 s (plain true: $plain s)"

SK="make --no-print-directory -f $ROOT/mk/skillc.mk task=csv-column-sum RUNNER=benchflow MODEL=vllm/m"
$SK RESULTS=r-local CACHE_DIR=c-local ingest >/dev/null 2>&1
$SK RESULTS=r-srun CACHE_DIR=c-srun ingest >/dev/null 2>&1
loc=$(seconds $SK RESULTS=r-local CACHE_DIR=c-local LAUNCHER=local -j1 raw-eval REPEAT=$N)
srn=$(seconds $SK RESULTS=r-srun CACHE_DIR=c-srun LAUNCHER=srun -j1 raw-eval REPEAT=$N)
jobs=$(sacct --completion --noheader --parsable2 --format=jobname,state | grep -c ':raw-eval\..*|COMPLETED$' || true)
echo "$N trials, make -j1: LAUNCHER=local $loc s, LAUNCHER=srun $srn s ($jobs Slurm jobs)"
echo "$loc $srn $N" | awk '{ printf "per trial: local %.0f ms, srun %.0f ms, srun adds %.0f ms\n", 1000 * $1 / $3, 1000 * $2 / $3, 1000 * ($2 - $1) / $3 }'
