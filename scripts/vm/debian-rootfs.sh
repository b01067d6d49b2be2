#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A Debian root file system for a VM booting one of Debian's kernels:
# debootstrap'ed, made for its use (PROFILE), packed as an uncompressed
# cpio initramfs.  Prints its path.  The Debian release is the kernel's:
# bookworm for 6.1 and 6.12, trixie for 6.12-deb13 and 7.3 (from
# trixie-backports, as its users install it), sid for 7.2
# (scripts/kernels/fetch-kernel.sh's suite).
#
#   scripts/vm/debian-rootfs.sh PROFILE [KVER]     (KVER: 6.12, the default)
#
# PROFILE is
#   peers    make bench-peers's: the peer tools slabtrace is measured
#            against (bpftrace, bcc's memleak-bpfcc, libbpf-tools, strace,
#            perf, trace-cmd) and the kernel's headers at
#            /lib/modules/ABI/build (bcc compiles its programs against them
#            in the guest), copied from scripts/kernels/fetch-kernel.sh's cache;
#   realdeb  a Debian system as its user has it, for the real-Debian VM
#            test (scripts/tests/test_realdeb.sh): Debian's sudo with its
#            default /etc/sudoers, the user alice (password "slabtrace")
#            in group sudo, dkms, gcc, make and openssl, what the
#            slabtrace-tools package depends on (python3, libbabeltrace2,
#            libprotobuf-c),
#            and the kernel's image and headers packages installed by apt
#            from its suite (bookworm-security, trixie, trixie-backports),
#            as "apt install linux-headers-$(uname -r)" does (7.x: the
#            image is linux-binary-unsigned-ABI).  The image's modules are
#            left out (the VM boots the kernel given to QEMU and needs none
#            of them; 6.1's are 390 MB), and so is its initramfs.  On
#            trixie's 6.12 also, in /root/refused/, the packages that
#            "apt install linux-headers-ABI" of trixie-backports' newest
#            7.x would install, for the test of a kernel slabtrace does
#            not know (scripts/vm/guest/realdeb.sh).
#
# Cached in $SLABTRACE_CACHE/rootfs/PROFILE-ABI-KEY/ (default
# ~/.cache/slabtrace): KEY is a hash of this script, so a root file system
# is built again only when the script changes or Debian's kernel does; the
# older one of the same PROFILE and ABI is then removed.  Needs root
# (debootstrap, chroot) and the network; installs debootstrap on the host
# (apt-get) if it is missing.  Packages come from the bookworm archive
# (SLABTRACE_DEBIAN_MIRROR) and, for the kernel, bookworm-security; nothing
# is installed on the host but debootstrap.  SLABTRACE_DEBIAN_MIRROR's
# other suites serve trixie and sid.
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

kdir=$("$top/scripts/kernels/fetch-kernel.sh" "$kver")
abi=$(cat "$kdir/abi")
suite=$(cat "$kdir/suite" 2> /dev/null || echo bookworm)
key=$(sha256sum < "$0" | cut -c1-12)
dir=$cache/rootfs/$profile-$abi-$key
if [ -f "$dir/.done" ]; then
	echo "$dir/rootfs.cpio"
	exit 0
fi

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
if ! PATH=$PATH:/usr/sbin:/sbin command -v debootstrap > /dev/null; then
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

echo "debian-rootfs: debootstrap $suite into $root" >&2
$sudo debootstrap --variant=minbase --include="$pkgs" "$suite" "$root" "$mirror" \
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
	case $suite in
	bookworm)
		sources="deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main" ;;
	trixie)
		sources="deb $mirror trixie main
deb $mirror trixie-updates main
deb $security trixie-security main
deb $mirror trixie-backports main" ;;
	*)
		sources="deb $mirror $suite main" ;;
	esac
	echo "$sources" | $sudo tee "$root/etc/apt/sources.list" > /dev/null
	# The suites that move have a Release whose Valid-Until this
	# machine's clock may be past.
	echo 'Acquire::Check-Valid-Until "false";' |
		$sudo tee "$root/etc/apt/apt.conf.d/99slabtrace" > /dev/null
	$sudo cp /etc/resolv.conf "$root/etc/resolv.conf"
	$sudo mount -t proc proc "$root/proc"
	# 7.x's image is linux-binary-unsigned-ABI (trixie-backports' too).
	img=linux-image-$abi-unsigned
	case $abi in 6.*) ;; *) img=linux-binary-unsigned-$abi ;; esac
	# INITRD=No: initramfs-tools' kernel hook makes no initramfs.  apt
	# takes each package from the suite that has it (backports too,
	# when named).
	$sudo chroot "$root" sh -c "apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive INITRD=No apt-get install -y -q \
			--no-install-recommends $img linux-headers-$abi" \
		> "$dir/kernel.log" 2>&1 || {
		echo "debian-rootfs: apt-get install of $abi's packages failed; see $dir/kernel.log" >&2
		tail -n 20 "$dir/kernel.log" >&2
		exit 1
	}
	# trixie's 6.12: the packages of the newest 7.x headers, to install
	# in the guest as a kernel this slabtrace is made not to know.
	if [ "$suite" = trixie ] && [ "${abi#6.12.}" != "$abi" ]; then
		refused=$($sudo chroot "$root" sh -c "apt-cache pkgnames linux-headers-7. |
			grep -E '^linux-headers-7\.[0-9.]+\+deb13-amd64\$' | sort -V | tail -n 1")
		$sudo chroot "$root" sh -c "rm -f /var/cache/apt/archives/*.deb &&
			apt-get install -y -q --download-only --no-install-recommends $refused &&
			mkdir -p /root/refused && mv /var/cache/apt/archives/*.deb /root/refused/" \
			>> "$dir/kernel.log" 2>&1 || {
			echo "debian-rootfs: the packages of $refused could not be downloaded; see $dir/kernel.log" >&2
			exit 1
		}
		echo "${refused#linux-headers-}" | $sudo tee "$root/root/refused/kernel" > /dev/null
	fi
	# The modules' index, as a real system has it: 7.x's image package
	# leaves depmod to a hook that does not run here, and DKMS runs
	# depmod only for a kernel that has a modules.dep.
	$sudo chroot "$root" depmod -a "$abi" >> "$dir/kernel.log" 2>&1 ||
		echo "debian-rootfs: depmod $abi failed; see $dir/kernel.log" >&2
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
