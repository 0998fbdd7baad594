#!/bin/sh
# Verifier: 1 when /root/report.json holds exactly the ERROR counts per component.
mkdir -p /logs/verifier
norm() { tr -d ' \n\r\t' | tr ',' '\n' | tr -d '{}' | sort | tr '\n' ','; }
want='"cache-v2":1,"db":3,"http":1,'
got=$(norm < /root/report.json 2>/dev/null)
if [ "$got" = "$want" ]; then
	echo 1 > /logs/verifier/reward.txt
	echo "PASS"
else
	echo 0 > /logs/verifier/reward.txt
	echo "FAIL: got $got, want $want"
fi
