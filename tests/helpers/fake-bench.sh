#!/bin/sh
# fake-bench.sh — the project's stand-in for BenchFlow's `bench` CLI. Tests
# put it on PATH as `bench`. It accepts the `bench eval run` command line
# skillc-eval uses and writes BenchFlow's production layout into --jobs-dir for a scripted
# outcome, as BenchFlow 0.7.x would:
#   <jobs>/summary.json
#   <jobs>/<YYYY-MM-DD__HH-MM-SS>/summary.json
#   <jobs>/<job>/<task>__<8 hex>/{result.json,config.json,timing.json,prompts.json,
#        rewards.jsonl,trajectory/acp_trajectory.jsonl (no final newline),
#        trajectory/llm_trajectory.jsonl,verifier/reward.txt}
#
# Outcome script: FAKE_BENCH_SCRIPT names a file of lines, one per
# invocation, taken in order (the last line repeats). Unset, or no such
# file (yet): "pass".
#   <outcome> [skill=invoked|read|none] [acp=empty] [sleep=SECONDS] [reward=R] [exit=N]
#             [leak=VAR] (the value of VAR written into a file and a file name)
#             [cost=USD|null] (the agent_result's cost_usd; default 0.0021)
#             [tokens=N] (N input tokens, N/16 output; default 2500 and 160)
#             [wait=FILE] (the agent works until FILE exists, at most 120 s:
#             a test holds a trial, and so its make, running for as long as it needs)
#             [stop=SECONDS] (hang: SIGTERM ends it SECONDS later, as a harness
#             that cleans up)
# outcomes: pass fail timeout infra retry (infra rollout, then a passing one
# in the same job dir) verifier-error hang (sleeps until killed) crash
# (exits 1, writes nothing) truncated (result.json cut short).
# skill= defaults to invoked with --skills-dir, none without.
# More words: seconds=S (agent execution time),
# tests=P/T (verifier/ctrf.json with T tests, P passed; failing=a,b names
# the failing ones, else test_case_K), failcall=N (N failed tool calls),
# loop=N (N identical repeated tool calls), ref=references/x.md (the agent
# reads that file of the skill).
#
# Outcomes by skill content: FAKE_BENCH_RULES names a file of lines
#   MARKER => OUTCOME ; OUTCOME ; ...
# The first line whose MARKER (a fixed string, or * for any) occurs in an
# injected SKILL.md decides, and the trial's number (NNN of the test-NNN in
# --jobs-dir) picks OUTCOME number (NNN-1) mod count: the same skill bytes
# and trial always give the same outcome, whatever ran before. A matching
# rule wins over FAKE_BENCH_SCRIPT. A MARKER written "task=NAME MARKER" holds
# in the task NAME alone (a skill that helps one task, not the others);
# "model=NAME" and "agent=NAME" words likewise scope it to one --model or
# --agent (a skill that helps one target model or harness), in any order.
#
# FAKE_BENCH_MESSAGE names a file whose bytes (a JSON string's inside, any
# bytes) become the agent's last message in the ACP trajectory (default "Done.").
#
# Log: FAKE_BENCH_LOG gets "start <epoch> <pid> <argv>" and
# "end <epoch> <pid> <outcome> <rc>" per run, "env <pid> <NAME>" for each
# *_API_KEY variable it can see (names only), and "secret-on-argv <pid> <NAME>"
# if a secret-looking --agent-env is passed on the command line.
set -u

log() {
	[ -n "${FAKE_BENCH_LOG:-}" ] && printf '%s\n' "$*" >>"$FAKE_BENCH_LOG"
	return 0
}
now() { date +%s.%N; }
die() { echo "Error: $*" >&2; exit 2; }

[ "${1:-}" = "--version" ] && { echo "benchflow 0.7.6+fake"; exit 0; }
[ "${1:-}" = "eval" ] && [ "${2:-}" = "run" ] || die "usage: bench eval run --tasks-dir DIR ... (fake supports eval run only)"
shift 2

