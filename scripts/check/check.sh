#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project, in order: the builds for Debian
# 6.1, 6.12, their PREEMPT_RT flavours 6.1-rt and 6.12-rt and the arm64
# kernels 6.12-arm64 and 6.1-arm64, and for Debian 13's 6.12-deb13, sid's
# 7.2 and trixie-backports' 7.3, 7.3-rt and 7.3-arm64 (in build roots of
# their suites; W=1, a warning fails), sparse (6.1,
# 6.12), clang -fsyntax-only (6.12, 6.12-arm64), LLVM=1 refused for
# gcc-built kernels, dkms add/build with private trees, the build's
# refusal of kernels without what slabtrace needs, the VM runner's splat
# patterns, the debug kernel's refusal of a fragment the .config does not
# follow, make sign, make deb and the one version, checkpatch, the docs
# (and the reader of their shell examples, on made-up guides),
# the KUnit suites on UML, the VM suites: every guest test on the oldest
# and newest kernels (6.1, 7.3) and on 6.12, fewer on the others (the
# lists below; Documentation/testing.rst says why), print in a
# 256 MiB guest, the streams' race and lockdown (6.1, 7.3-rt, with
# slub_debug), the packages installed and README.md's commands run on a
# Debian system (6.12; make check-debian runs it on 6.1, and on Debian
# 13's 6.12 and 7.3), the VM runner's time budgets and its transfer of
# /out, the dump's parser under sanitizers and libFuzzer, the userspace
# tools (with what the VM runs saved), the flame graph in headless
# Chromium, the slabtrace command, and its pprof
# and Prometheus output read by go tool pprof, promtool and node_exporter.  A step that prints
# "N passed, N failed" counts its checks; any other step counts as one.
# The last line sums them: "N passed, N failed".
set -u
# dkms, modinfo, debootstrap: in sbin, which a user's PATH lacks.
export PATH="$PATH:/usr/sbin:/sbin"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
"$top/scripts/deps/deps.sh" || { echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp -d "${TMPDIR:-/tmp}/slabtrace-check.XXXXXX")
trap 'rm -rf "$log"' EXIT
total_pass=0
total_fail=0
total_skip=0
summary=

# tally NAME STATUS OUTPUT SECONDS: count a finished step's checks: its
# last "N passed, N failed" line, or one check, passed if STATUS is 0.
tally() {
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$3" | tail -n 1)
	# The first count of each (a line may say "boot failed)" after them).
	p=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "passed,") { print $i; exit } }')
	f=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) ~ /^failed,?$/) { print $i; exit } }')
	case "$p$f" in
	*[!0-9]*) p= ;;	# not two counts: judged by its status
	esac
	if [ -z "$p" ] || [ -z "$f" ]; then
		p=0
		f=0
		if [ "$2" -eq 0 ]; then p=1; else f=1; fi
	elif [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	# Skipped checks are neither: said, so that a skip is seen.
	sk=$(echo "$line" | sed -n 's/.*[ ,]\([1-9][0-9]*\) skipped.*/\1/p')
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + ${sk:-0}))
	summary="$summary$(printf '%-14s %4s passed, %3s failed  (%ss)' "$1" "$p" "$f" "$4")${sk:+, $sk skipped}
"
}

# step NAME COMMAND...: run a step, show its output, count it.
step() {
	name=$1
	shift
	echo
	echo "=== $name: $*"
	start=$(date +%s)
	"$@" > "$log/out" 2>&1
	rc=$?
	cat "$log/out"
	tally "$name" $rc "$log/out" $(($(date +%s) - start))
}

# The VM steps: each QEMU (single-threaded TCG) keeps one host CPU busy,
# so they run side by side, as many at once as there are CPUs (at least
# two); their output is shown and counted in the order they were started,
# once all have ended (vm_wait).  Step N's files: $log/vm.N.*.
vm_jobs=$(nproc)
[ "$vm_jobs" -ge 2 ] || vm_jobs=2
vm_n=0

