#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build slabtrace and the leaky demo module for Debian's 6.12
# kernel, boot it in a VM, hunt leaky's leaks among normal activity, show
# the top stacks, and leave the raw dump and a flame graph in build/demo/.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# Say what each step does before it starts: the first run downloads a
# kernel and may install packages, and would otherwise be silent for minutes.
echo "demo: checking the Debian packages it needs (scripts/deps/deps.sh demo: a compiler, QEMU, busybox)"
scripts/deps/deps.sh demo
mkdir -p build
echo "demo: fetching Debian's 6.12 kernel and headers into ~/.cache/slabtrace" \
	"(a download the first time only; apt-get's progress follows)"
if ! scripts/kernels/fetch-kernel.sh 6.12 > /dev/null; then
	echo "demo: could not fetch the kernel (the lines above say why)" >&2
	exit 1
fi
echo "demo: building slabtrace, the leaky module and the guest programs"
if ! make --no-print-directory KVER=6.12 test-modules > "$top/build/demo-build.log" 2>&1; then
	cat "$top/build/demo-build.log"
	echo "demo: the build failed" >&2
	exit 1
fi
out=$top/build/demo
rm -rf "$out"
echo "demo: booting Debian's 6.12 kernel under QEMU (TCG): about 15 seconds"
if ! scripts/vm/run.sh -o "$out" 6.12 demo > "$out.log" 2>&1; then
	cat "$out.log"
	echo "demo: the VM run failed" >&2
	exit 1
fi
echo "demo: drawing the flame graph"
scripts/tools/flamegraph.py --title "slabtrace demo: outstanding kmalloc-64 objects" \
	--weight objects "$out/leaks.folded" > "$out/leaks.svg"
echo
cat "$out/demo.txt"
echo
echo "demo: in $out:"
echo "  demo.txt      this transcript"
echo "  dump.txt      the raw dump, every outstanding object"
echo "  leaks.folded  the folded stacks; leaks.svg, their flame graph"
echo "                (scripts/tools/flamegraph.py --weight objects leaks.folded > leaks.svg;"
echo "                open it in a browser: click to zoom, Search to highlight)"
echo "  build/6.12/bin/slabtrace report $out/dump.txt   summarises the dump"
echo "The same commands work on a real machine after"
echo "'make && sudo insmod slabtrace.ko' (README.md)."
