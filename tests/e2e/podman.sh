#!/bin/sh
# podman.sh — SANDBOX=podman end to end with REAL podman, its storage, run
# root, tmp, events log and network configs all under this test's folder
# (tests/lib.sh t_podman: CONTAINERS_STORAGE_CONF, CONTAINERS_CONF; vfs),
# and base images made without a registry: podman builds the
# inventory-check sample task's own Dockerfile as the L1 and bakes our
# scripted ACP agent in as the L2, the agent and the verifier run in one
# --network none container with the model route over the relay, and the
# container goes; a task that allows internet gets podman's default
# network and still reaches the model. The same trial under docker (a
# private dockerd, t_dockerd) gives an equivalent trial record. Bad input:
# a Dockerfile that does not build, an image that does not exist, podman
# that cannot run. kill -9 of the runner: the watchdog removes the
# container. Through make: images once, trials in the L2, make doctor's
# podman lines. IMAGE_REGISTRY through a real docker-registry with two
# private storages as two nodes: B runs A's L2 pulled by digest.
. "$(dirname "$0")/../lib.sh"

NAMES="SANDBOX=podman: the RUN-steps task passes with the scripted agent in its own image
the key: in the container's environment, in no image layer, log or trace
a task that allows internet: podman's default network, the host-loopback model through the relay
a Dockerfile that fails to build under podman: an environment_build infra error naming the STEP
an image that does not exist: an environment_build infra error
podman that cannot run: a sandbox_setup infra error, at once
kill -9 of the runner mid-trial: its watchdog removes the podman container
make images and raw-eval SANDBOX=podman: images once, trials in the L2; make doctor's podman lines
IMAGE_REGISTRY with podman: a plain-http registry podman was not told of, one line naming registries.conf
IMAGE_REGISTRY with podman: node A pushes its L1 and L2, node B runs a trial in the L2 by digest and builds nothing
IMAGE_REGISTRY with podman: content changed in the registry under the digest is refused, no trial
the same trial under podman and under docker: equivalent trial records
rootless podman, as a user without subordinate ids: the same trial passes"
skip_all() { echo "$NAMES" | while read -r n; do t_skip "$n" "$1"; done; exit 0; }
t_podman "$T_TMP/podman" || skip_all "$T_WHY"
t_docker_base debian debian:12-slim podman || skip_all "$T_WHY"
t_docker_base busybox bb:local podman || skip_all "$T_WHY"

# the task, the scripted agent and its harness files, the model behind a route with
# a key that only ENV_FILE may hold (tests/lib.sh)
t_engine_work podman || skip_all "$T_WHY"
cat >"$H/agent.script.json" <<'EOF'
{"agent_name": "Scripted", "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
 "steps": [{"skill": "low-stock"},
  {"exec": "[ -z \"$MODEL_PORT\" ] || bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$MODEL_PORT' && printf \"GET /v1/models HTTP/1.0\\r\\n\\r\\n\" >&3 && head -n 1 <&3' >/logs/artifacts/model 2>&1"},
  {"exec": "f=/logs/artifacts/facts; echo \"CHECKER_DATA=$CHECKER_DATA\" >$f; echo \"key=$SKILLC_MODEL_API_KEY\" >>$f; pwd >>$f; ls /skills >>$f; cat /proc/1/cmdline | tr '\\0' ' ' >>$f; echo >>$f; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' >>$f"},
  {"exec": "[ \"$SCRIPTED_MODE\" = hang ] && sleep 600; awk -F, 'NR > 1 && $2 + 0 < 5 { print $1 }' /root/stock.csv | sort > /root/low-stock.txt"},
  {"message": "Wrote /root/low-stock.txt."}]}
EOF

