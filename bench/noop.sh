#!/bin/sh
# bench/noop.sh — how cheap is "nothing to do" for a built matrix, side by
# side with Snakemake on the same graph, and how fast is hashing.
#   bench/noop.sh [N]      (default N=100 runs; run from anywhere after `make`)
# 1. Generates N synthetic tasks (one skill each, a few files), builds the
#    matrix of N runs up to `static` (ingest, profile, static: three targets
#    a run) with one make, then times the no-op make of the whole matrix
#    (median of 5; wall and CPU time) and of one run (median of 11), and
#    beside them a make of one empty target (make's own start, the floor)
#    and `make -f /dev/null`; the same no-ops with the journal probed
#    by skillc-rules check (a make without skillc.so); with strace, the
#    processes and system calls of each. Then where one run's no-op goes:
#    make reading skillc.mk and defaults.mk alone (make -q skillc-help),
#    and the start of skillc-rules, which a make without skillc.so pays.
# 2. Writes a Snakefile with the same graph (per run: ingest reads the
#    skill's files, profile the profiles folder, static both outputs), makes
#    its outputs up to date, then times `snakemake -n` (median of 5) and
#    prints the ratio.
#    Snakemake comes from Debian (apt-get install snakemake) when missing;
#    without it the figure is left out, said so.
# 3. bench/hash.sh: the same ~256 MB hashed by skillc-hash (tree hash) and
#    by xxhsum -H2 (XXH128) and -H3 (XXH3-64), side by side.
# Figures only; nothing is asserted.
set -eu
N=${1:-100}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$ROOT/bin/skillc-hash" ] || { echo "bench/noop.sh: run make first" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
cd "$W"
SK="make --no-print-directory -f $ROOT/mk/skillc.mk"
export MODEL=vllm/bench-model

# median_of K CMD...: "wall_ms cpu_ms", the medians of K runs of CMD after
# one unmeasured run, all started by one python (a python started for each
# run put its own start-up, and its cache misses, beside every figure).
# CPU: user + system of CMD and every process it waited for (wait4 of that
# child alone).
median_of() {
	python3 -c '
import os, statistics, subprocess, sys, time
k, cmd = int(sys.argv[1]), sys.argv[2:]
walls, cpus = [], []
for i in range(k + 1):
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, r = os.wait4(p.pid, 0)
    p.returncode = 0
    if i:
        walls.append((time.monotonic() - t) * 1000)
        cpus.append((r.ru_utime + r.ru_stime) * 1000)
print("%.1f %.1f" % (statistics.median(walls), statistics.median(cpus)))' "$@"
}

i=1
names=
while [ $i -le "$N" ]; do
	t=task-$i
	d=tasks/$t/environment/skills/skill-$i
	mkdir -p "$d/scripts" "$d/references" "tasks/$t/tests"
	printf -- '---\nname: skill-%d\ndescription: Synthetic skill %d. Use when benchmarking.\n---\n# Skill %d\n\n' $i $i $i > "$d/SKILL.md"
	seq 1 200 | sed 's/^/- step /' >> "$d/SKILL.md"
	seq 1 500 > "$d/references/data.md"
	printf '#!/bin/sh\necho %d\n' $i > "$d/scripts/run.sh"
	printf 'Do task %d.\n' $i > "tasks/$t/instruction.md"
	names="$names $t"
	i=$((i + 1))
done
names=${names# }

start=$(date +%s.%N)
$SK tasks="$names" -j2 static >build.out 2>&1 || { tail -5 build.out >&2; exit 1; }
end=$(date +%s.%N)
echo "$N runs (ingest, profile, static each): first build, make -j2: $(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }') s"
out=$($SK tasks="$names" static 2>&1)
case $out in *started*) echo "bench/noop.sh: the no-op make ran a stage: $out" >&2; exit 1 ;; esac

# wall time needs an idle machine: say how busy this one is
[ -r /proc/loadavg ] && echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
set -- $(median_of 5 $SK tasks="$names" static)
sk_wall=$1 sk_cpu=$2
set -- $(median_of 11 $SK task=task-1 static)
echo "skillc no-op, all $N runs:  wall ${sk_wall} ms, CPU ${sk_cpu} ms ($(echo "$sk_wall $N" | awk '{ printf "%.2f", $1 / $2 }') ms a run, median of 5)"
echo "skillc no-op, one run:      wall $1 ms, CPU $2 ms (median of 11)"
one_wall=$1 one_cpu=$2
# the same no-ops with the journal probed by skillc-rules check, as a make
# without skillc.so does (a SKILLC_BIN without it: skillc.mk falls back)
mkdir old-bin
for f in "$ROOT"/bin/*; do ln -s "$f" old-bin/; done
rm old-bin/skillc.so
OSK="$SK SKILLC_BIN=$W/old-bin"
$OSK tasks="$names" static >/dev/null 2>&1 && $OSK task=task-1 static >/dev/null 2>&1
set -- $(median_of 5 $OSK tasks="$names" static)
echo "  probed by skillc-rules check instead, all $N runs: wall $1 ms, CPU $2 ms (median of 5)"
set -- $(median_of 11 $OSK task=task-1 static)
echo "  probed by skillc-rules check instead, one run:     wall $1 ms, CPU $2 ms (median of 11)"
# processes and system calls of a one-run no-op (strace -f -c)
if command -v strace >/dev/null 2>&1; then
	for how in "$SK" "$OSK"; do
		strace -f -c -o st.txt $how task=task-1 static >/dev/null 2>&1
		strace -f -e trace=execve -o ex.txt $how task=task-1 static >/dev/null 2>&1
		echo "  one-run no-op$([ "$how" = "$SK" ] || echo ' (check)'): $(grep -c 'execve(' ex.txt) processes" \
			"($(grep execve ex.txt | sed 's/.*execve("\([^"]*\)".*/\1/' | xargs -n1 basename | tr '\n' ' '))," \
			"$(awk '$NF == "total" { print $(NF - 2) }' st.txt) system calls"
	done
