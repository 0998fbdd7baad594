# tests/lib.sh — sourced by tests/e2e/*.sh. Each case prints one line,
# "ok <name>" or "FAIL <name>: <why>", which tests/run counts.
#   t_begin "name"; ...; t_check "what" test -f x; ...; t_end
# t_check runs a command; when it fails the case fails with "what".
set -u
T_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T_BIN=$T_ROOT/bin
PATH=$T_BIN:$PATH
export PATH
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/skillc-e2e.XXXXXX")
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$T_TMP"' EXIT
t_name=
t_why=

t_begin() { t_name=$1; t_why=; }
t_fail() { [ -n "$t_why" ] || t_why=$*; }
t_check() {
	what=$1; shift
	if ! "$@" >/dev/null 2>&1; then t_fail "$what"; fi
}
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
