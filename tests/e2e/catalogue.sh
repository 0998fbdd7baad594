#!/bin/sh
# End-to-end: the bad-input catalogue, one row per case. A whole run is
# built first (ingest, profile, static, one raw trial through the stand-in
# bench); then each row feeds one bad input (a task, a skill, a setting,
# routes, .env, a profile, a runner's output, a model's answer, a full disk,
# a read-only folder) to the tool or make goal that reads it, and checks:
# the exit status, a one-line message matching the row's pattern (which
# names the file or setting), and that a checksum listing of the run folder
# is unchanged (nothing already built lost or half-written). Make's own
# bookkeeping of a goal that failed (status/, logs/, the manifest) is left
# out of the listing: it says what happened, it is not a built result.
#
# A row:  name ~ exit ~ message pattern (grep -E) ~ command (sh, run in $W)
# The command sees $R (the run folder), $SK (make with skillc.mk), $RUN
# (the settings of the built run) and $B (a scratch folder of bad inputs,
# emptied before each row). A row that gives no answer within
# CATALOGUE_ROW_LIMIT seconds (default 300) fails as hung.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W/fake" "$W/bad" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
PATH=$W/fake:$PATH
export PATH
unset MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE
export FAKE_BENCH_LOG=$W/bench.log
SK=$T_SK
RUN="task=csv-column-sum RUNNER=benchflow MODEL=vllm/qwen-27b REPEAT=1 ENV_FILE=$W/none.env CACHE_DIR=$W/cache"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
SKILL=tasks/csv-column-sum/environment/skills/csv-sum
B=$W/bad
export SK RUN R B SKILL T_ROOT
# the model's answers, chosen by a word of the prompt
t_fakellm "$T_TMP/llm" '{"rules": [
 {"match": "ANSWER-PROSE", "text": "I would say yes, mostly."},
 {"match": "ANSWER-NOKEY", "json": {"b": 1}},
 {"match": "ANSWER-500", "status": 500},
 {"match": "ANSWER-401", "status": 401},
 {"match": "ANSWER-MALFORMED", "malformed": true},
 {"match": "ANSWER-TRUNCATED", "truncate": true},
 {"match": "ANSWER-TRICKLE", "text": "one byte at a time, slower than the floor", "trickle": 0.3},
 {"match": "ANSWER-WRONGTYPE", "body": {"choices": [{"message": {"role": "assistant", "content": 5}}]}},
 {"match": "You plan edits to an Agent Skill", "text": "Here is my plan: make it shorter."}],
 "chat": [{"text": "ok"}]}'
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 5, "connect_timeout": 2, "low_speed_bytes": 100, "low_speed_time": 1,
 "retry": {"attempts": 2, "base_delay": 0.01, "max_delay": 0.02}}}}\n' "$FAKELLM_URL" >"$W/routes.json"
LLM="skillc-llm --routes $W/routes.json --env-file $W/none.env --cache off -m fake/m"
# a scratch run of its own for the rows that change a run's settings
SCRATCH="task=csv-column-sum RUNNER=benchflow MODEL=vllm/scratch REPEAT=1 ENV_FILE=$W/none.env RESULTS=$W/bad/results CACHE_DIR=$W/bad/cache"
# in-full FOLDER SIZE CMD...: CMD with a private tmpfs of SIZE over FOLDER
# (it fills up); in-ro FOLDER CMD...: CMD with FOLDER read-only. Private
# mounts (unshare -m): gone with the command. Rows using them need root.
cat >fake/in-full <<'EOF'
#!/bin/sh
exec unshare -m sh -c 'd=$1 size=$2; shift 2; mount -t tmpfs -o size=$size tmpfs "$d" && exec "$@"' in-full "$@"
EOF
cat >fake/in-ro <<'EOF'
#!/bin/sh
exec unshare -m sh -c 'd=$1; shift; mount --bind -o ro "$d" "$d" && exec "$@"' in-ro "$@"
EOF
# fake-run DIR: what the stand-in bench writes for one passing trial
cat >fake/fake-run <<EOF
#!/bin/sh
FAKE_BENCH_LOG= FAKE_BENCH_SCRIPT= exec sh "$T_ROOT/tests/helpers/fake-bench.sh" eval run --tasks-dir "$W/tasks/csv-column-sum" \\
	--agent opencode --model vllm/m --skill-mode no-skill --jobs-dir "\$1" >/dev/null
