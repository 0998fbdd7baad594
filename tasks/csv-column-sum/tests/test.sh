#!/bin/sh
# Verifier: 1 when /root/answer.txt holds the north total, else 0.
mkdir -p /logs/verifier
want=511.00
got=$(tr -d ' \n\r' < /root/answer.txt 2>/dev/null)
if [ "$got" = "$want" ]; then
	echo 1 > /logs/verifier/reward.txt
	echo "PASS: answer $got"
else
	echo 0 > /logs/verifier/reward.txt
	echo "FAIL: answer '$got', want $want"
fi