t_begin "SANDBOX=podman: the RUN-steps task passes with the scripted agent in its own image"
SANDBOX=podman t_trial ok "$TASK"
t_eq "exit status ($OUT)" "$RC" 0
t_contains "one line" "$OUT" "inventory-check passed, reward 1"
t_eq "reward" "$($J "$R/trial.json" reward)" 1
t_eq "sandbox recorded" "$($J "$R/trial.json" local.sandbox)" podman
t_eq "environment reproduced" "$($J "$R/trial.json" environment.reproduced)" true
t_contains "the L2 image" "$($J "$R/trial.json" environment.image)" "skillc/l2-inventory-check--scripted:"
t_contains "its id" "$($J "$R/trial.json" local.image_id)" "sha256:"
t_eq "network" "$($J "$R/trial.json" local.agent_network)" "none+model-relay"
t_check "the verifier's tool came from the RUN step" grep -q "PASS: 4 SKUs" "$R/verifier/test-stdout.txt"
F=$R/artifacts/facts
t_check "ENV honoured" grep -qx "CHECKER_DATA=/var/lib/checker" "$F"
t_check "in the task's workdir" grep -qx "$($J "$R/trial.json" local.workdir)" "$F"
t_check "the skill mounted" grep -qx "low-stock" "$F"
t_check "skillc-init hold is the first process" grep -q "^/run/skillc/init hold" "$F"
t_eq "loopback only" "$(sed -n '$p' "$F")" lo
t_eq "skill invoked" "$($J "$R/trial.json" skill_invocations)" 1
t_check "podman built it (build log kept)" grep -q "^STEP 1/" "$R/build.log"
t_eq "no container left" "$(t_trial_containers)" ""
t_check "sandbox folder removed" test ! -e "$T_TMP/jobs-ok/.skillc-local"
L1=$(podman images -q 'skillc/l1-inventory-check' | head -n 1)
L2=$(podman images -q 'skillc/l2-inventory-check--scripted' | head -n 1)
t_check "L1 and L2 tagged" test -n "$L1" -a -n "$L2"
SANDBOX=podman t_trial again "$TASK"
t_eq "again: exit status" "$RC" 0
t_check "again: no build" sh -c "! grep -q 'STEP 1/' '$R/build.log'"
t_end

t_begin "the key: in the container's environment, in no image layer, log or trace"
R=$T_TMP/jobs-ok
t_check "the agent had the key (redacted in its files)" grep -qx 'key=\*\*\*REDACTED\*\*\*' "$R/artifacts/facts"
t_check "no trial file holds the key" sh -c "! grep -rq '$KEY' '$T_TMP/jobs-ok' '$T_TMP/jobs-again'"
for img in $L1 $L2; do
	t_check "no layer of $img holds it" sh -c "! podman history --no-trunc $img | grep -q '$KEY'"
	t_check "no setting of $img holds it" sh -c "! podman image inspect $img | grep -q '$KEY'"
done
t_check "podman's events log holds no key" sh -c "! grep -qs '$KEY' '$T_PODMAN/events.log'"
t_end

# podman's default network (as root: its CNI bridge) can be refused where a
# container may not make one: then the case says so and is skipped
net_probe() {
	podman run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 bb:local true >"$T_TMP/net-probe.out" 2>&1
}
NET_NAME="a task that allows internet: podman's default network, the host-loopback model through the relay"
if ! net_probe; then
	t_skip "$NET_NAME" "podman cannot give a container its default network here: $(tail -n 1 "$T_TMP/net-probe.out")"
