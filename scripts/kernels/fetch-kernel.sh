#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian kernel image and its headers into the cache, never
# installing them: apt-get download + dpkg-deb -x.  Prints the directory.
#
#   scripts/kernels/fetch-kernel.sh KVER
#
# KVER is a kernel Debian ships, a flavour of it, or the debug kernel:
#   6.1  6.1-rt  6.1-arm64          bookworm's 6.1 (gcc-12)
#   6.12 6.12-rt 6.12-arm64         bookworm-security's 6.12+deb12 (gcc-12)
#   6.12-deb13 (-rt, -arm64)        trixie's (Debian 13) 6.12+deb13 (gcc-14)
#   7.2 (-rt, -arm64)               sid's 7.2.x+deb14 (gcc-16)
#   7.3 (-rt, -arm64)               trixie-backports' 7.3.x+deb13 (gcc-14)
#   next (-rt, -arm64)              the newest kernel any suite serves,
#                                   experimental's release candidates
#                                   included (scripts/check/check-next.sh)
#   6.12-debug                      built here (scripts/kernels/debug-kernel.sh)
# The -rt flavours are Debian's PREEMPT_RT kernels, the -arm64 ones its
# arm64 kernels (dpkg --add-architecture arm64, done by scripts/deps/deps.sh).
# Each KVER is resolved at run time, to the newest ABI its suite serves
# (e.g. 6.1.0-56-rt-amd64): bookworm's from their metapackages
#   6.1 linux-image-amd64, 6.12 linux-image-6.12-amd64,
#   6.1-rt linux-image-rt-amd64, 6.12-rt linux-image-6.12-rt-amd64,
#   6.1-arm64 linux-image-arm64:arm64, 6.12-arm64 linux-image-6.12-arm64:arm64,
# through the host's apt; the others from their suite's package index,
# through the apt of that suite's build root (scripts/kernels/suite-chroot.sh): the
# newest linux-headers-VERSION-FLAVOUR of the series.  An rt kernel's
# headers depend on linux-headers-<ver>-common-rt.  An arm64 kernel's
# headers are built with the amd64 linux-kbuild (its host tools run here;
# the arm64 package's do not) and a cross compiler (scripts/kernels/fetch-cross.sh
# for bookworm's, the suite's gcc-NN-aarch64-linux-gnu in its build root
# for the others).
#
# Kernels newer than bookworm's need their suite's C library and compiler
# to build modules: their headers tree holds .slabtrace-suite, naming the
# suite, and scripts/kbuild/kbuild.sh builds in that suite's root
# (scripts/kernels/in-chroot.sh).  Their packages are laid out two ways: 6.12+deb13
# as bookworm's (linux-image-ABI-unsigned, boot/vmlinuz-ABI), 7.x as
# linux-binary-unsigned-ABI with the image at usr/lib/modules/ABI/vmlinuz
# (vmlinuz.unsigned in the unsigned package).
#
# Layout of the result ($SLABTRACE_CACHE/kernels/<abi>/, or <abi>_<version>
# for the kernels of a build root: experimental's ABI, e.g. 7.3-amd64, is
# the same for every release candidate):
#   vmlinuz           the kernel to boot
#   modules/          /lib/modules/<abi> of the image (for modules.dep etc.)
#   build             -> the relocated headers tree (KDIR)
#   abi               the ABI string, e.g. 6.1.0-56-amd64
#   suite             the suite it came from (bookworm for the host's)
#   version           the package version, e.g. 7.3.4-1~bpo13+1
#   busybox           (arm64 only) Debian's busybox-static:arm64, for the
#                     guest's initramfs (x86-64 guests use the host's)
#
# 6.12-debug is no Debian package but a kernel built here, with lockdep,
# KASAN and PREEMPT_RT, in the same layout: scripts/kernels/debug-kernel.sh.
set -eu

kver=${1:?usage: $0 KVER (6.1, 6.12, 6.12-deb13, 7.2, 7.3, next; -rt, -arm64; 6.12-debug)}
[ "$kver" != 6.12-debug ] || exec "$(dirname "$0")/debug-kernel.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}

