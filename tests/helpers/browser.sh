# tests/helpers/browser.sh — headless Chromium for the report tests, sourced
# after tests/lib.sh. CHROMIUM is Debian's chromium (empty when absent: the
# caller skips). browse loads a page once with a fresh profile and no
# network features; console lists what the page logged; not_blank decodes
# the screenshot and tells a rendered page from an empty one.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)

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
# print_pdf URL OUT.pdf: the page printed as Chromium prints it (its print style)
print_pdf() {
	prof=$(mktemp -d "$T_TMP/chromium.XXXXXX")
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --no-pdf-header-footer --print-to-pdf="$2" "$1" >/dev/null 2>&1
	rm -rf "$prof"
}
# pdf_pages PDF: how many pages it has
pdf_pages() { python3 -c 'import re, sys; print(len(re.findall(rb"/Type\s*/Page[^s]", open(sys.argv[1], "rb").read())))' "$1"; }
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

