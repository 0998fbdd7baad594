# tests/helpers/session.sh — sourced by the crash tests and bench/crash.sh:
# freeze and kill a whole session started with setsid.

# session_freeze SID: SIGSTOP every process of session SID, again until
# none is left running (1 after 10 s). One pkill walks /proc once: a
# process forked during the walk escapes it and keeps working (a stage
# starting skillc-deep did, and cached an answer while the caller counted).
session_freeze() {
	_sf=0
	while [ $_sf -lt 1000 ]; do
		pkill -STOP -s "$1" 2>/dev/null
		# T stopped, t traced, Z exited: nothing else may be left
		ps -s "$1" -o stat= 2>/dev/null | grep -qv '^[TtZ]' || return 0
		sleep 0.01
		_sf=$((_sf + 1))
	done
	return 1
}

# session_kill SID: SIGKILL everything of session SID, again until nothing
# is left (a process forked while pkill walks the list escapes one pass)
session_kill() {
	while pkill -9 -s "$1" 2>/dev/null; do sleep 0.01; done
}
