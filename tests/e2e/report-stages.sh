#!/bin/sh
# End-to-end: the report and the summary over every stage a run can have.
# raw and static come from a run made by real make with the stand-in
# bench. HAND-BUILT (written by this test in the layout the fast and deep
# stages document, not by the stages): fast (artifacts/fast/ and its
# trials), two deep rounds (one accepted, one rejected) and final: the
# cases the real stages (tests/e2e/report-deep.sh) do not make on demand —
# an accepted round followed by a rejected one, a guard rollback with its
# item, a damaged decision.json.
. "$(dirname "$0")/../lib.sh"

t_bench_work
unset ROUTES ENV_FILE BENCH BUDGET_USD
printf '%s\n' "fail sleep=0" "pass sleep=0" "fail sleep=0" "pass sleep=0" "fail sleep=0" "pass sleep=0" >script
SK="$T_SK task=log-error-report RUNNER=benchflow MODEL=vllm/Qwen/Qwen3.5-27B BENCH=samples REPEAT=3"
R=results/compile-pipeline/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
T=$R/traces/log-error-report
$SK eval >out.log 2>&1 || { echo "FAIL report-stages.sh: make eval failed: $(tail -3 out.log)"; exit 1; }

# --- hand-built from here on -------------------------------------------
# stage DIR FROM: a skills root DIR copied from FROM with one line added to Gotchas
skill_from() {
	rm -rf "$1" && mkdir -p "$(dirname "$1")" && cp -R "$2" "$1"
	python3 - "$1/log-triage/SKILL.md" "$3" <<'EOF'
import sys
p, line = sys.argv[1:]
s = open(p).read()
assert '\n## Gotchas\n' in s
open(p, 'w').write(s.replace('\n## Gotchas\n', '\n## Gotchas\n\n- ' + line + '\n', 1))
EOF
}
# trials STAGE SKILLROOT OUTCOMES...: copies of static's trials with that skill's hash
trials() {
	st=$1 root=$2; shift 2
	h=$(skillc-hash "$root/log-triage" | cut -d' ' -f1)
	i=0
	for o; do
		i=$((i + 1)); n=$(printf '%03d' $i)
		rm -rf $T/$st/test-$n && cp -R $T/static/test-$n $T/$st/test-$n 2>/dev/null || { mkdir -p $T/$st && cp -R $T/static/test-$n $T/$st/test-$n; }
		python3 - "$T/$st/test-$n/trial.json" "$st" "$h" "$o" <<'EOF'
import json, sys
p, st, h, o = sys.argv[1:]
t = json.load(open(p))
t.update(stage=st, skill_hash=h, outcome=o, passed=o == 'passed', reward=1.0 if o == 'passed' else 0.0, reused=False)
json.dump(t, open(p, 'w'), indent=2)
EOF
	done
}
A=$R/artifacts
skill_from $A/fast/S_fast $A/static/S_static 'Levels are exact: <script>x</script> & "ERROR" is not "error".'
trials fast $A/fast/S_fast passed passed failed
skill_from $A/deep/round-1/candidate $A/static/S_static 'Count per component, not per line.'
trials deep-1 $A/deep/round-1/candidate passed passed passed
skill_from $A/deep/round-2/candidate $A/deep/round-1/candidate 'Sort the keys.'
trials deep-2 $A/deep/round-2/candidate passed failed passed
rm -rf $A/deep/S_final && cp -R $A/deep/round-1/candidate $A/deep/S_final
trials final $A/deep/S_final passed passed passed
mkdir -p $A/fast/map
cat >$A/fast/groups.json <<'EOF'
{"format": 1, "mode": "contrast", "reason": "1 of 3 scored traces passed: the best are contrasted with the worst",
 "units": [{"unit": 1, "kind": "contrast", "better": "test-002", "worse": "test-001"}], "map_targets": 1}
