#!/bin/sh
# bench/size.sh [BASE [HEAD]] — lines of code per folder at BASE (default
# e588035, main just before issue 26's first commit) and at HEAD (default
# HEAD), and the difference, as a markdown table: C (.c and .h) in the
# tools' mains (tools/*.c), each folder of tools/lib/, tools/gen/,
# tools/plugin/ and tests/{unit,fuzz,helpers}/; shell (.sh) in tests/ and
# bench/. A folder's own files only. Read from git (git grep -c), so the
# work tree is not touched. Figures only (docs/internals/layout.md#code-size).
set -eu
base=${1:-e588035}
head=${2:-HEAD}
cd "$(dirname "$0")/.."
for c in "$base" "$head"; do
	git rev-parse -q --verify "$c^{commit}" >/dev/null ||
		{ echo "bench/size.sh: $c is not a commit here; give a commit of this repository" >&2; exit 2; }
done
b=$(git rev-parse --short "$base")
h=$(git rev-parse --short "$head")
# "<commit>:<path>:<lines>" for every file, both commits
{ git grep -c '' "$b" -- '*.[ch]' '*.sh'; git grep -c '' "$h" -- '*.[ch]' '*.sh'; } | awk -F: -v b="$b" -v h="$h" '
{
	path = $2; n = $3; dir = path; sub(/\/[^\/]*$/, "", dir); if (dir == path) dir = "."
	kind = path ~ /\.sh$/ ? "sh" : "C"
	if (dir == "tools") row = "tools/*.c (mains)"
	else if (dir ~ /^(tools\/lib\/[a-z]+|tools\/gen|tools\/plugin|tests\/(unit|fuzz|helpers|e2e)|bench)$/) row = dir " (" kind ")"
	else next
	if (kind == "sh" && dir ~ /^tools/) next
	rows[row] = 1; count[$1, row] += n; total[$1] += n
}
END {
	printf "| folder | %s | %s | change |\n|---|---:|---:|---:|\n", b, h
	m = 0; for (r in rows) name[++m] = r
	for (i = 2; i <= m; i++) for (j = i; j > 1 && name[j - 1] > name[j]; j--) { t = name[j]; name[j] = name[j - 1]; name[j - 1] = t }
	for (i = 1; i <= m; i++) {
		r = name[i]
		printf "| `%s` | %d | %d | %+d |\n", r, count[b, r], count[h, r], count[h, r] - count[b, r]
	}
	printf "| total | %d | %d | %+d |\n", total[b], total[h], total[h] - total[b]
}'