fi
# the anchor in the same run: a make that reads nothing (make's own start)
printf 'nothing:\n.PHONY: nothing\n' >nothing.mk
set -- $(median_of 11 make -f nothing.mk nothing)
echo "anchor, an empty make:       wall $1 ms, CPU $2 ms (median of 11); one run's no-op is $(echo "$one_wall $1" | awk '{ printf "%.1f", $1 / $2 }')x wall, $(echo "$one_cpu $2" | awk '{ printf "%.1f", $1 / $2 }')x CPU"
set -- $(median_of 11 make -f /dev/null)
echo "anchor, make -f /dev/null:   wall $1 ms, CPU $2 ms (median of 11)"
# where one run's no-op goes: make reading skillc.mk and defaults.mk alone
# (a goal that starts no process), and the start of skillc-rules
set -- $(median_of 11 make -f "$ROOT/mk/skillc.mk" -q skillc-help)
echo "  of which make reading skillc.mk + defaults.mk (make -q skillc-help): wall $1 ms, CPU $2 ms (median of 11)"
set -- $(median_of 11 "$ROOT/bin/skillc-rules" --version)
echo "  and the start of skillc-rules (--version): wall $1 ms, CPU $2 ms (median of 11)"

# Snakemake on the same graph
if ! command -v snakemake >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	echo "installing snakemake from Debian (apt-get install -y snakemake) ..."
	apt-get install -y -q snakemake >apt.out 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y snakemake >apt.out 2>&1 || true
fi
if command -v snakemake >/dev/null 2>&1; then
	{
		echo "TASKS = open('names.txt').read().split()"
		echo "rule all:"
		echo "    input: expand('sm/{t}/static.ok', t=TASKS)"
		echo "rule ingest:"
		echo "    input: lambda w: [str(p) for p in __import__('pathlib').Path('tasks', w.t, 'environment/skills').rglob('*') if p.is_file()]"
		echo "    output: 'sm/{t}/ingest.ok', 'sm/{t}/skill.hash'"
		echo "    shell: 'touch {output}'"
		echo "rule profile:"
		echo "    input: '$ROOT/rules/profiles'"
		echo "    output: 'sm/{t}/profile.ok', 'sm/{t}/profile.json'"
		echo "    shell: 'touch {output}'"
		echo "rule static:"
		echo "    input: 'sm/{t}/skill.hash', 'sm/{t}/profile.json'"
		echo "    output: 'sm/{t}/static.ok', 'sm/{t}/S_static.hash'"
		echo "    shell: 'touch {output}'"
	} >Snakefile
	echo "$names" >names.txt
	# the outputs are made here, not by Snakemake's own build (its 3N shell
	# jobs took over 40 min for N=1000): touched in the graph's order, so
	# every output is newer than its inputs. Without Snakemake's metadata
	# records its dry run has less to check: if anything, the ratio favours it
	for t in $names; do mkdir -p "sm/$t"; done
	for f in ingest.ok skill.hash profile.ok profile.json; do
		for t in $names; do echo "sm/$t/$f"; done
	done | xargs touch
	sleep 1.1 # a whole second newer, whatever the file system's time stamps
	for f in static.ok S_static.hash; do
		for t in $names; do echo "sm/$t/$f"; done
	done | xargs touch
	out=$(snakemake --cores 1 -n 2>&1) || { echo "$out" | tail -5 >&2; exit 1; }
	case $out in *"Nothing to be done"*) ;; *) echo "bench/noop.sh: snakemake -n would run jobs:" >&2; echo "$out" | tail -5 >&2; exit 1 ;; esac
	set -- $(median_of 5 snakemake --cores 1 -n -q)
	echo "snakemake -n, same graph:   wall $1 ms, CPU $2 ms (median of 5; $(snakemake --version))"
	echo "snakemake -n / skillc:      $(echo "$1 $sk_wall" | awk '{ printf "%.1f", $1 / $2 }')x wall, $(echo "$2 $sk_cpu" | awk '{ printf "%.1f", $1 / $2 }')x CPU"
else
	echo "snakemake not found and not installable here (apt-get install snakemake): no side-by-side figure"
fi

# hashing throughput beside xxhsum on the same bytes
"$ROOT/bench/hash.sh" 256
