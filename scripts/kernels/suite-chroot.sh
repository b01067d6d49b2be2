#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A build root of one Debian suite, for the kernels whose kbuild programs
# (modpost, objtool, fixdep) need a newer C library than the host's and
# whose headers name a newer compiler: debootstrap'ed once into the cache,
# shared by every worktree (flock).  Prints its directory.
#
#   scripts/kernels/suite-chroot.sh trixie|forky|sid[-deb]
#
# SUITE-deb is another root of that suite, for building slabtrace's
# Debian packages for it (scripts/tests/test_realdeb.sh): what
# debian/control's Build-Depends name (apt-get build-dep), lintian, and the
# tools' optional pprof encoder's libraries.
#
# What is in it: minbase, the kernel build's needs (make, the suite's gcc
# and its arm64 cross compiler, libelf-dev, dwarves, bc, kmod, perl), and
# an apt that knows the suite, its -backports (trixie) or experimental
# (sid, pinned below sid, so nothing installs from it unasked) and the
# arm64 architecture: scripts/kernels/fetch-kernel.sh and
# scripts/check/compat.sh ask it for the suite's kernel packages (apt-get download, dpkg-deb -x; nothing
# is installed from them).  The archive's Release files of the suites
# that move carry a Valid-Until date this machine's clock may be past:
# apt runs with Acquire::Check-Valid-Until=false.
#
# scripts/kernels/in-chroot.sh runs a command in it, with /proc mounted (objtool
# reads /proc/self) and the cache and the checkout bound at their own
# paths, in a mount namespace of its own (nothing stays mounted).
#
# The root is made again when what it is made of changes (a hash of the
# suite, mirror and packages is kept in .done).  Measured here: 1.5 to 3 minutes per suite, about 600 MB.
set -eu
name=${1:?usage: suite-chroot.sh trixie|forky|sid[-deb]}
suite=${name%-deb}
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
mirror=${SLABTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
case $suite in
trixie)	gcc=gcc-14 extra="deb $mirror trixie-backports main" ;;
forky)	gcc=gcc-16 extra= ;;
sid)	gcc=gcc-16 extra="deb $mirror experimental main" ;;
*)	echo "suite-chroot: unknown suite '$suite' (trixie, forky or sid)" >&2
	exit 1 ;;
esac
dir=$cache/chroot/$name
pkgs="make $gcc gcc libc6-dev libelf-dev perl dwarves bc kmod $gcc-aarch64-linux-gnu xz-utils"
builddep=
if [ "$name" != "$suite" ]; then
	pkgs="make gcc libc6-dev lintian protobuf-c-compiler libprotobuf-c-dev zlib1g-dev fakeroot"
	builddep=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$top/debian/control")
fi
# What the root is made of: a change makes it again.
key=$(echo "$suite $mirror $extra $pkgs${builddep:+ $builddep}" | sha256sum | cut -c1-12)
if [ "$(cat "$dir/.done" 2> /dev/null)" = "$key" ]; then
	echo "$dir"
	exit 0
fi

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
if ! PATH=$PATH:/usr/sbin:/sbin command -v debootstrap > /dev/null; then
	echo "suite-chroot: installing debootstrap" >&2
	$sudo apt-get install -y -qq debootstrap >&2
fi
mkdir -p "$cache/chroot"
exec 9> "$cache/chroot/$name.lock"
flock 9
if [ "$(cat "$dir/.done" 2> /dev/null)" = "$key" ]; then
	echo "$dir"
	exit 0
fi
start=$(date +%s)
tmp=$dir.tmp
$sudo rm -rf "$tmp"
mkdir -p "$tmp"
echo "suite-chroot: debootstrap $suite into $dir" >&2
# Debian 12's debootstrap has no script of forky's: sid's makes it.
script=
[ -e "/usr/share/debootstrap/scripts/$suite" ] || script=/usr/share/debootstrap/scripts/sid
# shellcheck disable=SC2086
$sudo debootstrap --variant=minbase --arch=amd64 "$suite" "$tmp" "$mirror" $script \
	> "$cache/chroot/$name.log" 2>&1 || {
	echo "suite-chroot: debootstrap failed; see $cache/chroot/$name.log" >&2
	tail -n 20 "$cache/chroot/$name.log" >&2
	exit 1
}
{
	echo "deb $mirror $suite main"
	[ -z "$extra" ] || echo "$extra"
} | $sudo tee "$tmp/etc/apt/sources.list" > /dev/null
if [ "$suite" = sid ]; then
	printf 'Package: *\nPin: release a=experimental\nPin-Priority: 1\n' |
		$sudo tee "$tmp/etc/apt/preferences.d/experimental" > /dev/null
fi
echo 'Acquire::Check-Valid-Until "false";' |
	$sudo tee "$tmp/etc/apt/apt.conf.d/99slabtrace" > /dev/null
$sudo cp /etc/resolv.conf "$tmp/etc/resolv.conf"
if [ -n "$builddep" ]; then
	mkdir -p "$tmp/tmp/control/debian"
	cp "$top/debian/control" "$tmp/tmp/control/debian/control"
	builddep="&& DEBIAN_FRONTEND=noninteractive chroot '$tmp' apt-get build-dep -y -q /tmp/control"
fi
$sudo unshare --mount --propagation private sh -c "
	mount -t proc proc '$tmp/proc' &&
	chroot '$tmp' dpkg --add-architecture arm64 &&
	chroot '$tmp' apt-get update -q &&
	DEBIAN_FRONTEND=noninteractive chroot '$tmp' apt-get install -y -q \
		--no-install-recommends $pkgs $builddep" \
	>> "$cache/chroot/$name.log" 2>&1 || {
	echo "suite-chroot: installing the build's packages in $name failed; see $cache/chroot/$name.log" >&2
	tail -n 20 "$cache/chroot/$name.log" >&2
	exit 1
}
$sudo rm -rf "$tmp/var/cache/apt/archives/"*.deb
$sudo rm -rf "$dir"
mv "$tmp" "$dir"
echo "$key" > "$dir/.done"
echo "suite-chroot: $name ready in $(($(date +%s) - start)) s" >&2
echo "$dir"
