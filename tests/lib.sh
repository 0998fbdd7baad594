# tests/lib.sh — sourced by tests/e2e/*.sh. Each case prints one line,
# "ok <name>", "FAIL <name>: <why>" or "ok <name> # skip <why>", which
# tests/run counts as passed, failed and skipped.
#   t_begin "name"; ...; t_check "what" test -f x; ...; t_end
# t_check runs a command; when it fails the case fails with "what".
set -u
T_ROOT=${T_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
T_BIN=$T_ROOT/bin
# make driving the project's make front end, as a user's make -f does: every
# test uses this one (SK=$T_SK, or SK="$T_SK task=... MODEL=...")
T_SK="make --no-print-directory -f $T_ROOT/mk/skillc.mk"
PATH=$T_BIN:$PATH
export PATH
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/skillc-e2e.XXXXXX")
T_PIDS=
T_MOUNTS=
T_DOCKERD=
T_PODMAN=
# functions run at exit before T_PIDS are stopped (e.g. t_slurm_stop)
T_AT_EXIT=
t_at_exit() {
	for _f in $T_AT_EXIT; do $_f; done
	[ -z "$T_PIDS" ] || kill $T_PIDS 2>/dev/null
	for _m in $T_MOUNTS; do t_umount "$_m"; done
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$T_TMP"
}
trap t_at_exit EXIT
# a test stopped by a signal still stops its daemons (sh runs the EXIT trap
# only on exit, not when a signal ends it)
trap 'exit 143' TERM
trap 'exit 130' INT
# session_freeze SID, session_kill SID: stop, kill a setsid session whole
. "$T_ROOT/tests/helpers/session.sh"
t_name=
t_why=
T_FAILED=0

# T_TIMES (set by tests/run): each case's wall seconds and CPU seconds go
# there, "<wall> <cpu> <case>"; the CPU is the user+sys time of this shell and
# of the children it has waited for (/proc/$$/stat), and of the private dockerd
# while it runs, with its own children (containerd; image builds are its work):
# a daemon counts when it is reaped, and a container's processes not at all
t_cpu() {
	_p=$$
	if [ -n "$T_DOCKERD" ] && [ -r "/proc/$T_DOCKERD/task/$T_DOCKERD/children" ]; then
		_p="$_p $T_DOCKERD $(cat "/proc/$T_DOCKERD/task/$T_DOCKERD/children")"
	fi
	for _q in $_p; do sed 's/^.*) //' "/proc/$_q/stat" 2>/dev/null; done |
		awk '{ n += $12 + $13 + $14 + $15 } END { print n + 0 }'
}
t_begin() {
	t_name=$1 t_why=
	t_t0=$(date +%s)
	[ -z "${T_TIMES:-}" ] || t_c0=$(t_cpu)
}
t_fail() { [ -n "$t_why" ] || t_why=$*; }
t_check() {
	what=$1; shift
	if ! "$@" >/dev/null 2>&1; then t_fail "$what"; fi
}
# t_skip "name" "reason": a case that cannot run here; counted as skipped
t_skip() { echo "ok $1 # skip $2"; }
# t_plain_only WHY NAME...: cases run in the plain pass only. Under SANITIZE=1 (whose
# purpose is memory errors in our C) a case whose time goes to an outside engine or program
# (image builds, npm, chromium) rather than our C, and whose C paths other files run
# sanitized (WHY says which), prints each NAME (one or more lines per argument) as
# "ok NAME # skip SANITIZE=1: plain pass only; WHY" and returns 0: the caller leaves the
# cases out. In the plain pass it prints nothing and returns 1. docs/testing.md lists them.
#   if ! t_plain_only "docker.sh runs its C paths sanitized" "$NAME"; then t_begin ...; fi
t_plain_only() {
	[ -n "${SANITIZE:-}" ] || return 1
	_why=$1; shift
	printf '%s\n' "$@" | while read -r _n; do
		[ -z "$_n" ] || t_skip "$_n" "SANITIZE=1: plain pass only; $_why"
	done
}
t_end() {
	if [ -n "$t_why" ]; then echo "FAIL $t_name: $t_why"; T_FAILED=$((T_FAILED + 1)); else echo "ok $t_name"; fi
	[ -z "${T_TIMES:-}" ] || printf '%s %s %s\n' "$(( $(date +%s) - ${t_t0:-$(date +%s)} ))" \
		"$(awk -v a="${t_c0:-0}" -v b="$(t_cpu)" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) / hz }')" \
		"$t_name" >>"$T_TIMES"
}
# t_poll SECONDS CMD...: runs CMD every 0.1 s until it succeeds (0) or
# SECONDS pass (1). For waiting on daemons and jobs: never sleep-and-hope.
t_poll() {
	_end=$(( $(date +%s) + $1 )); shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.1
	done
}
# t_hold_lock RUN SECONDS: another make holding RUN's lock for SECONDS, in
# the background (its pid in t_holder: wait for it); returns once it holds
t_hold_lock() {
	flock "$1/.lock" sleep "$2" &
	t_holder=$!
	t_poll 20 sh -c "! flock -n '$1/.lock' true"
}
# t_eq "what" actual expected
t_eq() {
	if [ "$2" != "$3" ]; then t_fail "$1: got '$2', want '$3'"; fi
}
# t_contains "what" haystack needle
t_contains() {
	case $2 in *"$3"*) ;; *) t_fail "$1: '$3' not in '$2'" ;; esac
}

