#!/bin/sh
# End-to-end: `make doctor` checks what the goal and the settings need and
# no more (issue 10.3), and a harness that cannot run says why in the one
# failure line of its trial (issue 10.4).
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work H=$T_TMP/harness F=$T_TMP/fake
mkdir -p "$W" "$H" "$F" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
t_fakellm "$T_TMP/llm" '{"models": [{"models": ["m1"]}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >routes.json
# a harness the local runner can start (the scripted ACP agent), and one
# whose program is missing
printf '{"acp_command": ["%s"], "skill_paths": ["~/.opencode/skills"]}\n' \
	"$T_ROOT/build/tests/helpers/acpagent" >"$H/scripted.json"
printf '{"acp_command": ["no-such-agent-x", "acp"], "install": "npm install -g no-such-agent-x"}\n' >"$H/gone.json"
export HARNESS_PATH=$H ROUTES=$W/routes.json
unset SANDBOX RM_API_URL EXTERNAL_MODEL
# PATH without bench or harbor, but with what the tools need
P=$T_BIN:/usr/local/bin:/usr/bin:/bin
doctor() { env PATH="$P" "$@" skillc-doctor ${GOAL:-}; }
has_bwrap=$(command -v bwrap || true)

t_begin "deterministic eval with the local runner: models, runner, harness, sandbox, launcher; no EXTERNAL_MODEL"
out=$(GOAL=eval doctor MODEL=fake/m1 HARNESS=scripted RUNNER=local)
rc=$?
t_contains "the goal said" "$out" "checking what make eval needs (RUNNER=local HARNESS=scripted STATIC_MODE=deterministic)"
t_contains "launcher" "$out" "ok      LAUNCHER: local: stages run on this machine"
t_contains "MODEL routed for the agents" "$out" "ok      MODEL: fake/m1: no key needed, listed by the provider"
t_contains "runner" "$out" "ok      RUNNER: local: \`skillc-local\` found"
t_contains "harness program" "$out" "ok      HARNESS: scripted: $H/scripted.json, started as $T_ROOT/build/tests/helpers/acpagent"
case $out in *EXTERNAL_MODEL*) t_fail "EXTERNAL_MODEL checked in deterministic mode: $out" ;; esac
if [ -n "$has_bwrap" ]; then
	t_contains "sandbox" "$out" "ok      SANDBOX: bwrap: $has_bwrap starts a sandbox"
	t_eq "exit (output: $out)" $rc 0
else
	t_contains "sandbox" "$out" "problem SANDBOX: bubblewrap (bwrap) is not installed"
fi
t_end

t_begin "GOAL=static needs only MODEL, named; GOAL=ingest needs nothing"
out=$(GOAL=static doctor MODEL=fake/m1 HARNESS=gone)
t_eq "exit (output: $out)" $? 0
t_contains "named" "$out" "ok      MODEL: fake/m1 (make static names it but calls no model)"
case $out in *" HARNESS:"*|*" RUNNER:"*|*" SANDBOX:"*|*" ROUTES:"*) t_fail "checked more than static needs: $out" ;; esac
out=$(GOAL=ingest doctor)
t_eq "ingest exit (output: $out)" $? 0
t_contains "nothing to check" "$out" "all good (0 checks)"
t_end

t_begin "TRACES: a goal whose only trials are imported does not check the runner; fast-eval does"
mkdir -p traces-in
out=$(GOAL=fast-score doctor MODEL=fake/m1 HARNESS=gone RUNNER=benchflow TRACES=$W/traces-in)
t_eq "exit (output: $out)" $? 0
case $out in *" RUNNER:"*|*" HARNESS:"*) t_fail "checked the runner of imported trials: $out" ;; esac
out=$(GOAL=fast-score doctor MODEL=fake/m1 HARNESS=gone RUNNER=benchflow)
t_contains "without TRACES the runner is checked" "$out" "RUNNER: RUNNER=benchflow needs"
t_end

t_begin "STATIC_MODE=hybrid needs EXTERNAL_MODEL; an unknown goal is bad usage"
out=$(GOAL=static doctor MODEL=fake/m1 STATIC_MODE=hybrid)
t_eq "exit" $? 1
t_contains "needed" "$out" "problem EXTERNAL_MODEL: not set, and make static needs it"
out=$(GOAL=static doctor MODEL=fake/m1 STATIC_MODE=hybrid EXTERNAL_MODEL=fake/m1)
t_eq "set: exit (output: $out)" $? 0
t_contains "probed" "$out" "ok      EXTERNAL_MODEL: fake/m1: no key needed, listed by the provider"
out=$(GOAL=deeper doctor 2>&1)
t_eq "bad goal exit" $? 2
t_contains "bad goal" "$out" "unknown goal 'deeper'"
t_end

