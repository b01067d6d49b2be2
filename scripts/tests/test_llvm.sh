#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make LLVM=1 against a gcc-built kernel (Debian's, 6.12) must stop at
# once, saying why, instead of building with gcc as the kernel's headers
# would make it.  The last line is "llvm: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
npass=0
nfail=0
pass() { echo "PASS: llvm: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: llvm: $*"; nfail=$((nfail + 1)); }

out=$(make --no-print-directory -C "$top" KVER=6.12 LLVM=1 modules 2>&1)
if [ $? -ne 0 ]; then
	pass "make KVER=6.12 LLVM=1 fails"
else
	fail "make KVER=6.12 LLVM=1 succeeded"
fi
if echo "$out" | grep -q 'was built with gcc .*LLVM=1 is not supported for them'; then
	pass "it says why"
else
	fail "no reason given: $out"
fi
if echo "$out" | grep -q 'CC \[M\]'; then
	fail "it compiled something"
else
	pass "nothing compiled"
fi
echo "llvm: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
