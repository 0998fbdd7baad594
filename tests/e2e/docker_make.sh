#!/bin/sh
# docker_make.sh — the baked images of SANDBOX=docker as make targets, with
# a REAL Docker daemon the test starts on a private socket (tests/lib.sh):
# `make images` builds each task's L1 and L2 once, keyed by content; one
# byte of environment/ rebuilds that task's L1 and its L2s only; an L2
# deleted behind make's back is built again; trials through make run in the
# L2; kill -9 of make mid-trial leaves no container once the next make has
# passed, and the trial runs again whole.
. "$(dirname "$0")/../lib.sh"

NAMES="make images: each L1 and L2 built once; a second make images builds nothing
one byte of environment/ rebuilds that task's L1 and its L2s only
docker rmi of an L2 behind make's back: the next make builds it again
make doctor SANDBOX=docker: the daemon, its storage, proxies, the architecture, the run's images
QEMU: an image of another architecture is emulated, or a problem saying what to install
make raw-eval SANDBOX=docker: trials in the L2, keyed by its tag
POOL_TASKS: a pooled task's own L1 and L2 in the tuned run, its trial in its own L2
kill -9 of make mid-trial: no container left once the next make has passed; the trial runs again
a Dockerfile that fails to build: make images fails with one environment_build line
SANDBOX=bwrap: no images in the run
a key planted in a docker run (.env, make's environment, the agent's output): in no layer of the run's images, no file of the run"
skip_all() { echo "$NAMES" | while read -r n; do t_skip "$n" "$1"; done; exit 0; }
t_dockerd || skip_all "$T_WHY"
t_docker_base debian debian:12-slim || skip_all "$T_WHY"
t_docker_base busybox bb:local || skip_all "$T_WHY"

