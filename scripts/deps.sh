#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the build and the tests need, if missing.
# Never a linux-image or linux-headers package: scripts/fetch-kernel.sh
# downloads and unpacks those into the cache instead.  libelf-dev and
# libssl-dev: objtool and the module-signing tools that the debug kernel's
# build makes (scripts/debug-kernel.sh; its lockdown LSM selects
# MODULE_SIG).  For the arm64 kernels: dpkg learns the arm64 architecture
# (so apt-get download finds arm64 kernels and busybox), the cross
# binutils and C library are installed, the cross compiler is unpacked by
# scripts/fetch-cross.sh.
# The readers of the tools' pprof and Prometheus output, about 110 MB to
# download (measured: apt-cache's sizes): golang-go (go tool pprof; 81 MB
# with golang-1.19-go and -src), prometheus (promtool; 19 MB, 3 MB more of
# its web UI's JavaScript), prometheus-node-exporter (4 MB); for the pprof
# encoder's build, protobuf-c-compiler and libprotobuf-c-dev (0.1 MB, and
# 1.8 MB of libprotobuf32 and libprotoc32) and zlib1g-dev.  The two
# Prometheus packages start no daemon where no init system runs (a
# container); with systemd they listen on 9090 and 9100, and the tests
# start a node_exporter of their own on another port.
set -eu
pkgs="make gcc libc6-dev bc flex bison python3 perl xz-utils gzip cpio kmod
busybox-static qemu-system-x86 dwarves sparse linux-source-6.12 python3-docutils
gcc-multilib babeltrace2 libbabeltrace2-dev pkg-config
chromium chromium-driver python3-selenium man-db groff-base
qemu-system-arm binutils-aarch64-linux-gnu libc6-dev-arm64-cross clang dkms
libelf-dev libssl-dev debhelper dh-dkms lintian debootstrap file
protobuf-c-compiler libprotobuf-c-dev zlib1g-dev golang-go prometheus
prometheus-node-exporter"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
newarch=
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "deps: adding the arm64 architecture"
	$sudo dpkg --add-architecture arm64
	newarch=1
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ -z "$newarch" ] || $sudo apt-get update -qq
	exit 0
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
