#!/bin/sh
# End-to-end: `make task=<sample> raw-eval RUNNER=local HARNESS=<scripted
# agent> REPEAT=3` runs three real trials in bubblewrap through skillc-eval
# and skillc-local; the parser, the index and the summary read them exactly
# as they read BenchFlow's. The scripted agent (tests/helpers/acpagent) is a
# harness the product does not know: it comes from HARNESS_PATH. A
# noskill-eval trial runs with no skill linked into the agent's home.
. "$(dirname "$0")/../lib.sh"

if ! command -v bwrap >/dev/null 2>&1; then
	t_skip "local runner through make" "no bwrap (apt-get install -y bubblewrap)"
	exit 0
fi
W=$T_TMP/work H=$T_TMP/harness
mkdir -p "$W" "$H" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
cp "$T_ROOT/build/tests/helpers/acpagent" "$H/acpagent"
# a live model route (the runner checks it answers; the scripted agent never asks it)
t_fakellm "$T_TMP/llm" '{"chat": []}'
printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >routes.json
# the agent loads the skill, reads the data, writes the answer
cat >"$H/scripted.script.json" <<'JSON'
{"agent_name": "Scripted", "usage": {"inputTokens": 900, "outputTokens": 60, "totalTokens": 960},
 "steps": [{"thought": "A CSV total: load the csv-sum skill."}, {"skill": "csv-sum"},
  {"read": "/root/sales.csv"},
  {"write": {"path": "/root/answer.txt", "content": "511.00\n"}},
  {"message": "Wrote 511.00 to /root/answer.txt."}]}
JSON
# the harness: how to start it, where it finds skills, how its skill use shows
cat >"$H/scripted.json" <<JSON
{"acp_command": ["$H/acpagent", "$H/scripted.script.json"],
 "skill_paths": ["~/.opencode/skills"],
 "runners": {"local": {"agent": "scripted"}},
 "skill_use": {"invoked": {"acp": [{"kind": "^(skill|other)$", "content": "^<skill_content name=\"{skill}\">"}]},
               "read": {"acp": [{"kind": "^read$", "title": "skills/{skill}/"}]}}}
JSON
export HARNESS_PATH="$H" ROUTES="$W/routes.json"
SK="$T_SK task=csv-column-sum RUNNER=local HARNESS=scripted MODEL=fake/m1"
R=results/compile-pipeline/csv-column-sum--scripted--fake_m1

t_begin "make raw-eval RUNNER=local REPEAT=3: three complete trials"
out=$($SK -j3 raw-eval REPEAT=3 2>&1)
t_eq "exit" $? 0
for n in 001 002 003; do
	T=$R/traces/csv-column-sum/raw/test-$n
	t_check "trial $n published" test -f "$T/trial.json"
	t_contains "trial $n passed" "$(cat "$T/trial.json")" '"outcome": "passed"'
	t_contains "trial $n saw the skill invoked" "$(cat "$T/trial.json")" '"invoked": true'
	t_eq "trial $n: the runner wrote our own record" "$(jq -r .schema "$T/raw/trial.json" 2>&1)" local
done
t_contains "progress" "$out" "[3/3]"
t_end

t_begin "the index and the summary read the local trials like BenchFlow's"
out=$($SK raw-index REPEAT=3 2>&1)
t_eq "index exit" $? 0
t_contains "index lists three" "$(grep -c '"outcome": "passed"' $R/traces/csv-column-sum/raw/index.json)" 3
out=$($SK summary REPEAT=3 2>&1)
t_eq "summary exit" $? 0
t_check "summary.md" test -f "$R/summary.md"
t_contains "pass rate" "$(cat $R/summary.csv)" "csv-column-sum"
t_contains "the summary says how many ran without the Dockerfile's RUN step" "$(cat $R/summary.md)" \
	"Environment not reproduced: 3 of 3 trials"
t_contains "summary.json too" "$(cat $R/summary.json)" '"environment_not_reproduced": 3'
t_contains "trial.json records it" "$(cat $R/traces/csv-column-sum/raw/test-001/trial.json)" '"reproduced": false'
t_end

t_begin "a second make starts nothing"
out=$($SK -j3 raw-eval REPEAT=3 2>&1)
case $out in *started*) t_fail "a trial ran again: $out" ;; esac
t_end

t_begin "without bin/ in PATH, skillc-eval finds skillc-local beside itself"
out=$(PATH=/usr/local/bin:/usr/bin:/bin $SK raw-eval REPEAT=4 2>&1)
t_eq "exit" $? 0
t_contains "the fourth trial ran" "$(cat $R/traces/csv-column-sum/raw/test-004/trial.json)" '"outcome": "passed"'
t_end

