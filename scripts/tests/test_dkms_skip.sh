#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dkms.conf skips a kernel whose APIs this slabtrace does not know, with
# one line, instead of failing the build (which would fail the package
# operation that installs the kernel's headers): "dkms build" with a
# private tree against the made-up future kernel of
# scripts/kbuild/compat/fixtures/future (scripts/kbuild/compat-probe.sh
# --missing names its APIs) must exit 77, DKMS's "skipped by BUILD_EXCLUSIVE", print
# slabtrace's line once, naming the kernel and the APIs, and build
# nothing; for Debian's 6.12 and 7.3 headers dkms.conf must exclude
# nothing and say nothing.  The
# real package operation is scripts/vm/guest/realdeb.sh's, on Debian 13.
# The last line is "dkms-skip: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
T=dkms-skip
npass=0
nfail=0
pass() { echo "PASS: $T: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: $T: $*"; nfail=$((nfail + 1)); }
command -v dkms > /dev/null || { fail "dkms is not installed (scripts/deps/deps.sh)"; echo "$T: $npass passed, $nfail failed"; exit 1; }
v=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
t=$top/build/dkms-skip
rm -rf "$t"
mkdir -p "$t/dkms" "$t/src/slabtrace-$v"
(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) |
	tar -C "$t/src/slabtrace-$v" -xf -
trees="--dkmstree $t/dkms --sourcetree $t/src"
# shellcheck disable=SC2086
dkms add -m slabtrace -v "$v" $trees > "$t/add.log" 2>&1 ||
	fail "dkms add: $(tail -n 3 "$t/add.log")"

kv=99.0.0-future-amd64
rc=0
# shellcheck disable=SC2086
dkms build -m slabtrace -v "$v" -k "$kv" \
	--kernelsourcedir "$top/scripts/kbuild/compat/fixtures/future" $trees \
	> "$t/future.log" 2>&1 || rc=$?
if [ "$rc" -eq 77 ]; then
	pass "future kernel: dkms build exits 77 (skipped)"
else
	fail "future kernel: dkms build exits $rc, not 77: $(tail -n 3 "$t/future.log")"
fi
# The APIs the future kernel's fixture lacks, as compat-probe.sh lists them.
apis=$(sed -n 's/^-DSLABTRACE_MISSING_//p' "$top/scripts/kbuild/compat/fixtures/future/expect" |
	sort | tr '\n' ' ')
want="slabtrace $v: not built for $kv: its kernel APIs ${apis}are newer than this slabtrace knows; a newer slabtrace may support it"
n=$(grep -cxF "$want" "$t/future.log")
if [ "$n" -eq 1 ]; then
	pass "future kernel: one line: $want"
else
	fail "future kernel: the line appears $n times, not once:"
	sed 's/^/    /' "$t/future.log" | head -n 10
fi
if find "$t/dkms/slabtrace/$v/$kv" -name '*.ko' 2> /dev/null | grep -q .; then
	fail "future kernel: a module was built"
else
	pass "future kernel: nothing built"
fi

# The kernels slabtrace knows: dkms.conf, sourced as DKMS does (bash, with
# kernelver, kernel_source_dir and the module's tree set), says nothing
# and excludes nothing.
for k in 6.12 7.3; do
	kdir=$("$top/scripts/kernels/fetch-kernel.sh" "$k")
	abi=$(cat "$kdir/abi")
	# shellcheck disable=SC2016
	got=$(cd "$t" && kernelver=$abi kernel_source_dir=$kdir/build dkms_tree=$t/dkms \
		module=slabtrace module_version=$v \
		bash -c '. "$0"; echo "exclusive=$BUILD_EXCLUSIVE_KERNEL"' \
		"$t/src/slabtrace-$v/dkms.conf" 2>&1)
	if [ "$got" = "exclusive=" ]; then
		pass "$k ($abi): built, no line"
	else
		fail "$k ($abi): dkms.conf says '$got'"
	fi
done
echo "$T: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