# qa: the arch qualifier of the image and headers packages; flav: the
# flavour's name in the ABI.
qa=
flav=amd64
case $kver in
*-rt)	flav=rt-amd64 ;;
*-arm64) flav=arm64 qa=:arm64 ;;
esac
# suite: where a kernel newer than bookworm's comes from; series: the
# versions of its headers packages (grep -E).
suite=bookworm
series=
also=
case $kver in
6.1)	meta=linux-image-amd64 ;;
6.12)	meta=linux-image-6.12-amd64 ;;
6.1-rt)	meta=linux-image-rt-amd64 ;;
6.12-rt) meta=linux-image-6.12-rt-amd64 ;;
6.1-arm64) meta=linux-image-arm64 ;;
6.12-arm64) meta=linux-image-6.12-arm64 ;;
6.12-deb13|6.12-deb13-rt|6.12-deb13-arm64)
	suite=trixie series='6\.12\.[0-9]+\+deb13' ;;
# A series leaves a suite when a newer one comes: the others that may
# still serve it follow, "SUITE:SERIES" each (the first today's).
7.2|7.2-rt|7.2-arm64)
	suite=sid series='7\.2\.[0-9]+\+deb14'
	also='forky:7\.2\.[0-9]+\+deb14 trixie:7\.2\.[0-9]+\+deb13' ;;
7.3|7.3-rt|7.3-arm64)
	suite=trixie series='7\.3\.[0-9]+\+deb13'
	also='forky:7\.3\.[0-9]+\+deb14 sid:7\.3\.[0-9]+\+deb14' ;;
next|next-rt|next-arm64)
	# "SUITE ABI-without-flavour" of the newest headers package
	set -- $("$top/scripts/check/check-next.sh" --find)
	[ $# -eq 2 ] || { echo "fetch-kernel: cannot find the newest kernel" >&2; exit 1; }
	suite=$1 series=$(echo "$2" | sed 's/[.+]/\\&/g') ;;
*)	echo "fetch-kernel: unknown KVER '$kver' (want 6.1, 6.12, 6.12-deb13, 7.2, 7.3 or next, each also as -rt and -arm64, or 6.12-debug)" >&2
	exit 1 ;;
esac

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

# apt: the host's apt for bookworm's kernels, the build root's for the
# others (the same commands, another index).
apt() {
	if [ "$suite" = bookworm ]; then
		"$@"
	else
		"$top/scripts/kernels/in-chroot.sh" "$suite" "$@"
	fi
}

# depends PKG PATTERN: the first dependency of PKG matching PATTERN, without
# the arch qualifier and the <> apt-cache puts around arch: all packages
# asked for with one.
depends() {
	apt apt-cache depends "$1" 2>/dev/null | sed -e 's/:[a-z0-9]*>\{0,1\}$//' -e 's/<//' |
		sed -n "s/^ *|\{0,1\}Depends: \($2\)\$/\1/p" | head -n 1
}

