#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the build and the tests need, if missing.
# Never a linux-image or linux-headers package: scripts/fetch-kernel.sh
# downloads and unpacks those into the cache instead.
set -eu
pkgs="make gcc libc6-dev bc flex bison python3 perl xz-utils gzip cpio kmod
busybox-static qemu-system-x86 dwarves sparse linux-source-6.12 python3-docutils
gcc-multilib babeltrace2 libbabeltrace2-dev pkg-config
chromium chromium-driver python3-selenium man-db groff-base"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