t_begin "clean-stage STAGE=raw-eval.002 forgets that trial and what gathers it, nothing else"
T=$R/traces/csv-column-sum/raw
other=$(skillc-hash $T/test-001 $T/test-003 | cut -d' ' -f1)
out=$($SK clean-stage STAGE=raw-eval.002 REPEAT=4 2>&1)
t_eq "exit" $? 0
t_contains "the trial" "$out" "raw-eval.002: removed"
t_contains "its index" "$out" "raw-index: removed"
case $out in *raw-eval.001*|*raw-eval.003*) t_fail "touched another trial: $out" ;; esac
t_check "trial gone" test ! -e $T/test-002
t_check "index gone" test ! -e $T/index.json
t_eq "other trials untouched" "$(skillc-hash $T/test-001 $T/test-003 | cut -d' ' -f1)" "$other"
out=$($SK raw-index REPEAT=4 2>&1)
t_eq "make again" $? 0
t_contains "only that trial is due (the store has it)" "$out" "[2/4] csv-column-sum raw test-002 passed"
case $out in *test-001*|*test-003*) t_fail "another trial ran: $out" ;; esac
t_check "back" test -f $T/test-002/trial.json
t_end

t_begin "AGENT_HANDSHAKE_TIMEOUT=1: a harness whose handshake never answers errors after 1 s, not 60"
printf '{"agent_name": "Mute", "steps": [], "init": "hang"}\n' >"$H/mute.script.json"
printf '{"acp_command": ["%s/acpagent", "%s/mute.script.json"], "skill_paths": ["~/.opencode/skills"]}\n' \
	"$H" "$H" >"$H/mute.json"
out=$($T_SK task=csv-column-sum RUNNER=local HARNESS=mute MODEL=fake/m1 RESULTS=hs raw-eval REPEAT=1 \
	AGENT_HANDSHAKE_TIMEOUT=1 2>&1)
t_eq "the trial errored: exit" $? 1
t_contains "after the setting's 1 s ($out)" "$(find hs -path '*/.incomplete/*' -name trial.json -exec cat {} + 2>/dev/null; echo "$out")" \
	"ACP handshake timed out after 1s"
t_end

t_begin "make noskill-eval RUNNER=local: the agent runs with no skill linked"
out=$($SK noskill-eval REPEAT=1 2>&1)
t_eq "exit" $? 0
T=$R/traces/csv-column-sum/noskill/test-001
t_contains "the trial ran" "$(cat $T/trial.json)" '"outcome": "passed"'
t_contains "no skill hash" "$(cat $T/trial.json)" '"skill_hash": "no-skill"'
t_contains "the skill could not be invoked" "$(cat $T/trial.json)" '"invoked": false'
rc=$T/raw/trial.json
t_contains "no-skill mode" "$(cat "$rc")" '"skill_mode": "no-skill"'
t_contains "no skills dir" "$(tr -d ' \n' <"$rc")" '"effective_skills_dir":null'
t_contains "the agent found no skill" "$(cat $T/raw/trajectory/acp_trajectory.jsonl)" 'skill csv-sum not found'
t_end

t_begin "a task with a set of skills under bwrap: the agent's skills folder holds every one, use is per skill"
cp -R tasks/csv-column-sum tasks/set-two
mkdir -p tasks/set-two/environment/skills/csv-quote
printf -- '---\nname: csv-quote\ndescription: Quotes CSV fields. Use when a CSV field holds a comma.\n---\n\n# csv-quote\n\nQuote it.\n' \
	>tasks/set-two/environment/skills/csv-quote/SKILL.md
# the agent invokes csv-sum and reads csv-quote's SKILL.md from its skills folder
sed 's|{"read": "/root/sales.csv"}|{"read": "/root/.opencode/skills/csv-quote/SKILL.md"}, {"read": "/root/sales.csv"}|' \
	"$H/scripted.script.json" >"$H/s.json" && mv "$H/s.json" "$H/scripted.script.json"
S2="$T_SK task=set-two RUNNER=local HARNESS=scripted MODEL=fake/m1"
out=$($S2 raw-eval REPEAT=1 2>&1)
t_eq "exit" $? 0
T=results/compile-pipeline/set-two--scripted--fake_m1/traces/set-two/raw/test-001
t_eq "both injected" "$(jq -r '.skill.injected | join(" ")' $T/trial.json)" "csv-quote csv-sum"
t_eq "csv-sum invoked" "$(jq -r '.skill.invoked_names | join(" ")' $T/trial.json)" "csv-sum"
t_eq "csv-quote read" "$(jq -r '.skill.read_names | join(" ")' $T/trial.json)" "csv-quote"
t_contains "read from the agent's skills folder" "$(cat $T/raw/trajectory/acp_trajectory.jsonl)" 'Quotes CSV fields'
t_end