if [ "$suite" = bookworm ]; then
	# linux-image-6.1.0-56-amd64 -> 6.1.0-56-amd64; the index may be
	# stale on a fresh machine, so refresh it once if the metapackage is
	# unknown.
	img=$(depends "$meta$qa" 'linux-image-[0-9].*')
	if [ -z "$img" ]; then
		$sudo apt-get update -qq >&2
		img=$(depends "$meta$qa" 'linux-image-[0-9].*')
	fi
	[ -n "$img" ] || { echo "fetch-kernel: cannot resolve $meta" >&2; exit 1; }
	abi=${img#linux-image-}
	dir=$cache/kernels/$abi
else
	# The newest ABI of the series: linux-headers-7.2.13+deb14-amd64
	# -> 7.2.13+deb14-amd64.
	newest() {
		apt apt-cache pkgnames linux-headers- | grep -E "^linux-headers-($series)-$flav\$" |
			sed 's/^linux-headers-//' | sort -V | tail -n 1
	}
	abi=$(newest)
	if [ -z "$abi" ]; then
		apt apt-get update -qq >&2
		abi=$(newest)
	fi
	for next in ${also:-}; do
		[ -z "$abi" ] || break
		echo "fetch-kernel: $suite serves no linux-headers-*-$flav of /$series/: trying ${next%%:*}" >&2
		suite=${next%%:*} series=${next#*:}
		abi=$(newest)
		if [ -z "$abi" ]; then
			apt apt-get update -qq >&2
			abi=$(newest)
		fi
	done
	[ -n "$abi" ] || { echo "fetch-kernel: $suite serves no linux-headers-*-$flav of /$series/" >&2; exit 1; }
	ver=$(apt apt-cache show --no-all-versions "linux-headers-$abi$qa" | sed -n 's/^Version: //p' | head -n 1)
	dir=$cache/kernels/${abi}_$ver
	# 7.x: linux-binary-unsigned-ABI; 6.12+deb13: linux-image-ABI-unsigned.
	img=linux-image-$abi
	apt apt-cache show "linux-binary-unsigned-$abi$qa" > /dev/null 2>&1 &&
		img=linux-binary-unsigned-$abi
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
case $img in
linux-image-*) img=$img-unsigned ;;
esac
echo "fetch-kernel: downloading $img $hdr $common $kbuild ($suite)" >&2
# APT::Sandbox::User=root: as root, apt would download as its _apt user,
# which cannot write root's cache; it warns, then downloads as root all
# the same.  The option says so up front (a user other than root has no
# sandbox to leave).
download() {
	(cd "$dir/debs" && apt apt-get download -q -o APT::Sandbox::User=root \
		"$img$qa" "$hdr$qa" \
		"$common" "$kbuild" ${qa:+busybox-static$qa} >&2)
}
# A stale index names versions the mirror no longer has: refresh, retry.
if ! download; then
	# As root in the build root, which has no sudo.
	if [ "$suite" = bookworm ]; then
		$sudo apt-get update -qq >&2
	else
		apt apt-get update -qq >&2
	fi
	download
fi
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done

# The arch headers' Makefile includes the common tree by absolute path
# (and 7.x's names itself, as KBUILD_OUTPUT).
root=$dir/root
sed -i "s#^\(include \|KBUILD_OUTPUT=\)/usr/src/#\1$root/usr/src/#" \
	"$root/usr/src/$hdr/Makefile"
# scripts/ and tools/ of linux-kbuild are symlinked via /usr/lib/linux-kbuild-*
find "$root/usr/src" -maxdepth 2 -type l | while read -r l; do
	t=$(readlink "$l")
	case $t in
	/*) ln -sfn "$root$t" "$l" ;;
	esac
done

ln -sfn "$root/usr/src/$hdr" "$dir/build"
ln -sfn "$root/lib/modules/$abi" "$dir/modules"
if [ -e "$root/boot/vmlinuz-$abi" ]; then
	ln -sfn "$root/boot/vmlinuz-$abi" "$dir/vmlinuz"
elif [ -e "$root/usr/lib/modules/$abi/vmlinuz" ]; then
	ln -sfn "$root/usr/lib/modules/$abi/vmlinuz" "$dir/vmlinuz"
else
	# linux-binary-unsigned's name for it
	ln -sfn "$root/usr/lib/modules/$abi/vmlinuz.unsigned" "$dir/vmlinuz"
fi
[ -e "$dir/vmlinuz" ] || { echo "fetch-kernel: no vmlinuz in $img" >&2; exit 1; }
[ -e "$root/lib/modules/$abi" ] || ln -sfn "$root/usr/lib/modules/$abi" "$dir/modules"
[ -z "$qa" ] || ln -sfn "$root/bin/busybox" "$dir/busybox"
[ -e "$dir/busybox" ] || [ -z "$qa" ] || ln -sfn "$root/usr/bin/busybox" "$dir/busybox"
# The build runs in the suite's root (scripts/kbuild/kbuild.sh).
[ "$suite" = bookworm ] || echo "$suite" > "$root/usr/src/$hdr/.slabtrace-suite"
echo "$abi" > "$dir/abi"
echo "$suite" > "$dir/suite"
echo "${ver:-$(dpkg-deb -f "$dir/debs/$hdr"_*.deb Version 2> /dev/null)}" > "$dir/version"
rm -rf "$dir/debs"
touch "$dir/.done"
echo "$dir"
