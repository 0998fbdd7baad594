#!/bin/sh
# local_opencode.sh — the local runner with the REAL harness: opencode from
# npm (pinned) in the bubblewrap sandbox, talking over ACP, its model calls
# carried by the relay to our loopback model server (tests/helpers/fakellm),
# which scripts a tool-calling conversation: read the skill, write the
# answer. Skipped, saying why, only where npm is absent.
. "$(dirname "$0")/../lib.sh"

OPENCODE_VERSION=1.18.33
FAKELLM=$T_ROOT/build/tests/helpers/fakellm
J=$T_ROOT/build/tests/helpers/jget
TASK=$T_ROOT/tests/fixtures/tasks/answer-file

if [ ! -x "$FAKELLM" ]; then
	t_skip "local runner with the real opencode" "tests/helpers/fakellm is not built yet"
	exit 0
fi
# the pinned opencode: on PATH already, else installed once into build/
if [ "$(opencode --version 2>/dev/null)" != "$OPENCODE_VERSION" ]; then
	if ! command -v npm >/dev/null 2>&1; then
		t_skip "local runner with the real opencode" "npm is absent (install Node.js and npm to run opencode)"
		exit 0
	fi
	OC=$T_ROOT/build/opencode-$OPENCODE_VERSION
	if [ "$("$OC/node_modules/.bin/opencode" --version 2>/dev/null)" != "$OPENCODE_VERSION" ]; then
		mkdir -p "$OC"
		# a lock: parallel test runs share the folder
		flock "$OC/.lock" sh -c "[ \"\$('$OC/node_modules/.bin/opencode' --version 2>/dev/null)\" = $OPENCODE_VERSION ] ||
			npm install --prefix '$OC' --no-audit --no-fund opencode-ai@$OPENCODE_VERSION" >"$T_TMP/npm.log" 2>&1
	fi
	PATH=$OC/node_modules/.bin:$PATH
	export PATH
fi

# the model: read the skill, write the answer, say so
cat >"$T_TMP/chat.json" <<'EOF'
{"chat": [
 {"tool_calls": [{"name": "read", "arguments": {"filePath": "/root/.opencode/skills/answer-format/SKILL.md"}}]},
 {"tool_calls": [{"name": "write", "arguments": {"filePath": "/root/answer.txt", "content": "FORTY-TWO\n"}}]},
 {"text": "I read the answer-format skill and wrote FORTY-TWO to /root/answer.txt."}
]}
EOF
"$FAKELLM" --script "$T_TMP/chat.json" --log "$T_TMP/llm.jsonl" --port-file "$T_TMP/port" &
fake=$!
trap 'kill $fake 2>/dev/null; rm -rf "$T_TMP"' EXIT
t_poll 20 test -s "$T_TMP/port"
printf '{"providers": {"fake": {"base_url": "http://127.0.0.1:%s/v1", "key_env": "FAKE_LLM_KEY"}}}\n' \
	"$(cat "$T_TMP/port")" >"$T_TMP/routes.json"
KEY=sk-fake-$$-opencode

t_begin "opencode $OPENCODE_VERSION is installed (npm install -g opencode-ai@$OPENCODE_VERSION)"
t_eq "version" "$(opencode --version 2>&1)" "$OPENCODE_VERSION"
t_end

t_begin "real opencode over ACP in the sandbox: reads the skill, task passes"
# opencode's start-up can pass BenchFlow's 60 s handshake on a loaded machine (seen at load 23):
# the test is about the harness, not how fast it starts (--agent-handshake-timeout)
OUT=$(ROUTES=$T_TMP/routes.json FAKE_LLM_KEY=$KEY skillc-local eval run --tasks-dir "$TASK" --agent opencode \
	--model fake/qwen-test --sandbox local --skill-mode with-skill --out "$T_TMP/jobs" \
	--config-override agent.timeout_sec=300 --agent-handshake-timeout 300 2>&1)
t_eq "exit status ($OUT)" "$?" 0
R=$T_TMP/jobs
A=$R/trajectory/acp_trajectory.jsonl
t_eq "reward" "$($J "$R/trial.json" reward)" 1
t_eq "agent_name" "$($J "$R/trial.json" agent_name)" OpenCode
t_eq "no network but the model relay" "$($J "$R/trial.json" local.agent_network)" none+model-relay
t_eq "the skill was read" "$($J -l 2 "$A" title)" 'read {"filePath": "/root/.opencode/skills/answer-format/SKILL.md"}'
t_eq "read completed" "$($J -l 2 "$A" status)" completed
t_contains "the skill text came back" "$($J -l 2 "$A" content.0.content.text)" 'for 42 write `FORTY-TWO`'
t_eq "the answer was written" "$($J -l 3 "$A" kind)" edit
t_eq "final message" "$($J -l -1 "$A" text)" "I read the answer-format skill and wrote FORTY-TWO to /root/answer.txt."
t_eq "model requests" "$($J -n "$T_TMP/llm.jsonl")" 3
t_contains "skill in opencode's catalog" "$($J -l 1 "$T_TMP/llm.jsonl" body.messages.0.content)" "<name>answer-format</name>"
t_eq "the model saw our model id" "$($J -l 1 "$T_TMP/llm.jsonl" body.model)" qwen-test
t_eq "the key was sent" "$($J -l 1 "$T_TMP/llm.jsonl" auth.present)" true
t_check "no trial file holds the key" sh -c "! grep -r -q '$KEY' '$T_TMP/jobs'"
# a process the trial started may take a moment to go: 10 s, then it is a stray
strays() { pgrep -f "$T_TMP" | grep -v "^$fake\$"; }
no_strays() { [ -z "$(strays)" ]; }
t_poll 10 no_strays
strays=$(strays)
if [ -n "$strays" ]; then t_fail "stray processes: $(ps -o pid=,args= -p "$(echo $strays | tr ' ' ,)" | head -n 3)"; fi
t_end