EOF
cat >$A/fast/map/001.json <<'EOF'
{"format": 1, "unit": 1, "kind": "contrast", "status": "ok", "findings": [{"section": "log-triage/gotchas#1"}],
 "dropped": [{"why": "names no section of the skill"}], "counts": {"answered": 2, "kept": 1}}
EOF
cat >$A/fast/report.json <<'EOF'
{"format": 1, "counts": {"applied": 1, "unchanged": 0, "rolled_back": 1, "rejected": 0},
 "patches": [
  {"patch": {"n": 1, "op": "add", "section": "log-triage/gotchas#1", "text": "- Levels are exact: <script>x</script>", "why": "units 1"}, "status": "applied"},
  {"patch": {"n": 2, "op": "delete", "section": "log-triage/quick-start#1", "find": "```sh", "why": "unit 1"}, "status": "rolled_back",
   "guard": {"check": "code-block", "item": "```sh ./scripts/count_levels.sh ```"}}]}
EOF
cat >$A/fast/scores.json <<'EOF'
{"format": 1, "order_by": "class, credit, agentrm, prescore, index",
 "traces": [{"trace": "test-002", "rank": 1, "outcome": "passed", "credit": {"value": 1}, "prescore": {"score": 90}}]}
EOF
mkdir -p $A/deep/round-0
cat >$A/deep/round-0/decision.json <<'EOF'
{"format": 1, "round": 0, "verdict": "reject", "why": "2/3 vs baseline 2/3: no gain: static stays the start",
 "baseline": "static", "candidate": "fast", "start": "static",
 "statistics": {"counts": {"baseline": {"passed": 2, "trials": 3}, "candidate": {"passed": 2, "trials": 3}}, "p_value": 0.5,
                "false_accept": {"worst": 0.0834}}}
EOF
cat >$A/deep/round-1/decision.json <<'EOF'
{"format": 1, "round": 1, "verdict": "accept", "why": "3/3 vs baseline 2/3: barnard p = 0.0625 <= level 0.09851: accepted",
 "edit": {"unit": "log-triage/gotchas#1", "section": "log-triage/gotchas#1", "op": "add"},
 "statistics": {"rule": {"test": "barnard", "alpha": 0.1}, "counts": {"baseline": {"passed": 2, "trials": 3}, "candidate": {"passed": 3, "trials": 3}},
                "verdict": "accept", "p_value": 0.0625, "false_accept": {"worst": 0.0834, "worst_at": 0.5, "baseline_trials": 3}},
 "runtime": {"verdict": "within", "why": "...", "tokens": {"pairs": 3, "median": 0.97, "max": 1.1}, "seconds": {"pairs": 3, "median": 1.02, "max": 1.1},
             "timeouts": {"baseline": 0, "candidate": 0}}}
EOF
printf '{"format": 1, "round": 1, "edit": {"section": "log-triage/gotchas#1", "op": "add"}}\n' >$A/deep/round-1/edit.json
# the best skill after each round (deep-2's candidate is made from round 1's best)
printf '{"format": 1, "round": 0, "source": "static", "skill": "artifacts/static/S_static"}\n' >$A/deep/round-0/best.json
printf '{"format": 1, "round": 1, "source": "deep-1", "skill": "artifacts/deep/round-1/candidate"}\n' >$A/deep/round-1/best.json
mkdir -p $A/deep/round-1/trials
printf '{"index": 4, "needed": false, "why": "look 1 decided"}\n' >$A/deep/round-1/trials/004.json
printf '{"format": 1, "final_source": "deep-1", "final_skill": "artifacts/deep/S_final/log-triage"}\n' >$A/deep/report.json
cat >$A/deep/round-2/decision.json <<'EOF'
{"format": 1, "round": 2, "verdict": "reject", "why": "2/3 vs baseline 3/3: no improvement",
 "edit": {"section": "log-triage/output#1", "op": "update"},
 "statistics": {"counts": {"baseline": {"passed": 3, "trials": 3}, "candidate": {"passed": 2, "trials": 3}}, "p_value": 1,
                "false_accept": {"worst": 0.0834}}}