# t_csv_skill TASK DIR NAME TITLE: a small CSV skill in tasks/TASK's set whose
# sections (Gotchas, Steps) share csv-sum's names; t_csv_set TITLE TASK SKILL...:
# a copy of csv-column-sum whose set adds each SKILL, titled TITLE ("": its own name)
t_csv_skill() {
	mkdir -p "tasks/$1/environment/skills/$2"
	printf -- '---\nname: %s\ndescription: Helps with CSV files, part %s. Use when a task reads a .csv file.\n---\n\n# %s\n\n## Gotchas\n\n- Quote `"a, b"` fields.\n\n## Steps\n\n1. Run `head -1 file.csv`.\n' \
		"$3" "$2" "$4" >"tasks/$1/environment/skills/$2/SKILL.md"
}
t_csv_set() {
	_title=$1 _t=$2
	shift 2
	cp -R tasks/csv-column-sum "tasks/$_t"
	for _s; do t_csv_skill "$_t" "$_s" "$_s" "${_title:-$_s}"; done
}

# t_bench_work [TASK...]: the work folder of a test that runs the pipeline
# offline. W=$T_TMP/work becomes the current folder, with tasks/ (copies of
# the project's tasks, or only the TASKs named) and fake/ first on PATH: the
# stand-in bench (tests/helpers/fake-bench.sh: its log $W/bench.log, its
# outcome script $W/script, every trial passing while there is none) and the
# stand-in docker, so no test meets the machine's. SK is make with skillc.mk.
t_bench_work() {
	W=$T_TMP/work
	mkdir -p "$W/fake" "$W/tasks" && cd "$W" || exit 2
	if [ $# = 0 ]; then
		cp -R "$T_ROOT/tasks/." tasks/ || exit 2
	else
		for _t; do cp -R "$T_ROOT/tasks/$_t" tasks/ || exit 2; done
	fi
	ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
	ln -s "$T_ROOT/tests/helpers/fake-docker.sh" fake/docker
	PATH=$W/fake:$PATH
	export PATH FAKE_BENCH_LOG=$W/bench.log FAKE_BENCH_SCRIPT=$W/script
	SK=$T_SK
}

# t_fakellm DIR SCRIPT: starts our loopback model server (tests/helpers/fakellm)
# with the JSON script text SCRIPT, its files in DIR (script.json, log.jsonl,
# port); sets FAKELLM_URL (http://127.0.0.1:<port>/v1). Stopped at exit.
t_fakellm() {
	mkdir -p "$1" && printf '%s\n' "$2" >"$1/script.json"
	"$T_ROOT/build/tests/helpers/fakellm" --script "$1/script.json" --log "$1/log.jsonl" \
		--port-file "$1/port" 2>"$1/fakellm.err" &
	T_PIDS="$T_PIDS $!"
	t_poll 20 test -s "$1/port"
	FAKELLM_URL=http://127.0.0.1:$(cat "$1/port")/v1
}

# t_image_agent FILE: the scripted ACP agent built plainly into FILE, for an
# image: the agent in a container runs without the sanitizers' runtime.
t_image_agent() {
	cc -std=c11 -D_GNU_SOURCE -O2 $(pkg-config --cflags libcjson) -o "$1" "$T_ROOT/tests/helpers/acpagent.c" \
		$(pkg-config --libs libcjson)
}

# t_scripted_harness DIR NAME [MEMBERS]: DIR/NAME.json, a harness file whose
# "image" recipe bakes the scripted ACP agent (DIR/acpagent, t_image_agent)
# and its script DIR/agent.script.json into /opt/scripted of the L2;
# MEMBERS: more JSON members, each with its comma ('"env": {...}, ')
t_scripted_harness() {
	printf '{"acp_command": ["/opt/scripted/acpagent", "/opt/scripted/script.json"], "skill_paths": ["~/.opencode/skills"], %s"image": {"files": [{"src": "acpagent", "dest": "/opt/scripted/acpagent"}, {"src": "agent.script.json", "dest": "/opt/scripted/script.json"}]}}\n' \
		"${3:-}" >"$1/$2.json"
}

# t_engine_work ENGINE: the set-up the trial tests of a container engine
# (docker.sh, podman.sh) share, after t_dockerd or t_podman: J (jget); W
# ($T_TMP/work) holding tasks/inventory-check (TASK); H ($T_TMP/harness)
# with the scripted agent built and the harness files scripted.json and
# hanging.json (SCRIPTED_MODE=hang) whose script the test writes to
# $H/agent.script.json; the fake model behind a route with a key (KEY, which
# only ENV_FILE may hold); ROUTES, ENV_FILE, HARNESS_PATH exported and
# SANDBOX, IMAGE, KEEP_SANDBOX unset. Returns 1 with T_WHY when it cannot.
t_engine_work() {
	T_ENGINE=$1
	J=$T_ROOT/build/tests/helpers/jget
	H=$T_TMP/harness W=$T_TMP/work
	mkdir -p "$H" "$W/tasks" && cp -R "$T_ROOT/tasks/inventory-check" "$W/tasks/" || return 1
	TASK=$W/tasks/inventory-check
	t_image_agent "$H/acpagent" || { T_WHY="cannot build the scripted agent"; return 1; }
	t_scripted_harness "$H" scripted
	t_scripted_harness "$H" hanging '"env": {"SCRIPTED_MODE": "hang"}, '
	t_fakellm "$T_TMP/llm" '{"chat": []}'
	KEY=sk-$1-test-$$-secret
	printf '{"providers": {"fake": {"base_url": "%s", "key_env": "FAKE_KEY"}}}\n' "$FAKELLM_URL" >"$T_TMP/routes.json"
	printf 'FAKE_KEY=%s\n' "$KEY" >"$T_TMP/test.env"
	export ROUTES="$T_TMP/routes.json" ENV_FILE="$T_TMP/test.env" HARNESS_PATH="$H"
	unset SANDBOX IMAGE KEEP_SANDBOX
}
# t_trial NAME TASK [flags]: one trial of the scripted agent into
# $T_TMP/jobs-NAME (the sandbox: SANDBOX or a flag); sets RC, OUT and R (that folder)
t_trial() {
	_name=$1 _task=$2
	shift 2
	OUT=$(skillc-local eval run --tasks-dir "$_task" --agent scripted --model fake/m1 --skill-mode with-skill \
		--out "$T_TMP/jobs-$_name" --agent-idle-timeout none "$@" 2>&1)
	RC=$?
	R=$T_TMP/jobs-$_name
}
# the engine's trial containers (none once every trial is over)
t_trial_containers() { $T_ENGINE ps -aq --filter label=skillc.kind=trial; }

# t_missing_image STORE: the case "an image that does not exist" of
# T_ENGINE, STORE what its messages call where its images are
t_missing_image() {
	SANDBOX=$T_ENGINE t_trial noimage "$TASK" --image skillc/no-such-image:1
	t_eq "exit status" "$RC" 1
	t_eq "category" "$($J "$R/trial.json" error_category)" environment_build
	t_contains "says so" "$($J "$R/trial.json" error)" "the trial image 'skillc/no-such-image:1' does not exist in $1"
	SANDBOX=$T_ENGINE IMAGE=skillc/no-such-image:2 t_trial noimage2 "$TASK"
	t_eq "IMAGE: category" "$($J "$R/trial.json" error_category)" environment_build
	t_contains "IMAGE: says so" "$($J "$R/trial.json" error)" "IMAGE 'skillc/no-such-image:2' does not exist in $1"
}

# t_killed_runner: the case "kill -9 of the runner mid-trial" of T_ENGINE:
# the hanging agent's trial at work, its runner killed, its watchdog
# removes the container; the trial has no result
t_killed_runner() {
	setsid skillc-local eval run --tasks-dir "$TASK" --agent hanging --model fake/m1 --skill-mode with-skill \
		--out "$T_TMP/jobs-kill" --sandbox "$T_ENGINE" >"$T_TMP/kill.out" 2>&1 &
	_sid=$!
	t_poll 120 t_agent_hangs
	t_check "the trial's container ran" test -n "$($T_ENGINE ps -q --filter label=skillc.kind=trial)"
	_r=$T_TMP/jobs-kill
	t_eq "labelled with its trial" "$($T_ENGINE ps -q --filter "label=skillc.trial=$(cd "$_r" && pwd -P)" | wc -l)" 1
	while pkill -9 -s "$_sid" 2>/dev/null; do sleep 0.01; done
	wait $_sid 2>/dev/null
	t_poll 120 t_no_trial_container
	t_eq "gone after the watchdog passed" "$(t_trial_containers)" ""
	t_check "the trial has no result" test ! -e "$_r/trial.json"
}
# the hanging agent is at work: its container runs and it said it started
t_agent_hangs() {
	[ -n "$($T_ENGINE ps -q --filter label=skillc.kind=trial)" ] &&
		grep -qs "acpagent: started" "$T_TMP"/jobs-kill/agent/hanging.txt
}
t_no_trial_container() { [ -z "$(t_trial_containers)" ]; }

# t_tmpfs DIR: DIR (made if need be) on a private tmpfs, for an engine's vfs storage: vfs
# copies the whole image for every layer, which in memory costs memory, not minutes of
# disk (SKILLC_TEST_DOCKER_TMPFS=0: on disk; else the size cap, default 8g). Unmounted at
# exit with whatever was mounted under it. Returns 1 (DIR then on disk) when it cannot.
t_tmpfs() {
	mkdir -p "$1" || return 1
	[ "${SKILLC_TEST_DOCKER_TMPFS:-8g}" != 0 ] || return 1
	mount -t tmpfs -o "size=${SKILLC_TEST_DOCKER_TMPFS:-8g},mode=0711" skillc-test "$1" 2>/dev/null ||
		return 1
	T_MOUNTS="$1 $T_MOUNTS"
}
# t_umount DIR: every mount at or under DIR, deepest first, lazily (none is left under rm -rf)
t_umount() {
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts 2>/dev/null |
		sort -r | while read -r _m; do umount -l "$_m"; done
}

# t_dockerd: starts a private Docker daemon (containers-and-clusters.md §1):
# socket, data root, exec root and pidfile in $T_TMP/docker, vfs storage,
# no bridge, and the extra dockerd flags T_DOCKERD_ARGS holds (e.g.
# --registry-mirror URL); exports DOCKER_HOST. Stopped by pid at exit, with whatever
# containers it still runs. Returns 1, the reason in T_WHY, where dockerd is
# absent or cannot start here (the caller then t_skips).
t_dockerd() {
	T_WHY=
	command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1 ||
		{ T_WHY="no dockerd (apt-get install -y docker.io)"; return 1; }
	[ "$(id -u)" = 0 ] || { T_WHY="a private dockerd needs root"; return 1; }
	T_DOCKER=$T_TMP/docker
	t_tmpfs "$T_DOCKER"
	dockerd --host "unix://$T_DOCKER/docker.sock" --data-root "$T_DOCKER/data" --exec-root "$T_DOCKER/exec" \
		--pidfile "$T_DOCKER/docker.pid" --storage-driver vfs --iptables=false --bridge=none ${T_DOCKERD_ARGS:-} \
		>"$T_DOCKER/dockerd.log" 2>&1 &
	T_DOCKERD=$!
	T_AT_EXIT="$T_AT_EXIT t_dockerd_stop"
	DOCKER_HOST=unix://$T_DOCKER/docker.sock
	export DOCKER_HOST
	_i=0
	# the docker CLI only once the socket exists: each call costs 0.1-0.2 s of CPU, a
	# daemon's start-up seconds (test -S is the shell's own)
	until [ -S "$T_DOCKER/docker.sock" ] && docker version >/dev/null 2>&1; do
		if ! kill -0 "$T_DOCKERD" 2>/dev/null || [ $_i -ge 600 ]; then
			T_WHY="dockerd does not start here: $(tail -n 1 "$T_DOCKER/dockerd.log")"
			t_dockerd_stop
			return 1
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
}
t_dockerd_stop() {
	[ -n "$T_DOCKERD" ] || return 0
	docker ps -aq 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1
	kill "$T_DOCKERD" 2>/dev/null
	_i=0
	while kill -0 "$T_DOCKERD" 2>/dev/null && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	# mounts a daemon killed mid-way can leave (a container's shm): never leave them under rm -rf
	t_umount "$T_DOCKER"
	T_DOCKERD=
}

# t_docker_base KIND TAG [CLI]: imports a base image made without a registry
# into the private daemon (CLI podman: podman's private storage) as TAG:
# busybox, or debian (a debootstrap'd bookworm, which needs the Debian
# mirror the first time). The root filesystem tars are made once by
# tests/helpers/base-images.sh into $SKILLC_TEST_CACHE (default
# build/test-cache). Returns 1 with T_WHY when it cannot.
t_docker_base() {
	T_WHY=
	_cache=${SKILLC_TEST_CACHE:-$T_ROOT/build/test-cache}
	_tar=$("$T_ROOT/tests/helpers/base-images.sh" "$1" "$_cache" 2>"$T_TMP/base-$1.err") ||
		{ T_WHY="no $1 base image: $(tail -n 1 "$T_TMP/base-$1.err")"; return 1; }
	${3:-docker} import "$_tar" "$2" >/dev/null 2>"$T_TMP/import.err" ||
		{ T_WHY="${3:-docker} import failed: $(tail -n 1 "$T_TMP/import.err")"; return 1; }
}

# t_podman DIR: podman with every file of its own under DIR (storage root,
# run root, tmp, events log, network configs) and the vfs driver, through
# the two files podman reads when the environment names them
# (CONTAINERS_STORAGE_CONF, CONTAINERS_CONF, exported), on a tmpfs (t_tmpfs):
# nothing system-wide is read or changed. As root (tests/e2e/podman.sh runs rootless podman
# as nobody itself). At exit every container it holds is removed. Returns 1
# with T_WHY where podman is absent or cannot run a container here.
t_podman() {
	T_WHY=
	command -v podman >/dev/null 2>&1 || { T_WHY="no podman (apt-get install -y podman)"; return 1; }
	T_PODMAN=$1
	t_tmpfs "$T_PODMAN"
	t_podman_conf "$T_PODMAN" || return 1
	CONTAINERS_STORAGE_CONF=$T_PODMAN/storage.conf CONTAINERS_CONF=$T_PODMAN/containers.conf
	export CONTAINERS_STORAGE_CONF CONTAINERS_CONF
	T_AT_EXIT="$T_AT_EXIT t_podman_stop"
	# its storage opens (podman info would also ask dpkg for every package's version: seconds)
	podman images -q >"$T_PODMAN/info.out" 2>&1 ||
		{ T_WHY="podman does not run here: $(tail -n 1 "$T_PODMAN/info.out")"; return 1; }
}
# t_podman_conf DIR: DIR/storage.conf and DIR/containers.conf of a podman
# storage of its own under DIR (another node's: name them in its commands)
t_podman_conf() {
	mkdir -p "$1/root" "$1/run" "$1/tmp" "$1/net" || return 1
	printf '[storage]\ndriver = "vfs"\ngraphroot = "%s/root"\nrunroot = "%s/run"\n' "$1" "$1" >"$1/storage.conf"
	printf '[engine]\ntmp_dir = "%s/tmp"\nevents_logger = "file"\nevents_logfile_path = "%s/events.log"\ncgroup_manager = "cgroupfs"\n[network]\nnetwork_config_dir = "%s/net"\n' \
		"$1" "$1" "$1" >"$1/containers.conf"
}
t_podman_stop() {
	[ -n "$T_PODMAN" ] || return 0
	podman rm --all --force --time 0 >/dev/null 2>&1
	T_PODMAN=
}

# t_registry DIR: Debian's docker-registry on a free loopback port, its
# config, storage and log in DIR; sets T_REGISTRY (127.0.0.1:<port>) and
# T_REGISTRY_PID (stopped by pid at exit). Again with the same DIR it starts
# on the same port with the same content. Returns 1 with T_WHY when it cannot.
t_registry() {
	T_WHY=
	command -v docker-registry >/dev/null 2>&1 ||
		{ T_WHY="no docker-registry (apt-get install -y docker-registry)"; return 1; }
	if [ ! -f "$1/config.yml" ]; then
		mkdir -p "$1/data" || return 1
		printf 'version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: %s/data\nhttp:\n  addr: 127.0.0.1:%s\n' \
			"$1" "$(t_free_port)" >"$1/config.yml"
	fi
	T_REGISTRY=$(sed -n 's/^  addr: //p' "$1/config.yml")
	docker-registry serve "$1/config.yml" >>"$1/registry.log" 2>&1 &
	T_REGISTRY_PID=$!
	T_PIDS="$T_PIDS $T_REGISTRY_PID"
	t_poll 30 curl -fsS "http://$T_REGISTRY/v2/" ||
		{ T_WHY="docker-registry does not start here: $(tail -n 1 "$1/registry.log")"; return 1; }
}
# t_registry_tamper DIR REF: changes, in the storage of DIR's registry, the
# manifest REF (...@sha256:<digest>) names, so it no longer has its digest
t_registry_tamper() {
	_d=${2##*@sha256:}
	_blob=$1/data/docker/registry/v2/blobs/sha256/$(printf %.2s "$_d")/$_d/data
	[ -f "$_blob" ] && printf ' ' >>"$_blob"
}

# t_slurm DIR: starts a private single-node Slurm cluster with every file
# in DIR: munged on its own socket and key, slurmctld and slurmd with their
# own state, spool, log and pid files on two free ports, so it never meets
# another cluster (or another test's). Exports SLURM_CONF, which every Slurm
# command reads. Returns 1 with T_SLURM_WHY set (and the daemons' logs on
# stderr) when it cannot start; the caller skips. At exit its jobs are
# cancelled and its daemons stopped by pid (t_slurm_stop).
t_slurm() {
	T_SLURM=$1 T_SLURM_PIDS= T_SLURM_WHY=
	for _p in munged slurmctld slurmd srun sinfo squeue scancel sacct scontrol; do
		command -v $_p >/dev/null 2>&1 || { T_SLURM_WHY="no $_p (apt-get install -y slurm-wlm munge)"; return 1; }
	done
	[ "$(id -u)" = 0 ] || { T_SLURM_WHY="slurmd needs root"; return 1; }
	# a test run inside a Slurm job must not talk to that job's cluster
	for _v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$_v"; done
	T_AT_EXIT="$T_AT_EXIT t_slurm_stop"
	mkdir -p "$T_SLURM/munge" "$T_SLURM/state" "$T_SLURM/spool" "$T_SLURM/log" "$T_SLURM/run" || return 1
	chmod 700 "$T_SLURM/munge"
	head -c 1024 /dev/urandom >"$T_SLURM/munge/munge.key" && chmod 400 "$T_SLURM/munge/munge.key"
	# in the foreground, as our children: we know their pids and reap them
	munged --foreground --force --socket="$T_SLURM/munge/socket" --key-file="$T_SLURM/munge/munge.key" \
		--log-file="$T_SLURM/log/munged.log" --pid-file="$T_SLURM/run/munged.pid" \
		--seed-file="$T_SLURM/munge/seed" 2>>"$T_SLURM/log/daemons.err" &
	T_SLURM_MUNGED=$!
	if ! t_poll 20 test -S "$T_SLURM/munge/socket"; then
		T_SLURM_WHY="munged did not start"; t_slurm_logs; return 1
	fi
	: >"$T_SLURM/plugstack.conf"
	_try=1
	while :; do
		t_slurm_conf && t_slurm_start && [ "$(sinfo --noheader --format=%t 2>/dev/null)" = idle ] && return 0
		t_slurm_stop_daemons
		[ $_try -lt 3 ] || break
		_try=$((_try + 1))
	done
	T_SLURM_WHY="slurmctld/slurmd did not come up (their logs are on stderr)"
	t_slurm_logs
	return 1
}

# a TCP port nothing listens on (another test may take it first: t_slurm retries)
t_free_port() {
	while :; do
		_port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 ))
		_hex=$(printf '%04X' $_port)
		awk '{ print $2 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q ":$_hex\$" || break
	done
	echo $_port
}