H=$T_TMP/harness W=$T_TMP/work
mkdir -p "$H" "$W"
cp -R "$T_ROOT/tasks" "$W/tasks"
# log-error-report's 60 s build_timeout_sec ran out for a three-step build under vfs at load
# 21: what these cases check is make's image graph, not how fast the daemon builds
sed -i 's/^build_timeout_sec = .*/build_timeout_sec = 1200/' "$W"/tasks/*/task.toml || exit 2
t_image_agent "$H/acpagent" || skip_all "cannot build the scripted agent"
cat >"$H/agent.script.json" <<'EOF'
{"agent_name": "Scripted", "steps": [{"skill": "low-stock"},
  {"exec": "[ \"$SCRIPTED_MODE\" = hang ] && sleep 600; awk -F, 'NR > 1 && $2 + 0 < 5 { print $1 }' /root/stock.csv | sort > /root/low-stock.txt"},
  {"message": "done"}]}
EOF
t_scripted_harness "$H" scripted
t_scripted_harness "$H" other
t_scripted_harness "$H" hanging '"env": {"SCRIPTED_MODE": "hang"}, '
t_fakellm "$T_TMP/llm" '{"chat": []}'
printf '{"providers": {"fake": {"base_url": "%s", "key_required": false}}}\n' "$FAKELLM_URL" >"$W/routes.json"
export HARNESS_PATH="$H" ROUTES="$W/routes.json"
unset SANDBOX IMAGE
cd "$W" || exit 2
SK="$T_SK MODEL=fake/m1 SANDBOX=docker"
RES=results/compile-pipeline
trial_containers() { docker ps -aq --filter label=skillc.kind=trial; }
# img TASK HARNESS: the image ids (L1 L2) a run's stamps name
img() { echo "$(cut -d' ' -f1 $RES/$1--$2--fake_m1/images/$1.l1.id) $(cut -d' ' -f1 $RES/$1--$2--fake_m1/images/$1--$2.l2.id)"; }

t_begin "make images: each L1 and L2 built once; a second make images builds nothing"
out=$($SK tasks="inventory-check log-error-report" HARNESS=scripted -j2 images 2>&1)
t_eq "exit ($out)" $? 0
t_contains "L1 built" "$out" "built skillc/l1-inventory-check:"
t_contains "L2 built" "$out" "built skillc/l2-inventory-check--scripted:"
t_contains "the other task's too" "$out" "built skillc/l2-log-error-report--scripted:"
out=$($SK task=inventory-check HARNESS=other images 2>&1)
t_eq "second harness: exit" $? 0
t_contains "its L1 found, not built" "$out" "found skillc/l1-inventory-check:"
t_contains "its own L2 built" "$out" "built skillc/l2-inventory-check--other:"
out=$($SK tasks="inventory-check log-error-report" HARNESS=scripted images 2>&1)
t_eq "again: exit" $? 0
case $out in *started*|*built*) t_fail "a second make images ran a stage: $out" ;; esac
t_check "verified in the daemon" docker image inspect $(img inventory-check scripted)
t_end

t_begin "one byte of environment/ rebuilds that task's L1 and its L2s only"
before_inv=$(img inventory-check scripted) before_other=$(img inventory-check other) before_log=$(img log-error-report scripted)
echo "H-808,2,shelf 9" >>tasks/inventory-check/environment/stock.csv
out=$($SK tasks="inventory-check log-error-report" HARNESS=scripted images 2>&1)
t_eq "exit" $? 0
t_contains "L1 rebuilt" "$out" "built skillc/l1-inventory-check:"
t_contains "L2 rebuilt" "$out" "built skillc/l2-inventory-check--scripted:"
case $out in *log-error-report*) t_fail "the other task's images were touched: $out" ;; esac
out=$($SK task=inventory-check HARNESS=other images 2>&1)
t_contains "its other L2 rebuilt" "$out" "built skillc/l2-inventory-check--other:"
t_eq "the other task's ids" "$(img log-error-report scripted)" "$before_log"
[ "$(img inventory-check scripted)" != "$before_inv" ] || t_fail "inventory-check's images did not change"
[ "$(img inventory-check other)" != "$before_other" ] || t_fail "inventory-check's other L2 did not change"
# a change under environment/skills/ builds nothing: the skill is not in the image
echo "- One more gotcha." >>tasks/inventory-check/environment/skills/low-stock/SKILL.md
out=$($SK task=inventory-check HARNESS=scripted images 2>&1)
case $out in *built*) t_fail "a skill edit rebuilt an image: $out" ;; esac
t_end

t_begin "docker rmi of an L2 behind make's back: the next make builds it again"
l2=$(cut -d' ' -f2 $RES/inventory-check--scripted--fake_m1/images/inventory-check--scripted.l2.id)
docker rmi "$l2" >/dev/null 2>&1
out=$($SK task=inventory-check HARNESS=scripted images 2>&1)
t_eq "exit" $? 0
t_contains "says why" "$out" "output images/inventory-check--scripted.l2.id names an image that is gone from the Docker daemon"
t_contains "L2 built again" "$out" "built $l2"
case $out in *"built skillc/l1"*) t_fail "the L1 was rebuilt too: $out" ;; esac
t_check "it is there" docker image inspect "$l2"
t_end

t_begin "make doctor SANDBOX=docker: the daemon, its storage, proxies, the architecture, the run's images"
out=$(HTTPS_PROXY=http://user:pw@127.0.0.1:3128 $SK task=inventory-check HARNESS=scripted DOCTOR_PROBE=none doctor 2>&1)
t_contains "the daemon" "$out" "ok      docker: the daemon at $DOCKER_HOST answers: Docker "
t_contains "its storage" "$out" "ok      docker-storage: vfs (copies the whole image for every layer"
t_contains "its mirrors" "$out" "ok      docker-mirrors: the daemon's registry mirrors: none"
t_contains "the proxy, without its password" "$out" "ok      docker-proxy: HTTPS_PROXY=http://***@127.0.0.1:3128: builds get it"
t_contains "a loopback proxy explained" "$out" "a loopback proxy serves builds (--network host) but not a trial container"
case $out in *pw@*) t_fail "the proxy's password printed: $out" ;; esac
t_contains "the architecture" "$out" "ok      docker-arch: task inventory-check: host and image are both"
t_contains "no emulation" "$out" "no emulation"
t_contains "host programs run" "$out" "ok      docker-binfmt: a plain host program (sleep) runs"
t_contains "the L1 exists" "$out" "ok      docker-images: the L1 of inventory-check: skillc/l1-inventory-check:"
t_contains "the L2 exists" "$out" "ok      docker-images: the L2 of inventory-check with scripted: skillc/l2-inventory-check--scripted:"
t_contains "the model from inside a container, no network" "$out" "ok      docker-model: fake/m1 answers a container with --network none over the model relay: HTTP/1.1 "
t_eq "no doctor container left" "$(docker ps -aq --filter label=skillc.kind=doctor)" ""
cp -R tasks/inventory-check tasks/online
sed -i 's/^allow_internet = false/allow_internet = true/' tasks/online/task.toml
out=$($SK task=online HARNESS=scripted DOCTOR_PROBE=none doctor 2>&1)
t_contains "a task that allows internet: its network" "$out" "ok      docker-model: fake/m1 answers a container with the daemon's default network (the task allows internet) over the model relay: HTTP/1.1 "
printf '{"providers": {"down": {"base_url": "http://127.0.0.1:%s/v1", "key_required": false}}}\n' "$(t_free_port)" >"$W/down.json"
out=$(ROUTES=$W/down.json $SK task=inventory-check HARNESS=scripted DOCTOR_PROBE=none MODEL=down/m1 doctor 2>&1)
t_contains "a model server that is down: a problem" "$out" "problem docker-model: down/m1 is not reached from a container with --network none and the model relay: "
t_contains "saying why" "$out" "closed the connection without an answer"
out=$($SK task=inventory-check HARNESS=fresh DOCTOR_PROBE=none doctor 2>&1)
t_contains "an L2 never built is due" "$out" "ok      docker-images: the L2 of inventory-check with fresh: due (make images builds it)"
out=$($SK task=inventory-check HARNESS=scripted SANDBOX=bwrap DOCTOR_PROBE=none doctor 2>&1)
t_contains "SANDBOX=bwrap: bubblewrap is checked" "$out" " SANDBOX: "
case $out in *" docker: "*|*" docker-"*) t_fail "SANDBOX=bwrap made docker checks: $out" ;; esac
out=$(DOCKER_HOST=unix://$T_TMP/none.sock $SK task=inventory-check HARNESS=scripted DOCTOR_PROBE=none doctor 2>&1)
t_eq "a daemon that is down: exit" $? 1
t_contains "says so" "$out" "problem docker: the Docker daemon at unix://$T_TMP/none.sock does not answer"
t_end

t_begin "QEMU: an image of another architecture is emulated, or a problem saying what to install"
host=$(docker info --format '{{.Architecture}}')
case $host in x86_64|amd64) other=arm64 qemu=aarch64 ;; *) other=amd64 qemu=x86_64 ;; esac
cp -R tasks/log-error-report tasks/foreign
printf 'FROM --platform=linux/%s bb:local\nRUN true\n' $other >tasks/foreign/environment/Dockerfile
FSK="$SK task=foreign HARNESS=scripted DOCTOR_PROBE=none"
out=$($FSK QEMU=no doctor 2>&1)
t_eq "QEMU=no: exit" $? 1
t_contains "QEMU=no: a problem" "$out" "problem docker-arch: task foreign: the image is $other, the host"
t_contains "QEMU=no: what to do" "$out" "and QEMU=no: use an image for"
out=$($FSK QEMU=yes doctor 2>&1)
t_contains "QEMU=yes: emulated" "$out" "ok      docker-arch: task foreign: the image is $other"
t_contains "QEMU=yes: the platform" "$out" "emulated with qemu-user-static (--platform linux/$other"
out=$($FSK doctor 2>&1)
if grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-$qemu; then
	t_contains "QEMU=auto: emulated, qemu-$qemu registered" "$out" "ok      docker-arch: task foreign: the image is $other"
else
	t_contains "QEMU=auto: no qemu-$qemu registered: a problem" "$out" "no qemu-$qemu handler is registered in /proc/sys/fs/binfmt_misc: apt-get install -y qemu-user-static"
	out=$($FSK QEMU=auto images 2>&1)
	t_eq "make images: exit (the build failed: 1)" $? 1
	t_contains "make images: one environment_build line" "$out" "environment_build: the image is $other, the host"
fi
out=$($FSK QEMU=maybe doctor 2>&1)
t_contains "a bad QEMU: names the choices" "$out" "QEMU"
t_end

t_begin "make raw-eval SANDBOX=docker: trials in the L2, keyed by its tag"
out=$($SK task=inventory-check HARNESS=scripted REPEAT=2 -j2 raw-eval 2>&1)
t_eq "exit ($out)" $? 0
T=$RES/inventory-check--scripted--fake_m1/traces/inventory-check/raw
for n in 001 002; do
	t_contains "trial $n passed" "$(cat $T/test-$n/trial.json)" '"outcome": "passed"'
done
t_contains "in the L2" "$(cat $T/test-001/trial.json)" "\"image\": \"$l2\""
t_contains "the key names it" "$(cat $T/test-001/trial.json)" '"sandbox": "docker"'
t_eq "no container left" "$(trial_containers)" ""
t_end

t_begin "POOL_TASKS: a pooled task's own L1 and L2 in the tuned run, its trial in its own L2"
PSK="$SK RESULTS=pooled task=inventory-check POOL_TASKS=log-error-report HARNESS=scripted REPEAT=1"
out=$($PSK images 2>&1)
t_eq "make images: exit ($out)" $? 0
t_contains "the pooled task's L2: found in the daemon, not built" "$out" "found skillc/l2-log-error-report--scripted:"
P=pooled/inventory-check--scripted--fake_m1
own=$(cut -d' ' -f2 $RES/log-error-report--scripted--fake_m1/images/log-error-report--scripted.l2.id)
t_eq "its stamp names its own run's image" "$(cut -d' ' -f2 $P/images/log-error-report--scripted.l2.id)" "$own"
out=$($PSK raw-eval-pool 2>&1)
t_eq "a pooled trial: exit ($out)" $? 0
t_contains "ran in the pooled task's L2" "$(cat $P/traces/log-error-report/raw/test-001/trial.json)" "\"image\": \"$own\""
t_eq "no container left" "$(trial_containers)" ""
t_end

t_begin "kill -9 of make mid-trial: no container left once the next make has passed; the trial runs again"
HSK="$SK task=inventory-check HARNESS=hanging REPEAT=1"
$HSK images >/dev/null 2>&1
setsid $HSK raw-eval >"$T_TMP/kill.out" 2>&1 &
sid=$!
i=0
until { [ -n "$(docker ps -q --filter label=skillc.kind=trial)" ] &&
	grep -qs "acpagent: started" $RES/inventory-check--hanging--fake_m1/traces/inventory-check/raw/.test-001.tmp.*/raw/agent/hanging.txt; } ||
	[ $i -ge 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
t_check "a trial container ran" test -n "$(trial_containers)"
while pkill -9 -s "$sid" 2>/dev/null; do sleep 0.01; done
wait $sid 2>/dev/null
# the next make would run the hanging trial again: the normal harness takes over the same run
t_scripted_harness "$H" hanging
out=$($HSK raw-eval 2>&1)
t_eq "the next make: exit ($out)" $? 0
i=0
while [ -n "$(trial_containers)" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "no container left" "$(trial_containers)" ""
T=$RES/inventory-check--hanging--fake_m1
t_contains "the trial ran again and passed" "$(cat $T/traces/inventory-check/raw/test-001/trial.json)" '"outcome": "passed"'
t_check "the cut-short attempt kept aside" test -n "$(ls -A $T/.incomplete 2>/dev/null)"
left=$(find $T/traces -name '.*.tmp.*' | head -n 1)
t_eq "nothing half-written left" "$left" ""
t_end

t_begin "a Dockerfile that fails to build: make images fails with one environment_build line"
cp -R tasks/log-error-report tasks/broken
printf 'FROM bb:local\nRUN echo about to fail && false\n' >tasks/broken/environment/Dockerfile
out=$($SK task=broken HARNESS=scripted images 2>&1)
t_eq "exit (the build failed: 1)" $? 1
t_contains "one line naming the step" "$out" "environment_build: the Dockerfile of task broken failed at Step 2/2 : RUN echo about to fail && false"
t_check "no stamp" test ! -e $RES/broken--scripted--fake_m1/images/broken.l1.id
out=$($SK task=broken HARNESS=scripted status 2>&1)
t_contains "status says why" "$out" "environment_build"
t_end

t_begin "SANDBOX=bwrap: no images in the run
a key planted in a docker run (.env, make's environment, the agent's output): in no layer of the run's images, no file of the run"
out=$($SK task=log-error-report HARNESS=scripted SANDBOX=bwrap images 2>&1)
t_eq "exit" $? 0
t_contains "says so" "$out" "no images in this run: they are for RUNNER=local SANDBOX=docker"
t_end

t_begin "a key planted in a docker run (.env, make's environment, the agent's output): in no layer of the run's images, no file of the run"
KEY=sk-planted-docker-$$-7f3e9a
printf '{"providers": {"fake": {"base_url": "%s", "key_env": "FAKE_KEY"}}}\n' "$FAKELLM_URL" >"$W/keyed.json"
printf 'FAKE_KEY=%s\n' "$KEY" >"$W/keyed.env"
# an agent that writes the key it was given into its output, baked into an
# L2 of its own (built now, with the key in make's environment)
cat >"$H/leak.script.json" <<'EOF'
{"agent_name": "Scripted", "steps": [{"skill": "low-stock"},
  {"exec": "echo \"key=$SKILLC_MODEL_API_KEY\" >/logs/artifacts/leak; echo \"$SKILLC_MODEL_API_KEY\" >/root/leak.txt"},
  {"exec": "awk -F, 'NR > 1 && $2 + 0 < 5 { print $1 }' /root/stock.csv | sort > /root/low-stock.txt"},
  {"message": "done"}]}
EOF
printf '{"acp_command": ["/opt/scripted/acpagent", "/opt/scripted/script.json"], "skill_paths": ["~/.opencode/skills"], "image": {"files": [{"src": "acpagent", "dest": "/opt/scripted/acpagent"}, {"src": "leak.script.json", "dest": "/opt/scripted/script.json"}]}}\n' >"$H/leaky.json"
out=$(FAKE_KEY=$KEY $SK task=inventory-check HARNESS=leaky REPEAT=1 RESULTS=keyed ROUTES="$W/keyed.json" \
	ENV_FILE="$W/keyed.env" CACHE_DIR="$W/keyed-cache" raw-eval 2>&1)
t_eq "exit ($out)" $? 0
KR=keyed/inventory-check--leaky--fake_m1
t_contains "the trial passed" "$(cat $KR/traces/inventory-check/raw/test-001/trial.json)" '"outcome": "passed"'
t_check "the agent had the key (redacted in its output)" grep -rqx 'key=\*\*\*REDACTED\*\*\*' $KR/traces
t_eq "files of the run and its caches holding it" "$(grep -rlF "$KEY" keyed "$W/keyed-cache" 2>/dev/null)" ""
# every file of every layer of the run's images, as docker save gives them
# (tar layers, gzip ones unpacked); finding the agent's script shows the
# grep sees into the layers
ids=$(cut -d' ' -f1 $KR/images/*.id)
t_eq "the run's images: an L1 and an L2" "$(echo $ids | wc -w)" 2
seen=0
for id in $ids; do
	rm -rf "$T_TMP/img" && mkdir "$T_TMP/img"
	docker save "$id" | tar -xf - -C "$T_TMP/img" || t_fail "docker save $id"
	held=0
	for f in $(find "$T_TMP/img" -type f); do
		if gzip -t "$f" 2>/dev/null; then zcat "$f"; else cat "$f"; fi >"$T_TMP/layer"
		grep -aqF "$KEY" "$T_TMP/layer" && held=$((held + 1))
		grep -aqF 'SKILLC_MODEL_API_KEY' "$T_TMP/layer" && seen=$((seen + 1))
	done
	t_eq "files of image $id holding the key" $held 0
	t_check "its history holds no key" sh -c "! docker history --no-trunc $id | grep -qF '$KEY'"
	t_check "its settings hold no key" sh -c "! docker image inspect $id | grep -qF '$KEY'"
done
rm -rf "$T_TMP/img" "$T_TMP/layer"
t_check "the grep sees into the layers (the agent's script is found)" test $seen -ge 1
t_end
