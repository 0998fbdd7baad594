#!/bin/sh
# base-images.sh KIND DIR — makes a base image's root filesystem as a tar
# in DIR, without any image registry (containers-and-clusters.md §2), once:
# a tar already there is kept. Prints its path.
#   busybox  DIR/busybox.tar: busybox-static and a few links (a second; offline)
#   debian   DIR/debian-bookworm.tar: debootstrap --variant=minbase bookworm from
#            the Debian mirror apt uses, plus libcjson1 for our scripted agent (~1 min)
#   runtime  DIR/runtime-bookworm.tar: the same with docker.io, make and skillc's
#            libraries, the base of the runtime image (skillc-runtime build; ~2 min)
# The test helper (tests/lib.sh t_docker_base) calls it; CI points DIR
# (SKILLC_TEST_CACHE) outside build/ so `make clean` keeps the tars.
set -eu
kind=$1 dir=$2
mkdir -p "$dir"
out=$dir/$kind.tar
[ "$kind" = debian ] && out=$dir/debian-bookworm.tar
[ "$kind" = runtime ] && out=$dir/runtime-bookworm.tar
exec 9>"$out.lock"
flock 9
if [ -s "$out" ]; then echo "$out"; exit 0; fi
root=$(mktemp -d "$dir/.rootfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
case $kind in
busybox)
	bb=$(command -v busybox) || { echo "base-images.sh: no busybox (apt-get install -y busybox-static)" >&2; exit 1; }
	mkdir -p "$root/bin" "$root/tmp" "$root/root"
	cp "$bb" "$root/bin/busybox"
	for l in sh cat ls echo sleep mkdir rm cp mv true false env grep sed awk sort tr wc id chmod; do
		ln -s busybox "$root/bin/$l"
	done
	;;
debian | runtime)
	include=libcjson1
	[ "$kind" = debian ] ||
		include=docker.io,make,ca-certificates,procps,libcjson1,libcurl4,libxxhash0,libpcre2-8-0,libyaml-0-2
	command -v debootstrap >/dev/null || { echo "base-images.sh: no debootstrap (apt-get install -y debootstrap)" >&2; exit 1; }
	mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	[ -n "$mirror" ] || mirror=$(sed -n 's/^deb  *\([^ ]*\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
	debootstrap --variant=minbase --include=$include bookworm "$root" "${mirror:-http://deb.debian.org/debian}" \
		>"$dir/debootstrap-$kind.log" 2>&1 || { echo "base-images.sh: debootstrap failed: see $dir/debootstrap-$kind.log" >&2; exit 1; }
	rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*_Packages
	;;
*) echo "base-images.sh: unknown kind '$kind' (busybox, debian, runtime)" >&2; exit 2 ;;
esac
tar -C "$root" -cf "$out.tmp" .
mv "$out.tmp" "$out"
echo "$out"
