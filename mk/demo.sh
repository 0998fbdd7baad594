#!/bin/sh
# mk/demo.sh — `make demo`: the whole pipeline offline, on the sample task
# log-error-report, against the project's own stand-ins: the loopback model
# server (libexec/fakellm: the planning model's answers, the model route the
# local runner checks) and the scripted ACP agent (libexec/acpagent, started
# by the local runner in its sandbox for every trial). Prints where the run,
# its summary and the deliverable skill are, and stops what it started.
# Everything lives in DEMO_DIR (default results/demo); run it again and it
# resumes: what is done is not done twice. See docs/demo.md.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
D=${DEMO_DIR:-results/demo}
TASK=log-error-report
MAKE=${MAKE:-make}
say() { printf 'demo: %s\n' "$*"; }

for p in "$root/bin/skillc-stage" "$root/libexec/fakellm" "$root/libexec/acpagent"; do
	[ -x "$p" ] || { say "$p is missing: run ./configure && make first" >&2; exit 2; }
done
if [ "${SANDBOX:-bwrap}" = bwrap ] && ! command -v bwrap >/dev/null 2>&1; then
	say "the local runner needs bubblewrap: apt-get install -y bubblewrap" >&2
	exit 2
fi
mkdir -p "$D/llm" "$D/harness" || exit 2
D=$(cd "$D" && pwd)

# --- the loopback model server, stopped by pid however we leave
PID=
stop() {
	if [ -n "$PID" ]; then
		kill "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
		rm -f "$D/llm/pid"
	fi
	PID=
}
trap 'stop' EXIT
trap 'stop; say "interrupted: run make demo again and it resumes where it stopped" >&2; exit 130' INT
trap 'stop; say "stopped by a signal: run make demo again and it resumes where it stopped" >&2; exit 143' TERM HUP

# The model's answers, chosen by the prompt: for the hybrid static compile's
# plan, the gotchas first and three long sections out of the body; for the
# fast stage's reviews of the traces and the deep stage's scores, nothing to
# blame (every trial passes).
cat >"$D/llm/script.json" <<'JSON'
{"rules": [
  {"match": "You review how an AI agent used a skill", "json": {"findings": []}},
  {"match": "You turn findings about a skill", "json": {"patches": []}},
  {"match": "## Units to score", "json": {"scores": []}},
  {"match": "You plan edits to an Agent Skill", "json": {"operations": [
   {"op": "reorder", "section": "log-triage/gotchas", "before": "log-triage/quick-start"},
   {"op": "move_to_reference", "section": "log-triage/why-logtriage-suite", "when": "you want the product's background"},
   {"op": "move_to_reference", "section": "log-triage/shipping-logs-to-a-cluster", "when": "logs come from many hosts"},
   {"op": "move_to_reference", "section": "log-triage/setting-up-an-elasticsearch-index", "when": "the counts must be kept in Elasticsearch"}]}}],
 "chat": [{"text": "ok"}],
 "models": [{"models": ["scripted-agent", "planner"]}]}
JSON
rm -f "$D/llm/port"
"$root/libexec/fakellm" --script "$D/llm/script.json" --log "$D/llm/requests.jsonl" \
	--port-file "$D/llm/port" 2>"$D/llm/fakellm.err" &
PID=$!
echo "$PID" >"$D/llm/pid"
i=0
while [ ! -s "$D/llm/port" ] && [ $i -lt 500 ]; do
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.02
	i=$((i + 1))
done
[ -s "$D/llm/port" ] || { say "the model server did not start: $(cat "$D/llm/fakellm.err")" >&2; exit 1; }
port=$(cat "$D/llm/port")
say "model server (libexec/fakellm) on 127.0.0.1:$port, pid $PID"
printf '{"providers": {"demo": {"base_url": "http://127.0.0.1:%s/v1", "key_env": null}}}\n' "$port" >"$D/routes.json"

