#!/bin/sh
# End-to-end: make report on a run made by real make with the stand-in
# bench: report.html per run and index.html over RESULTS, self-contained
# (no script, no external file), standalone charts that are valid XML and
# carry summary.json's numbers, text from skills and trajectories escaped,
# and a second make report that rewrites nothing.
. "$(dirname "$0")/../lib.sh"

t_bench_work
unset ROUTES ENV_FILE BENCH
M=vllm/Qwen/Qwen3.5-27B
SK="$T_SK task=log-error-report RUNNER=benchflow MODEL=$M BENCH=samples REPEAT=4"
R=results/compile-pipeline/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
SKILL=tasks/log-error-report/environment/skills/log-triage/SKILL.md
mtimes() { for f in "$@"; do stat -c '%n %Y.%y' "$f"; done; }

# markup in the skill (in a section static moves to references/) and in the
# agent's last message (bytes that are not UTF-8 never make a complete
# trial: skillc-eval refuses such a trajectory; a hand-built case below)
sed -i 's/^LogTriage Suite is the friendliest way/<script>alert("skill")<\/script> \& '"'"'quoted'"'"' LogTriage Suite is the friendliest way/' "$SKILL"
grep -q '<script>alert("skill")' "$SKILL" || { echo "FAIL report.sh: the skill fixture did not take the markup"; exit 1; }
printf '<script>alert(\\"agent\\")</script> & done' >message
export FAKE_BENCH_MESSAGE=$W/message
printf '%s\n' "fail sleep=0" "pass sleep=0" "fail sleep=0" "timeout sleep=0" \
	"pass sleep=0" "pass sleep=0" "fail sleep=0" "pass sleep=0" >script

t_begin "make eval then make report: report.html, charts and index.html"
$SK eval >out.log 2>&1
t_eq "eval" $? 0
out=$($SK report 2>&1)
t_eq "report exit" $? 0
t_contains "said" "$out" "1 run report, "
t_check "run page" test -s $R/report.html
t_check "index" test -s results/compile-pipeline/index.html
for c in pass-rate reward tokens time; do t_check "chart $c" test -s $R/charts/$c.svg; done
t_check "index chart" test -s results/compile-pipeline/charts/delta.svg
t_contains "index links the run" "$(cat results/compile-pipeline/index.html)" 'href="log-error-report--opencode--vllm_Qwen_Qwen3.5-27B/report.html"'
t_contains "stages" "$(cat $R/report.html)" 'static-eval'
t_contains "moved out" "$(cat $R/report.html)" 'to <code>references/log-format-reference.md</code>'
t_end

t_begin "self-contained: no script, no external resource, valid UTF-8"
for f in $R/report.html results/compile-pipeline/index.html; do
	n=$(python3 - "$f" <<'EOF'
import sys
from html.parser import HTMLParser
data = open(sys.argv[1], 'rb').read().decode('utf-8')   # strict: fails on bad bytes
class P(HTMLParser):
    bad = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ('script', 'iframe', 'object', 'embed', 'img', 'link'):
            self.bad.append(tag)
        for k, v in attrs:
            if k.startswith('on') or (k in ('href', 'src') and v and (v.startswith(('http:', 'https:', '//', 'javascript:')))):
                self.bad.append(k + '=' + (v or ''))
p = P(); p.feed(data); print(len(p.bad), ' '.join(p.bad))
EOF
)
	t_eq "$f: no script or remote reference" "$n" "0 "
done
t_end

t_begin "skill and trajectory text renders as text, never as markup"
html=$(cat $R/report.html)
t_contains "skill script escaped" "$html" '&lt;script&gt;alert(&quot;skill&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;'
t_contains "trajectory script escaped" "$html" '&lt;script&gt;alert(&quot;agent&quot;)&lt;/script&gt; &amp; '
t_check "no script element" sh -c "! grep -qi '<script' $R/report.html"
t_end

t_begin "hand-built (written by the test, not by a stage): a skill and a trajectory with bytes that are not UTF-8"
H=$T_TMP/hand/run
mkdir -p $T_TMP/hand && cp -R $R $H
printf '\n## Broken \377 bytes <b>bold</b>\n\nText with \300\200 an overlong NUL.\n' >>$H/artifacts/static/S_static/log-triage/SKILL.md
printf '\n{"type": "agent_message", "text": "bad \377\376 bytes <i>x</i>"}\n' >>$H/traces/log-error-report/raw/test-001/trajectory/acp_trajectory.jsonl
skillc-report $H >out.log 2>&1
t_eq "exit" $? 0
t_check "valid UTF-8" python3 -c "open('$H/report.html','rb').read().decode('utf-8')"
t_contains "the changed S_static makes its trials stale" "$(cat $H/report.html)" "trial of an earlier skill"
t_contains "skill escaped" "$(cat $H/report.html)" "$(printf 'Broken \357\277\275 bytes &lt;b&gt;bold&lt;/b&gt;')"
t_contains "trajectory escaped" "$(cat $H/report.html)" "$(printf 'bad \357\277\275\357\277\275 bytes &lt;i&gt;x&lt;/i&gt;')"
t_end

t_begin "charts are valid XML and carry summary.json's numbers"
$SK summary >out.log 2>&1
for f in $R/charts/*.svg results/compile-pipeline/charts/delta.svg; do
	t_check "$f valid" xmllint --noout "$f"
done
got=$(python3 - $R/charts/pass-rate.svg $R/summary.json <<'EOF'
import json, sys, xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[1]).getroot()
bars = {g.get('data-key'): g for g in svg.iter('{http://www.w3.org/2000/svg}g') if g.get('class') == 'bar'}
bad = []
for row in json.load(open(sys.argv[2]))['groups']:
    g = bars.get(row['stage'])
    if g is None:
        bad.append('no bar ' + row['stage']); continue
    lo, hi = row['pass_rate_ci95']
    for k, want in (('value', row['pass_rate']), ('lo', lo), ('hi', hi)):
        if abs(float(g.get('data-' + k)) - want) > 6e-5:
            bad.append('%s %s %s != %s' % (row['stage'], k, g.get('data-' + k), want))
print(len(bars), bad)
EOF
)
t_eq "pass-rate bars match summary.json" "$got" "2 []"
t_end

t_begin "a second make report rewrites nothing"
files="$R/report.html $R/charts/pass-rate.svg $R/charts/tokens.svg results/compile-pipeline/index.html results/compile-pipeline/charts/delta.svg"
before=$(mtimes $files)
sleep 1.1
out=$($SK report 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "0 files rewritten"
t_eq "mtimes" "$(mtimes $files)" "$before"
t_end

t_begin "bad input: no runs, not a folder, an unknown option"
mkdir -p empty
out=$(skillc-report empty 2>&1)
t_eq "no runs exit" $? 2
t_contains "no runs" "$out" "skillc-report: no runs under empty: no traces/ folder found (run make eval first)"
out=$(skillc-report message 2>&1)
t_eq "file exit" $? 2
t_contains "file" "$out" "'message' is not a folder"
out=$(skillc-report --bogus 2>&1)
t_eq "option exit" $? 2
t_end