EOF
chmod +x fake/in-full fake/in-ro fake/fake-run
export LLM SCRATCH W
MOUNTS=no
[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null && MOUNTS=yes

# the checksum listing of the run folder (bookkeeping of a failed goal aside)
listing() {
	(cd "$R" && find . -type f ! -path './status/*' ! -path './logs/*' ! -path './.inflight/*' \
		! -name manifest.json ! -name '.manifest.lock' -exec md5sum {} + | sort -k2)
}

t_begin "the run the rows must not touch is built"
out=$($SK $RUN static raw-eval 2>&1)
t_eq "exit" $? 0
$SK $RUN status GOAL=raw-eval >/dev/null 2>&1 || t_fail "not up to date: $out"
t_end
listing >"$W/before"

ROW_LIMIT=${CATALOGUE_ROW_LIMIT:-300}
rows() {
	# --- skills (skillc-check: 2 is not a skill at all, 1 an invalid one)
	cat <<'ROWS'
check: no such folder ~ 2 ~ skillc-check: .*/bad/nope: Path does not exist ~ skillc-check $B/nope
check: a file, not a folder ~ 2 ~ Not a directory: .*/bad/f ~ : >$B/f; skillc-check $B/f
check: no SKILL.md ~ 2 ~ Missing required file: SKILL.md ~ mkdir $B/s; skillc-check $B/s
check: no frontmatter ~ 1 ~ SKILL.md:1:1: error: SKILL.md must start with YAML frontmatter ~ mkdir $B/s; echo '# hi' >$B/s/SKILL.md; skillc-check $B/s
check: a UTF-8 BOM ~ 1 ~ SKILL.md:1:1: .*byte order mark \(BOM\) ~ mkdir $B/s; printf '\357\273\277---\nname: s\ndescription: d\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: a flow list in the frontmatter ~ 1 ~ SKILL.md:4:16: error: Invalid YAML in frontmatter: flow sequences ~ mkdir $B/s; printf -- '---\nname: s\ndescription: d\nallowed-tools: [a, b\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: a name in capitals ~ 1 ~ SKILL.md:2:7: error: Skill name 'Bad_S' must be lowercase ~ mkdir $B/Bad_S; printf -- '---\nname: Bad_S\ndescription: d\n---\n' >$B/Bad_S/SKILL.md; skillc-check $B/Bad_S
check: no description ~ 1 ~ SKILL.md:1:1: error: Missing required field in frontmatter: description ~ mkdir $B/s; printf -- '---\nname: s\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: frontmatter never closed ~ 1 ~ SKILL.md:1:1: error: SKILL.md frontmatter not properly closed with --- ~ mkdir $B/s; printf -- '---\nname: s\ndescription: d\n' >$B/s/SKILL.md; skillc-check $B/s
check: Latin-1 bytes ~ 2 ~ SKILL.md:3:17: error: SKILL.md is not valid UTF-8 \(byte 0xE9\) ~ mkdir $B/s; printf -- '---\nname: s\ndescription: caf\351\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: a colon in the description ~ 1 ~ SKILL.md:3:.*quote the value ~ mkdir $B/s; printf -- '---\nname: s\ndescription: Use when: always\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: a name that differs from the folder ~ 1 ~ SKILL.md:2:7: error: .*(folder|directory) ~ mkdir $B/s; printf -- '---\nname: other\ndescription: d\n---\n\nBody.\n' >$B/s/SKILL.md; skillc-check $B/s
ROWS
	# --- settings (checked in C by the one table, before anything runs)
	cat <<'ROWS'
setting: REPEAT=abc ~ 2 ~ skillc: bad REPEAT 'abc': a whole number from 1 to 1000 ~ $SK $RUN REPEAT=abc raw-eval
setting: REPEAT=0 ~ 2 ~ skillc: bad REPEAT '0': a whole number from 1 to 1000 ~ $SK $RUN REPEAT=0 raw-eval
setting: WATCH_TIMEOUT=abc ~ 2 ~ skillc: bad WATCH_TIMEOUT 'abc' ~ $SK $RUN WATCH_TIMEOUT=abc watch
setting: LLM_CACHE=sometimes ~ 2 ~ skillc: bad LLM_CACHE 'sometimes': one of use refresh off only ~ $SK $RUN LLM_CACHE=sometimes static
setting: a MODEL with make syntax ~ 2 ~ skillc: bad MODEL 'a/\$\(shell touch pwned\)': write provider/model-id ~ $SK $RUN 'MODEL=a/$(shell touch pwned)' static; rc=$?; test ! -e pwned || exit 9; exit $rc
setting: RUNNER=nosuch ~ 2 ~ skillc: bad RUNNER 'nosuch': one of benchflow harbor local ~ $SK $RUN RUNNER=nosuch raw-eval
setting: STATIC_MODE=magic ~ 2 ~ skillc: bad STATIC_MODE 'magic': one of deterministic hybrid ~ $SK $RUN STATIC_MODE=magic static
setting: MAX_FILE_MB=-1 ~ 2 ~ skillc: bad MAX_FILE_MB '-1': a whole number from 1 to 4096 ~ $SK $RUN MAX_FILE_MB=-1 ingest
setting: STATIC_MODE=hybrid without EXTERNAL_MODEL ~ 2 ~ EXTERNAL_MODEL ~ $SK $SCRATCH STATIC_MODE=hybrid static
setting: CLEAN-STAGE of no stage ~ 2 ~ (no stage|unknown stage|STAGE) ~ $SK $RUN clean-stage STAGE=nosuch
ROWS
	# --- tasks
	cat <<'ROWS'
task: no such task ~ 2 ~ skillc: task 'nosuch' not found: no folder tasks/nosuch ~ $SK task=nosuch RUNNER=benchflow MODEL=vllm/qwen-27b static
task: a name with a space ~ 2 ~ skillc-ingest: bad task name 'a b' ~ skillc-ingest --task "$B/a b" --out $B/o --hash $B/h
task: no skill in it ~ 2 ~ skillc-ingest: no skill: no folder in '.*/bad/t/environment/skills' holds a SKILL.md ~ cp -R tasks/csv-column-sum $B/t; rm -rf $B/t/environment/skills/*; skillc-ingest --task $B/t --out $B/o --hash $B/h
task: two skills of one name ~ 2 ~ skillc-ingest: skills 'csv-sum' and 'other' of '.*/bad/t/environment/skills' are both named 'csv-sum' ~ cp -R tasks/csv-column-sum $B/t; cp -R $B/t/environment/skills/csv-sum $B/t/environment/skills/other; skillc-ingest --task $B/t --out $B/o --hash $B/h
task: an empty skills folder ~ 2 ~ skillc-ingest: no skill: no folder in '.*/bad/t/environment/skills' holds a SKILL.md ~ cp -R tasks/csv-column-sum $B/t; rm -rf $B/t/environment/skills; mkdir $B/t/environment/skills; skillc-ingest --task $B/t --out $B/o --hash $B/h
task: an unreadable skill of a set ~ 2 ~ skillc-ingest: .*/bad/t/environment/skills/b/SKILL.md: ~ cp -R tasks/csv-column-sum $B/t; mkdir $B/t/environment/skills/b; printf -- '---\nname: b\ndescription: [d\n---\n' >$B/t/environment/skills/b/SKILL.md; skillc-ingest --task $B/t --out $B/o --hash $B/h
setting: SKILL_SOURCE with a stray file beside the skills ~ 2 ~ skillc: SKILL_SOURCE: stray file '.*/bad/src/notes.txt' beside the skills ~ mkdir $B/src; cp -R $SKILL $B/src/; echo x >$B/src/notes.txt; $SK $RUN SKILL_SOURCE=$B/src raw-eval
setting: SKILLS naming a skill the set lacks ~ 2 ~ skillc-static: SKILLS names 'nosuch', which the skill set in '.*' lacks \(it holds csv-sum\) ~ $SK $SCRATCH SKILLS=nosuch static
task: a file over MAX_FILE_MB ~ 2 ~ skillc-ingest: '.*/big.bin' is 1.9 MB, over the 1 MB cap \(MAX_FILE_MB\) ~ cp -R tasks/csv-column-sum $B/t; head -c 2000000 /dev/zero >$B/t/environment/skills/csv-sum/big.bin; skillc-ingest --task $B/t --out $B/o --hash $B/h --max-file-mb 1
task: a symlink out of the skill ~ 2 ~ skillc-ingest: symlink '.*/csv-sum/pw' points outside the skill folder ~ cp -R tasks/csv-column-sum $B/t; ln -s /etc/passwd $B/t/environment/skills/csv-sum/pw; skillc-ingest --task $B/t --out $B/o --hash $B/h
task: a dangling symlink in the skill ~ 2 ~ skillc-ingest: symlink '.*/csv-sum/gone' leads nowhere \(-> nothing.md: No such file or directory\) ~ cp -R tasks/csv-column-sum $B/t; ln -s nothing.md $B/t/environment/skills/csv-sum/gone; skillc-ingest --task $B/t --out $B/o --hash $B/h
task: a symlink loop in the skill ~ 2 ~ skillc-ingest: symlink '.*/csv-sum/a' leads nowhere \(-> b: a loop of links\) ~ cp -R tasks/csv-column-sum $B/t; ln -s b $B/t/environment/skills/csv-sum/a; ln -s a $B/t/environment/skills/csv-sum/b; skillc-ingest --task $B/t --out $B/o --hash $B/h
task: a fifo in the skill ~ 2 ~ skillc-ingest: '.*/csv-sum/p' is not a regular file, folder or symlink ~ cp -R tasks/csv-column-sum $B/t; mkfifo $B/t/environment/skills/csv-sum/p; skillc-ingest --task $B/t --out $B/o --hash $B/h
task: task.toml that does not parse ~ 2 ~ skillc-local: .*/bad/t/task.toml:1: expected '\]' to close the header ~ cp -R tasks/csv-column-sum $B/t; printf '[agent\ntimeout = \n' >$B/t/task.toml; skillc-local eval run --tasks-dir $B/t --agent opencode --model vllm/m --sandbox local --skill-mode no-skill --out $B/j
task: no tests/test.sh ~ 2 ~ skillc-eval: task folder '.*/bad/t' has no tests/test.sh ~ cp -R tasks/csv-column-sum $B/t; rm $B/t/tests/test.sh; skillc-eval --task $B/t --skill $SKILL --harness opencode --model vllm/m --runner benchflow --out $B/test-001
task: no instruction.md ~ 2 ~ skillc-eval: task folder '.*/bad/t' has no instruction.md: every runner needs it ~ cp -R tasks/csv-column-sum $B/t; rm $B/t/instruction.md; skillc-eval --task $B/t --skill $SKILL --harness opencode --model vllm/m --runner benchflow --out $B/test-001
task: instruction.md a folder ~ 2 ~ skillc-eval: '.*/bad/t/instruction.md' is not a regular file ~ cp -R tasks/csv-column-sum $B/t; rm $B/t/instruction.md; mkdir $B/t/instruction.md; skillc-eval --task $B/t --skill $SKILL --harness opencode --model vllm/m --runner benchflow --out $B/test-001
task: instruction.md over MAX_FILE_MB ~ 2 ~ skillc-eval: '.*/bad/t/instruction.md' is 2.0 MB, over MAX_FILE_MB \(1 MB\) ~ cp -R tasks/csv-column-sum $B/t; head -c 2100000 /dev/zero | tr '\0' a >$B/t/instruction.md; MAX_FILE_MB=1 skillc-eval --task $B/t --skill $SKILL --harness opencode --model vllm/m --runner benchflow --out $B/test-001
task: an empty instruction.md ~ 2 ~ skillc-eval: '.*/bad/t/instruction.md' is empty ~ cp -R tasks/csv-column-sum $B/t; : >$B/t/instruction.md; skillc-eval --task $B/t --skill $SKILL --harness opencode --model vllm/m --runner benchflow --out $B/test-001
task: task.toml that does not parse, RUNNER=benchflow ~ 2 ~ skillc-eval: .*/bad/t/task.toml:1: expected '\]' to close the header ~ cp -R tasks/csv-column-sum $B/t; printf '[agent\ntimeout = \n' >$B/t/task.toml; skillc-eval --task $B/t --skill $SKILL --harness opencode --model vllm/m --runner benchflow --out $B/test-001
task: no task.toml, through make: nothing paid ~ 2 ~ skillc-eval: task folder '.*/bad/tasks/csv-column-sum' has no task.toml ~ mkdir $B/tasks; cp -R tasks/csv-column-sum $B/tasks/; rm $B/tasks/csv-column-sum/task.toml; FAKE_BENCH_LOG=$B/bench.log $SK $SCRATCH TASKS_DIR=$B/tasks raw-eval; rc=$?; test ! -e $B/bench.log || exit 9; exit $rc
skill: a SKILL.md of 1.5 MiB (under MAX_FILE_MB) is evaluated ~ 0 ~ test-001 passed reward=1 ~ mkdir $B/s; cp $SKILL/SKILL.md $B/s/; head -c 1500000 /dev/zero | tr '\0' '\n' >>$B/s/SKILL.md; skillc-eval --task tasks/csv-column-sum --skill $B/s --harness opencode --model vllm/m --runner benchflow --out $B/test-001
task: an unknown harness ~ 2 ~ (harness|nosuch) ~ skillc-eval --task tasks/csv-column-sum --skill $SKILL --harness nosuch --model vllm/m --runner benchflow --out $B/test-001
task: --out not test-NNN ~ 2 ~ skillc-eval: --out '.*/bad/trial' is not named test-NNN ~ skillc-eval --task tasks/csv-column-sum --skill $SKILL --harness opencode --model vllm/m --runner benchflow --out $B/trial
ROWS
	# --- routes and .env (skillc-llm --show-route: nothing is sent)
	cat <<'ROWS'
routes: no such file ~ 2 ~ skillc-llm: routes '.*/bad/nope.json' cannot be read \(set ROUTES ~ skillc-llm --routes $B/nope.json --env-file $B/none.env --show-route -m vllm/m
routes: not JSON ~ 2 ~ skillc-llm: routes '.*/bad/r.json' is not valid JSON \(near line 2\) ~ echo '{"providers": ' >$B/r.json; skillc-llm --routes $B/r.json --env-file $B/none.env --show-route -m vllm/m
routes: two JSON values ~ 2 ~ skillc-llm: routes '.*/bad/r.json' .*(more after its JSON value|not valid JSON) ~ echo '{"providers": {}} {"providers": {}}' >$B/r.json; skillc-llm --routes $B/r.json --env-file $B/none.env --show-route -m vllm/m
routes: a provider without base_url ~ 2 ~ skillc-llm: routes '.*/bad/r.json': provider 'p': 'base_url' must be ~ echo '{"providers": {"p": {"key_env": null}}}' >$B/r.json; skillc-llm --routes $B/r.json --env-file $B/none.env --show-route -m p/m
routes: base_url not http ~ 2 ~ skillc-llm: routes '.*/bad/r.json': provider 'p': 'base_url' must be an http:// or https:// URL ~ echo '{"providers": {"p": {"base_url": "ftp://x", "key_env": null}}}' >$B/r.json; skillc-llm --routes $B/r.json --env-file $B/none.env --show-route -m p/m
routes: http:// with no host ~ 2 ~ skillc-llm: routes '.*/bad/r.json': provider 'p': 'base_url' must be an http:// or https:// URL with a host ~ echo '{"providers": {"p": {"base_url": "http://", "key_env": null}}}' >$B/r.json; skillc-llm --routes $B/r.json --env-file $B/none.env --show-route -m p/m
routes: a NUL in base_url ~ 2 ~ skillc-llm: routes '.*/bad/r.json' holds .u0000 \(a NUL\) in a string: remove it ~ echo '{"providers": {"p": {"base_url": "http://127.0.0.1:9/v1\u0000evil", "key_env": null}}}' >$B/r.json; skillc-llm --routes $B/r.json --env-file $B/none.env --show-route -m p/m
env: a NUL byte in a value ~ 2 ~ skillc-llm: '.*/bad/e.env' line 2: a NUL byte: remove it ~ printf 'A=1\nK=abcd\000efgh\n' >$B/e.env; skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/e.env --show-route -m vllm/m
routes: timeout a string ~ 2 ~ skillc-llm: routes '.*/bad/r.json': provider 'p': 'timeout' must be a number ~ echo '{"providers": {"p": {"base_url": "http://127.0.0.1:9/v1", "key_env": null, "timeout": "ten"}}}' >$B/r.json; skillc-llm --routes $B/r.json --env-file $B/none.env --show-route -m p/m
routes: unknown provider ~ 2 ~ unknown provider 'nosuch' in model 'nosuch/m': add it to routes ~ skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/none.env --show-route -m nosuch/m
routes: a model without a provider ~ 2 ~ (provider/model|provider) ~ skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/none.env --show-route -m justamodel
env: a line without = ~ 2 ~ skillc-llm: '.*/bad/e.env' line 1: expected NAME=VALUE ~ printf 'JUST_A_WORD\n' >$B/e.env; skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/e.env --show-route -m vllm/m
env: a bad name ~ 2 ~ skillc-llm: '.*/bad/e.env' line 1: bad variable name \(use letters, digits and '_'\) ~ printf '1BAD=x\n' >$B/e.env; skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/e.env --show-route -m vllm/m
env: an unclosed quote ~ 2 ~ skillc-llm: '.*/bad/e.env' line 1: unterminated quote in the value of K ~ printf 'K="abc\n' >$B/e.env; skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/e.env --show-route -m vllm/m
env: over 1 MiB ~ 2 ~ skillc-llm: ENV_FILE '.*/bad/e.env' is over 1 MiB: an env file holds a few NAME=VALUE lines ~ head -c 1100000 /dev/zero | tr '\0' a >$B/e.env; skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/e.env --show-route -m vllm/m
env: a folder ~ 2 ~ skillc-llm: ENV_FILE: cannot read '.*/bad/e.env': Is a directory ~ mkdir $B/e.env; skillc-llm --routes $T_ROOT/rules/provider_routes.json --env-file $B/e.env --show-route -m vllm/m
env: a bad line, through make ~ 2 ~ skillc-eval: '.*/bad/e.env' line 1: expected NAME=VALUE ~ printf 'JUST_A_WORD\n' >$B/e.env; $SK $SCRATCH ENV_FILE=$B/e.env raw-eval
routes: EXTERNAL_MODEL's key missing, make final: refused before any trial ~ 2 ~ skillc: csv-column-sum--opencode--vllm_scratch: fast-map asks EXTERNAL_MODEL=keyed/m and cannot: provider 'keyed' needs a key: set KEYED_TOKEN in the environment or in ENV_FILE '.*/none.env' ~ echo '{"providers": {"keyed": {"base_url": "http://127.0.0.1:9/v1", "key_env": "KEYED_TOKEN"}}}' >$B/r.json; FAKE_BENCH_LOG=$B/bench.log $SK $SCRATCH EXTERNAL_MODEL=keyed/m ROUTES=$B/r.json final; rc=$?; test ! -e $B/bench.log || exit 9; exit $rc
routes: EXTERNAL_MODEL's provider unknown, make final: refused before any trial ~ 2 ~ skillc: csv-column-sum--opencode--vllm_scratch: fast-map asks EXTERNAL_MODEL=nosuch/m and cannot: unknown provider 'nosuch' in model 'nosuch/m': add it to routes '.*/bad/r.json' ~ echo '{"providers": {"keyed": {"base_url": "http://127.0.0.1:9/v1", "key_env": null}}}' >$B/r.json; FAKE_BENCH_LOG=$B/bench.log $SK $SCRATCH EXTERNAL_MODEL=nosuch/m ROUTES=$B/r.json final; rc=$?; test ! -e $B/bench.log || exit 9; exit $rc
routes: EXTERNAL_MODEL's key missing, hybrid static: refused before the request ~ 2 ~ skillc: csv-column-sum--opencode--vllm_scratch: static asks EXTERNAL_MODEL=keyed/m and cannot: provider 'keyed' needs a key: set KEYED_TOKEN ~ echo '{"providers": {"keyed": {"base_url": "http://127.0.0.1:9/v1", "key_env": "KEYED_TOKEN"}}}' >$B/r.json; $SK $SCRATCH STATIC_MODE=hybrid EXTERNAL_MODEL=keyed/m ROUTES=$B/r.json static; rc=$?; test ! -e $B/results/*/artifacts/static/profile.json || exit 9; exit $rc
routes: EXTERNAL_MODEL's key missing, make raw-eval asks no model: not refused ~ 0 ~ test-001 passed reward=1 ~ echo '{"providers": {"keyed": {"base_url": "http://127.0.0.1:9/v1", "key_env": "KEYED_TOKEN"}}}' >$B/r.json; $SK $SCRATCH EXTERNAL_MODEL=keyed/m ROUTES=$B/r.json raw-eval
ROWS
	# --- profiles
	cat <<'ROWS'
profile: not JSON ~ 2 ~ skillc-profile: '.*/bad/p.json' is not valid JSON \(truncated, or still being written\) ~ echo '{' >$B/p.json; skillc-profile --check $B/p.json
profile: an unknown field ~ 2 ~ skillc-profile: .*/bad/p.json: unknown field "name" \(see docs/static.md#model-profiles\) ~ echo '{"name": "p"}' >$B/p.json; skillc-profile --check $B/p.json
profile: a match that is not a regex ~ 2 ~ skillc-profile: .*/bad/p.json: bad "match" pattern at offset 1: missing closing parenthesis ~ echo '{"profile": "p", "match": "(", "about": "x"}' >$B/p.json; skillc-profile --check $B/p.json
profile: a bad body_budget ~ 2 ~ skillc-profile: .*/bad/p.json: "body_budget" must be \{"tokens": N, "lines": N\} ~ echo '{"profile": "p", "match": "x", "about": "x", "context_window": 1000, "body_budget": 5}' >$B/p.json; skillc-profile --check $B/p.json
profile: a user profile that is an array ~ 2 ~ skillc-profile: .*/bad/pr/a.json: a profile must be a JSON object ~ mkdir $B/pr; echo '[]' >$B/pr/a.json; skillc-profile --model vllm/m --user-profiles $B/pr
profile: PROFILES_DIR broken, through make ~ 2 ~ skillc-profile: '.*/bad/pr/a.json' is not valid JSON ~ mkdir $B/pr; echo '{' >$B/pr/a.json; $SK $SCRATCH PROFILES_DIR=$B/pr profile
ROWS
	# --- runner outputs (skillc-traces --parse reads what the runner wrote)
	cat <<'ROWS'
runner: result.json not JSON ~ 2 ~ skillc-traces: '.*/result.json' is not valid JSON \(truncated, or still being written\) ~ fake-run $B/raw; for f in $B/raw/*/*/result.json; do echo '{"rew' >$f; done; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: result.json an array ~ 2 ~ skillc-traces: '.*/result.json' holds a JSON array, not the object a runner writes ~ fake-run $B/raw; for f in $B/raw/*/*/result.json; do echo '[1, 2]' >$f; done; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: a reward of Infinity ~ 2 ~ skillc-traces: '.*/result.json' line [0-9]+: Infinity is not a JSON number \(Python's json writes it ~ fake-run $B/raw; for f in $B/raw/*/*/result.json; do sed -i 's/"reward": *[0-9.]*/"reward": Infinity/' $f; done; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: wrong types in result.json ~ 1 ~ result.json: 'rewards' is a string, not an object: the runner wrote a result this reader does not know ~ fake-run $B/raw; for f in $B/raw/*/*/result.json; do echo '{"rewards": "one", "error": 5}' >$f; done; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: no result.json ~ 2 ~ skillc-traces: '.*/bad/raw' holds no trial: no result.json of a BenchFlow rollout or Harbor trial ~ fake-run $B/raw; rm $B/raw/*/*/result.json; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: an ACP line that is not JSON ~ 1 ~ acp_trajectory.jsonl line 2 is not JSON \(truncated trajectory\) ~ fake-run $B/raw; for f in $B/raw/*/*/trajectory/acp_trajectory.jsonl; do sed -i '1a {"type": oops' $f; done; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: bytes after the value in result.json ~ 2 ~ skillc-traces: '.*/result.json' holds more after its JSON value \(from line [0-9]+\): two writers, or bytes appended ~ fake-run $B/raw; for f in $B/raw/*/*/result.json; do echo '{"stray": 1}' >>$f; done; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: two values on one ACP line ~ 1 ~ acp_trajectory.jsonl line 1 is not JSON ~ fake-run $B/raw; for f in $B/raw/*/*/trajectory/acp_trajectory.jsonl; do sed -i '1s/$/{"type": "x"}/' $f; done; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: an empty folder ~ 2 ~ skillc-traces: '.*/bad/raw' holds no trial ~ mkdir $B/raw; skillc-traces --parse $B/raw --runner benchflow --harness opencode
runner: the stand-in crashes, through make ~ 1 ~ skillc-eval: \[1/1\] csv-column-sum raw test-001: the runner exited 1 and wrote no raw/ output: Traceback ~ echo crash >$B/script; FAKE_BENCH_SCRIPT=$B/script $SK $SCRATCH raw-eval
runner: truncated result.json, through make ~ 1 ~ skillc-eval: \[1/1\] csv-column-sum raw test-001: 'raw/.*/result.json' is not valid JSON \(truncated, or still being written\) ~ echo truncated >$B/script; FAKE_BENCH_SCRIPT=$B/script $SK $SCRATCH raw-eval
runner: not installed ~ 2 ~ RUNNER=harbor needs the `harbor` command, which is not on PATH ~ $SK $SCRATCH RUNNER=harbor raw-eval
ROWS
	# --- model answers (the loopback model server; skillc-llm, the hybrid compile)
	cat <<'ROWS'
answer: prose where JSON is wanted ~ 1 ~ skillc-llm: model 'fake/m' gave no usable JSON object after 2 repairs: it holds no JSON object ~ $LLM --json ANSWER-PROSE
answer: JSON without the required key ~ 1 ~ skillc-llm: model 'fake/m' gave no usable JSON object after 2 repairs: the object lacks the key "a" ~ $LLM --json --require a ANSWER-NOKEY
answer: HTTP 500 every time ~ 1 ~ skillc-llm: provider 'fake' \(model 'm'\) failed after 2 attempts ~ $LLM ANSWER-500
answer: HTTP 401 ~ 2 ~ skillc-llm: provider 'fake' wants a key \(HTTP 401\) but its route has no key_env: add one to routes '.*/routes.json' ~ $LLM ANSWER-401
answer: a body that is not JSON ~ 1 ~ skillc-llm: provider 'fake' \(model 'm'\) failed after 2 attempts in [0-9]+ s: the answer is not JSON \(malformed or cut short\) ~ $LLM ANSWER-MALFORMED
answer: cut short ~ 1 ~ skillc-llm: provider 'fake' \(model 'm'\) failed after 2 attempts in [0-9]+ s: .*transfer closed with [0-9]+ bytes remaining ~ $LLM ANSWER-TRUNCATED
answer: trickling slower than the floor ~ 1 ~ skillc-llm: provider 'fake' \(model 'm'\) failed after 2 attempts in [0-9]+ s: .*: the answer trickled in slower than 100 bytes in 1 s \(low_speed_bytes, low_speed_time of the route\) ~ $LLM ANSWER-TRICKLE
answer: a 200 of the wrong type is not cached ~ 1 ~ skillc-llm: provider 'fake' \(model 'm'\) failed after 2 attempts in [0-9]+ s: the answer's first choice holds no text ~ skillc-llm --routes $W/routes.json --env-file $W/none.env --cache use --cache-dir $B/c -m fake/m ANSWER-WRONGTYPE; rc=$?; test -z "$(find $B/c -name '*.json' 2>/dev/null)" || exit 9; exit $rc
answer: a plan that is prose, through make ~ 1 ~ skillc-static: model 'fake/planner' gave no usable JSON object after 2 repairs: it holds no JSON object ~ $SK $SCRATCH STATIC_MODE=hybrid EXTERNAL_MODEL=fake/planner ROUTES=$W/routes.json static
ROWS
	# --- a full disk and a read-only folder (private mounts; root only)
	cat <<'ROWS'
mount: ingest to a full disk ~ 1 ~ skillc-ingest: .*No space left on device ~ mkdir $B/fs; cp -R tasks/csv-column-sum $B/t; head -c 300000 /dev/urandom >$B/t/environment/skills/csv-sum/big.bin; in-full $B/fs 64k skillc-ingest --task $B/t --out $B/fs/skill --hash $B/fs/skill.hash
mount: static to a full disk ~ 1 ~ skillc-static: cannot write '.*/bad/fs/.*': No space left on device ~ mkdir $B/fs; in-full $B/fs 4k skillc-static --skill $R/inputs/skill --profile $R/artifacts/static/profile.json --out $B/fs/S --hash $B/fs/h
mount: a trial into a full disk, one line ~ 1 ~ ^skillc-eval: \[1\] csv-column-sum raw test-001: the disk of '.*/bad/fs/raw' is full \(No space left on device\): .*; free space, then run it again; kept in ~ mkdir $B/fs; in-full $B/fs 16k skillc-eval --task tasks/csv-column-sum --skills-root tasks/csv-column-sum/environment/skills --harness opencode --model vllm/m --runner benchflow --out $B/fs/raw/test-001 --no-cache 2>$B/err; rc=$?; cat $B/err; test "$(grep -c . $B/err)" = 1 || exit 9; exit $rc
mount: summary into a read-only run ~ 2 ~ skillc-summary: cannot create '.*/csv-column-sum--opencode--vllm_qwen-27b/.summary.json.tmp.*': Read-only file system ~ in-ro $R $SK $RUN summary
mount: a new trial in a read-only run ~ 1 ~ skillc: cannot open '.*/csv-column-sum--opencode--vllm_qwen-27b/.lock': Read-only file system ~ in-ro $R $SK $RUN REPEAT=2 raw-eval
mount: a read-only CACHE_DIR ~ 1 ~ skillc-llm: cannot create directory '.*/bad/cache/llm': Read-only file system ~ mkdir -p $B/cache; in-ro $B/cache $LLM --cache-dir $B/cache --cache use hello
ROWS
	# --- hand edits of a finished scratch run (the next make undoes them:
	# handedit.sh); by hand means later than the stage's stamp, not within the
	# file clock's tick of it (a few ms), hence the pause
	cat <<'ROWS'
edit: a trial's reward by hand, make status ~ 1 ~ modified by hand: traces/csv-column-sum/raw/test-001/trial.json ~ $SK $SCRATCH raw-eval >/dev/null 2>&1 || exit 9; sleep 0.1; sed -i 's/"reward": 1\([,}]\)/"reward": 0\1/' $B/results/*/traces/csv-column-sum/raw/test-001/trial.json; $SK $SCRATCH status
edit: "complete": false in a trial.json, make ~ 0 ~ raw-eval.001: output traces/csv-column-sum/raw/test-001/trial.json is not a complete trial ~ $SK $SCRATCH raw-eval >/dev/null 2>&1 || exit 9; sleep 0.1; sed -i 's/"complete": true/"complete": false/' $B/results/*/traces/csv-column-sum/raw/test-001/trial.json; $SK $SCRATCH raw-eval
edit: S_static's SKILL.md by hand, make status ~ 1 ~ modified by hand: artifacts/static/S_static ~ $SK $SCRATCH static >/dev/null 2>&1 || exit 9; sleep 0.1; sed -i '$a hand edit' $B/results/*/artifacts/static/S_static/csv-sum/SKILL.md; $SK $SCRATCH status
ROWS
}

n=0
rows | while IFS='~' read -r name code pat cmd; do
	name=$(echo "$name" | sed 's/ *$//') code=$(echo $code) pat=$(echo "$pat" | sed 's/^ *//; s/ *$//')
	[ -n "$name" ] || continue
	rm -rf "$B" && mkdir -p "$B"
	case $name in mount:*) [ $MOUNTS = yes ] || { t_skip "$name" "needs root and unshare -m"; continue; } ;; esac
	t_begin "$name"
	# a row that hangs fails by name rather than stalling the suite (timeout
	# signals the row's whole process group); no row needs more than seconds
	out=$(timeout -k 10 "$ROW_LIMIT" sh -c "$cmd" 2>&1)
	rc=$?
	[ "$rc" -ne 124 ] || t_fail "hung: no answer within $ROW_LIMIT s"
	t_eq "exit" $rc "$code"
	printf '%s\n' "$out" | grep -Eq -- "$pat" || t_fail "no line matches '$pat' in: $(printf '%s' "$out" | head -c 600)"
	listing >"$W/after"
	cmp -s "$W/before" "$W/after" || t_fail "the run folder changed: $(diff "$W/before" "$W/after" | grep '^[<>]' | head -3 | tr '\n' ' ')"
	[ -z "${CATALOGUE_SHOW:-}" ] || printf '    %s\n' "$out" | head -3
	t_end
done
