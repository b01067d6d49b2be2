#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make compat: build slabtrace.ko (W=1) against every linux-headers package
# of every Debian suite that ships a kernel slabtrace supports: bookworm
# (with bookworm-security: 6.1 and 6.12+deb12, gcc-12), trixie (6.12+deb13)
# and trixie-backports (7.x, gcc-14), forky and sid (7.x, gcc-16) and
# experimental (the release candidates) — amd64 and arm64 flavours,
# resolved now from each suite's package index (apt-cache pkgnames), not
# from a list kept here.  Prints a table (package, suite, result,
# warnings, seconds) and writes it to build/compat.txt.
#
#   scripts/check/compat.sh [REGEX]
#
# REGEX (grep -E) keeps only the packages whose name matches, e.g.
# '6\.12\.117|6\.1\.0-56|7\.3\.4' for the newest ABIs.  Packages are
# downloaded and unpacked once into $SLABTRACE_CACHE/compat/ (apt-get
# download + dpkg-deb -x, nothing installed); the common headers and
# linux-kbuild are shared by the flavours of an ABI.  A package's
# linux-kbuild is the archive's candidate of the name it depends on: the
# 6.1 ABIs all depend on linux-kbuild-6.1, and the archive keeps only the
# newest (it builds for the older ABIs too).  arm64 headers are used with
# the amd64 linux-kbuild (its programs run here) and a cross compiler:
# scripts/kernels/fetch-cross.sh's gcc-12 for bookworm's, the suite's own
# gcc-NN-aarch64-linux-gnu for the others.
#
# Bookworm's packages are built on this (Debian 12) host with its apt.
# The others come from the apt of their suite's build root
# (scripts/kernels/suite-chroot.sh) and are built there, with that suite's
# compiler and C library (their kbuild programs need glibc >= 2.38):
# scripts/kbuild/kbuild.sh does so for a headers tree holding .slabtrace-suite.
# A package two suites serve is built once, in the first.
#
# The result is "ok", "warnings" (built, but the compiler or modpost
# warned; the count is of warning lines) or "FAIL" (no module; the
# package is named on a FAIL line with the end of its log).  The last
# line is "compat: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/deps/deps.sh" compat || exit 1
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
filter=${1:-.}
store=$cache/compat
out=$top/build/compat
table=$top/build/compat.txt
mkdir -p "$store" "$out"

suites=${COMPAT_SUITES:-bookworm trixie forky sid}

# apt SUITE COMMAND...: a command of the suite's apt (the host's for
# bookworm, else in the suite's build root).
apt() {
	a_suite=$1
	shift
	if [ "$a_suite" = bookworm ]; then
		"$@"
	else
		"$top/scripts/kernels/in-chroot.sh" "$a_suite" "$@"
	fi
}

# packages SUITE: the suite's flavour packages, linux-headers-<abi>-<flavour>
# (not -common*, not the metapackages: a real one depends on a
# linux-kbuild), one "name suite" a line.
packages() {
	apt "$1" sh -c '
		apt-cache pkgnames linux-headers- |
		grep -E "^linux-headers-[0-9][^ ]*-(amd64|arm64|arm64-16k)\$" |
		grep -Ev -- "-common(-rt)?\$" | sort -u |
		xargs apt-cache show --no-all-versions 2> /dev/null |
		awk "/^Package: /{p=\$2} /^Depends: .*linux-kbuild-/{print p}"' |
		sort -u | sed "s/\$/ $1/"
}

pkgs=
for suite in $suites; do
	pkgs="$pkgs
$(packages "$suite")"
done
# The first suite of a package builds it; the filter; newest last.
pkgs=$(echo "$pkgs" | sed '/^$/d' | awk '!seen[$1]++' |
	awk -v re="$filter" '$1 ~ re' | sort -V)
[ -n "$pkgs" ] || { echo "compat: no headers package matches '$filter'" >&2; exit 1; }

# arch PKG: the architecture a flavour package is built for.
arch() {
	case $1 in
	*-arm64|*-arm64-16k) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# unpack NAME[:ARCH]: download and unpack the archive's candidate of a
