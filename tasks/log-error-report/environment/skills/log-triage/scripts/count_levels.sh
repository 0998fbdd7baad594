#!/bin/sh
# count_levels.sh LEVEL FILE — counts lines of LEVEL per [component] as JSON.
# Reads the level from the second field only, so "ERROR" inside a message
# does not count.
level=$1 file=$2
awk -v lvl="$level" '$2 == lvl { c = $3; gsub(/[][]/, "", c); n[c]++ }
	END { printf "{"; s = ""; for (k in n) { printf "%s\"%s\": %d", s, k, n[k]; s = ", " } print "}" }' "$file"
