#!/bin/sh
# End-to-end: the report in a real browser. A run made by real make with
# the stand-in bench; make report; then headless Chromium (Debian's
# /usr/bin/chromium) loads report.html, index.html and a standalone chart
# from disk, with no console message at all (the pages run no script) and
# a screenshot that is not blank. Skipped where chromium is absent.
. "$(dirname "$0")/../lib.sh"

NAMES="the console check catches a script error (the check itself)
report page loads with no console message
screenshots are not blank"
# Plain pass only (docs/testing.md): what this file adds is chromium; the report, index and
# charts it loads are written by the same C that report.sh and report-deep.sh run sanitized
t_plain_only "report.sh and report-deep.sh write the report, index and charts sanitized" "$NAMES" && exit 0
. "$T_ROOT/tests/helpers/browser.sh"
if [ -z "$CHROMIUM" ]; then
	echo "$NAMES" | while read -r c; do t_skip "$c" "no chromium on PATH (apt-get install chromium)"; done
	exit 0
fi
t_bench_work
unset ROUTES ENV_FILE BENCH BUDGET_USD
printf '%s\n' "fail sleep=0" "pass sleep=0" "fail sleep=0 tokens=3100" "pass sleep=0 tokens=1900" \
	"pass sleep=0 tokens=2100" "pass sleep=0 tokens=1700" >script
SK="$T_SK task=log-error-report RUNNER=benchflow MODEL=vllm/Qwen/Qwen3.5-27B BENCH=samples REPEAT=3"
R=$W/results/compile-pipeline/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
# a second and a third run for the index: another task, another model
rm -f script.n
$SK eval >out.log 2>&1 && printf '%s\n' "pass sleep=0" >script && rm -f script.n &&
	$SK task=csv-column-sum eval >>out.log 2>&1 && printf '%s\n' "fail sleep=0" "pass sleep=0" >script && rm -f script.n &&
	$SK MODEL=vllm/Qwen/Qwen3-8B eval >>out.log 2>&1 && $SK report >>out.log 2>&1 && $T_SK report >>out.log 2>&1 ||
	{ echo "FAIL report-browser.sh: make eval / make report failed: $(tail -3 out.log)"; exit 1; }

t_begin "the console check catches a script error (the check itself)"
printf '<!DOCTYPE html><html><body><p>x</p><script>console.error("boom"); undefinedFn();</script></body></html>' >bad.html
browse "file://$W/bad.html" bad
t_contains "console.error seen" "$(console bad)" '"boom"'
t_contains "uncaught error seen" "$(console bad)" 'Uncaught ReferenceError'
t_end

t_begin "report page loads with no console message"
browse "file://$R/report.html" run
t_eq "console" "$(console run)" ""
t_contains "rendered" "$(cat run.dom)" 'Pass rate by stage'
t_contains "chart in the DOM" "$(cat run.dom)" 'data-chart="pass-rate"'
browse "file://$W/results/compile-pipeline/index.html" index
t_eq "index console" "$(console index)" ""
t_contains "index rendered" "$(cat index.dom)" 'Task × harness × model'
browse "file://$R/charts/pass-rate.svg" chart 720,400
t_eq "chart console" "$(console chart)" ""
t_end

t_begin "screenshots are not blank"
for s in run index chart; do
	got=$(not_blank $s.png 2>&1)
	t_eq "$s.png ($got)" $? 0
done
[ -n "${REPORT_SHOTS:-}" ] && mkdir -p "$REPORT_SHOTS" && cp run.png index.png chart.png "$REPORT_SHOTS/"
t_end
