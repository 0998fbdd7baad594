#!/bin/sh
# The static compile publishes without fsync (docs/internals/durability.md):
# its record holds the boot and what it wrote, and after a machine restart a
# torn output is caught and rebuilt, never trusted. A power cut cannot be
# made here; what it leaves is: a record of an earlier boot (the kernel's
# boot_id changes at every boot) and outputs short or gone while their
# times still say done.
. "$(dirname "$0")/../lib.sh"

unset MODEL EXTERNAL_MODEL STATIC_MODE PROFILES_DIR ROUTES ENV_FILE CACHE_DIR LLM_CACHE
W=$T_TMP/work
mkdir -p "$W" && cp -R "$T_ROOT/tasks" "$W/tasks" && cd "$W" || exit 2
SK="$T_SK task=log-error-report MODEL=vllm/Qwen/Qwen3.5-27B"
R=results/compile-pipeline/log-error-report--opencode--vllm_Qwen_Qwen3.5-27B
A=$R/artifacts/static
ST=$R/status/static.json
$SK static >/dev/null 2>&1 || { echo "FAIL torn.sh: make static failed"; exit 1; }
good=$(cat $A/S_static.hash)
report=$(cat $A/report.json)

# the record as an earlier boot left it; file times kept, as a crash keeps them
earlier_boot() {
	jq '.written.boot = "00000000-0000-0000-0000-000000000000"' $ST >$ST.new && touch -r $ST $ST.new && mv $ST.new $ST
}
# truncates a file, keeping its time (delayed allocation: a name, no bytes)
tear() { touch -r "$1" "$1.t" && : >"$1" && touch -r "$1.t" "$1" && rm "$1.t"; }

t_begin "the record holds this boot and every output's hash"
t_eq "boot" "$(jq -r .written.boot $ST)" "$(cat /proc/sys/kernel/random/boot_id)"
t_eq "the stamp's hash" "$(jq -r '.written.files["artifacts/static/S_static.hash"]' $ST)" \
	"$("$T_ROOT/bin/skillc-hash" $A/S_static.hash | cut -d" " -f1)"
t_eq "up to date" "$($SK status GOAL=static >/dev/null 2>&1; echo $?)" 0
t_end

t_begin "a record of an earlier boot whose outputs are whole: nothing runs again"
earlier_boot
out=$($SK status GOAL=static 2>&1)
t_eq "status exit" $? 0
out=$($SK static 2>&1)
t_eq "exit" $? 0
case $out in *"static: started"*) t_fail "static ran again: $out" ;; esac
t_end

t_begin "a SKILL.md torn by the crash: status says why, make compiles again"
earlier_boot
f=$(find $A/S_static -name SKILL.md | head -1)
tear "$f"
out=$($SK status GOAL=static 2>&1); rc=$?
t_eq "status exit" $rc 1
t_contains "status says why" "$out" "output artifacts/static/S_static does not match its hash stamp after the machine restarted"
out=$($SK static 2>&1); rc=$?
t_eq "make exit" $rc 0
t_contains "make says why" "$out" "static: output artifacts/static/S_static does not match its hash stamp after the machine restarted"
t_contains "compiled again" "$out" "static: started"
t_check "SKILL.md whole again" test -s "$f"
t_eq "the same hash" "$(cat $A/S_static.hash)" "$good"
t_eq "the record is of this boot" "$(jq -r .written.boot $ST)" "$(cat /proc/sys/kernel/random/boot_id)"
t_eq "then up to date" "$($SK status GOAL=static >/dev/null 2>&1; echo $?)" 0
t_end

t_begin "a torn hash stamp or report after a restart runs the stage again"
earlier_boot
tear $A/S_static.hash
out=$($SK static 2>&1)
t_eq "exit" $? 0
t_contains "stamp named" "$out" "output artifacts/static/S_static"
t_eq "the stamp is whole" "$(cat $A/S_static.hash)" "$good"
earlier_boot
tear $A/report.json
out=$($SK static 2>&1)
t_eq "exit" $? 0
t_contains "report named" "$out" "output artifacts/static/report.json is not what the stage wrote after the machine restarted"
t_eq "the report is whole" "$(cat $A/report.json)" "$report"
t_end

t_begin "in this boot the same tear is a hand edit, as before (not the restart check)"
f=$(find $A/S_static -name SKILL.md | head -1)
echo edited >>"$f"
out=$($SK static 2>&1)
t_eq "exit" $? 0
case $out in *"after the machine restarted"*) t_fail "named a restart: $out" ;; esac
t_contains "a hand edit" "$out" "modified by hand"
t_eq "the same hash" "$(cat $A/S_static.hash)" "$good"
t_end
