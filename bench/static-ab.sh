#!/bin/sh
# bench/static-ab.sh — two builds of skillc-static side by side on every
# SKILL.md of a corpus, alternating skill by skill, so a load that changes
# during the run touches both alike (this machine is shared: figures from
# two separate runs of bench/static-corpus.sh compare nothing).
#   bench/static-ab.sh OTHER [CORPUS] [MODEL]
#     OTHER   another skillc-static (e.g. one built from an earlier commit)
#     CORPUS  default ../shared/corpus/skillsbench; MODEL default vllm/Qwen/Qwen3.5-27B
# Prints for each binary the median wall and CPU time of the process, and
# from --timings the median in-process total and its writing part
# (package + write: the files, the fsyncs, the reports). Figures only.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] && [ -x "$1" ] || { echo "usage: bench/static-ab.sh OTHER-skillc-static [CORPUS] [MODEL]" >&2; exit 2; }
OTHER=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CORPUS=${2:-$ROOT/../shared/corpus/skillsbench}
MODEL=${3:-vllm/Qwen/Qwen3.5-27B}
[ -x "$ROOT/bin/skillc-static" ] || { echo "bench/static-ab.sh: run make first" >&2; exit 2; }
[ -d "$CORPUS" ] || { echo "bench/static-ab.sh: no corpus at $CORPUS" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
. "$ROOT/bench/lib.sh"
corpus_packages "$CORPUS" "$W/pkg"
"$ROOT/bin/skillc-profile" --model "$MODEL" --profiles "$ROOT/rules/profiles" --out "$W/profile.json" >/dev/null
[ -r /proc/loadavg ] && echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 - "$W" "$OTHER" "$ROOT/bin/skillc-static" <<'PY'
import glob, os, shutil, sys, time
w, bins = sys.argv[1], {"other": sys.argv[2], "this": sys.argv[3]}
null = os.open(os.devnull, os.O_WRONLY)
res = {k: {"wall": [], "cpu": [], "total": [], "write": []} for k in bins}
def run(k, b, pkg):
    out = os.path.join(w, "out-" + k)
    shutil.rmtree(out, ignore_errors=True)
    r, wfd = os.pipe()
    t = time.monotonic()
    pid = os.posix_spawn(b, [b, "--skill", pkg, "--profile", w + "/profile.json", "--out", out,
                             "--report", out + ".json", "--timings"], os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, wfd, 2)])
    os.close(wfd)
    err = b""
    while True:
        c = os.read(r, 65536)
        if not c:
            break
        err += c
    os.close(r)
    _, _, ru = os.wait4(pid, 0)
    res[k]["wall"].append((time.monotonic() - t) * 1000)
    res[k]["cpu"].append((ru.ru_utime + ru.ru_stime) * 1000)
    wr = 0.0
    for line in err.decode(errors="replace").splitlines():
        if ": timing: " in line:
            ms = float(line.split()[-2])
            if " total " in line:
                res[k]["total"].append(ms)
            elif ": timing: write" in line or ": timing: package" in line:
                wr += ms
    res[k]["write"].append(wr)
pkgs = sorted(glob.glob(w + "/pkg/*"), key=lambda p: int(os.path.basename(p)))
for p in pkgs:
    for k, b in bins.items():
        run(k, b, p)
med = lambda v: sorted(v)[len(v) // 2] if v else float("nan")
for k, b in bins.items():
    r = res[k]
    print("%-5s %s: %d skills; process wall median %.1f ms, CPU median %.2f ms; in-process total median %.2f ms, "
          "package + write %.2f ms" % (k, b, len(pkgs), med(r["wall"]), med(r["cpu"]), med(r["total"]), med(r["write"])))
PY
[ -r /proc/loadavg ] && echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
