#!/bin/sh
# docs/internals/adding-a-stage.md followed literally in a copy of the tree:
# the page's example row goes into stage_table after the stage it needs,
# `make` rebuilds, and the throw-away stage is a goal of its own that runs,
# is up to date the second time and shows in `make status`.
. "$(dirname "$0")/../lib.sh"

DOC=$T_ROOT/docs/internals/adding-a-stage.md
C=$T_TMP/tree
# what make needs to rebuild incrementally (build/ objects, bin/): not the unit tests and test
# helpers under build/tests (20 MB; make builds them for check only), the fuzz harnesses
# (build/fuzz, which CI builds while this runs) nor a test cache of base-image tars
# (build/test-cache when SKILLC_TEST_CACHE is not set: gigabytes)
mkdir -p "$C" && (cd "$T_ROOT" && tar --exclude=./.git --exclude=./results --exclude=./build/tests \
	--exclude=./build/fuzz --exclude=./build/test-cache -cf - .) | (cd "$C" && tar -xf -) || exit 2
# step 2's row: the page's C block; "after the stages it needs": its .after
sed -n '/^```c$/,/^```$/p' "$DOC" | sed '1d;$d' >"$T_TMP/row"
name=$(sed -n 's/.*\.name = "\([^"]*\)".*/\1/p' "$T_TMP/row")
after=$(sed -n 's/.*\.after = { "\([^"]*\)".*/\1/p' "$T_TMP/row")
output=$(sed -n 's/.*\.outputs = { "\([^"]*\)".*/\1/p' "$T_TMP/row")

t_begin "the page's row added after its stage, make rebuilds and lists the goal"
t_check "the page has a row with a name and an after ($name, $after)" test -n "$name" -a -n "$after"
S=$C/tools/lib/pipeline/stages.c
sed -i "/\.name = \"$after\",/,/^\t},\$/{/^\t},\$/r $T_TMP/row
}" "$S"
t_eq "the row is in the table once" "$(grep -c "\.name = \"$name\"," "$S")" 1
out=$(make -C "$C" 2>&1)
t_eq "make in the copy (output: $(printf '%s\n' "$out" | tail -n 5))" $? 0
t_contains "defaults.mk lists the goal" "$(grep '^SKILLC_STAGE_GOALS' "$C/mk/defaults.mk")" " $name "
t_end

t_begin "the new stage runs as a goal, is up to date the second time, and status knows it"
W=$T_TMP/work
mkdir -p "$W/tasks" && cd "$W" && cp -R "$T_ROOT/tasks/csv-column-sum" tasks/t || exit 2
SK="make --no-print-directory -f $C/mk/skillc.mk" # T_SK of the copy
R=results/compile-pipeline/t--opencode--no-model
out=$(PATH=$C/bin:$PATH $SK task=t "$name" 2>&1)
t_eq "make task=t $name (output: $out)" $? 0
t_contains "it ran" "$out" "$name: started"
t_check "its output $output is there" test -s "$R/$output"
t_check "its stamp is there" test -e "$R/status/$name.ok"
out=$(PATH=$C/bin:$PATH $SK task=t "$name" 2>&1)
t_eq "the second make" $? 0
t_eq "nothing ran the second time (output: $out)" "$(printf '%s\n' "$out" | grep -c 'started')" 0
out=$(PATH=$C/bin:$PATH $SK task=t status 2>&1)
t_contains "status names it" "$out" "$name"
t_end
exit $T_FAILED
