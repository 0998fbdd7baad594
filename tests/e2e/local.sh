#!/bin/sh
# local.sh — the local runner end to end: skillc-local runs the answer-file
# sample task in bubblewrap with our scripted ACP agent (tests/helpers/
# acpagent) as the harness, and every outcome lands in skillc's own trial
# record (trial.json, trajectory/, agent/, verifier/ in the --out folder).
. "$(dirname "$0")/../lib.sh"

TASK=$T_ROOT/tests/fixtures/tasks/answer-file
J=$T_ROOT/build/tests/helpers/jget
H=$T_TMP/harness
MARK=skillc-local-stray-$$
mkdir -p "$H"
cp "$T_ROOT/build/tests/helpers/acpagent" "$H/acpagent"
# the model route must answer: the runner refuses to start an agent whose
# model server is down (these scripted agents never ask it anything); its
# files live apart from $T_TMP, which no_strays looks for in command lines
LLMD=$(mktemp -d "${TMPDIR:-/tmp}/skillc-llm.XXXXXX")
t_fakellm "$LLMD" '{"chat": []}'
trap '[ -z "$T_PIDS" ] || kill $T_PIDS 2>/dev/null; rm -rf "$T_TMP" "$LLMD"' EXIT
LLM_URL=$FAKELLM_URL
printf '{"providers": {"fake": {"base_url": "%s"}}}\n' "$LLM_URL" >"$T_TMP/routes.json"
export ROUTES="$T_TMP/routes.json" HARNESS_PATH="$H"
unset SANDBOX KEEP_SANDBOX

# script NAME JSON-STEPS [extra top-level JSON]: an agent script + its harness file
script() {
	printf '{"agent_name": "Scripted", "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120}, "steps": %s%s}\n' \
		"$2" "${3:+, $3}" >"$H/$1.script.json"
	printf '{"acp_command": ["%s/acpagent", "%s/%s.script.json"], "skill_paths": ["~/.opencode/skills"]}\n' \
		"$H" "$H" "$1" >"$H/$1.json"
}

# run NAME [flags...]: one trial into $T_TMP/jobs-NAME; sets RC, OUT (stderr), R (that folder)
run() {
	name=$1
	shift
	jobs=$T_TMP/jobs-$name
	OUT=$(skillc-local eval run --tasks-dir "$TASK" --agent "$name" --model fake/m1 --sandbox local \
		--skill-mode with-skill --out "$jobs" --agent-idle-timeout none "$@" 2>&1)
	RC=$?
	R=$jobs
}

# nothing of a trial may outlive it: no process names our files or the marker
# (a killed process may take a moment to go: give it 10 s, not 300)
strays_gone() { ! pgrep -f "$T_TMP" >/dev/null && ! pgrep -f "$MARK" >/dev/null; }
no_strays() {
	if ! t_poll 10 strays_gone; then
		t_fail "stray processes: $(pgrep -af "$T_TMP|$MARK" | head -n 3)"
		pkill -9 -f "$MARK" 2>/dev/null
	fi
}

t_begin "bubblewrap is installed (apt-get install -y bubblewrap)"
t_check "bwrap in PATH" command -v bwrap
t_end

WRITE_OK='{"write": {"path": "/root/answer.txt", "content": "FORTY-TWO\n"}}'

