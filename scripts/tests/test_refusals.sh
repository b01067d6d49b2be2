#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A kernel without what slabtrace needs is refused when the module is
# built, with one line naming the option (include/wrapper/requirements.h).
# For each option, the 6.12 build is run with the option taken away (a
# header that #undefs it, -include'd after the kernel's own config by
# KCFLAGS): the build must fail, and its errors must be that one line.
# The last line is "refusals: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$("$top/scripts/kernels/fetch-kernel.sh" 6.12)/build
t=$top/build/refusals
npass=0
nfail=0
rm -rf "$t"
mkdir -p "$t"
for opt in SLUB SYSFS STACKTRACE STACKDEPOT TRACEPOINTS; do
	printf '#undef CONFIG_%s\n' "$opt" > "$t/no-$opt.h"
	b=$t/$opt
	"$top/scripts/kbuild/shadow-tree.sh" "$b"
	if "$top/scripts/kbuild/kbuild.sh" "$kdir" "$b" \
		KCFLAGS="-include $t/no-$opt.h" modules > "$t/$opt.log" 2>&1; then
		echo "FAIL: refusals: built without CONFIG_$opt"
		nfail=$((nfail + 1))
		continue
	fi
	errs=$(grep -o 'error: .*' "$t/$opt.log" | sort -u)
	if [ "$errs" = "error: #error \"slabtrace needs CONFIG_$opt: $(grep -o "needs CONFIG_$opt: [^\"]*" "$top/include/wrapper/requirements.h" | sed "s/^needs CONFIG_$opt: //")\"" ]; then
		echo "PASS: refusals: without CONFIG_$opt: $errs"
		npass=$((npass + 1))
	else
		echo "FAIL: refusals: without CONFIG_$opt, not the one line expected:"
		echo "$errs" | head -n 5 | sed 's/^/    /'
		nfail=$((nfail + 1))
	fi
done
echo "refusals: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