EOF
printf '{"format": 1, "round": 2, "edit": {"section": "log-triage/output#1", "op": "update"}}\n' >$A/deep/round-2/edit.json
printf '[{"round": 2, "unit": "log-triage/output#1", "section": "log-triage/output#1", "edit": {"op": "update", "text": "Sort the keys."}, "why": "2/3 vs baseline 3/3: no improvement"}]\n' >$A/deep/rejected.json
python3 - $T/final/test-001/trial.json <<'EOF'
import json, sys
t = json.load(open(sys.argv[1])); t.update(selection_reuse=True, reused_from={"trial": "traces/log-error-report/deep-1/test-001", "stage": "deep-1"})
json.dump(t, open(sys.argv[1], 'w'), indent=2)
EOF
python3 - $R/manifest.json <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for st in ('fast', 'deep-1', 'deep-2', 'final'):
    for i in (1, 2, 3):
        m['targets']['%s-eval.%03d' % (st, i)] = 'done'
m['targets']['deep-1-eval.004'] = 'done'  # not needed by the rule: nothing ran
m['final_skill'] = {'path': 'artifacts/deep/S_final/log-triage', 'hash': 'h-final'}
m['targets'] = dict(sorted(m['targets'].items(), reverse=True))  # any order: the page sorts
json.dump(m, open(sys.argv[1], 'w'), indent=2)
EOF
# --- end of the hand-built part ------------------------------------------

t_begin "the summary has every stage in pipeline order (hand-built fast, deep and final)"
skillc-summary $R >out.log 2>&1
t_eq "exit" $? 0
t_eq "rows" "$(jq -r '[.groups[].stage] | join(" ")' $R/summary.json)" "raw static fast deep-1 deep-2 final"
t_eq "final passed" "$(jq -r '.groups[] | select(.stage == "final") | "\(.passed)/\(.trials)"' $R/summary.json)" "3/3"
t_eq "nothing stale" "$(jq '[.groups[].stale_trials] | add' $R/summary.json)" 0
t_eq "selection reuse counted" "$(jq '.groups[] | select(.stage == "final") | .selection_trials_reused' $R/summary.json)" 1
t_contains "md marks it" "$(cat $R/summary.md)" "| final (selection trials reused) | 3 |"
t_end

