#!/bin/sh
# Oracle: the level is the second field; the component is the bracketed third.
awk '$2 == "ERROR" { c = $3; gsub(/[][]/, "", c); n[c]++ }
	END { printf "{"; s = ""; for (k in n) { printf "%s\"%s\": %d", s, k, n[k]; s = ", " } print "}" }' \
	/root/app.log > /root/report.json
