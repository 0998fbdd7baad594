#!/bin/sh
# Oracle: the SKUs with quantity below 5, sorted.
awk -F, 'NR > 1 && $2 + 0 < 5 { print $1 }' /root/stock.csv | sort > /root/low-stock.txt
