#!/bin/sh
# skillc-check and the document model over the real SkillsBench skills in
# ../shared/corpus/skillsbench (beside the project; skipped when absent).
# Every SKILL.md is judged, nothing crashes, the verdicts are the ones the
# skills-ref rules give (the expected list below was written by reading the
# files: names against folders, characters, keys, YAML), and rendering the
# unmodified model gives the file back byte for byte.
. "$(dirname "$0")/../lib.sh"
C=../shared/corpus/skillsbench
if [ ! -d "$C" ]; then
	t_skip "corpus: skillc-check over skillsbench" "no corpus at $C"
	t_skip "corpus: render without edit is byte-identical" "no corpus at $C"
	exit 0
fi

# task/skill-dir verdict error-rules (every skill not listed is valid).
# senior-java's frontmatter holds a flow list: the reference stops at
# yaml-invalid, skillc reads on and reports the rest (docs/check.md).
cat >"$T_TMP/expected" <<'LIST'
dialogue-parser/dialogue_graph invalid name-directory
fix-druid-loophole-cve/senior-java invalid yaml-invalid,unexpected-fields,compatibility-type
manufacturing-equipment-maintenance/reflow_machine_maintenance_guidance invalid name-characters
mario-coin-counting/ffmpeg invalid name-directory
mario-coin-counting/image_editing invalid name-characters
mario-coin-counting/object_counter invalid name-characters
multilingual-video-dubbing/ffmpeg-audio-processing invalid name-lowercase,name-characters,name-directory
multilingual-video-dubbing/ffmpeg-format-conversion invalid name-lowercase,name-characters,name-directory
multilingual-video-dubbing/ffmpeg-media-info invalid name-lowercase,name-characters,name-directory
multilingual-video-dubbing/ffmpeg-video-editing invalid name-lowercase,name-characters,name-directory
multilingual-video-dubbing/ffmpeg-video-filters invalid name-lowercase,name-characters,name-directory
multilingual-video-dubbing/text-to-speech invalid name-lowercase,name-characters,name-directory
simpo-code-reproduction/nlp-research-repo-package-installment invalid unexpected-fields
speaker-diarization-subtitles/automatic-speech-recognition invalid name-lowercase,name-characters,name-directory
speaker-diarization-subtitles/multimodal-fusion invalid name-lowercase,name-characters,name-directory
speaker-diarization-subtitles/speaker-clustering invalid name-lowercase,name-characters,name-directory
speaker-diarization-subtitles/voice-activity-detection invalid name-lowercase,name-characters,name-directory
LIST

find "$C" -path '*/environment/skills/*/SKILL.md' | LC_ALL=C sort >"$T_TMP/files"
n=$(wc -l <"$T_TMP/files")

t_begin "corpus: skillc-check judges every skill, verdicts match the skills-ref rules"
sed 's|/SKILL.md$||' "$T_TMP/files" >"$T_TMP/dirs"
# one run over all of them (corpus paths hold no spaces); every skill must
# yield exactly one report line, and the exit status is the worst verdict
# shellcheck disable=SC2046
skillc-check --json $(cat "$T_TMP/dirs") >"$T_TMP/reports" 2>"$T_TMP/stderr"; rc=$?
t_eq "exit (worst verdict: invalid)" "$rc" 1
t_eq "reports" "$(wc -l <"$T_TMP/reports")" "$n"
t_check "at least 150 skills in the corpus" test "$n" -ge 150
while IFS= read -r line; do
	v=$(printf '%s' "$line" | sed 's/.*"verdict":"\([a-z]*\)".*/\1/')
	[ "$v" = valid ] && continue
	p=$(printf '%s' "$line" | sed 's/.*"path":"\([^"]*\)".*/\1/')
	rules=$(printf '%s' "$line" | sed 's/^{"errors":\[\(.*\)\],"file".*/\1/' |
		grep -o '"rule":"[^"]*"' | sed 's/"rule":"\(.*\)"/\1/' | paste -sd, -)
	id=$(printf '%s' "$p" | sed "s|^$C/||; s|/environment/skills/|/|")
	echo "$id $v $rules"
done <"$T_TMP/reports" | LC_ALL=C sort >"$T_TMP/got"
LC_ALL=C sort "$T_TMP/expected" >"$T_TMP/want"
if ! cmp -s "$T_TMP/got" "$T_TMP/want"; then
	t_fail "verdicts differ: $(diff "$T_TMP/want" "$T_TMP/got" | grep '^[<>]' | head -5 | tr '\n' ' ')"
fi
invalid=$(wc -l <"$T_TMP/got")
# about one in ten fails the spec: neither none nor all
t_check "a plausible share is invalid ($invalid of $n)" test "$invalid" -gt $((n / 20)) -a "$invalid" -lt $((n / 5))
t_eq "stderr (no skill is unusable)" "$(cat "$T_TMP/stderr")" ""
t_end

t_begin "corpus: render without edit is byte-identical"
# shellcheck disable=SC2046
"$T_ROOT/build/tests/helpers/sd-dump" --roundtrip $(cat "$T_TMP/files") >"$T_TMP/rt"; rc=$?
t_eq "exit" "$rc" 0
t_eq "files round-tripped" "$(grep -c '^ok ' "$T_TMP/rt")" "$n"
t_eq "failures" "$(grep '^FAIL' "$T_TMP/rt" | head -3)" ""
t_end
