#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make compat: build slabtrace.ko (W=1) against every linux-headers package
# of 6.1 and 6.12 that the apt archive serves, amd64 and arm64 flavours,
# resolved now from the package index (apt-cache pkgnames), not from a
# list kept here.  Prints a table (package, result, warnings, seconds)
# and writes it to build/compat.txt.
#
#   scripts/compat.sh [REGEX]
#
# REGEX (grep -E) keeps only the packages whose name matches, e.g.
# '6\.12\.117|6\.1\.0-56' for the newest ABIs.  Packages are downloaded
# and unpacked once into $SLABTRACE_CACHE/compat/ (apt-get download +
# dpkg-deb -x, nothing installed); the common headers and linux-kbuild are
# shared by the flavours of an ABI.  A package's linux-kbuild is the
# archive's candidate of the name it depends on: the 6.1 ABIs all depend
# on linux-kbuild-6.1, and the archive keeps only the newest (it builds
# for the older ABIs too).  arm64 headers are used with the amd64
# linux-kbuild (its programs run here) and the cross compiler of
# scripts/fetch-cross.sh.
#
# The result is "ok", "warnings" (built, but the compiler or modpost
# warned; the count is of warning lines) or "FAIL" (no module; the
# package is named on a FAIL line with the end of its log).  The last
# line is "compat: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" compat || exit 1
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
filter=${1:-.}
store=$cache/compat
out=$top/build/compat
table=$top/build/compat.txt
mkdir -p "$store" "$out"

# The flavour packages: linux-headers-<abi>, not -common*, not the
# metapackages (linux-headers-6.12-amd64 has no ABI number).
pkgs=$(apt-cache pkgnames linux-headers-6.1 | sort -u |
	grep -E '^linux-headers-(6\.1\.0-[0-9]+|6\.12\.[0-9]+\+deb[0-9]+)-' |
	grep -Ev -- '-common(-rt)?$' | grep -E -- "$filter" | sort -V)
[ -n "$pkgs" ] || { echo "compat: no headers package matches '$filter'" >&2; exit 1; }

# arch PKG: the architecture a flavour package is built for.
arch() {
	case $1 in
	*-arm64|*-arm64-16k) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# unpack NAME[:ARCH]: download and unpack the archive's candidate of a
# package into $store/debs/NAME_VERSION_ARCH/ (once); prints the directory.
unpack() {
	v=$(apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1)
	[ -n "$v" ] || { echo "compat: $1 is not in the archive" >&2; return 1; }
	d=$store/debs/${1%%:*}_${v}_$(echo "$1:amd64" | cut -d: -f2)
	if [ ! -f "$d/.done" ]; then
		rm -rf "$d.tmp"
		mkdir -p "$d.tmp"
		(cd "$d.tmp" && apt-get download -q "$1" > /dev/null 2>&1) ||
			{ echo "compat: cannot download $1" >&2; rm -rf "$d.tmp"; return 1; }
		dpkg-deb -x "$d.tmp"/*.deb "$d.tmp/root" && rm -f "$d.tmp"/*.deb &&
			touch "$d.tmp/.done" && rm -rf "$d" && mv "$d.tmp" "$d" ||
			{ echo "compat: cannot unpack $1" >&2; return 1; }
	fi
	echo "$d/root"
}

# depends PKG PATTERN: PKG's first dependency matching PATTERN.
depends() {
	apt-cache depends "$1" 2>/dev/null | sed -e 's/:[a-z0-9]*>\{0,1\}$//' -e 's/<//' |
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
	sed -i "s|^include /usr/src/|include $c/usr/src/|" "$src/Makefile"
	find "$src" "$c/usr/src" -maxdepth 2 -type l | while read -r l; do
		t=$(readlink "$l")
		case $t in
		/usr/lib/*) ln -sfn "$k$t" "$l" ;;
		../../lib/*) ln -sfn "$k/usr/${t#../../}" "$l" ;;
		esac
	done
	echo "$src"
}

cross=
npass=0
nfail=0
printf '%-44s %-8s %8s %7s\n' package result warnings seconds > "$table.tmp"
echo "compat: $(echo "$pkgs" | wc -l) packages" >&2
for p in $pkgs; do
	start=$(date +%s)
	b=$out/$p
	args=
	path=$PATH
	if [ "$(arch "$p")" = arm64 ]; then
		[ -n "$cross" ] || cross=$("$top/scripts/fetch-cross.sh") || exit 1
		path=$cross:$PATH
		args=CROSS_COMPILE=aarch64-linux-gnu-
	fi
	res=FAIL
	nwarn=-
	if k=$(kdir "$p"); then
		rm -rf "$b"
		"$top/scripts/shadow-tree.sh" "$b"
		# shellcheck disable=SC2086
		if PATH=$path WERROR=0 "$top/scripts/kbuild.sh" "$k" "$b" $args \
			modules > "$b.log" 2>&1 && [ -f "$b/slabtrace.ko" ]; then
			nwarn=$(grep -Ei 'warning' "$b/.kbuild.log" |
				grep -vc 'Skipping BTF generation')
			res=ok
			[ "$nwarn" -eq 0 ] || res=warnings
		fi
	fi
	secs=$(($(date +%s) - start))
	printf '%-44s %-8s %8s %7s\n' "$p" "$res" "$nwarn" "$secs" | tee -a "$table.tmp"
	if [ "$res" = ok ]; then
		npass=$((npass + 1))
		rm -rf "$b" "$b.log"
	else
		echo "FAIL: compat: $p (log: ${b#"$top"/}.log)"
		[ ! -f "$b.log" ] || tail -n 5 "$b.log" | sed 's/^/    /'
		nfail=$((nfail + 1))
	fi
done
mv "$table.tmp" "$table"
echo "compat: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
