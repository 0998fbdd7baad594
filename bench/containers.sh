#!/bin/sh
# bench/containers.sh — what SANDBOX=docker costs, against a private Docker
# daemon started here (tests/lib.sh t_dockerd: vfs storage; needs root,
# docker.io, debootstrap and the Debian mirror once for the base image).
# Run from the repository root after `make`.
#   bench/containers.sh [N]     (default N=5 trials per side)
# 1. make images for the inventory-check sample task with the scripted
#    agent: the L1 (its Dockerfile's RUN steps) and the L2, cold, then warm.
# 2. make raw-eval REPEAT=N -j1 of the log-error-report sample task (no RUN
#    steps: the same trial in both) under SANDBOX=bwrap and SANDBOX=docker,
#    each in a fresh results folder and cache, its images built before:
#    wall time per trial (the scripted agent does not solve this task: every
#    trial runs agent and verifier to the end, reward 0), and the bare
#    `docker run --rm debian:12-slim true` of the same daemon beside it.
# Figures only; nothing is asserted.
set -eu
N=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$ROOT/bin/skillc-image" ] || { echo "bench/containers.sh: run make first" >&2; exit 2; }
# the loopback model server of the tests (t_fakellm), which `make check` builds
[ -x "$ROOT/build/tests/helpers/fakellm" ] || make -C "$ROOT" --no-print-directory build/tests/helpers/fakellm >/dev/null ||
	{ echo "bench/containers.sh: cannot build build/tests/helpers/fakellm (make check builds it)" >&2; exit 2; }
T_ROOT=$ROOT
. "$ROOT/tests/lib.sh"
t_dockerd || { echo "bench/containers.sh: $T_WHY" >&2; exit 2; }
t_docker_base debian debian:12-slim || { echo "bench/containers.sh: $T_WHY" >&2; exit 2; }
H=$T_TMP/harness W=$T_TMP/work
mkdir -p "$H" "$W" && cp -R "$ROOT/tasks" "$W/tasks"
cc -std=c11 -D_GNU_SOURCE -O2 $(pkg-config --cflags libcjson) -o "$H/acpagent" "$ROOT/tests/helpers/acpagent.c" \
	$(pkg-config --libs libcjson)
cat >"$H/agent.script.json" <<'EOF'
{"agent_name": "Scripted", "steps": [{"skill": "low-stock"},
  {"exec": "awk -F, 'NR > 1 && $2 + 0 < 5 { print $1 }' /root/stock.csv | sort > /root/low-stock.txt"},
  {"message": "done"}]}
EOF
printf '{"acp_command": ["/opt/scripted/acpagent", "/opt/scripted/script.json"], "skill_paths": ["~/.opencode/skills"], "image": {"files": [{"src": "acpagent", "dest": "/opt/scripted/acpagent"}, {"src": "agent.script.json", "dest": "/opt/scripted/script.json"}]}}\n' \
	>"$H/scripted.json"
printf '{"acp_command": ["%s/acpagent", "%s/agent.script.json"], "skill_paths": ["~/.opencode/skills"]}\n' "$H" "$H" \
	>"$H/onhost.json"
t_fakellm "$T_TMP/llm" '{"chat": []}'
printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >"$W/routes.json"
export HARNESS_PATH="$H" ROUTES="$W/routes.json"
unset SANDBOX IMAGE
cd "$W"

seconds() { # seconds <cmd...>: wall time of one run
	s=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "bench/containers.sh: failed: $*" >&2; e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.1f\n", $2 - $1 }'
}
SK="make --no-print-directory -f $ROOT/mk/skillc.mk task=inventory-check MODEL=fake/m1"
cold=$(seconds $SK HARNESS=scripted SANDBOX=docker RESULTS=r-docker CACHE_DIR=c-docker images)
warm=$(seconds $SK HARNESS=scripted SANDBOX=docker RESULTS=r-docker CACHE_DIR=c-docker images)
echo "make images (L1 with its RUN steps + L2, vfs): cold $cold s, warm $warm s"
LK="make --no-print-directory -f $ROOT/mk/skillc.mk task=log-error-report MODEL=fake/m1"
$LK HARNESS=onhost RESULTS=r-bwrap CACHE_DIR=c-bwrap ingest >/dev/null 2>&1
$LK HARNESS=scripted SANDBOX=docker RESULTS=r-docker CACHE_DIR=c-docker ingest images >/dev/null 2>&1
bw=$(seconds $LK HARNESS=onhost RESULTS=r-bwrap CACHE_DIR=c-bwrap -j1 raw-eval REPEAT=$N)
dk=$(seconds $LK HARNESS=scripted SANDBOX=docker RESULTS=r-docker CACHE_DIR=c-docker -j1 raw-eval REPEAT=$N)
# the bare container start of the same daemon and base image, beside a trial
i=0
while [ $i -lt 5 ]; do
	s=$(date +%s%N); docker run --rm debian:12-slim true >/dev/null 2>&1; e=$(date +%s%N)
	echo $(( (e - s) / 1000000 )); i=$((i + 1))
done >bare.txt
echo "docker: bare start (docker run --rm debian:12-slim true, median of 5) $(sort -n bare.txt | sed -n 3p) ms"
echo "$N trials, -j1: bwrap $bw s, docker $dk s" |
	awk -v n="$N" -v b="$bw" -v d="$dk" '{ print; printf "per trial: bwrap %.1f s, docker %.1f s (+%.1f s)\n", b / n, d / n, (d - b) / n }'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