t_begin "passing trial: our own record, reward 1.0, skill invoked"
script pass "[{\"thought\": \"Read the skill first.\"}, {\"skill\": \"answer-format\"},
	{\"read\": \"/root/data/question.txt\"}, {\"permission\": \"write the answer\"}, $WRITE_OK,
	{\"message\": \"Wrote the answer.\"}]"
run pass
t_eq "exit status" "$RC" 0
t_check "trial.json" test -f "$R/trial.json"
t_eq "no other tool's files" "$(ls "$R" | tr '\n' ' ')" "agent artifacts trajectory trial.json verifier "
t_eq "schema" "$($J "$R/trial.json" schema)" local
t_eq "outcome" "$($J "$R/trial.json" outcome)" passed
t_eq "passed" "$($J "$R/trial.json" passed)" true
t_check "reward.txt" test -f "$R/verifier/reward.txt"
t_check "test output kept" grep -q "answer: 'FORTY-TWO'" "$R/verifier/test-stdout.txt"
t_check "reward written as a float" grep -q '"reward": 1.0' "$R/trial.json"
t_contains "rollout name" "$($J "$R/trial.json" rollout)" "answer-file__"
PASS_ROLLOUT=$($J "$R/trial.json" rollout)
t_eq "agent_name from initialize" "$($J "$R/trial.json" agent_name)" "Scripted"
t_eq "skill_source" "$($J "$R/trial.json" local.skill_source)" "task_bundled"
t_eq "n_skill_invocations" "$($J "$R/trial.json" skill_invocations)" 1
t_eq "n_tool_calls" "$($J "$R/trial.json" tool_calls)" 4
t_eq "tokens from the prompt response" "$($J "$R/trial.json" tokens.total)" 120
t_eq "error" "$($J "$R/trial.json" error)" null
A=$R/trajectory/acp_trajectory.jsonl
t_eq "trajectory lines" "$($J -n "$A")" 7
t_eq "first line" "$($J -l 1 "$A" type)" user_message
t_eq "thought chunks merged" "$($J -l 2 "$A" text)" "Read the skill first."
t_eq "skill call kind" "$($J -l 3 "$A" kind)" skill
t_eq "skill call title" "$($J -l 3 "$A" title)" 'skill {"name": "answer-format"}'
t_contains "skill content" "$($J -l 3 "$A" content.0.content.text)" '<skill_content name="answer-format">'
t_eq "read title repaired" "$($J -l 4 "$A" title)" 'read {"filePath": "/root/data/question.txt"}'
t_eq "permission allowed" "$($J -l 5 "$A" content.0.content.text)" "permission: always"
t_eq "message chunks merged" "$($J -l 7 "$A" text)" "Wrote the answer."
t_check "python-style separators" grep -q '^{"type": "user_message", "text": ' "$A"
t_eq "no newline after the last line" "$(tail -c 1 "$A" | od -An -c | tr -d ' ')" "}"
t_check "agent stderr kept" grep -q "acpagent: started" "$R/agent/pass.txt"
t_check "sandbox folder removed" test ! -e "$T_TMP/jobs-pass/.skillc-local"
no_strays
t_end

t_begin "the model key reaches the agent by environment only, never a file"
printf '{"providers": {"keyed": {"base_url": "%s", "key_env": "SKILLC_TEST_KEY"}}}\n' "$LLM_URL" >"$T_TMP/routes-key.json"
script keyed "[{\"exec\": \"echo key=\$SKILLC_MODEL_API_KEY; env | grep -c SKILLC_TEST_KEY; echo \$SKILLC_MODEL_API_KEY >/logs/artifacts/leak; touch /logs/artifacts/name-\$SKILLC_MODEL_API_KEY; mkdir /logs/artifacts/dir-\$SKILLC_MODEL_API_KEY; echo \$SKILLC_MODEL_API_KEY >&2\"}, $WRITE_OK]"
OUT=$(ROUTES=$T_TMP/routes-key.json SKILLC_TEST_KEY=sk-test-$$-secret skillc-local eval run --tasks-dir "$TASK" \
	--agent keyed --model keyed/m1 --skill-mode with-skill --out "$T_TMP/jobs-keyed" 2>&1)
t_eq "exit status" "$?" 0
R=$T_TMP/jobs-keyed
t_eq "agent saw the key under the harness's name only; output redacted" "$($J -l 2 "$R/trajectory/acp_trajectory.jsonl" content.0.content.text)" "key=***REDACTED***
0"
t_check "no file holds the key" sh -c "! grep -r -q sk-test-$$-secret '$T_TMP/jobs-keyed'"
t_eq "no file name holds the key" "$(find "$T_TMP/jobs-keyed" -name "*sk-test-$$-secret*")" ""
t_check "the named file is kept, redacted" test -f "$R/artifacts/name-***REDACTED***"
t_check "no command line holds it" sh -c "! grep -q sk-test-$$-secret '$R/trial.json'"
out=$(ROUTES=$T_TMP/routes-key.json env -u SKILLC_TEST_KEY ENV_FILE=$T_TMP/absent.env skillc-local eval run --tasks-dir "$TASK" \
	--agent keyed --model keyed/m1 --out "$T_TMP/jobs-nokey" 2>&1)
t_eq "missing key" "$?:$out" "2:skillc-local: SKILLC_TEST_KEY required for model 'keyed/m1' but not set (export it or put it in ENV_FILE)"
printf 'SKILLC_TEST_KEY="sk-test-%s-secret"\n' $$ >"$T_TMP/test.env"
OUT=$(ROUTES=$T_TMP/routes-key.json ENV_FILE=$T_TMP/test.env env -u SKILLC_TEST_KEY skillc-local eval run --tasks-dir "$TASK" \
	--agent keyed --model keyed/m1 --skill-mode with-skill --out "$T_TMP/jobs-envfile" 2>&1)
t_eq "key from ENV_FILE" "$?" 0
R=$T_TMP/jobs-envfile
t_eq "agent saw the key from ENV_FILE" "$($J -l 2 "$R/trajectory/acp_trajectory.jsonl" content.0.content.text)" "key=***REDACTED***
0"
t_check "no file holds the key" sh -c "! grep -r -q sk-test-$$-secret '$T_TMP/jobs-envfile'"
no_strays
t_end

t_begin "failing trial: reward 0.0, exit 0 like bench"
script fail '[{"write": {"path": "/root/answer.txt", "content": "42\n"}}, {"message": "done"}]'
run fail
t_eq "exit status" "$RC" 0
t_check "reward 0.0" grep -q '"reward": 0.0' "$R/trial.json"
t_eq "outcome failed" "$($J "$R/trial.json" outcome)" failed
t_eq "error" "$($J "$R/trial.json" error)" null
t_eq "the Dockerfile's RUN step was not reproduced" "$($J "$R/trial.json" environment.reproduced)" false
t_eq "and is named" "$($J "$R/trial.json" environment.not_reproduced)" '["RUN"]'
no_strays
t_end

t_begin "a failure the missing environment explains: environment_not_reproduced, not failed"
script lacking '[{"exec": "grep-the-task-installs --version 2>&1"}, {"write": {"path": "/root/answer.txt", "content": "?\n"}}]'
run lacking
t_eq "exit status" "$RC" 1
t_eq "error_category" "$($J "$R/trial.json" error_category)" environment_not_reproduced
t_contains "quotes the sign" "$($J "$R/trial.json" error)" "a tool call of the agent said: sh: 1: grep-the-task-installs: not found"
t_eq "no reward counted" "$($J "$R/trial.json" rewards)" null
t_eq "an infra error, not failed" "$($J "$R/trial.json" outcome)" infra_error
t_end

t_begin "agent timeout: agent_timeout line, verifier still runs, no strays"
script hang "[{\"spawn\": \"sleep 300; echo $MARK\"}, {\"message\": \"thinking\"}, {\"hang\": true}]"
start=$(date +%s)
run hang --config-override agent.timeout_sec=2
took=$(( $(date +%s) - start ))
t_eq "exit status (scored)" "$RC" 0
t_eq "error_category" "$($J "$R/trial.json" error_category)" timeout
t_eq "error" "$($J "$R/trial.json" error)" "Agent prompt exceeded wall-clock budget 2s"
t_eq "reward" "$($J "$R/trial.json" rewards.reward)" 0
t_eq "last line" "$($J -l -1 "$R/trajectory/acp_trajectory.jsonl" type)" agent_timeout
t_eq "timeout line reason" "$($J -l -1 "$R/trajectory/acp_trajectory.jsonl" reason)" wall_clock_timeout
t_eq "agent_timeout_info" "$($J "$R/trial.json" error_info.agent_timeout.reason)" wall_clock_timeout
t_eq "partial trajectory" "$($J "$R/trial.json" partial_trajectory)" true
t_eq "override recorded" "$($J "$R/trial.json" local.config_override.agent.timeout_sec)" 2
t_check "verifier ran" test -f "$R/verifier/reward.txt"
t_check "ended within 12 s (took ${took}s)" test "$took" -le 12
no_strays
t_end

t_begin "agent timeout and no reward file: reward 0.0 (BenchFlow's rule, the verifier's word)"
script hang0 '[{"exec": "touch /root/no-reward"}, {"hang": true}]'
run hang0 --config-override agent.timeout_sec=2
t_eq "exit status (scored)" "$RC" 0
t_eq "error_category" "$($J "$R/trial.json" error_category)" timeout
t_check "no reward file" test ! -e "$R/verifier/reward.txt"
t_eq "reward" "$($J "$R/trial.json" rewards.reward)" 0
t_eq "verifier_error" "$($J "$R/trial.json" verifier_error)" null
no_strays
t_end

t_begin "no reward file without a timeout: a verifier_failure"
script noreward '[{"exec": "touch /root/no-reward"}]'
run noreward
t_eq "exit status" "$RC" 1
t_eq "verifier_error_category" "$($J "$R/trial.json" verifier_error_category)" verifier_failure
t_contains "verifier_error" "$($J "$R/trial.json" verifier_error)" "verifier exited with rc=3; no reward file"
t_end

t_begin "a verifier whose installer reached no network: verifier_setup, not failed"
# SkillsBench's test.sh: install uv over the network, run the tests with uvx, reward 0 when they fail
SETUP=$T_TMP/tasks/setup-fails
mkdir -p "$T_TMP/tasks" && cp -R "$TASK" "$SETUP"
printf 'FROM debian:bookworm-slim\nWORKDIR /root\nCOPY data /root/data\n' >"$SETUP/environment/Dockerfile"
cat >"$SETUP/tests/test.sh" <<'EOF2'
#!/bin/bash
mkdir -p /logs/verifier
curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh
source $HOME/.local/bin/env
uvx --with pytest==8.4.1 pytest /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
EOF2
script setup "[$WRITE_OK]"
OUT=$(skillc-local eval run --tasks-dir "$SETUP" --agent setup --model fake/m1 --sandbox local --skill-mode with-skill \
	--out "$T_TMP/jobs-setup" --agent-idle-timeout none 2>&1)
RC=$?
R=$T_TMP/jobs-setup
t_eq "exit status: errored" "$RC" 1
t_eq "environment reproduced (no RUN step)" "$($J "$R/trial.json" environment.reproduced)" true
t_eq "error_category" "$($J "$R/trial.json" error_category)" verifier_setup
t_contains "quotes the installer" "$($J "$R/trial.json" error)" "the verifier could not set itself up: curl: (6) Could not resolve host: astral.sh"
t_eq "no reward counted" "$($J "$R/trial.json" rewards)" null
t_eq "an infra error, not failed" "$($J "$R/trial.json" outcome)" infra_error
t_contains "the console line says why" "$OUT" "setup-fails errored (verifier_setup: the verifier could not set itself up: curl: (6)"
t_end

t_begin "agent crash: pipe_closed, no reward, exit 1"
script crash '[{"message": "about to fail"}, {"crash": 3}]'
run crash
t_eq "exit status" "$RC" 1
t_eq "error_category" "$($J "$R/trial.json" error_category)" pipe_closed
t_eq "rewards" "$($J "$R/trial.json" rewards)" null
t_eq "exit code recorded" "$($J "$R/trial.json" error_info.transport.process_exit_code)" 3
t_contains "error" "$($J "$R/trial.json" error)" "exit code 3"
t_eq "what it said is kept" "$($J -l -1 "$R/trajectory/acp_trajectory.jsonl" text)" "about to fail"
t_eq "an infra error" "$($J "$R/trial.json" outcome)" infra_error
t_contains "one-line report" "$OUT" "answer-file errored (pipe_closed"
no_strays
t_end

t_begin "agent closes its stdout and hangs: pipe_closed, process group ended"
script closer "[{\"spawn\": \"sleep 300; echo $MARK\"}, {\"close_stdout\": true}]"
run closer
t_eq "exit status" "$RC" 1
t_eq "error_category" "$($J "$R/trial.json" error_category)" pipe_closed
no_strays
t_end

t_begin "garbage on stdout is survived; a flood of it is an acp_error"
script noisy "[{\"garbage\": \"Loading plugins...\"}, $WRITE_OK, {\"message\": \"ok\"}]"
run noisy
t_eq "tolerated: exit status" "$RC" 0
t_eq "tolerated: reward" "$($J "$R/trial.json" rewards.reward)" 1
t_check "noted in the agent log" grep -q "not JSON-RPC on stdout: Loading plugins" "$R/agent/noisy.txt"
script flood '[]' '"init": "garbage"'
run flood
t_eq "flood: exit status" "$RC" 1
t_eq "flood: error_category" "$($J "$R/trial.json" error_category)" acp_error
t_contains "flood: error" "$($J "$R/trial.json" error)" "not JSON-RPC"
no_strays
t_end

t_begin "handshake that never answers ends at the agent's time limit"
script mute '[]' '"init": "hang"'
run mute --config-override '{"agent": {"timeout_sec": 2}}'
t_eq "exit status" "$RC" 1
t_eq "error" "$($J "$R/trial.json" error)" "ACP handshake timed out after 2s"
t_eq "error_category" "$($J "$R/trial.json" error_category)" acp_error
no_strays
t_end

t_begin "--agent-handshake-timeout: a handshake that never answers ends then, within the time limit"
rm -rf "$T_TMP/jobs-mute"
run mute --config-override '{"agent": {"timeout_sec": 600}}' --agent-handshake-timeout 1
t_eq "exit status" "$RC" 1
t_eq "error" "$($J "$R/trial.json" error)" "ACP handshake timed out after 1s"
t_eq "error_category" "$($J "$R/trial.json" error_category)" acp_error
rm -rf "$T_TMP/jobs-mute"
run mute --config-override '{"agent": {"timeout_sec": 1}}' --agent-handshake-timeout 120
t_eq "never past the time limit" "$($J "$R/trial.json" error)" "ACP handshake timed out after 1s"
no_strays
t_end

t_begin "verifier timeout: verifier_error, no reward"
script slow '[{"write": {"path": "/root/answer.txt", "content": "SLOW\n"}}]'
run slow --config-override verifier.timeout_sec=1
t_eq "exit status" "$RC" 1
t_eq "verifier_error_category" "$($J "$R/trial.json" verifier_error_category)" verifier_timeout
t_eq "verifier_error" "$($J "$R/trial.json" verifier_error)" "verifier timed out after 1s"
t_eq "rewards" "$($J "$R/trial.json" rewards)" null
t_eq "outcome" "$($J "$R/trial.json" outcome)" verifier_error
no_strays
t_end

t_begin "SIGTERM during the agent: trial left incomplete, sandbox and processes gone"
script term "[{\"spawn\": \"sleep 300; echo $MARK\"}, {\"hang\": true}]"
skillc-local eval run --tasks-dir "$TASK" --agent term --model fake/m1 --skill-mode with-skill \
	--out "$T_TMP/jobs-term" >"$T_TMP/term.out" 2>&1 &
pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	pgrep -f "$MARK" >/dev/null && break
	sleep 0.2
done
kill -TERM $pid
wait $pid
t_eq "exit status" "$?" 143
t_contains "says so" "$(cat "$T_TMP/term.out")" "interrupted by signal 15; the trial in"
t_check "no trial.json" test ! -e "$T_TMP/jobs-term/trial.json"
t_check "sandbox folder removed" test ! -e "$T_TMP/jobs-term/.skillc-local"
no_strays
t_end

t_begin "three trials at once (REPEAT=3 under make -j3), each its own jobs dir"
pids=
for i in 1 2 3; do
	skillc-local eval run --tasks-dir "$TASK" --agent pass --model fake/m1 --skill-mode with-skill \
		--out "$T_TMP/jobs-par-$i" >/dev/null 2>&1 &
	pids="$pids $!"
done
wait $pids
n=0
for i in 1 2 3; do
	[ "$($J "$T_TMP/jobs-par-$i/trial.json" outcome)" = passed ] && n=$((n + 1))
done
t_eq "passed" "$n" 3
no_strays
t_end

t_begin "sandbox escape: home, another trial, the project tree stay untouched"
OTHER=$T_TMP/jobs-pass
# the agent's home is /root in the sandbox whatever $HOME says here (a CI
# job's HOME can be anywhere): a write there stays in the sandbox. The
# caller's own $HOME, which the sandbox does not have, is tried last.
AGENTHOME=/root
CALLERHOME=${HOME:-/root}
ESC=escape-$$
script escape "[
	{\"write\": {\"path\": \"$AGENTHOME/$ESC\", \"content\": \"x\"}},
	{\"write\": {\"path\": \"$OTHER/$ESC\", \"content\": \"x\"}},
	{\"write\": {\"path\": \"$T_ROOT/$ESC\", \"content\": \"x\"}},
	{\"exec\": \"touch $T_ROOT/$ESC-exec $OTHER/$ESC-exec /usr/$ESC /etc/$ESC 2>&1; ls $T_ROOT $OTHER 2>&1 | head -n 2\"},
	{\"exec\": \"ln -s $T_ROOT /root/out; ln -s $OTHER /logs/agent/out; echo linked\"},
	{\"fs_write\": {\"path\": \"/root/out/$ESC-fs\", \"content\": \"x\"}},
	{\"fs_write\": {\"path\": \"/logs/agent/../../../$T_ROOT/$ESC-fs2\", \"content\": \"x\"}},
	{\"fs_write\": {\"path\": \"/logs/verifier/reward.txt\", \"content\": \"1\"}},
	{\"fs_read\": \"/etc/shadow\"},
	{\"exec\": \"cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; wc -c </etc/shadow\"},
	{\"fs_write\": {\"path\": \"/root/answer.txt\", \"content\": \"42\n\"}},
	{\"fs_read\": \"/root/answer.txt\"},
	{\"write\": {\"path\": \"$CALLERHOME/$ESC-home\", \"content\": \"x\"}}]"
run escape
t_eq "trial completed, scored" "$RC" 0
t_eq "its outcome" "$($J "$R/trial.json" rewards.reward)" 0
t_check "host /root untouched" test ! -e "$AGENTHOME/$ESC"
t_check "the caller's home untouched" test ! -e "$CALLERHOME/$ESC-home"
t_check "other trial untouched" test ! -e "$OTHER/$ESC"
t_check "other trial untouched (exec)" test ! -e "$OTHER/$ESC-exec"
t_check "project tree untouched" test ! -e "$T_ROOT/$ESC"
t_check "project tree untouched (exec)" test ! -e "$T_ROOT/$ESC-exec"
t_check "project tree untouched (fs via link)" test ! -e "$T_ROOT/$ESC-fs"
t_check "project tree untouched (fs via ..)" test ! -e "$T_ROOT/$ESC-fs2"
t_check "host /usr untouched" test ! -e "/usr/$ESC"
A=$R/trajectory/acp_trajectory.jsonl
t_eq "write to home stayed in the sandbox" "$($J -l 2 "$A" status)" completed
t_eq "write to the other trial failed" "$($J -l 3 "$A" status)" failed
t_eq "write to the project failed" "$($J -l 4 "$A" status)" failed
t_contains "exec saw neither" "$($J -l 5 "$A" content.0.content.text)" "No such file or directory"
t_eq "fs write through a link refused" "$($J -l 7 "$A" status)" failed
t_eq "fs write through .. refused" "$($J -l 8 "$A" status)" failed
t_eq "planted reward did not count" "$(cat "$R/verifier/reward.txt")" 0
t_eq "fs read outside the binds refused" "$($J -l 10 "$A" status)" failed
t_eq "loopback only, shadow masked" "$($J -l 11 "$A" content.0.content.text)" "lo
0"
t_eq "fs write inside the sandbox works" "$($J -l 13 "$A" content.0.content.text)" "42"
t_check "planted links removed" test ! -e "$R/agent/out" -a ! -L "$R/agent/out"
no_strays
t_end

t_begin "no-skill: no /skills, no skill folder, recorded as such"
script noskill '[{"skill": "answer-format"}, {"exec": "ls /skills 2>&1; ls /root/.claude 2>&1"}]'
run noskill --skill-mode no-skill
t_eq "exit status" "$RC" 0
t_eq "skill_source" "$($J "$R/trial.json" local.skill_source)" none
t_eq "skills_sandbox_dir" "$($J "$R/trial.json" local.skills_sandbox_dir)" null
t_eq "skill not found" "$($J -l 2 "$R/trajectory/acp_trajectory.jsonl" status)" failed
t_contains "Dockerfile COPY skills dropped" "$($J -l 3 "$R/trajectory/acp_trajectory.jsonl" content.0.content.text)" "No such file"
no_strays
t_end

t_begin "--skills-dir: only our skill is mounted"
mkdir -p "$T_TMP/ours/answer-format"
printf -- '---\nname: answer-format\ndescription: Our compiled variant. Use when answering.\n---\nSay FORTY-TWO.\n' \
	>"$T_TMP/ours/answer-format/SKILL.md"
script custom '[{"skill": "answer-format"}]'
run custom --skills-dir "$T_TMP/ours"
t_eq "skill_source" "$($J "$R/trial.json" local.skill_source)" custom_runtime
t_eq "requested_skills_dir" "$($J "$R/trial.json" local.requested_skills_dir)" "$T_TMP/ours"
t_contains "our text was read" "$($J -l 2 "$R/trajectory/acp_trajectory.jsonl" content.0.content.text)" "Our compiled variant"
t_end

t_begin "preflight: a program the host lacks is named, no agent runs"
script pre "[$WRITE_OK]"
run pre --config-override 'metadata.required_programs=["sh", "no-such-program-xyz"]'
t_eq "exit status" "$RC" 1
t_eq "error_category" "$($J "$R/trial.json" error_category)" sandbox_setup
t_contains "names the program" "$($J "$R/trial.json" error)" "task needs programs this host lacks: no-such-program-xyz"
t_eq "no agent ran" "$($J "$R/trial.json" prompts)" 0
t_end

t_begin "a model server that is down: an infra error at once, no agent started"
printf '{"providers": {"fake": {"base_url": "http://127.0.0.1:9/v1"}}}\n' >"$T_TMP/routes-down.json"
script down "[$WRITE_OK]"
start=$(date +%s)
ROUTES=$T_TMP/routes-down.json run down
t_eq "exit status" "$RC" 1
[ $(( $(date +%s) - start )) -lt 20 ] || t_fail "waited for the agent's time limit"
t_eq "error_category" "$($J "$R/trial.json" error_category)" model_unreachable
t_contains "says why" "$($J "$R/trial.json" error)" "model route 'fake' (http://127.0.0.1:9/v1) is unreachable"
t_eq "no reward" "$($J "$R/trial.json" rewards)" null
t_eq "no agent ran" "$($J "$R/trial.json" prompts)" 0
t_end

t_begin "refuses without bubblewrap unless SANDBOX=none, saying how to install it"
mkdir -p "$T_TMP/nobwrap"
out=$(PATH=$T_TMP/nobwrap "$T_ROOT/bin/skillc-local" eval run --tasks-dir "$TASK" --agent pass --model fake/m1 \
	--out "$T_TMP/jobs-nobwrap" 2>&1)
t_eq "exit status" "$?" 1
t_eq "message" "$out" "skillc-local: bubblewrap (bwrap) is not installed: install it with apt-get install -y bubblewrap, or set SANDBOX=none to run agents unsandboxed (they could then read your files and keys and write anywhere you can)"
t_check "nothing written" test ! -e "$T_TMP/jobs-nobwrap"
t_end

# SANDBOX=none writes the task's real paths, so only as root, and inside a
# private mount namespace whose /root is a scratch tmpfs
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null && [ ! -e /logs ]; then
	t_begin "SANDBOX=none: opt-in by name, warns, runs on the host paths, cleans its links"
	out=$(unshare -m --propagation private sh -c "mount -t tmpfs none /root &&
		SANDBOX=none skillc-local eval run --tasks-dir '$TASK' --agent pass --model fake/m1 \
		--skill-mode with-skill --out '$T_TMP/jobs-none' 2>&1; echo rc=\$?; cat /root/answer.txt")
	t_contains "warning" "$out" "SANDBOX=none: running the agent and the verifier UNSANDBOXED on this machine"
	t_contains "passed" "$out" "answer-file passed, reward 1"
	t_contains "exit status" "$out" "rc=0"
	t_contains "wrote the real /root" "$out" "FORTY-TWO"
	t_check "links removed" test ! -e /logs -a ! -e /skills -a ! -e /tests
	R=$T_TMP/jobs-none
	t_eq "recorded" "$($J "$R/trial.json" local.sandbox)" none
	no_strays
	t_end
else
	t_skip "SANDBOX=none: opt-in by name, warns, runs on the host paths, cleans its links" "needs root and unshare, and no /logs on this host"
fi

t_begin "bad usage and bad input exit 2 with one line"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent pass 2>&1)
t_eq "missing flags" "$?:$out" "2:skillc-local: --tasks-dir, --agent, --model and --out are required (see --help)"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent nosuch --model fake/m1 --out "$T_TMP/j2" 2>&1)
t_eq "unknown harness status" "$?" 2
t_contains "unknown harness" "$out" "no harness file nosuch.json in $H"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent pass --model other/m1 --out "$T_TMP/j2" 2>&1)
t_eq "no route" "$?:$out" "2:skillc-local: unknown provider 'other' in model 'other/m1': add it to routes '$T_TMP/routes.json' (known: fake)"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent pass --model fake/m1 --out "$T_TMP/j2" --sandbox daytona 2>&1)
t_eq "other sandbox" "$?:$out" "2:skillc-local: --sandbox wants local, docker or podman, not 'daytona'"
out=$(skillc-local eval run --tasks-dir="$TASK" --agent=pass --model=fake/m1 --out="$T_TMP/j2" --agent-env=X 2>&1)
t_eq "--x=v works; a bad --agent-env" "$?:$out" "2:skillc-local: --agent-env 'X': give KEY=VALUE"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent pass --model fake/m1 --out "$T_TMP/j2" --bogus 2>&1)
t_eq "an unknown option" "$?:$out" "2:skillc-local: unknown option '--bogus' (see --help)"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent pass --model fake/m1 --out "$T_TMP/j2" --image x:1 2>&1)
t_eq "--image without a container" "$?:$out" "2:skillc-local: --image is for a container sandbox (--sandbox docker|podman or SANDBOX=docker|podman)"
t_check "nothing written" test ! -e "$T_TMP/j2"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent pass --model fake/m1 --out "$T_TMP/j3" \
	--skill-mode with-skill --skills-dir "$T_TMP/no-such-root" 2>&1)
t_eq "missing skills root" "$?:$out" "2:skillc-local: $TASK: --skill-mode with-skill but --skills-dir is not a folder"
t_check "nothing left" test ! -e "$T_TMP/j3"
t_end

t_begin "a folder with a scored record is not run again; another non-empty one is refused"
run pass --out "$T_TMP/jobs-pass"
t_eq "exit status" "$RC" 0
t_contains "says so" "$OUT" "already has a result"
t_eq "the record is the same" "$($J "$R/trial.json" rollout)" "$PASS_ROLLOUT"
out=$(skillc-local eval run --tasks-dir "$TASK" --agent pass --model fake/m1 --out "$T_TMP/jobs-term" 2>&1)
t_eq "unfinished folder refused" "$?" 2
t_contains "says what to do" "$out" "give --out a new or empty folder"
t_end
