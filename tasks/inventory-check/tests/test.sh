#!/bin/bash
# Verifier: the image's own check-low-stock (installed by the Dockerfile's
# RUN step, configured by its ENV) judges /root/low-stock.txt.
mkdir -p /logs/verifier
if check-low-stock /root/low-stock.txt; then
	echo 1 > /logs/verifier/reward.txt
else
	echo 0 > /logs/verifier/reward.txt
fi