# vm_step NAME COMMAND...: start a step in the background when a slot is free.
vm_step() {
	while [ "$(find "$log" -name 'vm.*.running' | wc -l)" -ge "$vm_jobs" ]; do
		sleep 1
	done
	vm_n=$((vm_n + 1))
	f=$log/vm.$vm_n
	echo "$1" > "$f.name"
	shift
	echo "$*" > "$f.cmd"
	echo "=== started: $(cat "$f.name")"
	touch "$f.running"
	(
		start=$(date +%s)
		"$@" > "$f.out" 2>&1
		echo $? > "$f.rc"
		echo $(($(date +%s) - start)) > "$f.secs"
		rm -f "$f.running"
	) &
}

# vm_wait: wait for every VM step, then show and count them in order.
vm_wait() {
	wait
	i=1
	while [ $i -le $vm_n ]; do
		f=$log/vm.$i
		echo
		echo "=== $(cat "$f.name"): $(cat "$f.cmd")"
		cat "$f.out"
		tally "$(cat "$f.name")" "$(cat "$f.rc" 2>/dev/null || echo 1)" "$f.out" \
			"$(cat "$f.secs" 2>/dev/null || echo 0)"
		i=$((i + 1))
	done
}

# The build roots of the suites whose kernels need them (debootstrap, a
# few minutes cold, mostly waiting on the network): made while the host's
# builds and tests run, and waited for before their kernels' builds.
scripts/kernels/suite-chroot.sh trixie > "$log/chroot-trixie" 2>&1 &
trixie_pid=$!
scripts/kernels/suite-chroot.sh sid > "$log/chroot-sid" 2>&1 &
sid_pid=$!

step "build 6.1" make --no-print-directory KVER=6.1 test-modules
# -j: a parallel make must pass kbuild its jobserver (the Makefile's "+").
step "build 6.12" make -j"$(nproc)" --no-print-directory KVER=6.12 test-modules
# sparse runs kbuild in build/6.12 again: before realdeb reads it.
step "sparse 6.12" make --no-print-directory KVER=6.12 sparse
# The longest VM job first, as soon as its modules are built: the
# packages installed and README.md's commands run as a Debian user (it
# builds its root file system the first time, and its packages in
# build/deb-bookworm).  It runs beside the steps below, most of which
# use one core; none of them writes build/6.12's modules.
vm_step "realdeb 6.12" env SLABTRACE_BUILT=1 scripts/tests/test_realdeb.sh 6.12
step "build 6.1-rt" make --no-print-directory KVER=6.1-rt test-modules
step "build 6.12-rt" make --no-print-directory KVER=6.12-rt test-modules
step "build 6.12-arm64" make --no-print-directory KVER=6.12-arm64 test-modules
step "build 6.1-arm64" make --no-print-directory KVER=6.1-arm64 test-modules
wait "$trixie_pid" "$sid_pid"
step "build 6.12-deb13" make -j"$(nproc)" --no-print-directory KVER=6.12-deb13 test-modules
step "build 7.2" make -j"$(nproc)" --no-print-directory KVER=7.2 test-modules
step "build 7.3" make -j"$(nproc)" --no-print-directory KVER=7.3 test-modules
step "build 7.3-rt" make -j"$(nproc)" --no-print-directory KVER=7.3-rt test-modules
step "build 7.3-arm64" make -j"$(nproc)" --no-print-directory KVER=7.3-arm64 test-modules
# The arm64 system call tables gen-syscalls.sh made (testing.rst, "The
# build"): asm-generic's numbers, 6.1's against 6.12's, bpf's arguments.
step "syscall tables" env SLABTRACE_REQUIRE_BUILDS=1 scripts/tests/test_syscall_tables.py
step "sparse 6.1" make --no-print-directory KVER=6.1 sparse
step "clang 6.12" scripts/lint/clang-check.py 6.12
step "clang 6.12-arm64" scripts/lint/clang-check.py 6.12-arm64
step "llvm refused" scripts/tests/test_llvm.sh
step "dkms" scripts/tests/test_dkms.sh
step "refusals" scripts/tests/test_refusals.sh
step "compat-probes" scripts/tests/test_compat_probes.sh
step "dkms skip" scripts/tests/test_dkms_skip.sh
step "splats" scripts/tests/test_splats.sh
step "debug-kernel" scripts/tests/test_debug_kernel.sh
step "sign" scripts/tests/test_sign.sh
step "deb" scripts/tests/test_deb.sh
step "checkpatch" scripts/lint/checkpatch.sh
step "docs" scripts/lint/check-docs.py
step "doc-examples" scripts/tests/test_doc_examples.py
step "kunit" scripts/check/kunit.sh
# The dump's parser on bad input and under libFuzzer, with ASan and UBSan.
step "dump" scripts/tests/test_dump.py
tests=$(cd scripts/vm/guest && ls *.sh | grep -Ev '^(lib|lowmem|lowmem_.*|streams_lowmem|relayrace|lockdown|realdeb|runner_.*)\.sh$' |
	sed 's/\.sh$//' | paste -sd, -)
