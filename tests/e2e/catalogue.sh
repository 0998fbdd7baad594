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
# emptied before each row).
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/work
mkdir -p "$W/fake" "$W/bad" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
PATH=$W/fake:$PATH
export PATH
unset MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE
export FAKE_BENCH_LOG=$W/bench.log
SK="make --no-print-directory -f $T_ROOT/mk/skillc.mk"
RUN="task=csv-column-sum RUNNER=benchflow MODEL=vllm/qwen-27b REPEAT=1 ENV_FILE=$W/none.env CACHE_DIR=$W/cache"
R=results/compile-pipeline/csv-column-sum--opencode--vllm_qwen-27b
SKILL=tasks/csv-column-sum/environment/skills/csv-sum
B=$W/bad
export SK RUN R B SKILL

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

rows() {
	# --- skills (skillc-check: 2 is not a skill at all, 1 an invalid one)
	cat <<'ROWS'
check: no such folder ~ 2 ~ skillc-check: .*/bad/nope: Path does not exist ~ skillc-check $B/nope
check: a file, not a folder ~ 2 ~ Not a directory: .*/bad/f ~ : >$B/f; skillc-check $B/f
check: no SKILL.md ~ 2 ~ Missing required file: SKILL.md ~ mkdir $B/s; skillc-check $B/s
check: no frontmatter ~ 1 ~ SKILL.md:1:1: error: SKILL.md must start with YAML frontmatter ~ mkdir $B/s; echo '# hi' >$B/s/SKILL.md; skillc-check $B/s
check: a UTF-8 BOM ~ 1 ~ SKILL.md:1:1: .*BOM ~ mkdir $B/s; printf '\357\273\277---\nname: s\ndescription: d\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: a flow list in the frontmatter ~ 1 ~ SKILL.md:[0-9]+:[0-9]+: error: Invalid YAML in frontmatter ~ mkdir $B/s; printf -- '---\nname: s\ndescription: d\nallowed-tools: [a, b\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: a name in capitals ~ 1 ~ SKILL.md:2:7: error: Skill name 'Bad_S' must be lowercase ~ mkdir $B/Bad_S; printf -- '---\nname: Bad_S\ndescription: d\n---\n' >$B/Bad_S/SKILL.md; skillc-check $B/Bad_S
check: no description ~ 1 ~ SKILL.md:.*description ~ mkdir $B/s; printf -- '---\nname: s\n---\n' >$B/s/SKILL.md; skillc-check $B/s
check: frontmatter never closed ~ 1 ~ SKILL.md:.*(closed|end|---) ~ mkdir $B/s; printf -- '---\nname: s\ndescription: d\n' >$B/s/SKILL.md; skillc-check $B/s
check: Latin-1 bytes ~ 2 ~ SKILL.md.*UTF-8 ~ mkdir $B/s; printf -- '---\nname: s\ndescription: caf\351\n---\n' >$B/s/SKILL.md; skillc-check $B/s
ROWS
	# --- settings (checked in C by the one table, before anything runs)
	cat <<'ROWS'
setting: REPEAT=abc ~ 2 ~ REPEAT ~ $SK $RUN REPEAT=abc raw-eval
setting: REPEAT=0 ~ 2 ~ REPEAT ~ $SK $RUN REPEAT=0 raw-eval
setting: WATCH_TIMEOUT=abc ~ 2 ~ WATCH_TIMEOUT ~ $SK $RUN WATCH_TIMEOUT=abc watch
setting: LLM_CACHE=sometimes ~ 2 ~ LLM_CACHE ~ $SK $RUN LLM_CACHE=sometimes static
setting: a MODEL with make syntax ~ 2 ~ bad MODEL ~ $SK $RUN 'MODEL=a/$(shell touch pwned)' static
setting: RUNNER=nosuch ~ 2 ~ RUNNER ~ $SK $RUN RUNNER=nosuch raw-eval
setting: STATIC_MODE=magic ~ 2 ~ STATIC_MODE ~ $SK $RUN STATIC_MODE=magic static
setting: MAX_FILE_MB=-1 ~ 2 ~ MAX_FILE_MB ~ $SK $RUN MAX_FILE_MB=-1 ingest
ROWS
	# --- tasks
	cat <<'ROWS'
task: no such task ~ 2 ~ task 'nosuch' not found ~ $SK task=nosuch RUNNER=benchflow MODEL=vllm/qwen-27b static
task: a name with a space ~ 2 ~ bad task name 'a b' ~ skillc-ingest --task "$B/a b" --out $B/o --hash $B/h
ROWS
}

n=0
rows | while IFS='~' read -r name code pat cmd; do
	name=$(echo "$name" | sed 's/ *$//') code=$(echo $code) pat=$(echo "$pat" | sed 's/^ *//; s/ *$//')
	[ -n "$name" ] || continue
	rm -rf "$B" && mkdir -p "$B"
	t_begin "$name"
	out=$(sh -c "$cmd" 2>&1)
	rc=$?
	t_eq "exit" $rc "$code"
	printf '%s\n' "$out" | grep -Eq -- "$pat" || t_fail "no line matches '$pat' in: $(printf '%s' "$out" | head -c 600)"
	listing >"$W/after"
	cmp -s "$W/before" "$W/after" || t_fail "the run folder changed: $(diff "$W/before" "$W/after" | grep '^[<>]' | head -3 | tr '\n' ' ')"
	[ -z "${CATALOGUE_SHOW:-}" ] || printf '    %s\n' "$out" | head -3
	t_end
done
