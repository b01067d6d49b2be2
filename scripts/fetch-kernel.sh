#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian kernel image and its headers into the cache, never
# installing them: apt-get download + dpkg-deb -x.  Prints the directory.
#
#   scripts/fetch-kernel.sh 6.1|6.12|6.1-rt|6.12-rt|6.1-arm64|6.12-arm64|6.12-debug
#
# The -rt flavours are Debian's PREEMPT_RT kernels, the -arm64 ones its
# arm64 kernels (dpkg --add-architecture arm64, done by scripts/deps.sh).
# Each KVER is resolved at run time from its metapackage (the current ABI,
# e.g. 6.1.0-56-rt-amd64):
#   6.1 linux-image-amd64, 6.12 linux-image-6.12-amd64,
#   6.1-rt linux-image-rt-amd64, 6.12-rt linux-image-6.12-rt-amd64,
#   6.1-arm64 linux-image-arm64:arm64, 6.12-arm64 linux-image-6.12-arm64:arm64.
# An rt kernel's headers depend on linux-headers-<ver>-common-rt.  An arm64
# kernel's headers are built with the amd64 linux-kbuild (its host tools
# run here; the arm64 package's do not) and a cross compiler
# (scripts/fetch-cross.sh).
#
# Layout of the result ($SLABTRACE_CACHE/kernels/<abi>/):
#   vmlinuz           the kernel to boot
#   modules/          /lib/modules/<abi> of the image (for modules.dep etc.)
#   build             -> the relocated headers tree (KDIR)
#   abi               the ABI string, e.g. 6.1.0-56-amd64
#   busybox           (arm64 only) Debian's busybox-static:arm64, for the
#                     guest's initramfs (x86-64 guests use the host's)
#
# 6.12-debug is no Debian package but a kernel built here, with lockdep,
# KASAN and PREEMPT_RT, in the same layout: scripts/debug-kernel.sh.
set -eu

kver=${1:?usage: $0 6.1|6.12|6.1-rt|6.12-rt|6.1-arm64|6.12-arm64|6.12-debug}
[ "$kver" != 6.12-debug ] || exec "$(dirname "$0")/debug-kernel.sh"
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}

# qa: the arch qualifier of the image and headers packages.
qa=
case $kver in
6.1)	meta=linux-image-amd64 ;;
6.12)	meta=linux-image-6.12-amd64 ;;
6.1-rt)	meta=linux-image-rt-amd64 ;;
6.12-rt) meta=linux-image-6.12-rt-amd64 ;;
6.1-arm64) meta=linux-image-arm64 qa=:arm64 ;;
6.12-arm64) meta=linux-image-6.12-arm64 qa=:arm64 ;;
*)	echo "fetch-kernel: unknown KVER '$kver' (want 6.1, 6.12, 6.1-rt, 6.12-rt, 6.1-arm64, 6.12-arm64 or 6.12-debug)" >&2
	exit 1 ;;
esac

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

# depends PKG PATTERN: the first dependency of PKG matching PATTERN, without
# the arch qualifier and the <> apt-cache puts around arch: all packages
# asked for with one.
depends() {
	apt-cache depends "$1" 2>/dev/null | sed -e 's/:[a-z0-9]*>\{0,1\}$//' -e 's/<//' |
		sed -n "s/^ *|\{0,1\}Depends: \($2\)\$/\1/p" | head -n 1
}

# linux-image-6.1.0-56-amd64 -> 6.1.0-56-amd64; the index may be stale on a
# fresh machine, so refresh it once if the metapackage is unknown.
img=$(depends "$meta$qa" 'linux-image-[0-9].*')
if [ -z "$img" ]; then
	$sudo apt-get update -qq >&2
	img=$(depends "$meta$qa" 'linux-image-[0-9].*')
fi
[ -n "$img" ] || { echo "fetch-kernel: cannot resolve $meta" >&2; exit 1; }
abi=${img#linux-image-}
dir=$cache/kernels/$abi

if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

# Worktrees and parallel builds share the cache: one fetch per ABI at a
# time, and a second one finds the first's result.
mkdir -p "$cache/kernels"
exec 9> "$cache/kernels/$abi.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

hdr=linux-headers-$abi
common=$(depends "$hdr$qa" 'linux-headers-.*-common\(-rt\)\{0,1\}')
kbuild=$(depends "$hdr$qa" 'linux-kbuild-.*')
[ -n "$common" ] && [ -n "$kbuild" ] ||
	{ echo "fetch-kernel: cannot resolve dependencies of $hdr" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
echo "fetch-kernel: downloading $img-unsigned $hdr $common $kbuild" >&2
download() {
	(cd "$dir/debs" && apt-get download -q "$img-unsigned$qa" "$hdr$qa" \
		"$common" "$kbuild" ${qa:+busybox-static$qa} >&2)
}
# A stale index names versions the mirror no longer has: refresh, retry.
if ! download; then
	$sudo apt-get update -qq >&2
	download
fi
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done

# The arch headers' Makefile includes the common tree by absolute path.
root=$dir/root
for mk in "$root/usr/src/$hdr/Makefile"; do
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$mk"
done
# scripts/ and tools/ of linux-kbuild are symlinked via /usr/lib/linux-kbuild-*
find "$root/usr/src" -maxdepth 2 -type l | while read -r l; do
	t=$(readlink "$l")
	case $t in
	/*) ln -sfn "$root$t" "$l" ;;
	esac
done

ln -sfn "$root/usr/src/$hdr" "$dir/build"
ln -sfn "$root/lib/modules/$abi" "$dir/modules"
ln -sfn "$root/boot/vmlinuz-$abi" "$dir/vmlinuz"
[ -z "$qa" ] || ln -sfn "$root/bin/busybox" "$dir/busybox"
echo "$abi" > "$dir/abi"
rm -rf "$dir/debs"
touch "$dir/.done"
echo "$dir"
