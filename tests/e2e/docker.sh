#!/bin/sh
# docker.sh — SANDBOX=docker end to end with a REAL Docker daemon that this
# test starts on a private socket (tests/lib.sh t_dockerd) and base images
# made without a registry: skillc-local builds the inventory-check sample
# task's own Dockerfile (its RUN step installs the verifier's tool, its ENV
# configures it) as the L1 image, bakes our scripted ACP agent in as the L2
# (the harness file's "image" recipe), runs the agent and the verifier in one
# --network none container with the model route carried over the relay, and
# removes the container. The same task under bwrap is "environment not
# reproduced", not failed. Bad input: a Dockerfile that does not build, an
# image that does not exist, a daemon that is down. kill -9 of the runner:
# the watchdog removes the container.
. "$(dirname "$0")/../lib.sh"

NAMES="SANDBOX=docker: the RUN-steps task passes with the scripted agent in its own image
the key and the proxy: in the container's environment, in no image layer, log or trace
a task that allows internet: the daemon's network, the host-loopback model through the relay
the same task under bwrap: environment not reproduced, not failed
a Dockerfile that fails to build: an environment_build infra error, one line
an image that does not exist: an environment_build infra error
a daemon that is down: a sandbox_setup infra error, at once
kill -9 of the runner mid-trial: its watchdog removes the container"
skip_all() { echo "$NAMES" | while read -r n; do t_skip "$n" "$1"; done; exit 0; }
t_dockerd || skip_all "$T_WHY"
t_docker_base debian debian:12-slim || skip_all "$T_WHY"
t_docker_base busybox bb:local || skip_all "$T_WHY"

# the task, the scripted agent and its harness files, the model behind a route with
# a key that only ENV_FILE may hold (tests/lib.sh)
t_engine_work docker || skip_all "$T_WHY"
# what a build saw of the proxy, for the agent to report
printf 'RUN echo "build HTTP_PROXY=$HTTP_PROXY" > /etc/build-proxy\n' >>"$TASK/environment/Dockerfile"
# the agent: reads the skill, reports what its environment holds, does the task
cat >"$H/agent.script.json" <<'EOF'
{"agent_name": "Scripted", "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
 "steps": [{"skill": "low-stock"},
  {"exec": "[ -z \"$MODEL_PORT\" ] || bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$MODEL_PORT' && printf \"GET /v1/models HTTP/1.0\\r\\n\\r\\n\" >&3 && head -n 1 <&3' >/logs/artifacts/model 2>&1"},
  {"exec": "f=/logs/artifacts/facts; cat /etc/build-proxy >$f; echo \"run HTTP_PROXY=$HTTP_PROXY\" >>$f; echo \"NO_PROXY=$NO_PROXY\" >>$f; echo \"CHECKER_DATA=$CHECKER_DATA\" >>$f; echo \"key=$SKILLC_MODEL_API_KEY\" >>$f; ls /skills >>$f; cat /proc/1/cmdline | tr '\\0' ' ' >>$f; echo >>$f; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' >>$f"},
  {"exec": "[ \"$SCRIPTED_MODE\" = hang ] && sleep 600; awk -F, 'NR > 1 && $2 + 0 < 5 { print $1 }' /root/stock.csv | sort > /root/low-stock.txt"},
  {"message": "Wrote /root/low-stock.txt."}]}
EOF
# the same harness on the host, for bwrap
printf '{"acp_command": ["%s/acpagent", "%s/agent.script.json"], "skill_paths": ["~/.opencode/skills"]}\n' "$H" "$H" >"$H/onhost.json"
PROXY=http://proxy.example:3128

t_begin "SANDBOX=docker: the RUN-steps task passes with the scripted agent in its own image"
HTTP_PROXY=$PROXY SANDBOX=docker t_trial ok "$TASK"
t_eq "exit status ($OUT)" "$RC" 0
t_contains "one line" "$OUT" "inventory-check passed, reward 1"
t_eq "reward" "$($J "$R/trial.json" reward)" 1
t_eq "sandbox recorded" "$($J "$R/trial.json" local.sandbox)" docker
t_eq "environment reproduced" "$($J "$R/trial.json" environment.reproduced)" true
t_contains "the L2 image" "$($J "$R/trial.json" environment.image)" "skillc/l2-inventory-check--scripted:"
t_eq "network" "$($J "$R/trial.json" local.agent_network)" "none+model-relay"
t_check "the verifier's tool came from the RUN step" grep -q "PASS: 4 SKUs" "$R/verifier/test-stdout.txt"
F=$R/artifacts/facts
t_check "ENV honoured" grep -qx "CHECKER_DATA=/var/lib/checker" "$F"
t_check "the skill mounted" grep -qx "low-stock" "$F"
t_check "skillc-init hold is the first process" grep -q "^/run/skillc/init hold" "$F"
t_eq "loopback only" "$(sed -n '$p' "$F")" lo
t_eq "skill invoked" "$($J "$R/trial.json" skill_invocations)" 1
t_check "build log kept" grep -q "Successfully tagged skillc/l1-inventory-check:" "$R/build.log"
t_eq "no container left" "$(t_trial_containers)" ""
t_check "sandbox folder removed" test ! -e "$T_TMP/jobs-ok/.skillc-local"
L1=$(docker images -q 'skillc/l1-inventory-check' | head -n 1)
L2=$(docker images -q 'skillc/l2-inventory-check--scripted' | head -n 1)
t_check "L1 and L2 tagged" test -n "$L1" -a -n "$L2"
# a second trial builds nothing
SANDBOX=docker t_trial again "$TASK"
t_eq "again: exit status" "$RC" 0
t_check "again: no build" sh -c "! grep -q 'Step 1/' '$R/build.log'"
t_end