log "start $(now) $$ $(basename "$0") eval run $*"
tasks= agent=claude-agent-acp model= sandbox=docker mode=no-skill skills= jobs=jobs timeout=7200
while [ $# -gt 0 ]; do
	case $1 in
	--tasks-dir) tasks=$2; shift ;;
	--agent) agent=$2; shift ;;
	--model) model=$2; shift ;;
	--sandbox) sandbox=$2; shift ;;
	--skill-mode) mode=$2; shift ;;
	--skills-dir) skills=$2; shift ;;
	--jobs-dir) jobs=$2; shift ;;
	--quiet) ;;
	--config-override)
		t=$(printf '%s' "$2" | sed -n 's/.*"timeout_sec":\([0-9][0-9]*\).*/\1/p')
		[ -n "$t" ] && timeout=$t
		shift ;;
	--agent-env)
		k=${2%%=*}
		case $k in *KEY*|*TOKEN*|*SECRET*|*PASSWORD*) log "secret-on-argv $$ $k" ;; esac
		shift ;;
	*) die "No such option: $1" ;;
	esac
	shift
done
[ -n "$tasks" ] || die "Missing option '--tasks-dir'"
[ -d "$tasks" ] || die "tasks dir $tasks does not exist"
[ -n "$model" ] || [ "$agent" != opencode ] || die "--model is required for agent opencode"
case $mode in no-skill|with-skill) ;; *) die "bad --skill-mode $mode" ;; esac
[ -z "$skills" ] || [ "$mode" = with-skill ] || die "--skills-dir is only valid with --skill-mode with-skill"
for v in $(env | sed -n 's/^\([A-Z0-9_]*_API_KEY\)=.*/\1/p'); do log "env $$ $v"; done

# take the next outcome line (a lock keeps parallel runs apart)
line=pass
if [ -n "${FAKE_BENCH_SCRIPT:-}" ] && [ -e "$FAKE_BENCH_SCRIPT" ]; then
	# a flock, not a mkdir: a bench killed while holding it must not
	# leave the next ones waiting forever
	exec 9>>"$FAKE_BENCH_SCRIPT.lock"
	flock 9
	n=$(cat "$FAKE_BENCH_SCRIPT.n" 2>/dev/null || echo 0)
	n=$((n + 1))
	echo "$n" >"$FAKE_BENCH_SCRIPT.n"
	total=$(grep -c . "$FAKE_BENCH_SCRIPT")
	[ "$n" -gt "$total" ] && n=$total
	line=$(grep . "$FAKE_BENCH_SCRIPT" | sed -n "${n}p")
	flock -u 9
	exec 9>&-
