#!/bin/sh
# bench/noop.sh — how cheap is "nothing to do", and how fast is hashing.
#   bench/noop.sh [N]      (default N=100 tasks; run from the repository root
#                           after `make`)
# 1. Generates N synthetic tasks (one skill each, a few files), ingests them
#    all with one matrix make, then times the no-op make over the whole set
#    (median of 5) and the no-op make of one task (median of 11).
# 2. Hashes the same ~256 MB of files with skillc-hash (tree hash) and with
#    xxhsum -H2 (XXH128) and -H3 (XXH3-64), side by side, and prints MB/s.
# Figures only; nothing is asserted. Needs xxhsum (Debian package xxhash).
set -eu
N=${1:-100}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$ROOT/bin/skillc-hash" ] || { echo "bench/noop.sh: run make first" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
cd "$W"
SK="make --no-print-directory -f $ROOT/mk/skillc.mk"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
seconds() { # seconds <cmd...>: wall time of one run
	s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }'
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

start=$(date +%s.%N)
$SK tasks="$names" -j2 ingest >/dev/null 2>&1
end=$(date +%s.%N)
echo "$N tasks: first ingest (make -j2): $(echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }') s"

all=$(for k in 1 2 3 4 5; do seconds $SK tasks="$names" ingest; done | median)
one=$(for k in 1 2 3 4 5 6 7 8 9 10 11; do seconds $SK task=task-1 ingest; done | median)
echo "no-op make, all $N tasks: median $all s ($(echo "$all $N" | awk '{ printf "%.1f", 1000 * $1 / $2 }') ms per task)"
echo "no-op make, one task:     median $one s"

# hashing throughput on the same bytes
mkdir -p blob
k=0
while [ $k -lt 64 ]; do head -c 4194304 /dev/urandom > blob/f$k; k=$((k + 1)); done
cat blob/* > /dev/null # warm the page cache for every tool alike
mb=256
t_tree=$(for k in 1 2 3; do seconds "$ROOT/bin/skillc-hash" blob; done | median)
t_files=$(for k in 1 2 3; do seconds sh -c "'$ROOT/bin/skillc-hash' blob/*"; done | median)
echo "skillc-hash tree  (256 MB, 64 files): $(echo "$mb $t_tree" | awk '{ printf "%.0f", $1 / $2 }') MB/s"
echo "skillc-hash files (256 MB, 64 files): $(echo "$mb $t_files" | awk '{ printf "%.0f", $1 / $2 }') MB/s"
if command -v xxhsum >/dev/null 2>&1; then
	t_h2=$(for k in 1 2 3; do seconds sh -c 'xxhsum -H2 blob/*'; done | median)
	t_h3=$(for k in 1 2 3; do seconds sh -c 'xxhsum -H3 blob/*'; done | median)
	echo "xxhsum -H2 (XXH128)  (same files):    $(echo "$mb $t_h2" | awk '{ printf "%.0f", $1 / $2 }') MB/s"
	echo "xxhsum -H3 (XXH3-64) (same files):    $(echo "$mb $t_h3" | awk '{ printf "%.0f", $1 / $2 }') MB/s"
	echo "ratio skillc-hash tree / xxhsum -H2:  $(echo "$t_h2 $t_tree" | awk '{ printf "%.2f", $1 / $2 }')x"
else
	echo "xxhsum not found (apt-get install -y xxhash): no side-by-side figure"
fi
