#!/bin/sh
# End-to-end: Deep's steps pooled over several tasks (a skill run's train
# tasks, docs/deep.md#pooled-over-several-tasks): start, trial --of-task,
# look and decide --pool-task judge the candidate with the exact stratified
# test, tasks as strata, on hand-made trial folders of two tasks a and b.
# The p-values are checked against the exact figure worked out by hand: with
# every stratum 0/3 against 3/3, the candidate's pooled passes are the most
# possible, P = (1/C(6,3))^2 = 0.0025.
. "$(dirname "$0")/../lib.sh"

cd "$T_TMP" || exit 1
# trial DIR TASK PASSED(0|1): a complete trial of TASK (a script: the
# command skillc-deep trial runs, too)
cat >mktrial <<'EOF2'
mkdir -p "$1"
o=failed p=false
[ "$3" = 1 ] && o=passed p=true
printf '{"complete": true, "outcome": "%s", "passed": %s, "reward": %s, "task": "%s", "key": "k-%s",
 "tokens": {"total": 100}, "durations": {"agent_execution": 10}, "skill": {"invoked": true, "injected": ["s"]}}\n' \
	$o $p "$3" "$2" "$(printf %s "$1" | tr / -)" >"$1/trial.json"
EOF2
trial() { sh "$T_TMP/mktrial" "$@"; }
# trials RUN TASK STAGE P1 P2 P3
trials() {
	trial "$1/traces/$2/$3/test-001" "$2" "$4"
	trial "$1/traces/$2/$3/test-002" "$2" "$5"
	trial "$1/traces/$2/$3/test-003" "$2" "$6"
}
skill() { mkdir -p "$1/s" && printf -- '---\nname: s\ndescription: d\n---\n%s\n' "$2" >"$1/s/SKILL.md"; }
RULE="--first 3 --max 3 --alpha 0.1 --tolerance 1.5 --test fisher"
# setup RUN FAST_A FAST_B [STATIC_B]: static fails in a (and in b unless
# STATIC_B is 1); fast as given
setup() {
	skill "$1/artifacts/static/S_static" "static"
	skill "$1/artifacts/fast/S_fast" "fast"
	trials "$1" a static 0 0 0
	trials "$1" b static ${4:-0} ${4:-0} ${4:-0}
	trials "$1" a fast $2 $2 $2
	trials "$1" b fast $3 $3 $3
	skillc-deep start --run "$1" --base-source static --base-skill artifacts/static/S_static \
		--base-trials traces/a/static --base-count 3 --pool-base-trials traces/b/static \
		--cand-source fast --cand-skill artifacts/fast/S_fast --cand-trials traces/a/fast \
		--cand-count 3 --pool-cand-trials traces/b/fast $RULE
}
J() { jq -r "$2" "$1"; }

t_begin "start: the stratified test over two tasks, each task a stratum"
out=$(setup won 1 1 2>&1)
t_eq "exit ($out)" $? 0
d=won/artifacts/deep/round-0/decision.json
t_eq "verdict" "$(J $d .verdict)" accept
t_eq "the test" "$(J $d .statistics.rule.test)" stratified
t_eq "per-stratum counts" \
	"$(J $d '[.statistics.strata[] | "\(.task) \(.baseline.passed)/\(.baseline.trials) \(.candidate.passed)/\(.candidate.trials)"] | join(", ")')" \
	"a 0/3 3/3, b 0/3 3/3"
t_eq "the stratified p, as worked out by hand" "$(J $d .statistics.p_value)" 0.0025
t_eq "the start" "$(J won/artifacts/deep/round-0/best.json .source)" fast
t_eq "best.json's trials name their tasks" \
	"$(J won/artifacts/deep/round-0/best.json '[.trials[].task] | unique | join(" ")')" "a b"
t_end

t_begin "start: a task where both arms fail carries no evidence: a's stratum alone decides"
out=$(setup half 1 0 2>&1)
t_eq "exit ($out)" $? 0
d=half/artifacts/deep/round-0/decision.json
t_eq "stratified p (only a's stratum can move: 1/C(6,3))" "$(J $d .statistics.p_value)" 0.05
t_eq "verdict at alpha 0.1, one look" "$(J $d .verdict)" accept
t_end

