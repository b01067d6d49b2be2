#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages a target of the Makefile needs, if missing,
# and nothing more: make demo installs what builds the module and boots a
# VM, not what make check's other tests read their output with.
#
#   scripts/deps/deps.sh [--list] [GROUP...]   (default: check, all of them)
#
# --list prints what the groups need, a package a line (and "arch arm64"
# if they need that architecture), and installs nothing.
#
# GROUP is one of (each includes what it names after "+"):
#   build    the module against Debian's headers (fetched into the cache by
#            scripts/kernels/fetch-kernel.sh, never installed) and the tools
#   vm       build + QEMU, busybox and the guest's programs (32-bit ones
#            too: gcc-multilib): make vm-test, make stress
#   demo     vm
#   tools    build + what --pprof and kmemtrace-report need
#            (debian/control's Build-Depends)
#   deb      tools + debhelper, dh-dkms and lintian: make deb
#   arm64    the arm64 kernels: dpkg learns the arm64 architecture (so
#            apt-get download finds arm64 kernels and busybox), the cross
#            binutils and C library (scripts/kernels/fetch-cross.sh unpacks the
#            cross compiler)
#   debug    vm + linux-source-6.12, libssl-dev and libelf-dev: the debug
#            kernel's build (scripts/kernels/debug-kernel.sh; its lockdown LSM
#            selects MODULE_SIG, whose tools need libssl-dev)
#   compat   build + arm64: make compat
#   realdeb  deb + vm + debootstrap: the packages on a Debian system
#   check    everything make check uses: the above, sparse, clang, DKMS,
#            man-db, docutils, babeltrace2, Chromium and Selenium (the
#            flame graph's browser test), Go (go tool pprof, 81 MB with
#            golang-1.19-go and -src) and, unpacked into the cache
#            (scripts/deps/fetch-prometheus.sh), Prometheus' promtool and
#            node_exporter
#
# Never a linux-image or linux-headers package, never a daemon: the
# Prometheus packages would start services listening on ports 9090 and
# 9100 on a systemd machine, so they are not installed, only unpacked.
# Uses sudo unless root.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)

build="make gcc libc6-dev bc flex bison python3 perl xz-utils gzip kmod dwarves libelf-dev"
vm="$build qemu-system-x86 busybox-static cpio gcc-multilib"
tools="$build pkg-config protobuf-c-compiler libprotobuf-c-dev zlib1g-dev libbabeltrace2-dev"
# build-essential: dpkg-checkbuilddeps requires it of every package build.
deb="$tools build-essential debhelper dh-dkms lintian file"
arm64="qemu-system-arm binutils-aarch64-linux-gnu libc6-dev-arm64-cross"
debug="$vm linux-source-6.12 libssl-dev libelf-dev"
realdeb="$deb $vm debootstrap"
check="$debug $deb $arm64 debootstrap sparse clang libclang-rt-14-dev dkms python3-docutils babeltrace2
man-db groff-base chromium chromium-driver python3-selenium golang-go"

pkgs=
need_arm64=
prometheus=
list=
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
[ $# -gt 0 ] || set -- check
for g in "$@"; do
	case $g in
	build) pkgs="$pkgs $build" ;;
	vm | demo | stress) pkgs="$pkgs $vm" ;;
	tools) pkgs="$pkgs $tools" ;;
	deb) pkgs="$pkgs $deb" ;;
	arm64) pkgs="$pkgs $arm64"; need_arm64=1 ;;
	debug) pkgs="$pkgs $debug" ;;
	compat) pkgs="$pkgs $build $arm64"; need_arm64=1 ;;
	realdeb) pkgs="$pkgs $realdeb" ;;
	check) pkgs="$pkgs $check"; need_arm64=1; prometheus=1 ;;
	*)
		echo "deps: unknown group '$g' (build vm demo tools deb arm64 debug compat realdeb check)" >&2
		exit 2 ;;
	esac
done

# shellcheck disable=SC2086
pkgs=$(printf '%s\n' $pkgs | sort -u)
if [ -n "$list" ]; then
	echo "$pkgs"
	[ -z "$need_arm64" ] || echo "arch arm64"
	[ -z "$prometheus" ] || echo "unpacked prometheus prometheus-node-exporter"
	exit 0
fi

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
newarch=
if [ -n "$need_arm64" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "deps: adding the arm64 architecture (for Debian's arm64 kernels)"
	$sudo dpkg --add-architecture arm64
	newarch=1
fi
# A fresh machine's apt-daily may hold apt's locks for a while: install
# waits for the dpkg lock (DPkg::Lock::Timeout), update is tried again.
apt_update() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		$sudo apt-get -o DPkg::Lock::Timeout=900 update -qq && return 0
		echo "deps: apt-get update failed (try $i of 10; apt's lock held?): again in 30 s" >&2
		sleep 30
	done
	return 1
}
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt_update
	# shellcheck disable=SC2086
	$sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing
elif [ -n "$newarch" ]; then
	apt_update
fi
if [ -n "$prometheus" ]; then
	"$top/scripts/deps/fetch-prometheus.sh" > /dev/null
fi
