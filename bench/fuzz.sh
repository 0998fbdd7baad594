#!/bin/sh
# bench/fuzz.sh [SECONDS] [NAME-FILTER] — a long fuzzing campaign: every
# libFuzzer harness of tests/fuzz/ (or those matching the filter) for
# SECONDS each (default 600), continuing from the corpus earlier runs kept
# in build/fuzz/corpus/. Prints execs, corpus size and findings per
# harness (what `make fuzz` prints, CI's short run). A finding's input is
# in build/fuzz/findings/<harness>/: run build/fuzz/<harness> on it to see.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
make -s fuzz-build >/dev/null
exec tests/fuzz/run "${1:-600}" "${2:-}"
