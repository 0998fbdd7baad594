#!/bin/sh
# fake-harbor.sh — the project's stand-in for Harbor's `harbor` CLI (v0.20).
# Tests put it on PATH as `harbor`. It accepts `harbor run -c CONFIG` (also
# `harbor jobs start -c`), reads the job config skillc-eval writes (JSON, keys
# as Harbor's JobConfig: job_name, jobs_dir, agents[0].name/model_name/skills/
# override_timeout_sec, tasks[0].path, environment.type), and writes Harbor's
# layout for one trial, as Harbor 0.20 would:
#   <jobs_dir>/<job_name>/{config.json,lock.json,result.json,job.log}
#   <jobs_dir>/<job_name>/<task[:32]>__<7 chars>/{config.json,result.json,trial.log,
#        agent/trajectory.json (ATIF),verifier/reward.txt}
# The job's result.json is written at the start without finished_at and again
# at the end with it; the trial's result.json last.
#
# Outcome script: FAKE_HARBOR_SCRIPT names a file of lines, one per
# invocation, taken in order (the last line repeats). Unset: "pass".
#   <outcome> [skill=invoked|none] [sleep=SECONDS]
# outcomes: pass fail timeout (AgentTimeoutError, verified: reward 0) infra
# (EnvironmentStartTimeoutError: no verifier) hang (sleeps until killed).
# skill= defaults to invoked when the agent was given skills.
# Log: FAKE_HARBOR_LOG gets "start <epoch> <pid> <argv>" and "end <epoch> <pid> <outcome> <rc>".
# Needs jq.
set -u

log() {
	[ -n "${FAKE_HARBOR_LOG:-}" ] && printf '%s\n' "$*" >>"$FAKE_HARBOR_LOG"
	return 0
}
die() { echo "Error: $*" >&2; exit 2; }

[ "${1:-}" = "--version" ] && { echo "harbor 0.20.0+fake"; exit 0; }
case "${1:-} ${2:-}" in
"run -c"|"run --config") shift 2 ;;
"jobs start") shift 2; [ "${1:-}" = -c ] || [ "${1:-}" = --config ] || die "usage: harbor jobs start -c CONFIG"; shift ;;
*) die "usage: harbor run -c CONFIG (fake supports run -c only)" ;;
esac
cfg=${1:-}
[ -f "$cfg" ] || die "config file '$cfg' does not exist"
log "start $(date +%s.%N) $$ harbor run -c $cfg"
command -v jq >/dev/null 2>&1 || die "fake harbor needs jq"
q() { jq -r "$1 // empty" "$cfg"; }
jq -e . "$cfg" >/dev/null 2>&1 || die "config '$cfg' is not JSON"
job=$(q .job_name)
jobs=$(q .jobs_dir)
agent=$(q '.agents[0].name')
model=$(q '.agents[0].model_name')
task_path=$(q '.tasks[0].path')
envtype=$(q .environment.type)
timeout=$(q '.agents[0].override_timeout_sec')
[ -n "$job" ] && [ -n "$jobs" ] || die "job_name and jobs_dir are required"
[ -n "$agent" ] || die "agents[0].name is required"
[ -f "$task_path/task.toml" ] || die "tasks[0].path '$task_path' is not a task (no task.toml)"
case $envtype in docker|"") ;; *) die "environment.type '$envtype' is not supported by the fake" ;; esac
skill=
for s in $(jq -r '.agents[0].skills // [] | .[]' "$cfg"); do
	[ -f "$s/SKILL.md" ] || die "skill '$s' has no SKILL.md"
	[ -n "$skill" ] || skill=$(basename "$s")
done

line=pass
if [ -n "${FAKE_HARBOR_SCRIPT:-}" ]; then
	lock=$FAKE_HARBOR_SCRIPT.lock
	while ! mkdir "$lock" 2>/dev/null; do sleep 0.01; done
	n=$(( $(cat "$FAKE_HARBOR_SCRIPT.n" 2>/dev/null || echo 0) + 1 ))
	echo "$n" >"$FAKE_HARBOR_SCRIPT.n"
	total=$(grep -c . "$FAKE_HARBOR_SCRIPT")
	[ "$n" -gt "$total" ] && n=$total
	line=$(grep . "$FAKE_HARBOR_SCRIPT" | sed -n "${n}p")
	rmdir "$lock"
