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
# terminal escape reaches a message. Then IMAGE_REGISTRY, with two private
# daemons as two nodes: node A builds the inventory-check task's L1 and L2
# and pushes them; node B runs a trial in the L2 pulled by digest and
# builds nothing; registry content changed under that digest is refused
# (an environment_build infra error, no trial).
. "$(dirname "$0")/../lib.sh"

NAMES="FROM python:3.12-slim builds offline through the registry mirror
the registry stopped: the failed pull names the step and the way out
an intercepted TLS chain in a RUN step: SKILLC_BUILD_CA named, no escapes
IMAGE_REGISTRY: node A pushes its L1 and L2, node B runs a trial in the L2 by digest and builds nothing
IMAGE_REGISTRY: content changed in the registry under the digest is refused, no trial"
skip_all() { echo "$NAMES" | while read -r n; do t_skip "$n" "$1"; done; exit 0; }
# the registry (tests/lib.sh t_registry), on a free loopback port, its data here
REG=$T_TMP/registry
t_registry "$REG" || skip_all "$T_WHY"
PORT=${T_REGISTRY##*:}
REG_PID=$T_REGISTRY_PID
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
RC=$?
t_eq "exit status ($(printf '%s' "$OUT" | tail -n 1))" $RC 0
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

# ---- IMAGE_REGISTRY: two daemons, two nodes ----
NODE_A=$DOCKER_HOST
NB=$T_TMP/nodeb
stop_node_b() {
	[ -n "${NB_PID:-}" ] || return 0
	DOCKER_HOST=unix://$NB/docker.sock docker ps -aq 2>/dev/null | DOCKER_HOST=unix://$NB/docker.sock xargs -r docker rm -f >/dev/null 2>&1
	kill "$NB_PID" 2>/dev/null
	t_poll 60 t_gone "$NB_PID"
	grep -o " $NB/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do umount -l "$m"; done
	NB_PID=
}
skip_nodes() {
	t_skip "IMAGE_REGISTRY: node A pushes its L1 and L2, node B runs a trial in the L2 by digest and builds nothing" "$1"
	t_skip "IMAGE_REGISTRY: content changed in the registry under the digest is refused, no trial" "$1"
	exit 0
}
t_registry "$REG" || skip_nodes "docker-registry does not start again: $T_WHY"
t_docker_base debian debian:12-slim || skip_nodes "$T_WHY"
mkdir -p "$NB"
dockerd --host "unix://$NB/docker.sock" --data-root "$NB/data" --exec-root "$NB/exec" --pidfile "$NB/docker.pid" \
	--storage-driver vfs --iptables=false --bridge=none >"$NB/dockerd.log" 2>&1 &
NB_PID=$!
T_AT_EXIT="stop_node_b $T_AT_EXIT"
NODE_B=unix://$NB/docker.sock
t_poll 60 test -S "$NB/docker.sock" && DOCKER_HOST=$NODE_B t_poll 60 docker version || skip_nodes "a second dockerd does not start: $(tail -n 1 "$NB/dockerd.log")"

J=$T_ROOT/build/tests/helpers/jget
H=$T_TMP/harness
mkdir -p "$H"
cp -R "$T_ROOT/tasks/inventory-check" "$T_TMP/tasks/"
INV=$T_TMP/tasks/inventory-check
t_image_agent "$H/acpagent" || skip_nodes "cannot build the scripted agent"
cat >"$H/agent.script.json" <<'EOS'
{"agent_name": "Scripted", "steps": [{"skill": "low-stock"},
  {"exec": "awk -F, 'NR > 1 && $2 + 0 < 5 { print $1 }' /root/stock.csv | sort > /root/low-stock.txt"},
  {"message": "Wrote /root/low-stock.txt."}]}
EOS
t_scripted_harness "$H" scripted
t_fakellm "$T_TMP/llm" '{"chat": []}'
printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >"$T_TMP/routes.json"
export ROUTES="$T_TMP/routes.json" HARNESS_PATH="$H"
unset SANDBOX IMAGE
S=$T_TMP/run/images
# trial NAME: one trial on node B in the pinned L2; RC, OUT, R
trial() {
	OUT=$(DOCKER_HOST=$NODE_B skillc-local eval run --tasks-dir "$INV" --agent scripted --model fake/m1 --skill-mode with-skill \
		--sandbox docker --image "$PINNED" --out "$T_TMP/jobs-$1" --agent-idle-timeout none 2>&1)
	RC=$?
	R=$T_TMP/jobs-$1
}

t_begin "IMAGE_REGISTRY: node A pushes its L1 and L2, node B runs a trial in the L2 by digest and builds nothing"
export IMAGE_REGISTRY=127.0.0.1:$PORT/nodes
out=$(DOCKER_HOST=$NODE_A skillc-image l1 --task "$INV" --out "$S/l1.id" 2>&1)
RC=$?
t_eq "node A: the L1 ($(printf '%s' "$out" | tail -n 1))" $RC 0
out=$(DOCKER_HOST=$NODE_A skillc-image l2 --task "$INV" --harness scripted --l1 "$S/l1.id" --out "$S/l2.id" 2>&1)
RC=$?
t_eq "node A: the L2 ($(printf '%s' "$out" | tail -n 1))" $RC 0
PINNED=$(cut -d' ' -f3 "$S/l2.id")
t_contains "the stamp pins the pushed digest" "$PINNED" "127.0.0.1:$PORT/nodes/skillc/l2-inventory-check--scripted@sha256:"
t_contains "said so" "$out" ", pushed as $PINNED"
unset IMAGE_REGISTRY
t_check "node B lacks it" sh -c "! DOCKER_HOST=$NODE_B docker image inspect '$PINNED'"
trial b
t_eq "node B: the trial passed ($OUT)" "$RC" 0
t_eq "reward" "$($J "$R/trial.json" reward)" 1
t_eq "in the pinned image" "$($J "$R/trial.json" environment.image)" "$PINNED"
t_eq "the same image id as node A's" "$($J "$R/trial.json" local.image_id)" "$(cut -d' ' -f1 "$S/l2.id")"
t_check "node B built nothing" test ! -s "$R/build.log"
t_eq "node B has no image of skillc's own tags" "$(DOCKER_HOST=$NODE_B docker images -q 'skillc/*')" ""
t_eq "no trial container left on node B" "$(DOCKER_HOST=$NODE_B docker ps -aq --filter label=skillc.kind=trial)" ""
t_check "make images' check on node B: the pinned L1 is there after a pull" env DOCKER_HOST=$NODE_B skillc-image check "$S/l1.id"
t_end

t_begin "IMAGE_REGISTRY: content changed in the registry under the digest is refused, no trial"
# node B must not hold the image any more, or the trial would run in it and pass (exit 0):
# the removal is checked, not assumed
pinned_gone() {
	DOCKER_HOST=$NODE_B docker rmi -f "$PINNED" >/dev/null 2>&1
	! DOCKER_HOST=$NODE_B docker image inspect "$PINNED" >/dev/null 2>&1
}
t_poll 60 pinned_gone || t_fail "node B still holds $PINNED after docker rmi -f"
t_check "the manifest is in the registry's storage, changed" t_registry_tamper "$REG" "$PINNED"
trial tampered
t_eq "exit status: errored ($OUT)" "$RC" 1
t_eq "an infra error" "$($J "$R/trial.json" error_category)" environment_build
t_contains "says why" "$($J "$R/trial.json" error)" "cannot pull $PINNED from the registry: "
t_eq "no agent ran" "$($J "$R/trial.json" prompts)" 0
t_check "and no image taken" sh -c "! DOCKER_HOST=$NODE_B docker image inspect '$PINNED'"
t_end
