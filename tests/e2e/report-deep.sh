#!/bin/sh
# End-to-end: the report over a whole pipeline made by the real stages.
# make final (static, fast, two deep rounds, the final evaluation) runs with
# the stand-in bench (outcomes by skill content, FAKE_BENCH_RULES) and the
# loopback model server as the compiler's model (map, reduce, section
# scores, edits); then make report. Fast's patches lose the start to
# static, round 1's edit is rejected, round 2's accepted, and the final
# evaluation reuses round 2's trials: the page must say each of these from
# the run's own files, diff each skill against the one it was made from,
# and its charts must carry summary.json's numbers.
. "$(dirname "$0")/../lib.sh"
. "$T_ROOT/tests/helpers/browser.sh"

[ -x "$T_ROOT/bin/skillc-deep" ] || { t_skip "report-deep" "no skillc-deep in this tree (the deep stage has not landed)"; exit 0; }
unset MODEL EXTERNAL_MODEL RM_API_URL ROUTES ENV_FILE CACHE_DIR LLM_CACHE SKILLC_USAGE_FILE REPEAT DEEP_ROUNDS FINAL_FRESH BUDGET_USD BENCH
W=$T_TMP/work
mkdir -p "$W/fake" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
ln -s "$T_ROOT/tests/helpers/fake-bench.sh" fake/bench
ln -s "$T_ROOT/tests/helpers/fake-docker.sh" fake/docker
PATH=$W/fake:$PATH
export PATH FAKE_BENCH_LOG=$W/bench.log FAKE_BENCH_RULES=$W/rules
# (round 1's edit, a model's answer, carries markup: the page shows it as text)
# the raw and static skill pass 2 of 6; fast's patch (FASTMARK) 2 of 3: no
# significant gain, static stays the start; round 1's edit 1 of 3, round 2's 3 of 3
cat >rules <<'EOF'
HELPS => pass
USELESS => fail ; pass ; fail
FASTMARK => pass ; pass ; fail
* => fail ; pass ; fail ; fail ; pass ; fail
EOF
ev='"evidence": "ls /root"'
dims="\"relevance\": {\"score\": %s, $ev}, \"correctness\": {\"score\": %s, $ev}, \"actionability\": {\"score\": %s, $ev}"
L=$T_TMP/llm
t_fakellm "$L" "{\"chat\": [{\"text\": \"unscripted\"}], \"rules\": [
 {\"match\": \"Trace B (worse)\", \"json\": {\"findings\": [{\"section\": \"log-triage/gotchas#1\", \"kind\": \"missing\", $ev, \"suggestion\": \"Say that levels are exact.\"}]}},
 {\"match\": \"## Findings, by section and kind\", \"json\": {\"patches\": [
   {\"op\": \"add\", \"section\": \"log-triage/gotchas#1\", \"text\": \"- FASTMARK: count only lines whose level field is exactly ERROR.\", \"why\": \"unit 1\"},
   {\"op\": \"delete\", \"section\": \"log-triage/quick-start#1\", \"find\": \"\`\`\`sh\\nscripts/count_levels.sh ERROR /root/app.log > /root/report.json\\ncat /root/report.json\\n\`\`\`\", \"why\": \"shorter\"}]}},
 {\"match\": \"## Units to score\", \"json\": {\"scores\": [
   {\"unit\": \"log-triage/quick-start#1\", $(printf "$dims" 2 2 2)},
   {\"unit\": \"log-triage/gotchas#1\", $(printf "$dims" 3 3 3)}]}},
 {\"match\": \"The unit to edit: [log-triage/quick-start#1]\", \"json\": {\"edit\": {\"op\": \"update\",
   \"find\": \"4. Check the counts by hand on one component with \`grep -c\`.\", \"text\": \"4. Check the counts by hand on one component with \`grep -c\` (USELESS <script>alert(1)</script> & 'q').\", \"why\": \"w\"}}},
 {\"match\": \"The unit to edit: [log-triage/gotchas#1]\", \"json\": {\"edit\": {\"op\": \"add\", \"text\": \"- HELPS: strip only the brackets.\", \"why\": \"w\"}}}]}"
printf '{"providers": {"fake": {"base_url": "%s", "key_env": null, "timeout": 20, "prices": {"*": {"input": 1, "output": 2}}}}}\n' \
	"$FAKELLM_URL" >"$L/routes.json"
SK="$T_SK task=log-error-report RUNNER=benchflow MODEL=vllm/q REPEAT=3 DEEP_ROUNDS=2
 EXTERNAL_MODEL=fake/compiler ROUTES=$L/routes.json ENV_FILE=$T_TMP/none.env CACHE_DIR=$W/cache"
R=results/compile-pipeline/log-error-report--opencode--vllm_q
D=$R/artifacts/deep
jget() { "$T_ROOT/build/tests/helpers/jget" "$@"; }

t_begin "make final runs every stage: fast loses the start, round 1 rejected, round 2 accepted"
$SK -j2 final >out.log 2>&1
t_eq "exit" $? 0
[ -f $D/S_final.hash ] || { t_fail "no S_final: $(tail -5 out.log)"; t_end; exit 1; }
t_eq "start" "$(jget $D/round-0/decision.json start)" static
t_eq "round 1" "$(jget $D/round-1/decision.json verdict)" reject
t_eq "round 2" "$(jget $D/round-2/decision.json verdict)" accept
t_eq "S_final from" "$(jget $D/report.json final_source)" deep-2
t_eq "fast applied" "$(jget $R/artifacts/fast/report.json counts.applied)" 1
t_end

t_begin "make report: every stage's section, from the run's own files"
out=$($SK report 2>&1)
t_eq "exit" $? 0
html=$(cat $R/report.html)
t_contains "fast patch applied" "$html" '<span class="pill applied">applied</span>'
t_contains "fence delete rolled back" "$html" 'guard: code-block'
t_contains "start row" "$html" 'the start: fast against static'
t_contains "start kept" "$html" 'starts from static'
t_contains "round 1 rejected" "$html" '<td class="n">1</td><td><code class="nw">log-triage/quick-start#1</code></td><td><span class="pill rejected">rejected</span>'
t_contains "round 2 accepted" "$html" '<td class="n">2</td><td><code class="nw">log-triage/gotchas#1</code></td><td><span class="pill accepted">accepted</span>'
t_contains "its p-value" "$html" "<td class=\"n\">$(jget $D/round-2/decision.json statistics.p_value | awk '{ printf "%.3f", $1 }')</td>"
pw=$(jq -r '.statistics.operating[] | select(.kind == "gain" and .p_base == 0.3) | .accept * 100 | round' $D/round-2/decision.json)
t_contains "its power" "$html" "0.3→0.8: $pw%"
t_contains "its why" "$html" '<tr class="why"><td></td><td colspan="8" class="small muted">3/3 vs baseline 2/6: barnard p = 0.04952'
t_contains "fast's own report" "$html" '<a href="artifacts/fast/report.md">'
t_contains "deep's own report" "$html" '<a href="artifacts/deep/report.md">'
# the section scores, weakest first: quick-start (2) before gotchas (3) in round 1
t_contains "section scores" "$html" '<tr><td class="n">1</td><td><code class="nw">log-triage/quick-start#1</code> <span class="pill pending">edited</span></td><td class="n">2.00</td><td class="n">3</td>'
t_contains "round 2 edits the next" "$html" '<tr><td class="n">2</td><td><code class="nw">log-triage/gotchas#1</code> <span class="pill pending">edited</span></td>'
t_check "weakest first" sh -c "sed -n '/Section scores by round/,/<\/details>/p' $R/report.html | grep -o 'log-triage/[a-z-]*#1' | head -2 | tr '\n' ' ' | grep -qx 'log-triage/quick-start#1 log-triage/gotchas#1 '"
t_contains "rejected edit, escaped" "$html" "(USELESS &lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;q&#39;)."
t_contains "deliverable" "$html" 'the skill of deep-2.'
t_contains "extension trials not run" "$html" '3 not needed by the rule'
t_contains "a lone repeated target's log" "$html" '<a href="logs/deep-1-look.001.log">log</a>'
t_contains "selection trials" "$html" 'selection: deep-2/test-001'
t_check "no script element" sh -c "! grep -qi '<script' $R/report.html"
t_contains "index marks the optimistic final" "$(cat results/compile-pipeline/index.html)" '3 selection reused</span>'
t_end

t_begin "each skill is shown against the one it was made from"
got=$(python3 -c "import re,sys; s=open(sys.argv[1]).read(); s=s[s.index('id=\"skill\"'):]; print(' '.join(a + '>' + b for a, b in re.findall(r'<h3><span[^>]*></span>([^<]*) → <span[^>]*></span>([^<]*)</h3>', s)))" $R/report.html)
t_eq "pairs" "$got" "raw>static static>fast static>deep-1 static>deep-2 raw>final"
# the round-2 diff (from static) holds its own edit, not round 1's rejected one
r2=$(sed -n '/round 2&#39;s candidate/,/<h3>/p' $R/report.html)
t_contains "round 2's edit" "$r2" '<ins>+ - HELPS: strip only the brackets.'
case $r2 in *USELESS*) t_fail "round 2's diff shows round 1's rejected edit" ;; esac
t_contains "final's whole change" "$(sed -n '/S_final is the skill of deep-2/,/<\/section>/p' $R/report.html)" 'HELPS: strip only the brackets.'
t_end

t_begin "the charts are valid XML and carry summary.json's numbers"
for f in $R/charts/*.svg; do t_check "$(basename $f) valid" xmllint --noout "$f"; done
got=$(python3 - $R/charts/pass-rate.svg $R/summary.json <<'EOF'
import json, sys, xml.etree.ElementTree as ET
bars = [(g.get('data-key'), float(g.get('data-value')), float(g.get('data-lo')), float(g.get('data-hi')))
        for g in ET.parse(sys.argv[1]).getroot().iter('{http://www.w3.org/2000/svg}g') if g.get('class') == 'bar']
rows = [(g['stage'], g['pass_rate'], g['pass_rate_ci95'][0], g['pass_rate_ci95'][1]) for g in json.load(open(sys.argv[2]))['groups']]
same = len(bars) == len(rows) and all(a[0] == b[0] and all(abs(x - y) < 6e-5 for x, y in zip(a[1:], b[1:])) for a, b in zip(bars, rows))
print(same, ' '.join(b[0] for b in bars))
EOF
)
t_eq "pass-rate bars = summary rows" "$got" "True raw static fast deep-1 deep-2 final"
t_eq "final counted" "$(jq -r '.groups[] | select(.stage == "final") | "\(.passed)/\(.trials) \(.selection_trials_reused)"' $R/summary.json)" "3/3 3"
t_end

t_begin "the compiler's calls are priced: each stage's cost is its usage records plus its trials"
got=$(python3 - $R <<'EOF'
import glob, json, os, sys
run = sys.argv[1]
groups = {g['stage']: g for g in json.load(open(run + '/summary.json'))['groups']}
out = []
for stage, families in (('fast', ('fast-map', 'fast-reduce')), ('deep-1', ('deep-1-score', 'deep-1-edit')),
                        ('deep-2', ('deep-2-score', 'deep-2-edit'))):
    llm = 0.0
    for f in glob.glob(run + '/status/*.usage.jsonl'):
        if os.path.basename(f).split('.')[0] in families:
            for line in open(f):
                r = json.loads(line)
                # the route's prices: $1 in, $2 out per million tokens; a cache hit pays nothing
                want = 0 if r['cache'] == 'hit' else (r['tokens_in'] + 2 * r['tokens_out']) / 1e6
                assert abs(r['cost_usd'] - want) < 1e-9, (f, r)
                llm += want
    trials = [json.load(open(t)) for t in glob.glob(run + '/traces/*/%s/test-*/trial.json' % stage)]
    paid = sum(t['cost_usd'] for t in trials if not t['reused'])
    g = groups[stage]
    out.append('%s %s %s' % (stage, abs(g['llm_cost_usd'] - llm) < 2e-6 and llm > 0,
                             abs(g['stage_cost_usd'] - llm - paid) < 2e-6 and g['stage_cost_unknown_items'] == 0))
print(' '.join(out))
EOF
)
t_eq "llm and stage cost" "$got" "fast True True deep-1 True True deep-2 True True"
t_end

t_begin "a second make report rewrites nothing"
out=$($SK report 2>&1)
t_eq "exit" $? 0
t_contains "nothing rewritten" "$out" "0 files rewritten"
t_end

if [ -z "$CHROMIUM" ]; then
	t_skip "the whole pipeline's page in a real browser" "no chromium on PATH (apt-get install chromium)"
else
	t_begin "the whole pipeline's page in a real browser: no console message, not blank, prints"
	browse "file://$W/$R/report.html" page
	t_eq "console" "$(console page)" ""
	t_contains "deep section rendered" "$(cat page.dom)" 'Deep: the rounds and their decisions'
	got=$(not_blank page.png 2>&1)
	t_eq "not blank ($got)" $? 0
	print_pdf "file://$W/$R/report.html" page.pdf
	t_check "prints" test "$(head -c 5 page.pdf)" = "%PDF-"
	t_check "on several pages" test "$(pdf_pages page.pdf)" -ge 3
	[ -n "${REPORT_SHOTS:-}" ] && mkdir -p "$REPORT_SHOTS" && cp page.png page.pdf "$REPORT_SHOTS/"
	t_end
fi
