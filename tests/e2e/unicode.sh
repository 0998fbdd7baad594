#!/bin/sh
# The generated Unicode tables against the Python that skills-ref runs on:
# every code point (NFKC, isalnum, lower, isspace) and random sequences that
# exercise canonical reordering and composition. Skips without python3.
. "$(dirname "$0")/../lib.sh"
dump=$T_ROOT/build/tests/helpers/uc-dump

if ! command -v python3 >/dev/null 2>&1 ||
   ! python3 -c 'import unicodedata,sys; sys.exit(unicodedata.unidata_version != "'"$(sed -n 's/^#define UC_UNICODE_VERSION "\(.*\)"/\1/p' "$T_ROOT/tools/lib/base/unicode_tables.h")"'")' 2>/dev/null; then
	t_skip "unicode tables match python" "no python3 with the same Unicode version"
	exit 0
fi

t_begin "unicode: every code point agrees with python unicodedata"
"$dump" all >"$T_TMP/c.txt"
python3 - "$T_TMP/c.txt" >"$T_TMP/diff.txt" <<'PY'
import sys, unicodedata
bad = 0
with open(sys.argv[1]) as f:
    for line in f:
        parts = line.split()
        cp = int(parts[0], 16)
        c = chr(cp)
        want = [ord(x) for x in unicodedata.normalize("NFKC", c)]
        got = [int(x, 16) for x in parts[1:-1]]
        flags = "%d%d%d" % (c.isalnum(), c.lower() != c, c.isspace())
        if got != want or flags != parts[-1]:
            bad += 1
            if bad < 10:
                print("U+%04X got %s want %s flags %s want %s" % (cp, got, want, parts[-1], flags))
n = sum(1 for _ in open(sys.argv[1]))
print("lines", n)
print("bad", bad)
PY
t_eq "code points compared" "$(grep '^lines' "$T_TMP/diff.txt")" "lines 1112064"
t_eq "mismatches" "$(tail -n 1 "$T_TMP/diff.txt")" "bad 0"
t_end

t_begin "unicode: NFKC of random mark sequences agrees with python"
python3 - "$T_TMP/in.txt" "$T_TMP/want.txt" <<'PY'
import random, sys, unicodedata
rnd = random.Random(7)
marks = [0x300, 0x301, 0x302, 0x303, 0x308, 0x30A, 0x323, 0x327, 0x328, 0x331, 0x345,
         0x5B0, 0x5B8, 0x93C, 0x94D, 0x3099, 0x309A, 0x1DCE, 0x1161, 0x11A8, 0x0F71, 0x0F72]
bases = [ord(c) for c in "aAeEoOuUiInNcCsSzZ"] + [0x3B1, 0x3C9, 0x415, 0x435, 0x1100, 0xAC00,
         0x304B, 0x30AB, 0x928, 0xFB01, 0x1E9B, 0x212B, 0x1F00, 0x0F40, 0xB4, 0x2FA1D]
ins, outs = [], []
for _ in range(3000):
    s = "".join(chr(rnd.choice(bases if rnd.random() < 0.35 else marks)) for _ in range(rnd.randint(1, 8)))
    ins.append(s)
    outs.append(unicodedata.normalize("NFKC", s))
open(sys.argv[1], "w", encoding="utf-8").write("\n".join(ins) + "\n")
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(outs) + "\n")
PY
"$dump" nfkc <"$T_TMP/in.txt" >"$T_TMP/got.txt"
t_check "NFKC sequences differ from python" cmp "$T_TMP/got.txt" "$T_TMP/want.txt"
t_end
