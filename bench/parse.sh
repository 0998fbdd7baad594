#!/bin/sh
# bench/parse.sh — parsing cost of hostile but valid SKILL.md files next to
# real ones: time per MB of skillc-check and skillc-static for each pattern
# (one SKILL.md of SIZE bytes repeating it) and for the corpus's real skills
# (all of them, total time over total size), and the worst pattern's ratio
# to the corpus. Parsers are linear, so the ratio stays small (issue 11:
# within 10x); a quadratic pass shows up as a ratio that grows with SIZE.
#   bench/parse.sh [CORPUS] [SIZE]
#     CORPUS  a folder searched for SKILL.md (default ../shared/corpus/skillsbench,
#             relative to the repository root)
#     SIZE    bytes per hostile file (default 262144)
# Figures only; nothing is asserted (the fuzz harnesses' -timeout is the check).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${1:-$ROOT/../shared/corpus/skillsbench}
SIZE=${2:-262144}
BIN=$ROOT/bin
[ -x "$BIN/skillc-static" ] || { echo "bench/parse.sh: run make first" >&2; exit 2; }
[ -d "$CORPUS" ] || { echo "bench/parse.sh: no corpus at $CORPUS" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-parse.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
"$BIN/skillc-profile" --model vllm/Qwen/Qwen3.5-27B --profiles "$ROOT/rules/profiles" --out "$W/profile.json" >/dev/null

now() { date +%s%N; }
# ms per MB: elapsed nanoseconds, bytes
per_mb() { awk -v ns="$1" -v b="$2" 'BEGIN { printf "%.0f", ns / 1e6 / (b / 1048576) }'; }

# run_tools DIR...: total ns of skillc-check, then of skillc-static, over the skill folders
run_tools() {
	c=0 s=0
	for d; do
		t0=$(now)
		"$BIN/skillc-check" "$d"/* >/dev/null 2>&1 || true
		t1=$(now)
		rm -rf "$W/out"
		"$BIN/skillc-static" --skill "$d" --profile "$W/profile.json" --out "$W/out" --report "$W/report.json" \
			>/dev/null 2>"$W/err" || { echo "  skillc-static failed: $(cat "$W/err")" >&2; }
		t2=$(now)
		c=$((c + t1 - t0)) s=$((s + t2 - t1))
	done
	echo "$c $s"
}

n=0
for f in $(find "$CORPUS" -name SKILL.md | sort); do
	n=$((n + 1))
	mkdir -p "$W/corpus/$n"
	cp -R "$(dirname "$f")" "$W/corpus/$n/"
done
bytes=$(find "$W/corpus" -name SKILL.md -exec cat {} + | wc -c)
set -- $(run_tools "$W"/corpus/*)
corpus_check=$(per_mb "$1" "$bytes") corpus_static=$(per_mb "$2" "$bytes")
printf '%-28s %10s %12s %12s\n' "input" "bytes" "check ms/MB" "static ms/MB"
printf '%-28s %10s %12s %12s\n' "corpus ($n real skills)" "$bytes" "$corpus_check" "$corpus_static"

# name|unit (printf escapes) repeated to SIZE bytes
patterns='headings|# h\n
blank-separated-headings|## x\n\n
brackets|[
images|![
unclosed-links|[a](
list-links|- [
up-paths|../a.md
quote-bracket-backtick|> [`
backticks|` `` ```
angles|<a
autolinks|<http://a>
escapes|\\[
pipes|a | b\n
fences|```\n
html|<div>\n
list-items|- a\n
nested-lists|  - a\n    - b\n
urls|http://a.b/(c)
skill-paths|scripts/a/
skill-vars|$SKILLSKILLSKILLSKILL
link-titles|[a](b (
flags|--a=-
numbers|1.1.
emphasis|*_~
setext|a\n=\n'
printf '%s\n' "$patterns" | while IFS='|' read -r name unit; do
	mkdir -p "$W/h/$name/x"
	{
		printf -- '---\nname: x\ndescription: A hostile but valid skill. Use when benchmarking the parser.\n---\n'
		U=$(printf -- "$unit"; echo .)
		U=${U%.} N=$SIZE awk 'BEGIN { s = ENVIRON["U"]; n = ENVIRON["N"] + 0
			while (s != "" && length(s) < n) s = s s; printf "%s\n", substr(s, 1, n) }'
	} >"$W/h/$name/x/SKILL.md"
	b=$(wc -c <"$W/h/$name/x/SKILL.md")
	set -- $(run_tools "$W/h/$name")
	c=$(per_mb "$1" "$b") s=$(per_mb "$2" "$b")
	printf '%-28s %10s %12s %12s\n' "$name" "$b" "$c" "$s"
	echo "$name $c $s" >>"$W/figures"
done
awk -v cc="$corpus_check" -v cs="$corpus_static" '
	{ rc = $2 / cc; rs = $3 / cs; if (rc > wc) { wc = rc; nc = $1 } if (rs > ws) { ws = rs; ns = $1 } }
	END { printf "worst vs corpus: check %.1fx (%s), static %.1fx (%s)\n", wc, nc, ws, ns }' "$W/figures"
