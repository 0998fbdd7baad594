#!/bin/sh
# runtime.sh — the Docker-in-Docker runtime with a REAL Docker daemon the
# test starts on a private socket (tests/lib.sh): skillc-runtime build makes
# the runtime image (skillc, make, a Docker engine) FROM a Debian base with
# docker.io (tests/helpers/base-images.sh runtime, made without a registry);
# skillc-runtime run finds the privileges that work here, starts the inner
# daemon, loads the task's base image with docker save/load and runs a whole
# `make task=inventory-check final` inside (SANDBOX=docker trials in the
# inner daemon), against a model server on the host's loopback; the results
# land in the host's results/. A kill -9 of the launcher: its watchdog
# removes the runtime container; Ctrl-C removes it too; REGISTRY_MIRROR reaches
# the inner daemon. Bad input: no such
# image, a daemon that is down, a bad REGISTRY_MIRROR.
. "$(dirname "$0")/../lib.sh"

NAMES="make runtime-image: skillc, make and a Docker engine in one image; a second build builds nothing
skillc-runtime run: a whole make final inside, against the host's model server; results in the host's results/
kill -9 of the launcher: its watchdog removes the runtime container; Ctrl-C removes it; REGISTRY_MIRROR reaches the inner daemon
bad input: no runtime image, a daemon that is down, a bad REGISTRY_MIRROR: one line each"
skip_all() { echo "$NAMES" | while read -r n; do t_skip "$n" "$1"; done; exit 0; }
t_plain_only "the tools in the runtime image would need the sanitizers' runtime" "$NAMES" && exit 0
# vfs copies the whole runtime image (a Debian with docker.io) for every layer:
# on the daemon's tmpfs (t_dockerd) that peaks near 1.8 GB and takes under 2
# minutes; on disk (SKILLC_TEST_DOCKER_TMPFS=0) about 7
t_dockerd || skip_all "$T_WHY"
t_docker_base runtime skillc-test/runtime-base:1 || skip_all "$T_WHY"
t_docker_base debian debian:12-slim || skip_all "$T_WHY"

J=$T_ROOT/build/tests/helpers/jget
W=$T_TMP/work
H=$W/harness
mkdir -p "$H" "$W/tasks" && cp -R "$T_ROOT/tasks/inventory-check" "$W/tasks/" || exit 2
t_image_agent "$H/acpagent" || skip_all "cannot build the scripted agent"
# the fast stage's review and patch questions get empty answers (S_fast = S_static)
t_fakellm "$T_TMP/llm" '{"rules": [{"match": "You review how an AI agent used a skill", "json": {"findings": []}},
  {"match": "You turn findings about a skill", "json": {"patches": []}}], "models": [{"models": ["m1"]}]}'
PORT=${FAKELLM_URL#http://127.0.0.1:}
PORT=${PORT%/v1}
# the agent asks the model server (over the relay) for its models, then does the task
cat >"$H/agent.script.json" <<EOF
{"agent_name": "Scripted", "steps": [{"skill": "low-stock"},
  {"exec": "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT; printf \"GET /v1/models HTTP/1.0\\\\r\\\\n\\\\r\\\\n\" >&3; cat <&3' >/logs/artifacts/models.txt 2>&1"},
  {"exec": "awk -F, 'NR > 1 && \$2 + 0 < 5 { print \$1 }' /root/stock.csv | sort > /root/low-stock.txt"},
  {"message": "done"}]}
EOF
printf '{"acp_command": ["/opt/scripted/acpagent", "/opt/scripted/script.json"], "skill_paths": ["~/.opencode/skills"], "image": {"files": [{"src": "acpagent", "dest": "/opt/scripted/acpagent"}, {"src": "agent.script.json", "dest": "/opt/scripted/script.json"}]}}\n' \
	>"$H/scripted.json"
printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >"$W/routes.json"
unset SANDBOX IMAGE HARNESS_PATH ROUTES ENV_FILE RESULTS TASKS_DIR REGISTRY_MIRROR
cd "$W" || exit 2
runtimes() { docker ps -aq --filter label=skillc.kind=runtime; }
# for t_poll: asked again at every poll
some_runtime() { [ -n "$(runtimes)" ]; }
no_runtime() { [ -z "$(runtimes)" ]; }

t_begin "make runtime-image: skillc, make and a Docker engine in one image; a second build builds nothing"
start=$(date +%s)
out=$($T_SK runtime-image RUNTIME_BASE=skillc-test/runtime-base:1 2>&1)
t_eq "exit ($(echo "$out" | tail -n 3))" $? 0
echo "# runtime image built in $(( $(date +%s) - start ))s" >&2
t_contains "built" "$out" "built skillc/runtime:"
out=$(skillc-runtime build --base skillc-test/runtime-base:1 2>&1)
t_contains "the second one found it" "$out" "found skillc/runtime:"
t_check "tagged latest" docker image inspect skillc/runtime:latest
inside=$(docker run --rm --network none --entrypoint sh skillc/runtime:latest -c \
	'for p in dockerd docker make skillc-stage skillc-init; do command -v $p; done; ls /usr/local/share/skillc' 2>&1)
for p in bin/dockerd /usr/bin/docker /usr/bin/make /usr/local/bin/skillc-stage /usr/local/bin/skillc-init skillc.mk rules; do
	t_contains "holds $p" "$inside" "$p"
done
t_end

t_begin "skillc-runtime run: a whole make final inside, against the host's model server; results in the host's results/"
start=$(date +%s)
out=$(skillc-runtime run --data "$T_TMP/inner" --env HARNESS_PATH="$H" -- \
	make task=inventory-check MODEL=fake/m1 EXTERNAL_MODEL=fake/m1 HARNESS=scripted REPEAT=1 FAST_MIN_TRACES=1 \
	DEEP_ROUNDS=0 ROUTES="$W/routes.json" final 2>&1)
rc=$?
echo "# make final in the runtime: $(( $(date +%s) - start ))s" >&2
t_eq "exit ($(echo "$out" | tail -n 5))" $rc 0
t_contains "the preflight" "$out" "skillc-runtime: preflight: Docker "
t_contains "says which privileges" "$out" "skillc-runtime: "
case $out in *"skillc-runtime: using --cap-add ALL "*|*"; using --privileged"*) ;; *) t_fail "no line saying which privileges: $out" ;; esac
t_contains "the inner daemon" "$out" "skillc-runtime: the inner daemon answers"
t_contains "the base image loaded" "$out" "skillc-runtime: loaded debian:12-slim"
R=results/compile-pipeline/inventory-check--scripted--fake_m1
for st in raw static; do
	t_contains "$st trial passed, on the host" "$(cat $R/traces/inventory-check/$st/test-001/trial.json 2>&1)" '"outcome": "passed"'
	t_contains "$st trial in a container" "$(cat $R/traces/inventory-check/$st/test-001/trial.json 2>&1)" '"sandbox": "docker"'
