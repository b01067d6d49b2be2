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
out=$(make --no-print-directory -C "$top" KVER=6.12 LLVM=1 modules 2>&1)
rc=$?
if [ "$rc" -ne 0 ]; then
	npass=$((npass + 1))
	echo "PASS: llvm: make KVER=6.12 LLVM=1 fails"
else
	nfail=$((nfail + 1))
	echo "FAIL: llvm: make KVER=6.12 LLVM=1 succeeded"
fi
if echo "$out" | grep -q 'was built with gcc .*LLVM=1 is not supported for them'; then
	npass=$((npass + 1))
	echo "PASS: llvm: it says why"
else
	nfail=$((nfail + 1))
	echo "FAIL: llvm: no reason given: $out"
fi
if echo "$out" | grep -q 'CC \[M\]'; then
	nfail=$((nfail + 1))
	echo "FAIL: llvm: it compiled something"
else
	npass=$((npass + 1))
	echo "PASS: llvm: nothing compiled"
fi
echo "llvm: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
