#!/bin/sh
# Every project path and documentation section the project names exists
# (tools/gen/check-docs): in messages, --help texts, comments, data files,
# docs and man pages.
. "$(dirname "$0")/../lib.sh"

t_begin "every doc path, anchor, link, header and man page named in the project exists"
out=$("$T_ROOT/tools/gen/check-docs" "$T_ROOT" 2>&1)
t_eq "check-docs exit (output: $out)" $? 0
t_end

# the long options a text names (--help and --version, which every tool
# has, aside); of a man page with roff's \- and font changes taken out
options() { grep -oE -- '--[a-z][a-z0-9-]*' | grep -vxE -- '--(help|version)' | sort -u; }
man_options() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1" | options; }
t_begin "every tool's man page names each option its --help names, and no other"
n=0
for tool in "$T_BIN"/skillc-*; do
	name=$(basename "$tool") n=$((n + 1))
	page=$T_ROOT/man/$name.1
	[ -f "$page" ] || { t_fail "$name: no man page $page"; continue; }
	"$tool" --help | options >"$T_TMP/help"
	man_options "$page" >"$T_TMP/man"
	t_eq "$name: options of --help missing in man/$name.1" "$(comm -23 "$T_TMP/help" "$T_TMP/man" | tr '\n' ' ')" ""
	t_eq "$name: options of man/$name.1 not in --help" "$(comm -13 "$T_TMP/help" "$T_TMP/man" | tr '\n' ' ')" ""
done
t_check "the tools were found ($n)" test "$n" -ge 10
t_end

# a tool whose options are rows (base/opts.h) prints them after "options:";
# its man page's OPTIONS section names exactly those
t_begin "a tool's option rows and its man page's OPTIONS section name the same options"
n=0
for tool in "$T_BIN"/skillc-*; do
	name=$(basename "$tool")
	"$tool" --help | sed -n '/^options:$/,$p' | options >"$T_TMP/rows"
	[ -s "$T_TMP/rows" ] || continue
	n=$((n + 1))
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$T_ROOT/man/$name.1" >"$T_TMP/section"
	man_options "$T_TMP/section" >"$T_TMP/man"
	t_eq "$name: rows missing in OPTIONS" "$(comm -23 "$T_TMP/rows" "$T_TMP/man" | tr '\n' ' ')" ""
	t_eq "$name: OPTIONS not in rows" "$(comm -13 "$T_TMP/rows" "$T_TMP/man" | tr '\n' ' ')" ""
done
t_check "tools with option rows were found ($n)" test "$n" -ge 1
t_end

# a small tree with one reference of every kind, good and broken
R=$T_TMP/tree
mkdir -p "$R/docs" "$R/tools/lib/base" "$R/rules" "$R/man"
d=docs s=skillc
printf '# Guide\n\n## Keys and `.env`\n\n```sh\n# not a heading\n```\n\n## Keys and `.env`\n' >"$R/$d/guide.md"
printf '.TH SKILLC 7\n.BR skillc\\-gone (1)\n' >"$R/man/skillc.7"
printf 'int main(void) { return 0; }\n' >"$R/tools/$s-new.c"
printf '/* util.h — see %s/guide.md#keys-and-env and %s/guide.md#keys-and-env-1 */\n' $d $d >"$R/tools/lib/base/util.h"
cat >"$R/tools/lib/base/fs.c" <<C
/* see $d/gone.md, $d/guide.md#not-a-heading and run.h; util.h is fine */
static const char *m = "see $d/guide.md, \"Keys\"";
/* $s(7) is there, $s-gone(1) is not; tools/lib/base/util.h is */
C
printf '{"_comment": "see %s/guide.md#keys-and-env and rules/NAME.json and rules/x/<h>.json"}\n' $d >"$R/rules/r.json"
printf '# Read me\n\n[ok](%s/guide.md) [gone](%s/nope.md) [anchor](#read-me) [bad](#nope) `[x](y.md)`\n' $d $d >"$R/README.md"
t_begin "check-docs names each broken reference by file and line, and only those"
out=$("$T_ROOT/tools/gen/check-docs" "$R" 2>&1)
t_eq "exit" $? 1
t_contains "a missing page" "$out" "tools/lib/base/fs.c:1: names $d/gone.md: no such file"
t_contains "an anchor no heading has (a # line in a fence is no heading)" "$out" \
	"tools/lib/base/fs.c:1: names $d/guide.md#not-a-heading: $d/guide.md has no heading with anchor #not-a-heading"
t_contains "a stale header name" "$out" "tools/lib/base/fs.c:1: names header run.h"
t_contains "a section by title" "$out" "tools/lib/base/fs.c:2: names a section by its title"
t_contains "a missing man page" "$out" "tools/lib/base/fs.c:3: names man page $s-gone(1): no man/$s-gone.1"
t_contains "a broken Markdown link" "$out" "README.md:3: links to $d/nope.md: no such file"
t_contains "a broken same-page anchor" "$out" "README.md:3: links to #nope: README.md has no heading with anchor #nope"
t_contains "a roff reference to a missing page" "$out" "man/$s.7:2: names man page $s-gone(1): no man/$s-gone.1"
t_contains "a tool without its page" "$out" "tools/$s-new.c: the tool has no man page man/$s-new.1"
t_eq "nothing else reported (output: $out)" "$(printf '%s\n' "$out" | wc -l)" 9
t_end
