# sum.awk — sums column `val` over rows whose column `key` equals `want`.
# Splits fields itself so double-quoted fields may hold commas (POSIX awk,
# no gawk FPAT needed). Skips the header line.
function split_csv(line, f,    i, c, cur, quoted, n) {
	n = 0; cur = ""; quoted = 0
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (c == "\"") quoted = !quoted
		else if (c == "," && !quoted) { f[++n] = cur; cur = "" }
		else cur = cur c
	}
	f[++n] = cur
	return n
}
NR == 1 { next }
{ split_csv($0, f); if (f[key] == want) { total += f[val]; n++ } }
END { if (count) printf "%d rows\n", n; printf "%.2f\n", total }
