#!/bin/sh
# End-to-end: ./configure finds the libraries with pkg-config, honours
# --prefix and CC/CFLAGS/LDFLAGS, writes mk/config.mk, and when something is
# missing names the one apt-get line that provides it. Runs a copy of the
# script in a scratch folder, so the real mk/config.mk is never touched.
. "$(dirname "$0")/../lib.sh"

D=$T_TMP/src
mkdir -p "$D" && cp "$T_ROOT/configure" "$D/"

t_begin "configure writes mk/config.mk with the prefix, the compiler flags and the libraries"
out=$(cd "$D" && ./configure --prefix=/opt/skillc CC=cc CFLAGS="-O1 -g" LDFLAGS=-Wl,-O1 2>&1)
t_eq "exit" $? 0
c=$(cat "$D/mk/config.mk")
t_contains "prefix" "$c" "PREFIX = /opt/skillc"
t_contains "bindir follows the prefix" "$c" 'BINDIR = $(PREFIX)/bin'
t_contains "mandir follows the prefix" "$c" 'MANDIR = $(PREFIX)/share/man'
t_contains "docdir follows the prefix" "$c" 'DOCDIR = $(PREFIX)/share/doc/skillc'
t_contains "cflags" "$c" "CFLAGS = -O1 -g"
t_contains "ldflags" "$c" "LDFLAGS = -Wl,-O1"
t_contains "libraries" "$c" "-lcjson"
t_contains "yaml" "$c" "-lyaml"
t_contains "said" "$out" "checking for yaml-0.1..."
t_end

t_begin "a missing library: one apt-get line, exit 1, config.mk untouched"
before=$(cat "$D/mk/config.mk")
cat >"$T_TMP/pkg-config" <<'SH'
#!/bin/sh
# a pkg-config that knows every library but two
for a; do case $a in libxxhash|yaml-0.1) exit 1 ;; esac; done
exec pkg-config "$@"
SH
chmod +x "$T_TMP/pkg-config"
out=$(cd "$D" && ./configure PKG_CONFIG="$T_TMP/pkg-config" 2>&1)
t_eq "exit" $? 1
t_contains "one install line" "$out" "configure: missing libraries; install them with: apt-get install -y libxxhash-dev libyaml-dev"
t_eq "config.mk untouched" "$(cat "$D/mk/config.mk")" "$before"
t_end

t_begin "a library without an archive is linked shared; the others' archives are linked in"
cat >"$T_TMP/pkg-config" <<'SH'
#!/bin/sh
# yaml's library is one that does not exist (no archive, no shared object)
case "$*" in *--libs*yaml-0.1*) ;; *) exec pkg-config "$@" ;; esac
args=
for a; do [ "$a" = yaml-0.1 ] || args="$args $a"; done
printf '%s -lskillc-no-such-yaml\n' "$(pkg-config $args 2>/dev/null | sed 's/ *$//')"
SH
chmod +x "$T_TMP/pkg-config"
out=$(cd "$D" && ./configure PKG_CONFIG="$T_TMP/pkg-config" 2>&1)
t_eq "exit" $? 0
t_contains "said" "$out" "checking for the static archive of yaml-0.1... no (linked shared)"
c=$(cat "$D/mk/config.mk")
t_eq "shared" "$(sed -n 's/^DEP_LIBS = .*-lxxhash\(.*\)/\1/p' "$D/mk/config.mk")" " -lskillc-no-such-yaml"
t_contains "link options written" "$c" "LINK_OPT ="
case $out in
*"static archive of libpcre2-8... yes"*) t_contains "pcre2 archive" "$c" "DEP_STATIC_LIBS = -lpcre2-8" ;;
*) t_contains "pcre2 shared" "$c" "-lpcre2-8" ;;
esac
t_end

t_begin "an unknown option is refused"
out=$(cd "$D" && ./configure --with-magic 2>&1)
t_eq "exit" $? 2
t_contains "message" "$out" "configure: unknown option '--with-magic' (see ./configure --help)"
t_end