# without NAME...: $tests less those tests.
without() {
	echo "$tests" | tr , '\n' | grep -Fxv "$(printf '%s\n' "$@")" | paste -sd, -
}
# 6.12 runs every test.  The concurrency tests (storm, kptrace_storm,
# stress) run on 6.1 and 7.3 in their rt flavours, whose locking they are
# for; renames (task names, no kernel API of a series) on 6.12 alone; the
# guides' examples on 6.12 and 7.3.
tests61=$(without renames examples storm kptrace_storm stress)
tests73=$(without renames storm kptrace_storm stress)
# Fewer tests on the other kernels: what each kind of kernel risks
# (Documentation/testing.rst, "Which kernels make check boots").  quick:
# loading, the slab tracer's core and both binary streams (relay, the
# ring buffer), what a new kernel's API changes break first; rt: the
# same with the contexts, which PREEMPT_RT's sleeping locks change.  The
# oldest and the newest of each flavour add what is slow and differs
# least between neighbours: the rt flavours the concurrent tests, whose
# locking they are for, and every flavour's edges the leak verdicts
# (each kernel's own caches and allocations, whose stacks they judge
# too: kdamond's on 7.x, vmap_area's on rt).  The kernels in between
# (6.12-rt, 6.12-arm64, 6.12-deb13, 7.2) run the short lists.
quick=load,core,kmemtrace,kptrace_ctf
rtmid=load,core,irqctx,kmemtrace,kptrace_ctf
rt=$rtmid,storm,kptrace_storm,stress,verdicts
for k in 6.1 6.12 7.3 6.1-rt 6.12-rt 7.3-rt 6.12-arm64 7.3-arm64 6.1-arm64 6.12-deb13 7.2; do
	rm -rf "build/$k/vm-out"
done
vm_step "vm 6.1" scripts/vm/run.sh -o build/6.1/vm-out 6.1 "$tests61"
vm_step "vm 7.3" scripts/vm/run.sh -o build/7.3/vm-out 7.3 "$tests73"
vm_step "vm 6.12" scripts/vm/run.sh -o build/6.12/vm-out 6.12 "$tests"
vm_step "vm 7.3-rt" scripts/vm/run.sh -o build/7.3-rt/vm-out 7.3-rt "$rt"
vm_step "vm 6.12-rt" scripts/vm/run.sh -o build/6.12-rt/vm-out 6.12-rt "$rtmid"
vm_step "vm 6.1-rt" scripts/vm/run.sh -o build/6.1-rt/vm-out 6.1-rt "$rt"
# 7.3-arm64 on a CPU without LPA2, as most arm64 machines: the kernel,
# built for 52-bit VA, runs with 48 and its linear map is not at
# PAGE_OFFSET (kmemtrace's ptr_base).  6.12-arm64 keeps LPA2 (52-bit VA).
# kptrace too: the text queue with arm64's system call numbers (26 to 36 s).
vm_step "vm 7.3-arm64" env SLABTRACE_ARM64_CPU=max,lpa2=off \
	scripts/vm/run.sh -o build/7.3-arm64/vm-out 7.3-arm64 "$quick,kptrace,verdicts"