# round RUN A_PASS B_PASS [LOOK_RULE]: round 1's edit, three trials of each
# task by `skillc-deep trial` (the command writes the trial), then decide
round() {
	r=$1
	mkdir -p $r/artifacts/deep/round-1/candidate
	skill $r/artifacts/deep/round-1/candidate "edited"
	printf '{"edit": {"op": "add", "unit": "s:steps#1", "section": "steps", "text": "x", "why": "w"}, "candidate_hash": "h"}\n' \
		>$r/artifacts/deep/round-1/edit.json
	for t in a b; do
		p=$2
		[ $t = b ] && p=$3
		of=
		[ $t = b ] && of="--of-task b"
		for i in 1 2 3; do
			d=$r/traces/$t/deep-1/test-00$i
			skillc-deep trial --run $r --round 1 --index $i --trial $d $of $RULE -- \
				sh "$T_TMP/mktrial" $d $t $p \
				>/dev/null || return 1
		done
	done
	skillc-deep decide --run $r --round 1 --pool-task b $RULE
}

t_begin "decide: a candidate that helps both tasks is accepted on the pooled tasks"
setup r1 0 0 >/dev/null 2>&1
out=$(round r1 1 1 2>&1)
t_eq "exit ($out)" $? 0
d=r1/artifacts/deep/round-1/decision.json
t_eq "verdict" "$(J $d .verdict)" accept
t_eq "strata" "$(J $d '[.statistics.strata[] | "\(.task) \(.candidate.passed)/\(.candidate.trials)"] | join(", ")')" "a 3/3, b 3/3"
t_eq "stratified p" "$(J $d .statistics.p_value)" 0.0025
t_check "b's records are in trials/b/" test -f r1/artifacts/deep/round-1/trials/b/003.json
t_eq "the new best holds both tasks' trials" "$(J r1/artifacts/deep/round-1/best.json '[.trials[].task] | join(" ")')" "a a a b b b"
t_end

t_begin "decide: a candidate that helps a and breaks b is rejected and recorded with its strata"
setup r2 0 1 1 >/dev/null 2>&1
t_eq "the start: static (fast ties it)" "$(J r2/artifacts/deep/round-0/best.json .source)" static
out=$(round r2 1 0 2>&1)
t_eq "exit ($out)" $? 0
d=r2/artifacts/deep/round-1/decision.json
t_eq "verdict" "$(J $d .verdict)" reject
t_contains "why" "$(J $d .why)" "tied"
# X_a + X_b, each hypergeometric (6 trials, 3 passes, 3 drawn): P(>= 3) = 282/400
t_eq "stratified p" "$(J $d .statistics.p_value)" 0.705
t_eq "rejected.json has the strata" \
	"$(J r2/artifacts/deep/round-1/rejected.json '[.[0].strata[] | "\(.task) \(.candidate.passed)"] | join(", ")')" "a 3, b 0"
t_end

t_begin "decide: a pooled task without its trials is refused, naming what to run"
setup r3 0 0 >/dev/null 2>&1
round r3 1 1 >/dev/null 2>&1
rm r3/artifacts/deep/round-1/trials/b/002.json
out=$(skillc-deep decide --run r3 --round 1 --pool-task b $RULE 2>&1)
t_eq "exit" $? 2
t_contains "says so" "$out" "trials/b/002.json"
t_eq "one line" "$(printf '%s\n' "$out" | wc -l)" 1
t_end

t_begin "start: --pool-base-trials without its candidate's pair is refused"
out=$(skillc-deep start --run r3 --base-source static --base-skill artifacts/static/S_static \
	--base-trials traces/a/static --base-count 3 --pool-base-trials traces/b/static \
	--cand-source fast --cand-skill artifacts/fast/S_fast --cand-trials traces/a/fast --cand-count 3 $RULE 2>&1)
t_eq "exit" $? 2
t_contains "says so" "$out" "--pool-cand-trials for every --pool-base-trials"
t_end

t_begin "look: the pooled rule after the first batch of every task"
setup r4 0 0 >/dev/null 2>&1
round r4 1 0 >/dev/null 2>&1
out=$(skillc-deep look --run r4 --round 1 --look 1 --pool-task b --first 3 --max 6 --alpha 0.1 \
	--tolerance 1.5 --test fisher 2>&1)
t_eq "exit ($out)" $? 0
l=r4/artifacts/deep/round-1/look-001.json
t_eq "each task's candidate counts" "$(J $l '[.statistics.strata[] | "\(.task) \(.candidate.passed)/\(.candidate.trials)"] | join(", ")')" "a 3/3, b 0/3"
t_eq "the stratified p" "$(J $l .statistics.p_value)" 0.05
t_eq "the rule has two looks" "$(J $l .statistics.rule.max)" 6
# calibrated over two looks, the level stays 0.1 (its worst false accept is within it)
t_eq "verdict, go on" "$(J $l '"\(.verdict) \(.go_on) \(.statistics.rule.level)"')" "accept false 0.1"
t_end
