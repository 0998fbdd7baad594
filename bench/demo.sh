#!/bin/sh
# bench/demo.sh — how long a newcomer waits for `make demo`: clones the
# repository's HEAD into a fresh folder, runs ./configure && make -j2 (timed
# apart), then times `make demo` (the promise: under 2 minutes) and the
# second `make demo` (everything up to date). Prints figures; asserts nothing.
#   bench/demo.sh            (from the repository, after committing)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench-demo.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
now() { date +%s.%N; }
since() { echo "$1 $(now)" | awk '{ printf "%.1f", $2 - $1 }'; }

git clone -q "$ROOT" "$W/skillc"
cd "$W/skillc"
t=$(now)
./configure >/dev/null && make -j2 >/dev/null
build=$(since "$t")
t=$(now)
make demo >"$W/demo.out" 2>&1 || { tail -20 "$W/demo.out"; exit 1; }
first=$(since "$t")
t=$(now)
make demo >"$W/demo2.out" 2>&1
again=$(since "$t")
trials=$(grep -c ' \(passed\|failed\) reward=' "$W/demo.out" || true)
echo "commit $(git rev-parse --short HEAD)"
echo "./configure && make -j2   ${build} s"
echo "make demo (fresh clone)   ${first} s   ($trials trials)"
echo "make demo (again)         ${again} s   (nothing redone)"
