#!/bin/sh
# End-to-end: `make -j3 final` killed -9 while the deep stage scores the
# skill (10 units: two questions to the model, one after the other), then
# run again. Three aimed kills, each from the same state before deep: as
# deep-1-score starts (its skillc-deep just forked), with the first
# question in flight, with the second in flight (the first answer cached).
# Each resume ends in the uninterrupted run's state and asks the model
# exactly for the answers the cache did not hold at the kill. The session
# is frozen whole before the cache is counted (tests/helpers/session.sh: a
# process forked during one pkill's walk escapes it, and an escaped
# skillc-deep once cached an answer after the count, which read as a
# request not paid for).
. "$(dirname "$0")/../lib.sh"

unset MAKEFLAGS MFLAGS MAKELEVEL MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE REPEAT DEEP_ROUNDS
TASK=log-error-report
t_bench_work $TASK
echo "pass sleep=0.1" >script
L=$T_TMP/llm
# the scoring questions are slow, so a freeze lands while one is asked
t_fakellm "$L" '{"rules": [
  {"match": "You review how an AI agent used a skill", "json": {"findings": []}},
  {"match": "## Units to score", "json": {"scores": []}, "delay": 1.5},
  {"match": "You plan edits to an Agent Skill", "json": {"operations": [
   {"op": "reorder", "section": "log-triage/gotchas", "before": "log-triage/quick-start"}]}}],
 "chat": [{"text": "ok"}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 30}}}\n' "$FAKELLM_URL" >"$L/routes.json"
pipeline() { # pipeline NAME ARGS...: one make of the run under NAME/
	_c=$1; shift
	$SK task=$TASK TASKS_DIR="$W/tasks" RESULTS="$W/$_c/results" CACHE_DIR="$W/$_c/cache" ROUTES="$L/routes.json" \
		ENV_FILE="$T_TMP/none.env" RUNNER=benchflow MODEL=vllm/qwen-27b STATIC_MODE=hybrid \
		EXTERNAL_MODEL=fake/planner REPEAT=3 "$@"
}
run_dir() { echo "$W/$1/results/$TASK--opencode--vllm_qwen-27b"; }
scores_asked() { grep -c 'Units to score' "$L/log.jsonl" 2>/dev/null || echo 0; }
requests() { grep -c '"endpoint":"chat"' "$L/log.jsonl" 2>/dev/null || echo 0; }
entries() { find "$W/$1/cache/llm" -type f -name '*.json' ! -name '.*' 2>/dev/null | wc -l; }
idle() { curl -s "http://127.0.0.1:$(cat "$L/port")/_fake/stats" | grep -q '"in_flight":0'; }
# what must not depend on a kill: the skills' hashes, the scores, every
# stage's trials and rewards, status, no temp file outside .incomplete/
state() {
	_r=$(run_dir "$1")
	cat "$_r/artifacts/static/S_static.hash" "$_r/artifacts/deep/S_final.hash"
	jq -c 'del(.calls[].status) | [.calls, .units, .unscored]' "$_r/artifacts/deep/round-1/scores.json"
	for _ix in "$_r"/traces/*/*/index.json; do
		echo "$(basename "$(dirname "$_ix")") $(jq -c '[.counts, ([.trials[] | [.key, .outcome, .reward]] | sort)]' "$_ix")"
	done
	pipeline "$1" status GOAL=final >/dev/null 2>&1 && echo "up to date" || echo "not up to date"
	find "$_r" -name '.*.tmp.*' -not -path '*/.incomplete/*' | sed 's/^/temp /'
}

t_begin "the uninterrupted run, then the state before deep (deep cleaned, its answers dropped)"
pipeline ref -j3 final >ref.out 2>&1
t_eq "exit" $? 0
state ref >ref.state
t_contains "up to date" "$(cat ref.state)" "up to date"
t_eq "two scoring questions" "$(jq '.calls | length' "$(run_dir ref)/artifacts/deep/round-1/scores.json")" 2
mkdir pre && cp -R ref/results ref/cache pre/
pipeline pre clean-stage STAGE=deep >/dev/null 2>&1
t_eq "clean-stage exit" $? 0
grep -l 'Units to score' -r pre/cache/llm | xargs rm -f
t_eq "cache before deep: every answer but the scores" "$(entries pre)" "$(( $(entries ref) - 2 ))"
t_end

