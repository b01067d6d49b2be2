#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make deb and the release's one version: dkms.conf's PACKAGE_VERSION is
# the module's MODULE_VERSION, debian/changelog's version, both packages',
# the packaged dkms.conf's, and what slabtrace --version and slabtrace(8)
# say.  The packages: lintian finds no error; slabtrace-dkms has the
# module's source and dkms.conf in /usr/src/slabtrace-VERSION (and no
# object file), hands it to DKMS when installed (dh_dkms's postinst) and
# builds with the Makefile against the 6.12 headers, warning-free; it
# depends on openssl, and its postinst says when the running kernel has no
# headers or runs another slabtrace than DKMS installed, and nothing in a
# chroot; slabtrace-tools has every program make tools builds
# (dynamically linked, with --pprof), slabtrace-flamegraph, in /usr/bin,
# every man page of Documentation/ and the guides in
# /usr/share/doc/slabtrace-tools (where the man pages point); a build
# without a build dependency fails, and make tools' needs are in
# Build-Depends.  make deb leaves the tree as it found it.  The last line is "deb: N passed, N failed".
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
for f in dkms.conf Makefile Kbuild module/main.c scripts/kbuild/kbuild.sh; do
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
kdir=$(scripts/kernels/fetch-kernel.sh 6.12)
if make -s -C "$t/dkms/$src" KDIR="$kdir/build" WERROR=1 modules > "$t/build.log" 2>&1; then
	pass "its source builds against the 6.12 headers, warning-free"
else
	fail "its source does not build: $(tail -n 5 "$t/build.log")"
fi
expect "into a module of version $v" "$v" "$(modinfo -F version "$t/dkms/$src/slabtrace.ko" 2>&1)"

# --- slabtrace-dkms's postinst: after DKMS's part, what is missing for
# the running kernel.  Its own part (after dh_dkms's section), run for a
# kernel without headers and one with them (a fake uname, DPKG_ROOT).
has "slabtrace-dkms depends on openssl (DKMS's signing key)" "$t/dkms.fields" \
	"^Depends: .*\bopenssl\b"
sed -n '/^# End automatically added section/,$p' "$t/dkms-control/postinst" > "$t/own-postinst"
if grep -q 'apt install linux-headers-' "$t/own-postinst"; then
	pass "its postinst checks the running kernel's headers, after DKMS's part"
else
	fail "its postinst has no header check after DKMS's part"
fi
# Fakes: uname; ischroot (exit $FAKE_CHROOT, 1: not a chroot); modinfo
# -F srcversion (the installed module's, $FAKE_SRCV: "" none).
mkdir -p "$t/fakebin" "$t/root/lib/modules/9.8.7-fake/build"
printf '#!/bin/sh\necho 9.8.7-fake\n' > "$t/fakebin/uname"
printf '#!/bin/sh\nexit ${FAKE_CHROOT:-1}\n' > "$t/fakebin/ischroot"
printf '#!/bin/sh\n[ -n "$FAKE_SRCV" ] && echo "$FAKE_SRCV"\n' > "$t/fakebin/modinfo"
chmod 755 "$t/fakebin/uname" "$t/fakebin/ischroot" "$t/fakebin/modinfo"
# postinst ROOT: its own part, run with those fakes, what it says but
# for Secure Boot (which depends on this machine).
postinst() {
	DPKG_ROOT=$1 PATH=$t/fakebin:$PATH sh "$t/own-postinst" configure 2>&1 |
		grep -v 'Secure Boot\|mokutil'
}
expect "without the headers, it says which to install" \
	"slabtrace-dkms: the running kernel, 9.8.7-fake, has no headers: slabtrace is not built for it.
slabtrace-dkms: install them (DKMS then builds it): sudo apt install linux-headers-9.8.7-fake" \
	"$(postinst "$t/none")"
expect "with them, nothing" "" "$(postinst "$t/root")"
expect "in a chroot, nothing of the host's kernel" "" "$(FAKE_CHROOT=0 postinst "$t/none")"
mkdir -p "$t/root/sys/module/slabtrace"
echo 0123456789ABCDEF0123456 > "$t/root/sys/module/slabtrace/srcversion"
expect "the module loaded is the one installed: nothing" "" \
	"$(FAKE_SRCV=0123456789ABCDEF0123456 postinst "$t/root")"
expect "the module loaded is another (an upgrade): it says to reload it" \
	"slabtrace-dkms: the slabtrace module loaded is not the one DKMS installed (an upgrade?): sudo rmmod slabtrace && sudo modprobe slabtrace loads the installed one" \
	"$(FAKE_SRCV=FEDCBA9876543210FEDCBA9 postinst "$t/root")"
expect "none installed for this kernel: nothing of reloading" "" \
	"$(FAKE_SRCV= postinst "$t/root")"

