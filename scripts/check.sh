#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project, in order: the builds for Debian
# 6.1, 6.12, their PREEMPT_RT flavours 6.1-rt and 6.12-rt and the arm64
# kernels 6.12-arm64 and 6.1-arm64 (W=1, a warning fails), sparse (6.1,
# 6.12), clang -fsyntax-only (6.12, 6.12-arm64), LLVM=1 refused for
# gcc-built kernels, dkms add/build with private trees, the build's
# refusal of kernels without what slabtrace needs, checkpatch, the docs,
# the KUnit suites on UML, the VM suites (every guest test) on 6.1, 6.12,
# 6.12-rt, 6.1-rt and 6.12-arm64, core and load on 6.1-arm64, print in a
# 256 MiB guest, the userspace tools (with what the VM runs saved), the
# flame graph in headless Chromium and the slabtrace command.  A step that prints
# "N passed, N failed" counts its checks; any other step counts as one.
# The last line sums them: "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
"$top/scripts/deps.sh" || { echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp -d "${TMPDIR:-/tmp}/slabtrace-check.XXXXXX")
trap 'rm -rf "$log"' EXIT
total_pass=0
total_fail=0
summary=

step() {
	name=$1
	shift
	echo
	echo "=== $name: $*"
	start=$(date +%s)
	"$@" > "$log/out" 2>&1
	rc=$?
	cat "$log/out"
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log/out" | tail -n 1)
	p=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "passed,") print $i }')
	f=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) ~ /^failed/) print $i }')
	if [ -z "$p" ]; then
		p=0
		f=0
		if [ $rc -eq 0 ]; then p=1; else f=1; fi
	elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	summary="$summary$(printf '%-14s %4s passed, %3s failed  (%ss)' "$name" "$p" "$f" $(($(date +%s) - start)))
"
}

step "build 6.1" make --no-print-directory KVER=6.1 test-modules
# -j: a parallel make must pass kbuild its jobserver (the Makefile's "+").
step "build 6.12" make -j"$(nproc)" --no-print-directory KVER=6.12 test-modules
step "build 6.1-rt" make --no-print-directory KVER=6.1-rt test-modules
step "build 6.12-rt" make --no-print-directory KVER=6.12-rt test-modules
step "build 6.12-arm64" make --no-print-directory KVER=6.12-arm64 test-modules
step "build 6.1-arm64" make --no-print-directory KVER=6.1-arm64 test-modules
step "sparse 6.1" make --no-print-directory KVER=6.1 sparse
step "sparse 6.12" make --no-print-directory KVER=6.12 sparse
step "clang 6.12" scripts/clang-check.py 6.12
step "clang 6.12-arm64" scripts/clang-check.py 6.12-arm64
step "llvm refused" scripts/tests/test_llvm.sh
step "dkms" scripts/tests/test_dkms.sh
step "refusals" scripts/tests/test_refusals.sh
step "checkpatch" scripts/checkpatch.sh
step "docs" scripts/check-docs.py
step "kunit" scripts/kunit.sh
tests=$(cd scripts/guest && ls *.sh | grep -v '^lib.sh$' | grep -v '^lowmem' |
	sed 's/\.sh$//' | paste -sd, -)
rm -rf build/6.1/vm-out build/6.12/vm-out build/6.1-rt/vm-out build/6.12-rt/vm-out \
	build/6.12-arm64/vm-out build/6.1-arm64/vm-out
step "vm 6.1" scripts/vm-run.sh -o build/6.1/vm-out 6.1 "$tests"
step "vm 6.12" scripts/vm-run.sh -o build/6.12/vm-out 6.12 "$tests"
step "vm 6.12-rt" scripts/vm-run.sh -o build/6.12-rt/vm-out 6.12-rt "$tests"
step "vm 6.1-rt" scripts/vm-run.sh -o build/6.1-rt/vm-out 6.1-rt "$tests"
step "vm 6.12-arm64" scripts/vm-run.sh -o build/6.12-arm64/vm-out 6.12-arm64 "$tests"
# arm64 6.1's smallest kmalloc cache is kmalloc-128; the other guest tests
# expect kmalloc-64.
step "vm 6.1-arm64" scripts/vm-run.sh -o build/6.1-arm64/vm-out 6.1-arm64 load,core
# print, and kptrace's queue, in a 256 MiB guest: ENOMEM, never the OOM
# killer (the lowmem* tests).
rm -rf build/6.12/vm-lowmem
step "vm lowmem" env SLABTRACE_VM_MEM=256 \
	scripts/vm-run.sh -o build/6.12/vm-lowmem 6.12 lowmem,lowmem_kptrace
# The userspace tools, also against what the VMs just saved.
step "tools" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_tools.py \
	build/6.1/vm-out build/6.12/vm-out
# The flame graph's script in headless Chromium (Debian's python3-selenium).
step "flame" env SLABTRACE_REQUIRE_BROWSER=1 /usr/bin/python3 \
	scripts/tests/test_flamegraph_browser.py
# The slabtrace command on a fake tree, and the JSON the VMs' cli test saved.
step "cli" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_cli.py \
	build/6.1/vm-out build/6.12/vm-out
# kmemtrace: babeltrace2 and kmemtrace-report on made-up, checked-in and
# just-recorded traces.
step "kmemtrace" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_kmemtrace.py \
	build/6.1/vm-out build/6.12/vm-out
# kptrace's binary stream: babeltrace2 on what the VMs just recorded.
step "kptrace_ctf" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_kptrace_ctf.py \
	build/6.1/vm-out build/6.12/vm-out

echo
echo "=== summary"
printf '%s' "$summary"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
