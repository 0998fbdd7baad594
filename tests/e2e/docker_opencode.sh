#!/bin/sh
# docker_opencode.sh — the REAL opencode in an L2 image: a private Docker
# daemon (tests/lib.sh), the inventory-check task's L1 (its RUN step
# installs the verifier's tool), and the L2 built from opencode's "image"
# recipe in rules/harness/opencode.json (Debian's nodejs/npm, then npm
# install -g opencode-ai: the build reaches the Debian mirror and the npm
# registry, like CI). The agent runs in a --network none container; its
# model calls go over the relay to our loopback model server, which scripts
# a tool-calling conversation. The L2 is built in every run (no image tar
# is kept: in CI this file runs in the plain pass only, so nothing would
# load it). Skipped, saying why, without a daemon or the registries.
. "$(dirname "$0")/../lib.sh"

NAME="the real opencode in an L2 image, SANDBOX=docker: reads the skill, the RUN-steps task passes"
NET_NAME="the real opencode in a task that allows internet: the daemon's network, the loopback model through the relay"
# Plain pass only (docs/testing.md): what this adds is Docker and opencode themselves; the C
# paths it drives (a container trial, the relay, both networks, the harness over ACP) run under
# SANITIZE in docker.sh and local_opencode.sh, without minutes of vfs image copies
t_plain_only "docker.sh and local_opencode.sh run its C paths sanitized" "$NAME" "$NET_NAME" && exit 0
skip_all() { for n in "$NAME" "$NET_NAME"; do t_skip "$n" "$1"; done; exit 0; }
FAKELLM=$T_ROOT/build/tests/helpers/fakellm
J=$T_ROOT/build/tests/helpers/jget
t_dockerd || skip_all "$T_WHY"
t_docker_base debian debian:12-slim || skip_all "$T_WHY"
W=$T_TMP/work
mkdir -p "$W/tasks" && cp -R "$T_ROOT/tasks/inventory-check" "$W/tasks/" || exit 2
TASK=$W/tasks/inventory-check
# installing opencode from the npm registry into the L2 takes minutes on a loaded machine:
# the test is about the harness, not the build's speed, so its copy of the task allows more
sed -i 's/^build_timeout_sec = .*/build_timeout_sec = 1200/' "$TASK/task.toml" || exit 2
unset SANDBOX IMAGE HARNESS_PATH
# where TLS to the npm registry goes through an intercepting proxy, its CA is in the host's bundle
[ -n "${SKILLC_BUILD_CA:-}" ] || [ ! -f /etc/ssl/certs/ca-certificates.crt ] || export SKILLC_BUILD_CA=/etc/ssl/certs/ca-certificates.crt

cat >"$T_TMP/chat.json" <<'EOF'
{"chat": [
 {"tool_calls": [{"name": "read", "arguments": {"filePath": "/root/.opencode/skills/low-stock/SKILL.md"}}]},
 {"tool_calls": [{"name": "write", "arguments": {"filePath": "/root/low-stock.txt", "content": "B-220\nC-310\nE-512\nG-777\n"}}]},
 {"text": "I read the low-stock skill and wrote the four SKUs to /root/low-stock.txt."}
]}
EOF
# model_server N: a loopback model server playing chat.json once, its log llmN.jsonl,
# the routes to it routesN.json
model_server() {
	"$FAKELLM" --script "$T_TMP/chat.json" --log "$T_TMP/llm$1.jsonl" --port-file "$T_TMP/port$1" 2>"$T_TMP/fakellm$1.err" &
	T_PIDS="$T_PIDS $!"
	i=0
	while [ ! -s "$T_TMP/port$1" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
	printf '{"providers": {"fake": {"base_url": "http://127.0.0.1:%s/v1", "key_env": "FAKE_LLM_KEY"}}}\n' \
		"$(cat "$T_TMP/port$1")" >"$T_TMP/routes$1.json"
}
# opencode's start-up can pass BenchFlow's 60 s handshake on a loaded machine (seen at load 23):
# the test is about the harness, not how fast it starts (--agent-handshake-timeout)
model_server ""
KEY=sk-fake-$$-opencode-docker

t_begin "$NAME"
OUT=$(ROUTES=$T_TMP/routes.json FAKE_LLM_KEY=$KEY skillc-local eval run --tasks-dir "$TASK" --agent opencode \
	--model fake/qwen-test --sandbox docker --skill-mode with-skill --out "$T_TMP/jobs" \
	--config-override agent.timeout_sec=300 --agent-handshake-timeout 300 2>&1)
RC=$?
R=$T_TMP/jobs
if [ "$($J "$R/trial.json" error_category 2>/dev/null)" = environment_build ] &&
	grep -Eq "Temporary failure resolving|Could not resolve|ENOTFOUND|EAI_AGAIN|getaddrinfo" "$R/build.log"; then
	skip_all "the build cannot reach the Debian mirror or the npm registry: $(grep -Em1 'resolv|ENOTFOUND|EAI_AGAIN' "$R/build.log")"
fi
t_eq "exit status ($OUT)" "$RC" 0
A=$R/trajectory/acp_trajectory.jsonl
t_eq "reward" "$($J "$R/trial.json" reward)" 1
t_eq "agent_name" "$($J "$R/trial.json" agent_name)" OpenCode
t_contains "in the L2" "$($J "$R/trial.json" environment.image)" "skillc/l2-inventory-check--opencode:"
t_eq "the harness from the image" "$($J "$R/trial.json" local.harness_program)" /usr/local/bin/opencode
t_eq "no network but the model relay" "$($J "$R/trial.json" local.agent_network)" none+model-relay
t_eq "the skill was read" "$($J -l 2 "$A" title)" 'read {"filePath": "/root/.opencode/skills/low-stock/SKILL.md"}'
t_contains "the skill text came back" "$($J -l 2 "$A" content.0.content.text)" "strictly less than 5"
t_check "the verifier's tool from the RUN step judged it" grep -q "PASS: 4 SKUs" "$R/verifier/test-stdout.txt"
t_eq "model requests" "$($J -n "$T_TMP/llm.jsonl")" 3
t_eq "the key was sent" "$($J -l 1 "$T_TMP/llm.jsonl" auth.present)" true
t_check "no trial file holds the key" sh -c "! grep -r -q '$KEY' '$T_TMP/jobs'"
t_eq "no container left" "$(docker ps -aq --filter label=skillc.kind=trial)" ""
t_end

# the same task allowing internet: the agent keeps the daemon's network and still reaches
# the model on the host's loopback through the relay (a fresh server: the script is used up)
t_begin "$NET_NAME"
sed -i 's/^allow_internet = false/allow_internet = true/' "$TASK/task.toml" || exit 2
model_server 2
OUT=$(ROUTES=$T_TMP/routes2.json FAKE_LLM_KEY=$KEY skillc-local eval run --tasks-dir "$TASK" --agent opencode \
	--model fake/qwen-test --sandbox docker --skill-mode with-skill --out "$T_TMP/jobs2" \
	--config-override agent.timeout_sec=300 --agent-handshake-timeout 300 2>&1)
t_eq "exit status ($OUT)" $? 0
R2=$T_TMP/jobs2
t_eq "reward" "$($J "$R2/trial.json" reward)" 1
t_eq "the daemon's network and the model relay" "$($J "$R2/trial.json" local.agent_network)" default+model-relay
t_eq "model requests" "$($J -n "$T_TMP/llm2.jsonl")" 3
t_eq "no container left" "$(docker ps -aq --filter label=skillc.kind=trial)" ""
t_end