else
	t_begin "$NET_NAME"
	PORT=${FAKELLM_URL##*:} PORT=${PORT%%/*}
	before=$($J -n "$T_TMP/llm/log.jsonl" 2>/dev/null || echo 0)
	SANDBOX=podman t_trial net "$TASK" --config-override environment.allow_internet=true --agent-env MODEL_PORT=$PORT
	t_eq "exit status ($OUT)" "$RC" 0
	t_eq "network" "$($J "$R/trial.json" local.agent_network)" "default+model-relay"
	t_check "an interface beside loopback" grep -qx eth0 "$R/artifacts/facts"
	t_eq "the agent reached the model on the host's loopback" "$(tr -d '\r' <"$R/artifacts/model")" "HTTP/1.1 200 OK"
	t_eq "the model server saw it" "$($J -n "$T_TMP/llm/log.jsonl")" $((before + 1))
	t_check "the verifier passed" grep -q "PASS: 4 SKUs" "$R/verifier/test-stdout.txt"
	t_eq "no container left" "$(t_trial_containers)" ""
	# without internet the same probe reaches the model too, and nothing else is there
	SANDBOX=podman t_trial nonet "$TASK" --agent-env MODEL_PORT=$PORT
	t_eq "no internet: network" "$($J "$R/trial.json" local.agent_network)" "none+model-relay"
	t_eq "no internet: the model still reached" "$(tr -d '\r' <"$R/artifacts/model")" "HTTP/1.1 200 OK"
	t_eq "no internet: loopback only" "$(sed -n '$p' "$R/artifacts/facts")" lo
	t_end
fi

t_begin "a Dockerfile that fails to build under podman: an environment_build infra error naming the STEP"
BAD=$W/tasks/bad-build
cp -R "$TASK" "$BAD"
printf 'FROM bb:local\nRUN echo about to fail && false\n' >"$BAD/environment/Dockerfile"
SANDBOX=podman t_trial bad "$BAD"
t_eq "exit status" "$RC" 1
t_eq "category" "$($J "$R/trial.json" error_category)" environment_build
t_contains "names the step" "$($J "$R/trial.json" error)" "failed at STEP 2/2: RUN echo about to fail && false"
t_contains "and the reason" "$($J "$R/trial.json" error)" "exit status 1"
t_contains "one line" "$OUT" "bad-build errored (environment_build: "
t_eq "no agent ran" "$($J "$R/trial.json" prompts)" 0
t_eq "no container" "$(t_trial_containers)" ""
t_end

t_begin "an image that does not exist: an environment_build infra error"
t_missing_image "podman's storage"
t_end

t_begin "podman that cannot run: a sandbox_setup infra error, at once"
printf '[storage]\ndriver = "no-such-driver"\ngraphroot = "%s/broken"\nrunroot = "%s/broken-run"\n' "$T_TMP" "$T_TMP" \
	>"$T_TMP/broken-storage.conf"
start=$(date +%s)
CONTAINERS_STORAGE_CONF=$T_TMP/broken-storage.conf SANDBOX=podman t_trial down "$TASK"
t_eq "exit status" "$RC" 1
t_eq "category" "$($J "$R/trial.json" error_category)" sandbox_setup
t_contains "names podman" "$($J "$R/trial.json" error)" "podman does not run here: "
t_contains "and where its storage is set" "$($J "$R/trial.json" error)" "CONTAINERS_STORAGE_CONF"
[ $(( $(date +%s) - start )) -lt 60 ] || t_fail "took too long"
t_end

t_begin "kill -9 of the runner mid-trial: its watchdog removes the podman container"
t_killed_runner
t_end

cd "$W" || exit 2
printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >"$W/routes.json"
export ROUTES="$W/routes.json"
SK="$T_SK MODEL=fake/m1 HARNESS=scripted task=inventory-check"
RES=results/compile-pipeline
T=$RES/inventory-check--scripted--fake_m1/traces/inventory-check/raw

t_begin "make images and raw-eval SANDBOX=podman: images once, trials in the L2; make doctor's podman lines"
out=$($SK SANDBOX=podman images 2>&1)
t_eq "exit ($out)" $? 0
t_contains "L1 found (the trials built it)" "$out" "skillc/l1-inventory-check:"
t_contains "L2 found" "$out" "skillc/l2-inventory-check--scripted:"
out=$($SK SANDBOX=podman images 2>&1)
case $out in *"found "* | *"built "*) t_fail "a second make images ran skillc-image: $out" ;; esac
out=$($SK SANDBOX=podman REPEAT=1 raw-eval 2>&1)
t_eq "raw-eval exit ($out)" $? 0
l2=$(cut -d' ' -f2 $RES/inventory-check--scripted--fake_m1/images/inventory-check--scripted.l2.id)
t_contains "the trial passed" "$(cat $T/test-001/trial.json)" '"outcome": "passed"'
t_contains "in the L2" "$(cat $T/test-001/trial.json)" "\"image\": \"$l2\""
t_contains "the key names podman" "$(cat $T/test-001/trial.json)" '"sandbox": "podman"'
t_eq "no container left" "$(t_trial_containers)" ""
out=$($SK SANDBOX=podman DOCTOR_PROBE=none doctor 2>&1)
t_contains "podman" "$out" "ok      podman: podman "
t_contains "as root, its storage" "$out" "(storage $T_PODMAN/root, as root)"
t_contains "its driver" "$out" "ok      podman-storage: vfs (copies the whole image"
t_contains "the architecture" "$out" "ok      podman-arch: task inventory-check: host and image are both"
t_contains "the L2 exists" "$out" "ok      podman-images: the L2 of inventory-check with scripted: skillc/l2-inventory-check--scripted:"
t_contains "the model from inside a container, no network" "$out" "ok      podman-model: fake/m1 answers a container with --network none over the model relay: HTTP/1.1 "
t_eq "no doctor container left" "$(podman ps -aq --filter label=skillc.kind=doctor)" ""
t_end

