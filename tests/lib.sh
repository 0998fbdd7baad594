# tests/lib.sh — sourced by tests/e2e/*.sh. Each case prints one line,
# "ok <name>", "FAIL <name>: <why>" or "ok <name> # skip <why>", which
# tests/run counts as passed, failed and skipped.
#   t_begin "name"; ...; t_check "what" test -f x; ...; t_end
# t_check runs a command; when it fails the case fails with "what".
set -u
T_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T_BIN=$T_ROOT/bin
PATH=$T_BIN:$PATH
export PATH
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/skillc-e2e.XXXXXX")
T_PIDS=
T_DOCKERD=
t_cleanup() {
	[ -z "$T_DOCKERD" ] || t_dockerd_stop
	[ -z "$T_PIDS" ] || kill $T_PIDS 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$T_TMP"
}
trap t_cleanup EXIT
t_name=
t_why=

t_begin() { t_name=$1; t_why=; }
t_fail() { [ -n "$t_why" ] || t_why=$*; }
t_check() {
	what=$1; shift
	if ! "$@" >/dev/null 2>&1; then t_fail "$what"; fi
}
# t_skip "name" "reason": a case that cannot run here; counted as skipped
t_skip() { echo "ok $1 # skip $2"; }
t_end() {
	if [ -n "$t_why" ]; then echo "FAIL $t_name: $t_why"; else echo "ok $t_name"; fi
}
# t_eq "what" actual expected
t_eq() {
	if [ "$2" != "$3" ]; then t_fail "$1: got '$2', want '$3'"; fi
}
# t_contains "what" haystack needle
t_contains() {
	case $2 in *"$3"*) ;; *) t_fail "$1: '$3' not in '$2'" ;; esac
}

# t_fakellm DIR SCRIPT: starts our loopback model server (tests/helpers/fakellm)
# with the JSON script text SCRIPT, its files in DIR (script.json, log.jsonl,
# port); sets FAKELLM_URL (http://127.0.0.1:<port>/v1). Stopped at exit.
t_fakellm() {
	mkdir -p "$1" && printf '%s\n' "$2" >"$1/script.json"
	"$T_ROOT/build/tests/helpers/fakellm" --script "$1/script.json" --log "$1/log.jsonl" \
		--port-file "$1/port" 2>"$1/fakellm.err" &
	T_PIDS="$T_PIDS $!"
	_i=0
	while [ ! -s "$1/port" ] && [ $_i -lt 250 ]; do sleep 0.02; _i=$((_i + 1)); done
	FAKELLM_URL=http://127.0.0.1:$(cat "$1/port")/v1
}

# t_dockerd: starts a private Docker daemon (containers-and-clusters.md §1):
# socket, data root, exec root and pidfile in $T_TMP/docker, vfs storage,
# no bridge; exports DOCKER_HOST. Stopped by pid at exit, with whatever
# containers it still runs. Returns 1, the reason in T_WHY, where dockerd is
# absent or cannot start here (the caller then t_skips).
t_dockerd() {
	T_WHY=
	command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1 ||
		{ T_WHY="no dockerd (apt-get install -y docker.io)"; return 1; }
	[ "$(id -u)" = 0 ] || { T_WHY="a private dockerd needs root"; return 1; }
	T_DOCKER=$T_TMP/docker
	mkdir -p "$T_DOCKER"
	# vfs copies the whole image for every layer: on a tmpfs that costs memory, not minutes
	# of disk (SKILLC_TEST_DOCKER_TMPFS=0: on disk; else its size cap)
	T_DOCKER_TMPFS=
	if [ "${SKILLC_TEST_DOCKER_TMPFS:-8g}" != 0 ] &&
		mount -t tmpfs -o "size=${SKILLC_TEST_DOCKER_TMPFS:-8g},mode=0711" skillc-test-docker "$T_DOCKER" 2>/dev/null; then
		T_DOCKER_TMPFS=1
	fi
	dockerd --host "unix://$T_DOCKER/docker.sock" --data-root "$T_DOCKER/data" --exec-root "$T_DOCKER/exec" \
		--pidfile "$T_DOCKER/docker.pid" --storage-driver vfs --iptables=false --bridge=none \
		>"$T_DOCKER/dockerd.log" 2>&1 &
	T_DOCKERD=$!
	DOCKER_HOST=unix://$T_DOCKER/docker.sock
	export DOCKER_HOST
	_i=0
	until docker version >/dev/null 2>&1; do
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
	docker ps -aq 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1
	kill "$T_DOCKERD" 2>/dev/null
	_i=0
	while kill -0 "$T_DOCKERD" 2>/dev/null && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	# mounts a daemon killed mid-way can leave (a container's shm): never leave them under rm -rf
	grep -o " $T_DOCKER/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do umount -l "$m"; done
	[ -z "$T_DOCKER_TMPFS" ] || umount -l "$T_DOCKER"
	T_DOCKERD=
}

# t_docker_base KIND TAG: imports a base image made without a registry into
# the private daemon as TAG: busybox, or debian (a debootstrap'd bookworm,
# which needs the Debian mirror the first time). The root filesystem tars
# are made once by tests/helpers/base-images.sh into $SKILLC_TEST_CACHE
# (default build/test-cache). Returns 1 with T_WHY when it cannot.
t_docker_base() {
	T_WHY=
	_cache=${SKILLC_TEST_CACHE:-$T_ROOT/build/test-cache}
	_tar=$("$T_ROOT/tests/helpers/base-images.sh" "$1" "$_cache" 2>"$T_TMP/base-$1.err") ||
		{ T_WHY="no $1 base image: $(tail -n 1 "$T_TMP/base-$1.err")"; return 1; }
	docker import "$_tar" "$2" >/dev/null 2>"$T_TMP/import.err" ||
		{ T_WHY="docker import failed: $(tail -n 1 "$T_TMP/import.err")"; return 1; }
}
