#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build slabtrace and the leaky demo module for Debian's 6.12
# kernel, boot it in a VM, hunt leaky's leak, and show the transcript.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/deps.sh
make --no-print-directory KVER=6.12 test-modules > /dev/null
out=$top/build/demo
rm -rf "$out"
echo "demo: booting Debian's 6.12 kernel under QEMU (TCG): about 15 seconds"
if ! scripts/vm-run.sh -o "$out" 6.12 demo > "$out.log" 2>&1; then
	cat "$out.log"
	echo "demo: the VM run failed" >&2
	exit 1
fi
echo
cat "$out/demo.txt"
echo
echo "demo: transcript in $out/demo.txt; the same commands work on a real"
echo "machine after 'make && sudo insmod slabtrace.ko' (see README.md)."