# ---- IMAGE_REGISTRY with podman: two private storages as two nodes ----
# Node A is this test's podman storage, node B a second one (t_podman_conf)
# that has nothing; a real docker-registry (t_registry) between them,
# which speaks plain http: podman is told so in a registries.conf of the
# test's own (CONTAINERS_REGISTRIES_CONF), as a user would in theirs.
REG_CASES="IMAGE_REGISTRY with podman: a plain-http registry podman was not told of, one line naming registries.conf
IMAGE_REGISTRY with podman: node A pushes its L1 and L2, node B runs a trial in the L2 by digest and builds nothing
IMAGE_REGISTRY with podman: content changed in the registry under the digest is refused, no trial"
NB=$T_TMP/nodeb
node_b() { CONTAINERS_STORAGE_CONF=$NB/storage.conf CONTAINERS_CONF=$NB/containers.conf "$@"; }
node_b_stop() { node_b podman rm --all --force --time 0 >/dev/null 2>&1; return 0; }
# trial NAME: one trial on node B in the pinned L2; RC, OUT, R
node_b_trial() {
	CONTAINERS_STORAGE_CONF=$NB/storage.conf CONTAINERS_CONF=$NB/containers.conf \
		t_trial "$1" "$TASK" --sandbox podman --image "$PINNED"
}
registry_cases() {
	t_begin "IMAGE_REGISTRY with podman: a plain-http registry podman was not told of, one line naming registries.conf"
	: >"$T_TMP/registries-none.conf"
	out=$(CONTAINERS_REGISTRIES_CONF=$T_TMP/registries-none.conf IMAGE_REGISTRY=$T_REGISTRY/nodes \
		skillc-image l1 --task "$TASK" --out "$S/l1.id" --sandbox podman 2>&1)
	t_eq "exit status" $? 1
	line=$(printf '%s\n' "$out" | grep '^skillc-image: ')
	t_eq "one line" "$(printf '%s\n' "$line" | wc -l)" 1
	t_contains "names the push" "$line" "skillc-image: environment_build: podman push $T_REGISTRY/nodes/skillc/l1-inventory-check:"
	t_contains "and the way out" "$line" "(a plain-http registry: give it insecure = true under its [[registry]] in registries.conf"
	t_check "no stamp" test ! -e "$S/l1.id"
	t_end

	printf '[[registry]]\nlocation = "%s"\ninsecure = true\n' "$T_REGISTRY" >"$T_TMP/registries.conf"
	export CONTAINERS_REGISTRIES_CONF=$T_TMP/registries.conf
	t_begin "IMAGE_REGISTRY with podman: node A pushes its L1 and L2, node B runs a trial in the L2 by digest and builds nothing"
	out=$(IMAGE_REGISTRY=$T_REGISTRY/nodes skillc-image l1 --task "$TASK" --out "$S/l1.id" --sandbox podman 2>&1)
	t_eq "node A: the L1 ($(printf '%s' "$out" | tail -n 1))" $? 0
	out=$(IMAGE_REGISTRY=$T_REGISTRY/nodes skillc-image l2 --task "$TASK" --harness scripted --l1 "$S/l1.id" \
		--out "$S/l2.id" --sandbox podman 2>&1)
	t_eq "node A: the L2 ($(printf '%s' "$out" | tail -n 1))" $? 0
	PINNED=$(cut -d' ' -f3 "$S/l2.id")
	t_contains "the stamp pins the pushed digest" "$PINNED" "$T_REGISTRY/nodes/skillc/l2-inventory-check--scripted@sha256:"
	t_contains "said so" "$out" ", pushed as $PINNED"
	t_check "no digest file left" sh -c "! ls -A '$S' | grep -q digest"
	t_check "node B lacks it" sh -c "! CONTAINERS_STORAGE_CONF=$NB/storage.conf CONTAINERS_CONF=$NB/containers.conf podman image inspect '$PINNED'"
	node_b_trial b
	t_eq "node B: the trial passed ($OUT)" "$RC" 0
	t_eq "reward" "$($J "$R/trial.json" reward)" 1
	t_eq "under podman" "$($J "$R/trial.json" local.sandbox)" podman
	t_eq "in the pinned image" "$($J "$R/trial.json" environment.image)" "$PINNED"
	t_eq "the same image id as node A's" "$($J "$R/trial.json" local.image_id)" "$(cut -d' ' -f1 "$S/l2.id")"
	t_check "node B built nothing" test ! -s "$R/build.log"
	t_eq "node B has no image of its own build" "$(node_b podman images --format '{{.Repository}}' | grep -c '^localhost/')" 0
	t_check "make images' check on node B: the pinned L1 is there after a pull" node_b env SANDBOX=podman skillc-image check "$S/l1.id"
	t_eq "node B holds the two images it pulled" "$(node_b podman images -q | wc -l)" 2
	t_end

	t_begin "IMAGE_REGISTRY with podman: content changed in the registry under the digest is refused, no trial"
	node_b podman rmi -f "$PINNED" >/dev/null 2>&1
	t_check "the manifest is in the registry's storage, changed" t_registry_tamper "$T_TMP/registry" "$PINNED"
	node_b_trial tampered
	t_eq "exit status: errored" "$RC" 1
	t_eq "an infra error" "$($J "$R/trial.json" error_category)" environment_build
	t_contains "says why" "$($J "$R/trial.json" error)" "cannot pull $PINNED from the registry: "
	t_contains "the digest" "$($J "$R/trial.json" error)" "does not match"
	t_eq "no agent ran" "$($J "$R/trial.json" prompts)" 0
	t_check "and no image taken" sh -c "! CONTAINERS_STORAGE_CONF=$NB/storage.conf CONTAINERS_CONF=$NB/containers.conf podman image inspect '$PINNED'"
	t_end
	unset CONTAINERS_REGISTRIES_CONF
}
S=$T_TMP/nodea-images
mkdir -p "$S"
if ! t_registry "$T_TMP/registry"; then
	echo "$REG_CASES" | while read -r n; do t_skip "$n" "$T_WHY"; done
