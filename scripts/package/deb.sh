#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make deb: slabtrace's Debian packages, built with debhelper and dh-dkms
# (debian/) from a copy of this tree in build/deb/, and checked by lintian.
#
#   scripts/package/deb.sh
#
# Leaves in build/deb/: slabtrace-dkms_VERSION_all.deb (the module's
# source and dkms.conf in /usr/src/slabtrace-VERSION: DKMS builds, signs
# and installs the module when the package is installed),
# slabtrace-tools_VERSION_ARCH.deb, the .changes and .buildinfo, and
# lintian.txt.  VERSION is dkms.conf's PACKAGE_VERSION; debian/changelog
# must name the same version.  Fails if lintian reports an error.  The copy
# has no build/, no version-control files and nothing .gitignore names.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
# SLABTRACE_DEB_OUT: another directory (test_realdeb.sh builds each
# Debian release's packages on that release, in build/deb-SUITE/).
out=${SLABTRACE_DEB_OUT:-$top/build/deb}
cd "$top"

for tool in dpkg-buildpackage dh dh_dkms lintian; do
	command -v "$tool" > /dev/null || {
		echo "make deb: $tool is missing: apt install debhelper dh-dkms lintian (scripts/deps/deps.sh deb installs them)" >&2
		exit 1
	}
done
# dpkg-buildpackage would stop on them too, in its log: say it here.
if ! missing=$(dpkg-checkbuilddeps 2>&1); then
	missing=$(echo "$missing" | sed -n 's/.*Unmet build dependencies: //p' |
		sed 's/ ([^)]*)//g')
	echo "make deb: missing build dependencies: sudo apt install $missing (debian/control's Build-Depends)" >&2
	exit 1
fi
version=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' dkms.conf)
changelog=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "$changelog" != "$version" ]; then
	echo "make deb: debian/changelog is at version $changelog, dkms.conf at $version: add a changelog entry for $version (dch -v $version)" >&2
	exit 1
fi

rm -rf "$out"
src=$out/slabtrace-$version
mkdir -p "$src"
tar --exclude=./build --exclude=__pycache__ --exclude-vcs --exclude-vcs-ignores -cf - . |
	tar -C "$src" -xf -
echo "make deb: building slabtrace $version in $src"
(cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log"
	echo "make deb: dpkg-buildpackage failed; see $out/build.log" >&2
	exit 1
}
rm -rf "$src"
changes=$(ls "$out"/slabtrace_"$version"_*.changes)
rc=0
lintian --fail-on error "$changes" > "$out/lintian.txt" 2>&1 || rc=$?
cat "$out/lintian.txt"
if [ "$rc" -ne 0 ]; then
	echo "make deb: lintian reports errors (above, and in $out/lintian.txt)" >&2
	exit 1
fi
ls "$out"/*.deb