t_begin "the key and the proxy: in the container's environment, in no image layer, log or trace"
R=$T_TMP/jobs-ok
F=$R/artifacts/facts
t_check "the build saw the proxy" grep -qx "build HTTP_PROXY=$PROXY" "$F"
t_check "the container too" grep -qx "run HTTP_PROXY=$PROXY" "$F"
t_contains "the model route is kept off the proxy" "$(grep NO_PROXY "$F")" "127.0.0.1"
t_check "the agent had the key (redacted in its files)" grep -qx 'key=\*\*\*REDACTED\*\*\*' "$F"
t_check "no trial file holds the key" sh -c "! grep -rq '$KEY' '$T_TMP/jobs-ok' '$T_TMP/jobs-again'"
for img in $L1 $L2; do
	t_check "no layer of $img holds it" sh -c "! docker history --no-trunc $img | grep -q '$KEY'"
	t_check "no setting of $img holds it" sh -c "! docker image inspect $img | grep -q '$KEY'"
	t_check "no build arg of $img holds the proxy" sh -c "! docker history --no-trunc $img | grep -q 'HTTP_PROXY=http'"
done
t_check "the daemon's log holds no key" sh -c "! grep -q '$KEY' '$T_DOCKER/dockerd.log'"
t_end

t_begin "a task that allows internet: the daemon's network, the host-loopback model through the relay"
PORT=${FAKELLM_URL##*:} PORT=${PORT%%/*}
before=$($J -n "$T_TMP/llm/log.jsonl" 2>/dev/null || echo 0)
SANDBOX=docker t_trial net "$TASK" --config-override environment.allow_internet=true --agent-env MODEL_PORT=$PORT
t_eq "exit status ($OUT)" "$RC" 0
t_eq "network" "$($J "$R/trial.json" local.agent_network)" "default+model-relay"
t_eq "the agent reached the model on the host's loopback" "$(tr -d '\r' <"$R/artifacts/model")" "HTTP/1.1 200 OK"
t_eq "the model server saw it" "$($J -n "$T_TMP/llm/log.jsonl")" $((before + 1))
t_eq "no container left" "$(t_trial_containers)" ""
# without internet the same probe reaches the model too, and nothing else is there
SANDBOX=docker t_trial nonet "$TASK" --agent-env MODEL_PORT=$PORT
t_eq "no internet: network" "$($J "$R/trial.json" local.agent_network)" "none+model-relay"
t_eq "no internet: the model still reached" "$(tr -d '\r' <"$R/artifacts/model")" "HTTP/1.1 200 OK"
t_eq "no internet: loopback only" "$(sed -n '$p' "$R/artifacts/facts")" lo
t_end

if command -v bwrap >/dev/null 2>&1; then
	t_begin "the same task under bwrap: environment not reproduced, not failed"
	OUT=$(skillc-local eval run --tasks-dir "$TASK" --agent onhost --model fake/m1 --skill-mode with-skill \
		--out "$T_TMP/jobs-bwrap" 2>&1)
	RC=$?
	R=$T_TMP/jobs-bwrap
	t_eq "exit status: errored, not scored" "$RC" 1
	t_eq "category" "$($J "$R/trial.json" error_category)" environment_not_reproduced
	t_contains "says why" "$($J "$R/trial.json" error)" "without the Dockerfile's RUN, ENV steps and the verifier said: /tests/test.sh: line 5: check-low-stock: command not found"
	t_contains "and what to do" "$($J "$R/trial.json" error)" "SANDBOX=docker"
	t_eq "no reward counted" "$($J "$R/trial.json" rewards)" null
	t_eq "no verifier error counted" "$($J "$R/trial.json" verifier_error)" null
	t_eq "marked" "$($J "$R/trial.json" environment.reproduced)" false
	t_eq "an infra error, not failed" "$($J "$R/trial.json" outcome)" infra_error
	t_end
else
	t_skip "the same task under bwrap: environment not reproduced, not failed" "no bwrap"
fi

t_begin "a Dockerfile that fails to build: an environment_build infra error, one line"
BAD=$W/tasks/bad-build
cp -R "$TASK" "$BAD"
printf 'FROM bb:local\nRUN echo about to fail && false\n' >"$BAD/environment/Dockerfile"
SANDBOX=docker t_trial bad "$BAD"
t_eq "exit status" "$RC" 1
t_eq "category" "$($J "$R/trial.json" error_category)" environment_build
t_contains "names the step" "$($J "$R/trial.json" error)" "failed at Step 2/2 : RUN echo about to fail && false"
t_contains "and the reason" "$($J "$R/trial.json" error)" "returned a non-zero code: 1"
t_contains "one line" "$OUT" "bad-build errored (environment_build: "
t_eq "no agent ran" "$($J "$R/trial.json" prompts)" 0
t_eq "an infra error, not failed" "$($J "$R/trial.json" outcome)" infra_error
t_eq "no container" "$(t_trial_containers)" ""
t_end

t_begin "an image that does not exist: an environment_build infra error"
t_missing_image "the Docker daemon"
t_end

t_begin "a daemon that is down: a sandbox_setup infra error, at once"
start=$(date +%s)
DOCKER_HOST=unix://$T_TMP/no-daemon.sock SANDBOX=docker t_trial down "$TASK"
t_eq "exit status" "$RC" 1
t_eq "category" "$($J "$R/trial.json" error_category)" sandbox_setup
t_contains "names the daemon" "$($J "$R/trial.json" error)" "the Docker daemon at unix://$T_TMP/no-daemon.sock does not answer"
[ $(( $(date +%s) - start )) -lt 60 ] || t_fail "took too long"
t_end

t_begin "kill -9 of the runner mid-trial: its watchdog removes the container"
t_killed_runner
t_end