elif ! { t_tmpfs "$NB"; t_podman_conf "$NB"; }; then
	echo "$REG_CASES" | while read -r n; do t_skip "$n" "cannot make node B's storage"; done
else
	T_AT_EXIT="node_b_stop $T_AT_EXIT"
	registry_cases
fi

# The same trial under docker: the record equals podman's but for what
# names the engine, its image ids, times and durations.
# Plain pass only (docs/testing.md): its docker trial's C paths run sanitized in docker_make.sh
SAME_NAME="the same trial under podman and under docker: equivalent trial records"
if t_plain_only "docker_make.sh runs a docker trial through make sanitized" "$SAME_NAME"; then
	:
elif ! command -v python3 >/dev/null 2>&1; then
	t_skip "$SAME_NAME" "no python3"
elif ! t_dockerd; then
	t_skip "$SAME_NAME" "$T_WHY"
elif ! t_docker_base debian debian:12-slim; then
	t_skip "$SAME_NAME" "$T_WHY"
else
	t_begin "$SAME_NAME"
	mv $RES "$T_TMP/podman-results"
	out=$($SK SANDBOX=docker REPEAT=1 raw-eval 2>&1)
	t_eq "docker: raw-eval exit ($out)" $? 0
	diff=$(python3 "$T_ROOT/tests/helpers/same-trial.py" "$T_TMP/podman-results/${T#$RES/}/test-001/trial.json" \
		"$T/test-001/trial.json" 2>&1)
	t_eq "equivalent records" "$diff" ""
	t_contains "docker's names docker" "$(cat $T/test-001/trial.json)" '"sandbox": "docker"'
	t_end
fi

# Rootless: podman run by nobody, with no /etc/subuid range (none is added:
# no system file changes), so its user namespace maps that one user; vfs
# then cannot give image files their owners (ignore_chown_errors: they all
# belong to it). Its own HOME, XDG_RUNTIME_DIR, storage and settings.
# Plain pass only (docs/testing.md): as root or not, skillc drives podman through the same C
# (the first case, sanitized), but for make doctor's word "rootless"; the rest is podman's
RL_NAME="rootless podman, as a user without subordinate ids: the same trial passes"
RL=$T_TMP/rootless
if t_plain_only "the first case runs the same trial's C paths sanitized, as root" "$RL_NAME"; then
	:
