#!/bin/sh
# tests/fuzz/seeds.sh OUT — the first inputs of every harness, from the
# project's own files only (fixtures, sample tasks, rules, docs, and what its
# stand-in bench writes); nothing from outside the repository. One folder
# per harness under OUT; multi-file inputs are joined by "----" lines
# (tests/fuzz/fuzz.h).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
rm -rf "$OUT"
for h in skilldoc frontmatter check toml dotenv routes profile trial acp acpframe plan static fast; do mkdir -p "$OUT/$h"; done
# seed HARNESS <data: the next numbered input (also at the end of a pipe)
seed() { cat >"$OUT/$1/seed-$(ls "$OUT/$1" | wc -l)"; }
sep() { printf '\n----\n'; }
# the file's bytes, or none when an outcome does not write it
cat_if() { if [ -f "$1" ]; then cat "$1"; fi; }

# Markdown: the fixtures' and sample tasks' skills, and the docs themselves
for f in $(cd "$ROOT" && ls tests/fixtures/skills/*/SKILL.md tests/fixtures/skills/*/references/*.md \
	tests/fixtures/tasks/*/environment/skills/*/SKILL.md tasks/*/environment/skills/*/SKILL.md docs/*.md); do
	for h in skilldoc check static; do seed $h <"$ROOT/$f"; done
	awk 'NR == 1 && $0 == "---" { on = 1; next } on && $0 == "---" { exit } on' "$ROOT/$f" | seed frontmatter
done
for f in "$ROOT"/tasks/*/task.toml "$ROOT"/tests/fixtures/tasks/*/task.toml; do seed toml <"$f"; done
printf '# keys\nOPENAI_API_KEY=sk-test-0123456789\nexport B = "q \\" \\$x" # c\nC='"'"'lit # x'"'"'\n' | seed dotenv
printf 'A=1\r\nEMPTY=\nDUP=a\nDUP=b\n' | seed dotenv
seed routes <"$ROOT/rules/provider_routes.json"
printf '\007\000\100\001{"jsonrpc":"2.0","id":1,"result":{}}\r\n\n{"jsonrpc":"2.0","method":"session/update","params":{}}\nnot json\n{"cut' | seed acpframe
for f in "$ROOT"/rules/profiles/*.json; do seed profile <"$f"; done

# runner output: what the stand-in bench writes for each outcome, then a
# Harbor trial of our own
W=$(mktemp -d "${TMPDIR:-/tmp}/skillc-seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/skills/csv-sum"
cp "$ROOT"/tasks/csv-column-sum/environment/skills/csv-sum/SKILL.md "$W/skills/csv-sum/"
for outcome in pass fail timeout infra retry verifier-error "pass skill=read" "pass acp=empty"; do
	rm -rf "$W/jobs"
	echo "$outcome sleep=0" >"$W/script"
	rm -f "$W/script.n"
	# a failing outcome exits non-zero as BenchFlow would: its files are the
	# seeds all the same, as long as it wrote its jobs folder
	FAKE_BENCH_SCRIPT=$W/script sh "$ROOT/tests/helpers/fake-bench.sh" eval run --tasks-dir "$ROOT/tasks/csv-column-sum" \
		--agent opencode --model vllm/m --skill-mode with-skill --skills-dir "$W/skills" --jobs-dir "$W/jobs" >/dev/null 2>&1 ||
		[ -d "$W/jobs" ]
	r=$(find "$W/jobs" -name result.json -path '*__*' | sort | tail -1)
	[ -n "$r" ] || continue
	d=$(dirname "$r")
	{
		cat "$r"; sep
		cat_if "$d/trajectory/acp_trajectory.jsonl"; sep
		cat_if "$d/trajectory/llm_trajectory.jsonl"; sep
		cat_if "$(dirname "$d")/summary.json"; sep
		cat_if "$d/timing.json"; sep
		cat_if "$d/verifier/reward.txt"
	} | seed trial
	cat_if "$d/trajectory/acp_trajectory.jsonl" | seed acp
	{ printf '\001\017\377\003'; cat_if "$d/trajectory/acp_trajectory.jsonl"; } | seed acpframe
done
{
	printf '{"task_name": "demo", "trial_name": "demo__x", "agent_info": {"name": "claude-code", "model_info": {"name": "m", "provider": "p"}},'
	printf ' "verifier_result": {"rewards": {"reward": 1.0}}, "exception_info": null, "started_at": "2026-08-23T10:00:00Z",'
	printf ' "finished_at": "2026-08-23T10:03:00Z", "agent_execution": {"started_at": "2026-08-23T10:00:10Z", "finished_at": "2026-08-23T10:02:00Z"},'
	printf ' "agent_result": {"n_input_tokens": 10, "n_output_tokens": 5}}'; sep; sep; sep
	printf '{"n_total_trials": 1, "stats": {}, "finished_at": "2026-08-23T10:03:00Z"}'; sep
	printf '{"steps": [{"source": "user", "message": "do it"}, {"source": "agent", "reasoning_content": "hm", "message": "done",'
	printf ' "tool_calls": [{"tool_call_id": "c1", "function_name": "Skill", "arguments": {"skill": "csv-sum"}}],'
	printf ' "observation": {"results": [{"source_call_id": "c1", "content": "ok"}]}}]}'; sep
	printf '1\n'
} | seed trial

# ACP session updates, as the scripted agent sends them
{
	printf '{"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "thinking"}}\n'
	printf '{"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hello"}}\n'
	printf '{"sessionUpdate": "tool_call", "toolCallId": "call_00", "title": "skill", "kind": "other", "status": "pending", "rawInput": {}}\n'
	printf '{"sessionUpdate": "tool_call_update", "toolCallId": "call_00", "status": "in_progress", "rawInput": {"name": "csv-sum"}}\n'
	printf '{"sessionUpdate": "tool_call_update", "toolCallId": "call_00", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}]}\n'
} | seed acp

# a plan as the planner answers it, on the skill it was asked about
{
	printf -- '---\nname: fence-skill\ndescription: Convert CSV reports. Use when a task asks to convert a CSV report.\n---\n\n'
	printf '# Fence skill\n\n## Steps\n\nConvert the report with `scripts/convert.sh` and keep the 2 decimals.\n\n'
	printf '## Usage\n\nRun it.\n\n## Background\n\nReports came from the old billing system.\n'; sep
	printf 'Here is the plan:\n```json\n{"operations": [{"op": "reorder", "section": "fence-skill/usage", "before": "fence-skill/steps"},'
	printf ' {"op": "rewrite", "section": "fence-skill/steps", "paragraph": "Convert the report with `scripts/convert.sh` and keep the 2 decimals.",'
	printf ' "text": "Convert the report with `scripts/convert.sh`; keep the 2 decimals."},'
	printf ' {"op": "split", "section": "fence-skill/background", "at": "Reports came from the old", "heading": "History"},'
	printf ' {"op": "move_to_reference", "section": "fence-skill/background", "when": "you need the history."}]}\n```\n'
} | seed plan
echo "seeds: $(find "$OUT" -type f | wc -l) files for $(ls "$OUT" | wc -l) harnesses in $OUT"

# fast and deep answers on the sample task's skill: findings, patches, an edit
# (a short skill: a harness run stays fast, so the fuzzer explores more)
LT=$W/log-triage.md
cat >"$LT" <<'MD'
---
name: log-triage
description: Count log lines by level and component. Use when a task asks for error counts.
---

# Log triage

## Overview

Logs have one event per line: time, level, component, message.

## Quick start

1. Count the levels with `scripts/count_levels.sh`.
2. Check the counts by hand with `grep -c`.

```sh
scripts/count_levels.sh ERROR /root/app.log > /root/report.json
```

## Gotchas

- Levels are upper case: `ERROR`, not `error`.
MD
{ cat "$LT"; sep
  printf '{"findings": [{"section": "log-triage/gotchas#1", "kind": "missing", "evidence": "ls /root", "suggestion": "Say that levels are exact."},'
  printf ' {"section": "nope#1", "kind": "missing", "evidence": "ls /root", "suggestion": "x"}, {"section": "log-triage/quick-start", "kind": "odd", "evidence": "e", "suggestion": "y"}]}'; sep
  printf 'ls /root => data'; } | seed fast
{ cat "$LT"; sep
  printf 'Here you go:\n```json\n{"patches": [{"op": "add", "section": "log-triage/gotchas#1", "text": "- Count only lines whose level is exactly `ERROR`.", "why": "u"},'
  printf ' {"op": "delete", "section": "log-triage/quick-start#1", "find": "```sh", "why": "shorter"}, {"op": "update", "section": "log-triage/overview#1", "text": "New.", "why": "w"}]}\n```'; sep
  printf 'ls /root'; } | seed fast
{ cat "$LT"; sep
  printf '{"edit": {"op": "update", "section": "log-triage/gotchas#1", "find": "ERROR", "text": "Only `ERROR`.", "why": "w"}}'; sep; } | seed fast
