#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict on every C file of the project, with the script
# from Debian's linux-source-6.12 (scripts/kernels/linux-source.sh).  The last line
# is "checkpatch: N passed, N failed", one check per file.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$("$top/scripts/kernels/linux-source.sh")
cd "$top"
npass=0
nfail=0
# scripts/kbuild/compat/fixtures: lines of the kernel's headers, kept as they are.
for f in $(find module include kunit-tests scripts -path scripts/kbuild/compat/fixtures -prune \
	-o -name '*.[ch]' -print | sort); do
	if out=$(perl "$src/scripts/checkpatch.pl" --no-tree --strict --quiet \
		--show-types -f "$f" 2>&1); then
		npass=$((npass + 1))
	else
		echo "$out"
		echo "FAIL: checkpatch: $f"
		nfail=$((nfail + 1))
	fi
done
echo "checkpatch: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