fi
# a rule matching the injected skill's content wins (see the header)
if [ -n "${FAKE_BENCH_RULES:-}" ]; then
	idx=$(printf '%s\n' "$jobs" | sed -n 's/.*test-\([0-9][0-9]*\).*/\1/p' | sed 's/^0*//')
	[ -n "$idx" ] || idx=1
	while IFS= read -r rule; do
		case $rule in ''|'#'*) continue ;; esac
		marker=${rule%% => *}
		outs=${rule#* => }
		hit=
		scoped=1 # task=, model=, agent= words: a rule for that task, model or agent alone
		while [ -n "$scoped" ]; do
			case $marker in
			"task="*" "*) only=${marker%% *}; [ "${only#task=}" = "$(basename "$tasks")" ] ;;
			"model="*" "*) only=${marker%% *}; [ "${only#model=}" = "$model" ] ;;
			"agent="*" "*) only=${marker%% *}; [ "${only#agent=}" = "$agent" ] ;;
			*) scoped=; true ;;
			esac || continue 2
			[ -n "$scoped" ] && marker=${marker#* }
		done
		if [ "$marker" = '*' ]; then
			hit=1
		elif [ -n "$skills" ]; then
			for f in "$skills"/*/SKILL.md; do
				[ -f "$f" ] && grep -qF -- "$marker" "$f" && hit=1
			done
		fi
		if [ -n "$hit" ]; then
			count=$(printf '%s\n' "$outs" | awk -F';' '{ print NF }')
			k=$(( (idx - 1) % count + 1 ))
			line=$(printf '%s\n' "$outs" | awk -F';' -v k="$k" '{ print $k }')
			break
		fi
	done <"$FAKE_BENCH_RULES"
	log "rule $$ index=$idx $line"
fi
set -- $line
outcome=$1; shift
skill_use= acp_empty= pause=0.2 reward_opt= exit_opt= leak_var= cost_opt= tokens_opt= wait_for= stop_after=
seconds_opt= tests_opt= failing_opt= failcall=0 loops=0 ref_opt=
for w; do
	case $w in
	skill=*) skill_use=${w#skill=} ;;
	acp=empty) acp_empty=1 ;;
	sleep=*) pause=${w#sleep=} ;;
	reward=*) reward_opt=${w#reward=} ;;
	exit=*) exit_opt=${w#exit=} ;;
	leak=*) leak_var=${w#leak=} ;;
	cost=*) cost_opt=${w#cost=} ;;
	tokens=*) tokens_opt=${w#tokens=} ;;
	seconds=*) seconds_opt=${w#seconds=} ;;
	tests=*) tests_opt=${w#tests=} ;;
	failing=*) failing_opt=${w#failing=} ;;
	failcall=*) failcall=${w#failcall=} ;;
	loop=*) loops=${w#loop=} ;;
	ref=*) ref_opt=${w#ref=} ;;
	wait=*) wait_for=${w#wait=} ;;
	stop=*) stop_after=${w#stop=} ;;
	esac
done

task=$(basename "$tasks")
names=
if [ -n "$skills" ]; then
	for d in "$skills"/*/; do [ -f "$d/SKILL.md" ] && names="$names $(basename "$d")"; done
fi
names=${names# }
first=${names%% *}
[ -n "$skill_use" ] || { [ -n "$first" ] && skill_use=invoked || skill_use=none; }
[ -n "$first" ] || skill_use=none

finish() {
	log "end $(now) $$ $outcome $1"
	exit "$1"
}
trap 'finish 143' TERM
trap 'finish 130' INT

if [ "$outcome" = crash ]; then
	sleep "$pause"
	echo "Traceback (most recent call last): RuntimeError: fake crash" >&2
	finish 1
fi

job=$(date +%Y-%m-%d__%H-%M-%S)
mkdir -p "$jobs/$job" || die "cannot create $jobs/$job"
hex8() { od -An -N4 -tx1 /dev/urandom | tr -d ' \n'; }
stamp() { date '+%Y-%m-%d %H:%M:%S.%6N'; }

# verifier/ctrf.json for tests=P/T (failing=a,b names the failing tests)
write_ctrf() {
	tp=${tests_opt%/*} tt=${tests_opt#*/}
	{
		printf '{"results": {"tool": {"name": "pytest"}, "summary": {"tests": %s, "passed": %s, "failed": %s, "skipped": 0, "pending": 0, "other": 0, "start": 0, "stop": 1}, "tests": [' "$tt" "$tp" $((tt - tp))
		i=0 sep=
		while [ "$i" -lt "$tt" ]; do
			i=$((i + 1))
			if [ "$i" -le "$tp" ]; then
				printf '%s{"name": "test_passing_%s", "status": "passed", "duration": 1}' "$sep" "$i"
			else
				k=$((i - tp))
				name=$(printf '%s\n' "$failing_opt" | awk -F, -v k="$k" '{ print $k }')
				[ -n "$name" ] || name=test_case_$k
				printf '%s{"name": "%s", "status": "failed", "duration": 1, "message": "AssertionError: %s: counts differ for component db"}' "$sep" "$name" "$name"
			fi
			sep=', '
		done
		printf ']}}\n'
	} >"$1/ctrf.json"
	printf 'collected %s items\n%s passed, %s failed\n' "$tt" "$tp" $((tt - tp)) >"$1/test-stdout.txt"
}

# one rollout: write_rollout <kind> <reward or null> <category or null> <error or null>
write_rollout() {
	kind=$1 rw=$2 cat=$3 err=$4
	dir=$jobs/$job/${task}__$(hex8)
	mkdir -p "$dir/trajectory" "$dir/agent" "$dir/artifacts" "$dir/trainer"
	if [ -n "$leak_var" ]; then
		# what a careless agent does with a key it can see
		eval "leak_val=\${$leak_var:-}"
		printf 'key=%s\n' "$leak_val" >"$dir/artifacts/leak.txt"
		: >"$dir/artifacts/name-$leak_val"
	fi
	started=$(stamp)
	skill_source=none include=false req=null eff=null
	if [ "$mode" = with-skill ]; then
		skill_source=custom_runtime include=false req="\"$skills\"" eff="\"$skills\""
	fi
	cat >"$dir/config.json" <<EOF
{
  "task_path": "$task",
  "agent": "$agent",
  "model": "$model",
  "reasoning_effort": null,
  "environment": "$sandbox",
  "acp_transport": "docker-stdio",
  "environment_manifest": null,
  "skill_mode": "$mode",
  "skill_source": "$skill_source",
  "requested_skills_dir": $req,
  "effective_skills_dir": $eff,
  "skills_sandbox_dir": "/skills",
  "include_task_skills": $include,
  "sandbox_user": "agent",
  "timeout_sec": $timeout,
  "concurrency": 4,
  "agent_idle_timeout_sec": 600,
  "started_at": "$started",
  "agent_env": {}
}
EOF
	[ "$kind" = hang ] && [ -n "$stop_after" ] && trap 'sleep "$stop_after"; finish 143' TERM
	[ "$kind" = hang ] && { sleep 3600 & wait $!; finish 143; }
	sleep "$pause"
	if [ -n "$wait_for" ]; then
		waited=0
		while [ ! -e "$wait_for" ] && [ $waited -lt 2400 ]; do sleep 0.05; waited=$((waited + 1)); done
	fi

	agent_ran=1
	[ "$rw" = null ] && [ "$kind" != verifier-error ] && agent_ran=0
	tools=0 sk=0
	acp=$dir/trajectory/acp_trajectory.jsonl
	: >"$acp"
	if [ "$agent_ran" = 1 ] && [ -z "$acp_empty" ]; then
		{
			printf '{"type": "user_message", "text": "Solve the task described in /instruction.md."}\n'
			printf '{"type": "agent_thought", "text": "Let me look around first."}\n'
			case $skill_use in
			invoked)
				printf '{"type": "tool_call", "tool_call_id": "call_skill_1", "kind": "skill", "title": "skill {\\"name\\": \\"%s\\"}", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "<skill_content name=\\"%s\\">\\n# %s\\n</skill_content>"}}]}\n' "$first" "$first" "$first"
				tools=$((tools + 1)) sk=1 ;;
			read)
				printf '{"type": "tool_call", "tool_call_id": "call_read_1", "kind": "read", "title": "read {\\"filePath\\": \\"/home/agent/.opencode/skills/%s/SKILL.md\\"}", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "<path>/home/agent/.opencode/skills/%s/SKILL.md</path>"}}]}\n' "$first" "$first"
				tools=$((tools + 1)) ;;
			esac
			printf '{"type": "tool_call", "tool_call_id": "call_bash_1", "kind": "execute", "title": "ls /root", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "data\\n"}}]}\n'
			tools=$((tools + 1))
			if [ -n "$ref_opt" ]; then
				printf '{"type": "tool_call", "tool_call_id": "call_ref_1", "kind": "read", "title": "read {\\"filePath\\": \\"/home/agent/.opencode/skills/%s/%s\\"}", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "reference text"}}]}\n' "$first" "$ref_opt"
				tools=$((tools + 1))
			fi
			i=0
			while [ "$i" -lt "$failcall" ]; do
				i=$((i + 1))
				printf '{"type": "tool_call", "tool_call_id": "call_fail_%s", "kind": "execute", "title": "logtriage count --level ERROR app.log", "status": "failed", "content": [{"type": "content", "content": {"type": "text", "text": "logtriage: command not found (attempt %s)"}}]}\n' "$i" "$i"
				tools=$((tools + 1))
			done
			i=0
			while [ "$i" -lt "$loops" ]; do
				i=$((i + 1))
				printf '{"type": "tool_call", "tool_call_id": "call_loop_%s", "kind": "execute", "title": "grep -c ERROR /root/app.log", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "5"}}]}\n' "$i"
				tools=$((tools + 1))
			done
			if [ "$kind" = timeout ]; then
				printf '{"type": "tool_call", "tool_call_id": "call_write_1", "kind": "edit", "title": "write", "status": "in_progress", "content": []}\n'
				printf '{"type": "agent_timeout", "reason": "wall_clock_timeout", "timeout_sec": %s, "pending_tool_call_ids": ["call_write_1"], "terminal_trajectory_complete": false}' "$timeout"
				tools=$((tools + 1))
			elif [ -n "${FAKE_BENCH_MESSAGE:-}" ]; then
				printf '{"type": "agent_message", "text": "'
				cat "$FAKE_BENCH_MESSAGE"
				printf '"}'
			else
				printf '{"type": "agent_message", "text": "Done."}'
			fi
		} >"$acp"
	fi
	if [ "$agent_ran" = 1 ]; then
		catalog='<skill><name>customize-opencode</name><location>builtin</location></skill>'
		for n in $names; do catalog="$catalog<skill><name>$n</name><location>file:///home/agent/.opencode/skills/$n/SKILL.md</location></skill>"; done
		case $skill_use in
		invoked) call='{"id": "call_skill_1", "type": "function", "function": {"name": "skill", "arguments": "{\"name\": \"'$first'\"}"}}' ;;
		read) call='{"id": "call_read_1", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\": \"/home/agent/.opencode/skills/'$first'/SKILL.md\"}"}}' ;;
		*) call='{"id": "call_bash_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls /root\"}"}}' ;;
		esac
		printf '{"request": {"timestamp": "2026-08-20T14:05:00", "method": "POST", "path": "/v1/chat/completions", "headers": {}, "body": {"model": "benchflow-m", "messages": [{"role": "system", "content": "You are opencode.\\n<available_skills>%s</available_skills>"}, {"role": "user", "content": "Solve the task."}], "stream": true}}, "response": {"timestamp": "2026-08-20T14:05:03", "status_code": 200, "headers": {}, "body": {"id": "chatcmpl-0", "object": "chat.completion", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "", "tool_calls": [%s]}}], "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}}}, "duration_ms": 3000.0, "metadata": {"call_purpose": "agent"}}\n' "$catalog" "$call" >"$dir/trajectory/llm_trajectory.jsonl"
		printf '{"request": {"timestamp": "2026-08-20T14:05:04", "method": "POST", "path": "/v1/chat/completions", "headers": {}, "body": {"model": "benchflow-m", "messages": [{"role": "user", "content": "..."}], "stream": true}}, "response": {"timestamp": "2026-08-20T14:05:06", "status_code": 200, "headers": {}, "body": {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}], "usage": {"prompt_tokens": 1500, "completion_tokens": 60, "total_tokens": 1560}}}, "duration_ms": 2000.0, "metadata": {"call_purpose": "agent"}}' >>"$dir/trajectory/llm_trajectory.jsonl"
		tin=2500 tout=160 ttot=2660 cost=0.0021 usrc=provider_response
		[ -z "$tokens_opt" ] || { tin=$tokens_opt; tout=$((tokens_opt / 16)); ttot=$((tin + tout)); }
		[ -z "$cost_opt" ] || cost=$cost_opt
	else
		tin=0 tout=0 ttot=0 cost=null usrc=unavailable
	fi
	if [ "$rw" = null ]; then rewards=null; else rewards="{
    \"reward\": $rw
  }"; fi
	errj=null catj=null verr=null vcat=null
	[ "$err" != null ] && errj="\"$err\""
	[ "$cat" != null ] && catj="\"$cat\""
	if [ "$kind" = verifier-error ]; then
		verr='"verifier timed out after 600.0s"' vcat='"verifier_timeout"' errj=null catj=null
	fi
	ato=null
	[ "$kind" = timeout ] && ato="{\"reason\": \"wall_clock_timeout\", \"timeout_sec\": $timeout.0, \"n_tool_calls\": $tools, \"pending_tool_call_ids\": [\"call_write_1\"], \"terminal_event_recorded\": true, \"terminal_trajectory_complete\": false}"
	ssi=null
	[ "$kind" = infra ] && ssi='{"reason": "sandbox_startup_failed", "sandbox_id": null, "sandbox_state": null, "attempts": 1, "build_timeout_sec": 600.0, "raw_message": "docker compose command failed"}'
	partial=false src='"acp"'
	[ "$kind" = timeout ] && partial=true src='"partial_acp"'
	[ "$agent_ran" = 0 ] && src=null
	if [ "$agent_ran" = 1 ]; then
		ae=${seconds_opt:-4.2}
		timing="{
    \"environment_setup\": 1.5,
    \"agent_setup\": 0.5,
    \"agent_execution\": $ae,
    \"verifier\": 0.8,
    \"total\": $(awk -v a="$ae" 'BEGIN { print a + 2.8 }')
  }"
	else
		timing='{
    "environment_setup": 0.9,
    "total": 1.0
  }'
	fi
	finished=$(stamp)
	cat >"$dir/result.json" <<EOF
{
  "task_name": "$task",
  "rollout_name": "$(basename "$dir")",
  "rewards": $rewards,
  "agent": "$agent",
  "agent_name": "OpenCode",
  "model": "$model",
  "skill_mode": "$mode",
  "skill_source": "$skill_source",
  "requested_skills_dir": $req,
  "effective_skills_dir": $eff,
  "skills_sandbox_dir": "/skills",
  "include_task_skills": $include,
  "n_tool_calls": $tools,
  "n_skill_invocations": $sk,
  "n_prompts": 1,
  "agent_result": {
    "n_tool_calls": $tools,
    "n_skill_invocations": $sk,
    "n_prompts": 1,
    "n_input_tokens": $tin,
    "n_output_tokens": $tout,
    "n_cache_read_tokens": 0,
    "n_cache_creation_tokens": 0,
    "total_tokens": $ttot,
    "cost_usd": $cost,
    "usage_source": "$usrc",
    "price_source": "litellm"
  },
  "error": $errj,
  "error_category": $catj,
  "verifier_error": $verr,
  "verifier_error_category": $vcat,
  "export_error": null,
  "idle_timeout_info": null,
  "agent_timeout_info": $ato,
  "sandbox_startup_info": $ssi,
  "transport_error_info": null,
  "verifier_timeout_info": null,
  "api_error_info": null,
  "suspected_api_error_info": null,
  "partial_trajectory": $partial,
  "trajectory_source": $src,
  "started_at": "$started",
  "finished_at": "$finished",
  "timing": $timing,
  "loop": {
    "strategy": "single-shot"
  },
  "sandbox_id": null
}
EOF
	printf '%s\n' "$timing" >"$dir/timing.json"
	printf '["Solve the task described in /instruction.md."]\n' >"$dir/prompts.json"
	if [ "$rw" != null ]; then
		mkdir -p "$dir/verifier"
		printf '%s\n' "${rw%.0}" >"$dir/verifier/reward.txt"
		printf '{"ts": "2026-08-20T14:05:07", "type": "terminal", "source": "verifier", "value": %s, "tag": "reward", "step_index": null, "space": "output", "granularity": "terminal", "meta": {}}\n' "$rw" >"$dir/rewards.jsonl"
		[ -n "$tests_opt" ] && write_ctrf "$dir/verifier"
	fi
	last_dir=$dir
}

