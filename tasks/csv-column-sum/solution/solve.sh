#!/bin/sh
# Oracle: the quote-aware sum of amount over region == north (POSIX awk).
awk 'NR > 1 { n = 0; cur = ""; q = 0
	for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "\"") q = !q; else if (c == "," && !q) { f[++n] = cur; cur = "" } else cur = cur c }
	f[++n] = cur; if (f[2] == "north") t += f[4] }
	END { printf "%.2f\n", t }' /root/sales.csv > /root/answer.txt
