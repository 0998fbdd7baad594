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
trap '[ -z "$T_PIDS" ] || kill $T_PIDS 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$T_TMP"' EXIT
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
