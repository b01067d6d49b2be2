#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A Debian bookworm root file system for a VM booting one of Debian's
# kernels: debootstrap'ed, made for its use (PROFILE), packed as an
# uncompressed cpio initramfs.  Prints its path.
#
#   scripts/vm/debian-rootfs.sh PROFILE [KVER]     (KVER: 6.12, the default, or 6.1)
#
# PROFILE is
#   peers    make bench-peers's: the peer tools slabtrace is measured
#            against (bpftrace, bcc's memleak-bpfcc, libbpf-tools, strace,
#            perf, trace-cmd) and the kernel's headers at
#            /lib/modules/ABI/build (bcc compiles its programs against them
#            in the guest), copied from scripts/fetch-kernel.sh's cache;
#   realdeb  a Debian system as its user has it, for the real-Debian VM
#            test (scripts/tests/test_realdeb.sh): Debian's sudo with its
#            default /etc/sudoers, the user alice (password "slabtrace")
#            in group sudo, dkms, gcc, make and openssl, what the
#            slabtrace-tools package depends on (python3, libbabeltrace2,
#            libprotobuf-c),
#            and the kernel's image and headers packages installed by apt
#            from bookworm-security, as "apt install
#            linux-headers-$(uname -r)" does.  The image's modules are
#            left out (the VM boots the kernel given to QEMU and needs none
#            of them; 6.1's are 390 MB), and so is its initramfs.
#
# Cached in $SLABTRACE_CACHE/rootfs/PROFILE-ABI-KEY/ (default
# ~/.cache/slabtrace): KEY is a hash of this script, so a root file system
# is built again only when the script changes or Debian's kernel does; the
# older one of the same PROFILE and ABI is then removed.  Needs root
# (debootstrap, chroot) and the network; installs debootstrap on the host
# (apt-get) if it is missing.  Packages come from the bookworm archive
# (SLABTRACE_DEBIAN_MIRROR) and, for the kernel, bookworm-security; nothing
# is installed on the host but debootstrap.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
profile=${1:?usage: debian-rootfs.sh peers|realdeb [KVER]}
kver=${2:-6.12}
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
mirror=${SLABTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${SLABTRACE_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
case $profile in
peers)
	pkgs=bpftrace,bpfcc-tools,libbpf-tools,strace,linux-perf,trace-cmd,busybox-static,coreutils,procps,python3 ;;
realdeb)
	pkgs=sudo,dkms,gcc,make,openssl,kmod,initramfs-tools,python3,libbabeltrace2-0,libprotobuf-c1,procps ;;
*)
	echo "debian-rootfs: unknown profile '$profile' (peers or realdeb)" >&2
	exit 1 ;;
esac

kdir=$("$top/scripts/fetch-kernel.sh" "$kver")
abi=$(cat "$kdir/abi")
key=$(sha256sum < "$0" | cut -c1-12)
dir=$cache/rootfs/$profile-$abi-$key
if [ -f "$dir/.done" ]; then
	echo "$dir/rootfs.cpio"
	exit 0
fi

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
if ! command -v debootstrap > /dev/null; then
	echo "debian-rootfs: installing debootstrap" >&2
	$sudo apt-get install -y -qq debootstrap >&2
fi

mkdir -p "$cache/rootfs"
exec 9> "$cache/rootfs/$profile-$abi.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$dir/rootfs.cpio"
	exit 0
fi
# One root file system per profile and kernel: drop those of older scripts.
for old in "$cache/rootfs/$profile-$abi-"*/; do
	[ "${old%/}" = "$dir" ] || $sudo rm -rf "$old"
done
$sudo rm -rf "$dir"
mkdir -p "$dir"
root=$dir/root
trap '$sudo umount "$root/proc" 2> /dev/null || true' EXIT

echo "debian-rootfs: debootstrap bookworm into $root" >&2
$sudo debootstrap --variant=minbase --include="$pkgs" bookworm "$root" "$mirror" \
	> "$dir/debootstrap.log" 2>&1 || {
	echo "debian-rootfs: debootstrap failed; see $dir/debootstrap.log" >&2
	tail -n 20 "$dir/debootstrap.log" >&2
	exit 1
}

# peers: the kernel headers, as Debian's linux-headers packages lay them
# out: fetch-kernel.sh relocated them under the cache, put them back.
copy_headers() {
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
	# build and source, as the image package has them (bcc reads
	# kconfig.h and the other common headers through source).
	$sudo ln -sfn "/usr/src/linux-headers-$abi" "$root/lib/modules/$abi/build"
	$sudo ln -sfn "$(readlink "$src/lib/modules/$abi/source")" "$root/lib/modules/$abi/source"
	# System.map and config where bcc and perf look for them.
	[ -e "$src/boot/System.map-$abi" ] && $sudo cp "$src/boot/System.map-$abi" "$root/boot/"
	[ -e "$src/boot/config-$abi" ] && $sudo cp "$src/boot/config-$abi" "$root/boot/"
}

# realdeb: the kernel's packages from the archive with apt, in the root;
# the user, the host name.
install_kernel() {
	cat <<-SOURCES | $sudo tee "$root/etc/apt/sources.list" > /dev/null
	deb $mirror bookworm main
	deb $mirror bookworm-updates main
	deb $security bookworm-security main
	SOURCES
	$sudo cp /etc/resolv.conf "$root/etc/resolv.conf"
	$sudo mount -t proc proc "$root/proc"
	# INITRD=No: initramfs-tools' kernel hook makes no initramfs.
	$sudo chroot "$root" sh -c "apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive INITRD=No apt-get install -y -q \
			--no-install-recommends linux-image-$abi-unsigned linux-headers-$abi" \
		> "$dir/kernel.log" 2>&1 || {
		echo "debian-rootfs: apt-get install of $abi's packages failed; see $dir/kernel.log" >&2
		tail -n 20 "$dir/kernel.log" >&2
		exit 1
	}
	$sudo umount "$root/proc"
	$sudo rm -f "$root/etc/resolv.conf"
	$sudo rm -rf "$root/lib/modules/$abi/kernel" "$root/boot/initrd.img-$abi"
	$sudo chroot "$root" useradd -m -s /bin/bash -G sudo alice
	echo alice:slabtrace | $sudo chroot "$root" chpasswd
	echo realdeb | $sudo tee "$root/etc/hostname" > /dev/null
	printf '127.0.0.1\tlocalhost\n127.0.1.1\trealdeb\n' | $sudo tee "$root/etc/hosts" > /dev/null
}

case $profile in
peers) copy_headers ;;
realdeb) install_kernel ;;
esac

# Weight the guest does not need.
$sudo rm -rf "$root"/usr/share/doc "$root"/usr/share/man "$root"/usr/share/locale \
	"$root"/usr/share/info "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
	"$root"/var/lib/apt/lists/*_Packages

# Versions, for the benchmark's page and the test's log.
# shellcheck disable=SC2016,SC2046
$sudo chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' \
	$(echo "$pkgs" | tr , ' ') "linux-image-$abi-unsigned" "linux-headers-$abi" > "$dir/versions.txt" 2>/dev/null || true

(cd "$root" && $sudo find . | $sudo cpio -o -H newc --quiet) > "$dir/rootfs.cpio.tmp"
mv "$dir/rootfs.cpio.tmp" "$dir/rootfs.cpio"
$sudo rm -rf "$root"
touch "$dir/.done"
echo "debian-rootfs: $(du -h "$dir/rootfs.cpio" | cut -f1) initramfs" >&2
echo "$dir/rootfs.cpio"
