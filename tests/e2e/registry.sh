#!/bin/sh
# registry.sh — unmodified task images through a REAL registry: Debian's
# docker-registry, started here on a loopback port with its storage in the
# test's folder and stopped by pid, holds a base image the test pushed
# under a Docker Hub name (library/python:3.12-slim); a private dockerd
# (tests/lib.sh t_dockerd) uses it as its registry mirror, as a user's
# daemon would with registry-mirrors in daemon.json. A task Dockerfile
# `FROM python:3.12-slim` then builds offline. With the registry stopped,
# the build's one-line message names the step and the way out (IMAGE=,
# REGISTRY_MIRROR=); an intercepted TLS chain names SKILLC_BUILD_CA=; no
# terminal escape reaches a message.
. "$(dirname "$0")/../lib.sh"

NAMES="FROM python:3.12-slim builds offline through the registry mirror
the registry stopped: the failed pull names the step and the way out
an intercepted TLS chain in a RUN step: SKILLC_BUILD_CA named, no escapes"
skip_all() { echo "$NAMES" | while read -r n; do t_skip "$n" "$1"; done; exit 0; }
command -v docker-registry >/dev/null 2>&1 || skip_all "no docker-registry (apt-get install -y docker-registry)"

# the registry, on a free loopback port, its data here
REG=$T_TMP/registry
PORT=$(t_free_port)
mkdir -p "$REG/data"
cat >"$REG/config.yml" <<EOC
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $REG/data
http:
  addr: 127.0.0.1:$PORT
EOC
start_registry() {
	docker-registry serve "$REG/config.yml" >>"$REG/registry.log" 2>&1 &
	REG_PID=$!
	T_PIDS="$T_PIDS $REG_PID"
	t_poll 30 curl -fsS "http://127.0.0.1:$PORT/v2/"
}
start_registry || skip_all "docker-registry does not start here: $(tail -n 1 "$REG/registry.log")"
T_DOCKERD_ARGS="--registry-mirror http://127.0.0.1:$PORT"
t_dockerd || skip_all "$T_WHY"
t_docker_base busybox bb:local || skip_all "$T_WHY"
# the base image under its Docker Hub name, in the registry only
docker tag bb:local "127.0.0.1:$PORT/library/python:3.12-slim" &&
	docker push "127.0.0.1:$PORT/library/python:3.12-slim" >"$T_TMP/push.log" 2>&1 &&
	docker rmi "127.0.0.1:$PORT/library/python:3.12-slim" >/dev/null || skip_all "cannot push to the registry: $(tail -n 1 "$T_TMP/push.log")"

TASK=$T_TMP/tasks/py-task
mkdir -p "$TASK/environment" "$TASK/tests"
printf 'Write 42 to /root/answer.txt.\n' >"$TASK/instruction.md"
printf '[verifier]\ntimeout_sec = 30\n' >"$TASK/task.toml"
printf '#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n' >"$TASK/tests/test.sh"
printf 'FROM python:3.12-slim\nWORKDIR /root\nRUN echo built > /root/built.txt\n' >"$TASK/environment/Dockerfile"

t_begin "FROM python:3.12-slim builds offline through the registry mirror"
t_check "the daemon lacks the base image" sh -c "! docker image inspect python:3.12-slim"
OUT=$(skillc-image l1 --task "$TASK" --out "$T_TMP/l1.id" 2>&1)
t_eq "exit status ($(printf '%s' "$OUT" | tail -n 1))" $? 0
t_check "the base image came from the mirror" docker image inspect python:3.12-slim
t_check "the registry served its manifest" grep -q "/v2/library/python/manifests/3.12-slim" "$REG/registry.log"
tag=$(cut -d' ' -f2 "$T_TMP/l1.id")
t_eq "the L1 ran its step" "$(docker run --rm "$tag" cat /root/built.txt)" built
t_end

t_begin "the registry stopped: the failed pull names the step and the way out"
kill "$REG_PID" && t_poll 10 t_gone "$REG_PID"
docker rmi -f python:3.12-slim "$tag" >/dev/null 2>&1
printf 'FROM python:3.12-slim\nWORKDIR /root\nRUN echo again > /root/built.txt\n' >"$TASK/environment/Dockerfile"
OUT=$(skillc-image l1 --task "$TASK" --out "$T_TMP/l1b.id" 2>&1)
t_eq "exit status" $? 1
line=$(printf '%s\n' "$OUT" | grep '^skillc-image: ')
t_eq "one line" "$(printf '%s\n' "$line" | wc -l)" 1
t_contains "names the step" "$line" "failed at Step 1/3 : FROM python:3.12-slim: "
t_contains "and the way out" "$line" "give a local image with IMAGE=, or a registry mirror holding it with REGISTRY_MIRROR="
t_check "no stamp written" test ! -e "$T_TMP/l1b.id"
t_end

t_begin "an intercepted TLS chain in a RUN step: SKILLC_BUILD_CA named, no escapes"
printf 'FROM bb:local\nRUN echo -e "\\033[91mnpm ERR! code SELF_SIGNED_CERT_IN_CHAIN\\033[0m" && false\n' >"$TASK/environment/Dockerfile"
OUT=$(skillc-image l1 --task "$TASK" --out "$T_TMP/l1c.id" 2>&1)
t_eq "exit status" $? 1
line=$(printf '%s\n' "$OUT" | grep '^skillc-image: ')
t_contains "names the step" "$line" "failed at Step 2/2 : RUN echo -e"
t_contains "and the way out" "$line" "a proxy intercepts TLS: SKILLC_BUILD_CA=<its CA bundle>"
case $line in *"$(printf '\033')"*) t_fail "an escape in the message: $line" ;; esac
t_end