t_slurm_conf() {
	T_SLURM_NODE=$(hostname -s)
	export SLURM_CONF="$T_SLURM/slurm.conf"
	cat >"$SLURM_CONF" <<EOF
ClusterName=skillc-test
SlurmctldHost=$T_SLURM_NODE(127.0.0.1)
SlurmctldPort=$(t_free_port)
SlurmdPort=$(t_free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T_SLURM/munge/socket
PlugStackConfig=$T_SLURM/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=10
StateSaveLocation=$T_SLURM/state
SlurmdSpoolDir=$T_SLURM/spool
SlurmctldPidFile=$T_SLURM/run/slurmctld.pid
SlurmdPidFile=$T_SLURM/run/slurmd.pid
SlurmctldLogFile=$T_SLURM/log/slurmctld.log
SlurmdLogFile=$T_SLURM/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T_SLURM/log/jobcomp.txt
NodeName=$T_SLURM_NODE NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=100 State=UNKNOWN
PartitionName=main Nodes=$T_SLURM_NODE Default=YES State=UP OverSubscribe=FORCE:4 MaxTime=INFINITE
EOF
}

t_slurm_start() {
	slurmctld -D -f "$SLURM_CONF" 2>>"$T_SLURM/log/daemons.err" &
	T_SLURM_PIDS=$!
	slurmd -D -f "$SLURM_CONF" -N "$T_SLURM_NODE" 2>>"$T_SLURM/log/daemons.err" &
	T_SLURM_PIDS="$! $T_SLURM_PIDS"
	t_poll 60 t_slurm_idle
}

# the node is idle, or a daemon has died (then the poll ends at once, failing)
t_slurm_idle() {
	for _pid in $T_SLURM_PIDS; do t_gone "$_pid" && return 0; done
	[ "$(sinfo --noheader --format=%t 2>/dev/null)" = idle ]
}

# the last lines of every daemon log, on stderr (tests/run shows them on failure)
t_slurm_logs() {
	for _l in "$T_SLURM"/log/*; do
		[ -f "$_l" ] || continue
		echo "--- $_l" >&2
		tail -n 15 "$_l" >&2
	done
}

# t_gone PID: the process has ended (a zombie nobody reaps counts as ended)
t_gone() { [ ! -e "/proc/$1" ] || grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
# t_stop_pids PID...: SIGTERM to each in turn, waiting for it to go (SIGKILL after 20 s)
t_stop_pids() {
	for _pid; do
		kill "$_pid" 2>/dev/null || continue
		t_poll 20 t_gone "$_pid" || kill -9 "$_pid" 2>/dev/null
	done
}

t_slurm_stop_daemons() {
	t_stop_pids $T_SLURM_PIDS
	wait $T_SLURM_PIDS 2>/dev/null
	T_SLURM_PIDS=
}

t_slurm_no_jobs() { [ -z "$(squeue --noheader --format=%i 2>/dev/null)" ]; }

t_slurm_stop() {
	[ -n "${T_SLURM:-}" ] || return 0
	if [ -n "$T_SLURM_PIDS" ]; then
		scancel --user="$(id -u)" 2>/dev/null
		t_poll 60 t_slurm_no_jobs
		[ "$T_FAILED" = 0 ] || t_slurm_logs
	fi
	t_slurm_stop_daemons
	t_stop_pids ${T_SLURM_MUNGED:-}
	wait ${T_SLURM_MUNGED:-} 2>/dev/null
	T_SLURM_MUNGED=
}