t_begin "RUNNER=benchflow or harbor: the runner's program, MODEL passed on, the harness's agent name"
out=$(doctor MODEL=anthropic/claude-x RUNNER=benchflow HARNESS=claude-agent-acp)
t_eq "exit" $? 1
t_contains "bench missing" "$out" "problem RUNNER: RUNNER=benchflow needs the \`bench\` command, which is not on PATH: install it with \`uv tool install --python 3.12 benchflow\`"
t_contains "MODEL not routed" "$out" "ok      MODEL: anthropic/claude-x (given to RUNNER=benchflow, which reaches the model itself)"
t_contains "agent name" "$out" "ok      HARNESS: claude-agent-acp: $T_ROOT/rules/harness/claude-agent-acp.json; benchflow installs agent 'claude-agent-acp'"
out=$(doctor MODEL=anthropic/claude-x RUNNER=harbor)
t_contains "harbor missing" "$out" "problem RUNNER: RUNNER=harbor needs the \`harbor\` command"
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" "$F/bench"
out=$(P=$F:$P doctor MODEL=anthropic/claude-x RUNNER=benchflow)
t_contains "bench found" "$out" "ok      RUNNER: benchflow: \`bench\` found"
t_end

t_begin "RUNNER=local: a harness without acp_command, and one whose program is missing, say what to do"
out=$(doctor MODEL=fake/m1 RUNNER=local HARNESS=claude-agent-acp)
t_eq "exit" $? 1
t_contains "no acp_command" "$out" "problem HARNESS: harness 'claude-agent-acp' cannot run with RUNNER=local: $T_ROOT/rules/harness/claude-agent-acp.json has no \"acp_command\""
t_contains "what to do" "$out" "or use RUNNER=benchflow"
out=$(doctor MODEL=fake/m1 RUNNER=local HARNESS=gone)
t_contains "program missing" "$out" "problem HARNESS: gone: its program 'no-such-agent-x' is not on PATH: install it with npm install -g no-such-agent-x"
out=$(doctor MODEL=fake/m1 RUNNER=local HARNESS=nosuch)
t_contains "unknown harness" "$out" "problem HARNESS: "
t_contains "unknown harness named" "$out" "nosuch"
t_end

t_begin "RM_API_URL set: AgentRM must answer GET /health with status ok, as the fast stage needs; unset: not checked"
base=${FAKELLM_URL%/v1}
out=$(GOAL=static doctor MODEL=fake/m1 RM_API_URL=$base)
t_eq "up: exit (output: $out)" $? 0
t_contains "up" "$out" "ok      RM_API_URL: $base: AgentRM answers /health: status ok"
t_fakellm "$T_TMP/rm503" '{"health": [{"status": 503}]}'
down=${FAKELLM_URL%/v1}
out=$(GOAL=static doctor MODEL=fake/m1 RM_API_URL=$down/)
t_eq "503: exit" $? 1
t_contains "503" "$out" "problem RM_API_URL: AgentRM at RM_API_URL '$down' answered HTTP 503 to GET /health; or leave RM_API_URL empty to run without it"
t_eq "one health request" "$(grep -c '"endpoint":"health"' "$T_TMP/rm503/log.jsonl")" 1
t_fakellm "$T_TMP/rmloading" '{"health": [{"body": {"status": "loading"}}]}'
out=$(GOAL=static doctor MODEL=fake/m1 RM_API_URL=${FAKELLM_URL%/v1})
t_eq "not ready: exit" $? 1
t_contains "not ready" "$out" "problem RM_API_URL: AgentRM at RM_API_URL '${FAKELLM_URL%/v1}' is not ready: /health says status 'loading'"
t_fakellm "$T_TMP/rmfull" '{"health": [{"body": {"status": "ok", "device": "cuda", "max_length": 8192}}]}'
out=$(GOAL=static doctor MODEL=fake/m1 RM_API_URL=${FAKELLM_URL%/v1})
t_contains "device and length" "$out" "AgentRM answers /health: status ok, device cuda, max_length 8192"
t_end

SK="$T_SK task=csv-column-sum MODEL=fake/m1 REPEAT=1"
t_begin "a trial of a harness the local runner cannot start fails in one line saying why"
out=$($SK RUNNER=local HARNESS=claude-agent-acp raw-eval 2>&1)
t_check "make failed" test $? -ne 0
t_contains "the cause in the trial's line" "$out" "skillc-eval: harness 'claude-agent-acp' cannot run with RUNNER=local: $T_ROOT/rules/harness/claude-agent-acp.json has no \"acp_command\""
t_check "nothing published" test ! -e results/compile-pipeline/csv-column-sum--claude-agent-acp--fake_m1/traces/csv-column-sum/raw/test-001
t_end

t_begin "a runner that exits without output: its last line is in the failure line"
rm -f "$F/bench" # the link to fake-bench.sh: never write through it
printf '#!/bin/sh\necho "bench: the docker daemon is not running" >&2\nexit 2\n' >"$F/bench"
chmod +x "$F/bench"
out=$(PATH=$F:$PATH $SK RUNNER=benchflow raw-eval 2>&1)
t_check "make failed" test $? -ne 0
t_contains "quoted" "$out" "the runner exited 2 and wrote no raw/ output: bench: the docker daemon is not running (see runner.log)"
t_end
