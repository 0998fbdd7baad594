# tests/helpers/skill-device.sh — the test device of the skill-run tests
# (sourced after lib.sh and t_bench_work): the stand-in bench's scripted
# agent decides each trial by the skill's content (FAKE_BENCH_RULES): a
# skill holding GENMARK passes in every task, one holding LITMARK in tr-a
# alone (a task-specific literal), any other fails. Two loopback model
# servers, gen and lit, whose deep edit adds one of those texts.
printf 'task=tr-a LITMARK => pass\nGENMARK => pass\n* => fail\n' >rules
export FAKE_BENCH_RULES=$W/rules
dims() {
	printf '"relevance": {"score": %s, "evidence": "ls /root"}, "correctness": {"score": %s, "evidence": "ls /root"}, "actionability": {"score": %s, "evidence": "ls /root"}, "economy": {"score": %s, "evidence": "ls /root"}, "findability": {"score": %s, "evidence": "ls /root"}' \
		"$1" "$1" "$1" "$1" "$1"
}
# llm DIR TEXT: a loopback model server whose deep edit adds TEXT
llm() {
	t_fakellm "$1" "{\"chat\": [{\"json\": {\"findings\": []}}], \"rules\": [
 {\"match\": \"## Findings, by section and kind\", \"json\": {\"patches\": []}},
 {\"match\": \"## Units to score\", \"json\": {\"scores\": [{\"unit\": \"csv-column-sums/steps#1\", $(dims 1)}]}},
 {\"match\": \"The unit to edit: [\", \"json\": {\"edit\": {\"op\": \"add\", \"text\": \"$2\", \"why\": \"w\"}}}]}"
	printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20}}}\n' "$FAKELLM_URL" >"$1/routes.json"
}
llm "$T_TMP/gen" "GENMARK: check the header first."
llm "$T_TMP/lit" "LITMARK: in this ledger use column four."
# skill_settings NAME LLM: the settings of a skill run in RESULTS=NAME with its own caches
skill_settings() {
	echo "RUNNER=benchflow MODEL=vllm/qwen-27b REPEAT=3 FAST_MIN_TRACES=3 FAST_TOP=1 FAST_BOTTOM=1 DEEP_ROUNDS=1
 EXTERNAL_MODEL=fake/compiler ROUTES=$T_TMP/$2/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache-$1 RESULTS=$1
 skill=csv-sum"
}
