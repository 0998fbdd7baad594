#!/bin/sh
# bench/static-corpus.sh — the static compile over a corpus of real skills:
# corpus-wide body-token reduction and time per skill.
#   bench/static-corpus.sh [CORPUS] [MODEL...]
#     CORPUS  a folder searched for SKILL.md (default ../shared/corpus/skillsbench,
#             relative to the repository root)
#     MODEL   target model ids whose profiles are used (default
#             vllm/Qwen/Qwen3.5-27B anthropic/claude-sonnet-4)
# Every SKILL.md's folder is copied as a one-skill package and compiled in
# deterministic mode with each profile. Prints per profile: skills, long
# skills (over the budget before), long skills within budget after, total
# body tokens before and after (and the reduction), sections moved,
# rollbacks, and wall time per skill (mean and median, skillc-static alone),
# then from --timings the median of the in-process total and of its two
# parts: the compile (load, lint, passes, measure) and the write (package,
# reports, hash: fsyncs, which the disk decides).
# First, over the tasks (CORPUS's folders): each task's whole skill set
# ingested (skillc-ingest) and compiled (skillc-static) with the first
# profile; prints tasks ingested and refused, skills compiled, sets of
# several skills, and the time (total, per task).
# Figures only; nothing is asserted (tests/e2e/static-corpus.sh asserts).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${1:-$ROOT/../shared/corpus/skillsbench}
[ $# -gt 0 ] && shift
MODELS=${*:-vllm/Qwen/Qwen3.5-27B anthropic/claude-sonnet-4}
[ -x "$ROOT/bin/skillc-static" ] || { echo "bench/static-corpus.sh: run make first" >&2; exit 2; }
[ -d "$CORPUS" ] || { echo "bench/static-corpus.sh: no corpus at $CORPUS" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench/static-corpus.sh: needs jq" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM

# the task sets: ingest + static, timed as a whole
first=${MODELS%% *}
"$ROOT/bin/skillc-profile" --model "$first" --profiles "$ROOT/rules/profiles" --out "$W/profile.json" >/dev/null
ok=0 refused=0 skills=0 sets=0
s=$(date +%s%N)
for t in "$CORPUS"/*/; do
	t=${t%/}
	[ -d "$t/environment" ] || continue
	o=$W/task/$(basename "$t")
	mkdir -p "$o"
	if "$ROOT/bin/skillc-ingest" --task "$t" --out "$o/in" --hash "$o/in.hash" >/dev/null 2>"$o/err" &&
		"$ROOT/bin/skillc-static" --skill "$o/in" --profile "$W/profile.json" --out "$o/out" >/dev/null 2>>"$o/err"; then
		ok=$((ok + 1))
		k=$(ls "$o/in" | wc -l)
		skills=$((skills + k))
		[ "$k" -gt 1 ] && sets=$((sets + 1))
	else
		refused=$((refused + 1))
		echo "  refused: $(basename "$t"): $(grep -v warning "$o/err" | head -1)"
	fi
done
e=$(date +%s%N)
echo "tasks: $((ok + refused)); ingested and compiled: $ok ($sets with several skills, $skills skills); refused: $refused"
awk -v ns=$((e - s)) -v n=$((ok + refused)) 'BEGIN { printf "  ingest + static of every set: %.2f s, %.1f ms per task\n", ns / 1e9, ns / 1e6 / n }'
rm -rf "$W/task"

. "$ROOT/bench/lib.sh"
corpus_packages "$CORPUS" "$W/pkg"
total=$(ls "$W/pkg" | wc -l)
echo "corpus: $CORPUS ($total skills)"

for model in $MODELS; do
	"$ROOT/bin/skillc-profile" --model "$model" --profiles "$ROOT/rules/profiles" --out "$W/profile.json" >/dev/null
	prof=$(jq -r .name "$W/profile.json")
	rm -rf "$W/out" "$W/times"
	mkdir -p "$W/out"
	# timed from the spawn to the wait of skillc-static alone (two `date`
	# processes around it, as before, added ~5 ms of their own to each)
	python3 - "$ROOT/bin/skillc-static" "$W" <<'PY'
import os, sys, time
b, w = sys.argv[1], sys.argv[2]
null = os.open(os.devnull, os.O_WRONLY)
with open(w + "/times", "w") as times:
    for p in sorted(os.listdir(w + "/pkg"), key=int):
        out = "%s/out/%s" % (w, p)
        err = os.open(out + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        t = time.monotonic()
        pid = os.posix_spawn(b, [b, "--skill", "%s/pkg/%s" % (w, p), "--profile", w + "/profile.json",
                                 "--out", out, "--report", out + ".json", "--timings"], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, err, 2)])
        _, status, _ = os.wait4(pid, 0)
        times.write("%d\n" % ((time.monotonic() - t) * 1e6))
        os.close(err)
        if status:
            print("  FAILED: " + open(out + ".err").read().strip())
PY
	jq -c ".skills[]" "$W"/out/*.json | jq -s -r '
		(.[0].profile.body_budget) as $b |
		[.[] | select(.before.tokens > $b.tokens or .before.lines > $b.lines)] as $long |
		"profile \(.[0].profile.name) (budget \($b.tokens) tokens, \($b.lines) lines)",
		"  skills: \(length); long (over budget before): \($long | length); long within budget after: \([$long[] | select(.within_budget)] | length)",
		"  body tokens: \([.[].before.tokens] | add) -> \([.[].after.tokens] | add) (\(100 - ([.[].after.tokens] | add) * 100 / ([.[].before.tokens] | add) | floor)% less); long skills only: \([$long[].before.tokens] | add // 0) -> \([$long[].after.tokens] | add // 0)",
		"  body lines: \([.[].before.lines] | add) -> \([.[].after.lines] | add)",
		"  sections moved to references/: \([.[].files_added | length] | add); rollbacks: \([.[].rollbacks | length] | add)"'
	sort -n "$W/times" | awk '{ v[NR] = $1; s += $1 } END {
		printf "  time per skill: mean %.1f ms, median %.1f ms, max %.1f ms\n", s / NR / 1000, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
	# --timings: "skillc-static: timing: <phase> <ms> ms", the total last
	cat "$W"/out/*.err | awk '/: timing: / { ms = $(NF - 1); if ($3 == "total") { t[++n] = ms; c[n] = ms - w; wr[n] = w; w = 0 } else if ($3 == "write" || $3 == "package") w += ms }
		function med(a, k, i, j, x) { for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } return a[int((k + 1) / 2)] }
		END { if (n) printf "  in-process (--timings), median: total %.2f ms; compile (load, lint, passes) %.2f ms; write (package, reports, hash) %.2f ms\n", med(t, n), med(c, n), med(wr, n) }'
done