# --- slabtrace-tools: the programs in /usr/bin, built with every
# feature (TOOLS_REQUIRE=1: a missing build dependency fails the build).
dpkg-deb -c "$tools_deb" > "$t/tools.list" 2>&1
dpkg-deb -x "$tools_deb" "$t/tools"
dpkg-deb -f "$tools_deb" Package Version > "$t/tools.fields" 2>&1
has "slabtrace-tools is version $v" "$t/tools.fields" "^Version: $v$"
if grep -q ' \./usr/sbin/.' "$t/tools.list"; then
	fail "slabtrace-tools has programs in /usr/sbin: $(grep ' \./usr/sbin/.' "$t/tools.list" | head -n 2)"
else
	pass "slabtrace-tools has no program in /usr/sbin"
fi
for p in "$t"/tools/usr/bin/*; do
	case $p:$(file -b "$p") in
	*/slabtrace-flamegraph:*)
		expect "slabtrace-tools: /usr/bin/${p##*/}, a Python script" "#!/usr/bin/env python3" \
			"$(head -n 1 "$p")" ;;
	*"dynamically linked"*) pass "slabtrace-tools: /usr/bin/${p##*/}, dynamically linked" ;;
	*) fail "slabtrace-tools: /usr/bin/${p##*/}: $(file -b "$p")" ;;
	esac
done
make -s --no-print-directory tools > "$t/tools.log" 2>&1 || fail "make tools: $(tail -n 3 "$t/tools.log")"
for p in build/tools/*; do
	has "slabtrace-tools has ${p##*/} (make tools builds it)" "$t/tools.list" " \./usr/bin/${p##*/}$"
done
has "slabtrace-tools has kmemtrace-report" "$t/tools.list" ' \./usr/bin/kmemtrace-report$'
has "slabtrace-tools has slabtrace-flamegraph" "$t/tools.list" ' \./usr/bin/slabtrace-flamegraph$'
# The packaged programs run, and write a profile: a saved dump, a trace.
rm -f "$t/s.pb.gz" "$t/k.pb.gz"
if "$t/tools/usr/bin/slabtrace" report --pprof "$t/s.pb.gz" \
	scripts/tests/cli/dump-6.12.txt > "$t/s.out" 2>&1 && gzip -t "$t/s.pb.gz"; then
	pass "the package's slabtrace report --pprof writes a profile"
else
	fail "the package's slabtrace report --pprof: $(tail -n 2 "$t/s.out")"
fi
if "$t/tools/usr/bin/kmemtrace-report" --pprof "$t/k.pb.gz" \
	scripts/tests/kmemtrace/tiny > "$t/k.out" 2>&1 && gzip -t "$t/k.pb.gz"; then
	pass "the package's kmemtrace-report --pprof writes a profile"
else
	fail "the package's kmemtrace-report --pprof: $(tail -n 2 "$t/k.out")"
fi
for m in Documentation/*.[1-8]; do
	has "slabtrace-tools has ${m##*/}" "$t/tools.list" " \./usr/share/man/man${m##*.}/${m##*/}\.gz$"
done
expect "slabtrace --version says $v" "slabtrace $v" \
	"$("$t/tools/usr/bin/slabtrace" --version 2>&1)"

# The guides, where the man pages send their readers: every page of
# Documentation/ (index.rst names them all, testing.rst and tests.rst
# too), README.md, the images.
doc=usr/share/doc/slabtrace-tools
for f in README.md Documentation/*.rst Documentation/images/*; do
	b=${f#Documentation/}
	has "slabtrace-tools has /$doc/$b" "$t/tools.list" " \./$doc/$b\(\.gz\)\?$"
done
for m in Documentation/*.[1-8]; do
	if grep -qF '/usr/share/doc/slabtrace\-tools/' "$m"; then
		pass "${m##*/} sends its reader to /$doc/"
	else
		fail "${m##*/} does not name /$doc/"
	fi
done

# A build that would lose a feature fails (debian/rules: TOOLS_REQUIRE=1),
# and what it needs is in Build-Depends: each package make tools names.
if make -s --no-print-directory tools TOOLS_OUT="$t/req" TOOLS_REQUIRE=1 \
	PROTOC_C=/nonexistent > "$t/req.log" 2>&1; then
	fail "make tools TOOLS_REQUIRE=1 without protoc-c builds"
else
	pass "make tools TOOLS_REQUIRE=1 without protoc-c fails: $(grep 'TOOLS_REQUIRE' "$t/req.log")"
fi
if make -s --no-print-directory tools TOOLS_OUT="$t/req" TOOLS_REQUIRE=1 \
	PKG_CONFIG=false > "$t/req.log" 2>&1; then
	fail "make tools TOOLS_REQUIRE=1 without libbabeltrace2 builds"
else
	pass "make tools TOOLS_REQUIRE=1 without libbabeltrace2 fails"
fi
has "debian/rules builds the tools with TOOLS_REQUIRE=1" debian/rules 'tools .*TOOLS_REQUIRE=1'
bdeps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' debian/control | grep -v '^#')
for pkg in $(sed -n 's/^\(PPROF\|REPORT\)_DEPS := //p' scripts/tools/tools.mk); do
	case $bdeps in
	*" $pkg,"*) pass "Build-Depends has $pkg (make tools needs it)" ;;
	*) fail "Build-Depends lacks $pkg, which make tools needs" ;;
	esac
done
result