write_summary() {
	passed=$1 failed=$2 errored=$3
	total=$((passed + failed + errored))
	for f in "$jobs/$job/summary.json" "$jobs/summary.json"; do
		cat >"$f" <<EOF
{
  "job_name": "$job",
  "agent": "$agent",
  "model": "$model",
  "environment": "$sandbox",
  "concurrency": 4,
  "total": $total,
  "passed": $passed,
  "failed": $failed,
  "errored": $errored,
  "verifier_errored": 0,
  "score": "$((passed * 100 / (total > 0 ? total : 1))).0%",
  "total_skill_invocations": 0
}
EOF
	done
}

rc=0
case $outcome in
pass) write_rollout pass 1.0 null null; write_summary 1 0 0 ;;
fail) write_rollout fail 0.0 null null; write_summary 0 1 0 ;;
timeout)
	write_rollout timeout "${reward_opt:-0.0}" timeout "Agent prompt exceeded wall-clock budget ${timeout}s"
	write_summary 0 1 0 ;;
infra)
	write_rollout infra null sandbox_setup "Sandbox startup failed: docker compose command failed"
	write_summary 0 0 1; rc=1 ;;
verifier-error) write_rollout verifier-error null null null; write_summary 0 0 1; rc=1 ;;
retry)
	write_rollout infra null pipe_closed "Agent process closed stdout"
	touch -d "@$(($(date +%s) - 30))" "$last_dir/result.json"
	write_rollout pass 1.0 null null
	write_summary 1 0 0 ;;
hang) write_rollout hang null null null ;;
truncated) write_rollout pass 1.0 null null; write_summary 1 0 0
	head -c 300 "$last_dir/result.json" >"$last_dir/r.cut" && mv "$last_dir/r.cut" "$last_dir/result.json" ;;
*) die "fake bench: unknown scripted outcome '$outcome'" ;;
esac
[ -n "$exit_opt" ] && rc=$exit_opt
finish "$rc"