elif ! command -v setpriv >/dev/null 2>&1; then
	t_skip "$RL_NAME" "no setpriv (util-linux)"
else
	t_begin "$RL_NAME"
	chmod 711 "$T_TMP"
	t_tmpfs "$RL/store"
	mkdir -p "$RL/home" "$RL/xdg" "$RL/store" "$RL/tasks" "$RL/jobs" "$RL/harness"
	cp -R "$TASK" "$RL/tasks/"
	cp "$H/acpagent" "$H/agent.script.json" "$H/scripted.json" "$RL/harness/"
	printf '[storage]\ndriver = "vfs"\ngraphroot = "%s/store/root"\nrunroot = "%s/store/run"\n[storage.options.vfs]\nignore_chown_errors = "true"\n' \
		"$RL" "$RL" >"$RL/storage.conf"
	printf '[engine]\nevents_logger = "file"\nevents_logfile_path = "%s/store/events.log"\ncgroup_manager = "cgroupfs"\n[network]\nnetwork_config_dir = "%s/store/net"\n' \
		"$RL" "$RL" >"$RL/containers.conf"
	cp "$W/routes.json" "$RL/routes.json"
	# the tar t_docker_base made (base-images.sh prints where it is)
	cp "$("$T_ROOT/tests/helpers/base-images.sh" debian "${SKILLC_TEST_CACHE:-$T_ROOT/build/test-cache}" 2>/dev/null)" \
		"$RL/debian.tar"
	chown -R 65534:65534 "$RL" && chmod -R a+rX "$RL" && chmod 700 "$RL/xdg"
	AS="setpriv --reuid 65534 --regid 65534 --clear-groups env -i PATH=$T_ROOT/bin:/usr/bin:/bin HOME=$RL/home
		XDG_RUNTIME_DIR=$RL/xdg CONTAINERS_STORAGE_CONF=$RL/storage.conf CONTAINERS_CONF=$RL/containers.conf
		ROUTES=$RL/routes.json HARNESS_PATH=$RL/harness"
	# rootless podman leaves a pause process holding its user namespace: stop it by its pid
	rootless_stop() {
		$AS podman rm --all --force --time 0 >/dev/null 2>&1
		[ -s "$RL/xdg/libpod/tmp/pause.pid" ] && kill "$(cat "$RL/xdg/libpod/tmp/pause.pid")" 2>/dev/null
		return 0
	}
	T_AT_EXIT="rootless_stop $T_AT_EXIT"
	if ! $AS podman import "$RL/debian.tar" debian:12-slim >"$RL/import.out" 2>&1; then
		t_skip "$RL_NAME" "rootless podman cannot import here: $(tail -n 1 "$RL/import.out")"
	else
		t_eq "podman says rootless" "$($AS podman info --format '{{.Host.Security.Rootless}}' 2>/dev/null)" true
		OUT=$($AS SANDBOX=podman skillc-local eval run --tasks-dir "$RL/tasks/inventory-check" --agent scripted \
			--model fake/m1 --skill-mode with-skill --out "$RL/jobs" --agent-idle-timeout none 2>&1)
		t_eq "exit status ($OUT)" $? 0
		R=$RL/jobs
		t_eq "reward" "$($J "$R/trial.json" reward)" 1
		t_eq "sandbox recorded" "$($J "$R/trial.json" local.sandbox)" podman
		t_check "the verifier's tool came from the RUN step" grep -q "PASS: 4 SKUs" "$R/verifier/test-stdout.txt"
		t_check "the trial's files are the user's" test "$(stat -c %u "$R/trial.json")" = 65534
		t_eq "no container left" "$($AS podman ps -aq 2>/dev/null)" ""
		out=$($AS $T_SK -C "$RL" MODEL=fake/m1 HARNESS=scripted \
			TASKS_DIR=tasks task=inventory-check SANDBOX=podman DOCTOR_PROBE=none GOAL=raw-eval doctor 2>&1)
		t_contains "make doctor says rootless" "$out" ", rootless)"
		t_end
	fi
fi
