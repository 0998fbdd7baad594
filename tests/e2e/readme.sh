#!/bin/sh
# End-to-end: README.md's main-job commands work as written. The fenced
# block under "## The main job" is read from README.md itself and each of
# its commands is run in order, as a user pastes them, in a scratch folder
# whose local.mk points the runner and the models at the stand-ins (the
# stand-in bench, the loopback model server as both providers and as
# AgentRM). Left out, and said so: make doctor (it probes the real machine)
# and the two-model matrix (a second pipeline proves nothing new here).
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE CACHE_DIR LLM_CACHE REPEAT DEEP_ROUNDS RUNNER RESULTS TASKS_DIR
t_bench_work log-error-report csv-column-sum
L=$T_TMP/llm
t_fakellm "$L" '{"chat": [{"json": {"findings": [], "scores": [], "patches": []}}], "health": [{"body": {"status": "ok"}}], "score": [{"score": 0.5}]}'
printf '{"providers": {"vllm": {"base_url": "%s", "key_env": null, "timeout": 20}, "openai": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' \
	"$FAKELLM_URL" "$FAKELLM_URL" >"$L/routes.json"
cat >local.mk <<MK
RUNNER = benchflow
ROUTES = $L/routes.json
ENV_FILE = $T_TMP/none.env
CACHE_DIR = $W/cache
RM_API_URL = ${FAKELLM_URL%/v1}
DEEP_ROUNDS = 1
MK
# the block, its commands without comments, make as the installed skillc.mk
awk '/^## The main job/ { on = 1; next } on && /^```sh/ { inb = 1; next } inb && /^```/ { exit } inb' "$T_ROOT/README.md" |
	sed 's/[[:space:]]*#.*$//' | grep -v '^$' >commands
t_begin "README's main-job block has the commands the docs promise"
t_check "found" test -s commands
t_check "static" grep -q ' static$' commands
t_check "a bare eval" grep -qx 'make -j3 eval' commands
t_check "final" grep -q ' final$' commands
t_end

n=0
while read -r cmd; do
	case $cmd in
	"make doctor"*|*models=*) echo "ok README: $cmd # skip left out (see the top of readme.sh)"; continue ;;
	esac
	n=$((n + 1))
	t_begin "README: $cmd"
	args=${cmd#make }
	out=$(eval "$T_SK $args" 2>&1 </dev/null)
	rc=$?
	case $args in
	status) [ $rc -le 1 ] || t_fail "exit $rc: $out" ;; # 1: work is due, as documented
	*) [ $rc -eq 0 ] || t_fail "exit $rc: $(printf '%s\n' "$out" | tail -n 3)" ;;
	esac
	t_end
done <commands
t_begin "the commands ran on the run they name"
t_check "some ran" test "$n" -ge 6
t_check "its summary" test -s results/compile-pipeline/summary.md
t_check "its report" test -s results/compile-pipeline/index.html
t_end
