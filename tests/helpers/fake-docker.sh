#!/bin/sh
# fake-docker.sh — the project's stand-in for `docker` in tests of
# skillc-eval's best-effort cleanup after a killed trial. Logs every call to
# $FAKE_DOCKER_LOG. `ps -aq` lists two containers; `inspect` reports that
# c-trial bind-mounts folders inside the trial being built under
# $FAKE_DOCKER_TRIALS (its .test-*.tmp.* folder) and c-other does not.
printf '%s\n' "$*" >>"${FAKE_DOCKER_LOG:-/dev/null}"
case $1 in
ps) printf 'c-other\nc-trial\n' ;;
inspect)
	t=$(ls -d "$FAKE_DOCKER_TRIALS"/.test-*.tmp.* 2>/dev/null | head -1)
	printf 'c-other /var/lib/elsewhere\n'
	printf 'c-trial %s/raw/job/demo__1/agent %s/raw/job/demo__1/verifier\n' "$t" "$t" ;;
rm) ;;
*) echo "fake docker: unsupported: $*" >&2; exit 1 ;;
esac
