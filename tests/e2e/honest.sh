#!/bin/sh
# End-to-end: honest end lines. A compiler model whose every answer is
# unusable fails the stage (fast's map, deep's scores), naming the cache key
# and LLM_CACHE=refresh, again on a rerun that replays the cached answers;
# a final that neither optimizing stage changed says so on its last line;
# the static compile never publishes a skill that breaks the spec or its
# model's budget (a description over 1024 characters is cut, a body that
# stays over budget fails with one line).
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS STATIC_MODE
t_bench_work log-error-report
export FAKE_BENCH_RULES=$W/rules
echo '* => fail ; pass ; fail' >rules
L=$T_TMP/llm
# no rule matches: every answer is prose where JSON is wanted
t_fakellm "$L" '{"chat": [{"text": "I would rather not."}], "health": [{"body": {"status": "ok"}}], "score": [{"score": 0.5}],
 "rules": [{"match": "## Skill sections (id, heading, text)", "json": {"findings": []}}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' "$FAKELLM_URL" >"$L/routes.json"
RM=${FAKELLM_URL%/v1}
SET="task=log-error-report RUNNER=benchflow MODEL=vllm/q REPEAT=3 DEEP_ROUNDS=1 ROUTES=$L/routes.json
 ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache RM_API_URL=$RM"
R=results/compile-pipeline/log-error-report--opencode--vllm_q

t_begin "deep's scores all unusable: make final fails naming the cache key and LLM_CACHE=refresh"
out=$($SK -j2 $SET EXTERNAL_MODEL=fake/compiler final 2>&1)
t_eq "exit: the stage's 1 (the work failed), not make's 2" $? 1
t_contains "stage failed" "$out" "skillc: deep-1-score: failed"
t_contains "all unusable" "$out" "skillc-deep: deep-1-score: all 5 answers of EXTERNAL_MODEL 'fake/compiler' unusable"
t_contains "cache key" "$out" "(cache key "
t_contains "the cure" "$out" "LLM_CACHE=refresh asks again"
t_check "no scores written" test ! -e $R/artifacts/deep/round-1/scores.json
t_check "no S_final" test ! -e $R/artifacts/deep/S_final
out=$($SK -j2 $SET EXTERNAL_MODEL=fake/compiler final 2>&1)
t_eq "rerun exit" $? 1
t_contains "rerun names the cure too" "$out" "LLM_CACHE=refresh asks again"
t_end

t_begin "fast's maps all unusable: fast-reduce fails and nothing after it runs"
L3=$T_TMP/llm3
t_fakellm "$L3" '{"chat": [{"text": "I would rather not."}], "health": [{"body": {"status": "ok"}}], "score": [{"score": 0.5}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' "$FAKELLM_URL" >"$L3/routes.json"
out=$($SK -j2 $SET ROUTES=$L3/routes.json RM_API_URL=${FAKELLM_URL%/v1} EXTERNAL_MODEL=fake/other final 2>&1)
t_eq "exit" $? 1
t_contains "all unusable" "$out" "fast-map: all 3 answers of EXTERNAL_MODEL 'fake/other' unusable"
t_contains "cure" "$out" "LLM_CACHE=refresh"
case $out in *"fast-apply: started"*) t_fail "fast-apply ran after the failed reduce" ;; esac
t_end

t_begin "make's status is the failed stage's: 2 when a stage refused bad input"
mkdir -p "$T_TMP/badprof" && echo '{' >"$T_TMP/badprof/a.json"
out=$($SK $SET MODEL=vllm/q3 PROFILES_DIR=$T_TMP/badprof profile 2>&1)
t_eq "exit (output: $out)" $? 2
t_contains "the stage's line" "$out" "skillc-profile: '$T_TMP/badprof/a.json' is not valid JSON"
t_end

t_begin "a final neither fast nor deep changed says so on its last line"
R2=results/compile-pipeline/log-error-report--opencode--vllm_q2
L2=$T_TMP/llm2
t_fakellm "$L2" '{"chat": [{"json": {"findings": [], "scores": []}}], "health": [{"body": {"status": "ok"}}], "score": [{"score": 0.5}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' "$FAKELLM_URL" >"$L2/routes.json"
out=$($SK -j2 task=log-error-report RUNNER=benchflow MODEL=vllm/q2 REPEAT=3 DEEP_ROUNDS=1 ROUTES=$L2/routes.json \
	ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache2 RM_API_URL=${FAKELLM_URL%/v1} EXTERNAL_MODEL=fake/compiler final 2>&1)
t_eq "exit" $? 0
t_contains "last line" "$(printf '%s\n' "$out" | tail -n 1)" \
	"final done; final = static: fast 0 patches, deep 0 edits; the skill is $R2/artifacts/deep/S_final;"
t_end

# A skill in the shape of a large vendor-API skill: a description over the
# spec's 1024 characters and a body of protected rules and examples.
mkdir -p "$T_TMP/big/in/big-api"
{
	printf -- '---\nname: big-api\ndescription: Build apps with the Big API and its SDKs.'
	for i in $(seq 1 13); do
		printf ' Use when code calls the Big API (case %s), streams, batches or caches prompts.' $i
	done
	printf '\n---\n\n# Big API\n\nInstall with `pip install big-api` and set `BIG_API_KEY`.\n'
	for i in $(seq 1 30); do
		printf '\n## Gotchas %s\n\n' $i
		for j in 1 2 3; do
			printf -- '- Always pass `max_tokens=%s` to `client.messages.create` (case %s): without it the API answers HTTP 400 invalid_request_error.\n' $((i * 100)) $j
		done
		printf '\n```python\nresp = client.messages.create(model="big-%s", max_tokens=%s, messages=[])\n```\n' $i $((i * 100))
	done
} >"$T_TMP/big/in/big-api/SKILL.md"
P=$T_TMP/big

t_begin "static: a description over 1024 characters is cut to fit, and the output passes skillc-check"
skillc-check "$P/in/big-api" >"$P/check.in" 2>&1
t_eq "the source is invalid" $? 1
t_contains "why" "$(cat "$P/check.in")" "Description exceeds 1024 character limit"
skillc-profile --model any/model --profiles "$T_ROOT/rules/profiles" --out "$P/default.json" >/dev/null 2>&1
out=$(skillc-static --skill "$P/in" --profile "$P/default.json" --out "$P/out" --report "$P/r.json" 2>&1)
t_eq "exit" $? 0
t_check "valid" skillc-check "$P/out/big-api"
t_eq "the step" "$(jq -r '.skills[0].steps[] | select(.kind == "spec") | .status' "$P/r.json")" applied
t_contains "why" "$(jq -r '.skills[0].steps[] | select(.kind == "spec") | .why' "$P/r.json")" "over the spec's 1024"
t_check "cut at a sentence end" grep -q '^description: ".*prompts\."$' "$P/out/big-api/SKILL.md"
t_end

t_begin "static: a body that stays over the profile's budget fails with one line and publishes nothing"
skillc-profile --model vllm/Qwen/Qwen3.5-27B --profiles "$T_ROOT/rules/profiles" --out "$P/qwen.json" >/dev/null 2>&1
skillc-static --skill "$P/in" --profile "$P/qwen.json" --out "$P/out2" --report "$P/r2.json" >/dev/null 2>"$P/err"
t_eq "exit" $? 1
t_eq "one line" "$(wc -l <"$P/err" | tr -d ' ')" 1
t_contains "names the budget" "$(cat "$P/err")" "skillc-static: 'big-api' stays over the budget of profile 'qwen'"
t_check "no output" test ! -e "$P/out2"
t_check "no report" test ! -e "$P/r2.json"
t_end