t_begin "the report draws every stage and says what fast and deep did"
skillc-report $R >out.log 2>&1
t_eq "exit" $? 0
html=$(cat $R/report.html)
got=$(python3 - $R/charts/pass-rate.svg $R/summary.json <<'EOF'
import json, sys, xml.etree.ElementTree as ET
bars = [(g.get('data-key'), float(g.get('data-value'))) for g in ET.parse(sys.argv[1]).getroot().iter('{http://www.w3.org/2000/svg}g') if g.get('class') == 'bar']
rows = [(g['stage'], g['pass_rate']) for g in json.load(open(sys.argv[2]))['groups']]
print(all(a == c and abs(b - d) < 6e-5 for (a, b), (c, d) in zip(bars, rows)) and len(bars) == len(rows), ' '.join(k for k, _ in bars))
EOF
)
t_eq "pass-rate bars = summary rows" "$got" "True raw static fast deep-1 deep-2 final"
t_check "chart valid" xmllint --noout $R/charts/pass-rate.svg
t_contains "fast section" "$html" 'Fast: from traces to patches'
t_contains "mode" "$html" 'Mode <b>contrast</b>: 1 of 3 scored traces passed'
t_contains "patch rolled back" "$html" 'guard: code-block'
t_contains "patch text escaped" "$html" '- Levels are exact: &lt;script&gt;x&lt;/script&gt;'
t_contains "deep accepted" "$html" '<span class="pill accepted">accepted</span>'
t_contains "deep rejected" "$html" '<span class="pill rejected">rejected</span>'
t_contains "p-value" "$html" '<td class="n">0.062</td>'
t_contains "runtime" "$html" 'within: tokens ×0.97, seconds ×1.02'
t_contains "start row" "$html" 'the start: fast against static'
t_contains "start named" "$html" 'starts from static'
t_contains "final row marked" "$html" '1 selection reused'
t_contains "rejected list" "$html" 'Rejected edits'
t_contains "deliverable" "$html" 'S_final: <code>artifacts/deep/S_final/log-triage</code>'
t_contains "whose skill" "$html" '(hash <code>h-final</code>), the skill of deep-1.'
t_contains "diff static to fast" "$html" 'static</h3>'
t_contains "diff fast to deep-1" "$html" '<ins>+ - Count per component, not per line.'
# each skill against the one it was made from: deep-1 from round 0's best
# (static, not fast), deep-2 from round 1's best, final against raw
got=$(python3 -c "import re,sys; s=open(sys.argv[1]).read(); s=s[s.index('id=\"skill\"'):]; print(' '.join(a + '>' + b for a, b in re.findall(r'<h3><span[^>]*></span>([^<]*) → <span[^>]*></span>([^<]*)</h3>', s)))" $R/report.html)
t_eq "diff pairs" "$got" "raw>static static>fast static>deep-1 deep-1>deep-2 raw>final"
t_check "deep-1 holds no fast line" sh -c "sed -n '/round 1&#39;s candidate/,/<h3>/p' $R/report.html | grep -q 'Count per component' && ! sed -n '/round 1&#39;s candidate/,/<h3>/p' $R/report.html | grep -q 'Levels are exact'"
t_contains "deep-1's base named" "$html" 'round 1&#39;s candidate: static&#39;s skill with one edit'
t_contains "final's note" "$html" 'S_final is the skill of deep-1'
t_contains "selection trial marked" "$html" 'selection: deep-1/test-001'
t_contains "not needed" "$html" '1 not needed by the rule'
t_contains "added line escaped" "$html" '<ins>+ - Levels are exact: &lt;script&gt;x&lt;/script&gt; &amp; &quot;ERROR&quot;'
t_check "no script element" sh -c "! grep -qi '<script' $R/report.html"
t_end

t_begin "the pipeline table in pipeline order; chart labels fit under their bars"
got=$(sed -n '/id="pipeline"/,/<\/section>/p' $R/report.html | sed -n 's/.*<tr><td><b>\([^<]*\)<\/b>.*/\1/p' | tr '\n' ' ')
t_eq "order" "$got" "ingest profile raw-eval raw-index static static-eval static-index fast-eval deep-1-eval deep-2-eval final-eval "
got=$(python3 - $R/charts/*.svg <<'EOF'
import sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
bad = []
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    bars = [g for g in root.iter(NS + 'g') if g.get('class') == 'bar']
    if len(bars) < 2:
        continue
    xs = [float(next(t for t in g.iter(NS + 'text')).get('x')) for g in bars]
    slot = xs[1] - xs[0]
    for g in bars:
        for t in list(g.iter(NS + 'text'))[1:]:
            if len(t.text or '') * float(t.get('font-size')) * 0.56 > slot:
                bad.append('%s: %r wider than its slot (%.0f px)' % (path.split('/')[-1], t.text, slot))
print('; '.join(bad) or 'ok', len(sys.argv) - 1)
EOF
)
t_eq "labels fit" "$got" "ok 5"
t_end

t_begin "a damaged artifact is named, never a crash"
printf '{"verdict": ' >$A/deep/round-2/decision.json
printf '{"units": [' >$A/deep/round-2/scores.json
skillc-report $R >out.log 2>&1
t_eq "exit" $? 0
t_contains "named" "$(cat $R/report.html)" 'unreadable'
t_contains "scores named in their table" "$(cat $R/report.html)" '<tr><td class="n">2</td><td colspan="4" class="note">Unreadable: <code>artifacts/deep/round-2/scores.json</code>'
t_end