# --- the scripted agent: reads the skill and the log, counts with awk. The
# sandbox shows the agent's program folder and nothing else of the host, so
# the program and its script sit together.
cp -f "$root/libexec/acpagent" "$D/harness/acpagent" || exit 2
cat >"$D/harness/agent.json" <<'JSON'
{"agent_name": "demo-agent", "usage": {"inputTokens": 1200, "outputTokens": 80, "totalTokens": 1280},
 "steps": [{"thought": "ERROR lines per component: the log-triage skill covers this."},
  {"skill": "log-triage"},
  {"read": "/root/app.log"},
  {"exec": "awk '$2 == \"ERROR\" { c = $3; gsub(/[][]/, \"\", c); n[c]++ } END { printf \"{\"; s = \"\"; for (k in n) { printf \"%s\\\"%s\\\": %d\", s, k, n[k]; s = \", \" } print \"}\" }' /root/app.log > /root/report.json"},
  {"message": "Wrote the ERROR counts per component to /root/report.json."}]}
JSON
cat >"$D/harness/demo-agent.json" <<JSON
{"name": "demo-agent",
 "description": "The project's scripted ACP agent (libexec/acpagent) playing $D/harness/agent.json.",
 "acp_command": ["$D/harness/acpagent", "$D/harness/agent.json"],
 "skill_paths": ["~/.opencode/skills"],
 "runners": {"local": {"agent": "demo-agent"}},
 "skill_use": {"invoked": {"acp": [{"kind": "^(skill|other)$", "content": "^<skill_content name=\\"{skill}\\">"}]},
               "read": {"acp": [{"kind": "^read$", "title": "skills/{skill}/"}]}}}
JSON

# --- the pipeline
export HARNESS_PATH="$D/harness"
set -- --no-print-directory -f "$root/mk/skillc.mk" task=$TASK TASKS_DIR="$root/tasks" \
	RESULTS="$D/results" CACHE_DIR="$D/cache" ROUTES="$D/routes.json" ENV_FILE="$D/none.env" \
	PROFILES_DIR="$D/profiles" HARNESS=demo-agent RUNNER=local MODEL=demo/scripted-agent \
	STATIC_MODE=hybrid EXTERNAL_MODEL=demo/planner REPEAT=3 BENCH=samples
say "make doctor: what the run needs"
"$MAKE" "$@" doctor || exit 1
say "make -j2 final: every stage, every trial (the agent is a simulation: a script, so the numbers show the mechanics, not evidence)"
"$MAKE" "$@" -j2 final
rc=$?
# a make ended by a signal (Ctrl-C reaches it too) was interrupted, not failed
[ $rc -gt 128 ] && { stop; say "interrupted: run make demo again and it resumes where it stopped" >&2; exit $rc; }
[ $rc -eq 0 ] || { say "the pipeline failed (see the lines above)" >&2; exit 1; }
"$MAKE" "$@" summary >/dev/null || exit 1

# --- where things are
R=$D/results/$TASK--demo-agent--demo_scripted-agent
R=${R#"$PWD"/} # shown from here when it is below
final=
for s in artifacts/deep/S_final artifacts/fast/S_fast artifacts/static/S_static; do
	[ -d "$R/$s" ] && { final=$s; break; }
done
echo
awk '/^\|/ { print; t = 1; next } t { exit }' "$R/summary.md" # the first table
echo
say "the run:         $R"
say "its summary:     $R/summary.md (also .csv, .json)"
say "the compile:     $R/artifacts/static/report.md"
case $final in
artifacts/deep/S_final) say "the deliverable: $R/$final/" ;;
"") say "no compiled skill was made" >&2; exit 1 ;;
*) say "the deliverable: $R/$final/ (the last stage of this pipeline so far)" ;;
esac
say "model requests:  $(wc -l <"$D/llm/requests.jsonl" | tr -d ' ') (log: ${D#"$PWD"/}/llm/requests.jsonl)"
# the demo's runs are not under the default RESULTS: say how to read them
RD=$D/results
RD=${RD#"$PWD"/}
say "read it again:   make summary RESULTS=$RD; make report RESULTS=$RD"
stop
say "stopped the model server; run 'make demo' again and nothing is redone"
