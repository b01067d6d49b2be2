#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The root file system of make bench-peers: a debootstrap'ed Debian bookworm
# with the peer tools slabtrace is measured against (bpftrace, bcc's
# memleak-bpfcc, libbpf-tools, strace, perf, trace-cmd) and the 6.12 headers
# at /lib/modules/ABI/build (bcc compiles its programs against them in the
# guest), packed as an uncompressed cpio initramfs.  Prints its path.
#
#   scripts/peers-rootfs.sh [KVER]        (KVER: 6.12, the default, or 6.1)
#
# Cached in $SLABTRACE_CACHE/peers/KEY/ (default ~/.cache/slabtrace/peers):
# KEY is a hash of this script and the kernel's ABI, so the rootfs is built
# again only when either changes.  Needs root (debootstrap, chroot) and the
# network; installs debootstrap on the host (apt-get) if it is missing.
# Packages come from the bookworm archive; nothing is installed on the host
# but debootstrap.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:-6.12}
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
mirror=${SLABTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs=bpftrace,bpfcc-tools,libbpf-tools,strace,linux-perf,trace-cmd,busybox-static,coreutils,procps,python3

kdir=$("$top/scripts/fetch-kernel.sh" "$kver")
abi=$(cat "$kdir/abi")
key=$( (cat "$0"; echo "$abi") | sha256sum | cut -c1-12)
dir=$cache/peers/$key
if [ -f "$dir/.done" ]; then
	echo "$dir/rootfs.cpio"
	exit 0
fi

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
if ! command -v debootstrap > /dev/null; then
	echo "peers-rootfs: installing debootstrap" >&2
	$sudo apt-get install -y -qq debootstrap >&2
fi

mkdir -p "$cache/peers"
exec 9> "$cache/peers/$key.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$dir/rootfs.cpio"
	exit 0
fi
# One rootfs at a time (570 MB): drop the ones of older scripts.
for old in "$cache"/peers/*/; do
	[ "${old%/}" = "$dir" ] || $sudo rm -rf "$old"
done
$sudo rm -rf "$dir"
mkdir -p "$dir"
root=$dir/root

echo "peers-rootfs: debootstrap bookworm into $root" >&2
$sudo debootstrap --variant=minbase --include="$pkgs" bookworm "$root" "$mirror" \
	> "$dir/debootstrap.log" 2>&1 || {
	echo "peers-rootfs: debootstrap failed; see $dir/debootstrap.log" >&2
	tail -n 20 "$dir/debootstrap.log" >&2
	exit 1
}

# The kernel headers, as Debian's linux-headers packages lay them out:
# fetch-kernel.sh relocated them under the cache, put them back.
src=$kdir/root
$sudo mkdir -p "$root/usr/src" "$root/usr/lib" "$root/lib/modules/$abi"
for d in "$src"/usr/src/*; do
	$sudo cp -a "$d" "$root/usr/src/"
done
for d in "$src"/usr/lib/linux-kbuild-*; do
	[ -e "$d" ] && $sudo cp -a "$d" "$root/usr/lib/"
done
$sudo sed -i "s|^include $src/usr/src/|include /usr/src/|" \
	"$root/usr/src/linux-headers-$abi/Makefile"
find "$root/usr/src" -maxdepth 2 -type l | while read -r l; do
	t=$(readlink "$l")
	case $t in
	"$src"/*) $sudo ln -sfn "${t#"$src"}" "$l" ;;
	esac
done
# build and source, as the image package has them (bcc reads kconfig.h
# and the other common headers through source).
$sudo ln -sfn "/usr/src/linux-headers-$abi" "$root/lib/modules/$abi/build"
$sudo ln -sfn "$(readlink "$src/lib/modules/$abi/source")" "$root/lib/modules/$abi/source"
# System.map and config where bcc and perf look for them.
[ -e "$src/boot/System.map-$abi" ] && $sudo cp "$src/boot/System.map-$abi" "$root/boot/"
[ -e "$src/boot/config-$abi" ] && $sudo cp "$src/boot/config-$abi" "$root/boot/"

# Weight the guest does not need.
$sudo rm -rf "$root"/usr/share/doc "$root"/usr/share/man "$root"/usr/share/locale \
	"$root"/usr/share/info "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
	"$root"/var/lib/apt/lists/*_Packages

# Versions, for the benchmark's page.
$sudo chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' \
	bpftrace bpfcc-tools libbpf-tools strace linux-perf trace-cmd busybox-static \
	> "$dir/versions.txt" 2>/dev/null || true

(cd "$root" && $sudo find . | $sudo cpio -o -H newc --quiet) > "$dir/rootfs.cpio.tmp"
mv "$dir/rootfs.cpio.tmp" "$dir/rootfs.cpio"
$sudo rm -rf "$root"
touch "$dir/.done"
echo "peers-rootfs: $(du -h "$dir/rootfs.cpio" | cut -f1) initramfs" >&2
echo "$dir/rootfs.cpio"
