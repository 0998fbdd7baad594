#!/bin/sh
# mk/demo-agent.sh — the SIMULATED model of `make demo` (docs/demo.md): a few
# rules, not a language model. The scripted ACP agent (libexec/acpagent) runs
# it in the trial's sandbox after loading the log-triage skill. It shows the
# pipeline's mechanics; its pass rates are no evidence about any real model.
#
# The rules, so that the outcome depends on the skill's content only:
# - it reads SKILL.md from the top and loses what comes late (the profile's
#   weakness "loses_late_instructions"): it takes in the first SPAN bytes,
#   SPAN = 8000 + 2000 x ((5 x trial) mod 6), so trials 1..6 read 18000,
#   16000, 14000, 12000, 10000 and 8000 bytes (the trial's number, from
#   SKILLC_TRIAL, plays the part of a sampling seed);
# - it knows three pieces of advice only if it read them: "the level is a
#   field" / "second field" (else it greps the whole line), "case-sensitive"
#   (else it ignores case) and "names may contain" (else a component name is
#   its leading letters, so cache-v2 counts as cache);
# - it writes the counts its rules give to /root/report.json, and its token
#   usage (the whole skill and log are in its context) to /tmp/usage.json.
skill=$HOME/.opencode/skills/log-triage/SKILL.md
log=/root/app.log
n=${SKILLC_TRIAL:-1}
span=$((8000 + 2000 * ((5 * n) % 6)))
size=$(wc -c <"$skill") || exit 1
read_of() { head -c "$span" "$skill" | grep -qi -e "$1" && echo yes || echo no; }
field=$(read_of 'level is a field\|second field')
exact=$(read_of 'case-sensitive')
names=$(read_of 'names may contain')

echo "simulated model (rules, not an LLM): trial $n takes in the first $span of $size bytes of SKILL.md"
echo "advice taken in: level is a field: $field; levels are case-sensitive: $exact; names may contain - and digits: $names"
case $field$exact in
yesyes) test='$2 == "ERROR"' ;;
yesno) test='toupper($2) == "ERROR"' ;;
noyes) test='/ERROR/' ;;
*) test='toupper($0) ~ /ERROR/' ;;
esac
if [ "$names" = yes ]; then
	name='c = $3; gsub(/[][]/, "", c)'
else
	name='match($0, /\[[a-z]+/); c = substr($0, RSTART + 1, RLENGTH - 1)'
fi
prog="$test { $name; n[c]++ } END { printf \"{\"; s = \"\"; for (k in n) { printf \"%s\\\"%s\\\": %d\", s, k, n[k]; s = \", \" } print \"}\" }"
echo "it runs: awk '$prog' $log > /root/report.json"
awk "$prog" "$log" >/root/report.json || exit 1
cat /root/report.json

# tokens: the prompt and tools (~1200), the skill and the log in, the command out
in=$((1200 + (size + $(wc -c <"$log")) / 4))
out=$((40 + ${#prog} / 4))
printf '{"inputTokens": %d, "outputTokens": %d, "totalTokens": %d}\n' "$in" "$out" $((in + out)) >/tmp/usage.json
