#!/bin/sh
# bench/startup.sh — what a tool's start-up costs: every tool's --version
# beside a C hello-world built here with the same compiler and flags, in
# the same run (median of N execs each, default 200; wall and CPU of the
# child alone), with the count of shared libraries each loads.
#   bench/startup.sh [N] [OTHER]      (after `make`)
# OTHER, a bin/ folder of another build (e.g. of an earlier commit), adds
# its tools to the same round robin: a before/after in one run.
# The goal (issue 27, DESIGN.md §11) is <= 1.5x the hello-world. Figures
# only; nothing is asserted.
set -eu
N=${1:-200}
OTHER=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$ROOT/bin/skillc-hash" ] || { echo "bench/startup.sh: run make first" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
printf '#include <stdio.h>\nint main(void) { puts("hello 1"); return 0; }\n' > "$W/hello.c"
${CC:-cc} -O2 -o "$W/hello" "$W/hello.c"
[ -z "$OTHER" ] || [ -x "$OTHER/skillc-hash" ] || { echo "bench/startup.sh: no tools in $OTHER" >&2; exit 2; }
[ -r /proc/loadavg ] && echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
# one python process times every program (posix_spawn + wait4 of that child)
python3 - "$N" "$OTHER" "$W/hello" "$ROOT"/bin/skillc-* <<'PY'
import glob, os, subprocess, sys, time
n = int(sys.argv[1])
progs = sys.argv[3:]
other = {}
if sys.argv[2]:
    for p in progs[1:]:
        o = os.path.join(sys.argv[2], os.path.basename(p))
        if os.access(o, os.X_OK):
            other[p] = o
def libs(p):
    out = subprocess.run(["ldd", p], capture_output=True, text=True).stdout
    return sum(1 for l in out.splitlines() if "=>" in l or "ld-linux" in l)
def med(v):
    v = sorted(v); return v[len(v) // 2]
def spawn(p, null):
    fa = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
    t = time.monotonic()
    pid = os.posix_spawn(p, [p, "--version"], os.environ, file_actions=fa)
    _, _, r = os.wait4(pid, 0)
    return (time.monotonic() - t) * 1000, (r.ru_utime + r.ru_stime) * 1000
# round robin: a load that changes during the run touches every program alike
progs = [p for p in progs if os.path.basename(p) != "skillc-init"]  # static, for sandboxes
progs += [other[p] for p in progs if p in other]
walls = {p: [] for p in progs}
cpus = {p: [] for p in progs}
null = os.open(os.devnull, os.O_WRONLY)
for _ in range(n):
    for p in progs:
        w, c = spawn(p, null)
        walls[p].append(w)
        cpus[p].append(c)
hw, hc = med(walls[progs[0]]), med(cpus[progs[0]])
print("%-20s %8s %7s %5s %7s %7s" % ("program --version", "wall ms", "CPU ms", "libs", "x wall", "x CPU"))
print("%-20s %8.2f %7.2f %5d %7s %7s" % ("C hello-world", hw, hc, libs(progs[0]), "1.00", "1.00"))
worst = (0, 0)
def row(name, p):
    w, c = med(walls[p]), med(cpus[p])
    print("%-20s %8.2f %7.2f %5d %7.2f %7.2f" % (name, w, c, libs(p), w / hw, c / hc))
    return w / hw, c / hc
oworst = (0, 0)
for p in [p for p in progs[1:] if p not in other.values()]:
    r = row(os.path.basename(p), p)
    worst = (max(worst[0], r[0]), max(worst[1], r[1]))
    if p in other:
        r = row("  (other)", other[p])
        oworst = (max(oworst[0], r[0]), max(oworst[1], r[1]))
print("worst tool: %.2fx wall, %.2fx CPU of the hello-world (goal <= 1.5x), median of %d execs each"
      % (worst[0], worst[1], n))
if other:
    print("worst tool of %s: %.2fx wall, %.2fx CPU" % (sys.argv[2], oworst[0], oworst[1]))
PY