# package (of $suite) into $store/debs/NAME_VERSION_ARCH/ (once); prints
# the directory.
unpack() {
	v=$(apt "$suite" apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1)
	[ -n "$v" ] || { echo "compat: $1 is not in the archive" >&2; return 1; }
	d=$store/debs/${1%%:*}_${v}_$(echo "$1:amd64" | cut -d: -f2)
	if [ ! -f "$d/.done" ]; then
		rm -rf "$d.tmp"
		mkdir -p "$d.tmp"
		(cd "$d.tmp" && apt "$suite" apt-get download -q "$1" > /dev/null 2>&1) ||
			{ echo "compat: cannot download $1" >&2; rm -rf "$d.tmp"; return 1; }
		dpkg-deb -x "$d.tmp"/*.deb "$d.tmp/root" && rm -f "$d.tmp"/*.deb &&
			touch "$d.tmp/.done" && rm -rf "$d" && mv "$d.tmp" "$d" ||
			{ echo "compat: cannot unpack $1" >&2; return 1; }
	fi
	echo "$d/root"
}

# depends PKG PATTERN: PKG's first dependency matching PATTERN.
depends() {
	apt "$suite" apt-cache depends "$1" 2>/dev/null | sed -e 's/:[a-z0-9]*>\{0,1\}$//' -e 's/<//' |
		sed -n "s/^ *|\{0,1\}Depends: \($2\)\$/\1/p" | head -n 1
}

# kdir PKG: a headers tree of PKG ready for kbuild; prints it.
kdir() {
	a=$(arch "$1")
	q=
	[ "$a" = amd64 ] || q=:$a
	common=$(depends "$1$q" 'linux-headers-.*-common\(-rt\)\{0,1\}')
	kbuild=$(depends "$1$q" 'linux-kbuild-.*')
	[ -n "$common" ] && [ -n "$kbuild" ] ||
		{ echo "compat: cannot resolve the dependencies of $1" >&2; return 1; }
	h=$(unpack "$1$q") && c=$(unpack "$common") && k=$(unpack "$kbuild") || return 1
	src=$h/usr/src/$1
	# The headers' Makefile includes the common tree by absolute path,
	# and scripts/ and tools/ link to linux-kbuild (../../lib/... from
	# /usr/src/X, or /usr/lib/...): point them here.
	sed -i -e "s|^include /usr/src/|include $c/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$h/usr/src/|" "$src/Makefile"
	find "$src" "$c/usr/src" -maxdepth 2 -type l | while read -r l; do
		t=$(readlink "$l")
		case $t in
		/usr/lib/*) ln -sfn "$k$t" "$l" ;;
		../../lib/*) ln -sfn "$k/usr/${t#../../}" "$l" ;;
		esac
	done
	# Built in the suite's root (scripts/kbuild/kbuild.sh).
	if [ "$suite" = bookworm ]; then
		rm -f "$src/.slabtrace-suite"
	else
		echo "$suite" > "$src/.slabtrace-suite"
	fi
	echo "$src"
}

cross=
npass=0
nfail=0
printf '%-44s %-8s %-8s %8s %7s\n' package suite result warnings seconds > "$table.tmp"
echo "compat: $(echo "$pkgs" | wc -l) packages" >&2
echo "$pkgs" > "$out/packages.txt"
while read -r p suite <&3; do
	start=$(date +%s)
	b=$out/$p
	args=
	path=$PATH
	if [ "$(arch "$p")" = arm64 ]; then
		if [ "$suite" = bookworm ]; then
			[ -n "$cross" ] || cross=$("$top/scripts/kernels/fetch-cross.sh") || exit 1
			path=$cross:$PATH
		fi
		args=CROSS_COMPILE=aarch64-linux-gnu-
	fi
	res=FAIL
	nwarn=-
	if k=$(kdir "$p"); then
		rm -rf "$b"
		"$top/scripts/kbuild/shadow-tree.sh" "$b"
		# shellcheck disable=SC2086
		if PATH=$path WERROR=0 "$top/scripts/kbuild/kbuild.sh" "$k" "$b" $args \
			modules > "$b.log" 2>&1 && [ -f "$b/slabtrace.ko" ]; then
			nwarn=$(grep -Ei 'warning' "$b/.kbuild.log" |
				grep -vc 'Skipping BTF generation')
			res=ok
			[ "$nwarn" -eq 0 ] || res=warnings
		fi
	fi
	secs=$(($(date +%s) - start))
	printf '%-44s %-8s %-8s %8s %7s\n' "$p" "$suite" "$res" "$nwarn" "$secs" | tee -a "$table.tmp"
	if [ "$res" = ok ]; then
		npass=$((npass + 1))
		rm -rf "$b" "$b.log"
	else
		echo "FAIL: compat: $p (log: ${b#"$top"/}.log)"
		[ ! -f "$b.log" ] || tail -n 5 "$b.log" | sed 's/^/    /'
		nfail=$((nfail + 1))
	fi
done 3< "$out/packages.txt"
mv "$table.tmp" "$table"
echo "compat: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
