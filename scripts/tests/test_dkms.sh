#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS, the way a user builds slabtrace for their kernel, without touching
# the system: "dkms add" and "dkms build" of this checkout with private
# trees (--dkmstree, --sourcetree) against the fetched Debian 6.12 headers
# (--kernelsourcedir).  Checks that the module is built for that kernel,
# without the test build's hooks (no fail_init parameter), that the build
# log (make.log) is free of warnings (make's jobserver
# warning included), and that /var/lib/dkms and /lib/modules/KVER were
# left alone.  The last line is "dkms: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v dkms > /dev/null || { echo "dkms: not installed (scripts/deps/deps.sh)"; echo "dkms: 0 passed, 1 failed"; exit 1; }
kdir=$("$top/scripts/kernels/fetch-kernel.sh" 6.12)
v=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
kv=$(cat "$kdir/abi")
t=$top/build/dkms
npass=0
nfail=0
pass() { echo "PASS: dkms: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: dkms: $*"; nfail=$((nfail + 1)); }

# The source as a user has it (no build/, no .git), a private tree each.
rm -rf "$t"
mkdir -p "$t/dkms" "$t/src/slabtrace-$v"
(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) |
	tar -C "$t/src/slabtrace-$v" -xf -
before=$(ls -A /var/lib/dkms 2>/dev/null)
had_kv=0
[ ! -e "/lib/modules/$kv" ] || had_kv=1
trees="--dkmstree $t/dkms --sourcetree $t/src"

# shellcheck disable=SC2086
if dkms add -m slabtrace -v "$v" $trees > "$t/add.log" 2>&1; then
	pass "dkms add"
else
	fail "dkms add: $(tail -n 3 "$t/add.log")"
fi
# KVER and LLVM in the environment (sudo -E, a developer's shell) are
# the Makefile's own knobs: the DKMS build must not take them.
# shellcheck disable=SC2086
if env KVER=7.3 LLVM=1 dkms build -m slabtrace -v "$v" -k "$kv" --kernelsourcedir "$kdir/build" \
	$trees > "$t/build.log" 2>&1; then
	pass "dkms build for $kv"
else
	fail "dkms build for $kv: $(tail -n 5 "$t/build.log")"
fi
ko=$(find "$t/dkms/slabtrace/$v/$kv" -name slabtrace.ko 2>/dev/null | head -n 1)
if [ -n "$ko" ]; then
	pass "slabtrace.ko built"
	vm=$(modinfo -F vermagic "$ko")
	case $vm in
	"$kv "*) pass "its vermagic is $kv's" ;;
	*) fail "vermagic '$vm', not $kv's" ;;
	esac
	# The test build's hooks (make test-modules) are not in a user's.
	if modinfo -F parm "$ko" | grep -q '^fail_init:'; then
		fail "the test-only parameter fail_init is in the module"
	else
		pass "no test-only parameter (fail_init)"
	fi
else
	fail "no slabtrace.ko in $t/dkms"
fi
log=$(find "$t/dkms/slabtrace/$v/$kv" -name make.log 2>/dev/null | head -n 1)
if [ -z "$log" ]; then
	fail "no make.log"
elif grep -qi 'warning' "$log"; then
	fail "warnings in make.log: $(grep -i 'warning' "$log" | head -n 3)"
else
	pass "make.log free of warnings"
fi
# shellcheck disable=SC2086
st=$(dkms status -m slabtrace $trees 2>&1)
case $st in
*"$kv"*built*) pass "dkms status says built" ;;
*) fail "dkms status: $st" ;;
esac
if [ "$(ls -A /var/lib/dkms 2>/dev/null)" = "$before" ] &&
	{ [ "$had_kv" -eq 1 ] || [ ! -e "/lib/modules/$kv" ]; }; then
	pass "/var/lib/dkms and /lib/modules/$kv untouched"
else
	fail "dkms wrote to the system's trees"
fi
echo "dkms: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