vm_step "vm 6.12-arm64" scripts/vm/run.sh -o build/6.12-arm64/vm-out 6.12-arm64 load,core
# arm64 6.1's smallest kmalloc cache is kmalloc-128; the other guest tests
# expect kmalloc-64.  bigleak: 6.1's alloc_percpu() wrappers, which frame
# pointers keep in the walk.
vm_step "vm 6.1-arm64" scripts/vm/run.sh -o build/6.1-arm64/vm-out 6.1-arm64 load,core,verdicts,bigleak
vm_step "vm 6.12-deb13" scripts/vm/run.sh -o build/6.12-deb13/vm-out 6.12-deb13 "$quick"
vm_step "vm 7.2" scripts/vm/run.sh -o build/7.2/vm-out 7.2 "$quick"
# print, kptrace's queue and the streams' starts in a 256 MiB guest: ENOMEM, never the OOM
# killer.
rm -rf build/6.12/vm-lowmem
vm_step "vm lowmem" env SLABTRACE_VM_MEM=256 \
	scripts/vm/run.sh -o build/6.12/vm-lowmem 6.12 lowmem,lowmem_kptrace,streams_lowmem
# The binary streams' files racing starts, stops and resizes, with freed
# memory poisoned, on CPUs that run at once (multi-threaded TCG; the
# streams' tracepoints held by two more probes, so that no start patches
# kernel text, which that mode gets wrong); a big record pool given back
# where a free is slow; interrupt allocations counted against SLUB's own
# alloc_traces, which slub_debug's U gives; then Secure Boot's lockdown:
# last in its boot, since lockdown is never lowered.  The oldest kernel
# and the newest, in its rt flavour.
for k in 7.3-rt 6.1; do
	rm -rf build/$k/vm-streams
	vm_step "vm streams $k" env SLABTRACE_ACCEL=tcg,thread=multi \
		SLABTRACE_APPEND="slub_debug=FZPU init_on_free=1 relay_secs=20 relay_pin_keys=1" \
		scripts/vm/run.sh -o build/$k/vm-streams $k relayrace,poolbig,irqctx,lockdown
done
# The runner itself: a test over its time budget stopped by name, the
# next run; /out over the slow UART, its bytes counted as progress.
vm_step "vm runner" scripts/tests/test_runner.sh
vm_wait
# The userspace tools, also against what the VMs just saved.
step "tools" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_tools.py \
	build/6.1/vm-out build/6.12/vm-out
# The flame graph's script in headless Chromium (Debian's python3-selenium).
step "flame" env SLABTRACE_REQUIRE_BROWSER=1 /usr/bin/python3 \
	scripts/tests/test_flamegraph_browser.py
# The slabtrace command on a fake tree, and the JSON the VMs' cli test saved.
step "cli" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_cli.py \
	build/6.1/vm-out build/6.12/vm-out
# What other tools read of slabtrace's: go tool pprof the profiles,
# promtool and node_exporter the Prometheus files (made up, and the cli
# guest test's).
step "interop" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_interop.py \
	build/6.1/vm-out build/6.12/vm-out
# kmemtrace: babeltrace2 and kmemtrace-report on made-up, checked-in and
# just-recorded traces.
# 7.3-arm64's: its call sites, in a window around the KASLR'd kernel.
step "kmemtrace" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_kmemtrace.py \
	build/6.1/vm-out build/6.12/vm-out build/7.3-arm64/vm-out
# kptrace's binary stream: babeltrace2 on what the VMs just recorded
# (7.3-arm64's: arm64's system call numbers, the asm-generic table).
step "kptrace_ctf" env SLABTRACE_REQUIRE_VM_OUT=1 scripts/tests/test_kptrace_ctf.py \
	build/6.1/vm-out build/6.12/vm-out build/7.3-arm64/vm-out

echo
echo "=== summary"
printf '%s' "$summary"
[ "$total_skip" -eq 0 ] || echo "$total_skip checks skipped (the steps above say which)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
