#!/bin/sh
# bench/hash.sh [MB] — tree hashing beside xxhsum on the same bytes: MB
# (default 256) of random data in 64 files, in the page cache, hashed by
# `skillc-hash DIR` (the tree hash), `skillc-hash FILE...` and `xxhsum -H2`
# (XXH128, the same function) round robin, 7 times each; prints the median
# wall and CPU time (user + system of the child) and MB/s, and the ratio of
# xxhsum -H2's time to the tree hash's (>= 0.95x is the goal; CPU time is
# the figure that holds on a busy machine). Figures only.
set -eu
MB=${1:-256}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$ROOT/bin/skillc-hash" ] || { echo "bench/hash.sh: run make first" >&2; exit 2; }
command -v xxhsum >/dev/null || { echo "bench/hash.sh: needs xxhsum (apt-get install -y xxhash)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench-hash.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
mkdir "$W/blob"
k=0
while [ $k -lt 64 ]; do head -c $((MB * 16384)) /dev/urandom >"$W/blob/f$k"; k=$((k + 1)); done
cat "$W"/blob/* >/dev/null # warm the page cache for every tool alike
[ -r /proc/loadavg ] && echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 - "$ROOT/bin/skillc-hash" "$W/blob" "$MB" <<'PY'
import glob, os, subprocess, sys, time
hasher, blob, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
files = sorted(glob.glob(blob + "/f*"))
cmds = [("skillc-hash tree", [hasher, blob]), ("skillc-hash files", [hasher] + files),
        ("xxhsum -H2", ["xxhsum", "-H2"] + files), ("xxhsum -H3", ["xxhsum", "-H3"] + files)]
runs = {name: [] for name, _ in cmds}
for _ in range(7):  # round robin: a load that changes touches every tool alike
    for name, argv in cmds:
        t = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        _, _, r = os.wait4(p.pid, 0)
        runs[name].append(((time.monotonic() - t) * 1000, (r.ru_utime + r.ru_stime) * 1000))
med = lambda v: sorted(v)[len(v) // 2]
fig = {}
for name, _ in cmds:
    w, c = med([x[0] for x in runs[name]]), med([x[1] for x in runs[name]])
    fig[name] = (w, c)
    print("%-18s wall %7.1f ms (%5.0f MB/s), CPU %7.1f ms (%5.0f MB/s)" % (name, w, 1000 * mb / w, c, 1000 * mb / c))
t, x = fig["skillc-hash tree"], fig["xxhsum -H2"]
print("xxhsum -H2 / skillc-hash tree: %.2fx wall, %.2fx CPU (goal >= 0.95x; median of 7)" % (x[0] / t[0], x[1] / t[1]))
PY
