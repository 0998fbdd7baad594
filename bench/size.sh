#!/bin/sh
# bench/size.sh [--aside FILE] [BASE [HEAD]] — lines of code per folder at
# BASE (default e588035, main just before issue 26's first commit) and at
# HEAD (default HEAD), and the difference, as a markdown table: C (.c and
# .h) in the tools' mains (tools/*.c), each folder of tools/lib/,
# tools/gen/, tools/plugin/ and tests/{unit,fuzz,helpers}/; shell (.sh) in
# tests/ and bench/. A folder's own files only. With --aside FILE (a commit
# a line, its hash first; # starts a comment), the change is split into what
# those commits added (their own diffs) and the rest: bench/size-aside lists
# the commits since e588035 that added other issues' features, so the rest
# is issue 26's clean-up (merges' own lines fall to it). Read from git (git
# grep -c, git show --numstat), so the work tree is not touched. Figures only
# (docs/internals/layout.md#code-size).
set -eu
aside=
if [ "${1:-}" = --aside ]; then
	aside=${2:-}
	[ -r "$aside" ] || { echo "bench/size.sh: --aside wants a readable file of commits, not '$aside'" >&2; exit 2; }
	shift 2
fi
base=${1:-e588035}
head=${2:-HEAD}
cd "$(dirname "$0")/.."
for c in "$base" "$head"; do
	git rev-parse -q --verify "$c^{commit}" >/dev/null ||
		{ echo "bench/size.sh: $c is not a commit here; give a commit of this repository" >&2; exit 2; }
done
b=$(git rev-parse --short "$base")
h=$(git rev-parse --short "$head")
# the set-aside commits, each checked to lie between the two
commits=
if [ -n "$aside" ]; then
	for c in $(sed 's/#.*//' "$aside" | awk '{ print $1 }'); do
		if ! git rev-parse -q --verify "$c^{commit}" >/dev/null ||
		   git merge-base --is-ancestor "$c" "$b" || ! git merge-base --is-ancestor "$c" "$h"; then
			echo "bench/size.sh: $aside: $c is not a commit of $b..$h; take it out" >&2
			exit 2
		fi
		commits="$commits $c"
	done
fi
# "<commit>:<path>:<lines>" for every file, both commits
{
	git grep -c '' "$b" -- '*.[ch]' '*.sh'
	git grep -c '' "$h" -- '*.[ch]' '*.sh'
	# "A:<path>:<added - deleted>", a line a file a set-aside commit changed
	for c in $commits; do
		git show --no-renames --numstat --format= "$c" -- '*.[ch]' '*.sh' |
			awk -F '\t' '$1 != "-" { print "A:" $3 ":" $1 - $2 }'
	done
} | awk -F: -v b="$b" -v h="$h" -v apart="${aside:+1}" '
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
	if (apart) printf "| folder | %s | %s | change | set aside | the rest |\n|---|---:|---:|---:|---:|---:|\n", b, h
	else printf "| folder | %s | %s | change |\n|---|---:|---:|---:|\n", b, h
	m = 0; for (r in rows) name[++m] = r
	for (i = 2; i <= m; i++) for (j = i; j > 1 && name[j - 1] > name[j]; j--) { t = name[j]; name[j] = name[j - 1]; name[j - 1] = t }
	for (i = 1; i <= m; i++) {
		r = name[i]
		d = count[h, r] - count[b, r]
		printf "| `%s` | %d | %d | %+d |", r, count[b, r], count[h, r], d
		if (apart) printf " %+d | %+d |", count["A", r], d - count["A", r]
		printf "\n"
	}
	d = total[h] - total[b]
	printf "| total | %d | %d | %+d |", total[b], total[h], d
	if (apart) printf " %+d | %+d |", total["A"], d - total["A"]
	printf "\n"
}'
