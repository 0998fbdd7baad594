#!/bin/sh
# End-to-end: skillc-llm and skillc-doctor against the loopback fake server
# (tests/helpers/fakellm) over real HTTP: answers, the cache across
# processes and after kill -9, retries, fatal statuses, offline replay,
# JSON repair, pay-once, the concurrency cap under make -j8, and no key in
# anything a run wrote.
. "$(dirname "$0")/../lib.sh"

FAKELLM=$T_ROOT/build/tests/helpers/fakellm
KEY=sk-skillc-test-9f3c51e07ab24d68
[ -x "$FAKELLM" ] || { echo "FAIL fake server: $FAKELLM is missing (make check builds it)"; exit 1; }
# settings a calling make may have exported must not steer these tests
unset MODEL EXTERNAL_MODEL ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE DOCTOR_PROBE FAKE_KEY
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$T_TMP"' EXIT

# start_fake NAME SCRIPT: a fresh server and a folder $D with routes.json
# (provider "fake", key in .env; provider "open", no key) for one case.
# ATTEMPTS, TIMEOUT, CONC tune the route.
start_fake() {
	D=$T_TMP/$1
	mkdir -p "$D"
	printf '%s\n' "$2" >"$D/script.json"
	"$FAKELLM" --script "$D/script.json" --log "$D/log.jsonl" --stats "$D/stats.json" \
		--port-file "$D/port" 2>"$D/fake.err" &
	FAKE_PID=$!
	PIDS="$PIDS $FAKE_PID"
	t_poll 20 test -s "$D/port"
	port=$(cat "$D/port")
	cat >"$D/routes.json" <<EOF
{"providers": {
  "fake": {"base_url": "http://127.0.0.1:$port/v1", "key_env": "FAKE_KEY",
           "max_concurrency": ${CONC:-4}, "timeout": ${TIMEOUT:-10}, "connect_timeout": 2,
           "retry": {"attempts": ${ATTEMPTS:-5}, "base_delay": 0.01, "max_delay": 0.05},
           "prices": {"*": {"input": 1, "output": 2${CACHED:+, \"cached_input\": $CACHED}}}},
  "open": {"base_url": "http://127.0.0.1:$port/v1", "key_env": null}
}}
EOF
	printf '# test key\nexport FAKE_KEY="%s"\n' "$KEY" >"$D/.env"
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }
requests() { if [ -f "$D/log.jsonl" ]; then wc -l <"$D/log.jsonl" | tr -d ' '; else echo 0; fi; }
# llm ARGS...: skillc-llm in $D with its files; stdout and stderr kept
llm() { (cd "$D" && exec skillc-llm --routes routes.json --env-file .env --cache-dir cache --usage usage.jsonl "$@"); }
has_requests() { [ "$(requests)" -ge "$WANT_REQUESTS" ]; }
wait_requests() { WANT_REQUESTS=$1; t_poll 20 has_requests; }
jfield() { jq -r "$1" "$2"; }

printf '%s' "$KEY" >"$T_TMP/key.txt"
KEYHASH=$(skillc-hash "$T_TMP/key.txt" | cut -d' ' -f1)
rm -f "$T_TMP/key.txt"

t_begin "text answer: printed, one request with the key from .env, usage record with tokens and cost"
start_fake text '{"chat": [{"text": "hello there", "usage": {"prompt_tokens": 1000, "completion_tokens": 500}}]}'
out=$(llm -m fake/m1 -s "be brief" say hello 2>"$D/err")
t_eq "exit" $? 0
t_eq "answer" "$out" "hello there"
t_eq "requests" "$(requests)" 1
t_eq "auth hash" "$(jfield .auth.hash "$D/log.jsonl")" "$KEYHASH"
t_eq "body" "$(jq -c .body "$D/log.jsonl")" '{"messages":[{"content":"be brief","role":"system"},{"content":"say hello","role":"user"}],"model":"m1"}'
t_eq "usage" "$(jq -c '[.cache,.outcome,.attempts,.tokens_in,.tokens_out,.cost_usd,.provider,.model]' "$D/usage.jsonl")" \
	'["miss","ok",1,1000,500,0.002,"fake","fake/m1"]'
t_check "one cache entry" test "$(find "$D/cache/llm" -name '*.json' | wc -l)" -eq 1
t_end

t_begin "cached answer: a second process makes zero requests"
out=$(llm -m fake/m1 -s "be brief" say hello 2>"$D/err")
t_eq "answer" "$out" "hello there"
t_eq "requests" "$(requests)" 1
t_eq "usage" "$(tail -n 1 "$D/usage.jsonl" | jq -c '[.cache,.attempts,.cost_usd]')" '["hit",0,0]'
out=$(llm -m fake/m1 -s "be brief" --template v2 say hello 2>"$D/err")
t_eq "template version is part of the key" "$(requests)" 2
t_end
stop_fake

t_begin "kill -9 mid-call: cached answers still cost nothing, the killed call re-runs cleanly"
start_fake kill '[{"text": "A"}, {"delay": 20, "text": "B"}, {"text": "C"}]'
llm -m fake/m x >/dev/null 2>&1
(cd "$D" && exec skillc-llm --routes routes.json --env-file .env --cache-dir cache -m fake/m y >"$D/y.out" 2>&1) &
ypid=$!
wait_requests 2
kill -9 $ypid
wait $ypid 2>/dev/null
t_eq "the slow call reached the server" "$(requests)" 2
out=$(llm -m fake/m x 2>/dev/null)
t_eq "cached answer" "$out" "A"
t_eq "no request for the cached answer" "$(requests)" 2
out=$(llm -m fake/m y 2>/dev/null)
t_eq "re-run of the killed call" "$out" "C"
t_eq "one more request" "$(requests)" 3
t_check "no temp or lock files left" test -z "$(find "$D/cache/llm" -name '.*' -o -name '*.lock')"
t_end
stop_fake

t_begin "429 (Retry-After) and 500/503 are retried and succeed"
start_fake retry '[{"status": 429, "headers": {"Retry-After": "0"}}, {"status": 500}, {"status": 503}, {"text": "finally"}]'
out=$(llm -m fake/m q 2>"$D/err")
t_eq "exit" $? 0
t_eq "answer" "$out" "finally"
t_eq "requests" "$(requests)" 4
t_eq "attempts in usage" "$(jfield .attempts "$D/usage.jsonl")" 4
t_end
stop_fake

t_begin "Retry-After is honoured"
start_fake retryafter '[{"status": 429, "headers": {"Retry-After": "1"}}, {"text": "ok"}]'
llm -m fake/m q >/dev/null 2>&1
t1=$(jq .time "$D/log.jsonl" | head -n 1)
t2=$(jq .time "$D/log.jsonl" | tail -n 1)
t_check "second request at least 0.9 s after the first ($t1 $t2)" awk "BEGIN { exit !($t2 - $t1 >= 0.9) }"
t_end
stop_fake

t_begin "malformed, truncated and dropped answers and timeouts are retried"
TIMEOUT=0.5; start_fake broken '[{"malformed": true}, {"truncate": true}, {"close": true}, {"delay": 3, "text": "slow"}, {"text": "fine"}]'
TIMEOUT=
out=$(llm -m fake/m q 2>"$D/err")
t_eq "exit" $? 0
t_eq "answer" "$out" "fine"
t_eq "requests" "$(requests)" 5
t_end
stop_fake

t_begin "retries are bounded: 500 forever fails with exit 1 after the attempts"
ATTEMPTS=3; start_fake down '[{"status": 500}]'
ATTEMPTS=
llm -m fake/m q >/dev/null 2>"$D/err"
t_eq "exit" $? 1
t_eq "requests" "$(requests)" 3
t_contains "message" "$(cat "$D/err")" "skillc-llm: provider 'fake' (model 'm') failed after 3 attempts in"
t_contains "message" "$(cat "$D/err")" "HTTP 500: scripted HTTP 500"
t_eq "usage outcome" "$(jfield .outcome "$D/usage.jsonl")" error
t_end
stop_fake

t_begin "401 fails at once naming the provider and the key variable, never the key"
start_fake auth '{"require_key": "the-right-key", "chat": [{"text": "never"}]}'
llm -m fake/m q >/dev/null 2>"$D/err"
t_eq "exit" $? 2
t_eq "requests" "$(requests)" 1
t_eq "message" "$(cat "$D/err")" "skillc-llm: provider 'fake' rejected the key in FAKE_KEY (HTTP 401, key from ENV_FILE '.env'): check or replace it"
FAKE_KEY=from-the-environment-123 llm -m fake/m q >/dev/null 2>"$D/err2"
t_contains "the environment wins over .env" "$(cat "$D/err2")" "key from the environment"
printf '%s' from-the-environment-123 >"$D/k"
t_eq "the environment's key was sent" "$(tail -n 1 "$D/log.jsonl" | jq -r .auth.hash)" "$(skillc-hash "$D/k" | cut -d' ' -f1)"
rm -f "$D/k"
printf '{"providers": {"opt": {"base_url": "http://127.0.0.1:%s/v1", "key_env": "OPT_KEY", "key_required": false}}}' "$(cat "$D/port")" >"$D/opt.json"
(cd "$D" && skillc-llm --routes opt.json -m opt/m q) >/dev/null 2>"$D/err3"
t_eq "an optional key that the server wants" "$(cat "$D/err3")" "skillc-llm: provider 'opt' wants a key (HTTP 401): set OPT_KEY in the environment or in ENV_FILE '.env'"
t_end
stop_fake

t_begin "403 and 404 fail at once and say what to check"
start_fake notfound '[{"status": 404, "body": {"error": {"message": "The model `nope` does not exist"}}}, {"status": 403}]'
llm -m fake/nope q >/dev/null 2>"$D/err"
t_eq "exit" $? 2
t_contains "404 message" "$(cat "$D/err")" "provider 'fake' has no model 'nope' or no endpoint http://127.0.0.1:"
t_contains "404 detail" "$(cat "$D/err")" "check the model id and base_url: The model \`nope\` does not exist"
llm -m fake/nope q >/dev/null 2>"$D/err"
t_eq "exit" $? 2
t_contains "403 message" "$(cat "$D/err")" "provider 'fake' refused model 'nope' (HTTP 403) with the key in FAKE_KEY"
t_eq "requests" "$(requests)" 2
t_end
stop_fake

t_begin "unknown provider, missing key, malformed routes: exit 2 before any request"
start_fake config '[{"text": "never"}]'
llm -m nosuch/m q >/dev/null 2>"$D/err"
t_eq "unknown provider exit" $? 2
t_contains "unknown provider" "$(cat "$D/err")" "unknown provider 'nosuch' in model 'nosuch/m': add it to routes 'routes.json' (known: fake, open)"
(cd "$D" && skillc-llm --routes routes.json --env-file missing.env --cache-dir cache -m fake/m q) >/dev/null 2>"$D/err"
t_eq "missing key exit" $? 2
t_eq "missing key" "$(cat "$D/err")" "skillc-llm: provider 'fake' needs a key: set FAKE_KEY in the environment or in ENV_FILE 'missing.env'"
printf '{"providers": {"fake": {"base_url": "http://x", "timeout": "long"}}}' >"$D/bad.json"
(cd "$D" && skillc-llm --routes bad.json -m fake/m q) >/dev/null 2>"$D/err"
t_eq "bad routes exit" $? 2
t_eq "bad routes" "$(cat "$D/err")" "skillc-llm: routes 'bad.json': provider 'fake': 'timeout' must be a number from 0.001 to 86400"
(cd "$D" && skillc-llm --routes nothere.json -m fake/m q) >/dev/null 2>"$D/err"
t_eq "missing routes exit" $? 2
t_contains "missing routes" "$(cat "$D/err")" "routes 'nothere.json' cannot be read"
llm -m gpt-4o q >/dev/null 2>"$D/err"
t_eq "no provider exit" $? 2
llm -m fake/m --cache sometimes q >/dev/null 2>"$D/err"
t_eq "bad cache mode" "$(cat "$D/err")" "skillc-llm: --cache wants use, refresh, off or only, not 'sometimes'"
llm -m fake/m q --cache=sometimes >/dev/null 2>"$D/err"
t_eq "an option after the prompt, as --x=v" "$(cat "$D/err")" "skillc-llm: --cache wants use, refresh, off or only, not 'sometimes'"
t_eq "requests" "$(requests)" 0
printf '{"providers": {"opt": {"base_url": "http://127.0.0.1:1/v1", "key_env": "OPT_KEY", "key_required": false}}}' >"$D/opt.json"
(cd "$D" && skillc-llm --routes opt.json --show-route -m opt/m) >"$D/show"
t_contains "optional key not set" "$(cat "$D/show")" "key             OPT_KEY, not needed"
out=$(llm -m open/m q 2>/dev/null)
t_eq "a route without key_env needs no key" "$out" never
t_eq "and sends none" "$(jq -r .auth.present "$D/log.jsonl")" false
t_end
stop_fake

t_begin "only: a cold cache fails with exit 2 naming the key; a warm one makes no request"
start_fake only '[{"text": "recorded"}]'
llm -m fake/m --cache only q >/dev/null 2>"$D/err"
t_eq "exit" $? 2
t_contains "message" "$(cat "$D/err")" "LLM_CACHE=only: no cached answer for key "
key=$(sed -n 's/.*for key \([0-9a-f]\{32\}\) .*/\1/p' "$D/err")
t_check "the key is named" test -n "$key"
t_eq "no request" "$(requests)" 0
llm -m fake/m q >/dev/null 2>&1
t_check "the named key is the entry recorded" test -f "$D/cache/llm/$(echo "$key" | cut -c1-2)/$key.json"
out=$(LLM_CACHE=only llm -m fake/m q 2>/dev/null)
t_eq "warm answer" "$out" recorded
t_eq "requests" "$(requests)" 1
t_end

t_begin "refresh asks again and re-records; off neither reads nor records"
llm -m fake/m --cache refresh q >/dev/null 2>&1
t_eq "refresh requests" "$(requests)" 2
llm -m fake/m --cache off other >/dev/null 2>&1
t_eq "off requests" "$(requests)" 3
t_eq "off recorded nothing" "$(find "$D/cache/llm" -name '*.json' | wc -l | tr -d ' ')" 1
t_end
stop_fake

t_begin "JSON mode: response_format sent, answer repaired within the bound"
start_fake json '[{"text": "Sure! Here it is: no json"}, {"text": "```json\n{\"b\": 1}\n```"}, {"text": "{\"a\": [1, 2], \"b\": 0}"}]'
out=$(llm -m fake/m --json --require a "give a and b as JSON" 2>"$D/err")
t_eq "exit" $? 0
t_eq "answer" "$(printf '%s' "$out" | jq -c .)" '{"a":[1,2],"b":0}'
t_eq "requests" "$(requests)" 3
t_eq "response_format" "$(head -n 1 "$D/log.jsonl" | jq -c .body.response_format)" '{"type":"json_object"}'
t_contains "repair tells why" "$(tail -n 1 "$D/log.jsonl" | jq -r '.body.messages[-1].content')" 'the object lacks the key "a"'
t_eq "repair shows the bad answer" "$(tail -n 1 "$D/log.jsonl" | jq -r '.body.messages[-2].role')" assistant
out=$(llm -m fake/m --json --require a "give a and b as JSON" 2>/dev/null)
t_eq "replayed from the cache" "$(requests)" 3
t_end
stop_fake

t_begin "JSON mode: repairs are bounded (exit 1)"
start_fake jsonbad '[{"text": "no json at all"}]'
llm -m fake/m --json --repairs 1 "json please" >/dev/null 2>"$D/err"
t_eq "exit" $? 1
t_eq "requests" "$(requests)" 2
t_contains "message" "$(cat "$D/err")" "model 'fake/m' gave no usable JSON object after 1 repair: it holds no JSON object"
llm -m fake/m --json --repairs 11 "json please" >/dev/null 2>"$D/err"
t_eq "too many repairs: bad usage" $? 2
t_eq "says the range" "$(cat "$D/err")" "skillc-llm: --repairs wants a whole number from 0 to 10, not '11'"
t_end
stop_fake

t_begin "two processes asking the same thing at once pay once"
start_fake payonce '[{"delay": 0.5, "text": "shared"}]'
(cd "$D" && exec skillc-llm --routes routes.json --env-file .env --cache-dir cache -m fake/m same >"$D/a.out" 2>&1) &
a=$!
(cd "$D" && exec skillc-llm --routes routes.json --env-file .env --cache-dir cache -m fake/m same >"$D/b.out" 2>&1) &
b=$!
wait $a
wait $b
t_eq "first" "$(cat "$D/a.out")" shared
t_eq "second" "$(cat "$D/b.out")" shared
t_eq "requests" "$(requests)" 1
t_end
stop_fake

t_begin "make -j8 with max_concurrency 2: never more than 2 requests in flight"
CONC=2; start_fake jobs '[{"delay": 0.3, "echo": true}]'
CONC=
{
	printf 'all: %s\n' "$(for i in 1 2 3 4 5 6 7 8; do printf 'out/%s ' $i; done)"
	printf 'out/%%:\n\t@mkdir -p out\n\t@skillc-llm --routes routes.json --env-file .env --cache-dir cache --usage usage.jsonl -m fake/m "prompt $*" > $@\n'
} >"$D/Makefile"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j8 -C "$D" >"$D/make.out" 2>&1
t_eq "make" $? 0
t_eq "requests" "$(requests)" 8
t_eq "peak in flight" "$(jq .peak_in_flight "$D/stats.json")" 2
t_eq "answers" "$(cat "$D/out/3")" "prompt 3"
t_eq "usage lines" "$(wc -l <"$D/usage.jsonl" | tr -d ' ')" 8
t_end
stop_fake

# doctor ARGS...: skillc-doctor in $D for `make static` in hybrid mode, where
# EXTERNAL_MODEL is called through the routes (tests/e2e/doctor.sh has the rest)
doctor() { (cd "$D" && exec env ROUTES=routes.json ENV_FILE=.env CACHE_DIR=cache STATIC_MODE=hybrid "$@"); }
t_begin "skillc-doctor: routes, keys and models checked without tokens"
start_fake doctor '{"models": [{"models": ["m1", "Qwen/Qwen3.5-27B"]}], "chat": [{"text": "o"}]}'
out=$(doctor MODEL=open/m1 EXTERNAL_MODEL=fake/Qwen/Qwen3.5-27B skillc-doctor static)
t_eq "exit" $? 0
t_contains "model line" "$out" "ok      EXTERNAL_MODEL: fake/Qwen/Qwen3.5-27B: key FAKE_KEY from ENV_FILE '.env', listed by the provider"
t_contains "MODEL only named" "$out" "ok      MODEL: open/m1 (make static names it but calls no model)"
t_contains "summary" "$out" "all good"
t_eq "no chat request" "$(grep -c '"endpoint":"chat"' "$D/log.jsonl")" 0
out=$(doctor ENV_FILE=none.env MODEL=open/m1 EXTERNAL_MODEL=fake/m2 skillc-doctor static)
t_eq "problems exit" $? 1
t_contains "missing key" "$out" "problem EXTERNAL_MODEL: fake/m2: provider 'fake' needs a key: set FAKE_KEY in the environment or in ENV_FILE 'none.env'"
t_contains "count" "$out" "1 problem found"
out=$(doctor MODEL=open/m1 EXTERNAL_MODEL=open/m3 skillc-doctor static)
t_contains "unlisted model" "$out" "problem EXTERNAL_MODEL: open/m3: the provider lists 2 models but not 'm3'"
n=$(requests)
out=$(doctor MODEL=fake/m1 DOCTOR_PROBE=none skillc-doctor static)
t_eq "probe none exit" $? 1
t_contains "EXTERNAL_MODEL unset" "$out" "problem EXTERNAL_MODEL: not set, and make static needs it: give EXTERNAL_MODEL=provider/model-id"
t_eq "probe none makes no request" "$(requests)" "$n"
out=$(doctor MODEL=fake/m1 EXTERNAL_MODEL=fake/m1 skillc-doctor --probe call static)
t_eq "probe call exit" $? 0
t_eq "probe call: one 1-token request" "$(grep '"endpoint":"chat"' "$D/log.jsonl" | jq -c .body.max_tokens | tr '\n' ' ')" "1 "
(cd "$D" && DOCTOR_PROBE=maybe skillc-doctor) >/dev/null 2>"$D/err"
t_eq "bad probe exit" $? 2
printf '{"providers": 3}' >"$D/bad.json"
out=$(doctor ROUTES=bad.json MODEL=fake/m1 EXTERNAL_MODEL=fake/m1 skillc-doctor static)
t_contains "bad routes" "$out" "problem ROUTES: routes 'bad.json': \"providers\" must be an object"
t_end
stop_fake

t_begin "doctor: a rejected key is one problem line"
start_fake doctor401 '{"require_key": "other"}'
out=$(doctor MODEL=open/m1 EXTERNAL_MODEL=fake/m1 skillc-doctor static)
t_eq "exit" $? 1
t_contains "401" "$out" "problem EXTERNAL_MODEL: provider 'fake' rejected the key in FAKE_KEY (HTTP 401, key from ENV_FILE '.env')"
t_end
stop_fake

if command -v curl >/dev/null 2>&1; then
t_begin "fake server: streaming (SSE) text and tool calls"
	start_fake stream '[{"text": "hello streaming world, in pieces"}, {"tool_calls": [{"name": "bash", "arguments": {"command": "ls -la"}}]}]'
	url=http://127.0.0.1:$(cat "$D/port")/v1/chat/completions
	curl -sN "$url" -d '{"model": "m", "stream": true, "stream_options": {"include_usage": true}, "messages": []}' >"$D/s1"
	curl -sN "$url" -d '{"model": "m", "stream": true, "messages": []}' >"$D/s2"
	text=$(sed -n 's/^data: //p' "$D/s1" | grep -v DONE | jq -r '.choices[0].delta.content // empty' | tr -d '\n')
	t_eq "text pieces" "$text" "hello streaming world, in pieces"
	t_eq "usage chunk" "$(sed -n 's/^data: //p' "$D/s1" | grep -v DONE | jq -c 'select(.usage) | .choices' )" "[]"
	t_eq "ends with DONE" "$(tail -n 2 "$D/s1" | head -n 1)" "data: [DONE]"
	args=$(sed -n 's/^data: //p' "$D/s2" | grep -v DONE | jq -r '.choices[0].delta.tool_calls[0].function.arguments // empty' | tr -d '\n')
	t_eq "tool call arguments" "$args" '{"command":"ls -la"}'
	t_eq "finish reason" "$(sed -n 's/^data: //p' "$D/s2" | grep -v DONE | jq -r '.choices[0].finish_reason // empty')" tool_calls
	stop_fake
t_end
else
	t_skip "fake server: streaming (SSE) text and tool calls" "curl is not installed"
fi

t_begin "fake server: rules answer matching requests without consuming the queue"
start_fake rules '{"chat": [{"text": "queue 1"}, {"text": "queue 2"}], "rules": [{"match": "title", "text": "A Title"}], "score": [{"score": 0.25}]}'
t_eq "first" "$(llm -m fake/m --cache off a 2>&1)" "queue 1"
t_eq "rule" "$(llm -m fake/m --cache off make a title 2>&1)" "A Title"
t_eq "second" "$(llm -m fake/m --cache off b 2>&1)" "queue 2"
t_eq "logged rule" "$(sed -n 2p "$D/log.jsonl" | jq -c '[.rule, .step]')" "[0,null]"
t_end
stop_fake

t_begin "libcurl: linked by no tool, loaded by the first request, never by a call the cache serves"
linked=
for b in "$T_ROOT"/bin/skillc-*; do
	readelf -d "$b" 2>/dev/null | grep -q 'NEEDED.*libcurl' && linked="$linked ${b##*/}"
done
t_eq "tools linking libcurl" "$linked" ""
start_fake lazy '{"chat": [{"text": "lazy answer"}]}'
t_eq "sent" "$(LD_DEBUG=files llm -m fake/m1 lazy please 2>"$D/first.err")" "lazy answer"
t_check "the request loaded libcurl" grep -q 'file=libcurl' "$D/first.err"
t_eq "from the cache" "$(LD_DEBUG=files llm -m fake/m1 lazy please 2>"$D/second.err")" "lazy answer"
t_eq "requests" "$(requests)" 1
t_eq "libcurl loads by the cached call" "$(grep -c 'file=libcurl' "$D/second.err")" 0
t_end
stop_fake

t_begin "prompt cache: the provider's cached prompt tokens recorded per call and priced at cached_input"
CACHED=0.25 start_fake pcache '{"prefix_cache": true, "chat": [{"text": "one"}, {"text": "two"},
  {"text": "ds", "usage": {"prompt_tokens": 100, "completion_tokens": 10, "prompt_cache_hit_tokens": 60}},
  {"text": "an", "usage": {"prompt_tokens": 100, "completion_tokens": 10, "cache_read_input_tokens": 30}}]}'
SYS=$(seq 1 300 | tr '\n' ' ')
t_eq "first" "$(llm -m fake/m -s "$SYS" first task 2>&1)" one
t_eq "second" "$(llm -m fake/m --stats -s "$SYS" second task 2>"$D/err")" two
t_contains "--stats names them" "$(cat "$D/err")" "from the provider's prompt cache"
t_eq "first call: nothing cached" "$(sed -n 1p "$D/usage.jsonl" | jq .tokens_cached)" 0
rec=$(sed -n 2p "$D/usage.jsonl")
cached=$(printf '%s' "$rec" | jq .tokens_cached)
t_check "second call: the shared system prompt cached ($cached tokens)" \
	test "$cached" -gt 250 -a "$cached" -lt "$(printf '%s' "$rec" | jq .tokens_in)"
t_eq "priced: uncached at 1, cached at 0.25, out at 2 per million" \
	"$(printf '%s' "$rec" | jq '((.tokens_in - .tokens_cached) * 1 + .tokens_cached * 0.25 + .tokens_out * 2) / 1e6 - .cost_usd | fabs < 1e-12')" true
llm -m fake/m deepseek >/dev/null 2>&1
llm -m fake/m anthropic >/dev/null 2>&1
t_eq "DeepSeek's prompt_cache_hit_tokens, Anthropic's cache_read_input_tokens" \
	"$(tail -n 2 "$D/usage.jsonl" | jq -c '[.tokens_cached, (.cost_usd * 1e7 | round)]' | tr '\n' ' ')" "[60,750] [30,975] "
t_end
stop_fake

t_begin "secrets: the key is in no file a run wrote and in no message"
# everything under the test folder but the .env files themselves
hits=$(grep -rl -F -- "$KEY" "$T_TMP" 2>/dev/null | grep -v '/\.env$')
t_eq "files holding the key" "$hits" ""
t_check "cache entries were written" test -n "$(find "$T_TMP" -path '*/cache/llm/*.json' | head -n 1)"
t_check "usage records were written" test -n "$(find "$T_TMP" -name usage.jsonl | head -n 1)"
t_end