# kill_when NAME TEST...: make final on a copy of pre/ as NAME, frozen whole
# and killed -9 once TEST holds while deep-1-score runs; then resumed
kill_when() {
	_c=$1; shift
	cp -R pre "$_c"
	setsid $SK task=$TASK TASKS_DIR="$W/tasks" RESULTS="$W/$_c/results" CACHE_DIR="$W/$_c/cache" \
		ROUTES="$L/routes.json" ENV_FILE="$T_TMP/none.env" RUNNER=benchflow MODEL=vllm/qwen-27b \
		STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner REPEAT=3 -j3 final >"$_c.kill.out" 2>&1 &
	_sid=$!
	_i=0
	while [ $_i -lt 6000 ] && ! "$@"; do sleep 0.005; _i=$((_i + 1)); done
	session_freeze $_sid || t_fail "$_c: the session would not stop"
	held=$(entries "$_c")
	grep -q '"state": "running"' "$(run_dir "$_c")/status/deep-1-score.json" && [ ! -e "$(run_dir "$_c")/artifacts/deep/round-1/scores.json" ] ||
		t_fail "$_c: the kill did not land while deep-1-score ran"
	session_kill $_sid
	wait $_sid 2>/dev/null
	# a question sent before the kill was paid for: let the server log it
	t_poll 30 idle || t_fail "$_c: the model server stayed busy"
	paid=$(requests)
	pipeline "$_c" -j3 final >"$_c.resume.out" 2>&1
	t_eq "$_c: resume exit" $? 0
	t_eq "$_c: the resume asked the model for exactly the answers missing at the kill" \
		"$(( $(requests) - paid ))" "$(( $(entries "$_c") - held ))"
	state "$_c" >"$_c.state"
	t_eq "$_c: the uninterrupted run's state" "$(diff ref.state "$_c.state" | grep '^[<>]' | head -2 | tr '\n' ' ')" ""
}
running() { grep -q '"state": "running"' "$(run_dir "$1")/status/deep-1-score.json" 2>/dev/null; }

t_begin "killed -9 as deep-1-score starts: resumed to the same state, asking only for what was missing"
kill_when k1 running k1
t_eq "both questions asked by the resume" "$(( $(entries k1) - held ))" 2
t_end

t_begin "killed -9 with the first scoring question in flight: the same, the question asked again"
before=$(scores_asked)
kill_when k2 eval '[ "$(scores_asked)" -gt $before ]'
t_eq "both questions asked by the resume" "$(( $(entries k2) - held ))" 2
t_eq "asked: 1 cut short + 2" "$(( $(scores_asked) - before ))" 3
t_end

t_begin "killed -9 with the second in flight (the first answer cached): only the second asked again"
before=$(scores_asked)
kill_when k3 eval '[ "$(scores_asked)" -gt $((before + 1)) ]'
t_eq "one question asked by the resume" "$(( $(entries k3) - held ))" 1
t_eq "asked: 1 + 1 cut short + 1" "$(( $(scores_asked) - before ))" 3
t_end

t_begin "decision.json and S_final's SKILL.md edited by hand: status names both, make undoes them"
D=$(run_dir ref)/artifacts/deep
sleep 0.1 # later than the stage's stamp, not within the file clock's tick
echo " " >>"$D/round-1/decision.json"
for f in "$D"/S_final/*/SKILL.md; do echo "hand edit" >>"$f"; done
out=$(pipeline ref status GOAL=final 2>&1)
t_eq "status exit" $? 1
t_contains "decision named" "$out" "modified by hand: artifacts/deep/round-1/decision.json"
t_contains "S_final named" "$out" "modified by hand: artifacts/deep/S_final"
out=$(pipeline ref -j3 final 2>&1)
t_eq "make exit" $? 0
state ref >ref.again
t_eq "the state before the edits" "$(diff ref.state ref.again | grep '^[<>]' | head -2 | tr '\n' ' ')" ""
t_eq "S_final without the edit" "$(cat "$D"/S_final/*/SKILL.md | grep -c 'hand edit')" 0
t_end
