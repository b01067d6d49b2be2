#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make deb and the release's one version: dkms.conf's PACKAGE_VERSION is
# the module's MODULE_VERSION, debian/changelog's version, both packages',
# the packaged dkms.conf's, and what slabtrace --version and slabtrace(8)
# say.  The packages: lintian finds no error; slabtrace-dkms has the
# module's source and dkms.conf in /usr/src/slabtrace-VERSION (and no
# object file), hands it to DKMS when installed (dh_dkms's postinst) and
# builds with the Makefile against the 6.12 headers, warning-free;
# slabtrace-tools has every program make tools builds (dynamically linked),
# slabtrace-flamegraph and every man page of Documentation/.  make deb leaves the
# tree as it found it.  The last line is "deb: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
t=$top/build/deb-test
T=deb
. scripts/tests/lib.sh
# has WHAT FILE PATTERN: FILE has a line matching PATTERN.
has() {
	if grep -q "$3" "$2"; then pass "$1"; else fail "$1"; fi
}

rm -rf "$t"
mkdir -p "$t"
v=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' dkms.conf)
[ -n "$v" ] || fail "no PACKAGE_VERSION in dkms.conf"
arch=$(dpkg --print-architecture)
git status --porcelain --ignored=no > "$t/status.before" 2>&1

# --- The version, everywhere.
expect "debian/changelog's version is dkms.conf's" "$v" \
	"$(dpkg-parsechangelog -l debian/changelog -S Version)"
# A build of its own: make check's build/6.12 is the test build.
make -s --no-print-directory KVER=6.12 BUILD="$(pwd)/build/6.12-deb" modules || fail "make KVER=6.12"
expect "MODULE_VERSION is dkms.conf's" "$v" "$(modinfo -F version build/6.12-deb/slabtrace.ko)"
expect "slabtrace(8) is of this version" "slabtrace $v" \
	"$(sed -n 's/^\.TH [^"]*"[^"]*" "\([^"]*\)".*/\1/p' Documentation/slabtrace.8)"

# --- make deb.
if make -s --no-print-directory deb > "$t/deb.log" 2>&1; then
	pass "make deb (lintian: no error)"
else
	fail "make deb: $(grep "^E: " "$t/deb.log" | head -n 3) $(tail -n 1 "$t/deb.log")"
fi
git status --porcelain --ignored=no > "$t/status.after" 2>&1
if cmp -s "$t/status.before" "$t/status.after"; then
	pass "make deb leaves the tree as it was"
else
	fail "make deb changed the tree: $(diff "$t/status.before" "$t/status.after" | tail -n 3)"
fi
dkms_deb=build/deb/slabtrace-dkms_${v}_all.deb
tools_deb=build/deb/slabtrace-tools_${v}_$arch.deb
for d in "$dkms_deb" "$tools_deb"; do
	if [ -f "$d" ]; then pass "built $d"; else fail "no $d"; fi
done

# --- slabtrace-dkms.
src=usr/src/slabtrace-$v
dpkg-deb -c "$dkms_deb" > "$t/dkms.list" 2>&1
dpkg-deb -f "$dkms_deb" Version Depends > "$t/dkms.fields" 2>&1
has "slabtrace-dkms is version $v" "$t/dkms.fields" "^Version: $v$"
has "slabtrace-dkms depends on dkms" "$t/dkms.fields" "^Depends: dkms"
for f in dkms.conf Makefile Kbuild module/main.c scripts/kbuild.sh; do
	has "slabtrace-dkms has /$src/$f" "$t/dkms.list" " \./$src/$f$"
done
if grep -E '\.(o|ko|mod|cmd|mod\.c)$|/build/|/debian/|/\.git' "$t/dkms.list" > "$t/junk"; then
	fail "slabtrace-dkms ships build products or packaging: $(head -n 3 "$t/junk")"
else
	pass "slabtrace-dkms ships no build product"
fi
dpkg-deb -x "$dkms_deb" "$t/dkms"
expect "its dkms.conf is of version $v" "$v" \
	"$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$t/dkms/$src/dkms.conf")"
dpkg-deb -e "$dkms_deb" "$t/dkms-control"
has "its postinst hands the source to DKMS" "$t/dkms-control/postinst" \
	'^DKMS_VERSION='"$v"'$'
kdir=$(scripts/fetch-kernel.sh 6.12)
if make -s -C "$t/dkms/$src" KDIR="$kdir/build" modules > "$t/build.log" 2>&1; then
	pass "its source builds against the 6.12 headers, warning-free"
else
	fail "its source does not build: $(tail -n 5 "$t/build.log")"
fi
expect "into a module of version $v" "$v" "$(modinfo -F version "$t/dkms/$src/slabtrace.ko" 2>&1)"

# --- slabtrace-tools.
dpkg-deb -c "$tools_deb" > "$t/tools.list" 2>&1
dpkg-deb -x "$tools_deb" "$t/tools"
dpkg-deb -f "$tools_deb" Package Version > "$t/tools.fields" 2>&1
has "slabtrace-tools is version $v" "$t/tools.fields" "^Version: $v$"
for p in "$t"/tools/usr/sbin/*; do
	case $(file -b "$p") in
	*"dynamically linked"*) pass "slabtrace-tools: /usr/sbin/${p##*/}, dynamically linked" ;;
	*) fail "slabtrace-tools: /usr/sbin/${p##*/}: $(file -b "$p")" ;;
	esac
done
make -s --no-print-directory tools > "$t/tools.log" 2>&1 || fail "make tools: $(tail -n 3 "$t/tools.log")"
for p in build/tools/*; do
	has "slabtrace-tools has ${p##*/} (make tools builds it)" "$t/tools.list" " \./usr/sbin/${p##*/}$"
done
has "slabtrace-tools has slabtrace-flamegraph" "$t/tools.list" ' \./usr/bin/slabtrace-flamegraph$'
for m in Documentation/*.[1-8]; do
	has "slabtrace-tools has ${m##*/}" "$t/tools.list" " \./usr/share/man/man${m##*.}/${m##*/}\.gz$"
done
expect "slabtrace --version says $v" "slabtrace $v" \
	"$("$t/tools/usr/sbin/slabtrace" --version 2>&1)"
result