done
t_check "the final evaluation's index" test -s $R/traces/inventory-check/final/index.json
t_check "the agent reached the host's model server" grep -q '"m1"' \
	$R/traces/inventory-check/raw/test-001/raw/artifacts/models.txt
t_check "the model server logged it" grep -q 'models' "$T_TMP/llm/log.jsonl"
t_eq "no runtime container left" "$(runtimes)" ""
t_check "the inner images stay out of the host's daemon" sh -c \
	"! docker images --format '{{.Repository}}' | grep -q 'skillc/l2-inventory-check'"
t_end

t_begin "kill -9 of the launcher: its watchdog removes the runtime container; Ctrl-C removes it; REGISTRY_MIRROR reaches the inner daemon"
# no tasks: nothing to load (each load copies the image again under vfs)
mkdir -p "$T_TMP/notasks"
export TASKS_DIR="$T_TMP/notasks"
setsid skillc-runtime run -- sleep 600 >"$T_TMP/kill.out" 2>&1 &
sid=$!
t_poll 300 grep -q "the inner daemon answers" "$T_TMP/kill.out"
t_poll 60 some_runtime
t_check "the runtime container ran" test -n "$(runtimes)"
while pkill -9 -s "$sid" 2>/dev/null; do sleep 0.01; done
wait $sid 2>/dev/null
t_poll 120 no_runtime
t_eq "gone after the watchdog passed" "$(runtimes)" ""
# a background job of sh starts with SIGINT ignored: the default, as at a terminal
# (and REGISTRY_MIRROR in the inner daemon's daemon.json)
REGISTRY_MIRROR=http://mirror.example:5000,https://m2.example setsid env --default-signal=INT skillc-runtime run -- \
	sh -c "docker info --format '{{range .RegistryConfig.Mirrors}}mirror {{.}} {{end}}'; sleep 600" >"$T_TMP/int.out" 2>&1 &
sid=$!
t_poll 300 grep -q "mirror https://m2.example/" "$T_TMP/int.out"
t_contains "REGISTRY_MIRROR reached the inner daemon" "$(cat "$T_TMP/int.out")" "mirror http://mirror.example:5000/ mirror https://m2.example/"
t_poll 60 some_runtime
/bin/kill -s INT -- -$sid
wait $sid
rc=$?
t_check "Ctrl-C: the launcher ends, not 0 ($rc)" test $rc -ne 0
t_eq "Ctrl-C: no container left once it ended" "$(runtimes)" ""
unset TASKS_DIR
t_end

t_begin "bad input: no runtime image, a daemon that is down, a bad REGISTRY_MIRROR: one line each"
out=$(skillc-runtime run --image skillc/none:1 -- true 2>&1)
t_eq "no image: exit" $? 1
t_contains "no image: says so" "$out" "the runtime image 'skillc/none:1' does not exist (make runtime-image builds it)"
out=$(DOCKER_HOST=unix://$T_TMP/none.sock skillc-runtime run -- true 2>&1)
t_eq "daemon down: exit" $? 1
t_contains "daemon down: says so" "$out" "preflight: the Docker daemon at unix://$T_TMP/none.sock does not answer"
out=$(REGISTRY_MIRROR=ftp://x skillc-runtime run -- true 2>&1)
t_eq "bad mirror: exit" $? 2
t_contains "bad mirror: says so" "$out" "bad REGISTRY_MIRROR 'ftp://x': each mirror is an http:// or https:// URL"
t_eq "nothing started" "$(runtimes)" ""
t_end
