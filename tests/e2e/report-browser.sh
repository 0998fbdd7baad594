#!/bin/sh
# End-to-end: the report in a real browser. A run made by real make with
# the stand-in bench; make report; then headless Chromium (Debian's
# /usr/bin/chromium) loads report.html, index.html and a standalone chart
# from disk, with no console message at all (the pages run no script) and
# a screenshot that is not blank. Skipped where chromium is absent.
. "$(dirname "$0")/../lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	for c in "report page loads with no console message" "screenshots are not blank" "the console check catches a script error"; do
		t_skip "$c" "no chromium on PATH (apt-get install chromium)"
	done
	exit 0
fi
t_bench_work
unset ROUTES ENV_FILE BENCH BUDGET_USD
printf '%s\n' "fail sleep=0" "pass sleep=0" "fail sleep=0 tokens=3100" "pass sleep=0 tokens=1900" \
	"pass sleep=0 tokens=2100" "pass sleep=0 tokens=1700" >script
SK="make --no-print-directory -f $T_ROOT/mk/skillc.mk task=log-error-report RUNNER=benchflow MODEL=vllm/Qwen/Qwen3.5-27B BENCH=samples REPEAT=3"
R=$W/results/compile-pipeline/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
# a second and a third run for the index: another task, another model
rm -f script.n
$SK eval >out.log 2>&1 && printf '%s\n' "pass sleep=0" >script && rm -f script.n &&
	$SK task=csv-column-sum eval >>out.log 2>&1 && printf '%s\n' "fail sleep=0" "pass sleep=0" >script && rm -f script.n &&
	$SK MODEL=vllm/Qwen/Qwen3-8B eval >>out.log 2>&1 && $SK report >>out.log 2>&1 && make --no-print-directory -f "$T_ROOT/mk/skillc.mk" report >>out.log 2>&1 ||
	{ echo "FAIL report-browser.sh: make eval / make report failed: $(tail -3 out.log)"; exit 1; }

# browse URL OUT [WxH]: one load with a fresh profile: the screenshot, the
# DOM after load, and chromium's log (console messages among it)
browse() {
	prof=$(mktemp -d "$T_TMP/chromium.XXXXXX")
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --enable-logging=stderr --v=0 --hide-scrollbars \
		--window-size="${3:-1280,2000}" --screenshot="$2.png" --dump-dom "$1" >"$2.dom" 2>"$2.log"
	rm -rf "$prof"
}
# console OUT: every console message chromium logged (none expected)
console() { grep ':CONSOLE' "$1.log"; }
# not_blank PNG: decodes the PNG (8-bit RGB/RGBA) and checks that at least
# 5% of the pixels differ from the commonest colour and that it has many colours
not_blank() {
	python3 - "$1" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and not interlace, (depth, ctype, interlace)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, counts = bytearray(stride), {}
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, stride, bpp * 4):
            k = bytes(line[x:x + 3]); counts[k] = counts.get(k, 0) + 1
    prev = line
total, top = sum(counts.values()), max(counts.values())
share = 1 - top / total
print('%dx%d colours=%d not-background=%.1f%%' % (w, h, len(counts), share * 100))
sys.exit(0 if share >= 0.05 and len(counts) >= 50 else 1)
EOF
}

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
