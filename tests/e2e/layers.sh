#!/bin/sh
# The library's folders include one another only in the direction
# tools/lib/LAYERS allows (tools/gen/check-layers).
. "$(dirname "$0")/../lib.sh"

t_begin "tools/lib: every #include points the way LAYERS allows"
layout=$T_ROOT/docs/internals/layout.md
out=$("$T_ROOT/tools/gen/check-layers" "$T_ROOT/tools/lib" "$layout" 2>&1)
t_eq "check-layers exit (output: $out)" $? 0
t_end

t_begin "check-layers fails when the layout page's table says other than LAYERS"
D=$T_TMP/layout.md
sed 's/^| `pipeline\/` | [^|]* |/| `pipeline\/` | base |/; /^| `bundle\/` |/d' "$layout" >"$D"
out=$("$T_ROOT/tools/gen/check-layers" "$T_ROOT/tools/lib" "$D" 2>&1)
t_eq "exit" $? 1
t_contains "the wrong cell named" "$out" "pipeline/ may include \"base\" there, \"base skill\""
t_contains "the missing row named" "$out" "no row for bundle/"
t_end

# a copy of the real LAYERS with a wrong-way include and a bare header name
L=$T_TMP/lib
mkdir -p "$L/base" "$L/skill" "$L/eval"
cp "$T_ROOT/tools/lib/LAYERS" "$L/LAYERS"
printf '#include "base/util.h"\n#include "skill/doc.h"\n' >"$L/base/fs.c"
printf '#include "eval/trial.h"\n' >"$L/skill/ok.c"
printf '#include "util.h"\n' >"$L/eval/bare.c"
t_begin "check-layers fails on an include against the arrows, naming file and line"
out=$("$T_ROOT/tools/gen/check-layers" "$L" 2>&1)
t_eq "exit" $? 1
t_contains "base -> skill named" "$out" "base/fs.c:2: base/ may not include skill/doc.h"
t_contains "skill -> eval named" "$out" "skill/ok.c:1: skill/ may not include eval/trial.h"
t_contains "a header without its folder" "$out" "eval/bare.c:1: #include \"util.h\" names no folder"
t_eq "the allowed include is not reported" "$(printf '%s\n' "$out" | grep -c 'base/util.h')" 0
t_end

# files of one folder and of two folders that include one another
mkdir -p "$L/skill/c" && rm -f "$L/skill/ok.c" "$L/eval/bare.c" "$L/base/fs.c"
printf '#include "skill/b.h"\n' >"$L/skill/a.c"
printf '#include "base/util.h"\n#include "skill/a.h"\n' >"$L/skill/b.h"
printf '#include "skill/c.h"\n' >"$L/skill/x.h"
printf '#include "eval/y.h"\n' >"$L/skill/c.c"
printf '#include "skill/x.h"\n' >"$L/eval/y.h"
printf '#include "skill/a.h"\n' >"$L/eval/z.c"
t_begin "check-layers fails on files that include one another in a circle, in a folder or across"
out=$("$T_ROOT/tools/gen/check-layers" "$L" 2>&1)
t_eq "exit" $? 1
t_contains "a.c and b.h named" "$out" "skill/a -> skill/b -> skill/a ($L/skill/a.c:1 includes skill/b.h; $L/skill/b.h:2 includes skill/a.h)"
t_contains "the longer circle across folders" "$out" "includes eval/y.h; "
t_eq "one line a circle (output: $out)" "$(printf '%s\n' "$out" | grep -c 'a circle of includes')" 2
t_eq "a file that only includes is in no circle" "$(printf '%s\n' "$out" | grep -c 'eval/z')" 0
t_end

t_begin "library code never exits: no die(), exit() or abort() in tools/lib (BUG() for a programmer error)"
# log.c and util.c define die, the oom stop and BUG; a child after fork ends with _exit
hits=$(cd "$T_ROOT/tools/lib" && grep -n -E '(^|[^_a-z])(die|die_err|exit|abort)\(' */*.c |
	grep -v -E '^base/(log|util)\.c:' | grep -v -E '^\S+:[0-9]+:\s*(/?\*|//)')
t_eq "calls found" "$hits" ""
t_end