fi
set -- $line
outcome=$1; shift
use= pause=0.1
for w; do
	case $w in skill=*) use=${w#skill=} ;; sleep=*) pause=${w#sleep=} ;; esac
done
[ -n "$use" ] || { [ -n "$skill" ] && use=invoked || use=none; }

finish() { log "end $(date +%s.%N) $$ $outcome $1"; exit "$1"; }
trap 'finish 130' INT
trap 'finish 143' TERM

now() { date -u '+%Y-%m-%dT%H:%M:%S.%6NZ'; }
task=$(basename "$task_path")
short=$(printf '%s' "$task" | cut -c1-32 | sed 's/[-_]*$//')
name=${short}__$(LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c 7)
jd=$jobs/$job
td=$jd/$name
mkdir -p "$td/agent" "$td/verifier" "$td/artifacts" || die "cannot create $td"
provider=null mname=$model
case $model in */*) provider="\"${model%%/*}\"" mname=${model#*/} ;; esac
started=$(now)
jq -S . "$cfg" >"$jd/config.json"
printf '{"schema_version": 2, "harbor_version": "0.20.0", "n_concurrent_trials": 1, "trials": []}\n' >"$jd/lock.json"
job_result() { # job_result <finished_at or null> <completed> <errored>
	cat >"$jd/result.json" <<EOF
{
    "id": "00000000-0000-4000-8000-$(printf '%012d' $$)",
    "started_at": "$started",
    "updated_at": "$(now)",
    "finished_at": $1,
    "n_total_trials": 1,
    "stats": {"n_completed_trials": $2, "n_errored_trials": $3, "n_running_trials": $((1 - $2)),
              "n_pending_trials": 0, "n_cancelled_trials": 0, "n_retries": 0, "evals": {}}
}
EOF
}
job_result null 0 0
printf '{"task": {"path": "%s"}, "trial_name": "%s", "trials_dir": "%s", "agent": {"name": "%s", "model_name": "%s"}}\n' \
	"$task_path" "$name" "$jd" "$agent" "$model" >"$td/config.json"
echo "job $job started" >"$jd/job.log"
[ "$outcome" = hang ] && { sleep 3600 & wait $!; finish 143; }
sleep "$pause"

# the agent's trajectory in ATIF: a look around, the skill when invoked, a message
calls='{"tool_call_id": "call_1", "function_name": "bash", "arguments": {"command": "ls /root"}}'
[ "$use" = invoked ] && calls="{\"tool_call_id\": \"call_0\", \"function_name\": \"skill\", \"arguments\": {\"name\": \"$skill\"}}, $calls"
if [ "$outcome" != infra ]; then
	cat >"$td/agent/trajectory.json" <<EOF
{"schema_version": "ATIF-v1.2", "session_id": "$name", "agent": {"name": "$agent", "version": "0.0-fake"},
 "steps": [{"step_id": 1, "source": "user", "message": "Solve the task in /instruction.md."},
  {"step_id": 2, "source": "agent", "reasoning_content": "Look first.", "tool_calls": [$calls],
   "observation": {"results": [{"source_call_id": "call_1", "content": "data\\n"}]}},
  {"step_id": 3, "source": "agent", "message": "Done."}]}
EOF
fi
exc=null verifier=null reward=
case $outcome in
pass) reward=1.0 ;;
fail) reward=0.0 ;;
timeout) reward=0.0
	exc="{\"exception_type\": \"AgentTimeoutError\", \"exception_message\": \"Agent execution timed out after ${timeout:-900} seconds\", \"exception_traceback\": \"Traceback ...\", \"occurred_at\": \"$(now)\"}" ;;
infra) exc="{\"exception_type\": \"EnvironmentStartTimeoutError\", \"exception_message\": \"Environment start timed out after 600.0 seconds\", \"exception_traceback\": \"Traceback ...\", \"occurred_at\": \"$(now)\"}" ;;
*) die "fake harbor: unknown scripted outcome '$outcome'" ;;
esac
if [ -n "$reward" ]; then
	echo "$reward" >"$td/verifier/reward.txt"
	verifier="{\"rewards\": {\"reward\": $reward}}"
fi
finished=$(now)
cat >"$td/result.json" <<EOF
{
    "id": "11111111-0000-4000-8000-$(printf '%012d' $$)",
    "task_name": "$task",
    "trial_name": "$name",
    "trial_uri": "file://$td",
    "task_id": {"path": "$task_path"},
    "source": null,
    "agent_info": {"name": "$agent", "version": "0.0-fake", "model_info": {"name": "$mname", "provider": $provider}},
    "agent_result": {"n_input_tokens": 2500, "n_cache_tokens": 0, "n_output_tokens": 160, "cost_usd": null},
    "verifier_result": $verifier,
    "exception_info": $exc,
    "started_at": "$started",
    "finished_at": "$finished",
    "agent_execution": {"started_at": "$started", "finished_at": "$finished"}
}
EOF
echo "trial $name: $outcome" >"$td/trial.log"
errored=0
[ "$exc" = null ] || errored=1
job_result "\"$(now)\"" 1 $errored
rc=0
finish $rc
